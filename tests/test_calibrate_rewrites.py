"""eval.calibrate.faithful_rewrites: label-free restatements of an abstract sentence (own examples)."""

from __future__ import annotations

from eval.calibrate import faithful_rewrites


def _kinds(sentence: str, abstract: str = "") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for kind, text in faithful_rewrites(sentence, abstract or sentence):
        out.setdefault(kind, []).append(text)
    return out


def test_counts_are_written_in_words_and_back():
    kinds = _kinds("We test on 4 datasets and three model sizes.")
    assert kinds["number in words"] == ["We test on four datasets and three model sizes."]
    assert kinds["number in digits"] == ["We test on 4 datasets and 3 model sizes."]


def test_an_acronym_defined_in_the_abstract_is_written_out():
    abstract = "We introduce Sparse Tidal Networks (STN) for estuaries. STN runs on a laptop."
    kinds = _kinds("STN runs on a laptop.", abstract)
    assert kinds["acronym written out"] == ["Sparse Tidal Networks runs on a laptop."]


def test_a_comparison_is_turned_round():
    kinds = _kinds("On river gauges, FloodCast outperforms hydrological baselines on every horizon.")
    assert "On river gauges, hydrological baselines is outperformed by FloodCast on every horizon." in kinds["comparison turned round"]
    assert "On river gauges, hydrological baselines trails FloodCast on every horizon." in kinds["comparison turned round"]


def test_we_show_that_is_dropped():
    assert _kinds("We show that the filter converges in linear time.")["without 'we show that'"] == [
        "The filter converges in linear time."
    ]
