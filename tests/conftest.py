"""Shared fixtures. Heavy ones (the real MiniLM encoder, a real Chroma index of the seeds) are session-scoped."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from rag.quiet import quiet_libraries

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"
CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright cannot download its own browser here
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]  # fmt: skip

quiet_libraries()


@pytest.fixture(scope="session")
def embedder():
    """The real MiniLM encoder, loaded once. It remembers each text's vector, so the many ingests of the same
    seeds (per test, per store mode) pay for the encoder once; the vectors are the encoder's own."""
    import numpy as np

    from rag.embedding import LocalSentenceEmbedding

    class RememberingEmbedding(LocalSentenceEmbedding):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._seen: dict = {}

        def encode(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
            new = [t for t in dict.fromkeys(texts) if t not in self._seen]
            if new:
                self._seen.update(zip(new, super().encode(new, batch_size), strict=True))
            if not texts:
                return super().encode(texts)
            return np.stack([self._seen[t] for t in texts])

    return RememberingEmbedding("all-MiniLM-L6-v2", threads=1)


STORE_MODES = ("embedded", "server")
_database_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory):
    """A real `chroma run` on a free loopback port, started once for the session and stopped at its end.

    Tests share it; each gets a Chroma database of its own (see ``server_settings``), so collections never mix.
    """
    from tests.support.chroma_server import ChromaServer

    server = ChromaServer(tmp_path_factory.mktemp("chroma-server"))
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(f"could not start the Chroma server: {exc}")
    try:
        yield server
    finally:
        server.close()


def _embedded_settings(data_dir: Path, **overrides):
    from rag.settings import Settings

    return Settings(data_dir=data_dir, **{"chroma_host": None, **overrides})  # never a server from RAG_CHROMA_HOST


def _server_settings_factory(server, database: str):
    from rag.settings import Settings

    def make(data_dir: Path, **overrides) -> Settings:
        values = {"chroma_host": server.host, "chroma_port": server.port, "chroma_database": database}
        return Settings(data_dir=data_dir, **{**values, **overrides})

    return make


@pytest.fixture()
def server_settings(chroma_server):
    """Factory ``(data_dir, **kw) -> Settings`` on the session's Chroma server, in a database of this test's own."""
    return _server_settings_factory(chroma_server, f"test-{next(_database_numbers):04d}")


def pytest_generate_tests(metafunc):
    # Every test that touches the store runs once per mode; a module may narrow that with its own STORE_MODES.
    if "store_mode" in metafunc.fixturenames:
        modes = getattr(metafunc.module, "STORE_MODES", STORE_MODES)
        metafunc.parametrize("store_mode", modes, indirect=True, scope="session")


@pytest.fixture(scope="session")
def store_mode(request) -> str:
    """Which vector store the store-dependent tests run against: the embedded one under data_dir, or a server."""
    return request.param


@pytest.fixture()
def make_settings(request, store_mode):
    """Factory ``(data_dir, **kw) -> Settings`` for the store under test (isolated per test in server mode)."""
    if store_mode == "server":
        return request.getfixturevalue("server_settings")
    return _embedded_settings


@pytest.fixture(scope="session")
def seeded_index(request, tmp_path_factory, embedder, store_mode):
    """A real Chroma index of ./seeds (embedded on disk, or on the session server), built once per store mode;
    tests must not modify it."""
    from rag.pipeline import Pipeline

    data_dir = tmp_path_factory.mktemp(f"seeded-index-{store_mode}")
    make = _embedded_settings
    if store_mode == "server":
        make = _server_settings_factory(request.getfixturevalue("chroma_server"), "seeded-index")
    pipeline = Pipeline(make(data_dir, backend="extractive"), embedder=embedder)
    report = pipeline.ingest([SEEDS])
    return pipeline, report


@pytest.fixture()
def pipeline(seeded_index, monkeypatch):
    """The seeded pipeline. In server mode RAG_CHROMA_* point at its server and database too, so a `rag` CLI
    call given its data dir reaches the same index."""
    pipeline = seeded_index[0]
    settings = pipeline.settings
    if settings.chroma_host:
        monkeypatch.setenv("RAG_CHROMA_HOST", settings.chroma_host)
        monkeypatch.setenv("RAG_CHROMA_PORT", str(settings.chroma_port))
        monkeypatch.setenv("RAG_CHROMA_DATABASE", settings.chroma_database)
    else:
        monkeypatch.delenv("RAG_CHROMA_HOST", raising=False)
    return pipeline


@pytest.fixture()
def seed_copy(tmp_path) -> Path:
    """A writable copy of the seed folder."""
    target = tmp_path / "seeds"
    shutil.copytree(SEEDS, target)
    return target


@pytest.fixture(scope="module")
def browser():
    """Headless Debian Chromium driven by Playwright, one per test module."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()
