"""Retrieval settings (AnswerPolicy's fusion fields) measured honestly: per shape, and leave-one-blind-set-out.

Reads the questions of an eval run (``results.json`` of ``rag eval``: the search text a follow-up was read as, the
gold, the shape), reads each question once as search does (spelling, links, the query vector), and then ranks with
the real :class:`rag.retrieve.HybridRetriever` under AnswerPolicy overrides, so what is measured is the engine, not a
copy of its fusion. Prints hit@1 and recall@5 per shape for hybrid, dense-only and BM25-only with the current policy;
with ``--grid`` it also searches the grid and scores every grid point leave-one-blind-set-out: for each held-out set
(the questions whose id starts with that letter), the grid point best on all the other sets is scored on it against
the current policy. A positive total says a fit on some blind sets transfers to another; an in-sample gain that does
not survive this is fitted to the sets it was chosen on.

    python -m eval.fusion_study RUN/results.json                        per-shape table, dev split
    python -m eval.fusion_study RUN/results.json --grid fusion_dense_weight=0.4,0.5,0.6 bm25_trust_low=0.05,0.1
                                [--sets efghim] [--split dev]

The objective of a grid point is hit@1 + 0.5 * recall@5 summed over questions. Needs an index (`rag ingest`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from eval.metrics import hit_at_k, recall_at_k
from eval.questions import writer_set

MODES = ("hybrid", "dense", "bm25")
RANK_K = 10


@dataclass(frozen=True, slots=True)
class Read:
    """One answerable question as search reads it."""

    id: str
    shape: str
    gold: tuple[str, ...]
    text: str
    linked: dict[str, float]
    vector: np.ndarray

    @property
    def blind_set(self) -> str:
        return writer_set(self.id)


def parse_grid(items: Sequence[str]) -> dict[str, list[float]]:
    """``["name=v1,v2", ...]`` -> ``{name: [v1, v2]}`` (values as floats; whole numbers stay ints)."""
    grid: dict[str, list[float]] = {}
    for item in items:
        name, sep, values = item.partition("=")
        if not sep or not name.strip() or not values.strip():
            raise ValueError(f"grid item {item!r} is not NAME=V1,V2,...")
        grid[name.strip()] = [_number(v) for v in values.split(",") if v.strip()]
    return grid


def _number(text: str) -> float:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


def grid_points(grid: Mapping[str, Sequence[float]]) -> list[dict[str, float]]:
    """Every combination of the grid's values, as policy overrides."""
    names = list(grid)
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*(grid[n] for n in names))]


def objective(ranked: Sequence[str], gold: Sequence[str]) -> float:
    """hit@1 + 0.5 * recall@5 of one ranking."""
    return hit_at_k(ranked, gold, 1) + 0.5 * recall_at_k(ranked, gold, 5)


def leave_one_set_out(
    scores: Mapping[int, Mapping[str, float]], base: int, held_out: Sequence[str]
) -> list[tuple[str, int, float]]:
    """For each held-out set: (set, the grid point best on all the other sets, its score on the held-out set minus the
    base point's). ``scores``: grid point -> set -> summed objective. Ties go to the base point, then the first."""
    out = []
    for held in held_out:

        def trained(point: int, held: str = held) -> tuple[float, bool]:
            return sum(v for s, v in scores[point].items() if s != held), point == base

        best = max(scores, key=trained)
        out.append((held, best, scores[best].get(held, 0.0) - scores[base].get(held, 0.0)))
    return out


def per_shape(rankings: Mapping[str, Mapping[str, Sequence[str]]], reads: Sequence[Read]) -> dict[str, dict]:
    """shape (and 'overall') -> mode -> (n, hit@1, recall@5)."""
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0, 0.0]))
    for r in reads:
        for mode, ranked in rankings.items():
            for key in ("overall", r.shape):
                row = sums[key][mode]
                row[0] += 1
                row[1] += hit_at_k(ranked[r.id], r.gold, 1)
                row[2] += recall_at_k(ranked[r.id], r.gold, 5)
    return {k: {m: (int(n), h / n, r5 / n) for m, (n, h, r5) in v.items()} for k, v in sums.items()}


def read_questions(pipeline, results_path: Path, split: str) -> list[Read]:
    from rag.retrieve import link_weights, search_text

    snap, policy = pipeline.snapshot, pipeline.settings.answer
    rows = [q for q in json.loads(results_path.read_text(encoding="utf-8"))["questions"]]
    rows = [q for q in rows if q.get("split") == split and q.get("gold") and q.get("retrieval")]
    texts = [search_text(snap, q.get("search_query") or q["question"], policy) for q in rows]
    vectors = pipeline.embedder.encode(texts) if texts else []
    return [
        Read(q["id"], q.get("shape") or q["type"], tuple(q["gold"]), text, link_weights(snap, text, policy), vector)
        for q, text, vector in zip(rows, texts, vectors, strict=True)
    ]


def rank_all(pipeline, reads: Sequence[Read], mode: str, overrides: Mapping[str, float] | None = None) -> dict:
    from rag.retrieve import HybridRetriever

    policy = pipeline.settings.answer.model_copy(update=dict(overrides or {}))
    retriever = HybridRetriever(pipeline.snapshot, pipeline.store, pipeline.embedder, mode=mode, policy=policy)
    return {
        r.id: [x.abstract.id for x in retriever.search(r.text, RANK_K, query_vector=r.vector, linked=r.linked)]
        for r in reads
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="results.json of a `rag eval` run")
    parser.add_argument("--split", default="dev", help="questions of this split only (default dev: tune on dev only)")
    parser.add_argument("--grid", nargs="*", default=[], help="NAME=V1,V2 ... (AnswerPolicy fields)")
    parser.add_argument("--sets", default="", help="blind sets held out in turn, by id letter (default: every one)")
    args = parser.parse_args(argv)

    from rag.pipeline import Pipeline
    from rag.settings import Settings

    grid = parse_grid(args.grid)
    pipeline = Pipeline(Settings())
    reads = read_questions(pipeline, args.results, args.split)
    if not reads:
        print(f"No answerable {args.split} questions in {args.results}", file=sys.stderr)
        return 1
    table = per_shape({m: rank_all(pipeline, reads, m) for m in MODES}, reads)
    print(f"{len(reads)} answerable {args.split} questions; hit@1 / recall@5 with the current policy\n")
    print("| shape | n | " + " | ".join(MODES) + " |\n|---|---|" + "---|" * len(MODES))
    for shape in sorted(table, key=lambda s: (s != "overall", s)):
        cells = " | ".join(f"{table[shape][m][1]:.3f} / {table[shape][m][2]:.3f}" for m in MODES)
        print(f"| {shape} | {table[shape]['hybrid'][0]} | {cells} |")
    if not grid:
        return 0

    current = pipeline.settings.answer
    base = {name: getattr(current, name) for name in grid}
    points = [base, *(p for p in grid_points(grid) if p != base)]
    scores: dict[int, dict[str, float]] = {}
    for i, point in enumerate(points):
        ranked = rank_all(pipeline, reads, "hybrid", point)
        by_set: dict[str, float] = defaultdict(float)
        for r in reads:
            by_set[r.blind_set] += objective(ranked[r.id], r.gold)
        scores[i] = dict(by_set)
    sets = list(args.sets) or sorted({r.blind_set for r in reads})
    best = max(scores, key=lambda i: (sum(scores[i].values()), i == 0))
    print(f"\nGrid: {len(points)} points; objective hit@1 + 0.5 * recall@5; current {sum(scores[0].values()):.1f}")
    print(f"In-sample best {points[best]}: {sum(scores[best].values()) - sum(scores[0].values()):+.1f}")
    total = 0.0
    for held, point, gain in leave_one_set_out(scores, 0, sets):
        total += gain
        print(f"  held out {held}: fitted on the others {points[point]}, held-out gain {gain:+.2f}")
    print(f"Leave-one-set-out total gain over the current policy: {total:+.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
