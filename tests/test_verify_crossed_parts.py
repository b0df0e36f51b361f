"""Two-part claims that mix up what two parts of the abstract say (rag/verify_binding.py crossed_parts), and the
false-rejection fixes of the fifth round, with small hand-written abstracts."""

from __future__ import annotations

from rag.verify_binding import contrast_parts, crossed_parts
from rag.verify_tokens import tokenize
from tests.support.fake_similarity import check_with_fake_similarity as _check

EVIDENCE = "Gizmo scores stay stable across sensor types for one robot, but degrade across robot bodies and gripper kinds."




def test_contrast_parts_split_at_but_and_semicolons():
    parts = contrast_parts(tokenize("Alpha holds here, but Beta fails there; Gamma is fine, and Delta stays low."))
    assert len(parts) == 4


def test_crossed_parts_finds_exchanged_arguments():
    claim = tokenize("Gizmo scores stay stable across robot bodies and gripper kinds, but degrade across sensor types.")
    found = crossed_parts(claim, contrast_parts(tokenize(EVIDENCE)), min_words=3, min_coverage=0.85)
    assert found is not None and "sensor" in " ".join(found.crossed + found.kept)


def test_crossed_parts_leaves_a_restatement_alone():
    claim = tokenize("For one robot, Gizmo scores are stable across sensor types, yet they degrade across robot bodies.")
    assert crossed_parts(claim, contrast_parts(tokenize(EVIDENCE)), min_words=3, min_coverage=0.85) is None


def test_crossed_parts_leaves_a_reordered_restatement_alone():
    claim = tokenize("Gizmo scores degrade across robot bodies and gripper kinds, while staying stable across sensor types.")
    assert crossed_parts(claim, contrast_parts(tokenize(EVIDENCE)), min_words=3, min_coverage=0.85) is None


def test_claim_with_two_parts_swapped_is_rejected_with_a_quote():
    v = _check(EVIDENCE, "Gizmo scores stay stable across robot bodies and gripper kinds, but degrade across sensor types.")
    assert not v.verified and "mixes up" in v.reason and "sensor types" in v.reason


def test_two_sentences_swapped_across_whereas_are_rejected():
    abstract = "Dense shaped rewards yield reward hacking. Sparse terminal rewards yield slow credit assignment."
    claim = "Dense shaped rewards lead to slow credit assignment, whereas sparse terminal rewards lead to reward hacking."
    v = _check(abstract, claim)
    assert not v.verified


def test_noun_guarantees_is_no_overclaim():
    abstract = "We propose Plink, which can be paired with any learner and has favorable theoretical properties."
    assert _check(abstract, "Plink can be paired with any learner and has theoretical guarantees.").verified


def test_no_a_and_no_b_stays_negated():
    abstract = "The recurrence is a fixed linear map and contains no gating unit or memory buffer."
    assert _check(abstract, "The recurrence is a fixed linear map with no gating unit and no memory buffer.").verified


def test_latex_subscript_name_and_two_letter_acronym_are_the_abstracts():
    abstract = "Losses measure error in an $\\ell_2$ geometry on five question answering benchmarks."
    assert _check(abstract, "Losses measure error in an l2 geometry on five QA benchmarks.").verified


def test_than_with_a_long_phrase_before_it_keeps_its_sides():
    abstract = "Healthy livers release far more enzyme into the blood than tumors do."
    assert not _check(abstract, "Tumors release far more enzyme into the blood than healthy livers do.").verified
    assert _check(abstract, "Healthy livers release far more enzyme into the blood than tumors.").verified


def test_comparison_subject_far_from_better_than_is_found():
    abstract = "Our probe outperforms entropy and margin baselines at ranking the riskiest samples under strong attacks."
    claim = "Entropy and margin baselines rank the riskiest samples under strong attacks better than the probe."
    assert not _check(abstract, claim).verified


def test_listed_opposites_of_this_round():
    abstract = "The lesioned models show symptom profiles largely distinct from those of human patients."
    assert not _check(abstract, "The lesioned models show symptom profiles that closely mirror those of human patients.").verified
    abstract = "Counter to the usual intuition, we find that asking early is not always better."
    assert not _check(abstract, "The study confirms the usual intuition that asking early is always better.").verified


def test_unless_against_even_without_is_rejected():
    abstract = "Tuning on the sandbox improves recall on held-out suites even with no extra labels and no teacher model."
    claim = "Tuning on the sandbox does not improve recall on held-out suites unless extra labels are added."
    v = _check(abstract, claim)
    assert not v.verified and "without" in v.reason
    assert _check(abstract, "Tuning on the sandbox improves recall on held-out suites without extra labels.").verified


def test_only_if_min_shared_is_a_setting():
    abstract = "Tuning on the sandbox improves recall even with no extra labels."
    claim = "Tuning on the sandbox improves recall only when labels are added."
    assert not _check(abstract, claim, only_if_min_shared=1).verified


def test_short_name_inside_a_longer_word_is_not_the_abstracts():
    abstract = "We evaluate the router on multiple reasoning suites."
    assert not _check(abstract, "We evaluate the router on OU reasoning suites.").verified
