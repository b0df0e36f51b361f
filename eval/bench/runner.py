"""`rag bench`: throughput, latency and memory of the real engine, each measurement next to its target.

Writes ``bench.json`` (every number), ``bench.md`` (a table with targets, and how each number was made) and
``bench.png`` (retrieval latency and peak RSS against corpus size) to ``--out`` (default: a timestamped folder
under ``bench/runs/``).

What runs where:

* the main process loads the embedder once, measures ingest of the seeds into a fresh temporary data folder, the
  extractive and model-backed answer paths, and the UI start (a subprocess);
* every corpus size is built in one fresh subprocess and served (opened, queried, answered) in another, so each
  peak RSS is that of a process which did only that.

Synthetic corpora (sizes above the seeds' own index) are made of real seed sentences recombined; their chunk vectors
are composed from the real sentence vectors, as ingest does, without encoding them again (see ``SYNTHETIC_METHOD``). Everything else -
``rag.corpus.build_corpus``, ``rag.ingest.chunk_corpus``/``to_nodes``, ``ChunkStore.add`` (LlamaIndex's
``ChromaVectorStore`` over a real persistent Chroma with its HNSW index), the manifest, ``IndexSnapshot``, BM25 and
``Pipeline.search``/``ask`` - is the product's own code, unchanged.

``python -m eval.bench --quick`` runs it without the CLI.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from rag.quiet import quiet_libraries

from .answers import AnswersSection
from .encoder import EncoderSection
from .ingest import IngestSection
from .measure import ROOT, _load
from .model import MODEL_MAX_TOKENS, ModelSection
from .report import TargetRows, markdown_table, plot, render_markdown
from .retrieval import RetrievalSection, worker_serve
from .scale import ScaleSection, worker_build
from .ui_start import UiStartSection
from .verify import VerifySection

DEFAULT_SIZES = (73, 1000, 10000, 100000)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sizes",
        default=",".join(str(s) for s in DEFAULT_SIZES),
        help="corpus sizes in chunks, comma-separated (default %(default)s; a size up to the seeds' chunk count "
        "means the real seed index)",
    )
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: bench/runs/<timestamp>)")
    parser.add_argument("--quick", action="store_true", help="tiny run for CI: seed index only, 3 queries per mode, "
                        "one seed file ingested, one short generation, one UI start")  # fmt: skip
    parser.add_argument("--seeds", type=Path, default=ROOT / "seeds", help="seed folder (default ./seeds)")
    parser.add_argument("--questions", type=Path, default=None, help="question file (default eval/questions.jsonl)")
    parser.add_argument("--model-repeats", type=int, default=3,
                        help="questions whose answers are timed, each ask/direct/direct/ask (default 3)")  # fmt: skip
    parser.add_argument("--model-max-tokens", type=int, default=MODEL_MAX_TOKENS,
                        help=f"tokens generated per answer on both sides (default {MODEL_MAX_TOKENS}; 0: no cap, "
                        "up to the server's 1024)")  # fmt: skip
    parser.add_argument("--ui-repeats", type=int, default=2, help="UI starts timed (default 2)")
    parser.add_argument("--skip-model", action="store_true", help="skip the GGUF model-path measurement")
    parser.add_argument("--skip-ui", action="store_true", help="skip the UI start measurement")
    parser.add_argument("--keep-data", action="store_true", help="keep the temporary index folders (path printed)")


def run(args: argparse.Namespace) -> int:
    quiet_libraries()
    sizes = _parse_sizes(args.sizes)
    if args.quick and args.sizes == ",".join(str(s) for s in DEFAULT_SIZES):
        sizes = [DEFAULT_SIZES[0]]
    out = Path(args.out) if args.out else ROOT / "bench" / "runs" / datetime.now().strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="rag-bench-"))
    try:
        result = Bench(args, sizes, out, work).run()
    finally:
        if args.keep_data:
            print(f"index folders kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"wrote {out / 'bench.md'}, bench.json, bench.png", file=sys.stderr)
    print(result["markdown_table"])
    return 0


def _parse_sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(part) for part in str(text).split(",") if part.strip()})
    except ValueError:
        raise SystemExit(f"--sizes must be comma-separated integers, not {text!r}") from None
    if not sizes or sizes[0] <= 0:
        raise SystemExit("--sizes needs at least one positive size")
    return sizes


class Bench(
    EncoderSection,
    IngestSection,
    ScaleSection,
    RetrievalSection,
    AnswersSection,
    VerifySection,
    ModelSection,
    UiStartSection,
    TargetRows,
):
    """The whole run; each section's steps come from its module."""

    def __init__(self, args: argparse.Namespace, sizes: list[int], out: Path, work: Path) -> None:
        self.args = args
        self.quick = bool(args.quick)
        self.sizes = sizes
        self.out = out
        self.work = work
        self.seeds = Path(args.seeds)
        self.result: dict[str, Any] = {}

    # -- orchestration ---------------------------------------------------------------------------------------
    def run(self) -> dict:
        from tqdm import tqdm

        from ..questions import DEFAULT_QUESTIONS, load_questions

        questions = load_questions(Path(self.args.questions) if self.args.questions else DEFAULT_QUESTIONS)
        self.questions = [q.question for q in questions]
        self.answerable = [q.question for q in questions if q.answerable]
        self.bar = tqdm(total=len(self.sizes) * 2 + 7, desc="bench", unit="step", file=sys.stderr,
                        dynamic_ncols=True)  # fmt: skip
        started = time.perf_counter()
        self.result["meta"] = self._meta()
        try:
            self._step("loading the embedder", self.measure_model_load)
            self._step("ingest", self.measure_ingest)
            synthetic = [s for s in self.sizes if s > self.seed_limit]
            self.bar.total = 2 + 1 + 1 + 2 * len(synthetic) + 4
            self.bar.refresh()
            self._step("seed sentence pool", self.prepare_pool)
            self.result["retrieval"] = []
            self._step("seed index: serve", lambda: self.result["retrieval"].append(self.serve_size(self.seed_size)))
            for size in synthetic:
                build = self._step(f"{size:,} chunks: build", lambda s=size: self.build_size(s))
                self._step(f"{size:,} chunks: serve", lambda s=size, b=build: self.result["retrieval"].append(
                    self.serve_size(s, b)))  # fmt: skip
            self._step("extractive answers", self.measure_extractive)
            self._step("claim checks", self.measure_verify)
            self._step("model path (GGUF)", self.measure_model_path)
            self._step("UI start", self.measure_ui_start)
        finally:
            self.bar.close()
        self.result["meta"]["total_s"] = round(time.perf_counter() - started, 1)
        self.result["meta"]["load_average_end"] = _load()
        self.result["targets"] = self.targets()
        table = markdown_table(self.result["targets"])
        (self.out / "bench.json").write_text(json.dumps(self.result, indent=2) + "\n")
        (self.out / "bench.md").write_text(render_markdown(self.result, table))
        plot(self.result, self.out / "bench.png")
        return {"markdown_table": table}

    def _step(self, description: str, fn: Callable[[], Any]) -> Any:
        self.bar.set_description(f"bench: {description}")
        try:
            return fn()
        finally:
            self.bar.update(1)

    def _meta(self) -> dict:
        commit = None
        with contextlib.suppress(Exception):
            commit = (
                subprocess.run(
                    ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10
                ).stdout.strip()
                or None
            )
        return {
            "started_at": datetime.now().isoformat(timespec="seconds"),
            "quick": self.quick,
            "sizes_requested": self.sizes,
            "git_commit": commit,
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "load_average_start": _load(),
            "seeds": str(self.seeds),
        }


def _worker_main(argv: Sequence[str]) -> int:
    quiet_libraries()
    import logging

    logging.basicConfig(level=logging.WARNING)
    kind, config_path = argv
    config = json.loads(Path(config_path).read_text())
    result = {"build": worker_build, "serve": worker_serve}[kind](config)
    Path(config["result"]).write_text(json.dumps(result))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_worker"]:
        return _worker_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m eval.bench", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))
