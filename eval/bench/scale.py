"""Synthetic corpora up to 100k chunks: the seed sentence pool, and building one size in a fresh process."""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

from .measure import _run_worker, peak_rss_mb

SYNTH_SEED = 20260
MIN_SENTENCES, MAX_SENTENCES = 6, 10

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


class ScaleSection:
    """Bench steps: the seed sentence pool; building a synthetic size (in a worker)."""

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
