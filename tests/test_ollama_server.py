"""The local Ollama stand-in, exercised through the real ``ollama`` client (and LlamaIndex's Ollama LLM)."""

from __future__ import annotations

import importlib.util
import json
import time

import httpx
import pytest

from tests.support.ollama_server import (
    Faults,
    GenerationStats,
    ScriptedBackend,
    approx_tokens,
    gguf_skip_reason,
    serve,
)

ollama = pytest.importorskip("ollama")


MODEL = "gemma3:270m"
REPLY = "The corpus says the sky is blue [1]. It also mentions rain [2]."
USER = [{"role": "user", "content": "What colour is the sky?"}]


@pytest.fixture
def url():
    with serve({MODEL: ScriptedBackend(REPLY)}) as u:
        yield u


@pytest.fixture
def client(url):
    with ollama.Client(host=url, timeout=5) as c:
        yield c


# -- plain endpoints -------------------------------------------------------------------------------------------


def test_only_the_endpoints_the_product_calls_exist(url):
    # The product calls /api/tags, /api/show and /api/chat; anything else is a 404, as on Ollama for unknown paths.
    for method, path in (("GET", "/api/version"), ("POST", "/api/generate"), ("GET", "/api/ps"), ("GET", "/api/nope")):
        assert httpx.request(method, f"{url}{path}", json={"model": MODEL}).status_code == 404


def test_list(client):
    models = client.list().models
    assert [m.model for m in models] == [MODEL]
    m = models[0]
    assert m.size > 0 and len(m.digest) == 64 and m.modified_at is not None
    assert m.details.family == "gemma3" and m.details.format == "gguf"
    raw = httpx.get(f"{client._client.base_url}/api/tags").json()["models"][0]
    assert raw["name"] == raw["model"] == MODEL


def test_show(client):
    info = client.show(MODEL)
    assert info.details.family == "gemma3"
    assert info.modelinfo["gemma3.context_length"] == 32768
    assert "completion" in info.capabilities


def test_show_and_chat_unknown_model_are_404(client):
    with pytest.raises(ollama.ResponseError) as e:
        client.show("llama9")
    assert e.value.status_code == 404 and e.value.error == "model 'llama9' not found"
    for stream in (False, True):
        with pytest.raises(ollama.ResponseError) as e:
            r = client.chat(model="llama9", messages=USER, stream=stream)
            list(r) if stream else None
        assert e.value.status_code == 404
        assert e.value.error == 'model "llama9" not found, try pulling it first'


def test_name_without_tag_means_latest():
    with serve({"mymodel": ScriptedBackend("ok")}) as u, ollama.Client(host=u) as c:
        assert [m.model for m in c.list().models] == ["mymodel:latest"]
        assert c.chat(model="mymodel", messages=USER).message.content == "ok"
        assert c.chat(model="mymodel:latest", messages=USER).message.content == "ok"


# -- chat ------------------------------------------------------------------------------------------------------


def test_chat_non_stream(client, url):
    r = client.chat(model=MODEL, messages=USER, stream=False)
    assert r.done and r.done_reason == "stop"
    assert r.message.role == "assistant" and r.message.content == REPLY
    assert r.eval_count == len(approx_tokens(REPLY))
    assert r.prompt_eval_count > 0
    for field in ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration"):
        assert isinstance(getattr(r, field), int)
    assert r.total_duration >= r.eval_duration
    sent = url.server.requests[-1]
    assert sent.path == "/api/chat" and sent.body["stream"] is False


def test_chat_stream(client):
    parts = list(client.chat(model=MODEL, messages=USER, stream=True))
    assert len(parts) > 3
    assert all(not p.done for p in parts[:-1]) and parts[-1].done
    assert "".join(p.message.content for p in parts) == REPLY
    last = parts[-1]
    assert last.message.content == "" and last.done_reason == "stop"
    assert last.eval_count == len(approx_tokens(REPLY)) and last.prompt_eval_count > 0
    assert parts[0].done_reason is None and parts[0].eval_count is None


def test_stream_is_ollamas_default_and_ndjson(url):
    r = httpx.post(f"{url}/api/chat", json={"model": MODEL, "messages": USER})
    assert r.headers["content-type"] == "application/x-ndjson"
    lines = [json.loads(x) for x in r.text.splitlines()]
    assert lines[-1]["done"] is True and all(not x["done"] for x in lines[:-1])
    r = httpx.post(f"{url}/api/chat", json={"model": MODEL, "messages": USER, "stream": False})
    assert r.headers["content-type"].startswith("application/json")


def test_chat_options(client, url):
    backend = url.server._model(MODEL).backend
    r = client.chat(
        model=MODEL, messages=USER, options={"num_predict": 4, "temperature": 0, "seed": 7, "num_ctx": 1024}
    )
    assert r.message.content == "".join(approx_tokens(REPLY)[:4]) and r.done_reason == "length" and r.eval_count == 4
    opts = backend.calls[-1][1]
    assert opts["num_ctx"] == 1024 and opts["temperature"] == 0.0 and opts["seed"] == 7
    r = client.chat(model=MODEL, messages=USER, options={"stop": [" [1]"]})
    assert r.message.content == "The corpus says the sky is blue" and r.done_reason == "stop"
    parts = list(client.chat(model=MODEL, messages=USER, stream=True, options={"stop": ["sky is"]}))
    assert "".join(p.message.content for p in parts) == "The corpus says the "
    with pytest.raises(ollama.ResponseError) as e:
        client.chat(model=MODEL, messages=USER, options={"num_ctx": "big"})
    assert e.value.status_code == 500 and e.value.error == 'option "num_ctx" must be of type integer'


def test_num_ctx_drops_old_messages_and_caps_prompt(client, url):
    backend = url.server._model(MODEL).backend
    long = " ".join(["word"] * 300)
    history = [
        {"role": "system", "content": "Answer from the sources."},
        {"role": "user", "content": long},
        {"role": "assistant", "content": long},
        {"role": "user", "content": "Short question?"},
    ]
    r = client.chat(model=MODEL, messages=history, options={"num_ctx": 256})
    kept = backend.calls[-1][0]
    assert [m["role"] for m in kept] == ["system", "user"] and kept[-1]["content"] == "Short question?"
    assert r.prompt_eval_count <= 256
    client.chat(model=MODEL, messages=[{"role": "user", "content": long}], options={"num_ctx": 64})
    assert backend.calls[-1][0][-1]["content"] == long  # the last message is always kept


def test_callable_reply_sees_messages():
    backend = ScriptedBackend(lambda msgs: f"echo: {msgs[-1]['content']}", chunk_size=3)
    with serve({MODEL: backend}) as u, ollama.Client(host=u) as c:
        parts = list(c.chat(model=MODEL, messages=[{"role": "user", "content": "one two three four"}], stream=True))
        assert "".join(p.message.content for p in parts) == "echo: one two three four"
        assert len(parts) == 3  # 6 pseudo-tokens in chunks of 3, then the final chunk


# -- faults ----------------------------------------------------------------------------------------------------


def test_fault_drop_mid_stream(url, client):
    url.server.faults = Faults(drop_after_chunks=2)
    got = []
    with pytest.raises(httpx.RemoteProtocolError):
        for part in client.chat(model=MODEL, messages=USER, stream=True):
            got.append(part.message.content)
    assert len(got) == 2
    with pytest.raises(httpx.RemoteProtocolError):
        client.chat(model=MODEL, messages=USER, stream=False)


def test_fault_slow_response_times_out(url):
    url.server.faults = Faults(delay_s=2.0)
    with ollama.Client(host=url, timeout=0.2) as c:
        t = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            c.chat(model=MODEL, messages=USER, stream=False)
        assert time.monotonic() - t < 1.5
    url.server.faults = Faults(chunk_delay_s=2.0)
    with ollama.Client(host=url, timeout=0.2) as c, pytest.raises(httpx.ReadTimeout):
        list(c.chat(model=MODEL, messages=USER, stream=True))


def test_fault_malformed_json(url, client):
    url.server.faults = Faults(malformed_after_chunks=1)
    with pytest.raises(json.JSONDecodeError):
        list(client.chat(model=MODEL, messages=USER, stream=True))
    with pytest.raises(json.JSONDecodeError):
        client.chat(model=MODEL, messages=USER, stream=False)


def test_fault_http_500(url, client):
    url.server.faults = Faults(error_status=500, error_message="out of memory")
    for stream in (False, True):
        with pytest.raises(ollama.ResponseError) as e:
            r = client.chat(model=MODEL, messages=USER, stream=stream)
            list(r) if stream else None
        assert e.value.status_code == 500 and e.value.error == "out of memory"
    assert client.list().models  # faults only hit the generation endpoints by default


def test_fault_error_line_mid_stream(url, client):
    url.server.faults = Faults(error_after_chunks=2, error_message="runner died")
    got = []
    with pytest.raises(ollama.ResponseError) as e:
        got.extend(client.chat(model=MODEL, messages=USER, stream=True))
    assert len(got) == 2 and e.value.error == "runner died" and e.value.status_code == -1


def test_fault_times_then_recovers(url, client):
    url.server.faults = Faults(error_status=503, error_message="server busy", times=1)
    with pytest.raises(ollama.ResponseError):
        client.chat(model=MODEL, messages=USER)
    assert client.chat(model=MODEL, messages=USER).message.content == REPLY
    url.server.faults = None
    assert client.chat(model=MODEL, messages=USER).message.content == REPLY


def test_backend_failure_mid_stream_becomes_error_line():
    class Broken(ScriptedBackend):
        def stream(self, messages, options, stats: GenerationStats):
            yield "partial"
            raise RuntimeError("CUDA error: out of memory")

    with serve({MODEL: Broken()}) as u, ollama.Client(host=u) as c:
        with pytest.raises(ollama.ResponseError, match="out of memory"):
            list(c.chat(model=MODEL, messages=USER, stream=True))
        with pytest.raises(ollama.ResponseError) as e:
            c.chat(model=MODEL, messages=USER, stream=False)
        assert e.value.status_code == 500


# -- LlamaIndex ------------------------------------------------------------------------------------------------


@pytest.mark.skipif(
    importlib.util.find_spec("llama_index.llms.ollama") is None, reason="llama-index-llms-ollama not installed"
)
def test_llamaindex_stream_chat(url):
    from llama_index.core.llms import ChatMessage
    from llama_index.llms.ollama import Ollama

    llm = Ollama(model=MODEL, base_url=url, request_timeout=5.0, context_window=2048)
    chunks = list(
        llm.stream_chat([ChatMessage(role="system", content="Cite."), ChatMessage(role="user", content="Sky?")])
    )
    assert "".join(c.delta for c in chunks) == REPLY
    assert chunks[-1].message.content == REPLY
    assert chunks[-1].raw["usage"]["completion_tokens"] == len(approx_tokens(REPLY))
    body = url.server.requests[-1].body
    assert body["options"]["num_ctx"] == 2048 and body["stream"] is True
    assert [m["role"] for m in body["messages"]] == ["system", "user"]


# -- real model ------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(gguf_skip_reason() is not None, reason=str(gguf_skip_reason()))
def test_real_gguf_model_through_llama_cpp():
    from tests.support.ollama_server import LlamaCppBackend, gemma3_270m_gguf

    backend = LlamaCppBackend(gemma3_270m_gguf(), n_ctx=512, prompt_cache=False)
    with serve({MODEL: backend}) as u, ollama.Client(host=u, timeout=120) as c:
        opts = {"num_predict": 16, "temperature": 0, "seed": 1, "num_ctx": 512}
        parts = list(
            c.chat(
                model=MODEL, messages=[{"role": "user", "content": "Name three colours."}], stream=True, options=opts
            )
        )
        last = parts[-1]
        assert last.done and last.done_reason in ("stop", "length")
        assert 0 < last.eval_count <= 16 and last.prompt_eval_count > 5
        text = "".join(p.message.content for p in parts)
        assert text.strip()
        again = c.chat(model=MODEL, messages=[{"role": "user", "content": "Name three colours."}], options=opts)
        assert again.message.content == text  # temperature 0 and a seed: deterministic
        assert c.show(MODEL).modelinfo["gemma3.context_length"] == 32768


def test_faults_on_other_endpoints(url, client):
    url.server.faults = Faults(error_status=500, error_message="boom", paths=("/api/show",))
    with pytest.raises(ollama.ResponseError) as e:
        client.show(MODEL)
    assert e.value.status_code == 500
    assert client.chat(model=MODEL, messages=USER).message.content == REPLY
    url.server.faults = Faults(malformed_after_chunks=0, paths=("/api/tags",))
    with pytest.raises(json.JSONDecodeError):
        client.list()
    url.server.faults = Faults(drop_after_chunks=0, paths=("/api/tags",))
    with pytest.raises((httpx.RemoteProtocolError, ollama.ResponseError, ConnectionError)):
        client.list()
