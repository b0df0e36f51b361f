"""Fit the membership model of list, summary and yes/no answers (which papers they cite) on the dev split.

Asks every answerable dev question without history whose answer is a list plan chosen by the model (not the papers
naming what the question names), records each candidate paper's features (rag.membership.FEATURES, kept on the
plan) and whether the paper is in the question's gold, and fits a class-balanced, L2-regularised logistic
regression on standardised features (weights are written back in the features' own units).

The cut and C are chosen on out-of-fold probabilities: by default one fold per question set (the blind sets the dev
split holds, told apart by the letter their ids start with), so each set is scored by a model fitted on the others,
as a fresh set would be (``--by question``: repeated group k-fold, a question's papers in one fold); each question's papers are then chosen exactly as
rag.membership.members does, and the cut maximising the mean per-question citation F1 is kept. The weights are
refitted on all questions; the out-of-fold cut is kept as is.

Prints the out-of-fold curve (cut -> mean citation precision, recall, F1, all gold cited) next to the current
rule's figures on the same questions, where the gold papers the out-of-fold choice misses are lost (not in the
shortlist of scored abstracts, not among the model's candidates, below the cut, past the count limit; and the gold
of list-shaped questions answered without the model: refused, named papers, not a list answer), the figures by
the number of gold papers (a fresh set asking about broader topics than dev's), and the fitted values as
``RAG_ANSWER__*`` settings; with ``--write`` it rewrites the defaults in ``rag/policy.py``. ``--ablate``: the
out-of-fold figures with each feature left out in turn (does a feature carry information a fresh set would use?).

    python -m eval.fit_membership [--split dev] [--C 0.1,0.3,1,3] [--by set|question] [--folds 5] [--repeats 3]
                                  [--features FILE.npz] [--ablate]
                                  [--write]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rag.membership import FEATURES

from .questions import writer_set

POLICY_FILE = Path(__file__).resolve().parents[1] / "rag" / "policy.py"
LIST_SHAPES = ("list", "summary", "yes_no")


def collect(split: str, questions_path: Path | None) -> dict:
    """Per candidate paper: features, label (in gold), question index; per question: gold, the current rule's
    chosen ids, the candidates' ids."""
    from tqdm import tqdm

    from rag.answering import retrieve
    from rag.pipeline import Pipeline
    from rag.settings import Settings

    from .questions import DEFAULT_QUESTIONS, load_questions, resolve_gold, select_split

    settings = Settings()
    policy = settings.answer.model_copy(update={"list_member_weights": {}})  # features do not depend on the model
    pipeline = Pipeline(settings)
    snapshot, retriever = pipeline.snapshot, pipeline.retriever()
    questions = select_split(load_questions(questions_path or DEFAULT_QUESTIONS), split)
    rows, labels, owners, kept, skipped = [], [], [], [], Counter()
    for q in tqdm(questions, desc="answering", unit="question", file=sys.stderr, disable=None, leave=False):
        if q.history or not q.answerable:
            continue
        gold = set(resolve_gold(q, list(snapshot.abstracts.values())))
        found = retrieve(q.question, snapshot, retriever, settings.top_k, policy)
        plan = found.plan
        if not plan.candidates:
            if q.shape in LIST_SHAPES:  # the gold of a list-shaped question the model did not answer
                if found.abstain:
                    skipped["refused (no model)"] += len(gold)
                else:
                    reason = "named papers" if plan.layout == "list" else "not a list answer"
                    hit = len(gold & set(plan.abstract_ids))
                    skipped[f"{reason}: cited"] += hit
                    skipped[f"{reason}: missed"] += len(gold) - hit
            continue
        ids = list(plan.candidates)
        for aid in ids:
            rows.append([plan.candidates[aid][name] for name in FEATURES])
            labels.append(int(aid in gold))
            owners.append(len(kept))
        kept.append({"id": q.id, "shape": q.shape, "gold": sorted(gold), "rule": plan.abstract_ids, "ids": ids,
                     "shortlist": sorted(plan.paper_similarity), "refused": bool(found.abstain)})  # fmt: skip
    return {"x": np.array(rows, float).reshape(-1, len(FEATURES)), "y": np.array(labels), "q": np.array(owners),
            "questions": kept, "skipped": dict(skipped)}  # fmt: skip


def _data(split: str, questions_path: Path | None, cache: Path | None) -> dict:
    if cache is not None and cache.exists():
        data = np.load(cache, allow_pickle=False)
        if str(data["split"]) == split and list(data["names"]) == list(FEATURES):
            print(f"features read from {cache} (delete it to ask the questions again)", file=sys.stderr)
            return {"x": data["x"], "y": data["y"], "q": data["q"], "questions": json.loads(str(data["questions"])),
                    "skipped": json.loads(str(data["skipped"])) if "skipped" in data else {}}  # fmt: skip
    data = collect(split, questions_path)
    if cache is not None:
        np.savez(cache, x=data["x"], y=data["y"], q=data["q"], questions=json.dumps(data["questions"]), split=split,
                 names=np.array(FEATURES), skipped=json.dumps(data["skipped"]))  # fmt: skip
    return data


def fit(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, float]:
    """Weights and bias in the features' own units (a class-balanced logistic regression on standardised ones)."""
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit((x - mean) / scale, y)
    w = model.coef_[0] / scale
    return w, float(model.intercept_[0] - w @ mean)


def probabilities(x: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x @ w + b, -40, 40)))


def out_of_fold(data: dict, c: float, folds: int, repeats: int, by: str = "set", seed: int = 0) -> list[np.ndarray]:
    """Out-of-fold probabilities of every candidate, one array per repeat. ``by="set"``: one fold per question
    set (the letter the question ids start with: each blind set scored by a model fitted on the others, as a fresh
    set would be); ``by="question"``: ``repeats`` runs of group k-fold, a question's papers always in one fold."""
    from sklearn.model_selection import GroupKFold, LeaveOneGroupOut

    x, y, q = data["x"], data["y"], data["q"]
    if by == "set":
        sets = np.array([writer_set(data["questions"][i]["id"]) for i in q])
        splits = [list(LeaveOneGroupOut().split(x, y, sets))]
    else:
        splits = [list(GroupKFold(folds, shuffle=True, random_state=seed + r).split(x, y, q)) for r in range(repeats)]
    result = []
    for folding in splits:
        p = np.zeros(len(y))
        for train, test in folding:
            w, b = fit(x[train], y[train], c)
            p[test] = probabilities(x[test], w, b)
        result.append(p)
    return result


def prf(chosen: Sequence[str], gold: Sequence[str]) -> tuple[float, float, float, float]:
    hit = len(set(chosen) & set(gold))
    p = hit / len(chosen) if chosen else 0.0
    r = hit / len(gold) if gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0), float(set(gold) <= set(chosen))


def choose(data: dict, p: np.ndarray, cut: float, most: int) -> list[list[str]]:
    """Each question's cited papers at ``cut``, as rag.membership.members chooses them."""
    out = []
    for i, question in enumerate(data["questions"]):
        idx = np.flatnonzero(data["q"] == i)
        ids, probs, relevance = question["ids"], p[idx], data["x"][idx, FEATURES.index("relevance")]
        order = np.argsort(-probs, kind="stable")
        chosen = [ids[j] for j in order if probs[j] >= cut][:most]
        out.append(chosen or [ids[int(np.argmax(relevance))]])
    return out


def where_lost(data: dict, p: np.ndarray, cut: float, most: int) -> Counter:
    """Where each gold paper of the model's questions ends up at ``cut``: refused (the answer abstains), cited, past
    the count limit (``most``), below the cut, not among the candidates (scored but not in the best-relevance few the model considers), or not
    in the shortlist of scored abstracts (when the question records one)."""
    lost: Counter = Counter()
    for i, (question, chosen) in enumerate(zip(data["questions"], choose(data, p, cut, most), strict=True)):
        idx = np.flatnonzero(data["q"] == i)
        prob = dict(zip(question["ids"], p[idx], strict=True))
        shortlist = set(question.get("shortlist") or ())
        for aid in question["gold"]:
            if question.get("refused"):  # abstention's decision, whatever the model chose
                lost["refused"] += 1
            elif aid in chosen:
                lost["cited"] += 1
            elif aid in prob:
                lost["past the count limit" if prob[aid] >= cut else "below the cut"] += 1
            elif not shortlist or aid in shortlist:
                lost["not a candidate"] += 1
            else:
                lost["not shortlisted"] += 1
    return lost


def by_gold_size(data: dict, chosen: Sequence[Sequence[str]], edges: Sequence[int] = (2, 3, 4)) -> list[tuple]:
    """(label, n, P, R, F1, all cited) per group of questions by their number of gold papers: at most the first of
    ``edges``, exactly each middle one, at least the last."""
    rows = []
    for k, e in enumerate(edges):
        first, last = k == 0, k == len(edges) - 1
        label = f"<={e}" if first else f">={e}" if last else f"{e}"
        keep = [
            prf(c, q["gold"])
            for c, q in zip(chosen, data["questions"], strict=True)
            if (first and len(q["gold"]) <= e) or (last and len(q["gold"]) >= e) or len(q["gold"]) == e
        ]
        if keep:
            rows.append((label, len(keep), *np.mean(keep, axis=0)))
    return rows


def best_cut(data: dict, c: float, args, most: int, grid: np.ndarray) -> tuple[float, np.ndarray, list[np.ndarray]]:
    """The out-of-fold cut maximising mean F1 at C=``c``, its figures, and the out-of-fold probabilities."""
    probs = out_of_fold(data, c, args.folds, args.repeats, args.by)
    curve = [(cut, np.mean([scores(data, choose(data, p, cut, most)) for p in probs], axis=0)) for cut in grid]
    cut, row = max(curve, key=lambda t: t[1][2])
    return cut, row, probs


def scores(data: dict, chosen: Sequence[Sequence[str]], shape: str | None = None) -> np.ndarray:
    rows = [prf(c, q["gold"]) for c, q in zip(chosen, data["questions"], strict=True) if shape in (None, q["shape"])]
    return np.mean(rows, axis=0) if rows else np.full(4, np.nan)


def _write(weights: dict[str, float], bias: float, cut: float) -> None:
    text = POLICY_FILE.read_text()
    body = ", ".join(f'"{k}": {v:.4g}' for k, v in weights.items())
    text, n1 = re.subn(r"(list_member_weights: dict\[str, float\] = Field\(\n\s+default_factory=)[^\n]*\n",
                       lambda m: m.group(1) + "lambda: {" + body + "},\n", text)  # fmt: skip
    text, n2 = re.subn(
        r"(list_member_bias: float = Field\(default=)[-\d.e]+", lambda m: m.group(1) + f"{bias:.4g}", text
    )
    text, n3 = re.subn(
        r"(list_member_cut: float = Field\(\n\s+default=)[\d.]+", lambda m: m.group(1) + f"{cut:.2f}", text
    )
    if (n1, n2, n3) != (1, 1, 1):
        raise SystemExit(f"could not find the membership defaults in {POLICY_FILE}")
    POLICY_FILE.write_text(text)
    print(f"wrote the membership defaults to {POLICY_FILE}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.fit_membership", description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev")
    parser.add_argument("--questions", type=Path, default=None)
    parser.add_argument("--C", default="0.1,0.3,1")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--by", choices=("set", "question"), default="set", help="cross-validation folds")
    parser.add_argument("--features", type=Path, default=None, help="cache of the collected features (.npz)")
    parser.add_argument("--ablate", action="store_true", help="out-of-fold figures with each feature left out")
    parser.add_argument("--write", action="store_true", help="rewrite the defaults in rag/policy.py")
    args = parser.parse_args(argv)
    from rag.policy import AnswerPolicy

    most = AnswerPolicy().list_max
    data = _data(args.split, args.questions, args.features)
    n_q = len(data["questions"])
    print(f"{n_q} questions, {len(data['y'])} candidate papers, {int(data['y'].sum())} in gold")
    grid = np.round(np.arange(0.20, 0.91, 0.025), 3)
    best = None
    for c in [float(v) for v in args.C.split(",")]:
        probs = out_of_fold(data, c, args.folds, args.repeats, args.by)
        curve = [(cut, np.mean([scores(data, choose(data, p, cut, most)) for p in probs], axis=0)) for cut in grid]
        cut, row = max(curve, key=lambda t: t[1][2])
        print(f"C={c:g}: out-of-fold best cut {cut:.3f}  P {row[0]:.3f}  R {row[1]:.3f}  F1 {row[2]:.3f}  "
              f"all cited {row[3]:.3f}")  # fmt: skip
        if best is None or row[2] > best[2][2]:
            best = (c, cut, row, curve)
    assert best is not None
    c, cut, row, curve = best
    rule = [q["rule"] for q in data["questions"]]
    print(
        "\ncurrent rule (same questions):       P {:.3f}  R {:.3f}  F1 {:.3f}  all cited {:.3f}".format(
            *scores(data, rule)
        )
    )
    print(f"out-of-fold curve at C={c:g}:")
    print("   cut      P      R     F1  all cited")
    for t, r in curve:
        print(f"{t:6.3f} {r[0]:6.3f} {r[1]:6.3f} {r[2]:6.3f} {r[3]:10.3f}" + ("  <- chosen" if t == cut else ""))
    w, b = fit(data["x"], data["y"], c)
    probs = out_of_fold(data, c, args.folds, args.repeats, args.by)
    print("\nby shape (out-of-fold at the chosen cut vs the current rule):")
    for shape in sorted({q["shape"] for q in data["questions"]}):
        oof = np.mean([scores(data, choose(data, p, cut, most), shape) for p in probs], axis=0)
        old = scores(data, rule, shape)
        n = sum(q["shape"] == shape for q in data["questions"])
        print(f"  {shape:<11} n={n:3d}  P {old[0]:.3f} -> {oof[0]:.3f}  R {old[1]:.3f} -> {oof[1]:.3f}  "
              f"F1 {old[2]:.3f} -> {oof[2]:.3f}  all cited {old[3]:.3f} -> {oof[3]:.3f}")  # fmt: skip
    lost = sum((where_lost(data, p, cut, most) for p in probs), Counter())
    total = sum(lost.values()) + sum(data.get("skipped", {}).values()) * len(probs)
    print("\nwhere the gold papers go (out of fold at the chosen cut; list-shaped questions without the model too):")
    for reason, n in [*lost.most_common(), *((r, n * len(probs)) for r, n in data.get("skipped", {}).items())]:
        print(f"  {reason:<32} {n / len(probs):6.1f}  ({n / max(total, 1):.1%})")
    print("\nby number of gold papers (out of fold at the chosen cut):")
    for label, n, p_, r_, f_, a_ in by_gold_size(data, choose(data, probs[0], cut, most)):
        print(f"  gold {label:<4} n={n:3d}  P {p_:.3f}  R {r_:.3f}  F1 {f_:.3f}  all cited {a_:.3f}")
    if args.ablate:
        print(f"\nleave one feature out (C={c:g}, each with its own out-of-fold cut):")
        for k, name in enumerate(FEATURES):
            reduced = {**data, "x": np.delete(data["x"], k, axis=1)}
            t, r, _ = best_cut(reduced, c, args, most, grid)
            print(f"  -{name:<16} cut {t:.3f}  P {r[0]:.3f}  R {r[1]:.3f}  F1 {r[2]:.3f}  all cited {r[3]:.3f}")
    weights = {name: float(v) for name, v in zip(FEATURES, w, strict=True)}
    print("\nRAG_ANSWER__LIST_MEMBER_WEIGHTS='" + json.dumps({k: round(v, 4) for k, v in weights.items()}) + "'")
    print(f"RAG_ANSWER__LIST_MEMBER_BIAS={b:.4g}\nRAG_ANSWER__LIST_MEMBER_CUT={cut:.2f}")
    if args.write:
        _write(weights, b, cut)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
