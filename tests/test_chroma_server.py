"""Server-mode specifics, against a real `chroma run`: isolation by database, a server that goes away and comes
back, and the token header. (Retrieval and ingest themselves run against the server in test_index_integration.)"""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from rag.cli import main as rag_main
from rag.errors import StoreUnavailableError
from rag.manifest import load_manifest
from rag.pipeline import Pipeline
from rag.settings import Settings
from rag.store import ChunkStore
from tests.conftest import SEEDS
from tests.support.chroma_server import ChromaServer

pytestmark = pytest.mark.slow

ASSAY_Q = "How many CRISPR screens does AssayBench use?"
DIM = 384


def _fake_nodes(prefix: str, count: int, seed: int = 0) -> list:
    """Chunk nodes with random unit vectors: exercises the store without running the encoder."""
    from llama_index.core.schema import TextNode

    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(count, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return [
        TextNode(
            id_=f"{prefix}{i:04d}:0",
            text=f"chunk {i}",
            embedding=v.tolist(),
            metadata={"abstract_id": f"{prefix}{i:04d}"},
        )
        for i, v in enumerate(vectors)
    ]


# --- one server, many indexes ---


def test_each_database_holds_its_own_collection(tmp_path, chroma_server, server_settings):
    a = server_settings(tmp_path / "a")  # this test's database, created on first use
    b = server_settings(tmp_path / "b", chroma_database=a.chroma_database + "-other")
    assert a.collection_name == b.collection_name
    nodes = _fake_nodes("a", 5)
    ChunkStore(a).add(nodes)
    assert ChunkStore(b).count() == 0  # same collection name, other database: nothing shared
    reopened = ChunkStore(a)  # the database exists now and is reused
    assert reopened.ids() == {n.node_id for n in nodes}
    hits = reopened.query(np.asarray(nodes[2].embedding, dtype=np.float32), 1)
    assert hits[0].chunk_id == nodes[2].node_id and hits[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert not a.chroma_dir.exists()  # server mode keeps no Chroma files in data_dir


@pytest.mark.parametrize("name", ["x", "has space", "-leading-dash", "a/b"])
def test_invalid_database_names_are_refused(name):
    with pytest.raises(ValidationError, match="chroma_database"):
        Settings(chroma_database=name)


# --- a long-running reader and a re-created collection ---


def test_a_running_reader_picks_up_a_recreated_collection(tmp_path, chroma_server, server_settings, embedder):
    """Deleting the collection and ingesting again (what a user does to start over) needs no restart of the UI."""
    seeds = _small_seed_folder(tmp_path / "seeds")
    settings = server_settings(tmp_path / "data", backend="extractive")
    writer = Pipeline(settings, embedder=embedder)
    writer.ingest([seeds])
    reader = Pipeline(settings, embedder=embedder)  # e.g. the UI's, loaded once
    assert reader.search(ASSAY_Q, k=1)[0].abstract.label == "AssayBench"

    ChunkStore(settings)._client.delete_collection(settings.collection_name)  # what `chroma` users do to start over
    _small_seed_folder(seeds, with_extra=True)
    report = Pipeline(settings, embedder=embedder).ingest([seeds])  # another process, as `rag ingest` would be
    assert report.embedded_chunks >= 4  # every chunk went into the new collection

    hits = reader.search(ASSAY_Q, k=4)
    assert hits[0].abstract.label == "AssayBench" and len(hits) == 4  # the new collection, with the new abstract
    assert reader.snapshot.manifest.generation == load_manifest(settings.index_dir).generation


# --- the server goes away ---


def _small_seed_folder(target: Path, with_extra: bool = False) -> Path:
    """Three abstracts (AssayBench among them), plus a fourth when ``with_extra``: cheap to embed."""
    header, *abstracts = (SEEDS / "000_624d62ebc0277d3c.txt").read_text(encoding="utf-8").split("\n\n")
    assay = next(a for a in abstracts if "AssayBench" in a)
    others = [a for a in abstracts if a is not assay]
    chosen = [assay, *others[:2], *others[2:3] * with_extra]
    target.mkdir(parents=True, exist_ok=True)
    (target / "small.txt").write_text("\n\n".join([header, *chosen]) + "\n", encoding="utf-8")
    return target


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _assert_clear(error: StoreUnavailableError, server: ChromaServer, tmp_path: Path) -> None:
    text = error.user_message()
    assert f"{server.host}:{server.port}" in text
    assert "chroma run" in text and "RAG_CHROMA_HOST" in text  # how to start it, or where to point instead
    assert str(tmp_path) not in text and "Traceback" not in text


def test_server_down_is_a_clear_error_and_nothing_is_lost(tmp_path, embedder, monkeypatch, capsys):
    seeds = _small_seed_folder(tmp_path / "seeds")
    with ChromaServer(tmp_path / "server") as server:  # its own server: this test stops and restarts it
        settings = Settings(
            data_dir=tmp_path / "data",
            chroma_host=server.host,
            chroma_port=server.port,
            chroma_database="down-test",
            backend="extractive",
        )
        pipeline = Pipeline(settings, embedder=embedder)
        assert pipeline.ingest([seeds]).added == 3
        before = [r.abstract.id for r in pipeline.search(ASSAY_Q, k=3)]
        local_before = _files(settings.data_dir / "indexes")
        generation = load_manifest(settings.index_dir).generation

        server.stop()
        _small_seed_folder(seeds, with_extra=True)  # something for the ingest to do
        with pytest.raises(StoreUnavailableError) as lost:  # a client that was connected
            pipeline.search(ASSAY_Q, k=3)
        _assert_clear(lost.value, server, tmp_path)
        with pytest.raises(StoreUnavailableError) as unreachable:  # a new process, as the CLI and UI would be
            Pipeline(settings, embedder=embedder).search(ASSAY_Q, k=3)
        _assert_clear(unreachable.value, server, tmp_path)
        with pytest.raises(StoreUnavailableError) as ingest_error:
            pipeline.ingest([seeds])
        _assert_clear(ingest_error.value, server, tmp_path)

        monkeypatch.setenv("RAG_CHROMA_HOST", server.host)
        monkeypatch.setenv("RAG_CHROMA_PORT", str(server.port))
        monkeypatch.setenv("RAG_CHROMA_DATABASE", "down-test")
        code = rag_main(["search", ASSAY_Q, "--data-dir", str(settings.data_dir)])
        err = capsys.readouterr().err
        assert code == 2 and "chroma run" in err and f"{server.host}:{server.port}" in err
        assert "Traceback" not in err and str(tmp_path) not in err

        assert _files(settings.data_dir / "indexes") == local_before  # manifest and sentence vectors untouched
        assert load_manifest(settings.index_dir).generation == generation

        server.start()  # same path and port: the same client recovers, nothing re-embedded
        assert [r.abstract.id for r in pipeline.search(ASSAY_Q, k=3)] == before
        report = pipeline.ingest([seeds])
        assert (report.added, report.unchanged, report.removed) == (1, 3, 0)
        assert pipeline.store.ids() == {c.id for c in load_manifest(settings.index_dir).chunks}


# --- token auth ---


class _TokenGate(ThreadingHTTPServer):
    """A reverse proxy in front of the real server that lets a request through only with ``header: expected``,
    as an authenticating proxy in front of Chroma would; records what every request carried."""

    daemon_threads = True

    def __init__(self, upstream: ChromaServer, header: str, expected: str) -> None:
        super().__init__(("127.0.0.1", 0), _GateHandler)
        self.upstream, self.header, self.expected = upstream, header, expected
        self.seen: list[tuple[str, str, str | None]] = []  # (method, path, value of the header)

    @property
    def port(self) -> int:
        return self.server_address[1]

    def __enter__(self) -> _TokenGate:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()
        self.server_close()


class _GateHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _TokenGate

    def _forward(self) -> None:
        gate = self.server
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        value = self.headers.get(gate.header)
        gate.seen.append((self.command, self.path, value))
        if value != gate.expected:
            self._reply(401, [("Content-Type", "text/plain")], b"401 Unauthorized: missing or wrong token")
            return
        skip = {"host", "connection", "keep-alive", "transfer-encoding", "content-length"}
        upstream = http.client.HTTPConnection(gate.upstream.host, gate.upstream.port, timeout=60)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in skip}
            upstream.request(self.command, self.path, body=body, headers=headers)
            reply = upstream.getresponse()
            data = reply.read()
            self._reply(reply.status, [(k, v) for k, v in reply.getheaders() if k.lower() not in skip], data)
        finally:
            upstream.close()

    def _reply(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize(
    ("header", "sent"), [("Authorization", "Bearer s3cret-token"), ("X-Chroma-Token", "s3cret-token")]
)
def test_token_is_sent_in_the_configured_header(tmp_path, chroma_server, server_settings, header, sent):
    with _TokenGate(chroma_server, header, sent) as gate:
        settings = server_settings(
            tmp_path, chroma_port=gate.port, chroma_token="s3cret-token", chroma_auth_header=header
        )
        store = ChunkStore(settings)
        nodes = _fake_nodes("t", 3)
        store.add(nodes)
        assert store.query(np.asarray(nodes[0].embedding, dtype=np.float32), 1)[0].chunk_id == nodes[0].node_id
    assert len(gate.seen) >= 5  # identity, tenant, database, heartbeat, collection, add, count, query...
    assert {value for _, _, value in gate.seen} == {sent}, gate.seen
    assert any(method == "POST" and path.endswith("/add") for method, path, _ in gate.seen)


@pytest.mark.parametrize("token", [None, "wrong-token"])
def test_refused_token_is_a_clear_error(tmp_path, chroma_server, server_settings, token):
    with _TokenGate(chroma_server, "X-Chroma-Token", "right-token") as gate:
        settings = server_settings(
            tmp_path, chroma_port=gate.port, chroma_token=token, chroma_auth_header="X-Chroma-Token"
        )
        with pytest.raises(StoreUnavailableError) as info:
            ChunkStore(settings)
    text = info.value.user_message()
    assert "refused the credentials" in text and "RAG_CHROMA_TOKEN" in text
    assert "wrong-token" not in text and "Traceback" not in text
