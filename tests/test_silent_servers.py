"""Servers that accept a TCP connection and then never answer (a hung process, a firewall that black-holes, the
wrong program on the port) must fail with a clear message within the configured timeouts, never hang."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest

from rag.errors import StoreUnavailableError
from rag.settings import Settings
from rag.store import ChunkStore


@contextlib.contextmanager
def silent_server() -> Iterator[int]:
    """A fake server on 127.0.0.1 that accepts connections, reads, and never replies. Yields its port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        listener.close()


@pytest.mark.timeout(60)
def test_silent_chroma_server_fails_with_a_clear_error(tmp_path) -> None:
    with silent_server() as port:
        settings = Settings(data_dir=tmp_path, chroma_host="127.0.0.1", chroma_port=port, chroma_timeout_s=1)
        with pytest.raises(StoreUnavailableError) as caught:
            ChunkStore(settings, create=False)
    message = caught.value.user_message()
    assert f"127.0.0.1:{port}" in message
    assert "did not answer" in message
    assert "RAG_CHROMA_TIMEOUT_S" in message


@pytest.mark.timeout(60)
def test_silent_ollama_fails_after_the_first_token_timeout() -> None:
    from rag.compose.base import GenerationStats
    from rag.compose.ollama import OllamaComposer
    from rag.errors import GenerationError
    from tests.test_ollama_composer import QUESTION, SOURCES

    with silent_server() as port:
        settings = Settings(ollama_host=f"http://127.0.0.1:{port}", ollama_first_token_timeout_s=1)
        composer = OllamaComposer(settings, "any-model")
        with pytest.raises(GenerationError) as caught:
            list(composer.stream(QUESTION, SOURCES, GenerationStats()))
        composer.close()
    assert f"127.0.0.1:{port}" in caught.value.message
    assert "longer than 1 s" in caught.value.message
    assert "RAG_OLLAMA_FIRST_TOKEN_TIMEOUT_S" in caught.value.hint
