"""Abstract-level retrieval: dense (Chroma), BM25, and their reciprocal-rank fusion, behind one small interface."""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from rag.abstain import LIST_SHAPES
from rag.bm25 import BM25Index, top_indices
from rag.chunking import Chunk
from rag.corpus import Abstract
from rag.embedding import LocalSentenceEmbedding
from rag.errors import IndexCorruptError
from rag.gloss import gloss, readable_by_encoder
from rag.lexicon import (
    Lexicon,
    Linking,
    cooccurrence,
    document_frequency,
    english_words,
    introduced_name,
    single_owner_names,
)
from rag.manifest import (
    LazyChunks,
    LoweredText,
    Manifest,
    ManifestColumns,
    load_bm25,
    mapping_of,
    release_pages,
)
from rag.policy import AnswerPolicy
from rag.question import classify_shape, fix_shape_words, lexical_words, split_glued_quantities
from rag.roles import ROLES, Role
from rag.store import ChunkStore
from rag.text import Span, content_words
from rag.themes import Theme

log = logging.getLogger(__name__)

Mode = Literal["hybrid", "dense", "bm25"]


@dataclass(slots=True)
class ChunkMatch:
    chunk_id: str
    start: int
    end: int
    text: str
    dense: float | None = None
    bm25: float | None = None


@dataclass(slots=True)
class RankedAbstract:
    abstract: Abstract
    score: float
    dense: float | None = None  # dense score: its best sentences and centroid pooled (rag.retrieve.pooled_views)
    bm25: float | None = None  # best chunk BM25 score
    dense_rank: int | None = None  # 1-based
    bm25_rank: int | None = None
    chunks: list[ChunkMatch] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = self.abstract.to_dict()
        d.update(
            score=round(self.score, 6),
            dense_score=None if self.dense is None else round(self.dense, 4),
            bm25_score=None if self.bm25 is None else round(self.bm25, 4),
            matched_chunks=[
                {
                    "chunk_id": c.chunk_id,
                    "start": c.start,
                    "end": c.end,
                    "text": c.text,
                    "dense_score": None if c.dense is None else round(c.dense, 4),
                    "bm25_score": None if c.bm25 is None else round(c.bm25, 4),
                }
                for c in self.chunks
            ],
        )
        return d


class Retriever(Protocol):
    """Ranks abstracts for a question; implementations differ only in how they fuse signals."""

    def search(self, question: str, k: int, query_vector: np.ndarray | None = None) -> list[RankedAbstract]: ...


def rrf_fuse(rankings: Sequence[tuple[Sequence[str], float]], rrf_k: int) -> dict[str, float]:
    """Weighted reciprocal-rank fusion: ``sum(weight / (rrf_k + rank))`` over the rankings an id appears in."""
    fused: dict[str, float] = defaultdict(float)
    for ranking, weight in rankings:
        for rank, item in enumerate(ranking, start=1):
            fused[item] += weight / (rrf_k + rank)
    return dict(fused)


def build_bm25(abstracts: Sequence[Abstract], chunks: Sequence[Chunk]) -> tuple[BM25Index, BM25Index]:
    """BM25 over the chunks and over the sentences (manifest order: abstract by abstract), each sentence tokenized
    once.

    A chunk that runs from one sentence's start to another's end has exactly those sentences' words (only whitespace
    lies between sentences, and no word crosses whitespace), so only pieces of over-long sentences are tokenized again.
    """
    sentence_words = {a.id: [content_words(t) for t in a.sentence_texts()] for a in abstracts}
    bounds: dict[str, tuple[dict[int, int], dict[int, int]]] = {
        a.id: ({s.start: i for i, s in enumerate(a.sentences)}, {s.end: i for i, s in enumerate(a.sentences)})
        for a in abstracts
    }
    chunk_words = []
    for chunk in chunks:
        starts, ends = bounds[chunk.abstract_id]
        first, last = starts.get(chunk.start), ends.get(chunk.end)
        if first is not None and last is not None and first <= last:
            chunk_words.append([w for words in sentence_words[chunk.abstract_id][first : last + 1] for w in words])
        else:
            chunk_words.append(content_words(chunk.text))
    sentences = BM25Index.from_tokens([words for a in abstracts for words in sentence_words[a.id]])
    return BM25Index.from_tokens(chunk_words), sentences


class IndexSnapshot:
    """The manifest's abstracts, chunks and sentences in memory, with BM25 over chunks and over sentences.

    Given the index folder, BM25 is loaded from the file the manifest names (``bm25_loaded``); without one, or when
    that file is unusable, it is built from the manifest (slow for a large index, but the same numbers).
    Immutable once built; a new ingest produces a new snapshot.
    """

    def __init__(
        self,
        manifest: Manifest,
        sentence_vectors: np.ndarray,
        index_dir: Path | None = None,
        policy: AnswerPolicy | None = None,
    ) -> None:
        self.manifest = manifest
        self.policy = policy or AnswerPolicy()
        # Views over the manifest's columns: an Abstract, Chunk or Span is built when asked for, so opening a large
        # index makes no Python object per abstract, chunk or sentence.
        self.columns: ManifestColumns = manifest.columns
        self.abstracts: Mapping[str, Abstract] = AbstractsById(self.columns)
        self.chunks: Sequence[Chunk] = manifest.chunks if isinstance(manifest.chunks, LazyChunks) else list(
            manifest.chunks
        )
        self.bm25, self.sentence_bm25, self.bm25_loaded = self._load_bm25(index_dir)
        self.sentence_vectors = MappedRows(sentence_vectors) if isinstance(sentence_vectors, np.memmap) else sentence_vectors
        self.sentence_owner: Sequence[str] = SentenceOwners(self.columns)
        self.sentence_spans: Sequence[Span] = SentenceSpans(self.columns)
        self.sentence_rows: Mapping[str, range] = SentenceRows(self.columns)
        # The memory maps the index is read through (columns, BM25, sentence vectors), for release_pages.
        arrays = [*self.columns.arrays.values(), sentence_vectors]
        for index in (self.bm25, self.sentence_bm25):
            arrays += [index.weights.data, index.weights.indices, index.weights.indptr]
        self._mappings = list({id(m): m for m in map(mapping_of, arrays) if m is not None}.values())
        # The corpus's words with their vectors for the opt-in lexical expansion: encoded on first use by a
        # retriever (which holds the encoder); retrievers are made per question, the snapshot lives until an ingest.
        self.expansion_vocabulary: ExpansionVocabulary | None = None
        # The collection's themes (rag.themes), grouped on first use by a question asking for them; keyed by how many
        # groups were asked for (AnswerPolicy.overview_groups).
        self.collection_themes: dict[int, list[Theme]] = {}

    def release_pages(self) -> None:
        """Drop the pages of the index files that reading mapped into this process (they stay in the page cache, so
        reading them again costs a minor fault, not a disk read). Called after each question: over a few hundred
        questions at 100k chunks, the BM25 and columns files otherwise end up resident whole (~250 MB)."""
        for mapped in self._mappings:
            release_pages(mapped)

    @property
    def abstract_order(self) -> list[str]:
        return self.columns.ids

    @property
    def chunk_index(self) -> Mapping[str, int]:
        """Chunk id -> row (built on first use)."""
        return self.columns.chunk_row_of

    def ids_labelled(self, label: str) -> list[str]:
        """The ids of the abstracts whose label, lower-cased, is ``label`` (manifest order)."""
        return self._ids_by_label.get(label, [])

    def labels_named(self, text: str) -> list[tuple[int, str]]:
        """(where in the lower-cased text, abstract id) for each paper whose label of two or more words (the name it
        introduces, "Token Hypothesis", "Argument Graph Uncertainty") the text spells, case aside; labels of one
        word are names the lexicon links, labels of opening words are no names."""
        words = [(m.start(), m.group(0)) for m in _LABEL_WORD.finditer(text.lower())]
        found: list[tuple[int, str]] = []
        for n in range(2, min(_LABEL_WORDS, len(words)) + 1):
            for i in range(len(words) - n + 1):
                ids = self._multiword_labels.get(" ".join(w for _, w in words[i : i + n]))
                if ids is not None and len(ids) == 1:
                    found.append((words[i][0], ids[0]))
        return sorted(found)

    @cached_property
    def _multiword_labels(self) -> dict[str, list[str]]:
        return {
            label: ids
            for label, ids in self._ids_by_label.items()
            if 2 <= len(label.split()) <= _LABEL_WORDS and not label.endswith(("…", "..."))
        }

    @cached_property
    def _ids_by_label(self) -> dict[str, list[str]]:
        by_label: dict[str, list[str]] = {}
        for aid, label in zip(self.columns.ids, self.columns.labels, strict=True):
            by_label.setdefault(label.lower(), []).append(aid)
        return by_label

    def sentence_text(self, row: int) -> str:
        """One sentence row's text (cut from its abstract on demand: a large index has hundreds of thousands)."""
        cols = self.columns
        return cols.text(int(cols.sentence_owner_rows[row]))[int(cols.sentence_start[row]) : int(cols.sentence_end[row])]

    @cached_property
    def lowered_corpus(self) -> LoweredText:
        """Every abstract's text, lower-cased and joined by newlines, searched in place (``in``, ``search``)."""
        return self.columns.lowered()

    @cached_property
    def sentence_texts(self) -> list[str]:
        """Every sentence row's text, in row order (built on first use)."""
        cols = self.columns
        starts, ends, bounds = cols.sentence_start.tolist(), cols.sentence_end.tolist(), cols.sentence_offsets.tolist()
        out: list[str] = []
        for row, text in enumerate(cols.texts()):
            out.extend(text[s:e] for s, e in zip(starts[bounds[row] : bounds[row + 1]], ends[bounds[row] : bounds[row + 1]], strict=True))
        return out

    @cached_property
    def lexicon(self) -> Lexicon:
        """The corpus's names (methods, benchmarks, datasets, models) and the abstracts using each; built once."""
        return Lexicon.build(zip(self.columns.ids, self.columns.texts(), strict=True), self.policy.generic_name_share)

    @cached_property
    def _single_owner_names(self) -> dict[str, list[str]]:
        return single_owner_names(self.lexicon)

    def own_name(self, abstract_id: str) -> str | None:
        """The name of the abstract's own work (rag.lexicon.own_names), or None; read for the abstracts asked about
        only (a list answer's shortlist), not for the whole corpus."""
        if abstract_id not in self._own_name:
            candidates = self._single_owner_names.get(abstract_id, ())
            text = self.abstracts[abstract_id].text if candidates else ""
            self._own_name[abstract_id] = introduced_name(self.lexicon, candidates, text)
        return self._own_name[abstract_id]

    @cached_property
    def _own_name(self) -> dict[str, str | None]:
        return {}

    @property
    def sentence_roles(self) -> Sequence[Role]:
        """Each sentence row's role (background, gap, contribution, method, result, availability), read off the
        index's one-byte column (computed once if the index's roles are of other code)."""
        return SentenceRoles(self.columns)

    def _load_bm25(self, index_dir: Path | None) -> tuple[BM25Index, BM25Index, bool]:
        """(chunk BM25, sentence BM25, whether they came from the saved file)."""
        if index_dir is not None:
            try:
                loaded = load_bm25(index_dir, self.manifest)
            except IndexCorruptError as exc:  # a cache, never a reason not to answer
                log.warning("%s; building BM25 in memory (`rag ingest` saves it again)", exc)
                loaded = None
            if loaded is not None:
                return (*loaded, True)
        return (*build_bm25(self.manifest.abstracts, self.manifest.chunks), False)


class MappedRows:
    """A matrix in a ``.npy`` file read by rows (``matrix[rows]`` gives an array), with ``pread`` from the file.

    Not through the memory map: a page read through a mapping stays mapped into the process and counts as its
    memory, and the kernel maps up to 64 KB around each faulting page (fault-around), so a list question reading
    15k scattered rows of the 565 MB matrix at 100k chunks mapped ~125 MB. ``pread`` copies just the rows asked for
    out of the page cache (runs of consecutive rows in one call). A key that is not a list of rows, or a matrix not
    stored in C order, is read through the map and its pages released afterwards.
    """

    def __init__(self, matrix: np.memmap) -> None:
        self._matrix = matrix
        self.shape, self.dtype, self.ndim = matrix.shape, matrix.dtype, matrix.ndim
        self._row_bytes = int(np.prod(matrix.shape[1:], dtype=np.int64)) * matrix.dtype.itemsize
        self._fd: int | None = None
        if matrix.flags.c_contiguous and getattr(matrix, "filename", None) and hasattr(os, "preadv"):
            with contextlib.suppress(OSError):
                self._fd = os.open(matrix.filename, os.O_RDONLY)

    def __del__(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)

    def __len__(self) -> int:
        return len(self._matrix)

    def __getitem__(self, key) -> np.ndarray:
        rows = _row_list(key, len(self))
        if rows is None or self._fd is None:
            out = np.array(self._matrix[key])
            release_pages(self._matrix)
            return out
        return self._pread(rows)

    def _pread(self, rows: np.ndarray) -> np.ndarray:
        if not len(rows):
            return np.empty((0, *self.shape[1:]), self.dtype)
        unique, inverse = np.unique(rows, return_inverse=True)
        out = np.empty((len(unique), *self.shape[1:]), self.dtype)
        flat = out.reshape(len(unique), -1).view(np.uint8)
        cuts = np.flatnonzero(np.diff(unique) != 1) + 1
        base = int(self._matrix.offset)
        for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), len(unique)], strict=True):
            want = (hi - lo) * self._row_bytes
            got = os.preadv(self._fd, [flat[lo:hi]], base + int(unique[lo]) * self._row_bytes)
            if got != want:
                raise IndexCorruptError("The sentence vectors file is shorter than the manifest says")
        return out if len(unique) == len(rows) and (len(rows) < 2 or bool((np.diff(rows) > 0).all())) else out[inverse]

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return np.asarray(self._matrix, dtype=dtype)


def _row_list(key, n: int) -> np.ndarray | None:
    """``key`` as an int64 array of rows in ``[0, n)`` (negative ones counted from the end) when it is a list or
    1-d integer array of rows; None for anything else (a slice, one row, a mask, a tuple)."""
    if isinstance(key, list | np.ndarray):
        rows = np.asarray(key)
        if rows.ndim == 1 and rows.dtype.kind in "iu" or (rows.size == 0 and isinstance(key, list)):
            rows = rows.astype(np.int64, copy=False)
            if rows.size and (rows.min() < -n or rows.max() >= n):
                raise IndexError("row index out of range")
            return np.where(rows < 0, rows + n, rows)
    return None


class AbstractsById(Mapping[str, Abstract]):
    """Abstract id -> Abstract, built from the columns on each lookup (the last few are kept)."""

    CACHE = 256

    def __init__(self, columns: ManifestColumns) -> None:
        self._columns = columns
        self._cache: dict[str, Abstract] = {}

    def __getitem__(self, abstract_id: str) -> Abstract:
        found = self._cache.get(abstract_id)
        if found is None:
            found = self._columns.abstract(self._columns.row_of[abstract_id])
            if len(self._cache) >= self.CACHE:
                with contextlib.suppress(KeyError, RuntimeError, StopIteration):  # another thread evicted it first
                    self._cache.pop(next(iter(self._cache)))
            self._cache[abstract_id] = found
        return found

    def __contains__(self, abstract_id: object) -> bool:
        return abstract_id in self._columns.row_of

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns.ids)

    def __len__(self) -> int:
        return self._columns.n_abstracts


class _SentenceView(Sequence):
    """Sentence row -> something read off the manifest's columns (subclasses say what, in ``_at``)."""

    def __init__(self, columns: ManifestColumns) -> None:
        self._columns = columns

    def __len__(self) -> int:
        return self._columns.n_sentences

    def _at(self, row: int):
        raise NotImplementedError

    def __getitem__(self, row):  # type: ignore[override]
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        return self._at(row)


class SentenceOwners(_SentenceView, Sequence[str]):
    """Sentence row -> its abstract's id."""

    def _at(self, row: int) -> str:
        return self._columns.ids[int(self._columns.sentence_owner_rows[row])]


class SentenceRoles(_SentenceView, Sequence[Role]):
    """Sentence row -> its role in its abstract (``rag.roles``)."""

    def __init__(self, columns: ManifestColumns) -> None:
        super().__init__(columns)
        self._codes = columns.sentence_roles

    def _at(self, row: int) -> Role:
        return ROLES[self._codes[row]]


class SentenceSpans(_SentenceView, Sequence[Span]):
    """Sentence row -> its span in its abstract's text."""

    def _at(self, row: int) -> Span:
        return Span(int(self._columns.sentence_start[row]), int(self._columns.sentence_end[row]))


class SentenceRows(Mapping[str, range]):
    """Abstract id -> the range of its sentence rows."""

    def __init__(self, columns: ManifestColumns) -> None:
        self._columns = columns

    def __getitem__(self, abstract_id: str) -> range:
        row = self._columns.row_of[abstract_id]
        bounds = self._columns.sentence_offsets
        return range(int(bounds[row]), int(bounds[row + 1]))

    def __contains__(self, abstract_id: object) -> bool:
        return abstract_id in self._columns.row_of

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns.ids)

    def __len__(self) -> int:
        return self._columns.n_abstracts


class HybridRetriever:
    """Dense chunk search in Chroma plus BM25 over chunks; an abstract scores by its best chunk in each."""

    def __init__(
        self,
        snapshot: IndexSnapshot,
        store: ChunkStore,
        embedder: LocalSentenceEmbedding,
        *,
        mode: Mode = "hybrid",
        rrf_k: int = 60,
        dense_weight: float = 1.0,
        chunks_per_abstract: int = 2,
        fusion: Literal["score", "rrf"] = "score",
        policy: AnswerPolicy | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.store = store
        self.embedder = embedder
        self.mode = mode
        self.rrf_k = rrf_k
        self.dense_weight = dense_weight
        self.chunks_per_abstract = chunks_per_abstract
        self.fusion = fusion
        self.policy = policy or AnswerPolicy()

    def dense_chunk_scores(self, vector: np.ndarray, n_chunks: int) -> dict[str, float]:
        # Over-fetch: chunks of an interrupted ingest may sit in Chroma without being in the manifest.
        hits = self.store.query(vector, n_chunks + 16)
        known = self.snapshot.chunk_index
        return {h.chunk_id: h.similarity for h in hits if h.chunk_id in known}

    def dense_sentence_scores(self, vector: np.ndarray, abstract_ids: Sequence[str], best: int = 2) -> dict[str, float]:
        """Each candidate abstract's mean cosine with the question over its ``best`` best sentences (all of them when
        it has fewer; ``AnswerPolicy.dense_sentences``), pooled with its single best sentence and its centroid as the
        policy's dense_best_share / dense_centroid_share say (:func:`pooled_views`).

        Only the candidates' sentence rows are read (those the chunk search or BM25 found), so the cost does not grow
        with the index.
        """
        rows_of = self.snapshot.sentence_rows
        spans = [(aid, rows_of[aid]) for aid in abstract_ids if aid in rows_of]
        spans = [(aid, rows) for aid, rows in spans if len(rows)]
        if not spans:
            return {}
        index = np.concatenate([np.arange(rows.start, rows.stop) for _, rows in spans])
        matrix = np.asarray(self.snapshot.sentence_vectors[index], dtype=np.float32)
        vector = np.asarray(vector, dtype=np.float32)
        keys, sizes = [aid for aid, _ in spans], [len(rows) for _, rows in spans]
        sims = matrix @ vector
        top = top_mean_by_group(keys, sizes, sims, best)
        policy = self.policy
        if policy.dense_best_share <= 0 and policy.dense_centroid_share <= 0:
            return top
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        return pooled_views(
            top,
            dict(zip(keys, np.maximum.reduceat(sims, starts).tolist(), strict=True)),
            centroid_cosines(keys, sizes, matrix, vector),
            policy.dense_best_share,
            policy.dense_centroid_share,
        )

    def search(
        self,
        question: str,
        k: int,
        query_vector: np.ndarray | None = None,
        *,
        linked: dict[str, float] | None = None,
        dense_weight: float | None = None,
    ) -> list[RankedAbstract]:
        """Rank abstracts. ``linked``: abstract id -> link strength (from the lexicon; computed when None);
        ``dense_weight`` overrides the policy's share of the dense score (0 for a question the encoder cannot read).
        """
        snap = self.snapshot
        if linked is None:  # called on its own (rag search, eval): read the question as answering does
            question = search_text(snap, question, self.policy)
            linked = link_weights(snap, question, self.policy)
        n_abstracts = len(snap.abstracts)
        dense_chunks: dict[str, float] = {}
        bm25_chunks: dict[str, float] = {}
        if self.mode in ("hybrid", "dense"):
            vector = self.embedder.encode([question])[0] if query_vector is None else query_vector
            dense_chunks = self.dense_chunk_scores(vector, min(len(snap.chunks), max(50, 10 * k)))
        words = query_words(question, self.policy)
        if self.mode in ("hybrid", "bm25"):
            scores = lexical_scores(snap.bm25, words)
            if (
                self.mode == "hybrid"
                and self.policy.lexical_expansion_min_sim < 1.0
                and single_paper(question)
                and bm25_strength(snap.bm25, words, float(scores.max(initial=0.0))) < self.policy.bm25_trust_high
            ):  # a question in its own words (a partial lexical match) also matches the corpus words near them
                scores = scores + self._expansion_scores(question, words)
            for i in top_indices(scores, max(50, 10 * k)):
                if scores[i] > 0:
                    bm25_chunks[snap.chunks[i].id] = float(scores[i])

        dense_best = _best_per_abstract(dense_chunks)
        bm25_best = _best_per_abstract(bm25_chunks)
        if dense_chunks and self.policy.dense_sentences > 0:
            candidates = [*dense_best, *(a for a in bm25_best if a not in dense_best)]
            dense_best = self.dense_sentence_scores(vector, candidates, self.policy.dense_sentences)
        dense_ranking = sorted(dense_best, key=lambda a: -dense_best[a])
        bm25_ranking = sorted(bm25_best, key=lambda a: -bm25_best[a])
        if self.mode == "dense":
            fused = {a: dense_best[a] for a in dense_ranking}
        elif self.mode == "bm25":
            fused = {a: bm25_best[a] for a in bm25_ranking}
        elif self.fusion == "rrf":
            fused = rrf_fuse([(dense_ranking, self.dense_weight), (bm25_ranking, 1.0)], self.rrf_k)
        else:
            weight = self.policy.fusion_dense_weight if dense_weight is None else dense_weight
            trust = 1.0
            if weight > 0 and bm25_best:  # a question the encoder reads: BM25 counts as far as its match is strong
                strength = bm25_strength(snap.bm25, words, max(bm25_best.values()))
                lexical_top = max(bm25_best, key=lambda a: bm25_best[a])
                trust = fusion_trust(strength, dense_best, self.policy, lexical_top)
            fused = score_fuse(dense_best, bm25_best, weight, trust)
        if self.mode == "hybrid" and linked:
            fused = with_links(fused, {a: s for a, s in linked.items() if a in snap.abstracts}, self.policy.link_boost)
        order = sorted(fused, key=lambda a: (-fused[a], a))[: min(k, n_abstracts)]
        dense_rank = {a: i for i, a in enumerate(dense_ranking, start=1)}
        bm25_rank = {a: i for i, a in enumerate(bm25_ranking, start=1)}
        by_abstract: dict[str, set[str]] = defaultdict(set)  # one pass over the matched chunks, not one per abstract
        for cid in (*dense_chunks, *bm25_chunks):
            by_abstract[cid.rsplit(":", 1)[0]].add(cid)
        return [
            RankedAbstract(
                abstract=snap.abstracts[aid],
                score=fused[aid],
                dense=dense_best.get(aid),
                bm25=bm25_best.get(aid),
                dense_rank=dense_rank.get(aid),
                bm25_rank=bm25_rank.get(aid),
                chunks=self._matched_chunks(by_abstract.get(aid, set()), dense_chunks, bm25_chunks),
            )
            for aid in order
        ]

    def _expansion_scores(self, question: str, words: Sequence[str]) -> np.ndarray:
        """BM25 chunk scores of the corpus words the encoder puts near the question's own words (not already among
        ``words``), each column weighted by that similarity times the policy's lexical_expansion_weight. A question
        word the corpus writes too takes the vector encoded for the vocabulary; only the others are encoded."""
        index, policy = self.snapshot.bm25, self.policy
        out = np.zeros(index.n_docs, dtype=np.float32)
        asked = question_surface_words(question)
        vocabulary = self._vocabulary()
        if not asked or not vocabulary.stems or index.n_docs == 0:
            return out
        rows = [vocabulary.row.get(w) for w in asked]
        unseen = [w for w, row in zip(asked, rows, strict=True) if row is None]
        encoded = iter(np.asarray(self.embedder.encode(unseen), dtype=np.float32)) if unseen else iter(())
        asked_vectors = np.stack([vocabulary.vectors[row] if row is not None else next(encoded) for row in rows])
        terms = expansion_terms(
            asked_vectors, vocabulary.vectors, vocabulary.stems, set(words), policy.lexical_expansion_min_sim
        )
        for word, similarity in terms.items():
            column = index.vocabulary.get(word)
            if column is not None:
                out += np.float32(policy.lexical_expansion_weight * similarity) * index.weights.column_sums([column])
        return out

    def _vocabulary(self) -> ExpansionVocabulary:
        """The corpus's words with their stems and MiniLM vectors, encoded on first use (seconds for a corpus of a
        few thousand words) and kept with the snapshot (its vocabulary does not change until the next ingest)."""
        snap = self.snapshot
        if snap.expansion_vocabulary is None:
            surface = sorted({w for text in snap.columns.texts() for w in question_surface_words(text)})
            vectors = np.asarray(self.embedder.encode(surface), dtype=np.float32) if surface else np.zeros((0, 1))
            snap.expansion_vocabulary = ExpansionVocabulary(
                [content_words(w)[0] for w in surface], vectors, {w: i for i, w in enumerate(surface)}
            )
        return snap.expansion_vocabulary

    def _matched_chunks(self, ids: set[str], dense: dict[str, float], bm25: dict[str, float]) -> list[ChunkMatch]:
        """The abstract's best matched chunks (``ids``: its chunks among the matches)."""
        snap = self.snapshot
        ranked = sorted(ids, key=lambda cid: (-(dense.get(cid, 0.0)), -(bm25.get(cid, 0.0)), cid))
        matches = []
        for cid in ranked[: self.chunks_per_abstract]:
            chunk = snap.chunks[snap.chunk_index[cid]]
            matches.append(ChunkMatch(cid, chunk.start, chunk.end, chunk.text, dense.get(cid), bm25.get(cid)))
        return matches


def score_fuse(
    dense: dict[str, float], bm25: dict[str, float], dense_weight: float, lexical_trust: float = 1.0
) -> dict[str, float]:
    """Combination of min-max-normalised scores: each ranking's best is 1, its worst candidate 0; the dense share is
    ``dense_weight``, BM25's ``(1 - dense_weight) * lexical_trust`` (see :func:`lexical_trust`).

    Unlike reciprocal ranks, a BM25 ranking whose top scores are close together (weak, generic word matches) moves
    the fused order little, while a clear winner on either side keeps its margin.
    """
    fused: dict[str, float] = defaultdict(float)
    for scores, weight in ((dense, dense_weight), (bm25, (1.0 - dense_weight) * lexical_trust)):
        if not scores or weight <= 0:
            continue
        low, high = min(scores.values()), max(scores.values())
        if scores is bm25:
            low = 0.0  # BM25 has a natural zero: no query word matched
        spread = high - low
        for aid, score in scores.items():
            fused[aid] += weight * ((score - low) / spread if spread > 0 else 1.0)
    return dict(fused)


def query_words(question: str, policy: AnswerPolicy) -> list[str]:
    """The content words BM25 matches for a question: without the words of the request itself
    (rag.question.lexical_words) when ``policy.lexical_skips_request_words``, else all of them."""
    return lexical_words(question) if policy.lexical_skips_request_words else content_words(question)


def _known_terms(index: BM25Index, words: Sequence[str]) -> list[int]:
    return sorted({index.vocabulary[w] for w in words if w in index.vocabulary})


def lexical_scores(index: BM25Index, words: Sequence[str]) -> np.ndarray:
    """BM25 score of every document for a query given as content words (``rag.text.content_words``); the same as
    ``index.scores`` of a text with exactly those words."""
    terms = _known_terms(index, words)
    if not terms or index.n_docs == 0:
        return np.zeros(index.n_docs, dtype=np.float32)
    return index.weights.column_sums(terms)


def with_links(fused: Mapping[str, float], linked: Mapping[str, float], boost: float) -> dict[str, float]:
    """Fused scores (0-1) with ``boost`` times the link strength added for each abstract using a name the question
    mentions (``linked``: abstract id -> strength); a linked abstract nobody retrieved enters with the boost alone."""
    out = dict(fused)
    for aid, strength in linked.items():
        out[aid] = out.get(aid, 0.0) + boost * strength
    return out


def bm25_strength(index: BM25Index, words: Sequence[str] | str, top_score: float) -> float:
    """How much of the query (content words, or a text) the best BM25 match covers (0..1): its score over the score
    of a document holding every known query word at saturating frequency, ``(k1 + 1) * sum(idf)``.

    A question that copies an abstract's rare words scores high; a paraphrase, whose best match shares only a few
    common words, scores low, and its BM25 ranking says little about which abstract it means.
    """
    terms = _known_terms(index, content_words(words) if isinstance(words, str) else words)
    if not terms or index.n_docs == 0 or top_score <= 0:
        return 0.0
    indptr = index.weights.indptr  # CSC: documents holding each term
    doc_freq = np.array([indptr[t + 1] - indptr[t] for t in terms], dtype=np.float64)
    idf = np.log1p((index.n_docs - doc_freq + 0.5) / (doc_freq + 0.5))
    ideal = (index.k1 + 1.0) * float(idf.sum())
    return min(1.0, top_score / ideal) if ideal > 0 else 0.0


def fusion_trust(
    strength: float, dense: Mapping[str, float], policy: AnswerPolicy, lexical_top: str | None = None
) -> float:
    """The share of BM25's fusion weight it keeps for a question (0..1): as far as its best match covers the question
    (``bm25_strength`` through bm25_trust_low/high); a partial match (under bm25_trust_high) whose best abstract
    (``lexical_top``) is not the dense winner keeps less the more clearly the dense ranking has one winner
    (``dense_clarity`` through dense_clear_gap_low/high), so weak shared words do not override a clear semantic
    winner, while a question naming the corpus's rare terms keeps BM25 whole. When both rankings agree on the winner,
    BM25 keeps its share (it then only orders the runners-up, e.g. the other papers of a list)."""
    trust = lexical_trust(strength, policy.bm25_trust_low, policy.bm25_trust_high)
    agree = bool(dense) and lexical_top is not None and lexical_top == max(dense, key=lambda a: dense[a])
    if strength < policy.bm25_trust_high and not agree:
        clarity = dense_clarity(dense, policy.dense_clarity_reference)
        trust *= 1.0 - lexical_trust(clarity, policy.dense_clear_gap_low, policy.dense_clear_gap_high)
    return trust


def dense_clarity(scores: Mapping[str, float], reference: int) -> float:
    """How clearly the dense ranking has one winner (0..1): the gap between its best and second-best score over the
    gap between its best and its ``reference``-th best (the last when there are fewer). 1 when the winner stands far
    above a field of close runners-up; near 0 when the first two are as close as the rest.

    Scale-free (a ratio of cosine gaps), so it reads the same for a model whose similarities run high or low."""
    if len(scores) < 2:
        return 0.0
    ranked = sorted(scores.values(), reverse=True)
    spread = ranked[0] - ranked[min(max(reference, 2), len(ranked)) - 1]
    return (ranked[0] - ranked[1]) / spread if spread > 0 else 0.0


def lexical_trust(strength: float, low: float, high: float) -> float:
    """0 at or below ``low``, 1 at or above ``high``, linear between: the share of BM25's fusion weight it keeps."""
    if high <= low:
        return 1.0 if strength >= high else 0.0
    return min(1.0, max(0.0, (strength - low) / (high - low)))


_LABEL_WORD = re.compile(r"[\w&+-]+")
_LABEL_WORDS = 5  # the most words a label that names a work has ("Arbitrarily Conditioned Hierarchical Flows")


def search_text(snapshot: IndexSnapshot, question: str, policy: AnswerPolicy) -> str:
    """The text a question is searched with on its own (``rag search``, eval's retrieval figures): one the encoder
    cannot read (e.g. Chinese) glossed into English word by word, each word's sense chosen among the corpus's words
    where it can be (as the answering path glosses it); then spelt and linked as answering reads it
    (:func:`correct_question`, :func:`link_question`), so the figures measure what answers see."""
    if not readable_by_encoder(question):
        question = gloss(question, known=snapshot.lexicon.stems.__contains__) or question
    return correct_question(snapshot, question, policy)[0]


def correct_question(snapshot: IndexSnapshot, question: str, policy: AnswerPolicy) -> tuple[str, list[str]]:
    """The question with its mistyped words spelt as the corpus spells them, and the corrections made: the words of
    the question's shape first ("paers on", "is tehre a paper"), then names and words (rag.lexicon.Lexicon.correct
    with the policy's typo settings). The one reading of a question's spelling, for answering and for search."""
    return snapshot.lexicon.correct(
        split_glued_quantities(fix_shape_words(question), english_words()),
        policy,
        frequency=document_frequency(snapshot.bm25),
        together=cooccurrence(snapshot.bm25, lambda row: snapshot.chunks[row].abstract_id)
        if policy.real_word_typos
        else None,
        context=cooccurrence(snapshot.sentence_bm25) if policy.typo_context else None,
    )


def link_question(snapshot: IndexSnapshot, question: str, policy: AnswerPolicy) -> Linking:
    """The corpus names a (corrected) question mentions, linked through the lexicon with the policy's settings: the
    one linking of a question, for answering and for search."""
    return snapshot.lexicon.link(
        question,
        min_ratio=policy.fuzzy_min_ratio,
        min_chars=policy.fuzzy_min_chars,
        corpus_text=snapshot.lowered_corpus,
        common_zipf=policy.typo_common_zipf,
        neighbour_zipf=policy.plain_name_neighbour_zipf,
        acronym_zipf=policy.acronym_word_zipf,
    )


def link_weights(snapshot: IndexSnapshot, question: str, policy: AnswerPolicy) -> dict[str, float]:
    """Abstracts using a name the question mentions -> 1/sqrt(how many abstracts use that name)."""
    return named_weights(snapshot, link_question(snapshot, question, policy), question)


def named_weights(snapshot: IndexSnapshot, linking: Linking, question: str) -> dict[str, float]:
    """The linked names' abstract weights (Linking.abstract_weights), and 1 for a paper whose label of several
    words the question spells ("the Token Hypothesis paper"): the lexicon takes such words for English."""
    weights = linking.abstract_weights()
    for _, aid in snapshot.labels_named(question):
        weights[aid] = 1.0
    return weights


def top_mean_by_group(keys: Sequence[str], sizes: Sequence[int], values: np.ndarray, best: int) -> dict[str, float]:
    """``values`` cut into consecutive groups of ``sizes`` (each at least 1) -> key of each group: the mean of its
    ``best`` largest values (of all of them in a smaller group)."""
    out: dict[str, float] = {}
    start = 0
    for key, size in zip(keys, sizes, strict=True):
        group = values[start : start + size]
        start += size
        top = group if size <= best else np.partition(group, size - best)[size - best :]
        out[key] = float(top.mean())
    return out


def centroid_cosines(
    keys: Sequence[str], sizes: Sequence[int], matrix: np.ndarray, vector: np.ndarray
) -> dict[str, float]:
    """``matrix``'s rows (unit sentence vectors) cut into consecutive groups of ``sizes`` (each at least 1) -> key of
    each group: the cosine of ``vector`` with the group's centroid (the mean of its rows, re-normalised), i.e. how
    close the question is to the abstract read whole rather than to its best sentences. 0 for a centroid of length 0."""
    if not len(keys):
        return {}
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    sums = np.add.reduceat(np.asarray(matrix, dtype=np.float32), starts, axis=0)  # the mean's direction
    norms = np.linalg.norm(sums, axis=1)
    dots = sums @ np.asarray(vector, dtype=np.float32)
    cosines = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 1e-6)
    return dict(zip(keys, cosines.tolist(), strict=True))


def pooled_views(
    top: Mapping[str, float],
    best: Mapping[str, float],
    centroid: Mapping[str, float],
    best_share: float,
    centroid_share: float,
) -> dict[str, float]:
    """An abstract's dense score from three views of it (each a cosine, so they share a scale): the mean of its best
    sentences (``top``), its single best sentence (``best``) and its centroid (``centroid``), weighted
    ``1 - best_share - centroid_share``, ``best_share`` and ``centroid_share`` (shares clipped so the first is not
    negative). A view missing for an abstract counts as its ``top`` score."""
    total = best_share + centroid_share
    if total > 1.0:
        best_share, centroid_share = best_share / total, centroid_share / total
    rest = 1.0 - best_share - centroid_share
    return {
        aid: rest * score + best_share * best.get(aid, score) + centroid_share * centroid.get(aid, score)
        for aid, score in top.items()
    }


def _best_per_abstract(chunk_scores: dict[str, float]) -> dict[str, float]:
    best: dict[str, float] = {}
    for chunk_id, score in chunk_scores.items():
        abstract_id = chunk_id.rsplit(":", 1)[0]
        if score > best.get(abstract_id, float("-inf")):
            best[abstract_id] = score
    return best


@dataclass(frozen=True, slots=True)
class ExpansionVocabulary:
    """The corpus's words for lexical expansion: each word's stem (its BM25 term), its MiniLM vector (a row of
    ``vectors``), and word -> row."""

    stems: list[str]
    vectors: np.ndarray
    row: dict[str, int]


_SURFACE_WORD = re.compile(r"[a-z][a-z-]{2,}")


def question_surface_words(text: str) -> list[str]:
    """The distinct lower-cased words of three or more letters that carry content (``rag.text.content_words`` keeps
    something of them), in order: what the encoder compares one by one for lexical expansion."""
    seen: dict[str, None] = {}
    for word in _SURFACE_WORD.findall(text.lower()):
        if word not in seen and content_words(word):
            seen[word] = None
    return list(seen)


def expansion_terms(
    asked: np.ndarray, vocabulary: np.ndarray, stems: Sequence[str], own: Collection[str], min_sim: float
) -> dict[str, float]:
    """Stem -> its best similarity, for the vocabulary words (rows of ``vocabulary``, unit vectors, stemmed as
    ``stems``) at least ``min_sim`` similar to one of the question's words (rows of ``asked``), leaving out the stems
    the question already has (``own``)."""
    if not len(asked) or not len(vocabulary):
        return {}
    sims = np.asarray(asked, dtype=np.float32) @ np.asarray(vocabulary, dtype=np.float32).T
    out: dict[str, float] = {}
    for row, col in zip(*np.nonzero(sims >= min_sim), strict=True):
        word = stems[col]
        if word not in own:
            out[word] = max(out.get(word, 0.0), float(sims[row, col]))
    return out


def single_paper(question: str) -> bool:
    """Whether a question asks about one work (not a list, summary, yes/no or comparison), by its shape."""
    shape = classify_shape(question)
    return shape not in LIST_SHAPES and shape != "compare"
