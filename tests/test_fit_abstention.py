"""Unit tests for eval/fit_abstention.py's pure parts (made-up feature values, not eval questions)."""

from __future__ import annotations

import numpy as np
import pytest

from eval.fit_abstention import fit_weights, pick_threshold, rewrite_defaults, scores_of, trade_off


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
