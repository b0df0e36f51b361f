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
import math
import os
import platform
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from rag.quiet import quiet_libraries

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SIZES = (73, 1000, 10000, 100000)
QUICK_QUERIES = 3
SYNTH_SEED = 20260
MIN_SENTENCES, MAX_SENTENCES = 6, 10
MODEL_NAME = "gemma3:270m"
QUICK_MAX_TOKENS = 24  # --quick caps generation in the server, so one ask takes seconds
MODEL_MAX_TOKENS = 256  # a typical answer's length; both sides generate exactly as many tokens
WORKER_TIMEOUT_S = 4 * 3600
UI_TIMEOUT_S = 180

TARGETS = {
    "ingest_speedup": 2.5,  # ingest sentences/s over the old path's (sentence-transformers, 1 thread), at least
    "first_ui_start_s": 12.0,  # `rag ui` from a fresh data folder to the page, index built
    "query_encode_p50_ms": 5.0,
    "serving_rss_mib_seeds": 200.0,
    "list_p95_ms_100k": 150.0,
    "index_load_s_100k": 3.0,
    "serving_rss_mib_100k": 1024.0,
    "retrieval_p95_ms_seeds": 25.0,
    "retrieval_p95_ms_100k": 60.0,
    "extractive_p95_ms": 150.0,
    "verify_p95_ms": 20.0,  # checking one generated sentence against its abstract, no model
    "model_overhead_ratio": 1.10,  # at most
    "ui_start_s": 5.0,
}

# The targets' figures before issue #18's second round (one `rag bench --sizes 73,100000 --skip-model` at bc8c886,
# same 2-core machine), printed beside this run's in the table's Before column.
BEFORE = {
    "ingest_speedup": "2.29×",
    "first_ui_start_s": "15.8 s",
    "query_encode_p50_ms": "9.2 ms",
    "serving_rss_mib_seeds": "289.5 MiB",
    "list_p95_ms_100k": "65 ms",
    "index_load_s_100k": "7.8 s",
    "serving_rss_mib_100k": "1569 MiB",
}

SYNTHETIC_METHOD = (
    "Sizes are in chunks. The smallest size (any size up to the seeds' own chunk count; 73 by default) is the real "
    "index of ./seeds, built by `Pipeline.ingest`. A larger size N is the real seed index plus synthetic abstracts "
    f"until it holds exactly N chunks. A synthetic abstract is {MIN_SENTENCES}-{MAX_SENTENCES} sentences "
    f"(uniform count; `random.Random({SYNTH_SEED} + N)`) drawn without replacement from all seed sentences, in "
    "random order, joined by one space; a draw whose text `rag.text.sentence_spans` would split differently is "
    "redrawn, so every synthetic sentence is a real seed sentence with a real vector. Draws go through "
    "`rag.corpus.build_corpus` (labels, IDs, sentence spans) and `rag.ingest.chunk_corpus` (the real chunker; token "
    "counts of seed sentences are looked up, counted once by the real tokenizer). The last abstracts are drawn so "
    "the count lands exactly on N. Vectors: a synthetic chunk's vector is the L2-normalised mean of the real MiniLM "
    "vectors of the sentences it consists of, which is how `rag ingest` makes chunk vectors too; sentence vectors "
    "are the real ones, looked up instead of encoded again (encoding 100k chunks' sentences on 2 cores takes most of "
    "an hour). The store "
    "(ChunkStore.add with TextNodes from rag.ingest.to_nodes into a persistent Chroma collection, HNSW cosine), the "
    "manifest and sentence-vector files, IndexSnapshot with both BM25 indexes, and the query path "
    "(Pipeline.search / Pipeline.ask) are the real ones, unchanged."
)


# ==============================================================================================================
# CLI


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


# ==============================================================================================================
# Small measurement helpers


def stats_ms(seconds: Sequence[float]) -> dict[str, float | int]:
    """p50/p95/mean/max in milliseconds (numpy's linear percentiles) and the sample count."""
    import numpy as np

    if not seconds:
        return {"n": 0}
    ms = np.asarray(seconds, dtype=float) * 1000.0
    return {
        "n": int(ms.size),
        "p50_ms": round(float(np.percentile(ms, 50)), 3),
        "p95_ms": round(float(np.percentile(ms, 95)), 3),
        "mean_ms": round(float(ms.mean()), 3),
        "max_ms": round(float(ms.max()), 3),
    }


def peak_rss_mb() -> float:
    """Peak resident set size of this process's address space so far.

    Linux: VmHWM from /proc/self/status. Not ``ru_maxrss``: the kernel carries the parent's high-water mark over
    fork+exec into it, so a fresh subprocess would report at least its parent's RSS.
    """
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return round(peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024, 1)


def current_rss_mb() -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def _load() -> list[float] | None:
    with contextlib.suppress(OSError, AttributeError):
        return [round(x, 2) for x in os.getloadavg()]
    return None


@contextlib.contextmanager
def timed_encode(embedder: Any, calls: list[tuple[str, int, float]], phase: Callable[[], str]) -> Iterator[None]:
    """Record (phase, texts, seconds) of every ``embedder.encode`` call while active (the instance is patched)."""
    original = type(embedder).encode

    def encode(texts, batch_size=None):
        started = time.perf_counter()
        try:
            return original(embedder, texts, batch_size)
        finally:
            calls.append((phase(), len(texts), time.perf_counter() - started))

    embedder.encode = encode  # the instance's attribute wins over the class's method
    try:
        yield
    finally:
        embedder.__dict__.pop("encode", None)


def cpu_peak() -> dict:
    """An estimate of the CPU's peak float32 rate: cores × clock × FLOPs per cycle from the SIMD flags.

    FLOPs per cycle assume two FMA units per core (true of Intel since Haswell and AMD since Zen 2; some AVX-512
    parts have one for 512-bit work): AVX-512 2 × 16 lanes × 2 = 64, AVX2+FMA 2 × 8 × 2 = 32, AVX 16, SSE 8. The
    clock is the highest "cpu MHz" /proc/cpuinfo reports (a VM often shows the base clock; turbo is not counted).
    """
    flags: set[str] = set()
    mhz: list[float] = []
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "flags":
                flags |= set(value.split())
            elif key == "cpu MHz":
                with contextlib.suppress(ValueError):
                    mhz.append(float(value))
            elif key == "model name":
                model = value.strip()
    if "avx512f" in flags:
        per_cycle, simd = 64, "AVX-512 FMA"
    elif {"avx2", "fma"} <= flags:
        per_cycle, simd = 32, "AVX2 + FMA"
    elif "avx" in flags:
        per_cycle, simd = 16, "AVX"
    else:
        per_cycle, simd = 8, "SSE"
    from rag.onnx_encoder import all_cores

    cores = all_cores()
    ghz = max(mhz) / 1000 if mhz else None
    per_core = ghz * per_cycle if ghz else None
    return {
        "cpu": model,
        "cores": cores,
        "ghz": None if ghz is None else round(ghz, 3),
        "simd": simd,
        "flops_per_cycle": per_cycle,
        "int8_dot_product": bool({"avx512_vnni", "avx_vnni", "amx_int8"} & flags),
        "gflops_per_core": None if per_core is None else round(per_core, 1),
        "gflops": None if per_core is None else round(per_core * cores, 1),
    }


class SentenceTransformersEncoder:
    """The old ingest encoder, for the bench's old-vs-new comparison only: MiniLM in sentence-transformers on torch.

    Same interface as the product's encoder where ingest touches it; token counts come from the product's encoder
    (the same tokenizer.json). Importing it loads torch (seconds); the product itself never does.
    """

    def __init__(self, product: Any, threads: int = 1) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        self.torch = torch
        self.product = product
        self.threads = threads
        self.model_name = product.model_name
        self.embed_batch_size = product.embed_batch_size
        self.max_tokens = product.max_tokens
        self.dimension = product.dimension
        self.model = SentenceTransformer(str(product.path), device="cpu", local_files_only=True)

    def count_tokens(self, text: str) -> int:
        return self.product.count_tokens(text)

    def prepare(self, n_texts: int) -> None:
        pass

    def encode_with_threads(self, texts: list[str], threads: int, batch_size: int | None = None) -> Any:
        import numpy as np

        self.torch.set_num_threads(threads)  # process-wide; set on every call, the bench switches between them
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        return self.model.encode(list(texts), batch_size=batch_size or self.embed_batch_size,
                                 normalize_embeddings=True, convert_to_numpy=True,
                                 show_progress_bar=False).astype(np.float32, copy=False)  # fmt: skip

    def encode(self, texts: list[str], batch_size: int | None = None) -> Any:
        return self.encode_with_threads(texts, self.threads, batch_size)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _run_worker(kind: str, config: dict, work: Path) -> dict:
    """Run ``python -m eval.bench _worker KIND CONFIG`` in a fresh process; its stderr (progress) passes through."""
    config_path = work / f"{kind}-{config['label']}.json"
    result_path = work / f"{kind}-{config['label']}.result.json"
    config = dict(config, result=str(result_path))
    config_path.write_text(json.dumps(config))
    proc = subprocess.run(
        [sys.executable, "-m", "eval.bench", "_worker", kind, str(config_path)],
        cwd=ROOT,
        env=_subprocess_env(),
        stdout=subprocess.DEVNULL,
        timeout=WORKER_TIMEOUT_S,
    )
    if proc.returncode != 0 or not result_path.exists():
        raise RuntimeError(f"bench worker {kind} {config['label']} failed with exit code {proc.returncode}")
    return json.loads(result_path.read_text())


# ==============================================================================================================
# The benchmark


class Bench:
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

        from .questions import DEFAULT_QUESTIONS, load_questions

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

    # -- model load --------------------------------------------------------------------------------------------
    def measure_model_load(self) -> None:
        from rag.settings import Settings

        settings = Settings()
        self.batch_size = settings.embed_batch_size
        from rag.embedding import LocalSentenceEmbedding

        def load(cache: Path) -> tuple[Any, float]:
            started = time.perf_counter()
            embedder = LocalSentenceEmbedding(
                settings.embed_model, batch_size=self.batch_size, threads=settings.embed_threads,
                ingest_threads=settings.ingest_threads, cache_dir=cache, query_int8=settings.embed_query_int8,
            )  # fmt: skip
            return embedder, time.perf_counter() - started

        cache = self.work / "models"
        _, export_s = load(cache)  # a fresh cache folder: writes the ONNX graph from the weights
        self.embedder, load_s = load(cache)  # what every later start does: opens the cached file
        started = time.perf_counter()
        self.embedder.encode(["warm up"])
        first_encode_s = time.perf_counter() - started
        self.reference = None
        reference_s = None
        try:
            started = time.perf_counter()
            self.reference = SentenceTransformersEncoder(self.embedder, threads=settings.embed_threads)
            reference_s = time.perf_counter() - started
        except ImportError as exc:  # a non-dev install: no old path to compare with
            self.reference_missing = f"sentence-transformers is not importable ({exc})"
        started = time.perf_counter()
        import chromadb  # noqa: F401 - imported here so that neither ingest round pays for it
        import llama_index.core  # noqa: F401

        libraries_load_s = time.perf_counter() - started
        self.result["model_load"] = {
            "embed_model": settings.embed_model,
            "export_s": round(export_s, 3),
            "load_s": round(load_s, 3),
            "first_encode_s": round(first_encode_s, 3),
            "reference_load_s": None if reference_s is None else round(reference_s, 3),
            "libraries_load_s": round(libraries_load_s, 3),
            "note": "export_s: writing MiniLM's ONNX graph from the packaged weights into a fresh cache folder and "
            "opening it (once per data folder); load_s: opening the cached file (every later start); "
            "bulk_session_s: the all-cores session for ingest; reference_load_s: importing torch and "
            "sentence-transformers and loading MiniLM there (the old ingest path, measured below for comparison "
            "only); libraries_load_s: importing chromadb and LlamaIndex's core. All once per process, excluded from "
            "the ingest numbers.",
        }

    # -- encoder throughput ----------------------------------------------------------------------------------
    def measure_encoders(self, texts: list[str]) -> dict:
        """Raw encoders on ``texts`` (what ingest encodes), interleaved: ONNX Runtime on all cores and on one, and
        the old path (sentence-transformers on torch) on one thread and on all cores; tokens/s and GFLOP/s next to
        the CPU's peak."""
        encoder = self.embedder.onnx_encoder
        lengths = [len(ids) for ids in encoder.token_ids(texts)]
        tokens = sum(lengths)
        flops = sum(encoder.shape.flops_per_sequence(n) for n in lengths)
        from rag.onnx_encoder import OnnxSentenceEncoder

        cores = self.embedder.ingest_threads
        runners: dict[str, Callable[[], Any]] = {
            f"onnx_{cores}_threads": lambda: encoder.encode(texts, self.batch_size, workers=cores),
            "onnx_1_thread": lambda: encoder.encode(texts, self.batch_size, workers=1),
        }
        if cores > 1:  # the alternative to data-parallel batches: one batch at a time on intra-op threads
            intra = OnnxSentenceEncoder(encoder.folder, self.work / "models", threads=cores, int8=False)
            runners[f"onnx_intra_op_{cores}_threads"] = lambda: intra.encode(texts, self.batch_size)
        # The question graph (int8, one text per call, one thread), for comparison only: never used for ingest.
        runners["int8_onnx_1_thread"] = lambda: self.embedder.query_encoder.encode(texts, 1, workers=1)
        if self.reference is not None:
            runners["torch_1_thread"] = lambda: self.reference.encode_with_threads(texts, 1)
            runners[f"torch_{cores}_threads"] = lambda: self.reference.encode_with_threads(texts, cores)
        times: dict[str, list[float]] = {name: [] for name in runners}
        runners[f"onnx_{cores}_threads"]()  # warm both sessions' buffers
        for _ in range(1 if self.quick else 2):
            for name, fn in runners.items():
                started = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - started)
        peak = cpu_peak()
        out: dict[str, Any] = {
            "texts": len(texts),
            "tokens": tokens,
            "gflop": round(flops / 1e9, 3),
            "flop_per_token_m": round(flops / tokens / 1e6, 2),
            "batch_size": self.batch_size,
            "peak": peak,
            "runs": {},
        }
        for name, seconds in times.items():
            best = min(seconds)
            threads = 1 if name.endswith("_1_thread") else cores
            gflops = flops / best / 1e9
            peak_gflops = peak["gflops_per_core"] * threads if peak.get("gflops_per_core") else None
            out["runs"][name] = {
                "threads": threads,
                "seconds": [round(s, 3) for s in seconds],
                "texts_per_s": round(len(texts) / best, 1),
                "tokens_per_s": round(tokens / best, 0),
                "gflops": round(gflops, 1),
                "share_of_peak": round(gflops / peak_gflops, 3) if peak_gflops else None,
            }
        out["best_onnx"] = max((n for n in out["runs"] if n.startswith("onnx")),
                               key=lambda n: out["runs"][n]["texts_per_s"])  # fmt: skip
        return out

    # -- ingest ------------------------------------------------------------------------------------------------
    def measure_ingest(self) -> None:
        import numpy as np

        from rag.corpus import find_seed_files, load_corpus
        from rag.ingest import chunk_corpus, vector_recipe
        from rag.manifest import load_manifest, load_sentence_vectors
        from rag.pipeline import Pipeline
        from rag.settings import Settings

        seed_paths = find_seed_files([self.seeds])[:1] if self.quick else [self.seeds]
        self.seed_paths = seed_paths
        self.seed_dir = self.work / "seeds-index"
        settings = Settings(data_dir=self.seed_dir, backend="extractive")
        abstracts = load_corpus(seed_paths)
        chunks = chunk_corpus(abstracts, self.embedder, settings)
        by_abstract: dict[str, list] = {}
        for chunk in chunks:
            by_abstract.setdefault(chunk.abstract_id, []).append(chunk)
        own_texts = [t for a in abstracts for t in vector_recipe(a, by_abstract[a.id]).texts]
        encoders = self.measure_encoders(own_texts)
        self.result["encoder"] = encoders

        def one_ingest(embedder: Any, data_dir: Path) -> tuple[dict, Any, Any]:
            calls: list[tuple[str, int, float]] = []
            run_pipeline = Pipeline(settings.model_copy(update={"data_dir": data_dir}), embedder=embedder)
            with timed_encode(embedder, calls, lambda: "ingest"):
                started = time.perf_counter()
                run_report = run_pipeline.ingest(seed_paths)
                seconds = time.perf_counter() - started
            run = {"ingest_s": seconds, "encode_s": sum(s for _, _, s in calls),
                   "encoded_texts": sum(n for _, n, _ in calls)}  # fmt: skip
            return run, run_pipeline, run_report

        # new, old, old, new: an ABBA order, so a change in machine load hits both paths alike.
        order = ["new", "old"] if self.reference is not None else ["new"]
        if not self.quick:
            order += order[::-1]
        runs: dict[str, list[dict]] = {"new": [], "old": []}
        pipeline = report = old_dir = None
        for i, path in enumerate(order):
            data_dir = self.seed_dir if (path == "new" and pipeline is None) else self.work / f"ingest-{path}-{i}"
            run, run_pipeline, run_report = one_ingest(self.embedder if path == "new" else self.reference, data_dir)
            runs[path].append(run)
            if path == "new" and pipeline is None:
                pipeline, report = run_pipeline, run_report
            elif path == "old" and old_dir is None:
                old_dir = data_dir
        sentences = sum(len(a.sentences) for a in abstracts)

        def mean(path: str, key: str) -> float:
            return sum(r[key] for r in runs[path]) / len(runs[path])

        ingest_s, encode_s = mean("new", "ingest_s"), mean("new", "encode_s")
        best_raw = encoders["runs"][encoders["best_onnx"]]
        section = {
            "seed_files": [p.name for p in seed_paths] if self.quick else [str(self.seeds)],
            "abstracts": report.abstracts,
            "chunks": report.chunks,
            "sentences": sentences,
            "encoded_texts": int(mean("new", "encoded_texts")),
            "order": order,
            "batch_size": self.batch_size,
            "ingest_threads": self.embedder.ingest_threads,
            "ingest_runs_s": [round(r["ingest_s"], 3) for r in runs["new"]],
            "ingest_s": round(ingest_s, 3),
            "sentences_per_s": round(sentences / ingest_s, 2),
            "abstracts_per_s": round(report.abstracts / ingest_s, 3),
            "chunks_per_s": round(report.chunks / ingest_s, 3),
            "encode_s": round(encode_s, 3),
            "other_s": round(ingest_s - encode_s, 3),
            "best_onnx": encoders["best_onnx"],
            "raw_onnx_texts_per_s": best_raw["texts_per_s"],
            "ratio_to_raw_onnx": round((len(own_texts) / ingest_s) / best_raw["texts_per_s"], 3),
            "target_speedup": TARGETS["ingest_speedup"],
        }
        if runs["old"]:
            old_s = mean("old", "ingest_s")
            new_vectors = load_sentence_vectors(settings.index_dir, load_manifest(settings.index_dir))
            old_settings = settings.model_copy(update={"data_dir": old_dir})
            old_vectors = load_sentence_vectors(old_settings.index_dir, load_manifest(old_settings.index_dir))
            cosine = (np.asarray(new_vectors) * np.asarray(old_vectors)).sum(axis=1)
            section.update(
                old_path="sentence-transformers on torch, 1 thread (embed_threads=1 was used for ingest too), "
                f"batch {self.batch_size}, in the same Pipeline.ingest",
                old_ingest_runs_s=[round(r["ingest_s"], 3) for r in runs["old"]],
                old_ingest_s=round(old_s, 3),
                old_encode_s=round(mean("old", "encode_s"), 3),
                old_sentences_per_s=round(sentences / old_s, 2),
                speedup=round(old_s / ingest_s, 3),
                cosine_min=round(float(cosine.min()), 7),
                cosine_mean=round(float(cosine.mean()), 7),
            )
        for path, i in zip(order, range(len(order)), strict=True):
            if not (path == "new" and i == 0):
                shutil.rmtree(self.work / f"ingest-{path}-{i}", ignore_errors=True)
        self.seed_chunks = report.chunks
        self.seed_abstracts = report.abstracts
        # Sizes up to the full seed index's chunk count mean the seed index (in --quick, its one-file subset).
        full = Settings(data_dir=self.seed_dir)
        self.seed_limit = (
            len(chunk_corpus(load_corpus([self.seeds]), self.embedder, full)) if self.quick else report.chunks
        )
        self.seed_size = next((s for s in self.sizes if s <= self.seed_limit), self.sizes[0])
        self.result["ingest"] = section
        self.pipeline = pipeline

    # -- synthetic corpora -----------------------------------------------------------------------------------
    def prepare_pool(self) -> None:
        """The seed sentences with their real vectors and token counts, for the build workers."""
        import numpy as np

        snapshot = self.pipeline.snapshot
        texts = snapshot.sentence_texts
        limit = min(self.pipeline.settings.chunk_tokens, self.embedder.max_tokens) - 2
        unique: dict[str, int] = {}
        for row, text in enumerate(texts):
            unique.setdefault(text, row)
        pool_texts = list(unique)
        counts = [self.embedder.count_tokens(t) for t in pool_texts]
        keep = [i for i, c in enumerate(counts) if c <= limit // 2]  # no sentence the chunker would split
        self.pool_path = self.work / "pool.npz"
        np.savez(
            self.pool_path,
            vectors=snapshot.sentence_vectors[[unique[pool_texts[i]] for i in keep]],
        )
        (self.work / "pool.json").write_text(
            json.dumps(
                {
                    "texts": [pool_texts[i] for i in keep],
                    "tokens": [counts[i] for i in keep],
                    "max_tokens": self.embedder.max_tokens,
                }
            )  # fmt: skip
        )

    def build_size(self, size: int) -> dict:
        config = {
            "label": str(size),
            "size": size,
            "seed_dir": str(self.seed_dir),
            "data_dir": str(self.work / f"index-{size}"),
            "pool": str(self.pool_path),
            "pool_meta": str(self.work / "pool.json"),
        }
        return _run_worker("build", config, self.work)

    def serve_size(self, size: int, build: dict | None = None) -> dict:
        data_dir = self.seed_dir if build is None else Path(build["data_dir"])
        n = QUICK_QUERIES if self.quick else None
        config = {
            "label": str(size),
            "data_dir": str(data_dir),
            "questions": self.questions[:n] if n else self.questions,
            "extractive_questions": self.questions[:n] if n else self.questions,
            "models_dir": str(self.work / "models"),
        }
        served = _run_worker("serve", config, self.work)
        served["size_requested"] = size
        served["kind"] = "seeds" if build is None else "synthetic"
        if build is not None:
            served["build"] = {k: v for k, v in build.items() if k not in ("data_dir", "result")}
        else:
            served["build"] = {"seconds": self.result["ingest"]["ingest_s"], "note": "the real ingest above"}
        return served

    # -- extractive answer (seed index, this process, warm) -------------------------------------------------
    def measure_extractive(self) -> None:
        questions = self.questions[:QUICK_QUERIES] if self.quick else self.questions
        pipeline = self.pipeline
        pipeline.ask(questions[0], backend="extractive")  # warm: snapshot, BM25, first encode
        times, retrieve, abstained = [], [], 0
        for q in questions:
            started = time.perf_counter()
            answer = pipeline.ask(q, backend="extractive")
            times.append(time.perf_counter() - started)
            retrieve.append(answer.timings.retrieve_s)
            abstained += answer.abstained
        self.result["extractive"] = {
            "index": f"seeds ({self.seed_abstracts} abstracts, {self.seed_chunks} chunks)",
            **stats_ms(times),
            "retrieve_stage": stats_ms(retrieve),
            "abstained": abstained,
            "target_p95_ms": TARGETS["extractive_p95_ms"],
        }

    def measure_verify(self) -> None:
        """Per-sentence claim checking on the seed index (the eval claims; MiniLM encoding + checks, no model)."""
        from .calibrate import DEFAULT_CLAIMS, load_claims, timing

        try:
            claims = load_claims(DEFAULT_CLAIMS, self.pipeline)
        except SystemExit as exc:  # another corpus than ./seeds: the claims name abstracts it does not have
            self.result["verify"] = {"skipped": f"eval/claims.jsonl does not fit this corpus ({exc})"}
            return
        if self.quick:
            claims = claims[:QUICK_QUERIES]
        policy = self.pipeline.settings.verify
        timing(claims[:5], self.pipeline, policy)  # warm: tokenizer caches, wordfreq's table
        p50, p95, checks_p95 = timing(claims, self.pipeline, policy)
        self.result["verify"] = {"claims": len(claims), "p50_ms": round(p50, 1), "p95_ms": round(p95, 1),
                                 "checks_alone_p95_ms": round(checks_p95, 1),
                                 "target_p95_ms": TARGETS["verify_p95_ms"]}  # fmt: skip

    # -- model path ------------------------------------------------------------------------------------------
    def measure_model_path(self) -> None:
        section: dict[str, Any] = {"model": MODEL_NAME, "target_ratio": TARGETS["model_overhead_ratio"]}
        self.result["model_path"] = section
        if self.args.skip_model:
            section["skipped"] = "--skip-model"
            return
        try:
            import llama_cpp  # noqa: F401

            from tests.support.ollama_server import LlamaCppBackend, gemma3_270m_gguf

            gguf = gemma3_270m_gguf()
        except ImportError as exc:
            section["skipped"] = f"llama_cpp or the GGUF package is not importable ({exc})"
            return
        try:
            section.update(measure_model_path(self, LlamaCppBackend, gguf))
        except Exception as exc:  # noqa: BLE001 - report it; the other sections stand
            section["skipped"] = f"failed: {type(exc).__name__}: {exc}"

    # -- UI start --------------------------------------------------------------------------------------------
    def measure_ui_start(self) -> None:
        section: dict[str, Any] = {"target_s": TARGETS["ui_start_s"]}
        self.result["ui_start"] = section
        if self.args.skip_ui:
            section["skipped"] = "--skip-ui"
            return
        repeats = 1 if self.quick else max(1, self.args.ui_repeats)
        method, runs = None, []
        try:
            for _ in range(repeats):
                method, run = time_ui_start(self.seed_dir)
                runs.append(run)
        except Exception as exc:  # noqa: BLE001 - report it; the other sections stand
            section["skipped"] = f"failed: {type(exc).__name__}: {str(exc)[:1500]}"
            return
        fresh = self.work / "first-start"
        try:
            _, first = time_ui_start(fresh, seeds=self.seeds)
            section["first_start"] = first
        except Exception as exc:  # noqa: BLE001 - report it; the other sections stand
            section["first_start_failed"] = f"{type(exc).__name__}: {str(exc)[:1500]}"
        finally:
            shutil.rmtree(fresh, ignore_errors=True)
        seconds = [r["seconds"] for r in runs]
        section.update(
            method=method,
            index=f"seeds ({self.seed_abstracts} abstracts, {self.seed_chunks} chunks), existing",
            seconds=round(min(seconds), 3),
            runs=runs,
        )
        loaded = [r["loaded_s"] for r in runs if "loaded_s" in r]
        if loaded:
            section["loaded_s"] = round(min(loaded), 3)

    # -- targets ---------------------------------------------------------------------------------------------
    def targets(self) -> list[dict]:
        r = self.result
        rows: list[dict] = []

        def row(name, value, target, ok, unit="", before=None):
            rows.append({"measurement": name, "value": value, "unit": unit, "target": target, "pass": ok,
                         "before": BEFORE.get(before, "—") if before else "—"})  # fmt: skip

        ing, enc, ml = r["ingest"], r["encoder"], r["model_load"]
        peak = enc["peak"]
        row("model load: ONNX graph written from the weights (fresh data folder) / opened from its cache",
            f"{ml['export_s']:.2f} / {ml['load_s']:.2f}", "—", None, "s")  # fmt: skip
        if ml.get("reference_load_s") is not None:
            row("old path's model load (torch + sentence-transformers), excluded below", ml["reference_load_s"], "—",
                None, "s")  # fmt: skip
        row(f"CPU peak estimate ({peak['cores']} cores × {peak['ghz']} GHz × {peak['flops_per_cycle']} FLOP/cycle, "
            f"{peak['simd']})", peak["gflops"], "—", None, "GFLOP/s")  # fmt: skip
        for name, run in enc["runs"].items():
            share = f", {run['share_of_peak']:.0%} of its cores' peak" if run["share_of_peak"] else ""
            row(f"raw encoder {name.replace('_', ' ')}: tokens/s, GFLOP/s{share} ({enc['texts']} texts, "
                f"{enc['flop_per_token_m']} MFLOP/token)", f"{run['tokens_per_s']:,.0f} tok/s, {run['gflops']} GFLOP/s",
                "—", None)  # fmt: skip
        row("ingest of the seeds: sentences/s, new (ONNX Runtime, all cores)", ing["sentences_per_s"], "—", None, "/s")
        if "old_sentences_per_s" in ing:
            row("ingest of the seeds: sentences/s, old (sentence-transformers, 1 thread), same run",
                ing["old_sentences_per_s"], "—", None, "/s")  # fmt: skip
            row("ingest speed-up, new ÷ old (same run, ABBA order)", ing["speedup"], "≥ 2.5×",
                ing["speedup"] >= TARGETS["ingest_speedup"], "×", "ingest_speedup")  # fmt: skip
            row("cosine, new vs old sentence vectors: min over every seed sentence", ing["cosine_min"], "≥ 0.99",
                ing["cosine_min"] >= 0.99)  # fmt: skip
        else:
            row("ingest speed-up, new ÷ old", f"skipped: {r['model_load'].get('reference_missing', 'no old path')}",
                "≥ 2.5×", None)  # fmt: skip
        row(f"ingest ÷ best raw encoder ({ing['best_onnx']}, same texts)", ing["ratio_to_raw_onnx"], "—", None,
            "×")  # fmt: skip
        largest = max(r["retrieval"], key=lambda s: s["chunks"])
        for s in r["retrieval"]:
            target = None
            if s["kind"] == "seeds":
                target = TARGETS["retrieval_p95_ms_seeds"]
            elif s is largest and s["chunks"] >= 100_000:
                target = TARGETS["retrieval_p95_ms_100k"]
            for mode in ("dense", "bm25", "hybrid"):
                m = s["latency"][mode]
                row(f"retrieval p50 / p95, {mode}, {s['chunks']:,} chunks", f"{m['p50_ms']:.1f} / {m['p95_ms']:.1f}",
                    f"p95 ≤ {target:g} ms" if target else "—",
                    (m["p95_ms"] <= target) if target else None, "ms")  # fmt: skip
        for s in r["retrieval"]:
            g, enc = s["latency_given_vector"]["hybrid"], s["query_encode"]
            row(f"retrieval p50 / p95, hybrid with the question vector given, {s['chunks']:,} chunks",
                f"{g['p50_ms']:.1f} / {g['p95_ms']:.1f}", "—", None, "ms")  # fmt: skip
            row(f"query encoding p50 / p95 (MiniLM, 1 question, 1 thread), {s['chunks']:,}-chunk run",
                f"{enc['p50_ms']:.1f} / {enc['p95_ms']:.1f}", "p50 ≤ 5 ms",
                enc["p50_ms"] <= TARGETS["query_encode_p50_ms"], "ms", "query_encode_p50_ms")  # fmt: skip
        big = largest if largest["chunks"] >= 100_000 else None
        for s in r["retrieval"]:
            load_s = s["snapshot_load_s"] + s["store_open_s"]
            target = "≤ 3 s" if s is big else "—"
            row(f"index load (manifest, vectors, BM25, store), {s['chunks']:,} chunks", round(load_s, 3), target,
                load_s <= TARGETS["index_load_s_100k"] if s is big else None, "s",
                "index_load_s_100k" if s is big else None)  # fmt: skip
        for s in r["retrieval"]:
            limit = TARGETS["serving_rss_mib_seeds"] if s["kind"] == "seeds" else None
            limit = TARGETS["serving_rss_mib_100k"] if s is big else limit
            before = "serving_rss_mib_seeds" if s["kind"] == "seeds" else ("serving_rss_mib_100k" if s is big else None)
            row(f"peak RSS, serving {s['chunks']:,} chunks", s["peak_rss_mb"], f"≤ {limit:g} MiB" if limit else "—",
                s["peak_rss_mb"] <= limit if limit else None, "MiB", before)  # fmt: skip
            if s["kind"] == "synthetic":
                row(f"peak RSS, building {s['chunks']:,} chunks", s["build"]["peak_rss_mb"], "—", None, "MiB")
        for s in r["retrieval"]:
            e = s.get("extractive") or {}
            if e.get("n") and s["kind"] == "synthetic":
                row(f"extractive answer p50 / p95, {s['chunks']:,} chunks", f"{e['p50_ms']:.0f} / {e['p95_ms']:.0f}",
                    "—", None, "ms")  # fmt: skip
            lst = s.get("extractive_list") or {}
            if lst.get("n"):
                target = "p95 ≤ 150 ms" if s is big else "—"
                row(f"list questions p50 / p95 ({lst['n']}), {s['chunks']:,} chunks",
                    f"{lst['p50_ms']:.0f} / {lst['p95_ms']:.0f}", target,
                    lst["p95_ms"] <= TARGETS["list_p95_ms_100k"] if s is big else None, "ms",
                    "list_p95_ms_100k" if s is big else None)  # fmt: skip
        ex = r["extractive"]
        row("extractive answer p50 / p95 (seed index, warm)", f"{ex['p50_ms']:.0f} / {ex['p95_ms']:.0f}",
            "p95 ≤ 150 ms", ex["p95_ms"] <= TARGETS["extractive_p95_ms"], "ms")  # fmt: skip
        vf = r.get("verify")
        if vf and "skipped" in vf:
            row("checking one sentence against its abstract", f"skipped: {vf['skipped']}", "p95 ≤ 20 ms", None)
        elif vf:
            row(f"checking one sentence against its abstract, p50 / p95 (MiniLM encoding + checks, no model; "
                f"{vf['claims']} claims; checks alone p95 {vf['checks_alone_p95_ms']} ms)",
                f"{vf['p50_ms']:.1f} / {vf['p95_ms']:.1f}", "p95 ≤ 20 ms", vf["p95_ms"] <= TARGETS["verify_p95_ms"],
                "ms")  # fmt: skip
        mp = r["model_path"]
        if "skipped" in mp:
            row("model path: ask ÷ direct llama.cpp", f"skipped: {mp['skipped']}", "≤ 1.10×", None)
        else:
            row("model path: full ask ÷ direct llama.cpp (same prompt, same tokens)", mp["ratio_total"], "≤ 1.10×",
                mp["ratio_total"] <= TARGETS["model_overhead_ratio"], "×")  # fmt: skip
            row("model path: generation only (HTTP+LlamaIndex+server) ÷ direct", mp["ratio_generate"], "—", None, "×")
            row("time to first token: ask (from question) / direct", f"{mp['ttft_ask_s']['median']:.2f} / "
                f"{mp['ttft_direct_s']['median']:.2f}", "—", None, "s")  # fmt: skip
        ui = r["ui_start"]
        if "skipped" in ui:
            row("UI start to ready", f"skipped: {ui['skipped']}", "≤ 5 s", None)
        else:
            row(f"UI start to ready ({ui['method']}: page served)", ui["seconds"], "≤ 5 s",
                ui["seconds"] <= TARGETS["ui_start_s"], "s")  # fmt: skip
            if "loaded_s" in ui:
                row("UI start to model and index loaded (a question asked earlier waits until then)", ui["loaded_s"],
                    "—", None, "s")  # fmt: skip
            first = ui.get("first_start")
            if first:
                row("first `rag ui` from a fresh data folder: page served, index built (ONNX export + ingest)",
                    first["seconds"], "≤ 12 s", first["seconds"] <= TARGETS["first_ui_start_s"], "s",
                    "first_ui_start_s")  # fmt: skip
        return rows


# ==============================================================================================================
# Model path: pipeline.ask through the Ollama protocol vs llama-cpp-python directly


class _CappedBackend:
    """Wraps a server backend; ``cap`` (when set) lowers the request's num_predict, so a generation stays short."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.cap: int | None = None
        self.last_stats: Any = None  # the server's GenerationStats of the last generation (filled as it streams)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)

    def _options(self, options: dict) -> dict:
        if self.cap is None:
            return options
        limit = int(options.get("num_predict", -1))
        return dict(options, num_predict=self.cap if limit <= 0 else min(limit, self.cap))

    def stream(self, messages, options, stats):
        self.last_stats = stats
        return self.backend.stream(messages, self._options(options), stats)

    def stream_raw(self, prompt, options, stats):
        return self.backend.stream_raw(prompt, self._options(options), stats)

    def count_prompt_tokens(self, messages):
        return self.backend.count_prompt_tokens(messages)


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def measure_model_path(bench: Bench, backend_cls: Any, gguf: Path) -> dict:
    from rag.answering import retrieve, sources_for
    from rag.compose.prompts import build_messages
    from rag.pipeline import Pipeline
    from rag.settings import Settings
    from tests.support import ollama_server
    from tests.support.ollama_server import serve

    server_defaults = dict(getattr(ollama_server, "_OLLAMA_DEFAULT_OPTIONS", {}))  # what the server merges first
    started = time.perf_counter()
    backend = backend_cls(gguf, prompt_cache=False)  # every prompt fully evaluated, on both sides
    load_s = time.perf_counter() - started
    capped = _CappedBackend(backend)
    capped.cap = QUICK_MAX_TOKENS if bench.quick else (getattr(bench.args, "model_max_tokens", 0) or None)
    repeats = 1 if bench.quick else max(1, bench.args.model_repeats)
    runs: list[dict] = []
    with serve(models={MODEL_NAME: capped}) as url:
        settings = Settings(data_dir=bench.seed_dir, ollama_host=url, ollama_temperature=0.0, backend="ollama")
        pipeline = Pipeline(settings, embedder=bench.embedder)
        # Warm-up: LlamaIndex's Ollama import, the server reloading the model with the requested num_ctx.
        saved, capped.cap = capped.cap, 4
        warm_started = time.perf_counter()
        pipeline.ask(bench.answerable[0], backend="ollama", model=MODEL_NAME)
        warm_s = time.perf_counter() - warm_started
        capped.cap = saved
        attempts = 0
        for question in bench.answerable:
            if len(runs) >= repeats or attempts >= 4 * repeats:
                break
            attempts += 1
            ask_1, first_1, answer, gen = _timed_ask(pipeline, capped, question)
            if gen is None or not gen.eval_count:  # abstained before asking the model: nothing to compare
                continue
            sent = url.server.requests[-1].body
            # The same prompt, rebuilt from the same sources the answer path used.
            snapshot = pipeline.snapshot
            retrieved = retrieve(question, snapshot, pipeline.retriever(), settings.top_k)
            ids = [*retrieved.plan.abstract_ids, *(r.abstract.id for r in retrieved.ranked)]
            sources = sources_for(snapshot, ids[: max(settings.top_k, len(retrieved.plan.abstract_ids))])
            messages = build_messages(question, sources)
            same_prompt = [m["content"] for m in messages] == [m.get("content") for m in sent["messages"]]
            options = {**server_defaults, **backend.info.default_options, **sent.get("options", {})}
            # The server also generated the end-of-turn token when it stopped by itself: the same work here.
            n_tokens = gen.eval_count + (1 if gen.done_reason == "stop" else 0)
            # ABBA order (ask, direct, direct, ask): a drift in machine speed during the four runs hits both sides
            # alike. These shared cores vary by tens of percent from minute to minute.
            direct_1 = _direct_generation(backend, messages, n_tokens, options)
            direct_2 = _direct_generation(backend, messages, n_tokens, options)
            ask_2, first_2, answer_2, gen_2 = _timed_ask(pipeline, capped, question)
            ask_s = (ask_1 + ask_2) / 2
            direct_s = (direct_1["seconds"] + direct_2["seconds"]) / 2
            generate_s = (answer.timings.generate_s + answer_2.timings.generate_s) / 2
            runs.append({
                "question": question,
                "answer_backend": answer.backend,
                "answer_abstained": answer.abstained,
                "prompt_tokens": gen.prompt_eval_count,
                "completion_tokens": gen.eval_count,
                "same_tokens_both_asks": gen_2 is not None and gen_2.eval_count == gen.eval_count,
                "done_reason": gen.done_reason,
                "prompt_identical_to_request": same_prompt,
                "ask_s": round(ask_s, 3),
                "ask_s_each": [round(ask_1, 3), round(ask_2, 3)],
                "ask_retrieve_s": round(answer.timings.retrieve_s, 3),
                "ask_generate_s": round(generate_s, 3),
                "ask_verify_s": round(answer.timings.verify_s, 3),
                "ttft_ask_s": round(_median([first_1, first_2]), 3) if None not in (first_1, first_2) else None,
                "ttft_composer_s": answer.timings.first_token_s,
                "direct_s": round(direct_s, 3),
                "direct_s_each": [round(direct_1["seconds"], 3), round(direct_2["seconds"], 3)],
                "ttft_direct_s": round(_median([direct_1["ttft_s"], direct_2["ttft_s"]]), 3),
                "direct_tokens": direct_1["tokens"],
                "ratio_total": round(ask_s / direct_s, 3),
                "ratio_generate": round(generate_s / direct_s, 3),
            })  # fmt: skip
    if not runs:
        return {"skipped": "no eval question led to a generation (all abstained)"}
    ask_total = sum(r["ask_s"] for r in runs)
    direct_total = sum(r["direct_s"] for r in runs)
    tokens = sum(r["completion_tokens"] for r in runs)
    return {
        "gguf": gguf.name,
        "gguf_load_s": round(load_s, 3),
        "warm_up_ask_s": round(warm_s, 3),
        "repeats": len(runs),
        "max_tokens_cap": capped.cap,
        "temperature": 0.0,
        "ratio_total": round(ask_total / direct_total, 3),
        "ratio_generate": round(sum(r["ask_generate_s"] for r in runs) / direct_total, 3),
        "ask_s_total": round(ask_total, 3),
        "direct_s_total": round(direct_total, 3),
        "completion_tokens_total": tokens,
        "direct_tokens_per_s": round(tokens / direct_total, 2),
        "ttft_ask_s": {"median": round(_median([r["ttft_ask_s"] or 0.0 for r in runs]), 3)},
        "ttft_composer_s": {"median": round(_median([r["ttft_composer_s"] or 0.0 for r in runs]), 3)},
        "ttft_direct_s": {"median": round(_median([r["ttft_direct_s"] for r in runs]), 3)},
        "runs": runs,
    }


def _timed_ask(pipeline: Any, capped: Any, question: str) -> tuple[float, float | None, Any, Any]:
    """One full ``pipeline.stream`` through the Ollama client: (seconds, time to first text, Answer, server stats)."""
    from rag.answer import Answer, TextDelta

    capped.last_stats = None
    t0 = time.perf_counter()
    first = None
    answer = None
    for event in pipeline.stream(question, backend="ollama", model=MODEL_NAME):
        if isinstance(event, TextDelta) and first is None and event.text.strip():
            first = time.perf_counter() - t0
        answer = event
    seconds = time.perf_counter() - t0
    assert isinstance(answer, Answer)
    return seconds, first, answer, capped.last_stats


def _direct_generation(backend: Any, messages: list[dict], n_tokens: int, options: dict) -> dict:
    """``n_tokens`` tokens for the same rendered prompt, with the same sampling options, straight from llama.cpp."""
    from tests.support.ollama_server import sampling_params

    with backend._lock:  # the server's own Llama object (same n_ctx, threads, batch); nobody else uses it now
        llm = backend._llm
        prompt = backend.render(messages)
        llm.reset()
        started = time.perf_counter()
        tokens = list(llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True))
        gen = llm.generate(tokens, **sampling_params(options, float(options.get("temperature", 0.0))), reset=True)
        ttft = None
        produced = 0
        pieces = []
        try:
            for produced, tok in enumerate(gen, 1):  # noqa: B007
                if ttft is None:
                    ttft = time.perf_counter() - started
                pieces.append(llm.detokenize([tok], special=False))
                if produced >= n_tokens:
                    break
        finally:
            gen.close()
        seconds = time.perf_counter() - started
    return {"seconds": seconds, "ttft_s": ttft or seconds, "tokens": produced}


# ==============================================================================================================
# UI start

_UI_LAUNCH = """
import sys, time
t0 = time.perf_counter()
from rag.pipeline import Pipeline
from rag.settings import Settings
from ui.app import launch
print(f"MARK imported {time.perf_counter() - t0:.3f}", flush=True)
pipeline = Pipeline(Settings())
pipeline.warm_up()
print(f"MARK warm {time.perf_counter() - t0:.3f}", flush=True)
launch(pipeline, host="127.0.0.1", port=int(sys.argv[1]), ready_callback=lambda url: print("MARK ready", flush=True))
"""

_WARM_UP_ONLY = """
import time
t0 = time.perf_counter()
from rag.pipeline import Pipeline
from rag.settings import Settings
print(f"MARK imported {time.perf_counter() - t0:.3f}", flush=True)
Pipeline(Settings()).warm_up()
print(f"MARK warm {time.perf_counter() - t0:.3f}", flush=True)
"""


def ui_command(port: int) -> tuple[str, list[str], bool]:
    """(label, argv, serves_http): `rag ui` when the CLI has it, else ui.app.launch, else Pipeline.warm_up."""
    env = _subprocess_env()
    check = subprocess.run(
        [sys.executable, "-m", "rag.cli", "ui", "--help"], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    if check.returncode == 0:
        argv = [sys.executable, "-m", "rag.cli", "ui"]
        if "--port" in check.stdout:
            argv += ["--port", str(port)]
        return "rag ui", argv, True
    probe = subprocess.run(
        [sys.executable, "-c", "import importlib.util as u; raise SystemExit(u.find_spec('ui.app') is None)"],
        cwd=ROOT, env=env, capture_output=True, timeout=60,
    )  # fmt: skip
    if probe.returncode == 0:
        return "ui.app.launch after Pipeline.warm_up (`rag ui` not in the CLI yet)", [
            sys.executable, "-c", _UI_LAUNCH, str(port)], True  # fmt: skip
    return "Pipeline(Settings()).warm_up() only (no UI module yet)", [sys.executable, "-c", _WARM_UP_ONLY], False


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


UI_LOADED_LINE = "Model and index loaded"  # what `rag ui` prints once its background warm-up is done


def time_ui_start(data_dir: Path, seeds: Path | None = None) -> tuple[str, dict]:
    """Seconds from spawning the UI process to an HTTP 200 on its port (or to warm_up's end, without a UI), and
    (``loaded_s``) to `rag ui` saying the model and index are loaded, after which no question waits for them."""
    port = _free_port()
    label, argv, serves_http = ui_command(port)
    env = _subprocess_env()
    env.update(RAG_DATA_DIR=str(data_dir), RAG_UI_PORT=str(port), RAG_BACKEND="extractive",
               RAG_UI_HOST="127.0.0.1", GRADIO_ANALYTICS_ENABLED="False")  # fmt: skip
    if seeds is not None:  # a fresh data folder: `rag ui` indexes these first
        env["RAG_SEEDS"] = str(seeds)
    with tempfile.TemporaryFile(mode="w+") as log:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
        ready = loaded = None
        try:
            deadline = started + UI_TIMEOUT_S
            while time.perf_counter() < deadline:
                if serves_http and ready is None and _http_ok(f"http://127.0.0.1:{port}/"):
                    ready = time.perf_counter() - started
                if ready is not None:
                    # `rag ui` serves the page first and then loads the model and index, saying when it is done
                    # (a question asked before then waits); older entry points load first, so nothing to wait for.
                    log.seek(0)
                    output = log.read()
                    if UI_LOADED_LINE in output or "error:" in output:
                        loaded = time.perf_counter() - started if UI_LOADED_LINE in output else None
                        break
                    if label != "rag ui" or proc.poll() is not None:
                        break
                    time.sleep(0.05)
                    continue
                if proc.poll() is not None:
                    if not serves_http and proc.returncode == 0:
                        ready = time.perf_counter() - started
                    break
                time.sleep(0.05)
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        log.seek(0)
        output = log.read()
    if ready is None:
        raise RuntimeError(f"{label} did not become ready in {UI_TIMEOUT_S}s:\n{output[-2000:]}")
    if label == "rag ui" and loaded is None:
        raise RuntimeError(f"{label} served the page but did not load the model and index:\n{output[-2000:]}")
    marks = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "MARK":
            with contextlib.suppress(ValueError):
                marks[f"{parts[1]}_s"] = float(parts[2])
    if loaded is not None:
        marks["loaded_s"] = round(loaded, 3)
    return label, {"seconds": round(ready, 3), **marks}


# ==============================================================================================================
# Workers (fresh processes)


def worker_build(config: dict) -> dict:
    """Build a synthetic index of exactly ``size`` chunks (seed index + recombined abstracts); see SYNTHETIC_METHOD."""
    import numpy as np
    from tqdm import tqdm

    from rag.corpus import SeedFile, build_corpus
    from rag.ingest import chunk_corpus, to_nodes
    from rag.manifest import Manifest, load_manifest, save_bm25, save_manifest, save_sentence_vectors
    from rag.retrieve import build_bm25
    from rag.settings import Settings
    from rag.store import ChunkStore
    from rag.text import sentence_spans

    t0 = time.perf_counter()
    size = int(config["size"])
    seed_settings = Settings(data_dir=Path(config["seed_dir"]))
    settings = Settings(data_dir=Path(config["data_dir"]))
    seed_manifest = load_manifest(seed_settings.index_dir)
    seed_store = ChunkStore(seed_settings, create=False)
    got = seed_store._collection.get(ids=[c.id for c in seed_manifest.chunks], include=["embeddings"])
    seed_chunk_vectors = dict(zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32), strict=True))
    del seed_store
    from rag.manifest import load_sentence_vectors

    seed_sentence_vectors = load_sentence_vectors(seed_settings.index_dir, seed_manifest)
    pool_vectors = np.load(config["pool"])["vectors"]
    meta = json.loads(Path(config["pool_meta"]).read_text())
    pool_texts: list[str] = meta["texts"]
    pool_row = {t: i for i, t in enumerate(pool_texts)}
    token_counts = dict(zip(pool_texts, meta["tokens"], strict=True))

    class CountingTokenizer:  # what chunk_corpus needs from the embedder: the encoder's limit and token counts
        max_tokens = int(meta["max_tokens"])

        @staticmethod
        def count_tokens(text: str) -> int:
            return token_counts[text]  # only seed sentences occur; a KeyError would mean a bad draw

    rng = random.Random(SYNTH_SEED + size)
    abstracts = list(seed_manifest.abstracts)
    chunks = list(seed_manifest.chunks)
    seen = {a.id for a in abstracts}
    need = size - len(chunks)
    file_no = 0

    def draw(k_min: int, k_max: int) -> str:
        while True:
            picks = rng.sample(pool_texts, rng.randint(k_min, k_max))
            text = " ".join(picks)
            if [text[s.start : s.end] for s in sentence_spans(text)] == picks:
                return text

    bar = tqdm(total=need, desc=f"build {size:,}: chunks", unit="chunk", file=sys.stderr, leave=False)
    t_synth = time.perf_counter()
    while need > 0:
        batch = max(1, min(2000, need // 2))
        short = need <= 6  # land exactly on the size: short draws (1 chunk) at the end
        paragraphs = [draw(2, 3) if short else draw(MIN_SENTENCES, MAX_SENTENCES) for _ in range(batch)]
        file_no += 1
        new = [a for a in build_corpus([SeedFile(f"synthetic-{file_no:05d}.txt", "synthetic", tuple(paragraphs))])
               if a.id not in seen]  # fmt: skip
        for abstract in new:
            own = chunk_corpus([abstract], CountingTokenizer, settings)
            if len(own) > need:
                continue
            abstracts.append(abstract)
            chunks.extend(own)
            seen.add(abstract.id)
            need -= len(own)
            bar.update(len(own))
            if need == 0:
                break
    bar.close()
    synth_s = time.perf_counter() - t_synth

    # Sentence vectors (real, looked up) in manifest order; chunk vectors composed from them.
    t_vec = time.perf_counter()
    n_seed = len(seed_manifest.abstracts)
    rows = [pool_row[a.text[s.start : s.end]] for a in abstracts[n_seed:] for s in a.sentences]
    sentence_vectors = np.vstack([seed_sentence_vectors, pool_vectors[rows]]).astype(np.float32)
    del rows
    first_row: dict[str, int] = {}
    row = 0
    for a in abstracts:
        first_row[a.id] = row
        row += len(a.sentences)
    by_id = {a.id: a for a in abstracts}
    chunk_vectors = np.empty((len(chunks), sentence_vectors.shape[1]), dtype=np.float32)
    for i, chunk in enumerate(chunks):
        if chunk.id in seed_chunk_vectors:
            chunk_vectors[i] = seed_chunk_vectors[chunk.id]
            continue
        a = by_id[chunk.abstract_id]
        inside = [j for j, s in enumerate(a.sentences) if s.start >= chunk.start and s.end <= chunk.end]
        v = sentence_vectors[first_row[a.id] + inside[0] : first_row[a.id] + inside[-1] + 1].mean(axis=0)
        chunk_vectors[i] = v / np.linalg.norm(v)
    vec_s = time.perf_counter() - t_vec

    # The product's store path: TextNodes from rag.ingest.to_nodes into ChunkStore.add (LlamaIndex -> Chroma).
    t_store = time.perf_counter()
    store = ChunkStore(settings)
    nodes_s = 0.0
    step = 5000
    bar = tqdm(total=len(chunks), desc=f"build {size:,}: Chroma add", unit="chunk", file=sys.stderr, leave=False)
    for start in range(0, len(chunks), step):
        t = time.perf_counter()
        nodes = to_nodes(chunks[start : start + step], by_id, chunk_vectors[start : start + step])
        nodes_s += time.perf_counter() - t
        store.add(nodes)
        bar.update(len(nodes))
    bar.close()
    count = store.count()
    store_s = time.perf_counter() - t_store

    t_manifest = time.perf_counter()
    vectors_name = save_sentence_vectors(settings.index_dir, 1, sentence_vectors)
    manifest_s = time.perf_counter() - t_manifest
    t_bm25 = time.perf_counter()  # as `rag ingest` does: BM25 built once and saved, so opening the index loads it
    bm25_name = save_bm25(settings.index_dir, 1, *build_bm25(abstracts, chunks))
    bm25_s = time.perf_counter() - t_bm25
    t_manifest = time.perf_counter()
    save_manifest(settings.index_dir, Manifest(
        collection=settings.collection_name, embed_model=settings.embed_model, abstracts=tuple(abstracts),
        chunks=tuple(chunks), generation=1, written_at=time.time(), sentence_vectors=vectors_name, bm25=bm25_name,
    ))  # fmt: skip
    manifest_s += time.perf_counter() - t_manifest
    return {
        "data_dir": config["data_dir"],
        "chunks": len(chunks),
        "chroma_count": count,
        "abstracts": len(abstracts),
        "synthetic_abstracts": len(abstracts) - n_seed,
        "sentences": int(sentence_vectors.shape[0]),
        "seconds": round(time.perf_counter() - t0, 3),
        "synthesize_and_chunk_s": round(synth_s, 3),
        "compose_vectors_s": round(vec_s, 3),
        "to_nodes_s": round(nodes_s, 3),
        "chroma_add_s": round(store_s - nodes_s, 3),
        "manifest_write_s": round(manifest_s, 3),
        "bm25_build_and_save_s": round(bm25_s, 3),
        "disk_mb": round(sum(p.stat().st_size for p in Path(config["data_dir"]).rglob("*") if p.is_file()) / 2**20, 1),
        "peak_rss_mb": peak_rss_mb(),
    }


def worker_serve(config: dict) -> dict:
    """Open an existing index as `rag search`/the UI would, time searches and extractive answers; report RSS."""
    from tqdm import tqdm

    t0 = time.perf_counter()
    from rag.embedding import LocalSentenceEmbedding
    from rag.pipeline import Pipeline
    from rag.settings import Settings

    settings = Settings(data_dir=Path(config["data_dir"]), backend="extractive")
    embedder = LocalSentenceEmbedding(
        settings.embed_model, batch_size=settings.embed_batch_size, threads=settings.embed_threads,
        ingest_threads=settings.ingest_threads, cache_dir=Path(config.get("models_dir") or settings.models_dir),
        query_int8=settings.embed_query_int8,
    )  # fmt: skip
    embedder.encode(["warm up"])
    model_s = time.perf_counter() - t0
    rss_model = current_rss_mb()
    pipeline = Pipeline(settings, embedder=embedder)
    t = time.perf_counter()
    snapshot = pipeline.snapshot
    snapshot_s = time.perf_counter() - t
    t = time.perf_counter()
    store = pipeline.store
    store_s = time.perf_counter() - t
    rss_loaded = current_rss_mb()
    questions: list[str] = config["questions"]
    modes = ("dense", "bm25", "hybrid")
    for mode in modes:  # warm: Chroma's HNSW segment is loaded on the first query
        pipeline.search(questions[0], mode=mode)
    latency: dict[str, list[float]] = {m: [] for m in modes}
    given: dict[str, list[float]] = {m: [] for m in modes}
    retrievers = {m: pipeline.retriever(m) for m in modes}
    encode: list[float] = []
    bar = tqdm(total=len(questions), desc=f"serve {len(snapshot.chunks):,}: search", unit="q", file=sys.stderr,
               leave=False)  # fmt: skip
    for q in questions:  # modes interleaved per question, so changing machine load hits all three alike
        for mode in modes:
            t = time.perf_counter()
            pipeline.search(q, mode=mode)
            latency[mode].append(time.perf_counter() - t)
        t = time.perf_counter()
        vector = embedder.encode([q])[0]
        encode.append(time.perf_counter() - t)
        for mode in modes:  # the index alone: same search, question vector already computed
            t = time.perf_counter()
            retrievers[mode].search(q, settings.top_k, query_vector=vector)
            given[mode].append(time.perf_counter() - t)
        bar.update(1)
    bar.close()
    from rag.question import profile

    extractive: list[float] = []
    list_questions: list[float] = []  # "which papers …", "list …": answered from the whole corpus
    ex_questions: list[str] = config.get("extractive_questions") or []
    if ex_questions:
        pipeline.ask(ex_questions[0], backend="extractive")
        bar = tqdm(total=len(ex_questions), desc=f"serve {len(snapshot.chunks):,}: answer", unit="q",
                   file=sys.stderr, leave=False)  # fmt: skip
        for q in ex_questions:
            t = time.perf_counter()
            pipeline.ask(q, backend="extractive")
            extractive.append(time.perf_counter() - t)
            if profile(q).kind == "list":
                list_questions.append(extractive[-1])
            bar.update(1)
        bar.close()
    return {
        "label": config["label"],
        "chunks": len(snapshot.chunks),
        "chroma_count": store.count(),
        "abstracts": len(snapshot.abstracts),
        "sentences": len(snapshot.sentence_spans),  # not sentence_texts: building them would raise the peak RSS
        "model_load_s": round(model_s, 3),
        "snapshot_load_s": round(snapshot_s, 3),
        "bm25_loaded": snapshot.bm25_loaded,
        "store_open_s": round(store_s, 3),
        "rss_after_model_mb": rss_model,
        "rss_after_index_mb": rss_loaded,
        "peak_rss_mb": peak_rss_mb(),
        "latency": {m: stats_ms(latency[m]) for m in modes},
        "latency_given_vector": {m: stats_ms(given[m]) for m in modes},
        "query_encode": stats_ms(encode),
        "extractive": stats_ms(extractive),
        "extractive_list": stats_ms(list_questions),
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


# ==============================================================================================================
# Report


def _fmt(value: Any, unit: str) -> str:
    if isinstance(value, float):
        text = f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    else:
        text = f"{value:,}" if isinstance(value, int) else str(value)
    return f"{text} {unit}".strip() if unit and not str(value).startswith("skipped") else text


def markdown_table(rows: list[dict]) -> str:
    lines = ["| Measurement | Before | Value | Target | Met |", "|---|---:|---:|---|:---:|"]
    for r in rows:
        met = "—" if r["pass"] is None else ("yes" if r["pass"] else "**no**")
        lines.append(f"| {r['measurement']} | {r.get('before', '—')} | {_fmt(r['value'], r['unit'])} | {r['target']} "
                     f"| {met} |")  # fmt: skip
    return "\n".join(lines)


def _encoder_and_ingest_text(result: dict) -> tuple[str, str]:
    enc, ing, ml = result["encoder"], result["ingest"], result["model_load"]
    peak = enc["peak"]
    lines = [
        f"The texts ingest encodes for the seeds ({enc['texts']} texts, {enc['tokens']:,} tokens with [CLS]/[SEP], "
        f"{enc['gflop']} GFLOP of useful work: {enc['flop_per_token_m']} MFLOP per token, counted as 2 × the "
        "weights of the six matmuls per layer per token plus the two attention products, padding not counted), "
        f"batch {enc['batch_size']}, best of the runs per encoder (interleaved). CPU: {peak['cpu'] or 'unknown'}; "
        f"peak estimate {peak['gflops']} GFLOP/s = {peak['cores']} cores × {peak['ghz']} GHz × "
        f"{peak['flops_per_cycle']} FLOP/cycle ({peak['simd']}, two FMA units assumed; the clock is what "
        "/proc/cpuinfo reports, turbo not counted). int8 dot-product instructions (VNNI/AMX): "
        f"{'yes' if peak['int8_dot_product'] else 'no'}.",
        "",
        "| Encoder | Threads | Runs s | Texts/s | Tokens/s | GFLOP/s | Share of those cores' peak |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for name, run in enc["runs"].items():
        share = f"{run['share_of_peak']:.0%}" if run["share_of_peak"] else "—"
        lines.append(f"| {name} | {run['threads']} | {run['seconds']} | {run['texts_per_s']} | "
                     f"{run['tokens_per_s']:,.0f} | {run['gflops']} | {share} |")  # fmt: skip
    lines += [
        "",
        f"Model load: the ONNX graph written from the packaged weights into a fresh cache folder {ml['export_s']:.2f} s "
        f"(once per data folder), opened from the cache {ml['load_s']:.2f} s; torch + sentence-transformers (the old "
        "path) "
        f"{ml['reference_load_s'] if ml.get('reference_load_s') is not None else '—'} s.",
    ]
    ingest = [
        f"`Pipeline(Settings(data_dir=<fresh tmp>), embedder=<loaded>).ingest(...)` of {', '.join(ing['seed_files'])}: "
        f"{ing['abstracts']} abstracts, {ing['chunks']} chunks, {ing['sentences']} sentences ({ing['encoded_texts']} "
        f"texts encoded: each sentence once, plus pieces of any sentence too long for the encoder). Order of the "
        f"fresh ingests: {', '.join(ing['order'])} (old = {ing.get('old_path', 'not run')}).",
        "",
        f"- New (ONNX Runtime, {ing['ingest_threads']} threads): {ing['ingest_runs_s']} s, mean {ing['ingest_s']:.2f} s "
        f"→ {ing['sentences_per_s']} sentences/s ({ing['chunks_per_s']} chunks/s); encoding {ing['encode_s']:.2f} s, "
        f"everything else (parse, chunking with token counts, TextNodes + Chroma add, BM25, manifest) "
        f"{ing['other_s']:.2f} s.",
    ]
    if "old_ingest_s" in ing:
        ingest += [
            f"- Old: {ing['old_ingest_runs_s']} s, mean {ing['old_ingest_s']:.2f} s → {ing['old_sentences_per_s']} "
            f"sentences/s (encoding {ing['old_encode_s']:.2f} s).",
            f"- Speed-up new ÷ old: **{ing['speedup']}×** (target ≥ {ing['target_speedup']}×). Cosine between the "
            f"new and old sentence vectors, every seed sentence: min {ing['cosine_min']}, mean {ing['cosine_mean']}.",
        ]
    ingest.append(
        f"- Ingest ÷ best raw encoder ({ing['best_onnx']}, same texts, {ing['raw_onnx_texts_per_s']} texts/s): "
        f"{ing['ratio_to_raw_onnx']}× (what ingest keeps of the encoder's speed)."
    )
    return "\n".join(lines), "\n".join(ingest)


def render_markdown(result: dict, table: str) -> str:
    meta, ex = result["meta"], result["extractive"]
    mp, ui = result["model_path"], result["ui_start"]
    size_rows = ["| Chunks | Abstracts | Sentences | Build s | Index load s | RSS after model / index / peak MiB | "
                 "dense p50/p95 | BM25 p50/p95 | hybrid p50/p95 | hybrid, vector given p50/p95 | "
                 "query encode p50/p95 | extractive p50/p95 |",
                 "|---:|---:|---:|---:|---:|---|---|---|---|---|---|---|"]  # fmt: skip
    for s in result["retrieval"]:
        lat, e = s["latency"], s["extractive"]
        size_rows.append(
            f"| {s['chunks']:,} ({s['kind']}) | {s['abstracts']:,} | {s['sentences']:,} | {s['build']['seconds']:.1f} | "
            f"{s['snapshot_load_s'] + s['store_open_s']:.2f} | {s['rss_after_model_mb']} / {s['rss_after_index_mb']} / "
            f"{s['peak_rss_mb']} | "
            + " | ".join(f"{lat[m]['p50_ms']:.1f} / {lat[m]['p95_ms']:.1f}" for m in ("dense", "bm25", "hybrid"))
            + f" | {s['latency_given_vector']['hybrid']['p50_ms']:.1f} / "
            + f"{s['latency_given_vector']['hybrid']['p95_ms']:.1f}"
            + f" | {s['query_encode']['p50_ms']:.1f} / {s['query_encode']['p95_ms']:.1f} | "
            + (f"{e['p50_ms']:.0f} / {e['p95_ms']:.0f}" if e.get("n") else "—")
            + " |"
        )
    builds = [s for s in result["retrieval"] if s["kind"] == "synthetic"]
    build_lines = [
        f"- {s['chunks']:,} chunks: {b['seconds']:.1f} s (synthesize+chunk {b['synthesize_and_chunk_s']:.1f}, compose "
        f"vectors {b['compose_vectors_s']:.1f}, to_nodes {b['to_nodes_s']:.1f}, Chroma add {b['chroma_add_s']:.1f}, "
        f"manifest {b['manifest_write_s']:.1f}); peak RSS {b['peak_rss_mb']} MiB; {b['disk_mb']} MiB on disk"
        for s in builds
        for b in [s["build"]]
    ]
    if "skipped" in mp:
        model_text = f"Skipped: {mp['skipped']}."
    else:
        cap = mp["max_tokens_cap"]
        cap_text = f", generation capped at {cap} tokens by the server (--model-max-tokens)" if cap else ""
        model_text = (
            f"{mp['repeats']} question(s) answered by `{mp['gguf']}` (llama-cpp-python, temperature 0, prompt cache "
            f"off on both sides{cap_text}), each timed in ABBA order (ask, direct, direct, ask; the means of each "
            f"pair below), so a change in machine speed during the runs hits both sides alike. Per-question ratios: "
            f"{', '.join(str(r['ratio_total']) for r in mp['runs'])}. "
            f"Full `pipeline.stream(q, backend='ollama')` (retrieve, build prompt, LlamaIndex Ollama client, HTTP, "
            f"the Ollama-protocol server, verification) took {mp['ask_s_total']:.2f} s in total; the same rendered "
            f"prompt and the same number of tokens ({mp['completion_tokens_total']}) straight from the server's own "
            f"`llama_cpp.Llama` took {mp['direct_s_total']:.2f} s ({mp['direct_tokens_per_s']} tok/s incl. prompt). "
            f"Ratio {mp['ratio_total']}× (generation part only: {mp['ratio_generate']}×). Time to first token: "
            f"{mp['ttft_ask_s']['median']:.2f} s from the question, {mp['ttft_composer_s']['median']:.2f} s from the "
            f"request, {mp['ttft_direct_s']['median']:.2f} s direct (medians). GGUF load {mp['gguf_load_s']:.1f} s, "
            f"warm-up ask {mp['warm_up_ask_s']:.1f} s (excluded). Prompt identical to the request sent: "
            f"{all(r['prompt_identical_to_request'] for r in mp['runs'])}."
        )
    ui_text = (
        f"Skipped: {ui['skipped']}."
        if "skipped" in ui
        else f"Method: {ui['method']}. Best of {len(ui['runs'])}: {ui['seconds']:.2f} s. Runs: "
        + "; ".join(", ".join(f"{k} {v}" for k, v in r.items()) for r in ui["runs"])
        + ". Measured from spawning the process to the first HTTP 200 on its port, against the seed index "
        "(RAG_DATA_DIR), RAG_BACKEND=extractive."
        + (
            f" `rag ui` serves the page first and then loads the model and index in the background (a question "
            f"asked before then waits for them): loaded after {ui['loaded_s']:.2f} s (best run; `loaded_s` per run)."
            if "loaded_s" in ui
            else ""
        )
        + (
            f" First start from a fresh data folder (no ONNX file, no index: `rag ui` writes the graph, indexes "
            f"the seeds, then serves): page served after {ui['first_start']['seconds']:.2f} s"
            + (f", loaded after {ui['first_start']['loaded_s']:.2f} s." if "loaded_s" in ui["first_start"] else ".")
            if "first_start" in ui
            else f" First start from a fresh data folder failed: {ui.get('first_start_failed', 'not run')}."
        )
    )
    encoder_text, ingest_text = _encoder_and_ingest_text(result)
    return f"""# rag bench — {meta["started_at"]}

Commit {meta["git_commit"]}, Python {meta["python"]}, {meta["cpu_count"]} CPUs, {meta["platform"]}.
Load average at start {meta["load_average_start"]}, at end {meta["load_average_end"]} (the cores are shared: compare
ratios within one run, not absolute numbers across runs). Total {meta["total_s"]} s.{" **Quick run** (CI smoke test: not representative)." if meta["quick"] else ""}

## Results

{table}

## Retrieval and memory by corpus size

Each size is served in a fresh process (`Pipeline.search(q, mode=...)`, unchanged: it encodes the question, queries
Chroma and/or BM25, fuses). "Vector given" is the same hybrid search with the question vector computed beforehand
(`HybridRetriever.search(q, k, query_vector=v)`): the index's share alone, without MiniLM's query encoding, whose
latency under CPU contention varies much more than the index's. Latency over {result["retrieval"][0]["latency"]["hybrid"]["n"]} eval questions per mode,
after one warm-up query per mode; modes interleaved per question. Peak RSS is that process's VmHWM at its end
(it includes MiniLM on ONNX Runtime, and the extractive answers run after the searches).

{chr(10).join(size_rows)}

Build of synthetic sizes (a separate fresh process each):
{chr(10).join(build_lines) if build_lines else "- none"}

**How synthetic corpora are made.** {SYNTHETIC_METHOD}

## Encoder

{encoder_text}

## Ingest

{ingest_text}

## Extractive answers

`pipeline.ask(q, backend="extractive")` over {ex["n"]} eval questions on the seed index, warm, in the main process:
p50 {ex["p50_ms"]:.0f} ms, p95 {ex["p95_ms"]:.0f} ms (retrieve stage p50 {ex["retrieve_stage"]["p50_ms"]:.0f} ms);
{ex["abstained"]} abstained. The per-size table above also has extractive answers at each size.

## Model path

{model_text}

## UI start

{ui_text}
"""


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(result["retrieval"], key=lambda s: s["chunks"])
    x = [s["chunks"] for s in sizes]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for mode, color in (("dense", "tab:blue"), ("bm25", "tab:orange"), ("hybrid", "tab:green")):
        ax1.plot(x, [s["latency"][mode]["p95_ms"] for s in sizes], "o-", color=color, label=f"{mode} p95")
        ax1.plot(x, [s["latency"][mode]["p50_ms"] for s in sizes], "o--", color=color, alpha=0.5,
                 label=f"{mode} p50")  # fmt: skip
    ax1.plot(x, [s["latency_given_vector"]["hybrid"]["p95_ms"] for s in sizes], "x-", color="black",
             label="hybrid p95, vector given")  # fmt: skip
    ax1.axhline(TARGETS["retrieval_p95_ms_seeds"], color="grey", ls=":", lw=1, label="p95 target, seeds (25 ms)")
    ax1.axhline(TARGETS["retrieval_p95_ms_100k"], color="red", ls=":", lw=1, label="p95 target, 100k (60 ms)")
    ax1.set_xscale("log")
    ax1.set_xlabel("corpus size (chunks)")
    ax1.set_ylabel("search latency (ms)")
    ax1.set_title("Retrieval latency (Pipeline.search)")
    ax1.legend(fontsize=7)
    ax1.grid(True, which="both", alpha=0.3)
    ax2.plot(x, [s["peak_rss_mb"] for s in sizes], "o-", label="serve: peak RSS")
    ax2.plot(x, [s["rss_after_model_mb"] or math.nan for s in sizes], "s--", alpha=0.6, label="serve: after model load")
    synth = [s for s in sizes if s["kind"] == "synthetic"]
    if synth:
        ax2.plot(
            [s["chunks"] for s in synth], [s["build"]["peak_rss_mb"] for s in synth], "^-", label="build: peak RSS"
        )
    ax2.set_xscale("log")
    ax2.set_xlabel("corpus size (chunks)")
    ax2.set_ylabel("MiB")
    ax2.set_title("Peak memory (fresh process per size)")
    ax2.legend(fontsize=8)
    ax2.grid(True, which="both", alpha=0.3)
    fig.suptitle(f"rag bench {result['meta']['started_at']}" + (" (quick)" if result["meta"]["quick"] else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ==============================================================================================================


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_worker"]:
        return _worker_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m eval.bench", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
