"""Overclaim: 'proves' against the abstract's own words (rag/verify.py)."""

from __future__ import annotations

from tests.support.fake_similarity import check_with_fake_similarity as _check


def test_proves_a_bound_the_abstract_derives_is_fine():
    abstract = "We derive matching upper and lower bounds on the sample complexity of tabular exploration."
    assert _check(abstract, "The paper proves matching upper and lower bounds on the sample complexity of tabular exploration.").verified


def test_proves_what_experiments_show_is_an_overclaim():
    abstract = "Experiments show that curriculum ordering improves sample efficiency of tabular exploration."
    v = _check(abstract, "The paper proves that curriculum ordering improves sample efficiency of tabular exploration.")
    assert not v.verified and "proves" in v.reason


def test_proves_a_bound_the_abstract_only_suggests_is_an_overclaim():
    abstract = "Our analysis suggests a lower bound on the sample complexity of tabular exploration."
    v = _check(abstract, "The analysis proves a lower bound on the sample complexity of tabular exploration.")
    assert not v.verified and "suggests" in v.reason


def test_no_assumptions_where_the_abstract_states_assumptions_is_an_overclaim():
    abstract = "Under mild smoothness assumptions, the sampler converges to the target law in polynomial time."
    v = _check(abstract, "The sampler converges to the target law in polynomial time with no assumptions needed.")
    assert not v.verified and "under conditions" in v.reason
    assert _check(abstract, "Under mild smoothness assumptions, the sampler converges to the target law in polynomial time.").verified


def test_exactly_is_a_strong_word():
    abstract = "The probe approximately predicts which layer stores a fact in most language models."
    v = _check(abstract, "The probe exactly predicts which layer stores a fact in language models.")
    assert not v.verified and "exactly" in v.reason
