"""Settings named by an affix, and 'only X' against 'X and Y' (rag/verify_scope.py, rag/verify.py's scope check)."""

from __future__ import annotations

from rag.verify_scope import affix_sibling, narrowed, setting_words
from rag.verify_tokens import tokenize
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


# --- setting phrases with words the abstract never uses -----------------------------------------------------------

def _setting(text: str) -> list[str]:
    return [t.text for t in setting_words(tokenize(text))]


def test_setting_words_are_those_after_a_setting_opener():
    assert _setting("The tracker recovers poses from noisy handheld footage.") == ["noisy", "handheld", "footage"]


def test_a_setting_phrase_ends_at_a_verb_or_a_boundary():
    assert _setting("Errors on rare object pairs are frequent, and they vanish.") == ["rare", "object", "pairs"]


def test_an_action_after_a_preposition_is_no_setting():
    assert _setting("The agent improves recall by locating files through ranking them.") == []


ROBOT_ABSTRACT = ("We present a grasp planner for a single low-cost arm. "
                  "It predicts stable grasps from one depth image of the cluttered bin.")  # fmt: skip


def test_a_setting_the_abstract_never_states_is_rejected():
    v = _check(ROBOT_ABSTRACT, "The planner predicts stable grasps from synchronized stereo rigs of the cluttered bin.")
    assert not v.verified and "setting" in v.reason and "synchronized" in v.reason


def test_the_stated_setting_in_other_order_is_accepted():
    v = _check(ROBOT_ABSTRACT, "From one depth image of the cluttered bin, the planner predicts stable grasps.")
    assert v.verified, v.reason


def test_one_new_word_in_a_setting_is_left_to_the_other_checks():
    assert _check(ROBOT_ABSTRACT, "The planner predicts stable grasps from one depth image of the messy bin.").verified
