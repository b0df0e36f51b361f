"""Swaps of one term for another the abstract uses elsewhere (rag/verify.py check_swap), small own examples."""

from __future__ import annotations

from rag.settings import VerifyPolicy
from rag.text import sentence_spans
from rag.verify import check_claim

ABSTRACT = (
    "We benchmark failure detectors for street-scene segmentation. "
    "Entropy-based detectors dominate failure detection on clear-weather scenes. "
    "Ensemble-based detectors need several forward passes at test time. "
    "Density and margin scores form the most reliable family under heavy rain."
)


def _check(claim: str, best: int):
    spans = sentence_spans(ABSTRACT)
    sims = [0.2] * len(spans)
    sims[best] = 0.85
    return check_claim(claim, ABSTRACT, spans, sims, VerifyPolicy())


def test_a_hyphenated_kind_swapped_at_the_start_is_rejected():
    v = _check("Ensemble-based detectors dominate failure detection on clear-weather scenes.", 1)
    assert not v.verified and "Entropy-based" in v.reason


def test_the_subject_named_another_way_is_not_a_swap():
    assert _check("These detectors dominate failure detection on clear-weather scenes.", 1).verified


def test_a_swap_next_to_one_added_word_is_rejected():
    v = _check("Density and ensemble scores form the most reliable score family under heavy rain.", 3)
    assert not v.verified and "margin" in v.reason


def test_one_added_word_alone_is_no_swap():
    assert _check("Density and margin scores form the most reliable score family under heavy rain.", 3).verified


def test_an_opposite_with_another_small_difference_is_still_rejected():
    abstract = "The sampler down-weights already solved tasks to avoid wasted updates."
    spans = sentence_spans(abstract)
    v = check_claim("The sampler up-weights already solved tasks so they keep producing updates.", abstract, spans, [0.85],
                    VerifyPolicy())
    assert not v.verified and "down-weights" in v.reason


def test_earlier_and_later_stay_words_of_a_side():
    from rag.verify_direction import comparisons
    from rag.verify_tokens import tokenize

    (c,) = comparisons(tokenize("later layers strictly dominate earlier ones"))
    assert "later" in c.better and "earlier" in c.worse
