"""Settings named by an affix, and 'only X' against 'X and Y' (rag/verify_scope.py, rag/verify.py's scope check)."""

from __future__ import annotations

from rag.verify_scope import affix_sibling, narrowed
from tests.support.fake_similarity import check_with_fake_similarity as _check


def test_prefix_siblings_name_another_setting():
    assert affix_sibling("single-hop", ["we", "answer", "multi-hop", "questions"]) == "multi-hop"
    assert affix_sibling("unimodal", ["multimodal"]) == "multimodal"
    assert affix_sibling("pre-trained", ["post-training"]) == "post-training"
    assert affix_sibling("in-domain", ["cross-domain"]) == "cross-domain"


def test_suffix_siblings_name_another_setting():
    assert affix_sibling("class-agnostic", ["class-specific"]) == "class-specific"
    assert affix_sibling("planner-free", ["planner-based"]) == "planner-based"


def test_the_same_word_or_an_unrelated_one_is_no_sibling():
    assert affix_sibling("multi-hop", ["multi-hop", "single-hop"]) is None
    assert affix_sibling("multi-hop", ["multi-head"]) is None
    assert affix_sibling("one", ["few"]) is None  # too short to be a setting
    assert affix_sibling("universal", ["university"]) is None


def test_a_claim_with_the_sibling_setting_is_rejected():
    abstract = "We evaluate the retriever on multi-hop questions over encyclopedic articles."
    v = _check(abstract, "The retriever is evaluated on single-hop questions over encyclopedic articles.")
    assert not v.verified and "multi-hop" in v.reason


def test_only_x_where_the_abstract_says_x_and_y_is_narrowed():
    assert narrowed("tested only on simulated robots".split(), "tests on simulated and physical robots".split()) == (
        "simulated", "physical")
    assert narrowed("tested on simulated and physical robots".split(), "tests on simulated and physical robots".split()) is None
    assert narrowed("only requires one image".split(), "requires only one image and a mask".split()) is None


def test_a_claim_narrowing_the_evidence_is_rejected():
    abstract = "The grasp planner is tested on simulated and physical robot arms."
    v = _check(abstract, "The grasp planner is tested only on simulated robot arms.")
    assert not v.verified and "not only simulated" in v.reason
    assert _check(abstract, "The grasp planner is tested on simulated and physical robot arms.").verified
