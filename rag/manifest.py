"""The manifest: the list of abstracts and chunks in the last *complete* ingest, written atomically.

Chroma writes are not transactional, so the manifest is the commit point: readers trust only what it lists, and an
interrupted ingest leaves the previous manifest (and so the previous index) in force.
"""

from __future__ import annotations

import errno
import itertools
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
import orjson

from rag.bm25 import BM25Index, signature
from rag.chunking import Chunk
from rag.corpus import Abstract, Location
from rag.errors import DiskFullError, IndexCorruptError, IndexNotBuiltError
from rag.text import Span, sentence_spans

MANIFEST_NAME = "manifest.json"
FORMAT = 1


@dataclass(frozen=True, slots=True)
class Manifest:
    collection: str
    embed_model: str
    abstracts: tuple[Abstract, ...]
    chunks: tuple[Chunk, ...]
    generation: int
    written_at: float
    sentence_vectors: str = ""  # file name (in the index folder) of the per-sentence embedding matrix
    bm25: str = ""  # file name of the saved BM25 indexes; empty in an index written before they were saved

    def abstract_ids(self) -> set[str]:
        return {a.id for a in self.abstracts}

    def sentence_count(self) -> int:
        """Rows of the sentence arrays (vectors, sentence BM25): every abstract's sentences, in order."""
        return sum(len(a.sentences) for a in self.abstracts)


def save_manifest(index_dir: Path, manifest: Manifest) -> None:
    index_dir.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "collection": manifest.collection,
        "embed_model": manifest.embed_model,
        "generation": manifest.generation,
        "written_at": manifest.written_at,
        "sentence_vectors": manifest.sentence_vectors,
        "bm25": manifest.bm25,
        "abstracts": [
            {
                "id": a.id,
                "label": a.label,
                "content_hash": a.content_hash,
                "locations": [[loc.file, loc.position] for loc in a.locations],
                "text": a.text,
                # Stored, not re-split on load: splitting 100k chunks' sentences took most of the load time, and
                # these are the spans the sentence vectors were computed for.
                "sentences": [bound for span in a.sentences for bound in (span.start, span.end)],
            }
            for a in manifest.abstracts
        ],
        "chunks": [[c.id, c.abstract_id, c.ordinal, c.start, c.end] for c in manifest.chunks],
    }
    # Write-then-rename: readers see the old file or the new one, never half of one.
    data = orjson.dumps(payload)
    _write_file(index_dir, MANIFEST_NAME, lambda handle: handle.write(data))


def manifest_stamp(index_dir: Path) -> tuple[int, ...] | None:
    """Changes whenever a new manifest is committed (it is replaced by a rename); None when there is none."""
    try:
        info = (index_dir / MANIFEST_NAME).stat()
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)


def load_manifest(index_dir: Path) -> Manifest:
    path = index_dir / MANIFEST_NAME
    if not path.exists():
        raise IndexNotBuiltError(f"No index has been built yet for {index_dir.name}")
    try:
        # orjson: decoding 100k chunks' manifest takes a third of json's time (and the same strict UTF-8 check)
        payload = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise IndexCorruptError(f"The index manifest in {index_dir.name} is unreadable ({exc.strerror})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise IndexCorruptError(f"The index manifest in {index_dir.name} is unreadable ({exc})") from None
    try:
        if payload.get("format") != FORMAT:
            raise ValueError(f"unknown manifest format {payload.get('format')!r}")
        rows = payload["abstracts"]
        spans = _stored_spans(rows) if all("sentences" in a for a in rows) else None
        # Positional construction (Abstract's and Chunk's field order): ~2x faster than keywords at 100k chunks.
        abstracts = tuple(
            Abstract(
                a["id"],
                a["label"],
                a["text"],
                tuple(Location(f, int(p)) for f, p in a["locations"]),
                a["content_hash"],
                # a manifest written before spans were stored: split again
                spans[i] if spans is not None else tuple(sentence_spans(a["text"])),
            )
            for i, a in enumerate(rows)
        )
        texts = {a.id: a.text for a in abstracts}
        chunks = tuple(
            Chunk(cid, aid, int(o), int(s), int(e), texts[aid][s:e]) for cid, aid, o, s, e in payload["chunks"]
        )
        return Manifest(
            collection=payload["collection"],
            embed_model=payload["embed_model"],
            abstracts=abstracts,
            chunks=chunks,
            generation=int(payload["generation"]),
            written_at=float(payload["written_at"]),
            sentence_vectors=str(payload.get("sentence_vectors", "")),
            bm25=str(payload.get("bm25", "")),
        )
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise IndexCorruptError(f"The index manifest in {index_dir.name} is unreadable ({exc})") from None


def _stored_spans(rows: list[dict]) -> list[tuple[Span, ...]]:
    """Each abstract's sentence spans from its flat [start, end, start, end, …] list, checked against its text
    (whole numbers, non-empty, in order, inside the text) for all abstracts at once."""
    lists = [a["sentences"] for a in rows]
    counts = np.fromiter((len(b) for b in lists), np.int64, len(lists))
    flat = np.fromiter(itertools.chain.from_iterable(lists), np.int64, int(counts.sum()))
    if (counts % 2).any() or set(map(type, itertools.chain.from_iterable(lists))) - {int}:
        raise ValueError("sentence spans are not pairs of whole numbers")
    starts, ends = flat[0::2], flat[1::2]
    owner = np.repeat(np.arange(len(rows)), counts // 2)
    lengths = np.fromiter((len(a["text"]) for a in rows), np.int64, len(rows))[owner]
    same_owner = owner[1:] == owner[:-1]
    if (starts < 0).any() or (starts >= ends).any() or (ends > lengths).any() or (
        same_owner & (starts[1:] < ends[:-1])
    ).any():
        raise ValueError("sentence spans are out of order or outside the text")
    made = list(map(Span, starts.tolist(), ends.tolist()))
    cuts = np.concatenate([[0], np.cumsum(counts // 2)]).tolist()
    return [tuple(made[cuts[i] : cuts[i + 1]]) for i in range(len(rows))]


def next_generation(previous: Manifest | None) -> int:
    return (previous.generation + 1) if previous else 1


def sentence_vectors_name(generation: int) -> str:
    return f"sentences-{generation}.npy"


def _write_file(index_dir: Path, name: str, write: Callable[[IO[bytes]], object]) -> str:
    """Write ``name`` in the index folder atomically (a temporary file, flushed to disk, then a rename); returns
    ``name``. A full disk is a :class:`DiskFullError`; nothing is replaced then."""
    tmp = ""
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{name}-", suffix=".tmp", dir=index_dir)
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, index_dir / name)
    except BaseException as exc:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
        # numpy reports a short write as "N requested and M written", without an errno
        if isinstance(exc, OSError) and (exc.errno in (errno.ENOSPC, errno.EDQUOT) or "requested and" in str(exc)):
            data_dir = index_dir.parent.parent.name  # <data dir>/indexes/<collection>
            raise DiskFullError(f"No space left on the disk holding the index folder '{data_dir}'") from None
        raise
    return name


def save_sentence_vectors(index_dir: Path, generation: int, vectors: np.ndarray) -> str:
    """Write the matrix under a generation-specific name (atomically); the manifest points at it."""
    matrix = vectors.astype(np.float32, copy=False)
    return _write_file(index_dir, sentence_vectors_name(generation), lambda handle: np.save(handle, matrix))


def load_sentence_vectors(index_dir: Path, manifest: Manifest) -> np.ndarray:
    """The per-sentence matrix, rows in manifest order (abstract by abstract, sentence by sentence)."""
    expected = manifest.sentence_count()
    try:
        # Memory-mapped: a question reads only its shortlist's rows, so a large index neither loads the whole
        # matrix at start nor keeps it resident.
        vectors = np.load(index_dir / manifest.sentence_vectors, mmap_mode="r", allow_pickle=False)
    except OSError as exc:  # strerror, not str(exc): that names the absolute path
        reason = exc.strerror or type(exc).__name__
        raise IndexCorruptError(f"The sentence vectors of {index_dir.name} are unreadable ({reason})") from None
    except (ValueError, EOFError) as exc:  # truncated or empty file
        raise IndexCorruptError(f"The sentence vectors of {index_dir.name} are unreadable ({exc})") from None
    if vectors.ndim != 2 or vectors.shape[0] != expected or vectors.dtype != np.float32:
        raise IndexCorruptError(f"The sentence vectors of {index_dir.name} do not match the manifest")
    return vectors


def bm25_name(generation: int) -> str:
    return f"bm25-{generation}.npz"


def save_bm25(index_dir: Path, generation: int, chunks: BM25Index, sentences: BM25Index) -> str:
    """Write both BM25 indexes (chunks, sentences) under a generation-specific name (atomically), so opening the
    index loads them instead of tokenizing the whole corpus again; the manifest points at the file."""
    arrays = {"signature": np.array(signature())}
    arrays.update({f"chunks_{key}": value for key, value in chunks.to_arrays().items()})
    arrays.update({f"sentences_{key}": value for key, value in sentences.to_arrays().items()})
    return _write_file(index_dir, bm25_name(generation), lambda handle: np.savez(handle, **arrays))


def load_bm25(index_dir: Path, manifest: Manifest) -> tuple[BM25Index, BM25Index] | None:
    """The saved (chunk, sentence) BM25 indexes, or None for an index written before they were saved.

    Raises IndexCorruptError when the file is missing, damaged, of other code (tokenizer, formula) or of another
    corpus size; the caller can always build the indexes from the manifest instead.
    """
    if not manifest.bm25:
        return None
    try:
        with np.load(index_dir / manifest.bm25, allow_pickle=False) as saved:
            if not signature() or str(saved["signature"][()]) != signature():
                raise ValueError("written by other code (tokenizer or BM25 changed)")
            chunks = BM25Index.from_arrays(_with_prefix(saved, "chunks_"), len(manifest.chunks))
            sentences = BM25Index.from_arrays(_with_prefix(saved, "sentences_"), manifest.sentence_count())
    except OSError as exc:  # strerror, not str(exc): that names the absolute path
        reason = exc.strerror or type(exc).__name__
        raise IndexCorruptError(f"The BM25 file of {index_dir.name} is unreadable ({reason})") from None
    except Exception as exc:  # a truncated zip, a missing array, a bad matrix: all just mean "rebuild it"
        reason = str(exc) or type(exc).__name__
        raise IndexCorruptError(f"The BM25 file of {index_dir.name} is unusable ({reason})") from None
    return chunks, sentences


def _with_prefix(saved, prefix: str) -> dict[str, np.ndarray]:
    return {key.removeprefix(prefix): saved[key] for key in saved.files if key.startswith(prefix)}


def remove_stale_files(index_dir: Path, manifest: Manifest) -> None:
    """Delete the sentence-vector and BM25 files of other generations (the committed ``manifest`` names its own)."""
    keep = {manifest.sentence_vectors, manifest.bm25}
    for pattern in ("sentences-*.npy", "bm25-*.npz"):
        for path in index_dir.glob(pattern):
            if path.name not in keep:
                path.unlink(missing_ok=True)
