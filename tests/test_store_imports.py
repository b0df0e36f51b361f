"""rag.store: the modules chromadb imports for nothing the product uses wait behind stand-ins until they are used."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rag import store
from rag.store import DeferredModule, defer_unused_imports
from tests.conftest import ROOT

FAKE = "fake_deferred_tool"  # a module of these tests' own, written to tmp_path


@pytest.fixture()
def fake_module(tmp_path, monkeypatch):
    (tmp_path / f"{FAKE}.py").write_text(
        "LOADS = []\nLOADS.append(1)\n\ndef greet(name):\n    return 'hello ' + name\n\nVERSION = '1.0'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, FAKE, raising=False)
    yield
    sys.modules.pop(FAKE, None)


def test_a_deferred_name_imports_the_real_module_when_called(fake_module):
    stand_in = DeferredModule(FAKE, ["greet"])
    sys.modules[FAKE] = stand_in
    from fake_deferred_tool import greet  # what the importing library does: no import yet

    assert sys.modules[FAKE] is stand_in
    assert greet("there") == "hello there"
    real = sys.modules[FAKE]
    assert real is not stand_in and real.LOADS == [1]
    assert greet("again") == "hello again" and real.LOADS == [1]  # imported once


def test_any_other_name_imports_the_real_module_but_dunder_names_do_not(fake_module):
    stand_in = DeferredModule(FAKE, ["greet"])
    sys.modules[FAKE] = stand_in
    assert not hasattr(stand_in, "__file__")  # tools walking sys.modules ask for these
    assert sys.modules[FAKE] is stand_in
    assert stand_in.VERSION == "1.0"
    assert sys.modules[FAKE] is not stand_in


def test_nothing_is_deferred_once_chromadb_is_imported(monkeypatch):
    name = next(iter(store.UNUSED_AT_IMPORT))
    monkeypatch.setitem(sys.modules, "chromadb", object())
    monkeypatch.delitem(sys.modules, name, raising=False)
    defer_unused_imports()
    assert name not in sys.modules


def test_a_module_already_imported_is_kept(monkeypatch):
    name = next(iter(store.UNUSED_AT_IMPORT))
    already = object()
    monkeypatch.delitem(sys.modules, "chromadb", raising=False)
    monkeypatch.setitem(sys.modules, name, already)
    for other in list(store.UNUSED_AT_IMPORT)[1:]:
        monkeypatch.setitem(sys.modules, other, sys.modules.get(other, object()))
    defer_unused_imports()
    assert sys.modules[name] is already


def test_the_exporter_is_not_deferred_when_an_otlp_collector_is_configured(monkeypatch):
    monkeypatch.delenv("CHROMA_OTEL_COLLECTION_ENDPOINT", raising=False)
    assert not store._otel_endpoint_set()
    monkeypatch.setenv("chroma_otel_collection_endpoint", "http://collector:4317")
    assert store._otel_endpoint_set()


def test_an_embedded_store_works_without_grpc_or_the_httpx_cli(tmp_path):
    """A fresh process that opens a store, adds and queries vectors: chromadb works, and neither grpc, protobuf nor
    rich was imported."""
    script = (
        "import sys\n"
        "import numpy as np\n"
        "from rag.settings import Settings\nfrom rag.store import ChunkStore\n"
        f"s = ChunkStore(Settings(data_dir={str(tmp_path)!r}, chroma_host=''))\n"
        "v = np.eye(4, 8, dtype=np.float32)\n"
        "s._collection.add(ids=['a:0', 'b:0', 'c:0', 'd:0'], embeddings=v.tolist())\n"
        "hits = s.query(v[2], 2)\n"
        "assert hits[0].chunk_id == 'c:0' and abs(hits[0].similarity - 1.0) < 1e-5, hits\n"
        "print('LOADED', [m for m in ('grpc', 'google.protobuf', 'rich', 'click') if m in sys.modules])\n"
    )
    env = {k: v for k, v in os.environ.items() if k.upper() != "CHROMA_OTEL_COLLECTION_ENDPOINT"}
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert "LOADED []" in result.stdout
