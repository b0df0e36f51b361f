"""Ingest of the seeds into a fresh data folder, new encoder vs old."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from .measure import timed_encode
from .targets import TARGETS


class IngestSection:
    """Bench step: ingest."""

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
