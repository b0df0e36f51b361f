"""Memory of the serving path, step by step: resident memory after each thing `rag ask`/`rag ui` does.

``python -m eval.memory_steps [--data-dir DIR] [--questions FILE] [--limit N] [--mappings N]`` opens the index in DIR (default: the settings'
data folder) the way the bench's serving worker does (``eval/bench/retrieval.py``: encoder, snapshot, Chroma store,
a warm-up search per mode, then searches and extractive answers) and prints, after each step, VmRSS (resident now),
VmHWM (the peak so far, what the bench reports as "peak RSS"), and resident memory split into anonymous (heap,
arenas) and file-backed (shared libraries, memory-mapped files) pages, each with its change from the step before.

tracemalloc does not see native allocations (ONNX Runtime, Chroma's Rust and HNSW, glibc's arenas); this does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rag.quiet import quiet_libraries

FIELDS = ("VmRSS", "VmHWM", "RssAnon", "RssFile")


def memory_mb() -> dict[str, float]:
    """VmRSS, VmHWM, RssAnon and RssFile of this process in MiB (Linux; empty elsewhere)."""
    values: dict[str, float] = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in FIELDS:
                values[key] = int(rest.split()[0]) / 1024
    except (OSError, ValueError):
        pass
    return values


def mappings_mb(top: int = 15) -> list[tuple[str, float, float]]:
    """The largest resident mappings at this moment, by file (anonymous memory as "[anon]", the heap as "[heap]"):
    (name, resident MiB, anonymous MiB), from /proc/self/smaps."""
    totals: dict[str, list[float]] = {}
    name = "[anon]"
    try:
        lines = Path("/proc/self/smaps").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        head = line.split(None, 5)
        if head and "-" in head[0] and not head[0].endswith(":"):
            name = head[5].strip() if len(head) > 5 and head[5].strip() else "[anon]"
            if "/site-packages/" in name:  # one row per package
                name = name.split("/site-packages/")[1].split("/")[0]
            totals.setdefault(name, [0.0, 0.0])
        elif head[:1] == ["Rss:"]:
            totals[name][0] += int(head[1]) / 1024
        elif head[:1] == ["Anonymous:"]:
            totals[name][1] += int(head[1]) / 1024
    rows = sorted(((n, r, a) for n, (r, a) in totals.items()), key=lambda row: -row[1])
    return rows[:top]


class Steps:
    """Prints one row per step: each field and its change since the previous row."""

    def __init__(self) -> None:
        self.last: dict[str, float] = {}
        self.rows: list[tuple[str, dict[str, float], float]] = []
        self.started = time.perf_counter()
        print(f"{'step':44} " + " ".join(f"{f:>16}" for f in FIELDS) + f" {'s':>6}", flush=True)

    def mark(self, step: str) -> None:
        now = memory_mb()
        cells = []
        for field in FIELDS:
            value = now.get(field, float("nan"))
            delta = value - self.last.get(field, value)
            cells.append(f"{value:7.1f} ({delta:+6.1f})")
        seconds = time.perf_counter() - self.started
        print(f"{step[:44]:44} " + " ".join(cells) + f" {seconds:6.1f}", flush=True)
        self.rows.append((step, now, seconds))
        self.last = now


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.memory_steps", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=None, help="index folder (default: the settings' one)")
    parser.add_argument("--questions", type=Path, default=None, help="question file (default eval/questions.jsonl)")
    parser.add_argument("--limit", type=int, default=0, help="answer only the first N questions (default: all)")
    parser.add_argument("--no-search", action="store_true", help="skip the per-mode searches (answers only)")
    parser.add_argument(
        "--mappings",
        type=int,
        default=0,
        metavar="N",
        help="at the end, print the N largest resident mappings (by file; anonymous memory apart)",
    )
    args = parser.parse_args(argv)
    quiet_libraries()
    steps = Steps()
    steps.mark("python started")
    import numpy  # noqa: F401

    steps.mark("import numpy")
    import onnxruntime  # noqa: F401

    steps.mark("import onnxruntime")
    from rag.store import defer_unused_imports

    defer_unused_imports()  # as rag.store does before it imports chromadb
    import chromadb  # noqa: F401

    steps.mark("import chromadb")
    from rag.embedding import LocalSentenceEmbedding
    from rag.pipeline import Pipeline
    from rag.question import profile
    from rag.settings import Settings

    from .questions import DEFAULT_QUESTIONS, load_questions

    steps.mark("import rag.pipeline")
    settings = Settings(backend="extractive", **({"data_dir": args.data_dir} if args.data_dir else {}))
    embedder = LocalSentenceEmbedding(
        settings.embed_model, batch_size=settings.embed_batch_size, threads=settings.embed_threads,
        ingest_threads=settings.ingest_threads, cache_dir=settings.models_dir, query_int8=settings.embed_query_int8,
    )  # fmt: skip
    steps.mark("encoder object")
    embedder.encode(["warm up"])
    steps.mark("encoder: first encode")
    pipeline = Pipeline(settings, embedder=embedder)
    snapshot = pipeline.snapshot
    steps.mark(f"snapshot ({len(snapshot.chunks):,} chunks)")
    store = pipeline.store
    steps.mark("store open")
    questions = [q.question for q in load_questions(args.questions or DEFAULT_QUESTIONS)]
    if args.limit:
        questions = questions[: args.limit]
    modes = ("dense", "bm25", "hybrid")
    for mode in modes:
        pipeline.search(questions[0], mode=mode)
        steps.mark(f"first search: {mode}")
    if not args.no_search:
        for q in questions:
            for mode in modes:
                pipeline.search(q, mode=mode)
            embedder.encode([q])
        steps.mark(f"searches: {len(questions)} q x {len(modes)} modes")
    seen: set[str] = set()
    for q in questions:
        kind = profile(q).kind
        pipeline.ask(q, backend="extractive")
        if kind not in seen:
            seen.add(kind)
            steps.mark(f"first answer: {kind}")
    steps.mark(f"all {len(questions)} answers")
    del store
    print(f"peak (VmHWM) {memory_mb().get('VmHWM', float('nan')):.1f} MiB", flush=True)
    if args.mappings:
        print(f"\n{'mapping':60} {'resident':>9} {'of it anon':>10}")
        for name, resident, anon in mappings_mb(args.mappings):
            print(f"{name[-60:]:60} {resident:9.1f} {anon:10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
