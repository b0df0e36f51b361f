"""The Ollama composer and its prompts, through the real ``ollama`` client and LlamaIndex over real HTTP.

The server is :mod:`tests.support.ollama_server` (scripted replies and injected faults); one slow test runs a real
GGUF model behind it, and one runs against a real Ollama when OLLAMA_HOST is set.
"""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from rag.answer import Source
from rag.compose.base import GenerationStats
from rag.compose.ollama import (
    CONTEXT_STEP,
    OllamaComposer,
    clean_standalone_question,
    context_window,
    list_models,
    map_error,
    same_model,
    status,
)
from rag.compose.prompts import (
    ABSTAIN_TEXT,
    MAX_HISTORY_CHARS,
    MAX_HISTORY_MESSAGES,
    ReasoningFilter,
    build_condense_messages,
    build_messages,
    estimate_prompt_tokens,
    format_source,
    recent_history,
    strip_citations,
    strip_reasoning,
)
from rag.corpus import Abstract
from rag.errors import BackendUnavailableError, GenerationError, ModelNotFoundError
from rag.settings import Settings
from tests.support.ollama_server import Faults, ScriptedBackend, approx_tokens, gguf_skip_reason, serve

MODEL = "gemma3:270m"

TEXTS = [
    "DiffuseNet trains diffusion models on protein structures. It improves designability by 12 percent.",
    "AssayBench is a benchmark of 40 wet-lab assays. Models are scored by rank correlation.",
    "We study reward hacking in RLHF. A KL penalty reduces it but does not remove it.",
]


def _abstract(i: int, text: str, label: str | None = None) -> Abstract:
    return Abstract(id=f"p{i:03d}-abcd", label=label or f"Paper {i}", text=text, locations=(), content_hash=f"h{i}")


SOURCES = [Source(i + 1, _abstract(i + 1, t)) for i, t in enumerate(TEXTS)]
QUESTION = "How does DiffuseNet improve designability?"

REPLIES = {
    "cites-correctly": "DiffuseNet trains diffusion models on protein structures [1]. It improves designability by 12 percent [1].",
    "cites-wrong-abstract": "DiffuseNet improves designability by 12 percent [2].",
    "cites-out-of-range": "DiffuseNet improves designability [9].",
    "no-citations": "DiffuseNet improves designability by twelve percent.",
    "nonsense": "purple monkey dishwasher ]][[ 42 [[1]] ... [one]",
}


def settings_for(url: str, **kw) -> Settings:
    kw.setdefault("ollama_model", MODEL)
    kw.setdefault("ollama_timeout_s", 10.0)
    return Settings(ollama_host=url, **kw)


def collect(it) -> tuple[list[str], BaseException | None]:
    """Pieces yielded before the stream ended, and the error that ended it (if any)."""
    got: list[str] = []
    try:
        for piece in it:
            got.append(piece)
    except Exception as exc:  # noqa: BLE001 - returned for the test to inspect
        return got, exc
    return got, None


def chat_requests(url) -> list:
    return [r for r in url.server.requests if r.path == "/api/chat"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def scripted():
    """A server whose model says REPLIES["cites-correctly"] in two-token pieces."""
    backend = ScriptedBackend(REPLIES["cites-correctly"], chunk_size=2)
    with serve({MODEL: backend}) as url:
        url.backend = backend  # type: ignore[attr-defined]
        yield url


@pytest.fixture
def composer(scripted):
    c = OllamaComposer(settings_for(scripted))
    yield c
    c.close()


# ==============================================================================================================
# prompts.py


def test_format_source_has_number_label_id_and_full_text():
    long = _abstract(7, "word " * 2000, label="LongPaper")
    text = format_source(Source(4, long))
    assert text.startswith("[4] LongPaper (ID p007-abcd)\n")
    assert text.endswith(long.text.strip())  # never shortened


def test_build_messages_shape():
    messages = build_messages(QUESTION, SOURCES)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert all(isinstance(m["content"], str) for m in messages)
    user = messages[-1]["content"]
    assert QUESTION in user
    for s in SOURCES:
        assert format_source(s) in user
    assert user.index("[1] Paper 1") < user.index("[2] Paper 2") < user.index("[3] Paper 3") < user.index(QUESTION)


def test_system_prompt_states_the_rules():
    system = build_messages(QUESTION, SOURCES)[0]["content"]
    assert "ONLY" in system and "EVERY sentence" in system
    assert "[1]" in system and "[1][3]" in system
    assert "never invent a source number" in system
    assert "5 sentences" in system and "one line per paper" in system
    assert f"reply exactly: {ABSTAIN_TEXT}" in system


def test_abstain_text_is_the_agreed_sentence():
    assert ABSTAIN_TEXT == "The provided abstracts do not answer this question."


def test_build_messages_without_sources_says_so():
    assert "(no sources)" in build_messages(QUESTION, [])[-1]["content"]


def test_build_messages_includes_recent_history_before_the_question():
    history = [
        {"role": "user", "content": "What is AssayBench?"},
        {"role": "assistant", "content": "AssayBench is a benchmark of wet-lab assays [2]."},
    ]
    messages = build_messages("How is it scored?", SOURCES, history)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "What is AssayBench?"
    assert messages[2]["content"] == "AssayBench is a benchmark of wet-lab assays."  # old [n] refer to old sources
    assert "How is it scored?" in messages[3]["content"]


def test_history_is_bounded_in_turns():
    history = []
    for i in range(20):
        history += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]
    kept = recent_history(history)
    assert len(kept) == MAX_HISTORY_MESSAGES
    assert kept[-1]["content"] == "a19" and kept[0]["role"] == "user"


def test_history_is_bounded_in_characters():
    kept = recent_history([{"role": "user", "content": "x" * 10_000}])
    assert len(kept[0]["content"]) <= MAX_HISTORY_CHARS


def test_history_skips_other_roles_empty_and_non_text_content():
    history = [
        {"role": "system", "content": "ignore me"},
        {"role": "user", "content": "   "},
        {"role": "user", "content": {"path": "image.png"}},
        {"role": "tool", "content": "x"},
        {"role": "user", "content": "real question"},
        {"role": "assistant", "content": "[1][2]"},  # nothing left after removing markers
    ]
    assert recent_history(history) == [{"role": "user", "content": "real question"}]


def test_history_window_starts_with_a_user_turn():
    history = [{"role": "assistant", "content": "hello"}, {"role": "user", "content": "q"}]
    assert recent_history(history)[0] == {"role": "user", "content": "q"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Blue [1].", "Blue."),
        ("Blue [1][3]. Rain [2].", "Blue. Rain."),
        ("Blue [1, 2].", "Blue."),
        ("Array a[i] stays.", "Array a[i] stays."),
        ("No markers.", "No markers."),
    ],
)
def test_strip_citations(text, expected):
    assert strip_citations(text) == expected


def test_condense_messages_ask_for_the_question_only():
    history = [
        {"role": "user", "content": "What is AssayBench?"},
        {"role": "assistant", "content": "A benchmark [2]."},
    ]
    messages = build_condense_messages("How is it scored?", history)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "standalone" in messages[0]["content"].lower() and "question only" in messages[0]["content"]
    user = messages[1]["content"]
    assert "User: What is AssayBench?" in user and "Assistant: A benchmark." in user
    assert "Follow-up question: How is it scored?" in user


def test_estimate_prompt_tokens_grows_with_text():
    short = estimate_prompt_tokens([{"role": "user", "content": "x" * 35}])
    long = estimate_prompt_tokens([{"role": "user", "content": "x" * 35_000}])
    assert 10 < short < 30
    assert 9_900 < long < 10_100
    assert estimate_prompt_tokens([]) > 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<think>cite [2]?</think>\n\nBlue [1].", "Blue [1]."),
        ("<thinking>\nhmm\n</thinking> Blue [1].", "Blue [1]."),
        ("<THINK>x</THINK>Blue [1].", "Blue [1]."),
        ("Blue [1]. <think>aside</think>Rain [2].", "Blue [1]. Rain [2]."),
        ("<think>never closed, all reasoning", ""),
        ("  <think>unterminated at the start", ""),
        ("reasoning without an opening tag</think>\nBlue [1].", "Blue [1]."),
        ("No reasoning [1].", "No reasoning [1]."),
        ("a < b and <thi are text", "a < b and <thi are text"),
        ("", ""),
    ],
)
def test_strip_reasoning(text, expected):
    assert strip_reasoning(text) == expected


def _filtered(pieces) -> str:
    f = ReasoningFilter()
    return "".join(f.feed(p) for p in pieces) + f.flush()


def test_reasoning_filter_every_split_position():
    text = "<think>cite [2]?</think>\n\nBlue [1]. <thinking>x</thinking>Rain [2]."
    for i in range(len(text) + 1):
        for j in range(i, len(text) + 1, 7):
            assert _filtered([text[:i], text[i:j], text[j:]]) == "Blue [1]. Rain [2].", (i, j)


def test_reasoning_filter_character_by_character():
    assert _filtered(list("<think>a</think>Blue [1].")) == "Blue [1]."


def test_reasoning_filter_passes_plain_text_through_promptly():
    f = ReasoningFilter()
    assert f.feed("Blue ") == "Blue "
    assert f.feed("sky [1].") == "sky [1]."
    assert f.feed(" <") == " "  # may be the start of a tag: held
    assert f.feed("3 apples") == "<3 apples"  # it was not
    assert f.flush() == ""


def test_reasoning_filter_holds_only_a_possible_tag():
    f = ReasoningFilter()
    assert f.feed("Blue <thi") == "Blue "
    assert f.flush() == "<thi"  # the stream ended: it was text after all


def test_reasoning_filter_drops_an_unterminated_block():
    f = ReasoningFilter()
    assert f.feed("<think>still thinking") == ""
    assert f.inside
    assert f.flush() == ""


def test_reasoning_filter_reports_state():
    f = ReasoningFilter()
    f.feed("<think>")
    assert f.inside
    f.feed("</think>")
    assert not f.inside


# ==============================================================================================================
# small helpers of ollama.py


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("gemma3", "gemma3:latest", True),
        ("Gemma3:270M", "gemma3:270m", True),
        ("gemma3:270m", "gemma3", False),
        ("llama3.2:3b", "llama3.2:1b", False),
        ("hf.co/org/model", "hf.co/org/model:latest", True),
        ("localhost:5000/model", "localhost:5000/model:latest", True),
    ],
)
def test_same_model(a, b, same):
    assert same_model(a, b) is same


def test_context_window_is_at_least_the_setting_and_grows_for_long_prompts():
    settings = Settings(ollama_num_ctx=8192)
    assert context_window(build_messages(QUESTION, SOURCES), settings) == 8192
    huge = [Source(i + 1, _abstract(i, "token " * 20_000)) for i in range(5)]  # ~600k chars
    messages = build_messages(QUESTION, huge)
    ctx = context_window(messages, settings)
    assert ctx > estimate_prompt_tokens(messages) + 1024
    assert ctx % CONTEXT_STEP == 0


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("How is AssayBench scored?", "How is AssayBench scored?"),
        ('"How is AssayBench scored?"', "How is AssayBench scored?"),
        ("Standalone question: How is AssayBench scored?", "How is AssayBench scored?"),
        ("<think>they mean AssayBench</think>\nHow is AssayBench scored?", "How is AssayBench scored?"),
        ("\n\n**How is AssayBench scored?**\nExplanation: ...", "How is AssayBench scored?"),
        ("", "How is it scored?"),
        ("<think>only reasoning", "How is it scored?"),
        ("x" * 5000, "How is it scored?"),
    ],
)
def test_clean_standalone_question(reply, expected):
    assert clean_standalone_question(reply, "How is it scored?") == expected


def test_map_error_passes_unknown_exceptions_as_generation_error():
    err = map_error(RuntimeError("boom"), host="http://h:1", model="m", timeout_s=5)
    assert isinstance(err, GenerationError) and "boom" in err.message


# ==============================================================================================================
# streaming through the real client


@pytest.mark.parametrize("kind", list(REPLIES))
def test_reply_streams_through_unchanged(kind):
    """Whatever the model writes (right, wrong, out-of-range or no citations, nonsense) reaches the caller as is."""
    with serve({MODEL: ScriptedBackend(REPLIES[kind], chunk_size=3)}) as url:
        composer = OllamaComposer(settings_for(url))
        pieces, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
    assert err is None
    assert "".join(pieces) == REPLIES[kind]


def test_stream_arrives_in_several_pieces(composer):
    pieces = list(composer.stream(QUESTION, SOURCES, GenerationStats()))
    assert len(pieces) >= 5
    assert "".join(pieces) == REPLIES["cites-correctly"]


def test_stream_is_incremental():
    """The first piece reaches the caller while the model is still writing."""
    backend = ScriptedBackend("one two three four five six", chunk_size=1, delay_s=0.05)
    with serve({MODEL: backend}) as url:
        it = OllamaComposer(settings_for(url)).stream(QUESTION, SOURCES, GenerationStats())
        t = time.perf_counter()
        first = next(it)
        first_s = time.perf_counter() - t
        rest = list(it)
        total_s = time.perf_counter() - t
    assert first == "one" and rest
    assert first_s < total_s / 2


def test_request_sends_the_prompt_and_options(scripted, composer):
    list(composer.stream(QUESTION, SOURCES, GenerationStats()))
    reqs = chat_requests(scripted)
    assert len(reqs) == 1
    assert not [r for r in scripted.server.requests if r.path == "/api/show"]  # context_window is always passed
    body = reqs[0].body
    assert body["model"] == MODEL and body["stream"] is True
    assert body["think"] is False
    options = body["options"]
    assert options["num_ctx"] == composer.settings.ollama_num_ctx
    assert options["temperature"] == composer.settings.ollama_temperature
    assert options["num_predict"] == composer.answer_tokens
    assert body["messages"] == build_messages(QUESTION, SOURCES)


def test_history_reaches_the_model(scripted, composer):
    history = [{"role": "user", "content": "Earlier question"}, {"role": "assistant", "content": "Earlier answer [1]."}]
    list(composer.stream("And then?", SOURCES, GenerationStats(), history=history))
    roles = [m["role"] for m in chat_requests(scripted)[-1].body["messages"]]
    assert roles == ["system", "user", "assistant", "user"]


def test_num_ctx_is_at_least_the_setting():
    with serve({MODEL: ScriptedBackend("Ok [1].")}) as url:
        for num_ctx in (2048, 8192, 16384):
            list(OllamaComposer(settings_for(url, ollama_num_ctx=num_ctx)).stream(QUESTION, SOURCES, GenerationStats()))
            assert chat_requests(url)[-1].body["options"]["num_ctx"] == num_ctx


def test_num_ctx_grows_for_long_sources_so_nothing_is_truncated():
    backend = ScriptedBackend("Ok [1].")
    long_sources = [Source(i + 1, _abstract(i, f"Sentence {i} about proteins. " * 600)) for i in range(5)]
    with serve({MODEL: backend}) as url:
        settings = settings_for(url, ollama_num_ctx=2048)
        stats = GenerationStats()
        list(OllamaComposer(settings).stream(QUESTION, long_sources, stats))
        num_ctx = chat_requests(url)[-1].body["options"]["num_ctx"]
    messages, _options = backend.calls[-1]
    assert num_ctx > settings.ollama_num_ctx
    assert num_ctx >= estimate_prompt_tokens(messages) + 1024
    assert len(messages) == 2  # nothing dropped by the server's context fitting
    assert stats.prompt_tokens == backend.count_prompt_tokens(messages)  # not capped at num_ctx


def test_stats_are_filled(scripted, composer):
    stats = GenerationStats()
    list(composer.stream(QUESTION, SOURCES, stats))
    messages, _ = scripted.backend.calls[-1]
    assert stats.model == MODEL
    assert stats.prompt_tokens == scripted.backend.count_prompt_tokens(messages)
    assert stats.completion_tokens == len(approx_tokens(REPLIES["cites-correctly"]))
    assert stats.first_token_s is not None and 0 < stats.first_token_s <= stats.generate_s


def test_stats_are_reset_when_reused(scripted, composer):
    stats = GenerationStats(prompt_tokens=1, completion_tokens=2, first_token_s=99.0)
    list(composer.stream(QUESTION, SOURCES, stats))
    assert stats.first_token_s < 99.0 and stats.completion_tokens != 2


def test_reasoning_blocks_are_removed_across_chunks():
    reply = "<think>The user asks about DiffuseNet; cite [1].</think>\n\nDiffuseNet improves designability [1]."
    with serve({MODEL: ScriptedBackend(reply, chunk_size=1)}) as url:
        stats = GenerationStats()
        pieces = list(OllamaComposer(settings_for(url)).stream(QUESTION, SOURCES, stats))
    assert "".join(pieces) == "DiffuseNet improves designability [1]."
    assert stats.completion_tokens == len(approx_tokens(reply))  # the model's count, reasoning included


def test_only_reasoning_yields_nothing():
    with serve({MODEL: ScriptedBackend("<think>I am not sure", chunk_size=2)}) as url:
        stats = GenerationStats()
        assert "".join(OllamaComposer(settings_for(url)).stream(QUESTION, SOURCES, stats)) == ""
    assert stats.first_token_s is None and stats.completion_tokens


def test_no_sources_abstains_without_asking_the_model(scripted, composer):
    stats = GenerationStats()
    assert "".join(composer.stream(QUESTION, [], stats)) == ABSTAIN_TEXT
    assert chat_requests(scripted) == []
    assert stats.model == MODEL


def test_model_argument_overrides_settings():
    with serve({"other:1b": ScriptedBackend("Ok [1].")}) as url:
        composer = OllamaComposer(settings_for(url), model="other:1b")
        assert composer.model == "other:1b" and composer.name == "ollama"
        assert "".join(composer.stream(QUESTION, SOURCES, GenerationStats())) == "Ok [1]."


def test_stopping_early_closes_the_stream():
    backend = ScriptedBackend("word " * 200, chunk_size=1, delay_s=0.01)
    with serve({MODEL: backend}) as url:
        composer = OllamaComposer(settings_for(url))
        it = composer.stream(QUESTION, SOURCES, GenerationStats())
        assert next(it)
        t = time.perf_counter()
        it.close()
        assert time.perf_counter() - t < 1.0
        # the composer stays usable
        backend.delay_s = 0
        assert "".join(composer.stream(QUESTION, SOURCES, GenerationStats())) == "word " * 200


def test_concurrent_streams_share_one_composer():
    with serve({MODEL: ScriptedBackend(REPLIES["cites-correctly"], chunk_size=1)}) as url:
        composer = OllamaComposer(settings_for(url))
        results: list[str] = []

        def run():
            results.append("".join(composer.stream(QUESTION, SOURCES, GenerationStats())))

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    assert results == [REPLIES["cites-correctly"]] * 4


# ==============================================================================================================
# faults


def test_unreachable_server():
    port = free_port()
    composer = OllamaComposer(settings_for(f"127.0.0.1:{port}"))
    t = time.perf_counter()
    pieces, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
    assert time.perf_counter() - t < 3
    assert pieces == [] and isinstance(err, BackendUnavailableError)
    assert f"http://127.0.0.1:{port}" in err.message
    assert "ollama serve" in err.hint and "OLLAMA_HOST" in err.hint


def test_model_not_pulled():
    with serve({"llama3.2:3b": ScriptedBackend()}) as url:
        composer = OllamaComposer(settings_for(url), model="qwen9:14b")
        pieces, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
    assert pieces == [] and isinstance(err, ModelNotFoundError)
    assert "qwen9:14b" in err.message and url in err.message
    assert "ollama pull qwen9:14b" in err.user_message()


def test_connection_dropped_mid_stream(scripted, composer):
    scripted.server.faults = Faults(drop_after_chunks=3)
    pieces, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
    assert len(pieces) == 3 and REPLIES["cites-correctly"].startswith("".join(pieces))
    assert isinstance(err, GenerationError)
    assert err.message.startswith("The answer was cut off:") and "connection" in err.message


def test_connection_dropped_before_any_text(scripted, composer):
    scripted.server.faults = Faults(drop_after_chunks=0)
    pieces, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
    assert pieces == [] and isinstance(err, GenerationError)
    assert "before any text" in err.message


def test_malformed_json_mid_stream(scripted, composer):
    scripted.server.faults = Faults(malformed_after_chunks=2)
    pieces, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
    assert len(pieces) == 2
    assert isinstance(err, GenerationError) and "cut off" in err.message and "malformed" in err.message


def test_error_line_mid_stream(scripted, composer):
    scripted.server.faults = Faults(error_after_chunks=2, error_message="llama runner process has terminated")
    pieces, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
    assert len(pieces) == 2
    assert isinstance(err, GenerationError)
    assert "cut off" in err.message and "llama runner process has terminated" in err.message


def test_http_500(scripted, composer):
    scripted.server.faults = Faults(error_status=500, error_message="model requires more system memory")
    pieces, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
    assert pieces == [] and isinstance(err, GenerationError)
    assert "500" in err.message and "more system memory" in err.message
    assert "smaller model" in err.hint


def test_slower_than_timeout_before_first_token():
    with serve({MODEL: ScriptedBackend("Ok [1].")}, Faults(delay_s=3.0)) as url:
        composer = OllamaComposer(settings_for(url, ollama_timeout_s=0.3))
        t = time.perf_counter()
        pieces, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
        elapsed = time.perf_counter() - t
    assert elapsed < 2.0
    assert pieces == [] and isinstance(err, GenerationError)
    assert "longer than 0.3 s" in err.message
    assert "RAG_OLLAMA_TIMEOUT_S" in err.hint and "smaller model" in err.hint


def test_slower_than_timeout_mid_stream():
    release = threading.Event()

    class Stalls(ScriptedBackend):
        def stream(self, messages, options, stats):
            yield "DiffuseNet improves"
            yield " designability"
            release.wait(5)
            yield " [1]."

    with serve({MODEL: Stalls()}) as url:
        composer = OllamaComposer(settings_for(url, ollama_timeout_s=0.3))
        stats = GenerationStats()
        pieces, err = collect(composer.stream(QUESTION, SOURCES, stats))
        release.set()
    assert "".join(pieces) == "DiffuseNet improves designability"
    assert isinstance(err, GenerationError) and "longer than 0.3 s" in err.message and "cut off" in err.message
    assert stats.first_token_s is not None and stats.generate_s >= 0.3


def test_recovers_after_a_fault(scripted, composer):
    scripted.server.faults = Faults(error_status=503, error_message="server busy", times=1)
    _, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
    assert isinstance(err, GenerationError) and "503" in err.message
    assert "".join(composer.stream(QUESTION, SOURCES, GenerationStats())) == REPLIES["cites-correctly"]


def test_not_an_ollama_server():
    import http.server

    class NotFound(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(404)
            self.send_header("Content-Length", "18")
            self.end_headers()
            self.wfile.write(b"404 page not found")

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        composer = OllamaComposer(settings_for(f"127.0.0.1:{httpd.server_address[1]}"))
        _, err = collect(composer.stream(QUESTION, SOURCES, GenerationStats()))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert isinstance(err, BackendUnavailableError) and "does not look like Ollama" in err.message


# ==============================================================================================================
# condense


HISTORY = [
    {"role": "user", "content": "What is AssayBench?"},
    {"role": "assistant", "content": "AssayBench is a benchmark of 40 wet-lab assays [2]."},
]


def test_condense_returns_the_standalone_question():
    backend = ScriptedBackend('<think>"it" is AssayBench</think>\n"How is AssayBench scored?"')
    with serve({MODEL: backend}) as url:
        composer = OllamaComposer(settings_for(url))
        assert composer.condense("How is it scored?", HISTORY) == "How is AssayBench scored?"
        body = chat_requests(url)[-1].body
    assert body["stream"] is False and body["options"]["num_ctx"] >= 2048
    assert body["messages"] == build_condense_messages("How is it scored?", HISTORY)


def test_condense_without_history_asks_nothing(scripted, composer):
    assert composer.condense("How is it scored?", []) == "How is it scored?"
    assert chat_requests(scripted) == []


@pytest.mark.parametrize(
    "faults",
    [
        Faults(error_status=500),
        Faults(drop_after_chunks=0),
        Faults(malformed_after_chunks=0),
        Faults(delay_s=2.0),
    ],
)
def test_condense_falls_back_to_the_question_on_errors(faults):
    with serve({MODEL: ScriptedBackend("How is AssayBench scored?")}, faults) as url:
        composer = OllamaComposer(settings_for(url, ollama_timeout_s=0.3))
        assert composer.condense("How is it scored?", HISTORY) == "How is it scored?"


def test_condense_falls_back_when_unreachable_or_model_missing():
    assert OllamaComposer(settings_for(f"127.0.0.1:{free_port()}")).condense("Q?", HISTORY) == "Q?"
    with serve({"other:1b": ScriptedBackend("x")}) as url:
        assert OllamaComposer(settings_for(url)).condense("Q?", HISTORY) == "Q?"


# ==============================================================================================================
# list_models / status / is_available


def test_list_models():
    with serve({MODEL: ScriptedBackend(), "llama3.2": ScriptedBackend()}) as url:
        names = list_models(settings_for(url))
    assert sorted(names) == ["gemma3:270m", "llama3.2:latest"]


def test_list_models_unreachable_is_fast():
    t = time.perf_counter()
    with pytest.raises(BackendUnavailableError, match="not reachable"):
        list_models(settings_for(f"127.0.0.1:{free_port()}"))
    assert time.perf_counter() - t < 3


def test_status_available():
    with serve({MODEL: ScriptedBackend()}) as url:
        st = status(settings_for(url))
    assert st.ollama_reachable and st.backend == "ollama" and st.model == MODEL
    assert st.models == [MODEL] and st.ollama_host == url
    assert MODEL in st.message


def test_status_model_not_pulled():
    with serve({"llama3.2:3b": ScriptedBackend()}) as url:
        st = status(settings_for(url), "qwen3:4b")
    assert st.ollama_reachable and st.backend == "extractive" and st.model is None
    assert st.models == ["llama3.2:3b"]
    assert "ollama pull qwen3:4b" in st.message


def test_status_unreachable_never_raises_and_is_quick():
    host = f"http://127.0.0.1:{free_port()}"
    t = time.perf_counter()
    st = status(settings_for(host))
    assert time.perf_counter() - t < 3
    assert not st.ollama_reachable and st.backend == "extractive" and st.models == []
    assert st.ollama_host == host and host in st.message and "ollama serve" in st.message


def test_status_does_not_hang_on_a_stuck_server():
    with serve({MODEL: ScriptedBackend()}, Faults(delay_s=10.0, paths=("/api/tags",))) as url:
        t = time.perf_counter()
        st = status(settings_for(url), timeout_s=0.3)
        assert time.perf_counter() - t < 2
    assert not st.ollama_reachable and st.backend == "extractive"


def test_status_of_a_broken_tags_reply():
    with serve({MODEL: ScriptedBackend()}, Faults(malformed_after_chunks=0, paths=("/api/tags",))) as url:
        st = status(settings_for(url))
    assert not st.ollama_reachable and "does not look like Ollama" in st.message


def test_is_available_matches_latest_tag():
    with serve({"gemma3": ScriptedBackend()}) as url:  # listed as gemma3:latest
        composer = OllamaComposer(settings_for(url, ollama_model="gemma3"))
        assert composer.is_available()
        assert composer.is_available("gemma3:latest")
        assert composer.is_available("GEMMA3")
        assert not composer.is_available("gemma3:270m")
        assert composer.list_models() == ["gemma3:latest"]
        assert composer.status().backend == "ollama"
    assert not composer.is_available()  # server gone


# ==============================================================================================================
# a real model


@pytest.mark.slow
@pytest.mark.skipif(gguf_skip_reason() is not None, reason=str(gguf_skip_reason()))
def test_real_gguf_model_streams_with_real_token_counts():
    from tests.support.ollama_server import LlamaCppBackend, gemma3_270m_gguf

    backend = LlamaCppBackend(gemma3_270m_gguf(), n_ctx=2048, prompt_cache=False)
    with serve({MODEL: backend}) as url:
        settings = settings_for(url, ollama_num_ctx=2048, ollama_temperature=0.0, ollama_timeout_s=120)
        composer = OllamaComposer(settings, answer_tokens=48)
        stats = GenerationStats()
        pieces = list(composer.stream(QUESTION, SOURCES, stats))
        body = chat_requests(url)[-1].body
    assert body["options"]["num_ctx"] == 2048
    text = "".join(pieces)
    assert text.strip() and len(pieces) > 1
    assert stats.prompt_tokens == backend.count_prompt_tokens(build_messages(QUESTION, SOURCES))
    assert 0 < stats.completion_tokens <= 48
    assert stats.first_token_s is not None and 0 < stats.first_token_s < stats.generate_s


def _ollama_skip_reason() -> str | None:
    if not os.environ.get("OLLAMA_HOST"):
        return "set OLLAMA_HOST to run against a real Ollama server"
    return None


@pytest.mark.ollama
@pytest.mark.skipif(_ollama_skip_reason() is not None, reason=str(_ollama_skip_reason()))
def test_real_ollama_server():
    settings = Settings()  # OLLAMA_HOST, RAG_OLLAMA_MODEL, ... from the environment
    composer = OllamaComposer(settings)
    st = composer.status()
    if not st.ollama_reachable:
        pytest.fail(f"OLLAMA_HOST is set but {st.message}")
    if st.backend != "ollama":
        pytest.skip(f"{settings.ollama_model} is not pulled on {settings.ollama_host} (ollama pull it)")
    stats = GenerationStats()
    text = "".join(composer.stream(QUESTION, SOURCES, stats))
    assert text.strip()
    assert stats.prompt_tokens and stats.completion_tokens
    assert stats.first_token_s is not None and stats.generate_s > 0
    assert composer.condense("How is it scored?", HISTORY).strip()
