"""Unit tests for rag/abstain.py: the abstention decision from measured signals."""

from __future__ import annotations

import pytest

from rag.abstain import DENSE_FLOOR, AbstentionSignals, decide


def test_answerable_by_default():
    assert decide(AbstentionSignals(kind="general")) == (False, "")


def test_unknown_term_abstains_and_names_it():
    abstain, reason = decide(AbstentionSignals(kind="general", unknown_terms=("GPT-7",)))
    assert abstain
    assert reason == "No abstract mentions “GPT-7”."


def test_several_unknown_terms_are_all_named():
    _, reason = decide(AbstentionSignals(kind="name", unknown_terms=("FooNet", "BarSet")))
    assert reason == "No abstract mentions “FooNet”, “BarSet”."


def test_unknown_terms_abstain_even_for_list_questions():
    assert decide(AbstentionSignals(kind="list", unknown_terms=("FooNet",)))[0]


def test_unknown_terms_take_precedence_over_other_signals():
    signals = AbstentionSignals(
        kind="number", unknown_terms=("X1",), terms_missing_from_answer=("Y2",), best_dense=0.0, number_evidence=False
    )
    assert decide(signals) == (True, "No abstract mentions “X1”.")


@pytest.mark.parametrize("kind", ["general", "name", "number"])
def test_term_missing_from_answering_abstract_abstains(kind):
    abstain, reason = decide(AbstentionSignals(kind=kind, terms_missing_from_answer=("LoRA",)))
    assert abstain
    assert reason == "The most relevant abstract does not mention “LoRA”."


def test_term_missing_from_answer_is_ignored_for_list_questions():
    assert decide(AbstentionSignals(kind="list", terms_missing_from_answer=("LoRA",))) == (False, "")


def test_number_question_without_number_evidence_abstains():
    assert decide(AbstentionSignals(kind="number", number_evidence=False)) == (
        True,
        "No abstract states the number asked for.",
    )


@pytest.mark.parametrize("kind", ["general", "name", "list"])
def test_missing_number_evidence_only_matters_for_number_questions(kind):
    assert decide(AbstentionSignals(kind=kind, number_evidence=False)) == (False, "")


def test_missing_term_reason_wins_over_number_evidence():
    _, reason = decide(AbstentionSignals(kind="number", terms_missing_from_answer=("A100",), number_evidence=False))
    assert "does not mention “A100”" in reason


def test_low_similarity_abstains():
    assert decide(AbstentionSignals(kind="general", best_dense=DENSE_FLOOR - 0.01)) == (
        True,
        "No abstract is close enough to the question.",
    )


def test_similarity_at_floor_answers():
    assert decide(AbstentionSignals(kind="general", best_dense=DENSE_FLOOR)) == (False, "")


def test_low_similarity_applies_to_list_questions_too():
    assert decide(AbstentionSignals(kind="list", best_dense=0.0))[0]


def test_number_evidence_reason_wins_over_low_similarity():
    _, reason = decide(AbstentionSignals(kind="number", number_evidence=False, best_dense=0.0))
    assert reason == "No abstract states the number asked for."


def test_signals_reasons_default_is_not_shared():
    a, b = AbstentionSignals(kind="general"), AbstentionSignals(kind="general")
    a.reasons.append("x")
    assert b.reasons == []


def test_name_question_whose_answer_never_mentions_the_asked_thing_abstains():
    abstain, reason = decide(AbstentionSignals(kind="name", focus_in_answer=0.0))
    assert abstain and "does not mention" in reason


def test_name_question_with_some_focus_words_answers():
    assert decide(AbstentionSignals(kind="name", focus_in_answer=0.5)) == (False, "")
