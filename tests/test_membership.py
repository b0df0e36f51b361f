"""Which papers a list/summary/yes-no answer cites: the membership model's pure parts (rag.membership) and the pure
parts of its fitting script (eval.fit_membership). Fake evidence sentences, no index, no encoder."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eval.fit_membership import by_gold_size, choose, fit, prf, probabilities, where_lost
from rag.compose.extractive import plan_list
from rag.evidence import EvidenceSentence
from rag.membership import FEATURES, facet_similarities, member_probability, members, paper_features
from rag.policy import AnswerPolicy
from rag.text import Span


def ev(aid: str, row: int, score: float, dense: float | None = None, role: str = "contribution", bonus: float = 0.0):
    return EvidenceSentence(
        abstract_id=aid, row=row, span=Span(0, 5), text=f"{aid} sentence {row}.", score=score,
        dense=score if dense is None else dense, lexical=0.0, has_number=False, focus_share=0.0, role=role,
        role_bonus=bonus,
    )  # fmt: skip


def test_every_candidate_gets_every_feature():
    features = paper_features([ev("a", 0, 1.0), ev("b", 1, 0.8)], {"a": 0.5}, ["b", "a"], "list")
    assert set(features) == {"a", "b"}
    assert all(set(f) == set(FEATURES) for f in features.values())


def test_gaps_are_measured_from_the_best_candidate():
    features = paper_features([ev("a", 0, 1.0), ev("b", 1, 0.7)], {"a": 0.2, "b": 0.6})
    assert features["a"]["relevance_gap"] == 0.0
    assert features["b"]["relevance_gap"] == pytest.approx(0.3)
    assert features["a"]["coverage_gap"] == pytest.approx(0.4)
    assert features["b"]["coverage_gap"] == 0.0


def test_relevance_leaves_out_the_role_bonus():
    features = paper_features([ev("a", 0, 1.0, bonus=0.3)])
    assert features["a"]["relevance"] == pytest.approx(0.7)


def test_own_relevance_counts_only_what_the_work_itself_does():
    evidence = [ev("a", 0, 0.9, role="background"), ev("a", 1, 0.4, role="method"), ev("b", 2, 0.8, role="gap")]
    features = paper_features(evidence)
    assert features["a"]["own_relevance"] == pytest.approx(0.4)
    assert features["b"]["own_relevance"] == 0.0


def test_dense_mean_is_over_all_the_papers_sentences():
    features = paper_features([ev("a", 0, 1.0, dense=0.6), ev("a", 1, 0.2, dense=0.2)])
    assert features["a"]["dense_mean"] == pytest.approx(0.4)


def test_retrieval_rank_is_log_of_the_position_and_unranked_papers_come_last():
    features = paper_features([ev("a", 0, 1.0), ev("b", 1, 0.9), ev("c", 2, 0.8)], order=["b", "a"])
    assert features["b"]["retrieval_rank"] == 0.0
    assert features["a"]["retrieval_rank"] == pytest.approx(math.log(2))
    assert features["c"]["retrieval_rank"] == pytest.approx(math.log(3))


def test_shape_flags():
    assert paper_features([ev("a", 0, 1.0)], shape="summary")["a"]["summary"] == 1.0
    assert paper_features([ev("a", 0, 1.0)], shape="yes_no")["a"]["yes_no"] == 1.0
    assert paper_features([ev("a", 0, 1.0)], shape="list")["a"]["summary"] == 0.0


def test_only_the_most_relevant_candidates_are_described():
    evidence = [ev("a", 0, 0.5), ev("b", 1, 0.9), ev("c", 2, 0.7)]
    assert set(paper_features(evidence, most=2)) == {"b", "c"}


def test_no_evidence_no_features():
    assert paper_features([]) == {}


def test_probability_is_the_logistic_of_the_weighted_sum():
    assert member_probability({"x": 1.0}, {"x": 2.0}, -2.0) == pytest.approx(0.5)
    assert member_probability({"x": 3.0}, {"x": 1.0}, 0.0) == pytest.approx(1 / (1 + math.exp(-3)))
    assert member_probability({}, {"x": 5.0}, 0.0) == pytest.approx(0.5)  # a missing feature counts 0


def test_members_are_those_at_or_above_the_cut_most_probable_first():
    features = {"a": {"x": 0.0, "relevance": 1.0}, "b": {"x": 3.0, "relevance": 0.5}, "c": {"x": 1.0, "relevance": 0}}
    assert members(features, {"x": 1.0}, 0.0, 0.7, most=5) == ["b", "c"]
    assert members(features, {"x": 1.0}, 0.0, 0.7, most=1) == ["b"]


def test_when_no_paper_reaches_the_cut_the_most_relevant_one_answers():
    features = {"a": {"x": 0.0, "relevance": 0.4}, "b": {"x": 0.0, "relevance": 0.9}}
    assert members(features, {"x": 1.0}, -5.0, 0.5, most=5) == ["b"]
    assert members({}, {"x": 1.0}, 0.0, 0.5, most=5) == []


def test_plan_list_chooses_papers_by_the_model_and_keeps_their_features():
    # a fake model: a paper belongs when its whole abstract is on the question (dense_mean), whatever its best line
    policy = AnswerPolicy(list_member_weights={"dense_mean": 20.0}, list_member_bias=-10.0, list_member_cut=0.5)
    evidence = [
        ev("near", 0, 1.0, dense=0.9), ev("near", 1, 0.1, dense=0.0),  # one sentence like the question, then off it
        ev("on", 2, 0.7, dense=0.7), ev("on", 3, 0.6, dense=0.6),  # on the topic throughout
        ev("off", 4, 0.3, dense=0.3),
    ]  # fmt: skip
    plan = plan_list(evidence, policy)
    assert plan.abstract_ids == ["on"]
    assert set(plan.candidates) == {"near", "on", "off"}


def test_plan_list_without_weights_uses_the_single_score_cut():
    policy = AnswerPolicy(list_member_weights={}, list_margin=0.2, list_floor=0.0)
    evidence = [ev("a", 0, 1.0), ev("b", 1, 0.9), ev("c", 2, 0.5)]
    assert plan_list(evidence, policy).abstract_ids == ["a", "b"]


def test_named_papers_are_listed_whatever_the_model_says():
    policy = AnswerPolicy(list_member_weights={"relevance": 1.0}, list_member_bias=-100.0)
    evidence = [ev("a", 0, 1.0), ev("b", 1, 0.2)]
    assert plan_list(evidence, policy, members=["b"]).abstract_ids == ["b"]


# --- eval.fit_membership ---


def test_precision_recall_f1_and_all_cited():
    assert prf(["a", "b"], ["a", "c"]) == (0.5, 0.5, 0.5, 0.0)
    assert prf(["a"], ["a"]) == (1.0, 1.0, 1.0, 1.0)
    assert prf([], ["a"]) == (0.0, 0.0, 0.0, 0.0)


def test_the_fit_separates_a_feature_that_decides_membership():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2))
    y = (x[:, 0] > 0).astype(int)
    w, b = fit(x, y, 1.0)
    assert w[0] > abs(w[1])
    assert ((probabilities(x, w, b) >= 0.5) == y.astype(bool)).mean() > 0.9


def test_choose_applies_the_cut_per_question_as_members_does():
    relevance = FEATURES.index("relevance")
    x = np.zeros((4, len(FEATURES)))
    x[:, relevance] = [0.9, 0.5, 0.8, 0.3]
    data = {"x": x, "q": np.array([0, 0, 1, 1]), "questions": [{"ids": ["a", "b"]}, {"ids": ["c", "d"]}]}
    p = np.array([0.9, 0.6, 0.1, 0.2])
    assert choose(data, p, 0.5, most=5) == [["a", "b"], ["c"]]  # none reaches it in the second: the most relevant
    assert choose(data, p, 0.5, most=1) == [["a"], ["c"]]


def test_where_lost_tells_the_cut_the_count_limit_the_candidates_and_the_shortlist_apart():
    x = np.zeros((3, len(FEATURES)))
    x[:, FEATURES.index("relevance")] = [0.9, 0.8, 0.4]
    question = {"ids": ["a", "b", "c"], "gold": ["a", "b", "c", "d", "e"], "shortlist": ["a", "b", "c", "d"]}
    data = {"x": x, "q": np.array([0, 0, 0]), "questions": [question]}
    p = np.array([0.9, 0.8, 0.2])
    lost = where_lost(data, p, 0.5, most=1)
    assert lost == {"cited": 1, "past the count limit": 1, "below the cut": 1, "not a candidate": 1, "not shortlisted": 1}


def test_where_lost_counts_a_refused_answer_whatever_the_model_chose():
    x = np.zeros((1, len(FEATURES)))
    data = {"x": x, "q": np.array([0]), "questions": [{"ids": ["a"], "gold": ["a", "b"], "refused": True}]}
    assert where_lost(data, np.array([0.9]), 0.5, most=5) == {"refused": 2}


def test_by_gold_size_groups_questions_by_their_number_of_gold_papers():
    questions = [{"gold": ["a", "b"]}, {"gold": ["a", "b", "c"]}, {"gold": list("abcde")}]
    rows = by_gold_size({"questions": questions}, [["a", "b"], ["a"], ["a", "b", "c", "d"]])
    assert [(label, n) for label, n, *_ in rows] == [("<=2", 1), ("3", 1), (">=4", 1)]
    assert rows[2][3] == 0.8  # recall of the broad question: 4 of 5


def test_facet_features_read_each_paper_by_its_nearest_facet():
    # columns: the whole topic, then two facets; FooNet is about the first facet, BarNet about the second
    sims = {
        "foonet": np.array([[0.5, 0.8, 0.1], [0.3, 0.2, 0.0]]),
        "barnet": np.array([[0.4, 0.1, 0.6]]),
        "quux": np.array([[0.2, 0.3, 0.2]]),
    }
    facets = facet_similarities(sims)
    assert facets["foonet"] == pytest.approx({"facet_relevance": 0.8, "facet_gap": 0.0, "own_facet_relevance": 0.0})
    assert facets["barnet"] == pytest.approx({"facet_relevance": 0.6, "facet_gap": 0.0, "own_facet_relevance": 0.0})  # best on its own facet
    assert facets["quux"] == pytest.approx({"facet_relevance": 0.3, "facet_gap": 0.3, "own_facet_relevance": 0.0})
    assert facet_similarities({}) == {}


def test_paper_features_take_the_facet_features_given_else_none_near():
    features = paper_features(
        [ev("a", 0, 1.0), ev("b", 1, 0.8)], facets={"a": {"facet_relevance": 0.7, "facet_gap": 0.0}}
    )
    assert features["a"]["facet_relevance"] == 0.7 and features["a"]["facet_gap"] == 0.0
    assert features["b"]["facet_relevance"] == 0.0 and features["b"]["facet_gap"] == 1.0


def test_own_facet_relevance_reads_only_the_sentences_about_the_work_itself():
    # FooNet names the topic in its setting ("existing quux methods ...") and does something else; BarNet's own
    # contribution is about it
    sims = {"foonet": np.array([[0.9], [0.2]]), "barnet": np.array([[0.3], [0.7]]), "zednet": np.array([[0.5]])}
    own = {"foonet": [False, True], "barnet": [False, True], "zednet": [False]}
    facets = facet_similarities(sims, own)
    assert facets["foonet"]["facet_relevance"] == 0.9 and facets["foonet"]["own_facet_relevance"] == 0.2
    assert facets["barnet"]["own_facet_relevance"] == 0.7
    assert facets["zednet"]["own_facet_relevance"] == 0.0  # no sentence about its own work

