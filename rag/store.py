"""Chroma behind a small interface: open (embedded or server), add chunks with vectors, delete, query, list ids.

This is the only module that imports chromadb and LlamaIndex's Chroma integration.
"""

from __future__ import annotations

import errno
import importlib
import logging
import os
import shutil
import sys
import tempfile
import types
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import DiskFullError, IndexCorruptError, StoreUnavailableError
from rag.settings import Settings

log = logging.getLogger(__name__)

# Modules that importing chromadb loads only for what this product never asks of it, with the names it takes from
# them: OpenTelemetry's gRPC span exporter (grpc, protobuf, the OTLP messages), which chromadb calls only when an
# OTLP collector is configured (CHROMA_OTEL_COLLECTION_ENDPOINT), and httpx's command-line tool (rich, click,
# pygments). Until one of those names is used, a stand-in module takes the module's place (``defer_unused_imports``):
# 15 MiB less resident in every process that opens the store (`python -m eval.memory_steps`).
UNUSED_AT_IMPORT: dict[str, tuple[str, ...]] = {
    "opentelemetry.exporter.otlp.proto.grpc.trace_exporter": ("OTLPSpanExporter",),
    "httpx._main": ("main",),
}


class DeferredModule(types.ModuleType):
    """Stands in for a module that is not imported yet. ``names`` are callables that import the real module when
    called; any other name it is asked for imports it too (and dunder names are missing, so tools that walk
    ``sys.modules`` do not import it). The real module then replaces the stand-in in ``sys.modules``."""

    def __init__(self, name: str, names: Sequence[str]) -> None:
        super().__init__(name, "stands in for the module until one of its names is used (rag.store)")
        for attr in names:
            setattr(self, attr, self._forward(attr))

    def _forward(self, attr: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            return getattr(self.load(), attr)(*args, **kwargs)

        call.__name__ = call.__qualname__ = attr
        return call

    def load(self) -> types.ModuleType:
        """The real module, imported now if it is not yet."""
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return importlib.import_module(self.__name__)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self.load(), attr)


def defer_unused_imports() -> None:
    """Put the stand-ins of ``UNUSED_AT_IMPORT`` in place before chromadb is first imported (not when a module is
    imported already, nor the exporter when an OTLP collector is configured for chromadb)."""
    if "chromadb" in sys.modules:
        return
    for name, names in UNUSED_AT_IMPORT.items():
        if name in sys.modules or (name.startswith("opentelemetry.") and _otel_endpoint_set()):
            continue
        sys.modules[name] = DeferredModule(name, names)


def _otel_endpoint_set() -> bool:
    return any(key.upper() == "CHROMA_OTEL_COLLECTION_ENDPOINT" and value for key, value in os.environ.items())


ADD_BATCH = 1000


@dataclass(frozen=True, slots=True)
class DenseHit:
    chunk_id: str
    abstract_id: str
    similarity: float  # cosine similarity in [-1, 1]


class ChunkStore:
    """One Chroma collection of chunk vectors, named by the index fingerprint."""

    def __init__(
        self, settings: Settings, *, create: bool = True, read_only_fallback: bool = False, fresh: bool = False
    ) -> None:
        """``read_only_fallback``: when the embedded store cannot be opened because its disk is full (Chroma starts a
        write transaction even to read), serve a copy in memory instead; for readers only, never for ingest.
        ``fresh``: a new embedded client rather than this process's cached one, whose vector index does not see
        what another process wrote since."""
        self.settings = settings
        self.collection_name = settings.collection_name
        try:
            self._client = _open_client(settings, fresh=fresh)
        except DiskFullError:
            if not read_only_fallback or settings.chroma_host:
                raise
            self._client = _open_copy_in_memory(settings, self)
        try:
            if create:
                collection = self._client.get_or_create_collection(
                    self.collection_name, metadata={"hnsw:space": "cosine"}
                )
            else:
                collection = self._client.get_collection(self.collection_name)
        except Exception as exc:
            raise _translate(exc, settings) from exc
        self._collection = collection
        self._vector_store: Any = None

    @property
    def vector_store(self) -> Any:
        """The collection as a LlamaIndex ``ChromaVectorStore`` (made on first write: importing it takes a second)."""
        if self._vector_store is None:
            from llama_index.vector_stores.chroma import ChromaVectorStore

            self._vector_store = ChromaVectorStore(chroma_collection=self._collection)
        return self._vector_store

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

    def collection_names(self) -> list[str]:
        """Names of every collection in this Chroma store."""
        try:
            return [getattr(c, "name", c) for c in self._client.list_collections()]
        except Exception as exc:
            raise _translate(exc, self.settings) from exc

    def drop_collection(self, name: str) -> None:
        """Delete another collection of this store (never this store's own)."""
        if name == self.collection_name:
            raise ValueError("a store does not drop its own collection")
        try:
            self._client.delete_collection(name)
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
        """Nearest chunks by cosine similarity, best first.

        Asks Chroma for ids and distances only: rebuilding LlamaIndex nodes from stored metadata for every hit
        (what ``ChromaVectorStore.query`` does) costs more than the search itself, and the texts are in the
        manifest already.
        """
        # No count() round trip per query: Chroma returns fewer hits when asked for more than it holds, and the
        # pipeline checks once, at load, that the store holds the index's chunks.
        if n_results <= 0:
            return []
        try:
            result = self._collection.query(
                query_embeddings=[embedding.tolist()], n_results=n_results, include=["distances"]
            )
        except Exception as exc:
            raise _translate(exc, self.settings) from exc
        return [
            DenseHit(chunk_id, chunk_id.rsplit(":", 1)[0], 1.0 - float(distance))  # cosine space
            for chunk_id, distance in zip(result["ids"][0], result["distances"][0], strict=True)
        ]


def _open_client(settings: Settings, *, fresh: bool = False) -> Any:
    defer_unused_imports()
    try:
        import chromadb
        from chromadb.config import Settings as ChromaSettings
    except ImportError as exc:  # pragma: no cover - chromadb is a core dependency
        raise StoreUnavailableError("chromadb is not installed", hint="pip install chromadb") from exc
    if settings.chroma_host:
        return _open_server_client(settings)
    if fresh:
        _forget_client(settings.chroma_dir)
    try:
        settings.chroma_dir.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(
            path=str(settings.chroma_dir), settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False)
        )
    except Exception as exc:
        _forget_client(settings.chroma_dir)
        raise _translate(exc, settings) from exc


def _forget_client(path: Path) -> None:
    """chromadb caches one client system per folder for the whole process, even one that failed to start (a later
    open would fail with AttributeError) or one whose vector index is stale; the next open then starts a new one.
    Clients already made keep theirs."""
    from chromadb.api.shared_system_client import SharedSystemClient

    try:
        SharedSystemClient._identifier_to_system.pop(str(path), None)
        SharedSystemClient._identifier_to_refcount.pop(str(path), None)
    except AttributeError:  # a chromadb without that cache: nothing to forget
        pass


def _open_copy_in_memory(settings: Settings, owner: object) -> Any:
    """A client on a copy of the embedded store in a memory-backed folder (removed with ``owner``), so a full disk
    does not stop answering. Raises the disk-full error when no such folder has room for the copy."""
    defer_unused_imports()
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    size = sum(f.stat().st_size for f in settings.chroma_dir.rglob("*") if f.is_file())
    for parent in (Path("/dev/shm"), Path(tempfile.gettempdir())):
        try:
            if not parent.is_dir() or shutil.disk_usage(parent).free < 2 * size + (64 << 20):
                continue
            folder = Path(tempfile.mkdtemp(prefix="rag-chroma-readonly-", dir=parent))
            weakref.finalize(owner, shutil.rmtree, folder, ignore_errors=True)
            shutil.copytree(settings.chroma_dir, folder / "chroma")
            client = chromadb.PersistentClient(
                path=str(folder / "chroma"), settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False)
            )
        except Exception as exc:  # that folder is full or unusable too: try the next one
            log.debug("cannot serve a copy of the store from %s: %s", parent, exc)
            continue
        log.warning(
            "no space left on the disk holding the index: answering from a read-only copy in memory (%.1f MB); "
            "free some space before the next `rag ingest`",
            size / 1e6,
        )
        return client
    raise _disk_full_error(settings)


def _is_disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    lowered = str(exc).lower()
    return "disk is full" in lowered or "no space left" in lowered or "quota exceeded" in lowered


def _disk_full_error(settings: Settings) -> DiskFullError:
    return DiskFullError(f"No space left on the disk holding the index folder '{settings.data_dir.name}'")


SERVER_HINT = (
    "Start it with `chroma run --path <dir> --host <host> --port <port>` (or check RAG_CHROMA_HOST and "
    "RAG_CHROMA_PORT), or unset RAG_CHROMA_HOST to use the embedded store."
)
AUTH_HINT = "Check RAG_CHROMA_TOKEN and RAG_CHROMA_AUTH_HEADER ('Authorization' or 'X-Chroma-Token')."


def _open_server_client(settings: Settings) -> Any:
    """An HttpClient for ``settings.chroma_database`` (created on first use), checked with a heartbeat."""
    defer_unused_imports()
    import chromadb
    from chromadb.config import DEFAULT_DATABASE
    from chromadb.config import Settings as ChromaSettings
    from chromadb.errors import NotFoundError

    headers = {}
    if settings.chroma_token:
        is_bearer = settings.chroma_auth_header.lower() == "authorization"
        headers[settings.chroma_auth_header] = f"Bearer {settings.chroma_token}" if is_bearer else settings.chroma_token
    server = {"host": settings.chroma_host, "port": settings.chroma_port, "ssl": settings.chroma_ssl}

    def connect() -> Any:
        # A fresh Settings each time: HttpClient writes the host, port and headers into it.
        client = chromadb.HttpClient(
            **server,
            headers=dict(headers) or None,
            database=settings.chroma_database or DEFAULT_DATABASE,
            settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False),
        )
        _limit_session(client, settings)
        return client

    try:
        _probe_server(settings, headers)
        try:
            client = connect()
        except NotFoundError:
            if not settings.chroma_database:
                raise
            _create_database(settings, headers)
            client = connect()
        client.heartbeat()
    except Exception as exc:
        raise _server_error(exc, settings) from exc
    return client


def _timeout(settings: Settings) -> Any:
    import httpx

    return httpx.Timeout(settings.chroma_timeout_s, connect=settings.chroma_connect_timeout_s)


def _probe_server(settings: Settings, headers: dict[str, str]) -> None:
    """One heartbeat with our timeouts before chromadb's own client, whose requests have none and would hang on a
    server that accepts connections but never answers."""
    import httpx
    from chromadb.api.base_http_client import BaseHTTPClient

    url = BaseHTTPClient.resolve_url(
        chroma_server_host=str(settings.chroma_host),
        chroma_server_http_port=settings.chroma_port,
        chroma_server_ssl_enabled=settings.chroma_ssl,
        default_api_path="/api/v2",
    )
    try:
        httpx.get(f"{url}/heartbeat", headers=headers, timeout=_timeout(settings))
    except httpx.TimeoutException as exc:
        raise _timeout_error(settings) from exc


def _limit_session(client: Any, settings: Settings) -> None:
    # chromadb 1.5 builds its httpx.Client with timeout=None and offers no setting for it.
    session = getattr(getattr(client, "_server", None), "_session", None)
    if session is not None:
        session.timeout = _timeout(settings)


def _timeout_error(settings: Settings) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"The Chroma server at {settings.chroma_host}:{settings.chroma_port} did not answer within "
        f"{settings.chroma_timeout_s:g} s",
        hint="Check that the address is a running Chroma server (not another program on that port) and that it "
        "is not overloaded; raise RAG_CHROMA_TIMEOUT_S for a slow server, or unset RAG_CHROMA_HOST to use the "
        "embedded store.",
    )


def _create_database(settings: Settings, headers: dict[str, str]) -> None:
    defer_unused_imports()
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    admin = chromadb.AdminClient(
        ChromaSettings(
            chroma_api_impl="chromadb.api.fastapi.FastAPI",
            chroma_server_host=settings.chroma_host,
            chroma_server_http_port=settings.chroma_port,
            chroma_server_ssl_enabled=settings.chroma_ssl,
            chroma_server_headers=dict(headers) or None,
            anonymized_telemetry=False,
        )
    )
    _limit_session(admin, settings)
    try:
        admin.create_database(settings.chroma_database)
    except Exception as exc:
        if "already exists" not in str(exc).lower():  # fine if another process created it first
            raise
    else:
        log.info("created database %s on the Chroma server", settings.chroma_database)


def _is_auth_error(exc: Exception) -> bool:
    lowered = f"{type(exc).__name__} {exc}".lower()
    return any(word in lowered for word in ("unauthorized", "forbidden", "authoriz", "authenticat", "autherror"))


def _server_error(exc: Exception, settings: Settings) -> StoreUnavailableError:
    where = f"the Chroma server at {settings.chroma_host}:{settings.chroma_port}"
    if isinstance(exc, StoreUnavailableError):
        return exc
    if _is_timeout(exc):
        return _timeout_error(settings)
    if _is_auth_error(exc):
        return StoreUnavailableError(f"{where} refused the credentials", hint=AUTH_HINT)
    return StoreUnavailableError(f"Cannot reach {where}", hint=SERVER_HINT)


def _translate(exc: Exception, settings: Settings) -> Exception:
    """Map Chroma's many exception types to the engine's errors, with advice and without absolute paths."""
    text = str(exc)
    lowered = text.lower()
    where = "the Chroma server" if settings.chroma_host else f"the index folder '{settings.data_dir.name}/chroma'"
    if settings.chroma_host:
        if _is_timeout(exc):
            return _timeout_error(settings)
        if _is_network_error(exc) or "connect" in lowered or "timed out" in lowered:
            return StoreUnavailableError(
                f"Lost the connection to the Chroma server at {settings.chroma_host}:{settings.chroma_port}",
                hint=SERVER_HINT,
            )
        if _is_auth_error(exc):
            return _server_error(exc, settings)
    if not settings.chroma_host and _is_disk_full(exc):
        return _disk_full_error(settings)
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
    return IndexCorruptError(f"{where} could not be used ({type(exc).__name__})")


def _is_network_error(exc: Exception) -> bool:
    try:
        import httpx
    except ImportError:  # pragma: no cover - chromadb depends on httpx
        return False
    return isinstance(exc, httpx.TransportError | ConnectionError | TimeoutError)


def _is_timeout(exc: Exception) -> bool:
    import httpx

    return isinstance(exc, httpx.TimeoutException | TimeoutError)
