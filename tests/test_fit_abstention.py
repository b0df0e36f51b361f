"""Unit tests for eval/fit_abstention.py's pure parts (made-up feature values, not eval questions)."""

from __future__ import annotations

import numpy as np
import pytest

from eval.fit_abstention import (
    balanced_log_loss as fit_loss,
)
from eval.fit_abstention import (
    chain_groups,
    cross_validate,
    fit_weights,
    held_out,
    out_of_fold_scores,
    pick_threshold,
    rewrite_defaults,
    scores_of,
    trade_off,
)


def test_fitted_weights_separate_a_signal_that_predicts_abstention():
    x = np.array([[0.0], [0.0], [0.1], [1.0], [0.9], [1.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    w, b = fit_weights(x, y, ["unknown"], c=100.0)
    s = scores_of(x, w, b)
    assert w[0] > 0 and s[y == 1].min() > s[y == 0].max()


def test_a_non_negative_signal_is_never_fitted_to_argue_for_answering():
    x = np.array([[1.0], [1.0], [0.0], [0.0]])
    y = np.array([0, 0, 1, 1])  # the signal is anti-correlated with abstaining
    w, _ = fit_weights(x, y, ["unknown"], c=100.0)
    assert w[0] == pytest.approx(0.0, abs=1e-9)
    free, _ = fit_weights(x, y, ["list_shape"], c=100.0)
    assert free[0] < 0


def test_fitting_needs_both_classes():
    with pytest.raises(ValueError, match="both"):
        fit_weights(np.zeros((3, 1)), np.zeros(3), ["unknown"])


def test_trade_off_counts_each_class_at_each_threshold():
    scores = np.array([0.1, 0.4, 0.6, 0.9])
    labels = np.array([0, 0, 1, 1])
    assert trade_off(scores, labels, [0.5]) == [(0.5, 1.0, 0.0)]
    assert trade_off(scores, labels, [0.3]) == [(0.3, 1.0, 0.5)]


def test_threshold_keeps_false_abstention_under_the_ceiling():
    scores = np.array([0.1, 0.2, 0.7, 0.5, 0.8, 0.9])
    labels = np.array([0, 0, 0, 1, 1, 1])
    t = pick_threshold(scores, labels, max_false=0.0)
    assert 0.7 < t <= 0.8  # above the highest answerable score, catching the two high unanswerables
    loose = pick_threshold(scores, labels, max_false=0.34)
    assert 0.2 < loose <= 0.5  # one false abstention allowed: every unanswerable is caught


def test_rewrite_defaults_changes_only_the_named_fields():
    source = (
        "class P:\n    a: float = Field(default=1.00, description='x')\n"
        "    b: float = Field(\n        default=-2.50,\n        ge=0,\n    )\n    c: float = Field(default=3.0)\n"
    )
    out = rewrite_defaults(source, {"a": 0.5, "b": 1.234})
    assert "a: float = Field(default=0.50," in out
    assert "default=1.23," in out
    assert "c: float = Field(default=3.0)" in out
    with pytest.raises(ValueError, match="zzz"):
        rewrite_defaults(source, {"zzz": 1.0})


# --- cross-validated threshold (made-up features) ---


def _separable(n: int = 40, seed: int = 1):
    rng = np.random.default_rng(seed)
    y = np.array([0, 1] * (n // 2))
    x = np.where(y[:, None] == 1, rng.uniform(0.6, 1.0, (n, 1)), rng.uniform(0.0, 0.4, (n, 1)))
    return x, y, [f"id:{i}" for i in range(n)]


def _noisy(n: int = 160, d: int = 12, seed: int = 3):
    """One weak real signal and many pure-noise ones: a fit on all rows over-trusts the noise."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    x = rng.random((n, d))
    x[:, 0] = 0.6 * y + rng.normal(0.0, 0.5, n)
    return x, y, [f"id:{i}" for i in range(n)]


class _FakeQuestion:  # a stand-in for eval.questions.Question: only id and history are read
    def __init__(self, qid: str, history: tuple[str, ...] = ()):
        self.id, self.history = qid, history


def test_a_follow_up_chain_is_one_group_and_a_lone_question_its_own():
    questions = [
        _FakeQuestion("a", ("Which paper does X?",)),
        _FakeQuestion("b", ("which paper does x? ",)),
        _FakeQuestion("c"),
        _FakeQuestion("d"),
    ]
    groups = chain_groups(questions)
    assert groups[0] == groups[1]
    assert len(set(groups)) == 3


def test_out_of_fold_scores_never_use_a_question_to_score_itself():
    x, y, groups = _separable()
    scores, labels = out_of_fold_scores(x, y, groups, ["unknown"], 100.0, folds=4, repeats=2)
    assert len(scores) == 2 * len(y) and (labels == np.concatenate([y, y])).all()
    # a separable toy stays separable out of fold
    assert scores[labels == 1].min() > scores[labels == 0].max()


def test_folds_keep_a_follow_up_chain_together(monkeypatch):
    import eval.fit_abstention as fit

    x, y, _ = _noisy(n=60)
    x[:, 0] = np.arange(60)  # the row number, so a fake fit can see which rows it was given
    y = np.repeat(y[::3], 3)  # chains of three share their label
    groups = [f"chain:{i // 3}" for i in range(60)]
    fitted_on: list[set[int]] = []

    def fake_fit(features, labels, names, c):  # a fake: records the rows and returns a zero model
        fitted_on.append({int(r) for r in features[:, 0]})
        return np.zeros(features.shape[1]), 0.0

    monkeypatch.setattr(fit, "fit_weights", fake_fit)
    fit.out_of_fold_scores(x, y, groups, ["unknown"] * x.shape[1], 1.0, folds=5, repeats=1)
    assert len(fitted_on) == 5
    for rows in fitted_on:
        chains = {r // 3 for r in rows}
        assert all({3 * k, 3 * k + 1, 3 * k + 2} <= rows for k in chains)  # a chain is fitted on whole or not at all
        assert len(rows) < 60


def test_cross_validation_is_reproducible_with_a_fixed_seed():
    x, y, groups = _noisy()
    first = cross_validate(x, y, groups, ["unknown"] * x.shape[1], [1.0, 10.0], 0.05, folds=5, repeats=2, seed=7)
    second = cross_validate(x, y, groups, ["unknown"] * x.shape[1], [1.0, 10.0], 0.05, folds=5, repeats=2, seed=7)
    assert (first.c, first.threshold) == (second.c, second.threshold)
    assert np.array_equal(first.scores, second.scores)


def test_on_a_separable_toy_cross_validation_loses_nothing():
    x, y, groups = _separable()
    # a signal fitted freely (a name signal is bounded: NO_VETO)
    cv = cross_validate(x, y, groups, ["focus"], [10.0, 100.0], 0.0, folds=4, repeats=2)
    assert cv.abstains == 1.0 and cv.false == 0.0


def test_on_a_noisy_toy_the_in_sample_threshold_is_looser_than_the_cross_validated_one():
    x, y, groups = _noisy()
    names = ["unknown"] * x.shape[1]
    w, b = fit_weights(x, y, names, 100.0)
    in_sample = scores_of(x, w, b)
    naive = pick_threshold(in_sample, y, 0.05)
    cv = cross_validate(x, y, groups, names, [100.0], 0.05, folds=5, repeats=3)
    # the in-sample pick keeps its ceiling on the rows it was fitted on, but breaks it out of fold ...
    assert trade_off(in_sample, y, [naive])[0][2] <= 0.05
    assert trade_off(cv.scores, cv.labels, [naive])[0][2] > 0.05
    # ... while the cross-validated pick keeps it out of fold, by abstaining more cautiously
    assert cv.false <= 0.05 and cv.threshold > naive


def test_ties_between_strengths_go_to_the_stronger_regularisation(monkeypatch):
    import eval.fit_abstention as fit

    x, y, groups = _separable()
    monkeypatch.setattr(fit, "out_of_fold_scores", lambda f, labels, *a, **k: (np.where(labels == 1, 0.8, 0.2), labels))
    assert fit.cross_validate(x, y, groups, ["unknown"], [100.0, 10.0], 0.0).c == 10.0  # a fake: same scores


def test_the_strength_with_the_lower_out_of_fold_log_loss_is_chosen(monkeypatch):
    import eval.fit_abstention as fit

    y = np.array([0] * 30 + [1] * 10)

    def fake_scores(features, labels, groups, names, c, **_):  # a fake: C=1 is confidently right, C=100 hedges
        sure = 0.95 if c == 1.0 else 0.6
        return np.where(labels == 1, sure, 1 - sure), labels

    monkeypatch.setattr(fit, "out_of_fold_scores", fake_scores)
    cv = fit.cross_validate(np.zeros((40, 1)), y, [f"id:{i}" for i in range(40)], ["unknown"], [100.0, 1.0], 0.05)
    assert cv.c == 1.0 and cv.log_loss < cv.per_c[1][4]
    assert [row[0] for row in cv.per_c] == [1.0, 100.0]


def test_balanced_log_loss_weighs_the_classes_equally():
    # one unanswerable among many answerable: its loss counts as much as all of theirs together
    labels = np.array([0, 0, 0, 1])
    assert fit_loss(np.array([0.5, 0.5, 0.5, 0.5]), labels) == pytest.approx(np.log(2))
    assert fit_loss(np.array([0.1, 0.1, 0.1, 0.1]), labels) == pytest.approx((np.log(10) - np.log(0.9)) / 2)


def test_an_empty_grid_is_an_error():
    x, y, groups = _separable()
    with pytest.raises(ValueError, match="empty"):
        cross_validate(x, y, groups, ["unknown"], [], 0.05)


def test_a_held_out_set_is_scored_by_a_fit_that_never_saw_it():
    x, y, groups = _separable()
    held = np.zeros(len(y), dtype=bool)
    held[[0, -1]] = True  # one answerable and one unanswerable question of the toy
    out = held_out(x, y, groups, ["unknown"], held, [10.0], 0.0, folds=3, repeats=1)
    assert (out.size, out.unanswerable) == (2, 1)
    assert out.abstains == 1.0 and out.false == 0.0
    assert np.array_equal(out.labels, y[held]) and len(out.scores) == 2


def test_holding_out_nothing_or_everything_is_an_error():
    x, y, groups = _separable()
    for held in (np.zeros(len(y), dtype=bool), np.ones(len(y), dtype=bool)):
        with pytest.raises(ValueError):
            held_out(x, y, groups, ["unknown"], held, [10.0], 0.05)


# --- leave one writer set out (made-up IDs and scores) ---


def test_a_writer_set_is_the_ids_leading_letters_and_the_team_is_one_set():
    from eval.questions import writer_set, writer_sets

    assert writer_set("x012") == "x"
    assert writer_set("zz7") == "zz"
    assert writer_set("Y3") == "y"
    assert writer_sets(["p1", "r22", "w3", "w4"], team=("p", "r")) == ["team", "team", "w", "w"]


def test_set_weights_make_every_set_and_class_weigh_the_same():
    from eval.fit_abstention import balanced_weights

    labels = np.array([0, 0, 0, 1, 0, 1, 1, 1])
    sets = ["a", "a", "a", "a", "b", "b", "b", "b"]
    w = balanced_weights(labels, sets)
    assert w.mean() == pytest.approx(1.0)
    cells = {(g, k): w[(np.array(sets) == g) & (labels == k)].sum() for g in "ab" for k in (0, 1)}
    assert len({round(v, 9) for v in cells.values()}) == 1  # four cells, one total each
    plain = balanced_weights(labels)  # without sets: the classes only
    assert plain[labels == 0].sum() == pytest.approx(plain[labels == 1].sum())


def test_a_dropped_feature_keeps_weight_zero():
    x = np.array([[0.0, 1.0], [0.1, 0.0], [1.0, 1.0], [0.9, 0.0]])
    y = np.array([0, 0, 1, 1])
    w, _ = fit_weights(x, y, ["unknown", "linked"], c=100.0, drop=("unknown",))
    assert w[0] == 0.0


def test_leave_one_set_out_scores_a_set_by_a_fit_that_never_saw_it(monkeypatch):
    import eval.fit_abstention as fit

    x = np.arange(9, dtype=float)[:, None]  # the row number, so a fake fit can see which rows it was given
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0])
    sets = ["a", "a", "a", "b", "b", "b", "c", "c", "c"]
    seen: list[set[int]] = []

    def fake_fit(features, labels, names, c, **_):  # a fake: records the rows and returns a zero model
        seen.append({int(r) for r in features[:, 0]})
        return np.zeros(features.shape[1]), 0.0

    monkeypatch.setattr(fit, "fit_weights", fake_fit)
    scores, folds = fit.leave_one_set_out(x, y, sets, ["unknown"], 1.0)
    assert seen == [{3, 4, 5, 6, 7, 8}, {0, 1, 2, 6, 7, 8}, {0, 1, 2, 3, 4, 5}]
    assert list(folds) == ["a", "b", "c"] and len(scores) == 9


def test_per_set_rates_count_each_set_apart():
    from eval.fit_abstention import per_set_rates

    scores = np.array([0.9, 0.2, 0.8, 0.9, 0.1, 0.6])
    labels = np.array([1, 0, 0, 1, 1, 0])
    sets = ["a", "a", "a", "b", "b", "b"]
    assert per_set_rates(scores, labels, sets, 0.7) == {"a": (1.0, 0.5), "b": (0.5, 0.0)}


def test_the_set_threshold_keeps_the_mean_set_false_abstention_under_the_ceiling():
    from eval.fit_abstention import pick_threshold_by_set, set_trade_off

    # set a: its answerable questions score low; set b: one answerable question scores 0.7
    scores = np.array([0.1, 0.2, 0.8, 0.9, 0.3, 0.7, 0.6, 0.95])
    labels = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    sets = ["a"] * 4 + ["b"] * 4
    t = pick_threshold_by_set(scores, labels, sets, max_false=0.0)
    assert 0.7 < t <= 0.8  # above b's answerable 0.7: catches a's two and b's 0.95, not b's 0.6
    assert set_trade_off(scores, labels, sets, [t]) == [(t, 0.75, 0.0)]
    # a ceiling of 0.25 tolerates b's false abstention (mean over sets 0.25): 0.6 is caught too
    loose = pick_threshold_by_set(scores, labels, sets, max_false=0.25)
    assert 0.3 < loose <= 0.6


def test_a_margin_counts_the_spread_of_false_abstention_across_sets():
    from eval.fit_abstention import set_trade_off

    scores = np.array([0.1, 0.9, 0.9, 0.9, 0.1, 0.9])
    labels = np.array([0, 1, 0, 1, 0, 1])
    sets = ["a", "a", "b", "b", "c", "c"]  # false abstention per set: 0, 1, 0
    ((_, _, mean),) = set_trade_off(scores, labels, sets, [0.5])
    ((_, _, bound),) = set_trade_off(scores, labels, sets, [0.5], margin=1.0)
    assert mean == pytest.approx(1 / 3)
    assert bound == pytest.approx(1 / 3 + np.std([0, 1, 0], ddof=1))


def test_a_weight_that_flips_sign_or_swings_across_folds_is_unstable():
    from eval.fit_abstention import unstable_features

    folds = np.array(
        [
            [2.0, 0.5, 0.0, 0.0, 0.0],
            [2.2, -0.4, 0.0, 0.0, 0.0],
            [1.9, 0.6, 0.0, 3.0, 0.0],
        ]
    )
    names = ["steady", "flips", "zero", "swings", "also_zero"]
    assert unstable_features(folds, names) == ("flips", "swings")


def test_choosing_by_sets_needs_three_sets_and_a_grid():
    from eval.fit_abstention import choose_by_sets

    x, y, _ = _separable()
    with pytest.raises(ValueError, match="three"):
        choose_by_sets(x, y, ["a", "b"] * (len(y) // 2), ["unknown"], [1.0], 0.05)
    with pytest.raises(ValueError, match="empty"):
        choose_by_sets(x, y, ["a", "b", "c", "d"] * (len(y) // 4), ["unknown"], [], 0.05)


def test_on_separable_sets_the_set_choice_loses_nothing():
    from eval.fit_abstention import choose_by_sets

    x, y, _ = _separable()
    sets = [f"s{i % 4}" for i in range(len(y))]
    choice = choose_by_sets(x, y, sets, ["unknown"], [10.0, 100.0], 0.0)
    assert (choice.abstains, choice.false) == (1.0, 0.0)
    assert len(choice.candidates) >= 4  # two strengths x two weightings (a feature dropped only if unstable)


def test_a_nested_run_never_shows_a_procedure_the_set_it_is_scored_on():
    from eval.fit_abstention import nested_by_set

    x = np.array([[0.0], [1.0], [0.0], [1.0], [0.0], [1.0]])
    y = np.array([0, 1, 0, 1, 0, 1])
    sets = ["a", "a", "b", "b", "c", "c"]
    given: list[list[str]] = []

    def fake_procedure(features, labels, kept):  # a fake: remembers the sets it was given, then a fixed model
        given.append(sorted(set(kept)))
        return np.array([4.0]), -2.0, 0.5

    out = nested_by_set(x, y, sets, fake_procedure)
    assert given == [["b", "c"], ["a", "c"], ["a", "b"]]
    assert out == {"a": (1.0, 0.0, 0.5), "b": (1.0, 0.0, 0.5), "c": (1.0, 0.0, 0.5)}


def test_held_out_false_abstentions_are_counted_under_their_strongest_signal():
    from eval.fit_abstention import misfires_by_signal

    x = np.array([[1.0, 0.2], [0.1, 1.0], [1.0, 1.0], [0.0, 0.0]])
    y = np.array([0, 0, 1, 0])
    sets = ["a", "b", "b", "a"]
    folds = {"a": np.array([3.0, 1.0]), "b": np.array([1.0, 2.0])}
    scores = np.array([0.9, 0.8, 0.99, 0.1])  # the last answerable question is answered
    found = misfires_by_signal(x, y, sets, ["one", "two"], folds, scores, 0.5)
    assert found == {"one": {"a": 1}, "two": {"b": 1}}


def test_a_list_offset_moves_only_the_listed_rows_log_odds():
    from eval.fit_abstention import shift_scores, with_list_offset

    scores = np.array([0.5, 0.5, 0.8])
    listed = np.array([True, False, True])
    shifted = shift_scores(scores, listed, -1.0)
    assert shifted[1] == pytest.approx(0.5)
    assert shifted[0] == pytest.approx(1 / (1 + np.e))
    assert shifted[2] < 0.8
    assert list(with_list_offset(np.array([1.0, 2.0]), ["unknown", "list_shape"], -0.5)) == [1.0, 1.5]
    assert list(with_list_offset(np.array([1.0]), ["unknown"], -0.5)) == [1.0]  # no list-shape feature: unchanged


def _list_heavy():
    """Three sets; in each, single-paper questions (answerable 0.1, 0.2; unanswerable 0.5, 0.55) and list questions
    scored higher throughout (answerable 0.8, 0.3; unanswerable 0.97, 0.9): one threshold refusing every
    unanswerable question also refuses the list question at 0.8."""
    scores, labels, listed, sets = [], [], [], []
    for g in ("a", "b", "c"):
        scores += [0.1, 0.2, 0.5, 0.55, 0.8, 0.3, 0.97, 0.9]
        labels += [0, 0, 1, 1, 0, 0, 1, 1]
        listed += [False] * 4 + [True] * 4
        sets += [g] * 8
    return np.array(scores), np.array(labels), np.array(listed), sets


def test_a_list_offset_keeps_list_questions_false_abstention_under_their_ceiling():
    from eval.fit_abstention import pick_threshold_and_offset, set_trade_off, shift_scores

    scores, labels, listed, sets = _list_heavy()
    # overall, a quarter of answerable questions may be refused: unshifted, the list question at 0.8 is
    t, offset = pick_threshold_and_offset(scores, labels, sets, listed, max_false=0.25, max_false_list=0.0)
    assert offset < 0
    shifted = shift_scores(scores, listed, offset)
    list_sets = [g for g, m in zip(sets, listed, strict=True) if m]
    ((_, _, list_false),) = set_trade_off(shifted[listed], labels[listed], list_sets, [t])
    ((_, abstains, false),) = set_trade_off(shifted, labels, sets, [t])
    assert list_false == 0.0 and false == 0.0
    assert abstains == 1.0  # every unanswerable question is still refused
    assert -2.0 < offset < -1.3  # the smallest shift that does it: 0.8 moved under the single questions' 0.5


def test_no_list_offset_when_list_questions_already_meet_their_ceiling():
    from eval.fit_abstention import pick_threshold_and_offset, pick_threshold_by_set

    scores, labels, listed, sets = _list_heavy()
    t, offset = pick_threshold_and_offset(scores, labels, sets, listed, max_false=0.25, max_false_list=0.5)
    assert offset == 0.0
    assert t == pick_threshold_by_set(scores, labels, sets, 0.25)
    # no list question at all: the plain threshold
    assert pick_threshold_and_offset(scores, labels, sets, np.zeros(len(sets), bool), 0.25, 0.0)[1] == 0.0


def test_a_signal_for_answering_is_never_fitted_to_argue_for_abstaining():
    # made-up data where the name-spelt-exactly flag happens to come with unanswerable questions
    x = np.array([[1.0], [1.0], [1.0], [0.0], [0.0], [1.0]])
    y = np.array([1, 1, 0, 0, 0, 1])
    weights, _ = fit_weights(x, y, ["linked"], c=10.0)
    assert weights[0] <= 0.0


def test_a_missing_or_unknown_name_alone_never_outweighs_the_bias():
    # made-up data where a missing name nearly always comes with an unanswerable question: fitted freely, its weight
    # alone would refuse; held at minus the bias plus the log-odds of 0.3, that name alone leaves the question under any threshold
    rng = np.random.default_rng(0)
    missing = rng.integers(0, 2, 200).astype(float)
    similarity = rng.normal(0.0, 1.0, 200)
    y = ((missing + 0.3 * similarity + rng.normal(0.0, 0.2, 200)) > 0.8).astype(int)
    x = np.column_stack([missing, similarity])
    for name in ("missing", "unknown"):
        weights, bias = fit_weights(x, y, [name, "similarity"], c=30.0)
        assert 0.0 < weights[0] <= -bias + np.log(0.3 / 0.7) + 1e-6  # alone: a score of at most 0.3
    free, free_bias = fit_weights(x, y, ["focus", "similarity"], c=30.0)  # not a name signal: fitted freely
    assert free[0] > -free_bias
