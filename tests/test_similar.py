"""Unit tests for rag/similar.py ("anything similar?"), with fake snapshots and hand-made evidence (no index)."""

from __future__ import annotations

import numpy as np

from rag.evidence import EvidenceSentence
from rag.similar import line_sentence, plan_similar, source_vector
from rag.text import Span


def _sentence(aid: str, row: int, role: str, dense: float, text: str = "") -> EvidenceSentence:
    return EvidenceSentence(aid, row, Span(0, 1), text or f"{aid} sentence {row}.", dense, dense, 0.0, False, 0.0, role)


class FakeSnapshot:
    """Just the two things source_vector reads: each abstract's sentence rows and the sentence vectors."""

    def __init__(self) -> None:
        self.sentence_rows = {"a": range(0, 2), "b": range(2, 3), "empty": range(3, 3)}
        self.sentence_vectors = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=np.float32)


def test_source_vector_is_the_normalised_mean_of_the_papers_sentences():
    vector = source_vector(FakeSnapshot(), ["a"])
    assert np.allclose(vector, np.array([1.0, 1.0]) / np.sqrt(2))
    assert np.isclose(np.linalg.norm(source_vector(FakeSnapshot(), ["a", "b"])), 1.0)


def test_source_vector_of_nothing_known_is_none():
    assert source_vector(FakeSnapshot(), ["missing", "empty"]) is None


def test_a_line_quotes_what_the_work_does_rather_than_its_background():
    evidence = [
        _sentence("x", 0, "background", 0.9),
        _sentence("x", 1, "method", 0.6),
        _sentence("x", 2, "result", 0.7),
    ]
    assert line_sentence(evidence).row == 2


def test_a_line_falls_back_to_any_role_but_availability():
    evidence = [_sentence("x", 0, "availability", 0.9), _sentence("x", 1, "gap", 0.5)]
    assert line_sentence(evidence).row == 1
    assert line_sentence([_sentence("x", 0, "availability", 0.9)]) is None


def test_plan_lists_each_paper_under_a_lead_naming_the_earlier_ones():
    plan = plan_similar(
        [("x", [_sentence("x", 0, "contribution", 0.8)]), ("y", []), ("z", [_sentence("z", 4, "method", 0.5)])],
        ["FooNet"],
    )
    assert plan.abstract_ids == ["x", "z"] and plan.layout == "list"
    assert plan.lead == "The abstracts closest to **FooNet** by what they say:"
