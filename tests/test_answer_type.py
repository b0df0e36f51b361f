"""Unit tests for the expected answer type of detail questions (rag.question.answer_type and friends) and the
abstention helpers that check an abstract holds a candidate of that type (rag.abstain). Own made-up examples."""

from __future__ import annotations

import pytest

from rag.abstain import AbstentionSignals, abstention_score, names_new, number_near, reason_for, slot_missing, values_in
from rag.answering import _is_subject
from rag.policy import AnswerPolicy
from rag.question import (
    ANSWER_CATEGORY_STEMS,
    answer_type,
    asks_kind_of,
    asks_model,
    classify,
    counted_unnamed,
    details_asked,
    looks_like_model_name,
    profile,
    states_answer_type,
    states_detail,
)
from rag.text import content_words


def _type(question: str) -> str | None:
    prof = profile(question)
    return answer_type(prof.text, prof.kind)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How long does ZedNet take to render one scene?", "time"),
        ("What is the runtime of the sorting step on a million items?", "time"),
        ("Under which licence is the FrogSounds corpus released?", "license"),
        ("Which GPU was ZedNet trained on?", "hardware"),
        ("How many frogs are in FrogSounds?", "value"),
        ("What is the learning rate used to train ZedNet?", "value"),
        ("What privacy budget epsilon does ZedNet use?", "value"),
        ("batch size used when training ZedNet on FrogSounds", "value"),
        ("What range of model sizes do the ZedNet experiments cover?", "value"),
        ("Which base model is ZedNet built on?", "name"),
        ("What bird-song datasets is ZedNet tested on?", "name"),
        ("names of the four simulators used by ZedNet", "name"),
        ("Which off-the-shelf frog call detection (FCD) model does ZedNet use?", "name"),
        ("Which of the 12 agents reaches the top score of 45.9%?", "name"),
        ("Which pond benchmarks improved with ZedNet, and by how many points?", "name"),
        ("How long are the FrogSounds recordings?", "extent"),
        ("What problems with earlier pond benchmarks does ZedNet fix?", None),
        ("Which two pond benchmarks does ZedNet fix?", "name"),
        ("What kind of encoder makes ZedNet robust?", None),
        ("Does ZedNet use FrogSounds?", None),
        ("How does ZedNet count frogs?", None),
        ("Which papers study frog calls?", None),
        # a phase ("at run time", "during inference") says when, not how long
        ("Why does ZedNet drift when it is steered at run time, and can that be fixed?", None),
        ("What is ZedNet's latency during inference?", "time"),
        # a measure word as the wh-phrase's verb: the thing asked is the instrument, not a score
        ("What field guide scores the frog calls in ZedNet?", None),
        ("What field guide scores does ZedNet report?", "value"),
    ],
)
def test_answer_type_reads_the_wh_phrase_and_its_head_noun(question, expected):
    assert _type(question) == expected


def test_a_noun_phrase_naming_a_score_alone_is_a_topic_not_a_value():
    assert _type("anomaly score for pond recordings") is None


def test_what_kind_of_asks_for_a_description():
    assert asks_kind_of("What kind of filter does ZedNet apply?")
    assert not asks_kind_of("Which filter does ZedNet apply?")


def test_category_words_are_answered_by_instances():
    for word in ("dataset", "benchmarks", "base", "backbone", "suite", "baselines", "tested"):
        assert set(content_words(word)) <= ANSWER_CATEGORY_STEMS
    assert not set(content_words("frog pond")) & ANSWER_CATEGORY_STEMS


def test_generic_quantity_words_are_answered_by_numbers():
    from rag.question import QUANTITY_STEMS

    for word in ("size", "range", "number", "amount", "total"):
        assert set(content_words(word)) <= QUANTITY_STEMS
    assert not set(content_words("frog accuracy")) & QUANTITY_STEMS


def test_how_long_is_answered_by_a_duration_or_a_length():
    assert states_answer_type("The prompts average ~14k words.", "extent")
    assert states_answer_type("Each session lasts 20 minutes.", "extent")
    assert states_answer_type("Programs span 3.5k lines of code.", "extent")
    assert not states_answer_type("The prompts are long.", "extent")
    assert not states_answer_type("The prompts average ~14k words.", "time")  # "how long does it take": a duration


def test_states_answer_type_finds_durations_licences_and_named_hardware():
    assert states_answer_type("Rendering takes 3 minutes per scene.", "time")
    assert not states_answer_type("Rendering is fast.", "time")
    assert states_answer_type("The corpus is released under CC BY 4.0.", "license")
    assert states_answer_type("Code is available under the MIT license.", "license")
    assert not states_answer_type("The corpus is public.", "license")
    assert states_answer_type("We train on eight A100 GPUs.", "hardware")
    assert not states_answer_type("It fits on a single GPU.", "hardware")
    assert states_answer_type("Anything at all.", "value") is None


def test_model_names_are_told_from_other_names():
    assert asks_model("Which LLM does ZedNet use to write code?")
    assert asks_model("what base model is ZedNet built on")
    assert not asks_model("Which datasets does ZedNet use?")
    # the model word qualifies another head noun: a framework's or an agent's name is asked, not a model's
    assert asks_model("which LLM backbone does ZedNet use")
    assert not asks_model("What is the LLM framework for frog counting called?")
    assert not asks_model("which LLM-based agent does ZedNet beat?")
    for name in ("GPT-4o", "Qwen2.5-7B", "Llama3-8B", "ResNet-50", "T5", "Claude", "FLUX.1-dev"):
        assert looks_like_model_name(name), name
    for name in ("FrogBench", "FrogSounds-10K", "URDF", "ZedNet"):
        assert not looks_like_model_name(name), name


@pytest.mark.parametrize(
    "question",
    [
        "When frogs leave the pond for reasons tied to how long they live, is there work on it?",
        "How much does the pond temperature matter for the chorus?",
    ],
)
def test_an_indirect_how_long_or_a_degree_is_not_a_number_question(question):
    assert classify(question) != "number"


def test_by_how_much_is_still_a_number_question():
    assert classify("By how much does ZedNet reduce the error?") == "number"


def test_values_in_counts_numbers_of_their_own_not_inside_names_nor_stated():
    assert values_in("ZedNet reaches 0.91 on FrogBench.")
    assert values_in("A 310-call benchmark.")
    assert not values_in("ZedNet builds on Qwen2.5-7B.")
    assert not values_in("It reaches 0.91.", stated={"0.91"})
    assert not values_in("It uses six ponds.")
    assert values_in("It uses six ponds.", count_words=True)


def test_number_near_reads_number_words_only_when_a_count_is_asked():
    assert number_near("We record seven ponds.", {"pond"}, count_words=True)
    assert not number_near("We record seven ponds.", {"pond"})
    assert number_near("A 310-pond survey.", {"pond"})


def test_names_new_keeps_only_names_of_the_kind_asked_and_reads_ampersand_names():
    assert names_new(["We test on Rain&Fog Pro."], set())
    sentence = "ZedNet writes code against the URDF schema with GPT-4o."
    assert names_new([sentence], {"zednet"}, accept=looks_like_model_name)
    assert not names_new(["ZedNet writes code against the URDF schema."], {"zednet"}, accept=looks_like_model_name)


def test_slot_missing_counts_extra_anchors_such_as_a_stated_number():
    sentences = ["The best system reaches 0.91 on FrogBench.", "The best system is FooChat."]
    weights = {"system": 1.0, "number:0.91": 3.0}

    def present(sentence: str) -> set[str]:
        return set(content_words(sentence)) | ({"number:0.91"} if "0.91" in sentence else set())

    def named(sentence: str) -> bool:
        return names_new([sentence], {"frogbench"})

    # the sentence stating 0.91 names no system; the one naming a system does not state 0.91
    assert slot_missing(sentences, weights, named, present) == pytest.approx(0.75)
    assert slot_missing(["FooChat, the best system, reaches 0.91."], weights, named, present) == 0.0


def test_type_missing_raises_the_score_and_explains_itself():
    policy = AnswerPolicy()
    clear = AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7)
    missing = AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7, type_missing=True)
    assert abstention_score(missing, policy) > abstention_score(clear, policy)
    lone = AbstentionSignals(shape="fact", type_missing=True, best_dense=0.7)
    assert reason_for(lone, policy) == "The most relevant abstract does not state what the question asks for."


def test_a_mention_naming_the_answering_paper_is_its_subject_not_a_qualifier():
    assert _is_subject("FrogBench Hard", "FrogBench")
    assert _is_subject("zednet", "ZedNet")
    assert not _is_subject("PondQA", "ZedNet")


def test_stated_values_are_numbers_of_their_own_not_digits_of_names_or_formulas():
    from rag.abstain import stated_values

    assert stated_values("Which pond reaches 0.91 with 12 frogs and 45.9% recall?") == {"0.91", "12", "45.9%"}
    assert stated_values("the 3D SE(3) model at 1B-scale, like GPT-4") == set()


@pytest.mark.parametrize(
    "question",
    ["who wrote it?", "Who are the authors of FooNet?", "and who authored ZedBench?", "which lab built it?",
     "What university is FooNet from?", "Who is behind ZedNet?"],
)  # fmt: skip
def test_asking_who_wrote_a_work_expects_its_authors(question):
    assert _type(question) == "author"


@pytest.mark.parametrize(
    "question", ["How do the authors of FooNet fix the drift?", "What data do the authors use?", "Who did better?"]
)
def test_the_authors_as_the_subject_of_a_question_are_not_what_it_asks(question):
    assert _type(question) != "author"


def test_an_abstract_states_its_authors_only_when_a_sentence_speaks_of_them():
    assert not states_answer_type("We propose FooNet, a fast graph encoder.", "author")
    assert states_answer_type("The authors are affiliated with a robotics lab.", "author")


@pytest.mark.parametrize("question", ["what are its limitations?", "Does FooNet have any drawbacks?",
                                      "What are the weaknesses of this study?"])  # fmt: skip
def test_asking_for_a_works_own_limitations_expects_one(question):
    assert _type(question) == "limitation"


def test_a_limitation_the_work_addresses_is_not_its_own():
    assert _type("What limitation of existing parsers does FooNet address?") != "limitation"
    assert not states_answer_type("To address these limitations, we introduce FooNet.", "limitation")
    assert states_answer_type("A limitation of FooNet is its quadratic memory.", "limitation")


@pytest.mark.parametrize("question", ["is the code for FooNet released?", "FooNet github", "is FooNet open source?",
                                      "does FooNet have code available", "where can I download the FrogSounds corpus",
                                      "are the FooNet weights public yet?", "Does FooNet release its code?",
                                      "did they share the weights?", "where is the FooNet code?"])  # fmt: skip
def test_asking_whether_code_or_data_are_out_expects_an_availability_line(question):
    assert _type(question) == "availability"


@pytest.mark.parametrize("question", ["Which open-source models does FooNet compare against?",
                                      "How does FooNet localize bugs in a code repository?",
                                      "How does FooNet use publicly available data?",
                                      "Under which licence is the FooNet code released?"])  # fmt: skip
def test_code_and_data_words_alone_do_not_ask_whether_they_are_released(question):
    assert _type(question) != "availability"


def test_an_abstract_states_availability_in_a_link_or_a_release_line():
    assert states_answer_type("Code is available at https://example.org/foonet.", "availability")
    assert states_answer_type("We release the FrogSounds corpus and our training scripts.", "availability")
    assert not states_answer_type("We train FooNet on publicly collected frog calls.", "availability")
    assert states_answer_type("We will open-source the FooNet weights soon.", "availability")
    # "available at" a time or a place in a model, not at a link
    assert not states_answer_type("Each order uses a budget available at the start of the horizon.", "availability")


def test_a_measures_modifiers_name_which_measure_is_asked():
    from rag.question import measure_modifiers

    assert measure_modifiers("what is the average cross-tier Spearman correlation of ZedNet?") == [
        "average",
        "cross-tier",
        "Spearman",
    ]
    assert measure_modifiers("what exact accuracy does ZedNet reach") == []
    assert measure_modifiers("How does ZedNet work?") == []


def test_a_measures_hyphenated_modifier_anchors_its_value_whole():
    from rag.answering import _modifier_stems

    stems = _modifier_stems(["inter-rater", "Spearman"])
    assert "spearman" in stems and any("-" in s for s in stems)
    assert "rater" not in stems  # "17 raters" counts raters; it states no inter-rater agreement
    # "Spearman rho averages 0.08": the modifier, not the head noun "correlation", sits next to the value
    assert number_near("FrogNet's cross-tier Spearman rho averages only +0.08 over 12 pairs.", stems | {"correl"})
    assert not number_near("Seventeen raters, 17 in all, scored FrogNet.", _modifier_stems(["inter-rater"]))


def test_a_name_qualifying_the_kind_of_names_asked_is_not_one_the_answer_must_use():
    from rag.answering import _category_qualifiers
    from rag.lexicon import Link, Linking, Name

    linking = Linking(
        (
            Link("T2I", Name("T2I", frozenset({"b"})), True, 100.0),
            Link("ZedNet", Name("ZedNet", frozenset({"a"})), True, 100.0),
        )
    )
    assert _category_qualifiers("what T2I models is ZedNet tested on", linking) == {"t2i"}
    assert _category_qualifiers("does ZedNet beat T2I baselines?", linking) == set()
    assert _category_qualifiers("which datasets does ZedNet use for T2I?", linking) == set()


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How large must the kettle's damping weight be so that the whistle stays the same?", True),
        ("how strong does the pull-together term need to be for ZedNet to converge?", True),
        ("How large is the FrogSounds corpus?", False),
        ("How many frogs must be recorded?", False),
    ],
)
def test_a_size_something_must_reach_asks_a_bound(question, expected):
    from rag.question import asks_bound

    assert asks_bound(question) is expected


def test_a_bound_is_stated_by_its_words_or_an_inequality():
    from rag.question import states_bound

    assert states_bound("We derive an explicit lower bound on the damping weight.")
    assert states_bound("Any weight above this threshold keeps the whistle unchanged.")
    assert states_bound("The whistle is stable for $\\lambda \\geq 2$.")
    assert not states_bound("We study kettles and their whistles.")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which backbone does FooNet use, and how many parameters does it have?", ["size"]),
        ("ZedNet largest backbone param count?", ["size"]),
        ("At what model sizes was QuxLM trained?", ["size"]),
        ("ZedNet inference fps? realtime?", ["speed"]),
        ("What throughput in tokens per second does FooServe reach?", ["speed"]),
        ("In which university or lab were the FooSet recordings made?", ["place"]),
        ("Where were the bird songs of BarSet recorded?", ["place"]),
        # a place noun qualifying another noun, and a setting asked with "where": no place
        ("which starting ingredients and which lab steps does FooChem plan?", []),
        ("Where were the experiments for FooNet carried out?", []),
        ("How does FooNet pick its step size?", []),
        ("What learning rate and batch size does FooNet use?", ["setting"]),
        ("What temperature was ZedLM sampled at?", ["setting"]),
        ("How does FooCal improve on temperature scaling?", []),
        ("Was ZedBot deployed on a physical robot?", ["deployment"]),
        ("In which layers do the FooNet gates sit?", ["layer"]),
        ("Did FooAssist run a user study?", ["human"]),
        ("Is FooKit licensed for commercial use?", ["license"]),
        ("How much did it cost in dollars to build ZedSet?", ["money"]),
        ("What price per GPU-hour does FooPrice recommend?", ["money"]),
        ("How does FooNet keep its inference cost low?", []),
        ("Which hospital supplied the scans for ZedSeg?", ["place"]),
        ("Which medical school did the FooEval raters attend?", ["place"]),
    ],
)
def test_details_of_a_form_of_their_own_are_asked_wherever_the_question_asks_them(question, expected):
    assert details_asked(question) == expected


@pytest.mark.parametrize(
    ("sentence", "kind", "expected"),
    [
        ("We evaluate FooNet from 1.7B to 70B parameters.", "size", True),
        ("A 350M model matches larger ones.", "size", True),
        ("FooNet improves accuracy by 3 points.", "size", False),
        ("ZedNet renders at 30 FPS on one GPU.", "speed", True),
        ("ZedNet runs in real time.", "speed", True),
        ("ZedNet improves visual quality.", "speed", False),
        ("Songs were recorded in Kenya over two seasons.", "place", True),
        ("We collect scans from three university hospitals.", "place", True),
        ("We collect 500 hours of bird song.", "place", False),
        ("FooKit is released under the MIT license.", "license", True),
        ("FooKit is released on GitHub.", "license", False),
        ("Building ZedSet cost under $200.", "money", True),
        ("ZedSet holds 10,000 scenes.", "money", False),
    ],
)
def test_a_sentence_states_a_detail_by_its_own_form(sentence, kind, expected):
    assert states_detail(sentence, kind) is expected


@pytest.mark.parametrize(
    ("sentence", "kind", "expected"),
    [
        ("We deploy ZedBot on a real quadruped.", "deployment", True),
        ("ZedBot explores simulated houses.", "deployment", False),
        ("The gates concentrate in the middle layers.", "layer", True),
        ("A study with 12 participants confirms the gains.", "human", True),
        ("FooAssist learns from preference feedback.", "human", False),
    ],
)
def test_studies_deployments_and_layers_are_stated_by_their_words(sentence, kind, expected):
    assert states_detail(sentence, kind) is expected


def test_a_setting_is_stated_only_by_the_setting_asked():
    question = "What learning rate does FooNet use?"
    assert states_detail("We train with a learning-rate of 1e-4.", "setting", question)
    assert not states_detail("We train with a batch size of 8.", "setting", question)


@pytest.mark.parametrize(
    ("question", "sentences", "expected"),
    [
        # the abstract says how many, never which
        ("Which five QA benchmarks did FooNet use?", ["FooNet keeps accuracy on five QA benchmarks."], True),
        ("What are the names of the 3 environments in the ZedRL paper?", ["We test ZedRL in 3 MARL environments."], True),
        ("Name the nine baselines ZedNet beats.", ["ZedNet beats nine strong baseline methods."], True),
        # the count is followed by its members
        ("Which five QA benchmarks did FooNet use?", ["FooNet is tested on five QA benchmarks: A, B, C, D and E."], False),
        ("Which two models does FooBench rank?", ["We rank two models (FooLM and BarLM) on FooBench."], False),
        ("Which three tasks does FooBench span?", ["FooBench spans three diverse tasks, including parsing."], False),
        # the abstract never writes the count with the noun: other signals read it
        ("Which five QA benchmarks did FooNet use?", ["FooNet is tested on A, B, C, D and E."], False),
        ("Which five QA benchmarks did FooNet use?", ["FooNet uses five seeds on each benchmark."], False),
        ("Which two estimators does ZedCal propose?", ["ZedCal has two estimators within one frame: A1 and A2."], False),
        ("Which two variants does FooNet have?", ["FooNet comes in two variants, FooS and FooL."], False),
        ("Which three QA benchmarks?", ["On FooQA, BarQA and BazQA, three QA benchmarks, FooNet wins."], False),
        ("Which six task families?", ["It spans six task families---parsing, tagging and others."], False),
        # a colon after a later count lists what that count counts
        ("Which six datasets does FooBench hold?", ["It holds six datasets spanning three tasks: parsing and tagging."], True),
        # no count asked
        ("Which QA benchmarks did FooNet use?", ["FooNet keeps accuracy on five QA benchmarks."], False),
    ],
)
def test_a_counted_set_asked_by_name_is_unstated_where_the_abstract_gives_only_its_size(question, sentences, expected):
    assert counted_unnamed(question, sentences) is expected
