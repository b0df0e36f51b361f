"""Loading the embedder and raw encoder throughput (the product's ONNX MiniLM vs the old sentence-transformers path)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .measure import cpu_peak


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


class EncoderSection:
    """Bench steps: loading the embedder; encoder throughput."""

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
            _ = embedder.query_encoder  # each graph loads on first use: load the question graph now
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
