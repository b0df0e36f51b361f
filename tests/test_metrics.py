"""Unit tests for eval/metrics.py against hand-computed values, empty inputs included."""

from __future__ import annotations

import math

import pytest

from eval.metrics import (
    citation_prf,
    fact_present,
    hit_at_k,
    key_fact_coverage,
    mean,
    mrr_at_k,
    ndcg_at_k,
    percentile,
    recall_at_k,
)

RANKED = ["x", "g1", "y", "g2", "z"]
GOLD = {"g1", "g2"}

# --- hit@k ---


@pytest.mark.parametrize(("k", "expected"), [(1, 0.0), (2, 1.0), (5, 1.0), (50, 1.0), (0, 0.0)])
def test_hit_at_k(k, expected):
    assert hit_at_k(RANKED, GOLD, k) == expected


def test_hit_at_k_empty_inputs():
    assert hit_at_k([], GOLD, 5) == 0.0
    assert hit_at_k(RANKED, [], 5) == 0.0
    assert hit_at_k([], [], 5) == 0.0


def test_hit_at_k_accepts_iterators():
    assert hit_at_k(RANKED, iter(["g2"]), 4) == 1.0


# --- recall@k ---


@pytest.mark.parametrize(("k", "expected"), [(1, 0.0), (2, 0.5), (3, 0.5), (4, 1.0), (10, 1.0)])
def test_recall_at_k(k, expected):
    assert recall_at_k(RANKED, GOLD, k) == expected


def test_recall_at_k_empty_inputs():
    assert recall_at_k([], GOLD, 3) == 0.0
    assert recall_at_k(RANKED, [], 3) == 0.0


def test_recall_at_k_duplicate_gold_counts_once():
    assert recall_at_k(["g1"], ["g1", "g1", "g2"], 1) == 0.5


def test_recall_at_k_duplicate_ranked_counts_once():
    assert recall_at_k(["g1", "g1"], GOLD, 2) == 0.5


# --- MRR@k ---


@pytest.mark.parametrize(("k", "expected"), [(1, 0.0), (2, 0.5), (5, 0.5)])
def test_mrr_at_k(k, expected):
    assert mrr_at_k(RANKED, GOLD, k) == expected


def test_mrr_at_k_first_rank():
    assert mrr_at_k(["g2", "g1"], GOLD, 2) == 1.0


def test_mrr_at_k_third_rank():
    assert mrr_at_k(["a", "b", "g1"], GOLD, 3) == pytest.approx(1 / 3)


def test_mrr_at_k_empty_inputs():
    assert mrr_at_k([], GOLD, 5) == 0.0
    assert mrr_at_k(RANKED, [], 5) == 0.0


# --- nDCG@k ---


def test_ndcg_perfect_ranking():
    assert ndcg_at_k(["g1", "g2", "x"], GOLD, 3) == pytest.approx(1.0)


def test_ndcg_hand_computed():
    # dcg = 1/log2(3) + 1/log2(4) = 0.63093 + 0.5; ideal = 1 + 1/log2(3) = 1.63093
    expected = (1 / math.log2(3) + 0.5) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(["x", "g1", "g2"], GOLD, 3) == pytest.approx(expected)
    assert ndcg_at_k(["x", "g1", "g2"], GOLD, 3) == pytest.approx(0.693426, abs=1e-6)


def test_ndcg_on_ranked_fixture():
    # gold at ranks 2 and 4: (1/log2(3) + 1/log2(5)) / (1 + 1/log2(3))
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(RANKED, GOLD, 5) == pytest.approx(expected)


def test_ndcg_duplicates_count_once():
    # dcg = 1 (g1 at 1) + 0 (repeat) + 1/log2(4) (g2 at 3) = 1.5
    assert ndcg_at_k(["g1", "g1", "g2"], GOLD, 3) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))


def test_ndcg_ideal_limited_by_k():
    # three gold, k=1: ideal is just rank 1
    assert ndcg_at_k(["g1"], ["g1", "g2", "g3"], 1) == pytest.approx(1.0)


def test_ndcg_no_hit():
    assert ndcg_at_k(["x", "y"], GOLD, 2) == 0.0


def test_ndcg_empty_inputs():
    assert ndcg_at_k([], GOLD, 3) == 0.0
    assert ndcg_at_k(RANKED, [], 3) == 0.0


def test_ndcg_cut_at_k():
    assert ndcg_at_k(["x", "g1"], GOLD, 1) == 0.0


# --- citation_prf ---


def test_citation_prf_partial():
    assert citation_prf(["a", "b"], ["b", "c"]) == pytest.approx((0.5, 0.5, 0.5))


def test_citation_prf_asymmetric():
    p, r, f = citation_prf(["a", "b", "c", "d"], ["a"])
    assert (p, r) == (0.25, 1.0)
    assert f == pytest.approx(2 * 0.25 * 1.0 / 1.25)


def test_citation_prf_perfect():
    assert citation_prf(["a", "b"], ["b", "a"]) == (1.0, 1.0, 1.0)


def test_citation_prf_disjoint():
    assert citation_prf(["a"], ["b"]) == (0.0, 0.0, 0.0)


def test_citation_prf_empty_inputs():
    assert citation_prf([], ["a"]) == (0.0, 0.0, 0.0)
    assert citation_prf(["a"], []) == (0.0, 0.0, 0.0)
    assert citation_prf([], []) == (0.0, 0.0, 0.0)


def test_citation_prf_duplicates_count_once():
    assert citation_prf(["a", "a"], ["a"]) == (1.0, 1.0, 1.0)


# --- fact_present ---


@pytest.mark.parametrize(
    ("fact", "answer"),
    [
        ("1,920", "AssayBench uses 1920 CRISPR screens."),
        ("1920", "AssayBench uses 1,920 CRISPR screens."),
        ("1,920", "AssayBench uses 1,920 CRISPR screens."),
        ("12,326", "we build 12326 failed trajectories"),
        ("45%", "errors fall by 45.0%"),
        ("CRISPR screens", "crispr SCREENS are used"),
        ("zero-shot", "a zero\u2011shot setting"),
        ("10-20", "between 10\u201320 layers"),
        ("large   language model", "a large language\nmodel"),
    ],
)
def test_fact_present(fact, answer):
    assert fact_present(fact, answer)


@pytest.mark.parametrize(
    ("fact", "answer"),
    [
        ("1,920", "AssayBench uses 1,820 screens."),
        ("CRISPR", "no such thing here"),
        ("", "anything"),
        ("   ", "anything"),
        ("fact", ""),
    ],
)
def test_fact_absent(fact, answer):
    assert not fact_present(fact, answer)


@pytest.mark.parametrize(("fact", "answer"), [("245", "spans 2,450 categories"), ("0.85", "reaches 0.855")])
def test_fact_present_does_not_match_part_of_a_larger_number(fact, answer):
    assert not fact_present(fact, answer)


# --- key_fact_coverage ---


def test_key_fact_coverage_none_to_find():
    assert key_fact_coverage([], "anything") == 1.0


def test_key_fact_coverage_partial():
    assert key_fact_coverage(["6,289", "1,610", "zebra"], "6289 pairs over 1610 aptamers") == pytest.approx(2 / 3)


def test_key_fact_coverage_all_and_none():
    assert key_fact_coverage(["310", "0.855"], "310 prompts; best score 0.855") == 1.0
    assert key_fact_coverage(["310", "0.855"], "") == 0.0


# --- percentile ---


def test_percentile_empty_is_nan():
    assert math.isnan(percentile([], 50))


def test_percentile_interpolates():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([10, 20, 30, 40, 50], 90) == pytest.approx(46.0)
    assert percentile([0, 100], 25) == 25.0


def test_percentile_extremes_and_unsorted_input():
    assert percentile([3, 1, 2], 0) == 1
    assert percentile([3, 1, 2], 100) == 3
    assert percentile([3, 1, 2], 50) == 2


def test_percentile_single_value():
    assert percentile([5.0], 90) == 5.0


def test_percentile_does_not_mutate_input():
    values = [3.0, 1.0, 2.0]
    percentile(values, 50)
    assert values == [3.0, 1.0, 2.0]


# --- mean ---


def test_mean():
    assert mean([1.0, 2.0, 6.0]) == 3.0
    assert mean(x for x in (2.0, 4.0)) == 3.0


def test_mean_empty_is_nan():
    assert math.isnan(mean([]))
