"""Unit tests for rag/followup.py: rewriting follow-up questions from the chat history, without a model."""

from __future__ import annotations

import pytest

from rag.followup import (
    asks_closest,
    asks_similar,
    condense_heuristic,
    described_reference,
    each_ask,
    last_sources,
    last_user_question,
    more_aspect,
    more_role,
    more_then_ask,
    other_source,
    own_ask,
    points_by_position,
    pronoun_source,
    referred_works,
    refers_back,
    resolve_described,
    similar_to_tail,
    with_works_named,
)

SOURCES = [
    {"number": 1, "id": "assaybench-1a2b", "label": "AssayBench"},
    {"number": 2, "id": "aptabench-3c4d", "label": "AptaBench"},
    {"number": 3, "id": "v33da-5e6f", "label": "V33DA"},
]
PREVIOUS = "Which papers are benchmarks for biology?"
HISTORY = [
    {"role": "user", "content": PREVIOUS},
    {"role": "assistant", "content": "AssayBench [1], AptaBench [2] and V33DA [3].", "sources": SOURCES},
]


# --- last_sources ---


def test_last_sources_empty_history():
    assert last_sources([]) == []


def test_last_sources_takes_the_latest_assistant_entry_with_sources():
    older = [{"number": 1, "label": "Old"}]
    history = [
        {"role": "assistant", "content": "a", "sources": older},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "b", "sources": SOURCES},
        {"role": "assistant", "content": "c"},  # no sources: skipped
    ]
    assert last_sources(history) == SOURCES


def test_last_sources_ignores_user_entries_and_empty_sources():
    history = [
        {"role": "assistant", "content": "a", "sources": SOURCES},
        {"role": "user", "content": "q", "sources": [{"number": 9, "label": "X"}]},
        {"role": "assistant", "content": "b", "sources": []},
    ]
    assert last_sources(history) == SOURCES


def test_an_ordinal_points_into_the_last_answer_with_that_many_sources():
    one = [{"number": 1, "id": "assaybench-1a2b", "label": "AssayBench"}]
    history = [*HISTORY, {"role": "user", "content": "Tell me more about the first one."},
               {"role": "assistant", "content": "AssayBench is …", "sources": one}]  # fmt: skip
    assert last_sources(history, "What about the second?") == SOURCES
    assert last_sources(history, "And the third one?") == SOURCES
    assert last_sources(history, "How big is it?") == one
    assert last_sources(history, "What about the fifth one?") == one  # no answer had five: the last one
    assert condense_heuristic("What about the second?", history) == "What about AptaBench?"


def test_last_sources_returns_a_copy():
    history = [{"role": "assistant", "content": "a", "sources": list(SOURCES)}]
    result = last_sources(history)
    result.append({"number": 4})
    assert len(history[0]["sources"]) == 3


# --- last_user_question ---


def test_last_user_question_latest_non_blank():
    history = [
        {"role": "user", "content": "first"},
        {"role": "user", "content": "second"},
        {"role": "user", "content": "  "},
    ]
    assert last_user_question(history) == "second"


def test_last_user_question_none():
    assert last_user_question([]) is None
    assert last_user_question([{"role": "assistant", "content": "x"}]) is None
    assert last_user_question([{"role": "user"}]) is None


# --- condense_heuristic ---


def test_no_history_leaves_question_unchanged():
    assert condense_heuristic("What does it use?", []) == "What does it use?"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Tell me more about the second one", "Tell me more about AptaBench"),
        ("Tell me more about the 2nd paper", "Tell me more about AptaBench"),
        ("What about the last paper?", "What about V33DA?"),
        ("Compare the first one and the third one", "Compare AssayBench and V33DA"),
        ("Summarise paper 3", "Summarise V33DA"),
        ("Tell me about source #2", "Tell me about AptaBench"),
        ("What does [1] report?", "What does AssayBench report?"),
        ("What does Abstract 2 measure?", "What does AptaBench measure?"),
    ],
)
def test_ordinal_and_number_references_become_labels(question, expected):
    assert condense_heuristic(question, HISTORY) == expected


@pytest.mark.parametrize(
    "question",
    ["V33DA, the first one - what does it need?", "what does the first one (V33DA) need?",
     "the second paper, AssayBench: how big is it?"],
)
def test_a_name_beside_an_ordinal_says_which_work_is_meant(question):
    # the person names the work and misremembers its place: the name wins, left as written
    assert condense_heuristic(question, HISTORY) == question


def test_an_ordinal_with_a_name_elsewhere_still_points_by_place():
    rewritten = condense_heuristic("does the first one beat V33DA?", HISTORY)
    assert rewritten.startswith("does AssayBench beat V33DA")


def test_unknown_ordinal_is_left_alone():
    rewritten = condense_heuristic("What about the fifth one?", HISTORY)
    assert rewritten.startswith("What about the fifth one?")
    assert "AptaBench" not in rewritten


def test_number_reference_outside_sources_is_left_alone():
    assert "[7]" in condense_heuristic("What does [7] say?", HISTORY)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What dataset does it use?", "What dataset does AssayBench use?"),
        ("How big is this benchmark?", "How big is AssayBench?"),
        (
            "How was it evaluated in the lab setting over many years?",
            "How was AssayBench evaluated in the lab setting over many years?",
        ),
    ],
)
def test_pronoun_becomes_first_source_label(question, expected):
    assert condense_heuristic(question, HISTORY) == expected


def test_pronoun_replaced_only_once():
    assert condense_heuristic("Does it say what it needs?", HISTORY) == "Does AssayBench say what it needs?"


def test_pronoun_with_named_term_is_left_alone():
    question = "What does their method improve on AptaBench?"
    assert condense_heuristic(question, HISTORY) == question


def test_pronoun_uses_the_lowest_numbered_source():
    history = [{"role": "assistant", "content": "x", "sources": [SOURCES[2], SOURCES[1]]}]
    assert condense_heuristic("What does it measure?", history) == "What does AptaBench measure?"


def test_short_follow_up_carries_previous_question_without_sources():
    history = [{"role": "user", "content": "Q1 about proteins?"}, {"role": "assistant", "content": "x"}]
    assert condense_heuristic("What does it do?", history) == "What does it do? (follow-up to: Q1 about proteins?)"


def test_a_short_follow_up_starting_a_new_subject_is_not_carried_along():
    history = [{"role": "user", "content": "What is FooNet?"},
               {"role": "assistant", "content": "x", "sources": [{"number": 1, "id": "f", "label": "FooNet"}]}]  # fmt: skip
    carried = condense_heuristic("and the dataset?", history, new_subject=lambda q: False)
    assert carried == "and the dataset? (FooNet; follow-up to: What is FooNet?)"
    assert condense_heuristic("what about frog calls?", history, new_subject=lambda q: True) == "what about frog calls?"
    # a reference to the earlier paper is read as it, whatever the check says
    assert condense_heuristic("what does it do?", history, new_subject=lambda q: True) == "what does FooNet do?"


def test_a_pronoun_after_a_subject_the_follow_up_raises_points_back_to_that_subject():
    history = [{"role": "user", "content": "What is FooNet?"},
               {"role": "assistant", "content": "x", "sources": [{"number": 1, "id": "f", "label": "FooNet"}]}]  # fmt: skip
    frogs = lambda q: "frog" in q  # noqa: E731 - the check: "frog" is a subject of its own, "metric" is not
    raised = "what about the frog benchmark, how big is it?"
    assert condense_heuristic(raised, history, new_subject=frogs) == raised
    assert condense_heuristic("what about frog calls? what did they find", history, new_subject=frogs) == (
        "what about frog calls? what did they find"
    )
    # a detail of the earlier paper raised first: the pronoun is still that paper
    assert condense_heuristic("what about the metric, how is it defined?", history, new_subject=frogs) == (
        "what about the metric, how is FooNet defined?"
    )


def test_long_question_is_not_a_follow_up():
    history = [{"role": "user", "content": "Q1?"}, {"role": "assistant", "content": "x"}]
    question = "Which approaches improve protein structure prediction using large language models?"
    assert condense_heuristic(question, history) == question


def test_a_long_follow_up_naming_a_part_of_the_work_by_a_definite_description_carries_the_paper_along():
    history = [{"role": "user", "content": "Which paper builds a frog call corpus?"},
               {"role": "assistant", "content": "x", "sources": [{"number": 1, "id": "f", "label": "FooNet"}]}]  # fmt: skip
    for question in ("How many recordings does the dataset have in total?",
                     "Which of the models did worst, and on how many of the measures?",
                     "tell me more. where exactly does the failure happen?"):  # fmt: skip
        assert condense_heuristic(question, history, new_subject=lambda q: False) == (
            f"{question} (FooNet; follow-up to: Which paper builds a frog call corpus?)"
        )
    # a subject of its own, or a long question with no such reference, still stands alone
    long_new = "How many recordings does the dataset of bird songs have in total?"
    assert condense_heuristic(long_new, history, new_subject=lambda q: True) == long_new
    plain = "Which approaches improve protein structure prediction using large language models?"
    assert condense_heuristic(plain, history, new_subject=lambda q: False) == plain


def test_tell_me_more_then_a_question_of_its_own_carries_the_paper_along_whatever_its_words():
    history = [{"role": "user", "content": "anything on frog call counting?"},
               {"role": "assistant", "content": "x", "sources": [{"number": 1, "id": "f", "label": "FooNet"}]}]  # fmt: skip
    question = "tell me more. did the fix hurt general QUUX accuracy?"  # a term and a subject of its own
    assert condense_heuristic(question, history, new_subject=lambda q: True) == (
        f"{question} (FooNet; follow-up to: anything on frog call counting?)"
    )
    # naming another work of the answers makes it about that work
    named = "tell me more, does FooNet beat BarNet?"
    assert condense_heuristic(named, history, is_work=lambda t: t == "barnet", new_subject=lambda q: True) == named


def test_more_then_ask_needs_a_question_after_the_lead():
    assert more_then_ask("tell me more. did the fix hurt accuracy?")
    assert more_then_ask("tell me more — does it beat the baseline?")
    assert not more_then_ask("tell me more about the second one")
    assert not more_then_ask("tell me more")


def test_refers_back_reads_definite_parts_and_a_more_lead():
    assert refers_back("does the benchmark cover video?")
    assert refers_back("Tell me more. Is there a selection rule I could use?")
    assert not refers_back("Which approaches improve protein structure prediction using large language models?")
    assert not refers_back("what does theory say about thermodynamics of learning?")


def test_short_question_naming_something_is_not_a_follow_up():
    history = [{"role": "user", "content": "Q1?"}, {"role": "assistant", "content": "x"}]
    assert condense_heuristic("And AptaBench?", history) == "And AptaBench?"


def test_short_follow_up_without_previous_user_question():
    history = [{"role": "user", "content": "   "}, {"role": "assistant", "content": "x"}]
    assert condense_heuristic("and the dataset?", history) == "and the dataset?"


def test_ordinal_without_sources_falls_through_to_follow_up():
    history = [{"role": "user", "content": "Q1?"}]
    assert condense_heuristic("the second one?", history) == "the second one? (follow-up to: Q1?)"


def test_attribute_follow_up_keeps_what_it_asks_for():
    assert "dataset" in condense_heuristic("and the dataset?", HISTORY)


# --- follow-ups whose sentences answer their own ask ---


def test_own_ask_keeps_a_follow_up_that_asks_something():
    from rag.followup import own_ask

    assert own_ask("how does it work?", HISTORY) == "how does it work?"
    assert own_ask("and the results?", HISTORY) == "and the results?"
    assert own_ask("what did they find about memory use", HISTORY) == "what did they find about memory use"


def test_own_ask_of_a_bare_reference_is_the_previous_question():
    from rag.followup import own_ask

    assert own_ask("what about the second one?", HISTORY) == PREVIOUS
    assert own_ask("and the third?", HISTORY) == PREVIOUS
    assert own_ask("paper [2]?", HISTORY) == PREVIOUS


def test_own_ask_without_an_earlier_question_is_none():
    from rag.followup import own_ask

    assert own_ask("how does it work?", []) is None


def test_is_opening_words_tells_a_label_of_opening_words_from_a_name():
    from rag.followup import is_opening_words

    assert is_opening_words("Graphs are everywhere in modern…")
    assert not is_opening_words("FooNet")


def test_with_names_relabels_opening_words_by_the_works_name():
    from rag.followup import with_names

    history = [
        {"role": "user", "content": "papers on graphs?"},
        {
            "role": "assistant",
            "content": "…",
            "sources": [{"number": 1, "id": "g-1", "label": "Graphs are everywhere…"}, SOURCES[0]],
        },
    ]
    out = with_names(history, {"g-1": "GraphFoo", "assaybench-1a2b": "Other"})
    assert [s["label"] for s in out[1]["sources"]] == ["GraphFoo", "AssayBench"]  # a name label stays
    assert history[1]["sources"][0]["label"] == "Graphs are everywhere…"  # the history is not changed


def test_condense_does_not_write_opening_words_in_place_of_a_pronoun():
    history = [
        {"role": "user", "content": "papers on graphs?"},
        {"role": "assistant", "content": "…", "sources": [{"number": 1, "id": "g", "label": "Graphs are everywhere…"}]},
    ]
    rewritten = condense_heuristic("do they compare against larger models?", history)
    assert rewritten == "do they compare against larger models? (Graphs are everywhere…)"


# --- "the one that …" and "tell me more about …" ---


def test_the_one_that_does_something_becomes_that_sources_label():
    def fake_search(text: str) -> list[str]:  # a fake retriever: the corpus's best match first, then a source
        return ["other-0000", "v33da-5e6f", "aptabench-3c4d"] if "vocal" in text else ["other-0000"]

    question = "Tell me more about the one that locates vocal calls."
    assert resolve_described(question, HISTORY, fake_search) == "Tell me more about V33DA."
    assert resolve_described("Tell me more about the one that sings.", HISTORY, fake_search) == (
        "Tell me more about the one that sings."
    )  # no source among what the description finds
    assert resolve_described("What is the one that locates vocal calls?", [], fake_search) == (
        "What is the one that locates vocal calls?"
    )  # no earlier answer


def test_the_one_described_with_a_label_of_opening_words_goes_in_brackets():
    sources = [{"number": 1, "id": "a-1", "label": "Films introduce characters as…"}]
    history = [{"role": "user", "content": PREVIOUS}, {"role": "assistant", "content": "x", "sources": sources}]
    question = "and the one with the movie characters?"
    assert resolve_described(question, history, lambda text: ["a-1"]) == f"{question} (Films introduce characters as…)"


@pytest.mark.parametrize(
    ("question", "role"),
    [
        ("tell me more about the results", "result"),
        ("what else did they find?", "result"),
        ("more details on how it works", "method"),
        ("tell me more about the method", "method"),
        ("Tell me more.", None),
        ("go on", None),
    ],
)
def test_more_role(question, role):
    assert more_role(question) == role


def test_a_pronoun_after_several_sources_means_the_one_the_question_is_about():
    def fake_search(text: str) -> list[str]:  # a fake retriever: another paper first, then the third source
        return ["other-0000", "v33da-5e6f", "assaybench-1a2b"]

    question = "How many microphones did they use?"
    assert pronoun_source(question, HISTORY, fake_search) == "v33da-5e6f"
    assert condense_heuristic(question, HISTORY, "v33da-5e6f") == "How many microphones did V33DA use?"
    assert condense_heuristic(question, HISTORY) == "How many microphones did AssayBench use?"
    assert pronoun_source("How does it work?", HISTORY, fake_search) is None  # asks nothing of its own
    # names a work of the corpus: a question about it; a term that is no work is asked of the paper "they" means
    assert pronoun_source("Did they use FooNet?", HISTORY, fake_search, lambda t: t == "foonet") is None
    assert pronoun_source("Did they use FooData?", HISTORY, fake_search, lambda t: t == "foonet") == "v33da-5e6f"
    one = [HISTORY[0], {**HISTORY[1], "sources": SOURCES[:1]}]
    assert pronoun_source(question, one, fake_search) is None  # one source: that one
    # the follow-up says which source its pronoun means
    assert pronoun_source("The second one, how many microphones did it use?", HISTORY, fake_search) is None
    assert pronoun_source("What microphones does paper 2 say they use?", HISTORY, fake_search) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How is it different from ZedNet?", "How is AssayBench different from ZedNet?"),
        ("Compare it with ZedNet", "Compare AssayBench with ZedNet"),
        ("Is this one faster than ZedNet?", "Is AssayBench faster than ZedNet?"),
        ("ZedNet vs it", "ZedNet vs AssayBench"),
    ],
)
def test_a_pronoun_set_against_a_named_work_is_the_earlier_paper(question, expected):
    assert condense_heuristic(question, HISTORY) == expected


def test_a_pronoun_not_compared_with_the_named_work_is_left_alone():
    question = "Does it run on ZedNet?"
    assert condense_heuristic(question, HISTORY, is_work=lambda t: t == "zednet") == question


@pytest.mark.parametrize(
    "question, expected",
    [("What QA datasets is it tested on?", "What QA datasets is AssayBench tested on?"),
     ("How many LLMs were evaluated on it?", "How many LLMs were evaluated on AssayBench?"),
     ("Does it run on ZedNet?", "Does AssayBench run on ZedNet?")],
)  # fmt: skip
def test_a_term_that_is_no_work_is_asked_of_the_paper_the_pronoun_means(question, expected):
    assert condense_heuristic(question, HISTORY, is_work=lambda t: t == "foonet") == expected


@pytest.mark.parametrize(
    "question",
    ["Anything similar?", "Thanks! Any other papers like this one?", "related work?", "More like this, please",
     "Are there other studies along these lines?", "papers similar to that"],
)
def test_asking_for_more_like_the_papers_discussed(question):
    assert asks_similar(question)


@pytest.mark.parametrize(
    "question",
    ["Which papers are similar to FooNet?", "Is it similar to the baseline?", "How similar are the two estimators?",
     "What does the related work section say?", "Tell me more", "Summarise the privacy-related papers",
     "Any related studies on protein design?"],
)
def test_not_a_request_for_similar_papers(question):
    assert not asks_similar(question)


@pytest.mark.parametrize(
    ("question", "tail"),
    [
        ("Which papers are similar to FooNet?", "FooNet?"),
        ("anything related to the FooNet benchmark", "the FooNet benchmark"),
        ("What other work is like FooNet?", " FooNet?"),
        ("papers like FooNet", "FooNet"),
    ],
)
def test_a_request_for_papers_like_a_named_work_gives_the_words_naming_it(question, tail):
    assert similar_to_tail(question) == tail


@pytest.mark.parametrize("question", ["What does FooNet do?", "Papers like this one", "Which papers study FooNet?"])
def test_no_request_for_papers_like_a_named_work(question):
    assert similar_to_tail(question) is None


@pytest.mark.parametrize(
    "question", ["Which papers study graph pruning?", "Is there a paper on aptamers?", "any work on FooNets?"]
)
def test_a_short_request_for_papers_is_a_new_search_not_a_follow_up(question):
    history = [{"role": "user", "content": "What is ZedNet?"}, {"role": "assistant", "content": "x", "sources": SOURCES}]
    assert condense_heuristic(question, history) == question
    assert condense_heuristic("and the baselines?", history).endswith("follow-up to: What is ZedNet?)")


def test_points_by_position_tells_an_ordinal_or_number_from_a_pronoun():
    assert points_by_position("what about the second one?") and points_by_position("and paper [2]?")
    assert not points_by_position("how does it work?")


# --- several works together; "the other one" ---

WORKS = [
    {"number": 1, "id": "foonet-0001", "label": "FooNet"},
    {"number": 2, "id": "barnet-0002", "label": "BarNet"},
]
COMPARED = [
    {"role": "user", "content": "Compare FooNet and BarNet"},
    {"role": "assistant", "content": "| Work | What it does |\n| --- | --- |\n| **FooNet** [1] | … |", "sources": WORKS},
]
LISTED = [
    {"role": "user", "content": "Which papers study pruning?"},
    {"role": "assistant", "content": "- **FooNet**: …\n- **BarNet**: …", "sources": WORKS},
]
ONE_EACH = [
    {"role": "user", "content": "What is FooNet?"},
    {"role": "assistant", "content": "FooNet is … [1]", "sources": [WORKS[0]]},
    {"role": "user", "content": "What is BarNet?"},
    {"role": "assistant", "content": "BarNet is … [1]", "sources": [{**WORKS[1], "number": 1}]},
]
BOTH = ["foonet-0001", "barnet-0002"]


@pytest.mark.parametrize(
    "question", ["do both release code?", "which one is faster?", "what does each of them use?", "compare them",
                 "which of them is bigger?", "and the datasets?", "is the code released?"],
)  # fmt: skip
def test_a_follow_up_about_the_compared_works_together_means_all_of_them(question):
    assert referred_works(question, COMPARED) == BOTH


@pytest.mark.parametrize(
    "question", ["how does it work?", "what about the second one?", "tell me more about the one that prunes",
                 "how many runs did it do?", "does it handle both images and text?", "what does ZedNet add?"],
)  # fmt: skip
def test_a_follow_up_about_one_work_is_not_about_all_of_them(question):
    assert referred_works(question, COMPARED) == []


def test_the_first_or_last_few_of_a_list_are_those_works():
    three = [*WORKS, {"number": 3, "id": "zednet-0003", "label": "ZedNet"}]
    listed = [LISTED[0], {**LISTED[1], "sources": three}]
    assert referred_works("compare the first two", listed) == BOTH
    assert referred_works("how do the last 2 work?", listed) == ["barnet-0002", "zednet-0003"]
    assert referred_works("what do the top three use?", listed) == [w["id"] for w in three]
    assert referred_works("is the first one faster?", listed) == []  # one work, by its position
    assert referred_works("did the first two runs improve by 5%?", [LISTED[0], {**LISTED[1], "sources": [WORKS[0]]}]) == []


def test_after_a_list_only_words_for_several_or_a_release_question_mean_all_of_them():
    assert referred_works("do both release code?", LISTED) == BOTH
    assert referred_works("is the code released?", LISTED, asks_availability=True) == BOTH
    assert referred_works("and the datasets?", LISTED) == []  # a list: which paper it means is searched for
    assert referred_works("is its code released?", LISTED, asks_availability=True) == []  # "its": one of them


@pytest.mark.parametrize(
    "question", ["how do they differ?", "how do they compare?", "what's the difference between them?",
                 "are they different?"],
)  # fmt: skip
def test_asking_how_the_listed_works_differ_means_all_of_them(question):
    assert referred_works(question, LISTED) == BOTH


def test_which_one_after_one_work_per_answer_chooses_between_the_last_two_works():
    assert referred_works("which one needs no training?", ONE_EACH) == BOTH
    assert referred_works("which one needs no training?", ONE_EACH[:2]) == []  # one work so far: nothing to choose


def test_both_after_one_work_per_answer_means_the_last_two_works_discussed():
    assert referred_works("compare them", ONE_EACH) == BOTH
    assert referred_works("how do both evaluate models?", ONE_EACH) == BOTH
    assert referred_works("how does it evaluate models?", ONE_EACH) == []
    same = ONE_EACH[:2] * 2  # one work asked about twice: there are not two
    assert referred_works("compare them", same) == []


def test_several_works_named_in_place_of_the_words_standing_for_them():
    assert with_works_named("do both release code?", ["FooNet", "BarNet"]) == "do FooNet and BarNet release code?"
    assert with_works_named("compare them", ["FooNet", "BarNet", "ZedNet"]) == "compare FooNet, BarNet and ZedNet"
    assert with_works_named("which one is faster?", ["FooNet", "BarNet"]) == "which one is faster? (FooNet and BarNet)"
    assert with_works_named("how do the first two differ?", ["FooNet", "BarNet"]) == "how do FooNet and BarNet differ?"


@pytest.mark.parametrize(
    "question, ask",
    [("do both release code?", "do they release code?"), ("which one is faster?", "which one is faster?"),
     ("compare them", ""), ("what about these two?", ""), ("summarize them", ""), ("how do they differ?", "")],
)  # fmt: skip
def test_what_a_follow_up_asks_of_each_work(question, ask):
    assert each_ask(question) == ask


def test_the_other_one_is_the_work_the_conversation_is_not_on():
    assert other_source(COMPARED) == WORKS[1]  # a comparison: the second work
    assert other_source(ONE_EACH)["id"] == "foonet-0001"  # the work discussed before the last one
    picked = [*COMPARED, {"role": "user", "content": "tell me more about the second one"},
              {"role": "assistant", "content": "BarNet … [1]", "sources": [{**WORKS[1], "number": 1}]}]  # fmt: skip
    assert other_source(picked)["id"] == "foonet-0001"
    assert other_source(ONE_EACH[:2]) is None
    assert condense_heuristic("what about the other one?", ONE_EACH) == "what about FooNet?"
    assert points_by_position("and the other paper?") and not points_by_position("and the other papers?")
    assert own_ask("what about the other one?", ONE_EACH) == "What is BarNet?"  # nothing asked: the last question


def test_they_after_a_comparison_means_its_works_unless_one_paper_was_asked_for():
    assert referred_works("what datasets do they use?", COMPARED) == BOTH
    one_paper = [{"role": "user", "content": "Which paper compares FooNet with human raters?"}, COMPARED[1]]
    assert referred_works("how many outputs did they analyze?", one_paper) == []  # "they": that paper's authors
    assert referred_works("and the datasets?", one_paper) == BOTH  # naming no paper: each of the compared works


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("which datasets was the first evaluated on?", "which datasets was AssayBench evaluated on?"),
        ("what does the third use?", "what does V33DA use?"),
        ("what about the second's results?", "what about AptaBench's results?"),
        ("and the latter?", "and V33DA?"),
        ("how big is the former?", "how big is AssayBench?"),
    ],
)
def test_an_ordinal_without_its_noun_before_a_verb_or_a_possessive_points_at_a_source(question, expected):
    assert condense_heuristic(question, HISTORY) == expected


@pytest.mark.parametrize("question", ["what is the first step?", "how does the first stage work?"])
def test_an_ordinal_before_a_noun_of_the_paper_is_not_a_source(question):
    assert not points_by_position(question)


@pytest.mark.parametrize(
    "question", ["how do they differ?", "how are they different?", "how do they compare to each other?"]
)
def test_how_the_works_of_the_last_two_answers_differ_means_both(question):
    assert referred_works(question, ONE_EACH) == BOTH


def test_how_one_work_compares_with_something_else_is_not_about_both():
    assert referred_works("how do they compare to prior work?", ONE_EACH) == []
    assert referred_works("how do they differ from FooNet?", ONE_EACH) == []


@pytest.mark.parametrize(
    ("ask", "expected"),
    [
        ("and the datasets?", "what are the datasets?"),
        ("2nd one baselines?", "what are the baselines?"),
        ("what about its metric?", "what is the metric?"),
        ("the other one's baselines?", "what are the baselines?"),
        ("training cost?", "what is the training cost?"),
    ],
)
def test_a_follow_up_naming_only_what_it_asks_about_asks_what_that_is(ask, expected):
    from rag.followup import elliptic_ask

    assert elliptic_ask(ask) == expected


@pytest.mark.parametrize(
    "ask", ["why?", "how big is it?", "and the second one?", "FooBench?", "and on the test set?", "ok cool",
            "more details?", "really?"],
)  # fmt: skip
def test_a_follow_up_asking_a_question_or_naming_a_work_is_left_as_asked(ask):
    from rag.followup import elliptic_ask

    assert elliptic_ask(ask) == ask


def test_a_choice_among_them_after_one_paper_picked_from_a_list_is_among_the_list():
    listed = [{"number": i, "id": name.lower(), "label": name} for i, name in enumerate(["FooNet", "BarNet", "ZedNet"], 1)]
    history = [
        {"role": "user", "content": "Which papers study frog calls?"},
        {"role": "assistant", "content": "x", "sources": listed},
        {"role": "user", "content": "the third one"},
        {"role": "assistant", "content": "y", "sources": [{"number": 1, "id": "zednet", "label": "ZedNet"}]},
    ]
    assert referred_works("which of those uses audio?", history) == ["foonet", "barnet", "zednet"]
    assert referred_works("what does it use?", history) == []
    # a paper asked about on its own, not picked from the list: "which of them" has no earlier set to choose among
    alone = [*history[:2], {"role": "user", "content": "What is QuxNet?"},
             {"role": "assistant", "content": "z", "sources": [{"number": 1, "id": "quxnet", "label": "QuxNet"}]}]  # fmt: skip
    assert referred_works("which of those uses audio?", alone) == []


def test_a_long_follow_up_referring_to_a_paper_after_a_refusal_carries_the_refused_question_along():
    history = [{"role": "user", "content": "Which paper teaches FooNets to count frogs?"},
               {"role": "assistant", "content": "No abstract answers this."}]  # fmt: skip
    question = "what are the main results reported in this work?"
    assert condense_heuristic(question, history) == f"{question} (follow-up to: Which paper teaches FooNets to count frogs?)"
    # a long follow-up with no reference stands alone
    other = "which benchmarks measure the calibration of language models?"
    assert condense_heuristic(other, history) == other


def test_and_for_another_work_asks_the_previous_question_of_it():
    history = [{"role": "user", "content": "How many frogs does FooNet count?"},
               {"role": "assistant", "content": "x", "sources": [{"number": 1, "id": "f", "label": "FooNet"}]}]  # fmt: skip
    works = {"foonet", "barnet"}.__contains__
    for question in ["and for BarNet?", "what about BarNet?", "same question for BarNet", "ok, and BarNet?"]:
        assert condense_heuristic(question, history, is_work=works) == "How many frogs does BarNet count?", question
    assert condense_heuristic("and for QuxNet?", history, is_work=works) == "and for QuxNet?"  # no work of the corpus
    assert condense_heuristic("what does BarNet do?", history, is_work=works) == "what does BarNet do?"


def test_whats_the_difference_after_two_papers_one_per_turn_is_about_both():
    history = [
        {"role": "user", "content": "What is FooNet?"},
        {"role": "assistant", "content": "x", "sources": [{"number": 1, "id": "foonet", "label": "FooNet"}]},
        {"role": "user", "content": "What is BarNet?"},
        {"role": "assistant", "content": "y", "sources": [{"number": 1, "id": "barnet", "label": "BarNet"}]},
    ]
    assert referred_works("what's the difference?", history) == ["foonet", "barnet"]
    assert referred_works("what is the difference between them?", history) == ["foonet", "barnet"]
    assert referred_works("what's the difference from prior work?", history) == []


@pytest.mark.parametrize(
    ("question", "position", "ask"),
    [
        ("tell me more about the second theme", 2, ""),
        ("which papers are in group 3?", 3, ""),
        ("what's in the last cluster?", -1, ""),
        ("the 2nd category?", 2, ""),
        ("summarize the first topic", 1, ""),
        ("which papers of the second group use graphs?", 2, "which papers use graphs?"),
        ("any papers in the third theme that release code?", 3, "any papers that release code?"),
    ],
)
def test_a_follow_up_picks_a_group_by_its_place(question, position, ask):
    from rag.followup import group_ask, group_reference

    found = group_reference(question)
    assert found is not None and found[0] == position
    assert group_ask(question, found[1]) == ask


@pytest.mark.parametrize("question", ["tell me more about the second one", "what is the main theme of FooNet?",
                                      "which groups of cells does ZedNet image?"])
def test_a_question_picking_no_group_by_place_is_no_group_reference(question):
    from rag.followup import group_reference

    assert group_reference(question) is None


def test_only_an_answer_grouping_the_collection_has_groups_to_pick():
    from rag.followup import GROUPS_LEAD, answered_groups

    grouped = [{"role": "user", "content": "main themes?"},
               {"role": "assistant", "content": f"The 9 {GROUPS_LEAD.format(count=4)}, each …"}]
    assert answered_groups(grouped) == 4
    later = [*grouped, {"role": "user", "content": "what is FooNet?"}, {"role": "assistant", "content": "FooNet is …"}]
    assert answered_groups(later) == 0  # the last answer is about one paper now
    assert answered_groups([]) == 0


def test_the_paper_described_is_no_pronoun_for_the_earlier_paper():
    history = [
        {"role": "user", "content": "What is FooNet?"},
        {"role": "assistant", "content": "FooNet prunes heads [1].", "sources": [WORKS[0]]},
    ]
    # a described paper may be a new subject: left for retrieval to find
    assert condense_heuristic("ok, now what about the paper on aptamers?", history) == (
        "ok, now what about the paper on aptamers?"
    )
    assert condense_heuristic("what does the paper report?", history) == "what does FooNet report?"


def test_a_description_ends_where_the_question_goes_on():
    match = described_reference("the one using semantic sampling - how does it estimate confidence?")
    assert match is not None and match.group("what") == "semantic sampling"
    match = described_reference("the one that prunes heads, what does it reduce?")
    assert match is not None and match.group("what") == "prunes heads"
    match = described_reference("the one on CT, MRI and PET scans - what does it find?")  # a comma inside it
    assert match is not None and match.group("what") == "CT, MRI and PET scans"


def test_the_one_described_that_fits_another_paper_far_better_names_that_paper():
    def scored(text: str) -> list[tuple[str, float]]:  # a fake retriever with scores: the corpus's best match first
        if "zebras" in text:  # fits an unlisted paper far better than any earlier source
            return [("zednet-1111", 1.0), ("v33da-5e6f", 0.4)]
        if "calls" in text:  # an earlier source close to the best: it is that source
            return [("other-0000", 1.0), ("v33da-5e6f", 0.9)]
        return [("zednet-1111", 1.0), ("other-0000", 0.5)]  # no earlier source found at all

    labels = {"zednet-1111": "ZedNet", "other-0000": "FooNet"}
    question = "the one on zebras: what does it count?"
    assert resolve_described(question, HISTORY, scored, 0.5, labels.get) == "ZedNet: what does it count?"
    assert resolve_described("the one on calls: what does it find?", HISTORY, scored, 0.5, labels.get) == (
        "V33DA: what does it find?"
    )
    assert resolve_described("the one that sings?", HISTORY, scored, 0.5, labels.get) == "ZedNet?"
    # without a way to name another paper, a weak match keeps the description, read as a new subject
    assert resolve_described(question, HISTORY, scored, 0.5) == "the paper on zebras: what does it count?"


@pytest.mark.parametrize(
    "question", ["What's the closest one?", "ok, anything close?", "Which comes closest then?", "the nearest papers?"]
)
def test_asking_for_the_papers_nearest_what_was_asked(question):
    assert asks_closest(question)


@pytest.mark.parametrize(
    "question",
    ["Which one is closest to ZedNet?", "What is the closest baseline in FooNet's results?", "Tell me more",
     "How close is FooNet to the oracle?"],
)
def test_not_a_request_for_the_nearest_papers(question):
    assert not asks_closest(question)


def test_a_superlative_description_is_read_among_the_earlier_papers():
    def scored(text: str) -> list[tuple[str, float]]:  # the corpus's best match is no earlier source
        return [("zednet-1111", 1.0), ("v33da-5e6f", 0.2)]

    question = "tell me more about the one with the largest dataset"
    assert resolve_described(question, HISTORY, scored, 0.5, {"zednet-1111": "ZedNet"}.get) == (
        "tell me more about V33DA"
    )


def test_a_word_or_two_before_one_or_paper_describes_an_earlier_paper():
    match = described_reference("tell me more about the frog one")
    assert match is not None and match.group("what") == "frog"
    match = described_reference("is the code for the graph pruning paper out?")
    assert match is not None and match.group("what") == "graph pruning"
    for pointing in ("the second one", "the other one", "the same paper", "the best one", "the last paper",
                     "what about the first paper you mentioned?", "the whole paper"):  # fmt: skip
        assert described_reference(pointing) is None, pointing


def test_the_topic_one_resolves_to_the_listed_source_it_describes():
    history = [
        {"role": "user", "content": "which papers study probes?"},
        {"role": "assistant", "content": "- ZedNet …\n- FooNet …",
         "sources": [{"number": 1, "id": "zed-1", "label": "ZedNet"}, {"number": 2, "id": "foo-2", "label": "FooNet"}]},
    ]  # fmt: skip

    def search(text: str) -> list[str]:
        return ["foo-2", "zed-1"] if "frog" in text else ["zed-1", "foo-2"]

    assert resolve_described("tell me more about the frog one", history, search) == "tell me more about FooNet"


def test_more_aspect_is_what_tell_me_more_names_besides_the_paper_and_the_role():
    assert more_aspect("tell me more about the second failure mode") == "failure mode"
    assert more_aspect("tell me more about the 300 sessions part") == "300 sessions"
    assert more_aspect("more on the calibration set") == "calibration set"
    for plain in ("tell me more", "tell me more about it", "Tell me more about the second one.",
                  "tell me more about the results", "tell me more about how it works", "go deeper into the results",
                  "could you give further details?", "tell me more about the frog one"):  # fmt: skip
        assert more_aspect(plain) == "", plain
