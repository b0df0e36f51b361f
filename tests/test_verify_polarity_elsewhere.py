"""Polarity with VerifyPolicy.polarity_elsewhere_min_shared: a denial in a sentence the claim is not aligned to
needs that many content words in common with the claim's part to reject it (0: any best match, as before; 4 by default)."""

from __future__ import annotations

from tests.support.fake_similarity import check_with_fake_similarity as _check

SINGLE = {"pair_min_gain": 0.5, "sim": 0.95}  # the evidence is one sentence, the first


def test_with_none_required_a_denial_elsewhere_with_three_shared_words_rejects():
    abstract = "Our sampler leaves the scorer frozen while the policy trains. The policy is updated at each step."
    claim = "The sampler leaves the scorer frozen, and the policy is not updated at each step."
    v = _check(abstract, claim, best=0, polarity_elsewhere_min_shared=0, **SINGLE)
    assert not v.verified and "opposite" in v.reason


def test_with_four_required_a_denial_elsewhere_with_three_shared_words_does_not_reject():
    abstract = "Our sampler leaves the scorer frozen while the policy trains. The policy is updated at each step."
    claim = "The sampler leaves the scorer frozen, and the policy is not updated at each step."
    assert _check(abstract, claim, best=0, polarity_elsewhere_min_shared=4, **SINGLE).verified


def test_with_four_required_a_denial_elsewhere_with_many_shared_words_still_rejects():
    abstract = ("Our sampler leaves the scorer frozen while the policy trains. "
                "The policy network is updated at each training step with fresh samples.")  # fmt: skip
    claim = "The sampler leaves the scorer frozen; the policy network is not updated at each training step."
    v = _check(abstract, claim, best=0, polarity_elsewhere_min_shared=4, **SINGLE)
    assert not v.verified and "opposite" in v.reason


def test_with_four_required_a_denial_in_the_evidence_sentence_still_rejects():
    abstract = "The probe is cheap to train. The probe does not transfer across model families."
    v = _check(abstract, "The probe transfers across model families.", best=1, polarity_elsewhere_min_shared=4)
    assert not v.verified and "opposite" in v.reason
