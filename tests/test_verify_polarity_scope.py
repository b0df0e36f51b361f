"""Polarity: what a negation covers, and how much of a part of the abstract a claim says (rag/verify.py)."""

from __future__ import annotations

from rag.verify_clauses import clauses
from rag.verify_polarity import _negation_concerns, _shared_words
from rag.verify_tokens import content_stems, tokenize
from tests.support.fake_similarity import check_with_fake_similarity as _check


def test_a_negation_later_in_the_sentence_does_not_deny_its_first_part():
    abstract = "We extend the filter to colour images and build a denoiser that needs one clean frame and no paired noisy data."
    assert _check(abstract, "The filter extends to colour images through a denoiser.").verified


def test_a_negation_of_what_the_claim_says_is_still_the_opposite():
    abstract = "The denoiser does not remove structured stripe noise from scanned pages."
    v = _check(abstract, "The denoiser removes structured stripe noise from scanned pages.")
    assert not v.verified and "opposite" in v.reason


def test_negation_concerns_only_the_words_after_it():
    # one part as a whole (clauses() now splits it at "and no"), to test the scope on its own
    negated = tokenize("builds a denoiser that needs one clean frame and no paired data")
    first_part = clauses(tokenize("builds a denoiser"))[0]
    denied = clauses(tokenize("the denoiser needs paired data"))[0]
    assert not _negation_concerns(first_part, negated)
    assert _negation_concerns(denied, negated)


def test_a_hyphenated_word_counts_once():
    claim = clauses(tokenize("label-efficient pose-conditioned training"))[0]
    assert _shared_words(claim, content_stems(tokenize("label efficient pose conditioned"))) == 2
    assert _shared_words(claim, content_stems(tokenize("pose-conditioned training"))) == 2


def test_missing_before_a_noun_is_a_kind_of_input_not_a_denial():
    abstract = "We test the tagger on inputs with missing fields and corrupted fields."
    assert _check(abstract, "The tagger is tested on inputs with missing fields and corrupted fields.").verified
    v = _check("The tagger output is missing for corrupted fields.", "The tagger output is available for corrupted fields.")
    assert not v.verified


def test_what_existing_work_neglects_does_not_deny_the_papers_own_claim():
    abstract = (
        "Existing benchmarks focus on clean images, often neglecting sensor noise and missing channels. "
        "Our benchmark assesses robustness to sensor noise and missing channels."
    )
    assert _check(abstract, "The benchmark assesses robustness to sensor noise and missing channels.", best=1).verified


def test_a_negated_part_is_matched_word_by_word():
    abstract = "Accuracy saturates quickly, not through deeper per-pixel encoders."
    assert _check(abstract, "Accuracy saturates quickly regardless of per-pixel encoder complexity.").verified
