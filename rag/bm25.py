"""Okapi BM25 over short documents, as a sparse matrix of precomputed term weights (column-compressed, in plain numpy
arrays: scipy.sparse alone added 22 MB to every serving process and a quarter second to its start).

Pure, except that :func:`signature` reads this module's and rag/text.py's source to tell saved weights apart.
"""

# Kept over bm25s 0.3.16 (same ranking on every dev question): builds 3x faster (100k chunks: 3.1 s vs 9.7 s), which
# ingest and every cache-miss load pay, and word_counts reads focus shares off the matrix; bm25s queries 0.4 ms faster.

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from rag import text
from rag.text import content_words

K1, B = 1.2, 0.75
FORMAT = 1  # the layout of to_arrays(); bump it when that changes


@cache
def signature() -> str:
    """What saved weights are only valid for: the array layout and the code that made them.

    The code is this file (the formula, k1 and b) and rag/text.py (the tokenizer, its stop words and stemmer, and the
    sentence splitter), hashed rather than versioned by hand, so no change there can leave stale weights in use.
    """
    digest = hashlib.sha256()
    try:
        for source in (Path(text.__file__), Path(__file__)):
            digest.update(source.read_bytes())
    except (OSError, TypeError):  # no source to hash (a frozen build): match nothing, so saved files are never used
        return ""
    return f"bm25 format {FORMAT}, code {digest.hexdigest()[:16]}"


@dataclass(frozen=True, slots=True)
class CscWeights:
    """A float32 matrix (documents x terms) stored by column: the documents holding term ``t`` are
    ``indices[indptr[t] : indptr[t + 1]]``, with weights ``data[...]`` (scipy's CSC layout)."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple[int, int]

    @classmethod
    def from_entries(cls, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, shape: tuple[int, int]) -> CscWeights:
        order = np.argsort(cols, kind="stable")  # by term, documents ascending within each (they come in order)
        indptr = np.zeros(shape[1] + 1, np.int64)
        np.cumsum(np.bincount(cols, minlength=shape[1]), out=indptr[1:])
        return cls(values[order].astype(np.float32), rows[order].astype(np.int32), indptr, shape)

    def check(self) -> None:
        """ValueError unless the arrays form a matrix of ``shape`` (pointers in order, indices in range)."""
        n_rows, n_cols = self.shape
        if self.indptr.ndim != 1 or len(self.indptr) != n_cols + 1 or (len(self.indptr) and self.indptr[0] != 0):
            raise ValueError("column pointers of the wrong length or start")
        if len(self.indptr) and int(self.indptr[-1]) != len(self.indices) or len(self.indices) != len(self.data):
            raise ValueError("column pointers do not match the entries")
        if (np.diff(self.indptr) < 0).any():
            raise ValueError("column pointers out of order")
        if len(self.indices) and (int(self.indices.min()) < 0 or int(self.indices.max()) >= n_rows):
            raise ValueError("row indices out of range")

    def rows_of(self, column: int) -> np.ndarray:
        """The documents in which term ``column`` has a non-zero weight, ascending."""
        lo, hi = self.indptr[column], self.indptr[column + 1]
        return self.indices[lo:hi][self.data[lo:hi] != 0]

    def column_sums(self, columns: Sequence[int]) -> np.ndarray:
        """Row sums of the given columns, added column by column in float32 (what scipy's mat-vec computes)."""
        out = np.zeros(self.shape[0], np.float32)
        for t in columns:
            lo, hi = self.indptr[t], self.indptr[t + 1]
            out[self.indices[lo:hi]] += self.data[lo:hi]  # a document appears once per column
        return out


class BM25Index:
    """Scores every document for a query in one sparse mat-vec; scores are 0 where no query term occurs."""

    def __init__(self, documents: Sequence[str], k1: float = K1, b: float = B) -> None:
        self._build([content_words(doc) for doc in documents], k1, b)

    @classmethod
    def from_tokens(cls, tokenized: Sequence[Sequence[str]], k1: float = K1, b: float = B) -> BM25Index:
        """The index of documents whose ``content_words`` are already known (identical to building from text)."""
        index = cls.__new__(cls)
        index._build(tokenized, k1, b)
        return index

    def _build(self, tokenized: Sequence[Sequence[str]], k1: float, b: float) -> None:
        self.vocabulary: dict[str, int] = {}
        rows, cols, tfs = [], [], []
        for row, words in enumerate(tokenized):
            for word, tf in Counter(words).items():
                rows.append(row)
                cols.append(self.vocabulary.setdefault(word, len(self.vocabulary)))
                tfs.append(tf)
        n_docs = len(tokenized)
        lengths = np.array([len(w) for w in tokenized], dtype=np.float32)
        avg_len = float(lengths.mean()) if n_docs and lengths.sum() else 1.0
        tf = np.array(tfs, dtype=np.float32)
        rows_arr = np.array(rows, dtype=np.int64)
        cols_arr = np.array(cols, dtype=np.int64)
        doc_freq = np.bincount(cols_arr, minlength=len(self.vocabulary)).astype(np.float32)
        # Lucene's idf: always positive, so a term in most documents still counts a little.
        idf = np.log1p((n_docs - doc_freq + 0.5) / (doc_freq + 0.5))
        norm = k1 * (1 - b + b * lengths[rows_arr] / avg_len) if len(rows) else np.zeros(0, np.float32)
        weights = idf[cols_arr] * tf * (k1 + 1) / (tf + norm)
        self.weights = CscWeights.from_entries(
            rows_arr, cols_arr, weights.astype(np.float32), (n_docs, len(self.vocabulary))
        )
        self.n_docs = n_docs
        self.k1, self.b = k1, b

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Everything scoring needs, as plain arrays (savable without pickle); see :meth:`from_arrays`."""
        # Terms are content words ([a-z0-9'-]), so a newline-joined string holds them; it is far smaller than a
        # fixed-width string array padded to the longest term.
        joined = "\n".join(self.vocabulary)
        if joined.count("\n") != max(len(self.vocabulary) - 1, 0):
            raise ValueError("a BM25 term contains a newline")
        return {
            "vocabulary": np.frombuffer(joined.encode("utf-8"), dtype=np.uint8),
            "data": self.weights.data,
            "indices": self.weights.indices,
            "indptr": self.weights.indptr,
            "shape": np.array(self.weights.shape, dtype=np.int64),
            "params": np.array([self.k1, self.b], dtype=np.float64),
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], n_docs: int, k1: float = K1, b: float = B) -> BM25Index:
        """The index :meth:`to_arrays` described; ValueError unless it is whole and of ``n_docs`` documents."""
        joined = np.asarray(arrays["vocabulary"], dtype=np.uint8).tobytes().decode("utf-8")
        terms = joined.split("\n") if joined else []
        shape = tuple(int(n) for n in np.asarray(arrays["shape"]).ravel())
        if shape != (n_docs, len(terms)):
            raise ValueError(f"shape {shape} does not fit {n_docs} documents and {len(terms)} terms")
        if np.asarray(arrays["params"]).tolist() != [k1, b]:
            raise ValueError("made with other k1 and b")
        data = np.asarray(arrays["data"])
        if data.dtype != np.float32:  # float32 sums, as when built, so scores are identical
            raise ValueError(f"weights of type {data.dtype}, not float32")
        indices, indptr = np.asarray(arrays["indices"]), np.asarray(arrays["indptr"])
        if indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
            raise ValueError("indices are not whole numbers")
        weights = CscWeights(data, indices, indptr, shape)  # type: ignore[arg-type]
        weights.check()  # index ranges and pointer order, not only lengths
        index = cls.__new__(cls)
        index.vocabulary = {term: column for column, term in enumerate(terms)}
        if len(index.vocabulary) != len(terms):
            raise ValueError("repeated terms")
        index.weights, index.n_docs, index.k1, index.b = weights, n_docs, k1, b
        return index

    def query_terms(self, query: str) -> list[int]:
        return sorted({self.vocabulary[w] for w in content_words(query) if w in self.vocabulary})

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document (length ``n_docs``)."""
        terms = self.query_terms(query)
        if not terms or self.n_docs == 0:
            return np.zeros(self.n_docs, dtype=np.float32)
        return self.weights.column_sums(terms)

    def word_counts(self, words: Sequence[str]) -> np.ndarray:
        """For every document, how many of ``words`` (content words, repeats counted) it contains; int64, n_docs.

        Read off the weight matrix: a weight is non-zero exactly where the term occurs (idf and tf are positive).
        """
        counts = Counter(self.vocabulary[w] for w in words if w in self.vocabulary)
        if not counts or self.n_docs == 0:
            return np.zeros(self.n_docs, dtype=np.int64)
        out = np.zeros(self.n_docs, np.int64)
        w = self.weights
        for column, count in counts.items():
            lo, hi = w.indptr[column], w.indptr[column + 1]
            out[w.indices[lo:hi][w.data[lo:hi] != 0]] += count
        return out


def top_indices(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the ``k`` best scores, best first, ties broken by index for determinism."""
    if k <= 0 or scores.size == 0:
        return []
    k = min(k, scores.size)
    candidates = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    return sorted(candidates.tolist(), key=lambda i: (-float(scores[i]), i))
