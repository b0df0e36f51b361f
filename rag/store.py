"""Chroma behind a small interface: open (embedded or server), add chunks with vectors, delete, query, list ids.

This is the only module that imports chromadb and LlamaIndex's Chroma integration.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rag.errors import IndexCorruptError, StoreUnavailableError
from rag.settings import Settings

log = logging.getLogger(__name__)

ADD_BATCH = 1000


@dataclass(frozen=True, slots=True)
class DenseHit:
    chunk_id: str
    abstract_id: str
    similarity: float  # cosine similarity in [-1, 1]


class ChunkStore:
    """One Chroma collection of chunk vectors, named by the index fingerprint."""

    def __init__(self, settings: Settings, *, create: bool = True) -> None:
        self.settings = settings
        self.collection_name = settings.collection_name
        self._client = _open_client(settings)
        try:
            if create:
                collection = self._client.get_or_create_collection(
                    self.collection_name, metadata={"hnsw:space": "cosine"}
                )
            else:
                collection = self._client.get_collection(self.collection_name)
        except Exception as exc:
            raise _translate(exc, settings) from exc
        from llama_index.vector_stores.chroma import ChromaVectorStore

        self._collection = collection
        self.vector_store = ChromaVectorStore(chroma_collection=collection)

    def count(self) -> int:
        try:
            return self._collection.count()
        except Exception as exc:
            raise _translate(exc, self.settings) from exc

    def ids(self) -> set[str]:
        try:
            return set(self._collection.get(include=[])["ids"])
        except Exception as exc:
            raise _translate(exc, self.settings) from exc

    def add(self, nodes: Sequence[Any]) -> None:
        """Add LlamaIndex nodes that carry embeddings (ids not already present)."""
        for start in range(0, len(nodes), ADD_BATCH):
            try:
                self.vector_store.add(list(nodes[start : start + ADD_BATCH]))
            except Exception as exc:
                raise _translate(exc, self.settings) from exc

    def delete(self, chunk_ids: Sequence[str]) -> None:
        ids = list(chunk_ids)
        for start in range(0, len(ids), ADD_BATCH):
            try:
                self._collection.delete(ids=ids[start : start + ADD_BATCH])
            except Exception as exc:
                raise _translate(exc, self.settings) from exc

    def query(self, embedding: np.ndarray, n_results: int) -> list[DenseHit]:
        """Nearest chunks by cosine similarity, best first."""
        n_results = min(n_results, self.count())
        if n_results <= 0:
            return []
        from llama_index.core.vector_stores.types import VectorStoreQuery

        try:
            result = self.vector_store.query(
                VectorStoreQuery(query_embedding=embedding.tolist(), similarity_top_k=n_results),
            )
        except Exception as exc:
            raise _translate(exc, self.settings) from exc
        hits = []
        for chunk_id, similarity in zip(result.ids or [], result.similarities or [], strict=False):
            # LlamaIndex reports exp(-distance); with cosine space, distance = 1 - cosine.
            cosine = 1.0 + math.log(max(similarity, 1e-30))
            hits.append(DenseHit(chunk_id, chunk_id.rsplit(":", 1)[0], cosine))
        return hits


def _open_client(settings: Settings) -> Any:
    try:
        import chromadb
        from chromadb.config import Settings as ChromaSettings
    except ImportError as exc:  # pragma: no cover - chromadb is a core dependency
        raise StoreUnavailableError("chromadb is not installed", hint="pip install chromadb") from exc
    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if settings.chroma_host:
        headers = {}
        if settings.chroma_token:
            is_bearer = settings.chroma_auth_header.lower() == "authorization"
            headers[settings.chroma_auth_header] = (
                f"Bearer {settings.chroma_token}" if is_bearer else settings.chroma_token
            )
        try:
            client = chromadb.HttpClient(
                host=settings.chroma_host,
                port=settings.chroma_port,
                ssl=settings.chroma_ssl,
                headers=headers or None,
                settings=chroma_settings,
            )
            client.heartbeat()
        except Exception as exc:
            raise StoreUnavailableError(
                f"Cannot reach the Chroma server at {settings.chroma_host}:{settings.chroma_port}",
                hint="Start it with `chroma run --path <dir> --port <port>`, or unset RAG_CHROMA_HOST to use the "
                "embedded store.",
            ) from exc
        return client
    try:
        settings.chroma_dir.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(settings.chroma_dir), settings=chroma_settings)
    except Exception as exc:
        raise _translate(exc, settings) from exc


def _translate(exc: Exception, settings: Settings) -> Exception:
    """Map Chroma's many exception types to the engine's errors, with advice and without absolute paths."""
    text = str(exc)
    lowered = text.lower()
    where = "the Chroma server" if settings.chroma_host else f"the index folder '{settings.data_dir.name}/chroma'"
    if "does not exist" in lowered or "notfound" in type(exc).__name__.lower():
        from rag.errors import IndexNotBuiltError

        return IndexNotBuiltError(f"No index for {settings.collection_name} in {where}")
    if "readonly" in lowered or "read-only" in lowered or "permission" in lowered:
        return StoreUnavailableError(
            f"{where} is read-only", hint="Give the user write access to the data folder, or set RAG_DATA_DIR."
        )
    if "locked" in lowered:
        return StoreUnavailableError(
            f"{where} is in use by another process", hint="Close the other `rag` process and try again."
        )
    if settings.chroma_host and ("connect" in lowered or "timed out" in lowered):
        return StoreUnavailableError(f"Lost the connection to {where}", hint="Check that the server is running.")
    return IndexCorruptError(f"{where} could not be used ({type(exc).__name__})")
