"""Unit tests for the pure parts of rag/evidence.py: best-per-abstract and sentence picking."""

from __future__ import annotations

import pytest

from rag.evidence import (
    EvidenceSentence,
    best_per_abstract,
    distinctive_words,
    paper_similarity,
    pick_sentences,
    topic_coverage,
)
from rag.question import QuestionProfile
from rag.text import Span


def ev(row: int, score: float, *, abstract_id: str = "a", has_number: bool = False, focus: float = 0.0):
    return EvidenceSentence(
        abstract_id=abstract_id,
        row=row,
        span=Span(row * 10, row * 10 + 9),
        text=f"Sentence {row}.",
        score=score,
        dense=score,
        lexical=0.0,
        has_number=has_number,
        focus_share=focus,
    )


GENERAL = QuestionProfile(text="Explain it.", kind="general", topic_words=())
NUMBER = QuestionProfile(text="How many screens?", kind="number", topic_words=("screen",), focus_words=("screen",))


def rows(sentences):
    return [e.row for e in sentences]


# --- best_per_abstract ---


def test_best_per_abstract_keeps_first_of_each():
    evidence = [ev(5, 0.9, abstract_id="b"), ev(1, 0.8, abstract_id="a"), ev(6, 0.7, abstract_id="b")]
    best = best_per_abstract(evidence)
    assert {k: v.row for k, v in best.items()} == {"b": 5, "a": 1}
    assert list(best) == ["b", "a"]


def test_best_per_abstract_empty():
    assert best_per_abstract([]) == {}


# --- pick_sentences ---


def test_pick_empty_evidence():
    assert pick_sentences([], GENERAL) == []


def test_pick_top_and_those_within_margin_in_reading_order():
    evidence = [ev(7, 1.0), ev(2, 0.8), ev(4, 0.6), ev(1, 0.2)]
    assert rows(pick_sentences(evidence, GENERAL, margin=0.5)) == [2, 4, 7]


def test_pick_stops_at_margin():
    evidence = [ev(3, 1.0), ev(1, 0.45), ev(2, 0.4)]
    assert rows(pick_sentences(evidence, GENERAL, margin=0.5)) == [3]


def test_pick_margin_boundary_is_inclusive():
    evidence = [ev(3, 1.0), ev(1, 0.5)]
    assert rows(pick_sentences(evidence, GENERAL, margin=0.5)) == [1, 3]


def test_pick_respects_max_sentences():
    evidence = [ev(i, 1.0 - i * 0.01) for i in range(6)]
    assert rows(pick_sentences(evidence, GENERAL, max_sentences=2)) == [0, 1]


def test_pick_single_sentence():
    assert rows(pick_sentences([ev(9, 0.1)], GENERAL)) == [9]


def test_pick_adds_best_sentence_of_each_clause_even_below_margin():
    evidence = [ev(5, 1.0), ev(1, 0.1), ev(2, 0.05)]
    clause_evidence = [[ev(5, 0.9)], [ev(2, 0.7)]]
    assert rows(pick_sentences(evidence, GENERAL, clause_evidence, margin=0.5)) == [2, 5]


def test_pick_skips_empty_clause_evidence():
    evidence = [ev(5, 1.0), ev(1, 0.1)]
    assert rows(pick_sentences(evidence, GENERAL, [[], [ev(1, 0.1)]], margin=0.5)) == [1, 5]


def test_pick_clauses_limited_by_max_sentences():
    evidence = [ev(5, 1.0)]
    clause_evidence = [[ev(1, 0.9)], [ev(2, 0.9)], [ev(3, 0.9)]]
    assert rows(pick_sentences(evidence, GENERAL, clause_evidence, max_sentences=2)) == [1, 5]


def test_pick_number_question_adds_numbered_focus_sentence():
    evidence = [ev(1, 1.0), ev(2, 0.3, has_number=True, focus=0.0), ev(3, 0.2, has_number=True, focus=1.0)]
    assert rows(pick_sentences(evidence, NUMBER, margin=0.5)) == [1, 3]


def test_pick_number_question_without_focused_number_adds_nothing():
    evidence = [ev(1, 1.0), ev(2, 0.3, has_number=True, focus=0.0)]
    assert rows(pick_sentences(evidence, NUMBER, margin=0.5)) == [1]


def test_pick_number_question_already_holding_a_number():
    evidence = [ev(1, 1.0, has_number=True), ev(3, 0.2, has_number=True, focus=1.0)]
    assert rows(pick_sentences(evidence, NUMBER, margin=0.5)) == [1]


def test_pick_general_question_does_not_hunt_for_numbers():
    evidence = [ev(1, 1.0), ev(3, 0.2, has_number=True, focus=1.0)]
    assert rows(pick_sentences(evidence, GENERAL, margin=0.5)) == [1]


def test_pick_number_sentence_needs_room():
    evidence = [ev(1, 1.0), ev(3, 0.2, has_number=True, focus=1.0)]
    assert rows(pick_sentences(evidence, NUMBER, max_sentences=1)) == [1]


def test_pick_never_duplicates_a_row():
    evidence = [ev(1, 1.0), ev(2, 0.9)]
    picked = pick_sentences(evidence, GENERAL, [[ev(1, 1.0)], [ev(2, 0.9)]])
    assert rows(picked) == [1, 2]


def test_new_names_are_names_the_question_does_not_give():
    from rag.evidence import _new_names

    assert _new_names("Experiments on CIFAR-10 and ImageNet show gains.", {"zorbnet"})
    assert not _new_names("ZorbNet trains quickly on small data.", {"zorbnet"})
    assert not _new_names("The method trains quickly on small data.", set())


# --- score_sentences: the evaluation sentence for "what is X evaluated on" ---


class FakeSnapshot:
    """A fake IndexSnapshot holding one made-up abstract: zero vectors (no encoder), real sentence BM25 and roles."""

    def __init__(self, sentences: list[str]) -> None:
        import numpy as np

        from rag.bm25 import BM25Index
        from rag.roles import abstract_roles

        self._sentences = sentences
        self.sentence_vectors = np.zeros((len(sentences), 2), np.float32)
        self.sentence_bm25 = BM25Index(sentences)
        self.sentence_roles = abstract_roles(sentences)
        self.sentence_owner = ["a"] * len(sentences)
        self.sentence_spans = [Span(i * 100, i * 100 + len(s)) for i, s in enumerate(sentences)]

    def sentence_text(self, row: int) -> str:
        return self._sentences[row]


FAKE_ABSTRACT = [
    "Molecular property prediction with graph networks remains costly.",
    "We propose FooNet, a sparse graph learner for molecular property prediction with DFT labels.",
    "Experiments on ZedSet and QuuxBench show that FooNet is accurate.",
]


def _scores(question: str, **policy) -> dict[int, float]:
    import numpy as np

    from rag.evidence import score_sentences
    from rag.policy import AnswerPolicy
    from rag.question import profile

    snapshot = FakeSnapshot(FAKE_ABSTRACT)
    scored = score_sentences(profile(question), np.zeros(2, np.float32), snapshot, range(3), AnswerPolicy(**policy))
    return {e.row: e.score for e in scored}


def test_evaluation_question_lifts_the_sentence_naming_its_data():
    from rag.policy import AnswerPolicy

    question = "Which datasets is FooNet evaluated on?"
    with_bonus, without = _scores(question), _scores(question, evaluation_bonus=0.0)
    assert with_bonus[2] - without[2] == pytest.approx(AnswerPolicy().evaluation_bonus)
    assert with_bonus[1] == pytest.approx(without[1])  # names DFT but says nothing about evaluation
    assert max(with_bonus, key=with_bonus.get) == 2


def test_other_questions_get_no_evaluation_bonus():
    question = "How does FooNet predict molecular properties?"
    assert _scores(question) == pytest.approx(_scores(question, evaluation_bonus=0.0))


def test_role_key_sends_why_it_fails_questions_to_their_own_role_bonus():
    from rag.evidence import role_key
    from rag.question import profile

    assert role_key(profile("Why do graph learners fail on rare atoms?")) == "how_why_failure"
    assert role_key(profile("How does FooNet predict molecular properties?")) == "how_why"
    assert role_key(profile("Which datasets does FooNet use?")) == "name"


def test_a_question_asking_what_problem_a_work_remedies_prefers_its_gap_sentences():
    from rag.evidence import role_key
    from rag.policy import AnswerPolicy
    from rag.question import asks_problem_addressed, profile

    for question in ("What problem does FooNet address?", "which limitations of earlier pond models does it fix",
                     "What gap does FooNet fill?", "What challenges does FooNet tackle?"):  # fmt: skip
        assert asks_problem_addressed(question), question
        assert role_key(profile(question)) == "problem"
    for question in ("How does FooNet address noise?", "What challenges remain?", "What does FooNet propose?",
                     "Which question answering datasets evaluate FooNet?"):  # fmt: skip
        assert not asks_problem_addressed(question), question
    assert AnswerPolicy().role_bonus["problem"]["gap"] > 0
    # the words of asking for a problem are not the topic an abstract must write: "address", "problem"
    prof = profile("What problem does FooNet address in pond acoustics?")
    assert set(prof.topic_words) & {"problem", "address"} == set()
    assert {"pond", "acoust"} <= set(prof.topic_words)


# --- relevance and topic coverage ---


def test_relevance_is_the_score_without_the_role_bonus():
    e = EvidenceSentence("a", 0, Span(0, 5), "Prior work uses X.", 0.3, 0.5, 0.0, False, 0.0, "background", -0.2)
    assert e.relevance == pytest.approx(0.5)


def test_topic_coverage_weights_rare_words_over_common_ones():
    doc_freq = {"articul": 2, "object": 40, "model": 60}
    rare_only = topic_coverage(["articul", "object", "model"], {"articul"}, doc_freq, 80)
    common_only = topic_coverage(["articul", "object", "model"], {"object", "model"}, doc_freq, 80)
    assert rare_only > 0.5 > common_only
    assert rare_only + common_only == pytest.approx(1.0)


def test_topic_coverage_all_or_none():
    doc_freq = {"regret": 3, "bound": 9}
    assert topic_coverage(["regret", "bound"], {"regret", "bound", "other"}, doc_freq, 50) == pytest.approx(1.0)
    assert topic_coverage(["regret", "bound"], set(), doc_freq, 50) == 0.0


def test_topic_coverage_leaves_out_words_no_abstract_uses():
    assert topic_coverage(["fairness", "unseen"], {"fairness"}, {"fairness": 2}, 50) == pytest.approx(1.0)
    assert topic_coverage(["unseen"], set(), {}, 50) == 0.0
    assert topic_coverage([], {"x"}, {"x": 1}, 50) == 0.0


def test_role_key_sends_questions_about_findings_to_the_findings_bonus():
    from rag.evidence import role_key
    from rag.question import profile

    assert role_key(profile("What was the main finding of FooNet?")) == "findings"
    assert role_key(profile("What does FooNet do?")) == "fact"



def test_a_takeaway_question_lifts_the_concluding_sentence():
    import numpy as np

    from rag.evidence import score_sentences
    from rag.policy import AnswerPolicy
    from rag.question import profile

    sentences = [
        "We propose FooNet, a sparse graph learner.",
        "FooNet improves accuracy on ZedSet by four points.",
        "Together, these results show that sparsity is enough.",
    ]
    snapshot = FakeSnapshot(sentences)

    def scores(question: str, bonus: float) -> dict[int, float]:
        policy = AnswerPolicy(conclusion_bonus=bonus)
        scored = score_sentences(profile(question), np.zeros(2, np.float32), snapshot, range(3), policy)
        return {e.row: e.score for e in scored}

    asked, plain = scores("What is the main takeaway?", 0.15), scores("What is the main takeaway?", 0.0)
    assert asked[2] - plain[2] == pytest.approx(0.15) and asked[1] == pytest.approx(plain[1])
    assert scores("How does FooNet work?", 0.15) == pytest.approx(scores("How does FooNet work?", 0.0))


# --- paper_similarity: a paper read by its sentences most like a vector ---


class _Rows:
    def __init__(self, rows):
        self.rows = rows

    def __getitem__(self, aid):
        return self.rows[aid]


class _Snapshot:
    """Three papers' unit sentence vectors in two dimensions: FooNet has one sentence along the topic, BarNet none."""

    def __init__(self):
        import numpy as np

        self.sentence_vectors = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.6, 0.8]])
        self.sentence_rows = _Rows({"foonet": range(0, 3), "barnet": range(3, 5), "quxnet": range(5, 6)})


def test_paper_similarity_is_the_mean_of_its_most_similar_sentences():
    import numpy as np

    topic = np.array([1.0, 0.0])
    sims = paper_similarity(_Snapshot(), ["foonet", "barnet", "quxnet"], topic, sentences=2)
    assert sims["foonet"] == pytest.approx(0.5)  # its one sentence on the topic and its best other one
    assert sims["barnet"] == pytest.approx(0.0)
    assert sims["quxnet"] == pytest.approx(0.6)  # a paper with fewer sentences: all it has
    assert paper_similarity(_Snapshot(), ["foonet"], topic, sentences=1)["foonet"] == pytest.approx(1.0)


def test_a_sentence_naming_instances_of_the_asked_kind_is_lifted():
    import numpy as np

    from rag.evidence import score_sentences
    from rag.policy import AnswerPolicy
    from rag.question import profile

    sentences = [
        "Gluing rigid kettles from video remains hard.",  # background: never lifted for what it lists
        "We propose KettleFit, a category-free fitting framework for rigid kettles.",
        "A solver joins the parts with ball and hinge joints.",
    ]
    snapshot = FakeSnapshot(sentences)

    def scores(**policy):
        prof = profile("What joint types can the category-free kettle fitting framework model?")
        out = score_sentences(prof, np.zeros(2, np.float32), snapshot, range(3), AnswerPolicy(**policy))
        return {e.row: e.score for e in out}

    with_bonus, without = scores(), scores(instance_bonus=0.0)
    assert with_bonus[2] - without[2] == pytest.approx(AnswerPolicy().instance_bonus)
    assert with_bonus[1] == pytest.approx(without[1]) and with_bonus[0] == pytest.approx(without[0])


# --- distinctive_words: the question's words that pick out a few abstracts ---

FAKE_ZIPF = {"collapse": 4.2, "neural": 3.8, "top": 5.6, "the": 7.7, "benchmark": 3.6, "zedscore": 0.0}.get


def fake_zipf(word: str) -> float:
    return FAKE_ZIPF(word, 3.0)


def test_distinctive_words_keeps_a_word_few_abstracts_use():
    doc_freq = {"neural": 40, "collaps": 2, "benchmark": 30}
    assert distinctive_words("a benchmark using neural collapse", doc_freq, 6, 5.0, fake_zipf) == ["collaps"]


def test_distinctive_words_skips_a_word_no_abstract_uses():
    assert distinctive_words("does it use zedscore?", {}, 6, 5.0, fake_zipf) == []


def test_distinctive_words_skips_a_common_english_word_a_few_abstracts_use():
    assert distinctive_words("built on top of what?", {"top": 2, "built": 9}, 6, 5.0, fake_zipf) == []


def test_distinctive_words_reads_each_part_of_a_hyphenated_word():
    doc_freq = {"zedscor": 1, "styl": 3}
    assert distinctive_words("ZedScore-style models", doc_freq, 6, 5.0, {"zedscore": 0.0, "style": 5.4}.get) == [
        "zedscor"
    ]


def test_distinctive_words_lists_each_word_once_in_question_order():
    doc_freq = {"zedscor": 1, "collaps": 2}
    assert distinctive_words("zedscore collapse zedscore", doc_freq, 6, 5.0, fake_zipf) == ["zedscor", "collaps"]
