"""Serving one corpus size in a fresh process: index load, search and list latency, RSS."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .measure import QUICK_QUERIES, _run_worker, current_rss_mb, peak_rss_mb, stats_ms


class RetrievalSection:
    """Bench step: serving one size (in a worker)."""

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
