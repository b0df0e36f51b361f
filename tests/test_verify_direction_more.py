"""Direction and opposites added for issue 14's unseen claims (rag/verify.py), with small hand-written examples."""

from __future__ import annotations

from rag.verify_direction import comparisons
from rag.verify_tokens import tokenize
from tests.support.fake_similarity import check_with_fake_similarity as _check


def test_closer_to_x_than_to_y_compares_x_with_y():
    found = comparisons(tokenize("The probe checks whether an embedding lies closer to its own cluster than to the nearest foreign cluster."))
    assert found and found[0].dimension == "distance"


def test_swapping_the_two_sides_of_closer_than_is_rejected():
    abstract = "The probe checks whether an embedding lies closer to its own cluster than to the nearest foreign cluster."
    v = _check(abstract, "The probe checks whether an embedding lies closer to the nearest foreign cluster than to its own cluster.")
    assert not v.verified and "opposite" in v.reason
    assert _check(abstract, "The probe tests whether an embedding lies closer to its own cluster than to the nearest foreign cluster.").verified


def test_higher_in_x_than_in_y_swapped_is_rejected():
    abstract = "Recall of the detector is higher in daylight scenes than in night scenes."
    v = _check(abstract, "Recall of the detector is higher in night scenes than in daylight scenes.")
    assert not v.verified


def test_up_weighting_against_down_weighting_is_rejected():
    abstract = "The sampler down-weights easy examples so that hard examples dominate the gradient."
    v = _check(abstract, "The sampler up-weights easy examples so that hard examples dominate the gradient.")
    assert not v.verified


def test_listed_opposites_without_a_prefix_are_rejected():
    abstract = "The cache enables parallel decoding of long documents on a single accelerator."
    v = _check(abstract, "The cache prevents parallel decoding of long documents on a single accelerator.")
    assert not v.verified and "enables" in v.reason


def test_from_a_to_b_reversed_is_rejected():
    abstract = "Difficulty rises across five tiers, from single-table lookups in tier one to nested multi-join queries in tier five."
    v = _check(abstract, "The five tiers go from nested multi-join queries in tier one down to single-table lookups in tier five.")
    assert not v.verified and "other way round" in v.reason
    assert _check(abstract, "The five tiers range from single-table lookups in tier one to nested multi-join queries in tier five.").verified


def test_ranges_read_both_ends():
    from rag.verify_direction import ranges

    (start, stop), = ranges(tokenize("accuracy drops from clean images to corrupted images"))
    assert "clean" in start and "corrupt" in stop and "imag" not in start


def test_higher_in_b_than_a_against_a_drop_from_a_to_b_is_rejected():
    abstract = "All parsers show a sharp drop in accuracy from edited news text to noisy forum posts."
    v = _check(abstract, "Parsers score higher on noisy forum posts than on edited news text.")
    assert not v.verified and "opposite" in v.reason
    assert _check(abstract, "Parsers score higher on edited news text than on noisy forum posts.").verified


def test_orderings_read_a_change_from_a_to_b():
    from rag.verify_direction import orderings

    (high, low), = orderings(tokenize("recall improves from short clips to long clips"))
    assert "long" in high and "short" in low
