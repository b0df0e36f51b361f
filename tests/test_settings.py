import pytest
from pydantic import ValidationError

from rag.settings import Settings, normalize_ollama_host


def test_defaults():
    s = Settings()
    assert s.backend == "auto" and s.top_k == 5 and s.ui_host == "127.0.0.1"


def test_env_prefix(monkeypatch):
    monkeypatch.setenv("RAG_TOP_K", "8")
    monkeypatch.setenv("RAG_SEEDS", "a.txt,b")
    s = Settings()
    assert s.top_k == 8 and [p.name for p in s.seeds] == ["a.txt", "b"]


def test_ollama_host_env_is_honoured(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
    assert Settings().ollama_host == "http://gpu-box:11500"


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("", "http://127.0.0.1:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("example.org", "http://example.org:11434"),
        ("https://example.org", "https://example.org:443"),
        ("http://10.1.2.3:8080/", "http://10.1.2.3:8080"),
        ("[::1]:9999", "http://[::1]:9999"),
    ],
)
def test_normalize_ollama_host(raw, url):
    assert normalize_ollama_host(raw) == url


@pytest.mark.parametrize(
    "bad", [{"top_k": -1}, {"backend": "gpt"}, {"unknown_field": 1}, {"ui_auth": "nocolon"}, {"chunk_tokens": 4},
     {"dense_weight": float("inf")}, {"dense_weight": float("nan")}, {"ollama_timeout_s": float("inf")},
     {"chroma_timeout_s": float("nan")}]
)
def test_invalid_settings_are_refused(bad):
    with pytest.raises(ValidationError):
        Settings(**bad)
