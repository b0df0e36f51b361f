"""Fit the abstention weights and threshold on the dev split only.

Asks every question of one split (follow-ups after their history, as `rag eval` does), records the abstention
features of each answer (`Answer.abstention_features`), fits a class-balanced, L2-regularised logistic regression with
sign constraints (a signal that argues for abstaining may not be fitted to argue against it), and picks the threshold
that abstains most on unanswerable questions while keeping false abstention at or under a ceiling. Prints the
trade-off curve and the fitted values as ``RAG_ANSWER__*`` settings; with ``--write`` it also rewrites the defaults
in ``rag/policy.py``.

    python -m eval.fit_abstention [--split dev,regression] [--max-false 0.05] [--C 10] [--write]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from rag.abstain import WEIGHTS

# Signals that can only argue for abstaining: their weights are fitted non-negative. The others are free.
NON_NEGATIVE = frozenset(
    {
        "unknown", "missing", "focus", "number", "topic", "topic_unknown", "similarity", "phrase", "topic_unknown_list",
        "garbled", "similarity_list", "names_missing",
    }
)  # fmt: skip
POLICY_FILE = Path(__file__).resolve().parents[1] / "rag" / "policy.py"


def fit_weights(
    features: np.ndarray, labels: np.ndarray, names: Sequence[str], c: float = 10.0
) -> tuple[np.ndarray, float]:
    """Weights and bias minimising class-balanced log-loss + ||w||² / (2·C·n), under the sign constraints.

    labels: 1 = should abstain (unanswerable), 0 = should answer.
    """
    x = np.asarray(features, dtype=float)
    y = np.asarray(labels, dtype=float)
    n, d = x.shape
    if not (0 < y.sum() < n):
        raise ValueError("need both answerable and unanswerable questions to fit abstention")
    sample = np.where(y == 1, n / (2 * y.sum()), n / (2 * (n - y.sum())))  # balanced classes

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = params[:d], params[d]
        z = x @ w + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))
        # log(1 + e^z) - y·z, written stably
        value = float(np.sum(sample * (np.logaddexp(0.0, z) - y * z)) / n + w @ w / (2 * c * n))
        residual = sample * (p - y) / n
        grad = np.concatenate([x.T @ residual + w / (c * n), [residual.sum()]])
        return value, grad

    bounds = [(0.0, None) if name in NON_NEGATIVE else (None, None) for name in names] + [(None, None)]
    result = minimize(loss, np.zeros(d + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    return result.x[:d], float(result.x[d])


def scores_of(features: np.ndarray, weights: np.ndarray, bias: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(np.asarray(features, dtype=float) @ weights + bias, -40, 40)))


def trade_off(scores: np.ndarray, labels: np.ndarray, thresholds: Sequence[float]) -> list[tuple[float, float, float]]:
    """(threshold, share of unanswerable abstained on, share of answerable wrongly abstained on) per threshold."""
    s, y = np.asarray(scores), np.asarray(labels)
    return [(float(t), float((s[y == 1] >= t).mean()), float((s[y == 0] >= t).mean())) for t in thresholds]


def pick_threshold(scores: np.ndarray, labels: np.ndarray, max_false: float) -> float:
    """The threshold abstaining most on unanswerable questions with false abstention <= max_false.

    Among equally good thresholds, the middle of the widest run (least sensitive to a shifted score).
    """
    grid = np.round(np.arange(0.05, 0.96, 0.01), 2)
    rows = trade_off(scores, labels, grid)
    allowed = [r for r in rows if r[2] <= max_false + 1e-9]
    if not allowed:
        return float(grid[-1])
    best = max(r[1] for r in allowed)
    run = [r[0] for r in allowed if r[1] == best]
    return float(run[len(run) // 2])


def rewrite_defaults(source: str, values: dict[str, float]) -> str:
    """``rag/policy.py`` with each named field's ``default=`` replaced (the field must already exist)."""
    for field, value in values.items():
        pattern = re.compile(rf"(\n    {field}: float = Field\(\s*default=)(-?[0-9.]+)")
        if not pattern.search(source):
            raise ValueError(f"no float field {field!r} with a numeric default in the policy source")
        source = pattern.sub(lambda m, v=value: f"{m.group(1)}{v:.2f}", source, count=1)
    return source


def collect(split: str, questions_path: Path | None):
    """(features matrix, labels, question IDs) for one split, asked through the real pipeline (extractive)."""
    from rag.pipeline import Pipeline
    from rag.settings import Settings

    from .questions import DEFAULT_QUESTIONS, load_questions, select_split
    from .runner import _conversation

    pipeline = Pipeline(Settings())
    questions = select_split(load_questions(questions_path or DEFAULT_QUESTIONS), split)
    names = list(WEIGHTS)
    rows, labels, ids = [], [], []
    for i, q in enumerate(questions, start=1):
        history = _conversation(pipeline, q, "extractive", None)
        answer = pipeline.ask(q.question, history, backend="extractive")
        if not answer.abstention_features:  # nothing to quote at all: abstains whatever the weights
            continue
        rows.append([answer.abstention_features[n] for n in names])
        labels.append(0 if q.answerable else 1)
        ids.append(q.id)
        print(f"\r{i}/{len(questions)} questions", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return np.array(rows), np.array(labels), ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.fit_abstention", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--split",
        default="dev,regression",
        help="split(s) to fit on, comma-separated (default: dev,regression, the splits tuned on; never test)",
    )
    parser.add_argument("--questions", type=Path, default=None, help="question file (default: eval/questions.jsonl)")
    parser.add_argument("--max-false", type=float, default=0.05, help="false-abstention ceiling on the split")
    parser.add_argument("--C", type=float, default=10.0, dest="c", help="inverse L2 strength (larger = weaker)")
    parser.add_argument("--write", action="store_true", help="rewrite the defaults in rag/policy.py")
    args = parser.parse_args(argv)
    splits = [part.strip() for part in args.split.split(",") if part.strip()]
    if "test" in splits:
        parser.error("fitting on the test split would make its figures meaningless; fit on dev")

    from rag.policy import AnswerPolicy

    collected = [collect(split, args.questions) for split in splits]
    x = np.vstack([c[0] for c in collected if len(c[0])])
    y = np.concatenate([c[1] for c in collected])
    names = list(WEIGHTS)
    policy = AnswerPolicy()
    old_w = np.array([getattr(policy, WEIGHTS[n]) for n in names])
    old = scores_of(x, old_w, policy.abstain_bias)
    weights, bias = fit_weights(x, y, names, args.c)
    new = scores_of(x, weights, bias)
    threshold = pick_threshold(new, y, args.max_false)
    print(f"{len(y)} questions of split {args.split!r}: {int(y.sum())} unanswerable, {int(len(y) - y.sum())} answerable")
    print("threshold  abstains(now)  false(now)  abstains(fitted)  false(fitted)")
    for (t, a0, f0), (_, a1, f1) in zip(
        trade_off(old, y, np.arange(0.3, 0.91, 0.05)), trade_off(new, y, np.arange(0.3, 0.91, 0.05)), strict=True
    ):
        print(f"{t:9.2f}  {a0:13.3f}  {f0:10.3f}  {a1:16.3f}  {f1:13.3f}")
    (_, a_now, f_now), = trade_off(old, y, [policy.abstain_threshold])
    (_, a_fit, f_fit), = trade_off(new, y, [threshold])
    print(f"current policy (threshold {policy.abstain_threshold:.2f}): abstains {a_now:.3f}, false {f_now:.3f}")
    print(f"fitted (threshold {threshold:.2f}): abstains {a_fit:.3f}, false {f_fit:.3f}")
    values = {WEIGHTS[n]: float(w) for n, w in zip(names, weights, strict=True)}
    values |= {"abstain_bias": bias, "abstain_threshold": threshold}
    for field, value in values.items():
        print(f"RAG_ANSWER__{field.upper()}={value:.2f}")
    if args.write:
        POLICY_FILE.write_text(rewrite_defaults(POLICY_FILE.read_text(encoding="utf-8"), values), encoding="utf-8")
        print(f"wrote the defaults in {POLICY_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
