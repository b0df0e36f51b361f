"""Faithful claims that combine or summarise several sentences of an abstract, or speak in an assistant's voice
("The authors show that ..."), are accepted; the parts they combine are each checked against what they restate.
Own small examples, faked MiniLM similarities (tests/support/fake_similarity.py)."""

from __future__ import annotations

from tests.support.fake_similarity import check_with_fake_similarity as _check


def test_a_denial_of_one_thing_does_not_contradict_a_claim_about_what_comes_before_it():
    # "needs one labelled graph and no teacher graphs" denies teacher graphs, not the one labelled graph
    abstract = ("We study label-efficient graph distillation. "
                "Our student needs only one labelled graph and no teacher graphs.")  # fmt: skip
    claim = "The student learns from a single labelled graph, with no teacher graphs."
    assert _check(abstract, claim, best=1).verified


def test_a_claim_that_needs_the_denied_thing_is_still_rejected():
    abstract = ("We study label-efficient graph distillation. "
                "Our student needs only one labelled graph and no teacher graphs.")  # fmt: skip
    claim = "The student needs teacher graphs."
    assert not _check(abstract, claim, best=1).verified


def test_what_a_claim_says_is_swapped_out_may_be_what_the_abstract_says_is_common():
    abstract = ("Graph pretraining relies on random edge dropping during augmentation. "
                "We propose EdgeLens, which replaces random dropping with a learned saliency mask.")  # fmt: skip
    claim = "EdgeLens swaps random edge dropping in graph pretraining for a learned saliency mask."
    assert _check(abstract, claim, best=1, other=0.6).verified
