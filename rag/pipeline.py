"""Wires the parts together from settings. The only place that builds the embedder, store and retriever."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from rag import gloss, word_frequency
from rag.answer import Answer, BackendStatus, StreamEvent
from rag.answering import prepare_question, stream_answer, verify_claim
from rag.compose import make_ollama_composer
from rag.corpus import Abstract
from rag.embedding import LocalSentenceEmbedding
from rag.errors import IndexCorruptError, QuestionError, RagError, UnknownAbstractError
from rag.ingest import IngestReport, ProgressCallback, ingest
from rag.manifest import load_manifest, load_sentence_vectors, manifest_stamp
from rag.retrieve import HybridRetriever, IndexSnapshot, Mode, RankedAbstract
from rag.settings import Settings
from rag.store import ChunkStore

log = logging.getLogger(__name__)


class Pipeline:
    """The engine: ingest, search (and, later, answer). Heavy parts load once, on first use, thread-safely."""

    def __init__(self, settings: Settings, *, embedder: LocalSentenceEmbedding | None = None) -> None:
        self.settings = settings
        self._embedder = embedder
        gloss.use_cache_dir(settings.models_dir)  # the Chinese dictionary's lookup table is cached beside the models
        word_frequency.use_cache_dir(settings.models_dir)  # and so is the English word-frequency table
        self._snapshot: IndexSnapshot | None = None
        self._store: ChunkStore | None = None
        self._snapshot_stamp: tuple[int, ...] | None = None
        self._lock = threading.RLock()

    # --- parts ---
    @property
    def embedder(self) -> LocalSentenceEmbedding:
        with self._lock:
            if self._embedder is None:
                self._embedder = LocalSentenceEmbedding(
                    self.settings.embed_model,
                    batch_size=self.settings.embed_batch_size,
                    threads=self.settings.embed_threads,
                    ingest_threads=self.settings.ingest_threads,
                    cache_dir=self.settings.models_dir,
                    query_int8=self.settings.embed_query_int8,
                )
            return self._embedder

    @property
    def store(self) -> ChunkStore:
        with self._lock:
            if self._store is None:
                self._store = ChunkStore(self.settings, read_only_fallback=True)
            return self._store

    @property
    def snapshot(self) -> IndexSnapshot:
        """The last complete index. A newer one committed meanwhile (an ingest in this process or another, the
        manifest being the commit point) is picked up on the next use, with a fresh store handle: a long-running UI
        sees new abstracts, and a Chroma collection that was deleted and re-created, without a restart."""
        with self._lock:
            stamp = manifest_stamp(self.settings.index_dir)
            if self._snapshot is not None and self._snapshot_stamp is None:
                self._snapshot_stamp = stamp  # handed in from outside: take it as current
            if self._snapshot is not None and stamp != self._snapshot_stamp:
                try:
                    self._snapshot, self._store = self._load_snapshot(
                        ChunkStore(self.settings, read_only_fallback=True, fresh=True)
                    )
                    self._snapshot_stamp = stamp
                    log.info("picked up index generation %d", self._snapshot.manifest.generation)
                except RagError as exc:  # e.g. its vectors not all stored yet: keep answering from the last one
                    log.warning("a newer index was committed but cannot be loaded (%s); still serving the previous "
                                "one", exc.message)  # fmt: skip
            if self._snapshot is None:
                self._snapshot, _ = self._load_snapshot(self.store)
                self._snapshot_stamp = stamp
                word_frequency.prepare()  # answering reads it; written once per data folder, in a child process
            return self._snapshot

    def _load_snapshot(self, store: ChunkStore) -> tuple[IndexSnapshot, ChunkStore]:
        manifest = load_manifest(self.settings.index_dir)
        vectors = load_sentence_vectors(self.settings.index_dir, manifest)
        stored = store.count()
        if stored < len(manifest.chunks):
            # e.g. a wiped or different Chroma server: answering would silently lose dense retrieval
            raise IndexCorruptError(
                f"The vector store holds {stored} of the index's {len(manifest.chunks)} chunks",
                hint="Run `rag ingest` to store the missing chunks (the seed files are not touched).",
            )
        return IndexSnapshot(manifest, vectors, self.settings.index_dir, self.settings.answer), store

    def retriever(self, mode: Mode | None = None) -> HybridRetriever:
        return HybridRetriever(
            self.snapshot,
            self.store,
            self.embedder,
            mode=mode or self.settings.retrieval_mode,
            rrf_k=self.settings.rrf_k,
            dense_weight=self.settings.dense_weight,
            fusion=self.settings.fusion,
            policy=self.settings.answer,
        )

    # --- operations ---
    def ingest(
        self, paths: Sequence[Path] | None = None, *, rebuild: bool = False, progress: ProgressCallback | None = None
    ) -> IngestReport:
        # The encoder loads only once the seed files are read and the ingest lock is held: input errors are fast.
        report = ingest(self.settings, lambda: self.embedder, paths, rebuild=rebuild, progress=progress)
        with self._lock:  # the ingest's store handle sees what it wrote; ours may not
            self._snapshot, self._store, self._snapshot_stamp = None, None, None
        return report

    def search(self, question: str, k: int | None = None, mode: Mode | None = None) -> list[RankedAbstract]:
        question = self.check_question(question)
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise RagError(f"k must be a whole number of at least 1, not {k!r}", hint="Ask for 1 or more abstracts.")
        snapshot = self.snapshot
        try:
            return self.retriever(mode).search(question, k or self.settings.top_k)
        finally:
            snapshot.release_pages()

    def abstracts(self) -> list[Abstract]:
        return list(self.snapshot.manifest.abstracts)

    def abstract(self, abstract_id: str) -> Abstract:
        try:
            return self.snapshot.abstracts[abstract_id]
        except KeyError:
            raise UnknownAbstractError(f"No abstract with ID {abstract_id!r}") from None

    def verify_claim(self, claim: str, abstract_id: str):
        """rag.verify's :class:`~rag.verify.Verdict` on ``claim`` against one abstract (the check answers use)."""
        abstract = self.abstract(abstract_id)  # UnknownAbstractError for an ID not in the index
        return verify_claim(claim, abstract.id, self.snapshot, self.embedder, self.settings.verify)

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

    @staticmethod
    def check_history(history: Sequence[dict] | None) -> list[dict]:
        """Refuse a conversation history the follow-up logic cannot read (instead of failing inside it)."""
        if history is None:
            return []
        hint = 'History is a list of messages like {"role": "user", "content": "..."}.'
        if isinstance(history, str | bytes) or not isinstance(history, Sequence):
            raise QuestionError(f"The conversation history is a {type(history).__name__}, not a list.", hint=hint)
        for i, entry in enumerate(history, start=1):
            if not isinstance(entry, Mapping):
                raise QuestionError(f"History message {i} is a {type(entry).__name__}, not an object.", hint=hint)
            sources = entry.get("sources")
            if sources is None:
                continue
            if not isinstance(sources, list) or not all(
                isinstance(s, Mapping) and str(s.get("number", "0")).isdigit() and isinstance(s.get("label", ""), str)
                for s in sources
            ):
                raise QuestionError(f"History message {i} has malformed 'sources'.", hint=hint)
        return list(history)

    # --- answering ---
    def backend_status(self, model: str | None = None) -> BackendStatus:
        """What "auto" would use now; never raises (an unreachable Ollama is a status, not an error)."""
        model = model or self.settings.ollama_model
        if self.settings.backend == "extractive":
            return BackendStatus(False, self.settings.ollama_host, [], "extractive", None,
                                 "Extractive answers (RAG_BACKEND=extractive): quoted sentences, no model.")  # fmt: skip
        from rag.compose.ollama import status

        return status(self.settings, model)

    @staticmethod
    def _check_backend(backend: str | None) -> None:
        if backend not in (None, "auto", "extractive", "ollama"):
            raise RagError(f"Unknown backend {backend!r}", hint="Use auto, extractive or ollama.")

    def _composer(self, backend: str | None, model: str | None) -> tuple[object | None, list[str]]:
        """Resolve the backend: a composer for Ollama, or None for extractive, plus notices for the user."""
        backend = backend or self.settings.backend
        if backend == "extractive":
            return None, []
        composer = make_ollama_composer(self.settings, model)
        if backend == "ollama":
            return composer, []
        state = self.backend_status(model)
        if state.backend == "ollama":
            return composer, []
        return None, [state.message]

    def stream(
        self,
        question: str,
        history: Sequence[dict] | None = None,
        *,
        backend: str | None = None,
        model: str | None = None,
    ) -> Iterator[StreamEvent]:
        """Yield answer text pieces as they are produced, then the verified :class:`Answer`."""
        question = self.check_question(question)
        history = self.check_history(history)
        self._check_backend(backend)
        composer, notices = self._composer(backend, model)
        snapshot = self.snapshot
        try:
            yield from stream_answer(
                question,
                snapshot=snapshot,
                retriever=self.retriever(),
                top_k=self.settings.top_k,
                policy=self.settings.answer,
                verify_policy=self.settings.verify,
                history=list(history or []),
                composer=composer,
                notices=notices,
            )
        finally:
            snapshot.release_pages()  # what this answer read of the index files leaves the process's memory

    def ask(self, question: str, history: Sequence[dict] | None = None, **kwargs) -> Answer:
        """The verified answer (the last event of :meth:`stream`)."""
        answer = None
        for event in self.stream(question, history, **kwargs):
            answer = event
        assert isinstance(answer, Answer)
        return answer

    def query_engine(self, backend: str | None = None, model: str | None = None, *, streaming: bool = False):
        """The answer flow as a LlamaIndex ``RetrieverQueryEngine`` (``engine.query(q)`` -> Response whose text is
        the verified answer and whose source nodes are the cited abstracts), assembled from :meth:`components`."""
        from rag.query_engine import CitedQueryEngine

        parts = self.components(backend, model, streaming=streaming)
        hybrid, composer, notices = parts.retriever.hybrid, parts.synthesizer.composer, parts.notices

        def prepare(question: str):
            return prepare_question(self.check_question(question), snapshot=hybrid.snapshot, retriever=hybrid,
                                    top_k=self.settings.top_k, policy=self.settings.answer, composer=composer,
                                    notices=notices)  # fmt: skip

        return CitedQueryEngine(parts.retriever, parts.synthesizer, parts.postprocessors, prepare=prepare)

    def components(self, backend: str | None = None, model: str | None = None, *, streaming: bool = False):
        """The answer flow's LlamaIndex components, to assemble or recombine (``RetrieverQueryEngine(c.retriever,
        c.synthesizer, c.postprocessors)``): ``retriever`` (AbstractRetriever), ``postprocessors``
        ([EvidencePostprocessor, AbstentionPostprocessor]), ``synthesizer`` (CitedSynthesizer: extractive, or the
        model's answer verified, for ``backend``), ``notices`` (why "auto" answers without a model, if it does)."""
        from rag.query_engine import (
            AbstentionPostprocessor,
            AbstractRetriever,
            AnswerComponents,
            CitedSynthesizer,
            EvidencePostprocessor,
        )

        self._check_backend(backend)
        composer, notices = self._composer(backend, model)
        hybrid, policy, top_k = self.retriever(), self.settings.answer, self.settings.top_k
        return AnswerComponents(
            retriever=AbstractRetriever(hybrid, max(top_k, policy.evidence_abstracts), policy),
            postprocessors=[
                EvidencePostprocessor(hybrid=hybrid, policy=policy),
                AbstentionPostprocessor(hybrid=hybrid, top_k=top_k, policy=policy),
            ],
            synthesizer=CitedSynthesizer(hybrid, top_k, policy, self.settings.verify, composer, streaming=streaming),
            notices=notices,
        )

    def as_retriever(self, k: int | None = None, mode: Mode | None = None):
        """The abstract ranking as a LlamaIndex ``BaseRetriever`` (``retrieve(q)`` -> NodeWithScore per abstract)."""
        from rag.query_engine import AbstractRetriever

        return AbstractRetriever(self.retriever(mode), k or self.settings.top_k, self.settings.answer)

    def warm_up(self) -> float:
        """Load the model and index now (not on the first question); returns seconds taken."""
        started = time.perf_counter()
        _ = self.embedder, self.snapshot, self.store
        self.embedder.encode(["warm up"])
        return time.perf_counter() - started
