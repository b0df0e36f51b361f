"""Unit tests for the abstention signals by meaning in rag/abstain.py (made-up vectors and sentences; a fake encoder
is not needed: the functions take vectors)."""

from __future__ import annotations

import numpy as np

from rag.abstain import (
    AbstentionSignals,
    abstention_score,
    nearest_similarity,
    question_phrases,
    sentence_focus,
    soft_coverage,
)
from rag.policy import AnswerPolicy
from rag.text import content_words

GENERIC = frozenset(content_words("approach approaches"))


def test_phrases_are_runs_of_content_words_split_at_stop_words():
    assert question_phrases("What learning rate and batch size were used?", set(), set()) == [
        "learning rate",
        "batch size",
    ]


def test_phrases_leave_out_the_linked_names_and_split_at_them():
    skip = {"zorbnet", *content_words("ZorbNet")}
    assert question_phrases("which optimizer does ZorbNet train with", skip, GENERIC) == ["optimizer", "train"]


def test_phrases_leave_out_runs_of_generic_words_only():
    assert question_phrases("which approaches study graph pooling", set(), GENERIC) == ["study graph pooling"]


def test_no_phrases_in_a_question_of_stop_words():
    assert question_phrases("what is it?", set(), set()) == []


def test_nearest_similarity_is_the_best_cosine_per_vector():
    sentences = np.array([[1.0, 0.0], [0.0, 2.0]])
    got = nearest_similarity(np.array([[3.0, 0.0], [1.0, 1.0]]), sentences)
    assert np.allclose(got, [1.0, np.sqrt(0.5)])


def test_nearest_similarity_without_sentences_is_zero():
    assert np.allclose(nearest_similarity(np.array([[1.0, 0.0]]), np.zeros((0, 2))), [0.0])


def test_a_phrase_stated_by_the_abstract_is_near_and_one_stated_elsewhere_is_far():
    own = np.array([[1.0, 0.0, 0.0]])
    other = np.array([[0.0, 1.0, 0.0]])
    stated = soft_coverage(np.array([[1.0, 0.0, 0.0]]), np.zeros((0, 3)), [], own, other)
    elsewhere = soft_coverage(np.array([[0.0, 1.0, 0.0]]), np.zeros((0, 3)), [], own, other)
    assert stated[0] < 1e-6 and stated[1] == 0.0
    assert elsewhere[0] > 0.99 and elsewhere[1] > 0.99


def test_the_least_covered_phrase_decides_phrase_far():
    own = np.array([[1.0, 0.0]])
    far, _, _ = soft_coverage(np.array([[1.0, 0.0], [0.0, 1.0]]), np.zeros((0, 2)), [], own, np.zeros((0, 2)))
    assert far > 0.99


def test_words_far_weighs_rare_words_more():
    own = np.array([[1.0, 0.0]])
    words = np.array([[1.0, 0.0], [0.0, 1.0]])  # the first word is stated, the second is not
    _, _, rare_missing = soft_coverage(np.zeros((0, 2)), words, [1.0, 3.0], own, np.zeros((0, 2)))
    _, _, common_missing = soft_coverage(np.zeros((0, 2)), words, [3.0, 1.0], own, np.zeros((0, 2)))
    assert rare_missing > common_missing


def test_soft_coverage_with_nothing_to_compare_is_neutral():
    assert soft_coverage(np.zeros((0, 2)), np.zeros((0, 2)), [], np.zeros((0, 2)), np.zeros((0, 2))) == (0.0, 0.0, 0.0)


def test_sentence_focus_is_high_when_one_sentence_stands_out():
    question = np.array([1.0, 0.0, 0.0])
    one_on_topic = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    all_alike = np.array([[0.9, 0.1, 0.0], [0.9, 0.0, 0.1], [0.9, 0.05, 0.05]])
    assert sentence_focus(question, one_on_topic) > sentence_focus(question, all_alike)
    assert sentence_focus(question, np.zeros((0, 3))) == 0.0


def test_meaning_signals_never_lower_the_score_when_weighted_non_negative():
    policy = AnswerPolicy(w_phrase_far=1.0, w_phrase_elsewhere=1.0, w_words_far=1.0)
    clear = AbstentionSignals(linked_exact=True, best_dense=0.7)
    for field in ("phrase_far", "phrase_elsewhere", "words_far"):
        changed = AbstentionSignals(linked_exact=True, best_dense=0.7, **{field: 0.8})
        assert abstention_score(changed, policy) > abstention_score(clear, policy)
