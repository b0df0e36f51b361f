"""Corpus -> chunks -> Chroma, idempotent by content hash, with a report of what changed.

Order of work makes interruption safe: embed and add the new chunks, then swap the manifest (the commit point),
then delete chunks nothing refers to any more.
"""

from __future__ import annotations

import errno
import fcntl
import inspect
import logging
import os
import shutil
import time
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rag.chunking import Chunk, chunk_abstract
from rag.corpus import Abstract, load_corpus
from rag.embedding import LocalSentenceEmbedding
from rag.errors import DiskFullError, IndexCorruptError, IndexNotBuiltError, StoreUnavailableError
from rag.manifest import (
    Manifest,
    load_manifest,
    load_sentence_vectors,
    next_generation,
    remove_stale_files,
    save_bm25,
    save_manifest,
    save_sentence_vectors,
)
from rag.retrieve import build_bm25
from rag.settings import Settings, superseded_collections
from rag.store import ChunkStore

log = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]  # (texts encoded so far, texts to encode)


@dataclass(frozen=True, slots=True)
class IngestPlan:
    """What an ingest must do, computed from the old manifest, the new corpus and the ids already stored."""

    added: tuple[str, ...]
    updated: tuple[tuple[str, str], ...]  # (old id, new id): same location, new content
    removed: tuple[str, ...]
    unchanged: tuple[str, ...]


def plan_ingest(old: Sequence[Abstract], new: Sequence[Abstract]) -> IngestPlan:
    """Classify abstracts: an abstract whose content changed at a location the old one held counts as updated."""
    old_ids = {a.id for a in old}
    new_ids = {a.id for a in new}
    gone = {a.id: a for a in old if a.id not in new_ids}
    where_gone = {loc: a.id for a in gone.values() for loc in a.locations}
    added, updated, replaced = [], [], set()
    for abstract in new:
        if abstract.id in old_ids:
            continue
        predecessor = next(
            (where_gone[loc] for loc in abstract.locations if where_gone.get(loc) not in (None, *replaced)), None
        )
        if predecessor is not None:
            updated.append((predecessor, abstract.id))
            replaced.add(predecessor)
        else:
            added.append(abstract.id)
    removed = [aid for aid in gone if aid not in replaced]
    unchanged = [a.id for a in new if a.id in old_ids]
    return IngestPlan(tuple(added), tuple(updated), tuple(removed), tuple(unchanged))


@dataclass(slots=True)
class IngestReport:
    abstracts: int
    chunks: int
    added: int
    updated: int
    removed: int
    unchanged: int
    embedded_chunks: int
    seconds: float
    collection: str
    files: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.abstracts} abstracts ({self.chunks} chunks) from {len(self.files)} file(s): "
            f"{self.added} added, {self.updated} updated, {self.removed} removed, {self.unchanged} unchanged "
            f"in {self.seconds:.1f}s [collection {self.collection}]"
        )

    def to_dict(self) -> dict:
        return {
            "abstracts": self.abstracts,
            "chunks": self.chunks,
            "added": self.added,
            "updated": self.updated,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "embedded_chunks": self.embedded_chunks,
            "seconds": round(self.seconds, 3),
            "collection": self.collection,
            "files": self.files,
        }


@contextmanager
def ingest_lock(data_dir: Path):
    """One ingest at a time per data folder; a second one fails fast instead of interleaving writes."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        # unbuffered: nothing left to flush at close on a full disk
        handle = open(data_dir / "ingest.lock", "wb", buffering=0)  # noqa: SIM115 - closed below, after the work
    except OSError as exc:  # a file in the way, a read-only folder, no space: say so instead of a traceback
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFullError(f"No space left on the disk holding the index folder '{data_dir.name}'") from None
        raise StoreUnavailableError(
            f"Cannot write to the data folder '{data_dir.name}' ({exc.strerror or type(exc).__name__})",
            hint="Give the user write access to the data folder, or point RAG_DATA_DIR (--data-dir) at another one.",
        ) from None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreUnavailableError(
                "Another ingest is running on this index", hint="Wait for it to finish, then run `rag ingest` again."
            ) from None
        with suppress(OSError):  # the pid is for people reading the file; the lock is the flock
            handle.write(str(os.getpid()).encode())
        yield


def chunk_corpus(abstracts: Iterable[Abstract], embedder: LocalSentenceEmbedding, settings: Settings) -> list[Chunk]:
    max_tokens = min(settings.chunk_tokens, embedder.max_tokens) - 2  # [CLS] and [SEP]
    return [
        chunk
        for abstract in abstracts
        for chunk in chunk_abstract(abstract, embedder.count_tokens, max_tokens, settings.chunk_overlap_sentences)
    ]


def to_nodes(chunks: Sequence[Chunk], abstracts_by_id: dict[str, Abstract], vectors) -> list:
    """LlamaIndex TextNodes carrying their vectors, linked to their abstract as the source document."""
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

    nodes = []
    for chunk, vector in zip(chunks, vectors, strict=True):
        abstract = abstracts_by_id[chunk.abstract_id]
        nodes.append(
            TextNode(
                id_=chunk.id,
                text=chunk.text,
                embedding=vector.tolist(),
                start_char_idx=chunk.start,
                end_char_idx=chunk.end,
                metadata={"abstract_id": abstract.id, "label": abstract.label, "ordinal": chunk.ordinal},
                excluded_embed_metadata_keys=["abstract_id", "label", "ordinal"],
                excluded_llm_metadata_keys=["abstract_id", "ordinal"],
                relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=abstract.id)},
            )
        )
    return nodes


def ingest(
    settings: Settings,
    embedder: LocalSentenceEmbedding | Callable[[], LocalSentenceEmbedding],
    paths: Sequence[Path] | None = None,
    *,
    rebuild: bool = False,
    progress: ProgressCallback | None = None,
) -> IngestReport:
    """Bring the index in line with the seed files at ``paths`` (default: ``settings.seeds``).

    ``embedder`` may be a function that loads it: then a bad seed file or a running ingest is reported before
    the model is loaded (seconds), not after.
    """
    started = time.perf_counter()
    seed_paths = list(paths or settings.seeds)
    abstracts = load_corpus(seed_paths, settings.max_abstract_chars)  # input errors surface before any write
    with ingest_lock(settings.data_dir):
        if not hasattr(embedder, "encode"):
            embedder = embedder()
        store = _open_store(settings, rebuild)
        previous: Manifest | None = None
        if not rebuild:
            try:
                previous = load_manifest(settings.index_dir)
            except (IndexNotBuiltError, IndexCorruptError) as exc:
                log.warning("starting a fresh manifest: %s", exc)
        plan = plan_ingest(previous.abstracts if previous else (), abstracts)
        chunks = chunk_corpus(abstracts, embedder, settings)
        stored = store.ids()
        missing = [c for c in chunks if c.id not in stored]
        generation = next_generation(previous)
        vectors = _embed_and_store(
            store, embedder, abstracts, chunks, stored, _reusable_sentence_vectors(settings, previous),
            settings.embed_batch_size, progress,
        )  # fmt: skip
        vectors_name = save_sentence_vectors(settings.index_dir, generation, vectors)
        bm25_name = save_bm25(settings.index_dir, generation, *build_bm25(abstracts, chunks))  # so loading is fast
        manifest = Manifest(
            collection=settings.collection_name,
            embed_model=settings.embed_model,
            abstracts=tuple(abstracts),
            chunks=tuple(chunks),
            generation=generation,
            written_at=time.time(),
            sentence_vectors=vectors_name,
            bm25=bm25_name,
        )
        manifest = save_manifest(settings.index_dir, manifest)  # the commit point
        remove_stale_files(settings.index_dir, manifest)
        stale = stored - {c.id for c in chunks}
        if stale:
            store.delete(sorted(stale))
        if not settings.chroma_host:  # a server's collections may serve other installs: leave them
            remove_superseded_indexes(settings, store)
    files = sorted({loc.file for a in abstracts for loc in a.locations})
    return IngestReport(
        abstracts=len(abstracts),
        chunks=len(chunks),
        added=len(plan.added),
        updated=len(plan.updated),
        removed=len(plan.removed),
        unchanged=len(plan.unchanged),
        embedded_chunks=len(missing),
        seconds=time.perf_counter() - started,
        collection=settings.collection_name,
        files=files,
    )


def remove_superseded_indexes(settings: Settings, store: ChunkStore) -> list[str]:
    """After a committed ingest, delete the collections and index folders an older index schema built for the
    same model and chunking (this version cannot read them; they only take disk). Failures are logged, not raised:
    the new index is already good."""
    removed = []
    try:
        names = store.collection_names()
    except Exception as exc:  # noqa: BLE001 - housekeeping must not fail an ingest that succeeded
        log.warning("could not list old collections: %s", exc)
        return removed
    folders = [p.name for p in settings.index_dir.parent.glob("*") if p.is_dir()]
    for name in superseded_collections(settings.collection_name, {*names, *folders}):
        try:
            if name in names:
                store.drop_collection(name)
            shutil.rmtree(settings.index_dir.parent / name, ignore_errors=True)
        except Exception as exc:  # noqa: BLE001
            log.warning("could not remove the old index %s: %s", name, exc)
            continue
        log.info("removed %s, built by an older index schema", name)
        removed.append(name)
    return removed


def _open_store(settings: Settings, rebuild: bool) -> ChunkStore:
    """The chunk store. With ``rebuild``, an embedded store that cannot be opened (e.g. a damaged chroma.sqlite3)
    is moved aside, not deleted, and a fresh one is built in its place: the fix the error message promises."""
    try:
        return ChunkStore(settings)
    except IndexCorruptError:
        if not rebuild or settings.chroma_host or not settings.chroma_dir.exists():
            raise
    aside = settings.chroma_dir.with_name(f"chroma.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
    settings.chroma_dir.rename(aside)
    log.warning("the Chroma folder could not be opened; moved it to %s and building a fresh one", aside.name)
    return ChunkStore(settings)


@dataclass(frozen=True, slots=True)
class VectorRecipe:
    """How one abstract's sentence and chunk vectors are made from what the encoder sees.

    The encoder sees each sentence once (a sentence in two overlapping chunks is not encoded twice), plus the
    pieces of any sentence too long for it. A sentence's vector is its own encoding, or for an over-long one the
    mean of its pieces' (so nothing is truncated); a chunk's vector is the normalised mean of its sentences'.
    """

    texts: tuple[str, ...]
    sentences: tuple[tuple[int, ...], ...]  # per sentence: rows of ``texts`` whose mean is its vector
    chunks: tuple[tuple[int, ...], ...]  # per chunk: the same, for the chunk's vector


def vector_recipe(abstract: Abstract, chunks: Sequence[Chunk]) -> VectorRecipe:
    """The recipe for ``abstract`` chunked as ``chunks`` (every sentence lies in some chunk, or is split)."""
    spans = abstract.sentences
    # Sentences are ordered and disjoint, so those inside a chunk are one run found by bisection (scanning every
    # sentence for every chunk was quadratic: minutes for a paragraph of 27k sentences).
    starts = [s.start for s in spans]
    ends = [s.end for s in spans]
    inside = [list(range(bisect_left(starts, c.start), bisect_right(ends, c.end))) for c in chunks]
    whole = sorted({i for rows in inside for i in rows})
    texts = [spans[i].of(abstract.text) for i in whole]
    row_of = {sentence: row for row, sentence in enumerate(whole)}
    chunk_rows: list[tuple[int, ...]] = []
    piece_rows: list[tuple[int, int, int]] = []  # (row, start, end) of each piece of an over-long sentence
    for chunk, sentences in zip(chunks, inside, strict=True):
        if sentences:
            chunk_rows.append(tuple(row_of[i] for i in sentences))
        else:
            piece_rows.append((len(texts), chunk.start, chunk.end))
            chunk_rows.append((len(texts),))
            texts.append(chunk.text)
    pieces_of: dict[int, list[int]] = {}  # sentence -> rows of its pieces
    for row, start, end in piece_rows:
        i = bisect_right(starts, start) - 1
        if i >= 0 and end <= spans[i].end:
            pieces_of.setdefault(i, []).append(row)
    sentence_rows = []
    for i in range(len(spans)):
        if i in row_of:
            sentence_rows.append((row_of[i],))
        else:
            pieces = tuple(pieces_of.get(i, ()))
            if not pieces:
                raise ValueError(f"sentence {i} of {abstract.id} lies in no chunk")
            sentence_rows.append(pieces)
    return VectorRecipe(tuple(texts), tuple(sentence_rows), tuple(chunk_rows))


def mean_vectors(encoded: np.ndarray, parts: Sequence[Sequence[int]]) -> np.ndarray:
    """One L2-normalised row per entry of ``parts``: the mean of those rows of ``encoded``."""
    if not parts:
        return np.zeros((0, encoded.shape[1]), np.float32)
    means = np.stack([encoded[list(rows)].mean(axis=0) for rows in parts])
    norms = np.linalg.norm(means, axis=1, keepdims=True)
    return (means / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def _reusable_sentence_vectors(settings: Settings, previous: Manifest | None) -> dict[str, np.ndarray]:
    """The previous index's sentence vectors by abstract id (none when the file is missing or damaged)."""
    reuse: dict[str, np.ndarray] = {}
    if previous is not None and previous.sentence_vectors:
        try:
            old = load_sentence_vectors(settings.index_dir, previous)
        except IndexCorruptError as exc:
            log.warning("re-embedding all sentences: %s", exc)
            return {}
        row = 0
        for abstract in previous.abstracts:
            reuse[abstract.id] = old[row : row + len(abstract.sentences)]
            row += len(abstract.sentences)
    return reuse


def _embed_and_store(
    store: ChunkStore,
    embedder: LocalSentenceEmbedding,
    abstracts: Sequence[Abstract],
    chunks: Sequence[Chunk],
    stored: set[str],
    reuse: dict[str, np.ndarray],
    batch_size: int,
    progress: ProgressCallback | None,
    slice_texts: int = 2048,
) -> np.ndarray:
    """Encode what is new, add the chunks the store lacks, and return every sentence vector in manifest order.

    An abstract is encoded again unless its sentence vectors are reusable and all its chunks are stored.
    """
    by_abstract: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_abstract.setdefault(chunk.abstract_id, []).append(chunk)
    by_id = {a.id: a for a in abstracts}
    todo = [
        (a, vector_recipe(a, by_abstract[a.id]))
        for a in abstracts
        if a.id not in reuse or any(c.id not in stored for c in by_abstract[a.id])
    ]
    total = sum(len(recipe.texts) for _, recipe in todo)
    embedder.prepare(total)
    if progress:
        progress(0, total)
    sentence_vectors = dict(reuse)
    # Encode in slices of about ``step`` texts across abstract boundaries (one huge abstract is many slices); each
    # abstract's chunks are written as soon as its last text is encoded, so an interruption keeps finished work.
    # Within a slice texts are batched by length and the cores share its batches: slices of 2048 rather than 256
    # made ingest of the seeds ~10 % faster (less padding, one idle core at a slice's end instead of three).
    # An encoder that reports its batches (ours) moves the progress bar within a slice.
    step = max(batch_size, slice_texts)
    per_batch = progress is not None and "progress" in inspect.signature(embedder.encode).parameters
    texts = [t for _, recipe in todo for t in recipe.texts]
    encoded = [0]

    def advance(n: int) -> None:  # the encoder finished a batch of n texts
        encoded[0] += n
        progress(min(total, encoded[0]), total)

    pending = deque(todo)  # abstracts whose texts are not all encoded yet, in order
    encoded_rows: list[np.ndarray] = []  # encoded slices not yet used by a finished abstract
    buffered = 0  # rows in encoded_rows
    for start in range(0, len(texts), step):
        piece = texts[start : start + step]
        if per_batch:
            encoded_rows.append(embedder.encode(piece, batch_size=batch_size, progress=advance))
        else:
            encoded_rows.append(embedder.encode(piece, batch_size=batch_size))
        buffered += len(encoded_rows[-1])
        new_chunks, new_vectors = [], []
        while pending and len(pending[0][1].texts) <= buffered:
            abstract, recipe = pending.popleft()
            merged = np.concatenate(encoded_rows) if len(encoded_rows) > 1 else encoded_rows[0]
            rows, rest = merged[: len(recipe.texts)], merged[len(recipe.texts) :]
            encoded_rows, buffered = [rest], len(rest)
            sentence_vectors[abstract.id] = mean_vectors(rows, recipe.sentences)
            chunk_vectors = mean_vectors(rows, recipe.chunks)
            for chunk, vector in zip(by_abstract[abstract.id], chunk_vectors, strict=True):
                if chunk.id not in stored:
                    new_chunks.append(chunk)
                    new_vectors.append(vector)
        if new_chunks:
            store.add(to_nodes(new_chunks, by_id, new_vectors))
        if progress:
            progress(min(total, start + step), total)
    rows = [sentence_vectors[a.id] for a in abstracts]
    return np.vstack(rows).astype(np.float32) if rows else np.zeros((0, embedder.dimension), np.float32)
