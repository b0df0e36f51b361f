"""Unit tests for the pure parts of rag/evidence.py: best-per-abstract and sentence picking."""

from __future__ import annotations

from rag.evidence import EvidenceSentence, best_per_abstract, pick_sentences
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
