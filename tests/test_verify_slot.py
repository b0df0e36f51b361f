"""One slot's term replaced by another term, also one the abstract never names (rag/verify.py _replaced_slot), with
small own examples."""

from __future__ import annotations

from tests.support.fake_similarity import check_with_fake_similarity as _check

ABSTRACT = ("We release Tundra, an acoustic benchmark for call localization in wild snowy owls. "
            "We test the trackers on recurrent encoders and convolutional encoders in every setting. "
            "Our protocol transfers from text-to-audio models to field recordings without retuning.")  # fmt: skip


def test_a_species_the_abstract_never_names_in_its_slot_is_rejected():
    v = _check(ABSTRACT, "Tundra is an acoustic benchmark for call localization in wild barn swallows.", best=0)
    assert not v.verified and "snowy owls" in v.reason and "barn swallows" in v.reason


def test_a_coordinated_model_family_replaced_before_the_same_head_is_rejected():
    v = _check(ABSTRACT, "The trackers are tested on recurrent encoders and transformer-based encoders in every setting.", best=1)
    assert not v.verified and "convolutional" in v.reason


def test_a_sibling_compound_before_the_same_head_is_rejected():
    v = _check(ABSTRACT, "The protocol transfers from text-to-video models to field recordings without retuning.", best=2)
    assert not v.verified and "text-to-audio" in v.reason


def test_an_everyday_synonym_in_a_slot_is_accepted():
    v = _check(ABSTRACT, "Tundra is an acoustic benchmark for call localization in wild snowy owls.", best=0)
    assert v.verified, v.reason
    v = _check(ABSTRACT, "The trackers are evaluated on recurrent encoders and convolutional encoders in each setting.", best=1)
    assert v.verified, v.reason


def test_the_same_terms_in_another_order_are_accepted():
    v = _check(ABSTRACT, "In every setting, the trackers are tested on convolutional encoders and recurrent encoders.", best=1)
    assert v.verified, v.reason


def test_a_hyphenated_setting_replaced_before_the_same_words_is_rejected():
    abstract = "Across all benchmarks, our audits show that zero-shot generalist parsers beat domain-tuned parsers."
    v = _check(abstract, "Fine-tuned generalist parsers beat domain-tuned parsers across all benchmarks.")
    assert not v.verified and "zero-shot" in v.reason
    assert _check(abstract, "Zero-shot generalist parsers beat domain-tuned parsers across all benchmarks.").verified


# --- listed opposites in their comparative forms (rag/verify.py graded_forms) ---------------------------------------

def test_comparative_forms_are_built_as_english_builds_them():
    from rag.verify_polarity import graded_forms

    assert graded_forms("subtle") == {"subtle", "subtler"}
    assert graded_forms("noisy") == {"noisy", "noisier"}
    assert graded_forms("big") == {"big", "bigger"}
    assert graded_forms("rich") == {"rich", "richer"}
    assert graded_forms("top-down") == {"top-down"}


def test_a_comparative_against_the_opposite_word_is_rejected():
    abstract = "As sensors get cheaper, their faults become subtler, so automated auditing matters more."
    v = _check(abstract, "As sensors get cheaper, their faults become more conspicuous, so automated auditing matters more.")
    assert not v.verified and "opposite" in v.reason
    assert _check(abstract, "As sensors get cheaper, their faults become more subtle, so automated auditing matters more.").verified


# --- "falls behind", "falls short of", "stays ahead of" as comparisons ----------------------------------------------

PROBE = ("Built on a small backbone, the probe delivers steady gains over the linear baseline and surpasses prior "
         "multi-scale fusion methods on most benchmarks.")  # fmt: skip


def test_falling_behind_what_the_abstract_says_it_surpasses_is_rejected():
    v = _check(PROBE, "The probe gives steady gains over the linear baseline but falls behind prior multi-scale fusion methods on most benchmarks.")
    assert not v.verified and "opposite" in v.reason
    assert not _check(PROBE, "The probe falls short of prior multi-scale fusion methods on most benchmarks.").verified


def test_staying_ahead_of_what_the_abstract_says_it_surpasses_is_accepted():
    assert _check(PROBE, "The probe stays ahead of prior multi-scale fusion methods on most benchmarks.").verified
