"""Unit tests for rag/verify.py with small hand-written abstracts (similarities are given, no model)."""

from __future__ import annotations

from rag.settings import VerifyPolicy
from rag.text import sentence_spans
from rag.verify import check_claim, quantities

ABSTRACT = (
    "We present FooBench, a benchmark of 1,200 tasks for image segmentation. "
    "Small specialist models outperform large generalist models on FooBench. "
    "Pretraining on synthetic data may improve robustness. "
    "Our method reduces latency without increasing memory."
)
SPANS = sentence_spans(ABSTRACT)


def _verdict(claim: str, best: int, sim: float = 0.85):
    sims = [0.2] * len(SPANS)
    sims[best] = sim
    return check_claim(claim, ABSTRACT, SPANS, sims, VerifyPolicy())


def test_faithful_restatement_is_verified():
    v = _verdict("Small specialist models outperform large generalist models on FooBench.", 1)
    assert v.verified and v.support >= VerifyPolicy().support_threshold
    assert v.evidence[0] == SPANS[1]


def test_swapped_comparison_is_rejected_with_a_quote():
    v = _verdict("Large generalist models outperform small specialist models on FooBench.", 1)
    assert not v.verified
    assert "opposite" in v.reason and "Small specialist models" in v.reason


def test_changed_number_is_rejected():
    v = _verdict("FooBench is a benchmark of 1,500 tasks for image segmentation.", 0)
    assert not v.verified and "1,500" in v.reason


def test_same_number_written_differently_is_verified():
    assert _verdict("FooBench is a benchmark of 1200 tasks for image segmentation.", 0).verified


def test_flipped_polarity_is_rejected():
    v = _verdict("Our method reduces latency and increases memory.", 3)
    assert not v.verified


def test_unknown_name_is_rejected():
    v = _verdict("Small specialist models outperform large generalist models on BarBench.", 1)
    assert not v.verified and "BarBench" in v.reason


def test_overclaim_is_rejected():
    v = _verdict("Pretraining on synthetic data proves to improve robustness.", 2)
    assert not v.verified and "proves" in v.reason


def test_changed_setting_is_rejected():
    v = _verdict("We present FooBench, a benchmark of 1,200 tasks for video segmentation.", 0)
    assert not v.verified and "video" in v.reason


def test_off_topic_claim_fails_on_support():
    v = _verdict("Graph neural networks predict protein folding.", 0, sim=0.1)
    assert not v.verified and v.failures[0].check == "support"


def test_quantities_read_scale_and_units():
    values = {(q.value, q.unit) for q in quantities("1.2M images, 45 percent faster, 3x fewer steps")}
    assert (1_200_000.0, "") in values and (45.0, "%") in values and (3.0, "x") in values
