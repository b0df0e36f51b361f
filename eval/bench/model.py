"""Model path: pipeline.ask through the Ollama protocol vs llama-cpp-python directly."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .targets import TARGETS

MODEL_NAME = "gemma3:270m"
QUICK_MAX_TOKENS = 24  # --quick caps generation in the server, so one ask takes seconds
MODEL_MAX_TOKENS = 256  # a typical answer's length; both sides generate exactly as many tokens


class ModelSection:
    """Bench step: the model path (GGUF); `measure_model_path` below gets the running `runner.Bench`."""

    # -- model path ------------------------------------------------------------------------------------------
    def measure_model_path(self) -> None:
        section: dict[str, Any] = {"model": MODEL_NAME, "target_ratio": TARGETS["model_overhead_ratio"]}
        self.result["model_path"] = section
        if self.args.skip_model:
            section["skipped"] = "--skip-model"
            return
        try:
            import llama_cpp  # noqa: F401

            from tests.support.ollama_server import LlamaCppBackend, gemma3_270m_gguf

            gguf = gemma3_270m_gguf()
        except ImportError as exc:
            section["skipped"] = f"llama_cpp or the GGUF package is not importable ({exc})"
            return
        try:
            section.update(measure_model_path(self, LlamaCppBackend, gguf))
        except Exception as exc:  # noqa: BLE001 - report it; the other sections stand
            section["skipped"] = f"failed: {type(exc).__name__}: {exc}"


class _CappedBackend:
    """Wraps a server backend; ``cap`` (when set) lowers the request's num_predict, so a generation stays short."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.cap: int | None = None
        self.last_stats: Any = None  # the server's GenerationStats of the last generation (filled as it streams)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)

    def _options(self, options: dict) -> dict:
        if self.cap is None:
            return options
        limit = int(options.get("num_predict", -1))
        return dict(options, num_predict=self.cap if limit <= 0 else min(limit, self.cap))

    def stream(self, messages, options, stats):
        self.last_stats = stats
        return self.backend.stream(messages, self._options(options), stats)

    def stream_raw(self, prompt, options, stats):
        return self.backend.stream_raw(prompt, self._options(options), stats)

    def count_prompt_tokens(self, messages):
        return self.backend.count_prompt_tokens(messages)


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def measure_model_path(bench: Any, backend_cls: Any, gguf: Path) -> dict:
    from rag.answering import retrieve, sources_for
    from rag.compose.prompts import build_messages
    from rag.pipeline import Pipeline
    from rag.settings import Settings
    from tests.support import ollama_server
    from tests.support.ollama_server import serve

    server_defaults = dict(getattr(ollama_server, "_OLLAMA_DEFAULT_OPTIONS", {}))  # what the server merges first
    started = time.perf_counter()
    backend = backend_cls(gguf, prompt_cache=False)  # every prompt fully evaluated, on both sides
    load_s = time.perf_counter() - started
    capped = _CappedBackend(backend)
    capped.cap = QUICK_MAX_TOKENS if bench.quick else (getattr(bench.args, "model_max_tokens", 0) or None)
    repeats = 1 if bench.quick else max(1, bench.args.model_repeats)
    runs: list[dict] = []
    with serve(models={MODEL_NAME: capped}) as url:
        settings = Settings(data_dir=bench.seed_dir, ollama_host=url, ollama_temperature=0.0, backend="ollama")
        pipeline = Pipeline(settings, embedder=bench.embedder)
        # Warm-up: LlamaIndex's Ollama import, the server reloading the model with the requested num_ctx.
        saved, capped.cap = capped.cap, 4
        warm_started = time.perf_counter()
        pipeline.ask(bench.answerable[0], backend="ollama", model=MODEL_NAME)
        warm_s = time.perf_counter() - warm_started
        capped.cap = saved
        attempts = 0
        for question in bench.answerable:
            if len(runs) >= repeats or attempts >= 4 * repeats:
                break
            attempts += 1
            ask_1, first_1, answer, gen = _timed_ask(pipeline, capped, question)
            if gen is None or not gen.eval_count:  # abstained before asking the model: nothing to compare
                continue
            sent = url.server.requests[-1].body
            # The same prompt, rebuilt from the same sources the answer path used.
            snapshot = pipeline.snapshot
            retrieved = retrieve(question, snapshot, pipeline.retriever(), settings.top_k)
            ids = [*retrieved.plan.abstract_ids, *(r.abstract.id for r in retrieved.ranked)]
            sources = sources_for(snapshot, ids[: max(settings.top_k, len(retrieved.plan.abstract_ids))])
            messages = build_messages(question, sources)
            same_prompt = [m["content"] for m in messages] == [m.get("content") for m in sent["messages"]]
            options = {**server_defaults, **backend.info.default_options, **sent.get("options", {})}
            # The server also generated the end-of-turn token when it stopped by itself: the same work here.
            n_tokens = gen.eval_count + (1 if gen.done_reason == "stop" else 0)
            # ABBA order (ask, direct, direct, ask): a drift in machine speed during the four runs hits both sides
            # alike. These shared cores vary by tens of percent from minute to minute.
            direct_1 = _direct_generation(backend, messages, n_tokens, options)
            direct_2 = _direct_generation(backend, messages, n_tokens, options)
            ask_2, first_2, answer_2, gen_2 = _timed_ask(pipeline, capped, question)
            ask_s = (ask_1 + ask_2) / 2
            direct_s = (direct_1["seconds"] + direct_2["seconds"]) / 2
            generate_s = (answer.timings.generate_s + answer_2.timings.generate_s) / 2
            runs.append({
                "question": question,
                "answer_backend": answer.backend,
                "answer_abstained": answer.abstained,
                "prompt_tokens": gen.prompt_eval_count,
                "completion_tokens": gen.eval_count,
                "same_tokens_both_asks": gen_2 is not None and gen_2.eval_count == gen.eval_count,
                "done_reason": gen.done_reason,
                "prompt_identical_to_request": same_prompt,
                "ask_s": round(ask_s, 3),
                "ask_s_each": [round(ask_1, 3), round(ask_2, 3)],
                "ask_retrieve_s": round(answer.timings.retrieve_s, 3),
                "ask_generate_s": round(generate_s, 3),
                "ask_verify_s": round(answer.timings.verify_s, 3),
                "ttft_ask_s": round(_median([first_1, first_2]), 3) if None not in (first_1, first_2) else None,
                "ttft_composer_s": answer.timings.first_token_s,
                "direct_s": round(direct_s, 3),
                "direct_s_each": [round(direct_1["seconds"], 3), round(direct_2["seconds"], 3)],
                "ttft_direct_s": round(_median([direct_1["ttft_s"], direct_2["ttft_s"]]), 3),
                "direct_tokens": direct_1["tokens"],
                "ratio_total": round(ask_s / direct_s, 3),
                "ratio_generate": round(generate_s / direct_s, 3),
            })  # fmt: skip
    if not runs:
        return {"skipped": "no eval question led to a generation (all abstained)"}
    ask_total = sum(r["ask_s"] for r in runs)
    direct_total = sum(r["direct_s"] for r in runs)
    tokens = sum(r["completion_tokens"] for r in runs)
    return {
        "gguf": gguf.name,
        "gguf_load_s": round(load_s, 3),
        "warm_up_ask_s": round(warm_s, 3),
        "repeats": len(runs),
        "max_tokens_cap": capped.cap,
        "temperature": 0.0,
        "ratio_total": round(ask_total / direct_total, 3),
        "ratio_generate": round(sum(r["ask_generate_s"] for r in runs) / direct_total, 3),
        "ask_s_total": round(ask_total, 3),
        "direct_s_total": round(direct_total, 3),
        "completion_tokens_total": tokens,
        "direct_tokens_per_s": round(tokens / direct_total, 2),
        "ttft_ask_s": {"median": round(_median([r["ttft_ask_s"] or 0.0 for r in runs]), 3)},
        "ttft_composer_s": {"median": round(_median([r["ttft_composer_s"] or 0.0 for r in runs]), 3)},
        "ttft_direct_s": {"median": round(_median([r["ttft_direct_s"] for r in runs]), 3)},
        "runs": runs,
    }


def _timed_ask(pipeline: Any, capped: Any, question: str) -> tuple[float, float | None, Any, Any]:
    """One full ``pipeline.stream`` through the Ollama client: (seconds, time to first text, Answer, server stats)."""
    from rag.answer import Answer, TextDelta

    capped.last_stats = None
    t0 = time.perf_counter()
    first = None
    answer = None
    for event in pipeline.stream(question, backend="ollama", model=MODEL_NAME):
        if isinstance(event, TextDelta) and first is None and event.text.strip():
            first = time.perf_counter() - t0
        answer = event
    seconds = time.perf_counter() - t0
    assert isinstance(answer, Answer)
    return seconds, first, answer, capped.last_stats


def _direct_generation(backend: Any, messages: list[dict], n_tokens: int, options: dict) -> dict:
    """``n_tokens`` tokens for the same rendered prompt, with the same sampling options, straight from llama.cpp."""
    from tests.support.ollama_server import sampling_params

    with backend._lock:  # the server's own Llama object (same n_ctx, threads, batch); nobody else uses it now
        llm = backend._llm
        prompt = backend.render(messages)
        llm.reset()
        started = time.perf_counter()
        tokens = list(llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True))
        gen = llm.generate(tokens, **sampling_params(options, float(options.get("temperature", 0.0))), reset=True)
        ttft = None
        produced = 0
        pieces = []
        try:
            for produced, tok in enumerate(gen, 1):  # noqa: B007
                if ttft is None:
                    ttft = time.perf_counter() - started
                pieces.append(llm.detokenize([tok], special=False))
                if produced >= n_tokens:
                    break
        finally:
            gen.close()
        seconds = time.perf_counter() - started
    return {"seconds": seconds, "ttft_s": ttft or seconds, "tokens": produced}
