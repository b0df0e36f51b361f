"""Okapi BM25 over short documents, as a sparse matrix of precomputed term weights. Pure; numpy and scipy only."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from rag.text import content_words


class BM25Index:
    """Scores every document for a query in one sparse mat-vec; scores are 0 where no query term occurs."""

    def __init__(self, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        tokenized = [content_words(doc) for doc in documents]
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
        self.weights = sparse.csc_matrix(
            (weights, (rows_arr, cols_arr)), shape=(n_docs, len(self.vocabulary)), dtype=np.float32
        )
        self.n_docs = n_docs

    def query_terms(self, query: str) -> list[int]:
        return sorted({self.vocabulary[w] for w in content_words(query) if w in self.vocabulary})

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document (length ``n_docs``)."""
        terms = self.query_terms(query)
        if not terms or self.n_docs == 0:
            return np.zeros(self.n_docs, dtype=np.float32)
        return np.asarray(self.weights[:, terms].sum(axis=1)).ravel()

    def known_fraction(self, query: str) -> float:
        """Share of the query's content words that occur anywhere in the documents (0..1)."""
        words = set(content_words(query))
        if not words:
            return 0.0
        return sum(w in self.vocabulary for w in words) / len(words)


def top_indices(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the ``k`` best scores, best first, ties broken by index for determinism."""
    if k <= 0 or scores.size == 0:
        return []
    k = min(k, scores.size)
    candidates = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    return sorted(candidates.tolist(), key=lambda i: (-float(scores[i]), i))
