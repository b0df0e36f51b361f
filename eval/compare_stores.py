"""Embedded Chroma vs a Chroma server (`chroma run` on loopback), on the seeds and the eval questions.

Prints one row per store: retrieval quality (hit@1, recall@5, MRR@10 over the answerable questions), search
latency (the whole hybrid search, and the vector-store query inside it), and ingest time (all of it, and the part
spent writing to the store). Both stores get the same vectors from one encoder, so quality should match; the
table shows whether it does and what the network hop costs.

    python -m eval.compare_stores [--repeats 3] [--mode hybrid] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rag.quiet import quiet_libraries

from .metrics import hit_at_k, mean, mrr_at_k, percentile, recall_at_k
from .questions import DEFAULT_QUESTIONS, Question, load_questions, resolve_gold

REPO = Path(__file__).resolve().parents[1]
QUALITY = (("hit@1", hit_at_k, 1), ("recall@5", recall_at_k, 5), ("MRR@10", mrr_at_k, 10))


class _Timer:
    """Accumulates the seconds spent in chosen methods of a class while active."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    @contextmanager
    def patch(self, owner: type, *names: str) -> Iterator[_Timer]:
        originals = {name: getattr(owner, name) for name in names}

        def timed(original: Callable) -> Callable:
            def wrapper(*args, **kwargs):
                started = time.perf_counter()
                try:
                    return original(*args, **kwargs)
                finally:
                    self.calls.append(time.perf_counter() - started)

            return wrapper

        for name, original in originals.items():
            setattr(owner, name, timed(original))
        try:
            yield self
        finally:
            for name, original in originals.items():
                setattr(owner, name, original)


def build(settings, embedder, seeds: list[Path]) -> tuple:
    """Ingest the seeds into a fresh index; returns the pipeline and its ingest numbers."""
    from rag.pipeline import Pipeline
    from rag.store import ChunkStore

    pipeline = Pipeline(settings, embedder=embedder)
    writes = _Timer()
    with writes.patch(ChunkStore, "add", "ids", "delete"):
        started = time.perf_counter()
        report = pipeline.ingest(seeds)
        ingest_s = time.perf_counter() - started
    return pipeline, {"ingest_s": ingest_s, "store_write_s": sum(writes.calls), "chunks": report.chunks}


def search_all(pipelines: dict[str, object], questions: list[Question], mode: str, repeats: int) -> dict[str, dict]:
    """Quality and latency per store. Searches alternate between the stores, so both see the same machine load."""
    from rag.store import ChunkStore

    names = list(pipelines)
    rankings: dict[str, dict[str, list[str]]] = {name: {} for name in names}
    search_s: dict[str, list[float]] = {name: [] for name in names}
    query_s: dict[str, list[float]] = {name: [] for name in names}
    for pipeline in pipelines.values():
        pipeline.search(questions[0].question, k=10, mode=mode)  # warm: store client, BM25 statistics
    for round_ in range(repeats):
        for i, q in enumerate(questions):
            order = names if (round_ + i) % 2 == 0 else names[::-1]
            for name in order:
                timer = _Timer()
                with timer.patch(ChunkStore, "query"):
                    started = time.perf_counter()
                    ranked = pipelines[name].search(q.question, k=10, mode=mode)
                    search_s[name].append(time.perf_counter() - started)
                query_s[name].extend(timer.calls)
                rankings[name][q.id] = [r.abstract.id for r in ranked]
    rows = {}
    for name, pipeline in pipelines.items():
        abstracts = pipeline.abstracts()
        gold = {q.id: resolve_gold(q, abstracts) for q in questions}
        row = {label: mean(fn(rankings[name][q.id], gold[q.id], k) for q in questions) for label, fn, k in QUALITY}
        row.update(
            search_p50_ms=1000 * percentile(search_s[name], 50),
            search_p95_ms=1000 * percentile(search_s[name], 95),
            store_query_p50_ms=1000 * percentile(query_s[name], 50),
            store_query_p95_ms=1000 * percentile(query_s[name], 95),
            rankings=rankings[name],
        )
        rows[name] = row
    return rows


COLUMNS = (  # title, row key, format
    ("hit@1", "hit@1", "{:.3f}"),
    ("recall@5", "recall@5", "{:.3f}"),
    ("MRR@10", "MRR@10", "{:.3f}"),
    ("search p50 ms", "search_p50_ms", "{:.1f}"),
    ("search p95 ms", "search_p95_ms", "{:.1f}"),
    ("store query p50 ms", "store_query_p50_ms", "{:.1f}"),
    ("store query p95 ms", "store_query_p95_ms", "{:.1f}"),
    ("ingest s", "ingest_s", "{:.1f}"),
    ("store writes s", "store_write_s", "{:.2f}"),
)


def format_table(rows: dict[str, dict]) -> str:
    lines = ["store".ljust(9) + "".join(f"  {title}" for title, _, _ in COLUMNS)]
    for name, row in rows.items():
        cells = [fmt.format(row[key]).rjust(len(title)) for title, key, fmt in COLUMNS]
        lines.append(name.ljust(9) + "".join(f"  {cell}" for cell in cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Embedded Chroma vs a Chroma server on the seeds.")
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--seeds", type=Path, default=REPO / "seeds")
    parser.add_argument("--mode", choices=["hybrid", "dense", "bm25"], default="hybrid")
    parser.add_argument("--repeats", type=int, default=3, help="searches per question, for latency percentiles")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON instead of a table")
    args = parser.parse_args(argv)
    quiet_libraries()
    logging.basicConfig(level=logging.ERROR)

    from rag.embedding import LocalSentenceEmbedding
    from rag.settings import Settings
    from tests.support.chroma_server import ChromaServer

    questions = [q for q in load_questions(args.questions) if q.answerable]
    embedder = LocalSentenceEmbedding("all-MiniLM-L6-v2")
    embedder.encode(["warm up"])
    with tempfile.TemporaryDirectory(prefix="compare-stores-") as tmp:
        tmp_path = Path(tmp)
        with ChromaServer(tmp_path / "server-data") as server:
            settings = {
                "embedded": Settings(data_dir=tmp_path / "embedded", chroma_host=None, backend="extractive"),
                "server": Settings(
                    data_dir=tmp_path / "server",
                    chroma_host=server.host,
                    chroma_port=server.port,
                    chroma_database="compare-stores",
                    backend="extractive",
                ),
            }
            built = {name: build(s, embedder, [args.seeds]) for name, s in settings.items()}
            rows = search_all({name: b[0] for name, b in built.items()}, questions, args.mode, args.repeats)
            for name, (_, ingest_numbers) in built.items():
                rows[name].update(ingest_numbers)
            start_s = server.start_seconds
    same = sum(rows["embedded"]["rankings"][q.id] == rows["server"]["rankings"][q.id] for q in questions)
    if args.json:
        payload = {name: {k: v for k, v in row.items() if k != "rankings"} for name, row in rows.items()}
        payload["server_start_s"] = start_s
        payload["identical_top10"] = [same, len(questions)]
        print(json.dumps(payload, indent=2))
        return 0
    print(format_table(rows))
    print(
        f"\n{len(questions)} answerable questions, retrieval mode {args.mode}, {args.repeats} searches each; "
        f"{rows['embedded']['chunks']} chunks."
    )
    print(f"identical top-10 rankings: {same}/{len(questions)}; `chroma run` ready (heartbeat) in {start_s:.2f} s.")
    print("ingest s includes embedding (same encoder for both); store writes s is the time inside the store.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
