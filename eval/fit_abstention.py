"""Fit the abstention weights and threshold on the tuned splits (dev, regression) only, by cross-validation.

Asks every question of the splits (follow-ups after their history, as `rag eval` does), records the abstention
features of each answer (`Answer.abstention_features`) and fits a class-balanced, L2-regularised logistic regression
with sign constraints (a signal that argues for abstaining may not be fitted to argue against it).

The threshold is NOT picked on the questions the weights were fitted on (that is optimistic exactly at the edge of the
false-abstention ceiling). Instead: repeated stratified k-fold cross-validation, folds keeping a follow-up chain
together; each fold's questions are scored by weights fitted on the other folds; the out-of-fold scores are pooled;
the regularisation strength C (from a small grid) and the threshold are chosen on the pooled out-of-fold scores
(abstain most with out-of-fold false abstention at or under ``--max-false``). The weights are then refitted on all
questions and the out-of-fold threshold is kept as is: out-of-fold scores are what a model fitted this way gives
questions it has not seen, while the final model's in-sample scores would bring the optimism back.

Prints the in-sample and the out-of-fold trade-off curves side by side, and the fitted values as ``RAG_ANSWER__*``
settings; with ``--write`` it also rewrites the defaults in ``rag/policy.py``.

    python -m eval.fit_abstention [--split dev,regression] [--max-false 0.05] [--C 1,3,10,30] [--folds 5]
                                  [--repeats 5] [--seed 0] [--features FILE.npz] [--hold-out h] [--write]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from rag.abstain import WEIGHTS

# Signals that can only argue for abstaining: their weights are fitted non-negative. The others are free.
NON_NEGATIVE = frozenset(
    {
        "unknown", "missing", "focus", "number", "topic", "topic_unknown", "similarity", "phrase", "topic_unknown_list",
        "garbled", "similarity_list", "names_missing", "value", "slot", "topic_rare_list",
        "topic_rare_terse", "type",
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


def chain_groups(questions: Sequence) -> list[str]:
    """One group key per question: a follow-up chain (questions sharing their first turn) is one group, so a fold
    never holds one turn of a conversation while fitting on another; a question without history is its own group."""
    return [f"chain:{q.history[0].strip().lower()}" if q.history else f"id:{q.id}" for q in questions]


def out_of_fold_scores(
    features: np.ndarray,
    labels: np.ndarray,
    groups: Sequence[str],
    names: Sequence[str],
    c: float,
    *,
    folds: int = 5,
    repeats: int = 1,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """(scores, labels) pooled over ``repeats`` runs of stratified group k-fold: every question scored by weights
    fitted without its group. Each repeat shuffles the folds with seed ``seed + repeat``, so the result is
    reproducible; with several repeats every question appears once per repeat."""
    from sklearn.model_selection import StratifiedGroupKFold

    x, y = np.asarray(features, dtype=float), np.asarray(labels)
    pooled_scores, pooled_labels = [], []
    for repeat in range(repeats):
        splitter = StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=seed + repeat)
        scores = np.empty(len(y))
        for fit_rows, held_rows in splitter.split(x, y, groups):
            w, b = fit_weights(x[fit_rows], y[fit_rows], names, c)
            scores[held_rows] = scores_of(x[held_rows], w, b)
        pooled_scores.append(scores)
        pooled_labels.append(y)
    return np.concatenate(pooled_scores), np.concatenate(pooled_labels)


@dataclass(frozen=True)
class CrossValidated:
    c: float
    threshold: float
    abstains: float  # out-of-fold share of unanswerable questions abstained on at the threshold
    false: float  # out-of-fold share of answerable questions abstained on at the threshold
    scores: np.ndarray  # pooled out-of-fold scores
    labels: np.ndarray  # their labels
    log_loss: float = float("nan")  # pooled out-of-fold class-balanced log-loss
    per_c: tuple[tuple[float, float, float, float, float], ...] = ()  # (C, threshold, abstains, false, log-loss)


def cross_validate(
    features: np.ndarray,
    labels: np.ndarray,
    groups: Sequence[str],
    names: Sequence[str],
    c_grid: Sequence[float],
    max_false: float,
    *,
    folds: int = 5,
    repeats: int = 5,
    seed: int = 0,
) -> CrossValidated:
    """The C of ``c_grid`` and the threshold, both chosen out of fold: C minimises the pooled out-of-fold
    class-balanced log-loss (the fit's own objective, a proper scoring rule over every threshold, so C is not decided
    by a few questions at the edge of the ceiling; ties go to the smaller C); the threshold is the one abstaining most
    with out-of-fold false abstention <= max_false on that C's out-of-fold scores."""
    if not c_grid:
        raise ValueError("c_grid is empty")
    runs = []
    for c in sorted(c_grid):
        scores, pooled = out_of_fold_scores(features, labels, groups, names, c, folds=folds, repeats=repeats, seed=seed)
        threshold = pick_threshold(scores, pooled, max_false)
        ((_, abstains, false),) = trade_off(scores, pooled, [threshold])
        runs.append(CrossValidated(c, threshold, abstains, false, scores, pooled, balanced_log_loss(scores, pooled)))
    chosen = min(runs, key=lambda run: run.log_loss)  # min keeps the first (smallest C) of equal losses
    per_c = tuple((run.c, run.threshold, run.abstains, run.false, run.log_loss) for run in runs)
    return replace(chosen, per_c=per_c)


def balanced_log_loss(scores: np.ndarray, labels: np.ndarray) -> float:
    """Mean log-loss with each class weighted to half the total (as the fit weighs them)."""
    s = np.clip(np.asarray(scores, dtype=float), 1e-12, 1 - 1e-12)
    y = np.asarray(labels, dtype=float)
    if not (0 < y.sum() < len(y)):
        raise ValueError("need both answerable and unanswerable questions")
    return float(-(np.log(s[y == 1]).mean() + np.log(1 - s[y == 0]).mean()) / 2)


@dataclass(frozen=True)
class HeldOut:
    """A set held out of the fit: what weights, C and threshold chosen without it give it."""

    size: int
    unanswerable: int
    abstains: float  # share of its unanswerable questions abstained on at the threshold chosen without it
    false: float  # share of its answerable questions abstained on at that threshold
    log_loss: float  # its class-balanced log-loss
    threshold: float
    c: float
    scores: np.ndarray
    labels: np.ndarray


def held_out(
    features: np.ndarray,
    labels: np.ndarray,
    groups: Sequence[str],
    names: Sequence[str],
    held: np.ndarray,
    c_grid: Sequence[float],
    max_false: float,
    *,
    folds: int = 5,
    repeats: int = 5,
    seed: int = 0,
) -> HeldOut:
    """Transfer to a held-out set (``held``: a boolean row mask): C and the threshold chosen by cross-validation on
    the other rows, the weights fitted on all of them, then the held-out rows scored. What a new set of questions
    written blind would get from the fit as it stands; compare candidate signals by it as well as out of fold."""
    x, y, mask = np.asarray(features, dtype=float), np.asarray(labels), np.asarray(held, dtype=bool)
    if not mask.any() or mask.all():
        raise ValueError("the held-out set must be a non-empty part of the questions")
    kept_groups = [g for g, h in zip(groups, mask, strict=True) if not h]
    cv = cross_validate(
        x[~mask], y[~mask], kept_groups, names, c_grid, max_false, folds=folds, repeats=repeats, seed=seed
    )
    weights, bias = fit_weights(x[~mask], y[~mask], names, cv.c)
    scores = scores_of(x[mask], weights, bias)
    ((_, abstains, false),) = trade_off(scores, y[mask], [cv.threshold])
    return HeldOut(
        int(mask.sum()), int(y[mask].sum()), abstains, false, balanced_log_loss(scores, y[mask]), cv.threshold, cv.c,
        scores, y[mask],
    )  # fmt: skip


def rewrite_defaults(source: str, values: dict[str, float]) -> str:
    """``rag/policy.py`` with each named field's ``default=`` replaced (the field must already exist)."""
    for field, value in values.items():
        pattern = re.compile(rf"(\n    {field}: float = Field\(\s*default=)(-?[0-9.]+)")
        if not pattern.search(source):
            raise ValueError(f"no float field {field!r} with a numeric default in the policy source")
        source = pattern.sub(lambda m, v=value: f"{m.group(1)}{v:.2f}", source, count=1)
    return source


def collect(split: str, questions_path: Path | None):
    """(features matrix, labels, question IDs, chain groups) for one split, asked through the real pipeline
    (extractive)."""
    from rag.pipeline import Pipeline
    from rag.settings import Settings

    from .questions import DEFAULT_QUESTIONS, load_questions, select_split
    from .runner import _conversation

    pipeline = Pipeline(Settings())
    questions = select_split(load_questions(questions_path or DEFAULT_QUESTIONS), split)
    names = list(WEIGHTS)
    from tqdm import tqdm

    rows, labels, kept = [], [], []
    # disable=None: a bar on a terminal, nothing in a log file
    for q in tqdm(questions, desc="answering", unit="question", file=sys.stderr, disable=None, leave=False):
        history = _conversation(pipeline, q, "extractive", None)
        answer = pipeline.ask(q.question, history, backend="extractive")
        if not answer.abstention_features:  # nothing to quote at all: abstains whatever the weights
            continue
        rows.append([answer.abstention_features[n] for n in names])
        labels.append(0 if q.answerable else 1)
        kept.append(q)
    return np.array(rows).reshape(-1, len(names)), np.array(labels), [q.id for q in kept], chain_groups(kept)


def _features(splits: list[str], questions_path: Path | None, cache: Path | None):
    """Collected features (or read from ``cache`` when it exists and was written for the same splits and signals)."""
    names = list(WEIGHTS)
    if cache is not None and cache.exists():
        data = np.load(cache, allow_pickle=False)
        if list(data["splits"]) == splits and list(data["names"]) == names:
            print(f"features read from {cache} (delete it to ask the questions again)", file=sys.stderr)
            return data["x"], data["y"], list(data["ids"]), list(data["groups"])
        print(f"{cache} was written for other splits or signals: asking the questions again", file=sys.stderr)
    collected = [collect(split, questions_path) for split in splits]
    x = np.vstack([c[0] for c in collected])
    y = np.concatenate([c[1] for c in collected])
    ids = [i for c in collected for i in c[2]]
    groups = [g for c in collected for g in c[3]]
    if cache is not None:
        np.savez(cache, x=x, y=y, ids=np.array(ids), groups=np.array(groups), splits=np.array(splits),
                 names=np.array(names))  # fmt: skip
    return x, y, ids, groups


def _curves(columns: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
    grid = np.round(np.arange(0.30, 0.91, 0.05), 2)
    print("threshold  " + "  ".join(f"{name:>22}" for name in columns))
    print("           " + "  ".join(f"{'abstains':>11}{'false':>11}" for _ in columns))
    rows = {name: trade_off(scores, labels, grid) for name, (scores, labels) in columns.items()}
    for i, t in enumerate(grid):
        print(f"{t:9.2f}  " + "  ".join(f"{rows[n][i][1]:11.3f}{rows[n][i][2]:11.3f}" for n in columns))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.fit_abstention", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--split",
        default="dev,regression",
        help="split(s) to fit on, comma-separated (default: dev,regression, the splits tuned on; never test)",
    )
    parser.add_argument("--questions", type=Path, default=None, help="question file (default: eval/questions.jsonl)")
    parser.add_argument(
        "--max-false", type=float, default=0.05, help="out-of-fold false-abstention ceiling on the splits"
    )
    parser.add_argument(
        "--C", default="1,3,10,30", dest="c", help="inverse L2 strengths to choose from by cross-validation"
    )
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds")
    parser.add_argument("--repeats", type=int, default=5, help="cross-validation repeats (reshuffled folds)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first repeat's folds")
    parser.add_argument(
        "--features", type=Path, default=None, help="cache of the collected features (.npz): read if it exists"
    )
    parser.add_argument("--write", action="store_true", help="rewrite the defaults in rag/policy.py")
    parser.add_argument(
        "--hold-out",
        default="",
        metavar="PREFIXES",
        help="also report transfer to the questions whose ID starts with one of these comma-separated prefixes "
        "(e.g. a new blind set 'h'): fitted and cross-validated without them, then scored on them",
    )
    args = parser.parse_args(argv)
    splits = [part.strip() for part in args.split.split(",") if part.strip()]
    if "test" in splits:
        parser.error("fitting on the test split would make its figures meaningless; fit on dev")
    c_grid = [float(part) for part in args.c.split(",") if part.strip()]

    from rag.policy import AnswerPolicy

    x, y, ids, groups = _features(splits, args.questions, args.features)
    names = list(WEIGHTS)
    prefixes = tuple(part.strip() for part in args.hold_out.split(",") if part.strip())
    if prefixes:
        mask = np.array([str(i).startswith(prefixes) for i in ids])
        out = held_out(
            x, y, groups, names, mask, c_grid, args.max_false, folds=args.folds, repeats=args.repeats, seed=args.seed
        )
        print(
            f"held out {'/'.join(prefixes)} ({out.size} questions, {out.unanswerable} unanswerable): fitted without "
            f"them (C {out.c:g}, threshold {out.threshold:.2f}) they get abstains {out.abstains:.3f}, false "
            f"{out.false:.3f}, balanced log-loss {out.log_loss:.4f}\n"
        )
    policy = AnswerPolicy()
    old_w = np.array([getattr(policy, WEIGHTS[n]) for n in names])
    old = scores_of(x, old_w, policy.abstain_bias)
    print(
        f"{len(y)} questions of split {args.split!r}: {int(y.sum())} unanswerable, {int(len(y) - y.sum())} answerable"
    )

    cv = cross_validate(
        x, y, groups, names, c_grid, args.max_false, folds=args.folds, repeats=args.repeats, seed=args.seed
    )
    weights, bias = fit_weights(x, y, names, cv.c)
    new = scores_of(x, weights, bias)
    naive = pick_threshold(new, y, args.max_false)  # what picking in-sample would have chosen, for comparison
    print(
        f"\nC chosen by {args.repeats}x{args.folds}-fold cross-validation (lowest out-of-fold balanced log-loss; "
        f"each C's threshold: most abstention with out-of-fold false <= {args.max_false}):"
    )
    for c, t, a, f, loss in cv.per_c:
        chosen = "  <- chosen" if c == cv.c else ""
        print(f"  C={c:<6g} log-loss {loss:.4f}, threshold {t:.2f}: abstains {a:.3f}, false {f:.3f}{chosen}")
    print("Trade-off (abstains = share of unanswerable abstained on; false = share of answerable abstained on):")
    _curves(
        {
            "current policy, in-sample": (old, y),
            "refit, in-sample": (new, y),
            "refit, out-of-fold": (cv.scores, cv.labels),
        }
    )
    ((_, a_now, f_now),) = trade_off(old, y, [policy.abstain_threshold])
    ((_, a_in, f_in),) = trade_off(new, y, [cv.threshold])
    ((_, a_naive, f_naive),) = trade_off(cv.scores, cv.labels, [naive])
    print(
        f"current policy (threshold {policy.abstain_threshold:.2f}), in-sample: abstains {a_now:.3f}, false {f_now:.3f}"
    )
    print(
        f"threshold picked in-sample would be {naive:.2f}: out of fold it abstains {a_naive:.3f}, false {f_naive:.3f}"
    )
    print(
        f"chosen threshold {cv.threshold:.2f}: out of fold abstains {cv.abstains:.3f}, false {cv.false:.3f}; "
        f"in-sample abstains {a_in:.3f}, false {f_in:.3f}"
    )
    values = {WEIGHTS[n]: float(w) for n, w in zip(names, weights, strict=True)}
    values |= {"abstain_bias": bias, "abstain_threshold": cv.threshold}
    for field, value in values.items():
        print(f"RAG_ANSWER__{field.upper()}={value:.2f}")
    if args.write:
        POLICY_FILE.write_text(rewrite_defaults(POLICY_FILE.read_text(encoding="utf-8"), values), encoding="utf-8")
        print(f"wrote the defaults in {POLICY_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
