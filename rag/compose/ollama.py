"""The generative composer: streams an answer with [n] citations from a local Ollama model through LlamaIndex.

Every failure of the Ollama server or the connection becomes a :mod:`rag.errors` error with a hint:

* unreachable (connection refused, unknown host, connect timeout) -> ``BackendUnavailableError``
* model not pulled (HTTP 404)                                      -> ``ModelNotFoundError`` (``ollama pull <model>``)
* no reply within ``ollama_timeout_s``                             -> ``GenerationError`` ("took longer than N s")
* connection dropped, malformed reply, error line mid-stream       -> ``GenerationError`` ("the answer was cut off")
* any other HTTP error (500 out of memory, 400, 503)               -> ``GenerationError`` (status and Ollama's words)

Text already yielded stays valid. ``list_models``/``status`` use the official ``ollama`` client with a short
timeout, so a UI asking "is generation available?" never hangs.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx
import ollama
import pydantic

from rag.answer import BackendStatus, Source
from rag.compose.base import GenerationStats
from rag.compose.prompts import (
    ABSTAIN_TEXT,
    ReasoningFilter,
    build_condense_messages,
    build_messages,
    build_translate_messages,
    estimate_prompt_tokens,
    strip_reasoning,
)
from rag.errors import BackendUnavailableError, GenerationError, ModelNotFoundError, RagError
from rag.settings import Settings

if TYPE_CHECKING:  # LlamaIndex takes ~1.5 s to import; it is loaded on first generation
    from llama_index.llms.ollama import Ollama

ANSWER_TOKENS = 1024  # num_predict for answers: room for a concise answer (and a model's stray reasoning)
CONDENSE_TOKENS = 128  # num_predict for the standalone-question rewrite
JUDGE_TOKENS = 160  # num_predict for one judgement: a verdict and a one-sentence reason
CONTEXT_STEP = 2048  # num_ctx is rounded up to a multiple of this, so Ollama rarely reloads the model
CONTEXT_MARGIN = 1.15  # the chars/3.5 estimate is rough; tokenizers differ
STATUS_TIMEOUT_S = 2.0  # /api/tags for status(): the UI must never hang on it

TIMEOUT_HINT = (
    "Check that Ollama is running and not stuck (`ollama ps`); raise RAG_OLLAMA_FIRST_TOKEN_TIMEOUT_S (a large model "
    "loading) or RAG_OLLAMA_TIMEOUT_S, or use a smaller model."
)
SERVER_ERROR_HINT = "See the Ollama server log; a smaller model or a lower RAG_OLLAMA_NUM_CTX may help."
CUT_OFF_HINT = "Ask again; if it keeps happening, check the Ollama server log."


def context_window(messages: Sequence[Mapping], settings: Settings, answer_tokens: int = ANSWER_TOKENS) -> int:
    """``num_ctx`` for a request: the configured one, or more when prompt + answer would not fit (never truncate)."""
    need = (estimate_prompt_tokens(messages) + answer_tokens) * CONTEXT_MARGIN
    return max(settings.ollama_num_ctx, math.ceil(need / CONTEXT_STEP) * CONTEXT_STEP)


def same_model(a: str, b: str) -> bool:
    """Ollama names compare case-insensitively, and a name without a tag means ``:latest``."""
    return _normalize_model(a) == _normalize_model(b)


def _normalize_model(name: str) -> str:
    name = name.strip().lower()
    base, sep, tag = name.rpartition(":")
    if not sep or "/" in tag:
        return f"{name}:latest"
    return name


# --------------------------------------------------------------------------------------------------------------
# Error mapping


def _is_unreachable(exc: BaseException) -> bool:
    # The ollama client turns only a refused connection into ConnectionError, and only for non-streamed calls.
    return isinstance(exc, ConnectionError | httpx.ConnectError | httpx.ConnectTimeout | httpx.UnsupportedProtocol)


def map_error(exc: BaseException, *, host: str, model: str, timeout_s: float, emitted: bool = False) -> RagError:
    """The :mod:`rag.errors` error for a failure of a call to Ollama (``emitted``: some answer text arrived)."""
    if isinstance(exc, RagError):
        return exc
    if _is_unreachable(exc) and not emitted:
        return BackendUnavailableError(f"Ollama is not reachable at {host}.")
    if isinstance(exc, httpx.TimeoutException):
        where = "to continue the answer" if emitted else "to answer"
        cut = " The answer was cut off." if emitted else ""
        return GenerationError(f"Ollama took longer than {timeout_s:g} s {where} ({host}).{cut}", hint=TIMEOUT_HINT)
    if isinstance(exc, ollama.ResponseError):
        status, error = exc.status_code, str(exc.error).strip()
        if status == 404:
            if "model" in error.lower():  # 'model "x" not found, try pulling it first'; not a bare 404 page
                return ModelNotFoundError(
                    f"The model '{model}' is not available on the Ollama server at {host}: {error}",
                    hint=f"Run `ollama pull {model}` (or choose a model listed by `ollama list`).",
                )
            return BackendUnavailableError(f"The server at {host} does not look like Ollama (HTTP 404: {error[:200]}).")
        if status == -1:  # an {"error": ...} line inside the stream: the runner failed mid-generation
            return _cut_off(f"Ollama reported an error: {error}", emitted)
        return GenerationError(f"Ollama returned an error (HTTP {status}): {error[:500]}", hint=SERVER_ERROR_HINT)
    if isinstance(exc, json.JSONDecodeError | pydantic.ValidationError | KeyError | TypeError):
        return _cut_off(f"Ollama sent a malformed reply ({type(exc).__name__}: {str(exc)[:200]})", emitted)
    if isinstance(exc, httpx.HTTPError | ConnectionError):  # RemoteProtocolError, ReadError, ...: connection lost
        return _cut_off(f"the connection to Ollama at {host} was lost ({type(exc).__name__})", emitted)
    return GenerationError(f"Generation with Ollama failed: {type(exc).__name__}: {exc}")


def _cut_off(reason: str, emitted: bool) -> GenerationError:
    start = "The answer was cut off" if emitted else "The answer was cut off before any text arrived"
    return GenerationError(f"{start}: {reason}.", hint=CUT_OFF_HINT)


_MAPPED = (
    httpx.HTTPError,
    ConnectionError,
    ollama.ResponseError,
    json.JSONDecodeError,
    pydantic.ValidationError,
    KeyError,
    TypeError,
)


# --------------------------------------------------------------------------------------------------------------
# Server status


def list_models(settings: Settings, *, timeout_s: float = STATUS_TIMEOUT_S) -> list[str]:
    """Names of the models pulled on the Ollama server (``/api/tags``); BackendUnavailableError when unreachable."""
    host = settings.ollama_host
    try:
        with ollama.Client(host=host, timeout=timeout_s) as client:
            listed = client.list()
    except ollama.ResponseError as exc:
        raise BackendUnavailableError(
            f"The server at {host} did not list its models (HTTP {exc.status_code}: {str(exc.error)[:200]})."
        ) from exc
    except (httpx.HTTPError, ConnectionError) as exc:
        raise BackendUnavailableError(f"Ollama is not reachable at {host}.") from exc
    except (json.JSONDecodeError, pydantic.ValidationError, KeyError, TypeError, AttributeError) as exc:
        raise BackendUnavailableError(f"The server at {host} does not look like Ollama (bad /api/tags reply).") from exc
    return [name for m in listed.models if (name := m.model or getattr(m, "name", None))]


def status(settings: Settings, model: str | None = None, *, timeout_s: float = STATUS_TIMEOUT_S) -> BackendStatus:
    """Whether generation is available now; ``backend`` is what ``auto`` resolves to. Never raises, never hangs."""
    model = model or settings.ollama_model
    host = settings.ollama_host
    try:
        models = list_models(settings, timeout_s=timeout_s)
    except BackendUnavailableError as exc:
        return BackendStatus(
            ollama_reachable=False,
            ollama_host=host,
            models=[],
            backend="extractive",
            model=None,
            message=f"{exc.message} Answers are extractive. To generate answers, start Ollama with `ollama serve` "
            "(or set OLLAMA_HOST to where it runs).",
        )
    if any(same_model(name, model) for name in models):
        return BackendStatus(
            ollama_reachable=True,
            ollama_host=host,
            models=models,
            backend="ollama",
            model=model,
            message=f"Answers are generated by {model} on Ollama at {host}.",
        )
    return BackendStatus(
        ollama_reachable=True,
        ollama_host=host,
        models=models,
        backend="extractive",
        model=None,
        message=f"Ollama is running at {host} but the model '{model}' is not pulled; answers are extractive. "
        f"Run `ollama pull {model}` to generate answers.",
    )


# --------------------------------------------------------------------------------------------------------------
# Composer


class OllamaComposer:
    """Streams answers from ``model`` (default ``settings.ollama_model``) on ``settings.ollama_host``.

    ``num_ctx`` is ``settings.ollama_num_ctx``, raised when prompt + ``answer_tokens`` would not fit, so sources
    are never cut by Ollama. ``think=False`` asks reasoning models to answer directly (``None``: the model's
    default); inline ``<think>`` blocks are removed either way. Safe to share between threads.
    """

    name = "ollama"

    def __init__(
        self,
        settings: Settings,
        model: str | None = None,
        *,
        answer_tokens: int = ANSWER_TOKENS,
        think: bool | None = False,
    ) -> None:
        self.settings = settings
        self.model = model or settings.ollama_model
        self.host = settings.ollama_host
        self.timeout_s = float(settings.ollama_timeout_s)
        # No byte for this long (the first token, or between tokens) fails the request; ollama_timeout_s caps it.
        self.read_timeout_s = min(float(settings.ollama_first_token_timeout_s), self.timeout_s)
        self.answer_tokens = int(answer_tokens)
        self.think = think
        self._client = ollama.Client(
            host=self.host,
            timeout=httpx.Timeout(
                self.timeout_s,
                connect=min(settings.ollama_connect_timeout_s, self.timeout_s),
                read=self.read_timeout_s,
            ),
        )
        self._llms: dict[tuple[int, int], Ollama] = {}
        self._judge_client: ollama.Client | None = None  # its own timeout: verify.judge_timeout_s
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OllamaComposer(model={self.model!r}, host={self.host!r})"

    def close(self) -> None:
        self._client._client.close()
        if self._judge_client is not None:
            self._judge_client._client.close()

    # -- LlamaIndex ------------------------------------------------------------------------------------------
    def _llm(self, num_ctx: int, num_predict: int) -> Ollama:
        """A LlamaIndex Ollama LLM for these limits, sharing one HTTP client (and its connection pool)."""
        key = (num_ctx, num_predict)
        with self._lock:
            llm = self._llms.get(key)
            if llm is None:
                from llama_index.llms.ollama import Ollama

                llm = Ollama(
                    model=self.model,
                    base_url=self.host,
                    request_timeout=self.timeout_s,
                    context_window=num_ctx,  # without it LlamaIndex asks /api/show and sends the trained context
                    temperature=self.settings.ollama_temperature,
                    additional_kwargs={"num_predict": num_predict},
                    thinking=self.think,
                    client=self._client,
                )
                self._llms[key] = llm
            return llm

    @staticmethod
    def _chat_messages(messages: Sequence[Mapping[str, str]]) -> list[Any]:
        from llama_index.core.llms import ChatMessage

        return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]

    def _error(self, exc: BaseException, emitted: bool = False) -> RagError:
        return map_error(exc, host=self.host, model=self.model, timeout_s=self.read_timeout_s, emitted=emitted)

    # -- Composer --------------------------------------------------------------------------------------------
    def context_window(self, messages: Sequence[Mapping]) -> int:
        return context_window(messages, self.settings, self.answer_tokens)

    def stream(
        self, question: str, sources: Sequence[Source], stats: GenerationStats, history: Sequence[dict] = ()
    ) -> Iterator[str]:
        """Yield answer text as it arrives (reasoning blocks removed); fills ``stats`` as it goes."""
        stats.model = self.model
        stats.first_token_s = stats.prompt_tokens = stats.completion_tokens = None
        if not sources:  # nothing to cite: no need to ask a model
            stats.first_token_s, stats.prompt_tokens, stats.completion_tokens = 0.0, 0, 0
            yield ABSTAIN_TEXT
            return
        messages = build_messages(question, sources, history)
        llm = self._llm(self.context_window(messages), self.answer_tokens)
        chat = self._chat_messages(messages)
        reasoning = ReasoningFilter()
        emitted = False
        t0 = time.perf_counter()
        gen = None
        try:
            gen = llm.stream_chat(chat)
            for chunk in gen:
                raw = chunk.raw if isinstance(chunk.raw, Mapping) else {}
                if raw.get("done"):
                    stats.prompt_tokens = raw.get("prompt_eval_count")
                    stats.completion_tokens = raw.get("eval_count")
                text = reasoning.feed(chunk.delta or "")
                if text:
                    if stats.first_token_s is None:
                        stats.first_token_s = time.perf_counter() - t0
                    emitted = True
                    yield text
            tail = reasoning.flush()
            if tail:
                if stats.first_token_s is None:
                    stats.first_token_s = time.perf_counter() - t0
                yield tail
        except _MAPPED as exc:
            raise self._error(exc, emitted) from exc
        finally:
            stats.generate_s = time.perf_counter() - t0
            if gen is not None:
                gen.close()  # a consumer that stops early closes the HTTP stream, so Ollama stops generating

    def condense(self, question: str, history: Sequence[dict]) -> str:
        """``question`` rewritten to stand alone given ``history``; the original question on any failure."""
        if not any(isinstance(m, Mapping) and m.get("role") in ("user", "assistant") for m in history):
            return question
        messages = build_condense_messages(question, history)
        try:
            llm = self._llm(context_window(messages, self.settings, CONDENSE_TOKENS), CONDENSE_TOKENS)
            reply = llm.chat(self._chat_messages(messages)).message.content or ""
        except Exception:  # noqa: BLE001 - a failed rewrite must not fail the question; ask it as typed
            return question
        return clean_standalone_question(reply, question)

    def translate(self, question: str) -> str | None:
        """``question`` in English (for retrieval by the English encoder); None on any failure."""
        messages = build_translate_messages(question)
        try:
            llm = self._llm(context_window(messages, self.settings, CONDENSE_TOKENS), CONDENSE_TOKENS)
            reply = llm.chat(self._chat_messages(messages)).message.content or ""
        except Exception:  # noqa: BLE001 - a failed translation must not fail the question; ask it as typed
            return None
        cleaned = clean_standalone_question(reply, question)
        return cleaned if cleaned != question else None

    # -- the model judge (rag.judge) --------------------------------------------------------------------------
    def judge(self, claim: str, evidence: str) -> str:
        """The model's JSON verdict on ``claim`` against ``evidence`` (Ollama structured output, temperature 0),
        as the raw reply text; a RagError when the model does not answer within ``verify.judge_timeout_s``."""
        from rag import judge

        timeout_s = float(self.settings.verify.judge_timeout_s)
        with self._lock:
            if self._judge_client is None:
                self._judge_client = ollama.Client(
                    host=self.host,
                    timeout=httpx.Timeout(timeout_s, connect=min(self.settings.ollama_connect_timeout_s, timeout_s)),
                )
        try:
            reply = self._judge_client.chat(
                model=self.model,
                messages=judge.build_messages(claim, evidence),
                format=judge.SCHEMA,
                options={"temperature": 0, "num_predict": JUDGE_TOKENS},
                think=False if self.think is False else None,
                stream=False,
            )
        except _MAPPED as exc:
            raise map_error(exc, host=self.host, model=self.model, timeout_s=timeout_s) from exc
        return (reply.message.content or "") if reply.message else ""

    # -- status ----------------------------------------------------------------------------------------------
    def list_models(self) -> list[str]:
        return list_models(self.settings)

    def is_available(self, model: str | None = None) -> bool:
        """Ollama reachable (short timeout) and ``model`` (default: this composer's) pulled."""
        try:
            names = self.list_models()
        except BackendUnavailableError:
            return False
        return any(same_model(n, model or self.model) for n in names)

    def status(self) -> BackendStatus:
        return status(self.settings, self.model)


_PREFIXES = ("standalone question:", "standalone question", "question:", "rewritten question:")
_QUOTES = "\"'“”‘’`«»"


def clean_standalone_question(reply: str, original: str) -> str:
    """The first line of a rewrite, without reasoning, labels or quotes; ``original`` when it looks unusable."""
    text = strip_reasoning(reply)
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    lowered = line.lower()
    for prefix in _PREFIXES:
        if lowered.startswith(prefix):
            line = line[len(prefix) :].strip()
            break
    line = line.strip("*_ ").strip(_QUOTES).strip()
    if not line or len(line) > max(4 * len(original), len(original) + 300):
        return original
    return line
