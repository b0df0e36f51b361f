"""The report: target rows, the markdown table and text, and the plot."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .scale import SYNTHETIC_METHOD
from .targets import BEFORE, TARGETS


class TargetRows:
    """The table's rows: each measurement next to its target."""

    # -- targets ---------------------------------------------------------------------------------------------
    def targets(self) -> list[dict]:
        r = self.result
        rows: list[dict] = []

        def row(name, value, target, ok, unit="", before=None):
            rows.append({"measurement": name, "value": value, "unit": unit, "target": target, "pass": ok,
                         "before": BEFORE.get(before, "—") if before else "—"})  # fmt: skip

        ing, enc, ml = r["ingest"], r["encoder"], r["model_load"]
        peak = enc["peak"]
        row("model load: ONNX graph written from the weights (fresh data folder) / opened from its cache",
            f"{ml['export_s']:.2f} / {ml['load_s']:.2f}", "—", None, "s")  # fmt: skip
        if ml.get("reference_load_s") is not None:
            row("old path's model load (torch + sentence-transformers), excluded below", ml["reference_load_s"], "—",
                None, "s")  # fmt: skip
        row(f"CPU peak estimate ({peak['cores']} cores × {peak['ghz']} GHz × {peak['flops_per_cycle']} FLOP/cycle, "
            f"{peak['simd']})", peak["gflops"], "—", None, "GFLOP/s")  # fmt: skip
        for name, run in enc["runs"].items():
            share = f", {run['share_of_peak']:.0%} of its cores' peak" if run["share_of_peak"] else ""
            row(f"raw encoder {name.replace('_', ' ')}: tokens/s, GFLOP/s{share} ({enc['texts']} texts, "
                f"{enc['flop_per_token_m']} MFLOP/token)", f"{run['tokens_per_s']:,.0f} tok/s, {run['gflops']} GFLOP/s",
                "—", None)  # fmt: skip
        row("ingest of the seeds: sentences/s, new (ONNX Runtime, all cores)", ing["sentences_per_s"], "—", None, "/s")
        if "old_sentences_per_s" in ing:
            row("ingest of the seeds: sentences/s, old (sentence-transformers, 1 thread), same run",
                ing["old_sentences_per_s"], "—", None, "/s")  # fmt: skip
            row("ingest speed-up, new ÷ old (same run, ABBA order)", ing["speedup"], "≥ 2.5×",
                ing["speedup"] >= TARGETS["ingest_speedup"], "×", "ingest_speedup")  # fmt: skip
            row("cosine, new vs old sentence vectors: min over every seed sentence", ing["cosine_min"], "≥ 0.99",
                ing["cosine_min"] >= 0.99)  # fmt: skip
        else:
            row("ingest speed-up, new ÷ old", f"skipped: {r['model_load'].get('reference_missing', 'no old path')}",
                "≥ 2.5×", None)  # fmt: skip
        row(f"ingest ÷ best raw encoder ({ing['best_onnx']}, same texts)", ing["ratio_to_raw_onnx"], "—", None,
            "×")  # fmt: skip
        largest = max(r["retrieval"], key=lambda s: s["chunks"])
        for s in r["retrieval"]:
            target = None
            if s["kind"] == "seeds":
                target = TARGETS["retrieval_p95_ms_seeds"]
            elif s is largest and s["chunks"] >= 100_000:
                target = TARGETS["retrieval_p95_ms_100k"]
            for mode in ("dense", "bm25", "hybrid"):
                m = s["latency"][mode]
                row(f"retrieval p50 / p95, {mode}, {s['chunks']:,} chunks", f"{m['p50_ms']:.1f} / {m['p95_ms']:.1f}",
                    f"p95 ≤ {target:g} ms" if target else "—",
                    (m["p95_ms"] <= target) if target else None, "ms")  # fmt: skip
        for s in r["retrieval"]:
            g, enc = s["latency_given_vector"]["hybrid"], s["query_encode"]
            row(f"retrieval p50 / p95, hybrid with the question vector given, {s['chunks']:,} chunks",
                f"{g['p50_ms']:.1f} / {g['p95_ms']:.1f}", "—", None, "ms")  # fmt: skip
            row(f"query encoding p50 / p95 (MiniLM, 1 question, 1 thread), {s['chunks']:,}-chunk run",
                f"{enc['p50_ms']:.1f} / {enc['p95_ms']:.1f}", "p50 ≤ 5 ms",
                enc["p50_ms"] <= TARGETS["query_encode_p50_ms"], "ms", "query_encode_p50_ms")  # fmt: skip
        big = largest if largest["chunks"] >= 100_000 else None
        for s in r["retrieval"]:
            load_s = s["snapshot_load_s"] + s["store_open_s"]
            target = "≤ 3 s" if s is big else "—"
            row(f"index load (manifest, vectors, BM25, store), {s['chunks']:,} chunks", round(load_s, 3), target,
                load_s <= TARGETS["index_load_s_100k"] if s is big else None, "s",
                "index_load_s_100k" if s is big else None)  # fmt: skip
        for s in r["retrieval"]:
            limit = TARGETS["serving_rss_mib_seeds"] if s["kind"] == "seeds" else None
            limit = TARGETS["serving_rss_mib_100k"] if s is big else limit
            before = "serving_rss_mib_seeds" if s["kind"] == "seeds" else ("serving_rss_mib_100k" if s is big else None)
            row(f"peak RSS, serving {s['chunks']:,} chunks", s["peak_rss_mb"], f"≤ {limit:g} MiB" if limit else "—",
                s["peak_rss_mb"] <= limit if limit else None, "MiB", before)  # fmt: skip
            if s["kind"] == "synthetic":
                row(f"peak RSS, building {s['chunks']:,} chunks", s["build"]["peak_rss_mb"], "—", None, "MiB")
        for s in r["retrieval"]:
            e = s.get("extractive") or {}
            if e.get("n") and s["kind"] == "synthetic":
                row(f"extractive answer p50 / p95, {s['chunks']:,} chunks", f"{e['p50_ms']:.0f} / {e['p95_ms']:.0f}",
                    "—", None, "ms")  # fmt: skip
            lst = s.get("extractive_list") or {}
            if lst.get("n"):
                target = "p95 ≤ 150 ms" if s is big else "—"
                row(f"list questions p50 / p95 ({lst['n']}), {s['chunks']:,} chunks",
                    f"{lst['p50_ms']:.0f} / {lst['p95_ms']:.0f}", target,
                    lst["p95_ms"] <= TARGETS["list_p95_ms_100k"] if s is big else None, "ms",
                    "list_p95_ms_100k" if s is big else None)  # fmt: skip
        ex = r["extractive"]
        row("extractive answer p50 / p95 (seed index, warm)", f"{ex['p50_ms']:.0f} / {ex['p95_ms']:.0f}",
            "p95 ≤ 150 ms", ex["p95_ms"] <= TARGETS["extractive_p95_ms"], "ms")  # fmt: skip
        vf = r.get("verify")
        if vf and "skipped" in vf:
            row("checking one sentence against its abstract", f"skipped: {vf['skipped']}", "p95 ≤ 20 ms", None)
        elif vf:
            row(f"checking one sentence against its abstract, p50 / p95 (MiniLM encoding + checks, no model; "
                f"{vf['claims']} claims; checks alone p95 {vf['checks_alone_p95_ms']} ms)",
                f"{vf['p50_ms']:.1f} / {vf['p95_ms']:.1f}", "p95 ≤ 20 ms", vf["p95_ms"] <= TARGETS["verify_p95_ms"],
                "ms")  # fmt: skip
        mp = r["model_path"]
        if "skipped" in mp:
            row("model path: ask ÷ direct llama.cpp", f"skipped: {mp['skipped']}", "≤ 1.10×", None)
        else:
            row("model path: full ask ÷ direct llama.cpp (same prompt, same tokens)", mp["ratio_total"], "≤ 1.10×",
                mp["ratio_total"] <= TARGETS["model_overhead_ratio"], "×")  # fmt: skip
            row("model path: generation only (HTTP+LlamaIndex+server) ÷ direct", mp["ratio_generate"], "—", None, "×")
            row("time to first token: ask (from question) / direct", f"{mp['ttft_ask_s']['median']:.2f} / "
                f"{mp['ttft_direct_s']['median']:.2f}", "—", None, "s")  # fmt: skip
        ui = r["ui_start"]
        if "skipped" in ui:
            row("UI start to ready", f"skipped: {ui['skipped']}", "≤ 5 s", None)
        else:
            row(f"UI start to ready ({ui['method']}: page served)", ui["seconds"], "≤ 5 s",
                ui["seconds"] <= TARGETS["ui_start_s"], "s")  # fmt: skip
            if "loaded_s" in ui:
                row("UI start to model and index loaded (a question asked earlier waits until then)", ui["loaded_s"],
                    "—", None, "s")  # fmt: skip
            first = ui.get("first_start")
            if first:
                row("first `rag ui` from a fresh data folder: page served, index built (ONNX export + ingest)",
                    first["seconds"], "≤ 12 s", first["seconds"] <= TARGETS["first_ui_start_s"], "s",
                    "first_ui_start_s")  # fmt: skip
        return rows


def _fmt(value: Any, unit: str) -> str:
    if isinstance(value, float):
        text = f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    else:
        text = f"{value:,}" if isinstance(value, int) else str(value)
    return f"{text} {unit}".strip() if unit and not str(value).startswith("skipped") else text


def markdown_table(rows: list[dict]) -> str:
    lines = ["| Measurement | Before | Value | Target | Met |", "|---|---:|---:|---|:---:|"]
    for r in rows:
        met = "—" if r["pass"] is None else ("yes" if r["pass"] else "**no**")
        lines.append(f"| {r['measurement']} | {r.get('before', '—')} | {_fmt(r['value'], r['unit'])} | {r['target']} "
                     f"| {met} |")  # fmt: skip
    return "\n".join(lines)


def _encoder_and_ingest_text(result: dict) -> tuple[str, str]:
    enc, ing, ml = result["encoder"], result["ingest"], result["model_load"]
    peak = enc["peak"]
    lines = [
        f"The texts ingest encodes for the seeds ({enc['texts']} texts, {enc['tokens']:,} tokens with [CLS]/[SEP], "
        f"{enc['gflop']} GFLOP of useful work: {enc['flop_per_token_m']} MFLOP per token, counted as 2 × the "
        "weights of the six matmuls per layer per token plus the two attention products, padding not counted), "
        f"batch {enc['batch_size']}, best of the runs per encoder (interleaved). CPU: {peak['cpu'] or 'unknown'}; "
        f"peak estimate {peak['gflops']} GFLOP/s = {peak['cores']} cores × {peak['ghz']} GHz × "
        f"{peak['flops_per_cycle']} FLOP/cycle ({peak['simd']}, two FMA units assumed; the clock is what "
        "/proc/cpuinfo reports, turbo not counted). int8 dot-product instructions (VNNI/AMX): "
        f"{'yes' if peak['int8_dot_product'] else 'no'}.",
        "",
        "| Encoder | Threads | Runs s | Texts/s | Tokens/s | GFLOP/s | Share of those cores' peak |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for name, run in enc["runs"].items():
        share = f"{run['share_of_peak']:.0%}" if run["share_of_peak"] else "—"
        lines.append(f"| {name} | {run['threads']} | {run['seconds']} | {run['texts_per_s']} | "
                     f"{run['tokens_per_s']:,.0f} | {run['gflops']} | {share} |")  # fmt: skip
    lines += [
        "",
        f"Model load: the ONNX graph written from the packaged weights into a fresh cache folder {ml['export_s']:.2f} s "
        f"(once per data folder), opened from the cache {ml['load_s']:.2f} s; torch + sentence-transformers (the old "
        "path) "
        f"{ml['reference_load_s'] if ml.get('reference_load_s') is not None else '—'} s.",
    ]
    ingest = [
        f"`Pipeline(Settings(data_dir=<fresh tmp>), embedder=<loaded>).ingest(...)` of {', '.join(ing['seed_files'])}: "
        f"{ing['abstracts']} abstracts, {ing['chunks']} chunks, {ing['sentences']} sentences ({ing['encoded_texts']} "
        f"texts encoded: each sentence once, plus pieces of any sentence too long for the encoder). Order of the "
        f"fresh ingests: {', '.join(ing['order'])} (old = {ing.get('old_path', 'not run')}).",
        "",
        f"- New (ONNX Runtime, {ing['ingest_threads']} threads): {ing['ingest_runs_s']} s, mean {ing['ingest_s']:.2f} s "
        f"→ {ing['sentences_per_s']} sentences/s ({ing['chunks_per_s']} chunks/s); encoding {ing['encode_s']:.2f} s, "
        f"everything else (parse, chunking with token counts, TextNodes + Chroma add, BM25, manifest) "
        f"{ing['other_s']:.2f} s.",
    ]
    if "old_ingest_s" in ing:
        ingest += [
            f"- Old: {ing['old_ingest_runs_s']} s, mean {ing['old_ingest_s']:.2f} s → {ing['old_sentences_per_s']} "
            f"sentences/s (encoding {ing['old_encode_s']:.2f} s).",
            f"- Speed-up new ÷ old: **{ing['speedup']}×** (target ≥ {ing['target_speedup']}×). Cosine between the "
            f"new and old sentence vectors, every seed sentence: min {ing['cosine_min']}, mean {ing['cosine_mean']}.",
        ]
    ingest.append(
        f"- Ingest ÷ best raw encoder ({ing['best_onnx']}, same texts, {ing['raw_onnx_texts_per_s']} texts/s): "
        f"{ing['ratio_to_raw_onnx']}× (what ingest keeps of the encoder's speed)."
    )
    return "\n".join(lines), "\n".join(ingest)


def render_markdown(result: dict, table: str) -> str:
    meta, ex = result["meta"], result["extractive"]
    mp, ui = result["model_path"], result["ui_start"]
    size_rows = ["| Chunks | Abstracts | Sentences | Build s | Index load s | RSS after model / index / peak MiB | "
                 "dense p50/p95 | BM25 p50/p95 | hybrid p50/p95 | hybrid, vector given p50/p95 | "
                 "query encode p50/p95 | extractive p50/p95 |",
                 "|---:|---:|---:|---:|---:|---|---|---|---|---|---|---|"]  # fmt: skip
    for s in result["retrieval"]:
        lat, e = s["latency"], s["extractive"]
        size_rows.append(
            f"| {s['chunks']:,} ({s['kind']}) | {s['abstracts']:,} | {s['sentences']:,} | {s['build']['seconds']:.1f} | "
            f"{s['snapshot_load_s'] + s['store_open_s']:.2f} | {s['rss_after_model_mb']} / {s['rss_after_index_mb']} / "
            f"{s['peak_rss_mb']} | "
            + " | ".join(f"{lat[m]['p50_ms']:.1f} / {lat[m]['p95_ms']:.1f}" for m in ("dense", "bm25", "hybrid"))
            + f" | {s['latency_given_vector']['hybrid']['p50_ms']:.1f} / "
            + f"{s['latency_given_vector']['hybrid']['p95_ms']:.1f}"
            + f" | {s['query_encode']['p50_ms']:.1f} / {s['query_encode']['p95_ms']:.1f} | "
            + (f"{e['p50_ms']:.0f} / {e['p95_ms']:.0f}" if e.get("n") else "—")
            + " |"
        )
    builds = [s for s in result["retrieval"] if s["kind"] == "synthetic"]
    build_lines = [
        f"- {s['chunks']:,} chunks: {b['seconds']:.1f} s (synthesize+chunk {b['synthesize_and_chunk_s']:.1f}, compose "
        f"vectors {b['compose_vectors_s']:.1f}, to_nodes {b['to_nodes_s']:.1f}, Chroma add {b['chroma_add_s']:.1f}, "
        f"manifest {b['manifest_write_s']:.1f}); peak RSS {b['peak_rss_mb']} MiB; {b['disk_mb']} MiB on disk"
        for s in builds
        for b in [s["build"]]
    ]
    if "skipped" in mp:
        model_text = f"Skipped: {mp['skipped']}."
    else:
        cap = mp["max_tokens_cap"]
        cap_text = f", generation capped at {cap} tokens by the server (--model-max-tokens)" if cap else ""
        model_text = (
            f"{mp['repeats']} question(s) answered by `{mp['gguf']}` (llama-cpp-python, temperature 0, prompt cache "
            f"off on both sides{cap_text}), each timed in ABBA order (ask, direct, direct, ask; the means of each "
            f"pair below), so a change in machine speed during the runs hits both sides alike. Per-question ratios: "
            f"{', '.join(str(r['ratio_total']) for r in mp['runs'])}. "
            f"Full `pipeline.stream(q, backend='ollama')` (retrieve, build prompt, LlamaIndex Ollama client, HTTP, "
            f"the Ollama-protocol server, verification) took {mp['ask_s_total']:.2f} s in total; the same rendered "
            f"prompt and the same number of tokens ({mp['completion_tokens_total']}) straight from the server's own "
            f"`llama_cpp.Llama` took {mp['direct_s_total']:.2f} s ({mp['direct_tokens_per_s']} tok/s incl. prompt). "
            f"Ratio {mp['ratio_total']}× (generation part only: {mp['ratio_generate']}×). Time to first token: "
            f"{mp['ttft_ask_s']['median']:.2f} s from the question, {mp['ttft_composer_s']['median']:.2f} s from the "
            f"request, {mp['ttft_direct_s']['median']:.2f} s direct (medians). GGUF load {mp['gguf_load_s']:.1f} s, "
            f"warm-up ask {mp['warm_up_ask_s']:.1f} s (excluded). Prompt identical to the request sent: "
            f"{all(r['prompt_identical_to_request'] for r in mp['runs'])}."
        )
    ui_text = (
        f"Skipped: {ui['skipped']}."
        if "skipped" in ui
        else f"Method: {ui['method']}. Best of {len(ui['runs'])}: {ui['seconds']:.2f} s. Runs: "
        + "; ".join(", ".join(f"{k} {v}" for k, v in r.items()) for r in ui["runs"])
        + ". Measured from spawning the process to the first HTTP 200 on its port, against the seed index "
        "(RAG_DATA_DIR), RAG_BACKEND=extractive."
        + (
            f" `rag ui` serves the page first and then loads the model and index in the background (a question "
            f"asked before then waits for them): loaded after {ui['loaded_s']:.2f} s (best run; `loaded_s` per run)."
            if "loaded_s" in ui
            else ""
        )
        + (
            f" First start from a fresh data folder (no ONNX file, no index: `rag ui` writes the graph, indexes "
            f"the seeds, then serves): page served after {ui['first_start']['seconds']:.2f} s"
            + (f", loaded after {ui['first_start']['loaded_s']:.2f} s." if "loaded_s" in ui["first_start"] else ".")
            if "first_start" in ui
            else f" First start from a fresh data folder failed: {ui.get('first_start_failed', 'not run')}."
        )
    )
    encoder_text, ingest_text = _encoder_and_ingest_text(result)
    return f"""# rag bench — {meta["started_at"]}

Commit {meta["git_commit"]}, Python {meta["python"]}, {meta["cpu_count"]} CPUs, {meta["platform"]}.
Load average at start {meta["load_average_start"]}, at end {meta["load_average_end"]} (the cores are shared: compare
ratios within one run, not absolute numbers across runs). Total {meta["total_s"]} s.{" **Quick run** (CI smoke test: not representative)." if meta["quick"] else ""}

## Results

{table}

## Retrieval and memory by corpus size

Each size is served in a fresh process (`Pipeline.search(q, mode=...)`, unchanged: it encodes the question, queries
Chroma and/or BM25, fuses). "Vector given" is the same hybrid search with the question vector computed beforehand
(`HybridRetriever.search(q, k, query_vector=v)`): the index's share alone, without MiniLM's query encoding, whose
latency under CPU contention varies much more than the index's. Latency over {result["retrieval"][0]["latency"]["hybrid"]["n"]} eval questions per mode,
after one warm-up query per mode; modes interleaved per question. Peak RSS is that process's VmHWM at its end
(it includes MiniLM on ONNX Runtime, and the extractive answers run after the searches).

{chr(10).join(size_rows)}

Build of synthetic sizes (a separate fresh process each):
{chr(10).join(build_lines) if build_lines else "- none"}

**How synthetic corpora are made.** {SYNTHETIC_METHOD}

## Encoder

{encoder_text}

## Ingest

{ingest_text}

## Extractive answers

`pipeline.ask(q, backend="extractive")` over {ex["n"]} eval questions on the seed index, warm, in the main process:
p50 {ex["p50_ms"]:.0f} ms, p95 {ex["p95_ms"]:.0f} ms (retrieve stage p50 {ex["retrieve_stage"]["p50_ms"]:.0f} ms);
{ex["abstained"]} abstained. The per-size table above also has extractive answers at each size.

## Model path

{model_text}

## UI start

{ui_text}
"""


def _size_axis(ax: Any, ylabel: str, title: str, legend_size: int) -> None:
    """A panel over corpus size: log x axis, labels, legend and grid."""
    ax.set_xscale("log")
    ax.set_xlabel("corpus size (chunks)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=legend_size)
    ax.grid(True, which="both", alpha=0.3)


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(result["retrieval"], key=lambda s: s["chunks"])
    x = [s["chunks"] for s in sizes]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for mode, color in (("dense", "tab:blue"), ("bm25", "tab:orange"), ("hybrid", "tab:green")):
        ax1.plot(x, [s["latency"][mode]["p95_ms"] for s in sizes], "o-", color=color, label=f"{mode} p95")
        ax1.plot(x, [s["latency"][mode]["p50_ms"] for s in sizes], "o--", color=color, alpha=0.5,
                 label=f"{mode} p50")  # fmt: skip
    ax1.plot(x, [s["latency_given_vector"]["hybrid"]["p95_ms"] for s in sizes], "x-", color="black",
             label="hybrid p95, vector given")  # fmt: skip
    ax1.axhline(TARGETS["retrieval_p95_ms_seeds"], color="grey", ls=":", lw=1, label="p95 target, seeds (25 ms)")
    ax1.axhline(TARGETS["retrieval_p95_ms_100k"], color="red", ls=":", lw=1, label="p95 target, 100k (60 ms)")
    _size_axis(ax1, "search latency (ms)", "Retrieval latency (Pipeline.search)", legend_size=7)
    ax2.plot(x, [s["peak_rss_mb"] for s in sizes], "o-", label="serve: peak RSS")
    ax2.plot(x, [s["rss_after_model_mb"] or math.nan for s in sizes], "s--", alpha=0.6, label="serve: after model load")
    synth = [s for s in sizes if s["kind"] == "synthetic"]
    if synth:
        ax2.plot(
            [s["chunks"] for s in synth], [s["build"]["peak_rss_mb"] for s in synth], "^-", label="build: peak RSS"
        )
    _size_axis(ax2, "MiB", "Peak memory (fresh process per size)", legend_size=8)
    fig.suptitle(f"rag bench {result['meta']['started_at']}" + (" (quick)" if result["meta"]["quick"] else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
