"""What the LlamaIndex layer costs per question, measured in one process, interleaved (`python -m
eval.llamaindex_overhead`, on the index in ./.rag):

- ``Pipeline.ask`` (the steps called directly) vs ``Pipeline.query_engine().query`` (the same steps as a
  RetrieverQueryEngine over LlamaIndex components), extractive, on the dev split's single-turn questions: wall and
  CPU milliseconds per question (median), and the one-off cost of importing LlamaIndex's core and building the engine;
- dense chunk search: Chroma asked for ids and distances (what ``AbstractRetriever`` does, through
  ``ChunkStore.query``) vs LlamaIndex's ``ChromaVectorStore.query`` (nodes rebuilt from stored metadata).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from rag.pipeline import Pipeline
from rag.settings import Settings

QUESTIONS = Path(__file__).resolve().parent / "questions.jsonl"


def dev_questions(n: int) -> list[str]:
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["question"] for r in rows if r.get("split") == "dev" and not r.get("history")][:n]


def _ms(values: list[float]) -> float:
    return round(1000 * statistics.median(values), 2)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=20, help="dev questions timed (default 20)")
    parser.add_argument("--repeats", type=int, default=3, help="passes over them (default 3)")
    args = parser.parse_args(argv)
    pipeline = Pipeline(Settings(backend="extractive"))
    pipeline.warm_up()
    questions = dev_questions(args.questions)
    started = time.perf_counter()
    engine = pipeline.query_engine()
    engine_build_s = time.perf_counter() - started
    for q in questions[:3]:  # warm both paths
        pipeline.ask(q)
        engine.query(q)
    wall: dict[str, list[float]] = {"ask": [], "engine": []}
    cpu: dict[str, list[float]] = {"ask": [], "engine": []}
    for _ in range(args.repeats):
        for q in questions:
            for name, run in (("ask", pipeline.ask), ("engine", engine.query)):
                w, c = time.perf_counter(), time.process_time()
                run(q)
                wall[name].append(time.perf_counter() - w)
                cpu[name].append(time.process_time() - c)

    from llama_index.core.vector_stores.types import VectorStoreQuery
    from llama_index.vector_stores.chroma import ChromaVectorStore

    store = pipeline.store
    vector_store = ChromaVectorStore(chroma_collection=store._collection)
    vectors = [pipeline.embedder.encode([q])[0] for q in questions[:5]]
    n = 66  # what the hybrid retriever asks Chroma for at k <= 5: max(50, 10 k) + 16
    direct: list[float] = []
    through_llamaindex: list[float] = []
    for _ in range(20):
        for v in vectors:
            t = time.perf_counter()
            store.query(v, n)
            direct.append(time.perf_counter() - t)
            t = time.perf_counter()
            vector_store.query(VectorStoreQuery(query_embedding=v.tolist(), similarity_top_k=n))
            through_llamaindex.append(time.perf_counter() - t)
    result = {
        "questions": len(questions) * args.repeats,
        "engine_import_and_build_s": round(engine_build_s, 3),
        "ask_wall_ms": _ms(wall["ask"]),
        "engine_wall_ms": _ms(wall["engine"]),
        "ask_cpu_ms": _ms(cpu["ask"]),
        "engine_cpu_ms": _ms(cpu["engine"]),
        "dense_search_direct_ms": _ms(direct),
        "dense_search_chroma_vector_store_ms": _ms(through_llamaindex),
    }
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
