"""Wires the parts together from settings. The only place that builds the embedder, store and retriever."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from rag.corpus import Abstract
from rag.embedding import LocalSentenceEmbedding
from rag.errors import QuestionError, UnknownAbstractError
from rag.ingest import IngestReport, ProgressCallback, ingest
from rag.manifest import load_manifest
from rag.retrieve import HybridRetriever, IndexSnapshot, Mode, RankedAbstract
from rag.settings import Settings
from rag.store import ChunkStore

log = logging.getLogger(__name__)


class Pipeline:
    """The engine: ingest, search (and, later, answer). Heavy parts load once, on first use, thread-safely."""

    def __init__(self, settings: Settings, *, embedder: LocalSentenceEmbedding | None = None) -> None:
        self.settings = settings
        self._embedder = embedder
        self._snapshot: IndexSnapshot | None = None
        self._store: ChunkStore | None = None
        self._lock = threading.RLock()

    # --- parts ---
    @property
    def embedder(self) -> LocalSentenceEmbedding:
        with self._lock:
            if self._embedder is None:
                self._embedder = LocalSentenceEmbedding(
                    self.settings.embed_model, batch_size=self.settings.embed_batch_size
                )
            return self._embedder

    @property
    def store(self) -> ChunkStore:
        with self._lock:
            if self._store is None:
                self._store = ChunkStore(self.settings)
            return self._store

    @property
    def snapshot(self) -> IndexSnapshot:
        """The last complete index; reloaded only when an ingest in this process replaced it."""
        with self._lock:
            if self._snapshot is None:
                self._snapshot = IndexSnapshot(load_manifest(self.settings.index_dir))
            return self._snapshot

    def retriever(self, mode: Mode | None = None) -> HybridRetriever:
        return HybridRetriever(
            self.snapshot,
            self.store,
            self.embedder,
            mode=mode or self.settings.retrieval_mode,
            rrf_k=self.settings.rrf_k,
            dense_weight=self.settings.dense_weight,
        )

    # --- operations ---
    def ingest(
        self, paths: Sequence[Path] | None = None, *, rebuild: bool = False, progress: ProgressCallback | None = None
    ) -> IngestReport:
        report = ingest(self.settings, self.embedder, paths, rebuild=rebuild, progress=progress)
        with self._lock:
            self._snapshot = None
        return report

    def search(self, question: str, k: int | None = None, mode: Mode | None = None) -> list[RankedAbstract]:
        question = self.check_question(question)
        return self.retriever(mode).search(question, k or self.settings.top_k)

    def abstracts(self) -> list[Abstract]:
        return list(self.snapshot.manifest.abstracts)

    def abstract(self, abstract_id: str) -> Abstract:
        try:
            return self.snapshot.abstracts[abstract_id]
        except KeyError:
            raise UnknownAbstractError(f"No abstract with ID {abstract_id!r}") from None

    def check_question(self, question: str) -> str:
        """Strip control characters and refuse empty or over-long questions."""
        cleaned = "".join(ch if ch.isprintable() or ch in "\n\t" else " " for ch in question or "").strip()
        if not cleaned:
            raise QuestionError("The question is empty.", hint="Type a question about the abstracts.")
        if len(cleaned) > self.settings.max_question_chars:
            raise QuestionError(
                f"The question is {len(cleaned):,} characters long; the limit is {self.settings.max_question_chars:,}.",
                hint="Ask a shorter question (RAG_MAX_QUESTION_CHARS raises the limit).",
            )
        return cleaned

    def warm_up(self) -> float:
        """Load the model and index now (not on the first question); returns seconds taken."""
        started = time.perf_counter()
        _ = self.embedder, self.snapshot, self.store
        self.embedder.encode(["warm up"])
        return time.perf_counter() - started
