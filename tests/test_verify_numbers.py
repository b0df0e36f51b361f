"""Numbers in claims against the numbers the abstract gives for the same thing (rag/verify.py), with small
hand-written abstracts (similarities are given, no model)."""

from __future__ import annotations

from rag.settings import VerifyPolicy
from rag.text import sentence_spans
from rag.verify import check_claim
from rag.verify_numbers import bound_before, number_contexts, quantities

ABSTRACT = (
    "We train WidgetNet on 6 languages and evaluate it on 12 tasks. "
    "Its recall reaches 0.91 on clean audio but drops to 0.64 on noisy audio. "
    "Decoding is up to 3$\\times$ faster than the baseline, and more than 40\\% of errors come from rare words."
)
SPANS = sentence_spans(ABSTRACT)


def _verdict(claim: str, best: int, **policy):
    sims = [0.2] * len(SPANS)
    sims[best] = 0.85
    return check_claim(claim, ABSTRACT, SPANS, sims, VerifyPolicy(**policy))


def test_bound_words_before_a_number_are_read():
    text = "more than 40 runs and up to 3 hours, about 5 days"
    assert bound_before(text, text.index("40")) == ("lower", "more than")
    assert bound_before(text, text.index("3 h")) == ("upper", "up to")
    assert bound_before(text, text.index("5 d")) == ("approx", "about")
    assert bound_before("we use 7 seeds", 7) == ("", "")


def test_latex_percent_and_times_are_units():
    units = {(q.value, q.unit) for q in quantities("a $12\\%$ gain, $4\\times$ fewer steps")}
    assert (12.0, "%") in units and (4.0, "x") in units


def test_factor_and_fraction_words_are_read():
    values = {(q.value, q.unit) for q in quantities("it doubles the speed for three-quarters of users and half of runs")}
    assert (2.0, "x") in values and (75.0, "%") in values and (50.0, "%") in values


def test_digits_inside_a_name_are_not_numbers():
    assert [q.value for q in quantities("GPT-4o and CIFAR-100 with 8 seeds")] == [8.0]


def test_number_contexts_stop_at_the_next_number():
    contexts = {q.value: (before, after) for q, before, after in number_contexts(SPANS[1].of(ABSTRACT))}
    before, after = contexts[0.64]
    assert "drop" in before and "recal" not in before and "noisi" in after


def test_count_of_another_thing_is_rejected():
    v = _verdict("WidgetNet is evaluated on 6 tasks.", 0)
    assert not v.verified and "12" in v.reason


def test_count_of_the_same_thing_is_verified():
    assert _verdict("WidgetNet is trained on six languages and tested on 12 tasks.", 0).verified


def test_two_values_trading_places_are_rejected():
    v = _verdict("Its recall reaches 0.64 on clean audio and 0.91 on noisy audio.", 1)
    assert not v.verified and "0.91" in v.reason


def test_one_value_restated_with_its_own_words_is_verified():
    assert _verdict("On noisy audio, WidgetNet's recall drops to 0.64.", 1).verified


def test_bound_turned_round_is_rejected():
    v = _verdict("Fewer than 40% of errors come from rare words.", 2)
    assert not v.verified and "more than" in v.reason


def test_same_bound_in_other_words_is_verified():
    assert _verdict("Over 40% of the errors come from rare words.", 2).verified


def test_factor_word_against_another_factor_is_rejected():
    v = _verdict("Decoding is twice as fast as the baseline.", 2)
    assert not v.verified and "3" in v.reason


def test_estimate_within_rounding_is_verified_and_margin_is_a_setting():
    assert _verdict("Recall is about 0.9 on clean audio.", 1).verified
    assert not _verdict("Recall is 0.9 on clean audio.", 1).verified
    assert not _verdict("Recall is about 0.85 on clean audio.", 1, number_estimate_tolerance=0.01).verified


def test_number_word_with_percent_and_a_count_before_a_hyphenated_descriptor():
    abstract = "The adapter adds less than one percent overhead. We probe five 7B-scale models."
    assert not _check_own(abstract, "The adapter adds about five percent overhead.").verified
    assert not _check_own(abstract, "We probe seven 7B-scale models.", best=1).verified
    assert _check_own(abstract, "Five 7B-scale models are probed.", best=1).verified


def _check_own(abstract: str, claim: str, best: int = 0):
    spans = sentence_spans(abstract)
    sims = [0.2] * len(spans)
    sims[best] = 0.85
    return check_claim(claim, abstract, spans, sims, VerifyPolicy())
