"""`rag bench --quick`: runs the real measurements on a tiny scale and writes bench.json, bench.md and bench.png."""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import re
from numbers import Real

import pytest

from eval import bench


def _number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def _positive(section: dict, *keys: str) -> None:
    for key in keys:
        assert _number(section.get(key)), f"{key} is not a number: {section.get(key)!r}"
        assert section[key] > 0, f"{key} is not positive: {section[key]!r}"


def check_verdict(row: dict) -> None:
    """A target row's verdict is the comparison its target states, applied to its value; no target or no measurement
    (a skipped section), no verdict. Values are shown rounded: one within rounding of its limit is not re-judged."""
    value, target, verdict = row["value"], row["target"], row["pass"]
    skipped = isinstance(value, str) and value.startswith("skipped")
    assert (verdict is None) == (target == "—" or skipped), row
    if verdict is None:
        return
    assert isinstance(verdict, bool), row
    sign, limit = re.search(r"([≤≥])\s*(\d+(?:\.\d+)?)", target).groups()
    shown = re.findall(r"\d+(?:\.\d+)?", str(value))
    number = shown[0] if target.startswith("p50") else shown[-1]  # "p50 / p95" values
    decimals = len(number.partition(".")[2])  # as shown (or as stored, when rounded before the verdict was taken)
    if abs(float(number) - float(limit)) > 0.5 * 10**-decimals:
        assert verdict == (float(number) <= float(limit) if sign == "≤" else float(number) >= float(limit)), row


@pytest.mark.parametrize(
    "row, ok",
    [
        ({"value": "3.0 / 7.5", "target": "p95 ≤ 25 ms", "pass": True}, True),
        ({"value": "3.0 / 7.5", "target": "p95 ≤ 25 ms", "pass": False}, False),
        ({"value": "6.1 / 7.5", "target": "p50 ≤ 5 ms", "pass": False}, True),
        ({"value": 2.7, "target": "≥ 2.5×", "pass": True}, True),
        ({"value": 0.98, "target": "≥ 0.99", "pass": True}, False),
        ({"value": 4.2, "target": "—", "pass": None}, True),
        ({"value": 4.2, "target": "—", "pass": True}, False),
        ({"value": 4.2, "target": "≤ 5 s", "pass": None}, False),
        ({"value": "skipped: no llama_cpp", "target": "≤ 1.10×", "pass": None}, True),
        ({"value": "150", "target": "p95 ≤ 150 ms", "pass": False}, True),  # 150.3 shown as 150: not re-judged
        ({"value": 2.5, "target": "≥ 2.5×", "pass": False}, True),  # 2.496 stored as 2.5
        ({"value": 2.4, "target": "≥ 2.5×", "pass": True}, False),
    ],
)
def test_verdict_check_catches_a_wrong_verdict(row, ok):
    if ok:
        check_verdict(row)
    else:
        with pytest.raises(AssertionError):
            check_verdict(row)


def _latency(stats: dict, n: int) -> None:
    assert stats["n"] == n
    _positive(stats, "p50_ms", "p95_ms", "mean_ms", "max_ms")
    assert stats["p50_ms"] <= stats["p95_ms"] <= stats["max_ms"]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--sizes", "73", "--quick", "--out", str(out)])
    assert bench.run(args) == 0
    return out


@pytest.mark.slow
def test_writes_the_three_files(quick_run):
    for name in ("bench.json", "bench.md", "bench.png"):
        path = quick_run / name
        assert path.is_file() and path.stat().st_size > 0, name
    assert (quick_run / "bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_every_section_has_measured_numbers(quick_run):
    result = json.loads((quick_run / "bench.json").read_text())
    for section in ("meta", "model_load", "ingest", "retrieval", "extractive", "model_path", "ui_start", "targets"):
        assert section in result, section
    assert result["meta"]["quick"] is True

    _positive(result["model_load"], "load_s", "export_s")

    ingest = result["ingest"]
    _positive(ingest, "abstracts", "chunks", "sentences", "ingest_s", "abstracts_per_s", "chunks_per_s",
              "sentences_per_s", "encoded_texts", "encode_s", "raw_onnx_texts_per_s", "ratio_to_raw_onnx")  # fmt: skip
    # Consistent with each other, i.e. measured rather than written down.
    assert ingest["chunks_per_s"] == pytest.approx(ingest["chunks"] / ingest["ingest_s"], rel=0.01)
    assert ingest["sentences_per_s"] == pytest.approx(ingest["sentences"] / ingest["ingest_s"], rel=0.01)
    assert ingest["encode_s"] <= ingest["ingest_s"]
    assert ingest["encoded_texts"] >= ingest["sentences"]  # each sentence once, plus pieces of over-long ones
    assert ingest["order"] == ["new", "old"]  # --quick: one ingest per path
    _positive(ingest, "old_ingest_s", "old_sentences_per_s", "speedup")
    assert ingest["speedup"] == pytest.approx(ingest["old_ingest_s"] / ingest["ingest_s"], rel=0.01)
    assert ingest["cosine_min"] >= 0.99  # the same model, run by another runtime

    encoder = result["encoder"]
    _positive(encoder, "texts", "tokens", "gflop", "flop_per_token_m")
    assert 20 < encoder["flop_per_token_m"] < 30  # MiniLM-L6: ~21 MFLOP per token plus attention
    for name, run in encoder["runs"].items():
        _positive(run, "texts_per_s", "tokens_per_s", "gflops")
        assert run["gflops"] == pytest.approx(run["tokens_per_s"] * encoder["flop_per_token_m"] / 1000, rel=0.02)
        assert name.startswith(("onnx_", "int8_onnx_", "torch_"))  # int8_onnx: the question graph (#18)
    assert encoder["peak"]["cores"] >= 1

    [size] = result["retrieval"]  # --quick --sizes 73: the seed index only
    assert size["kind"] == "seeds" and size["size_requested"] == 73
    assert size["chunks"] == size["chroma_count"] == ingest["chunks"]
    for mode in ("dense", "bm25", "hybrid"):
        _latency(size["latency"][mode], bench.QUICK_QUERIES)
    _latency(size["query_encode"], bench.QUICK_QUERIES)
    _positive(size, "peak_rss_mb", "rss_after_model_mb", "snapshot_load_s")
    assert size["peak_rss_mb"] >= size["rss_after_model_mb"]

    _latency(result["extractive"], bench.QUICK_QUERIES)

    model = result["model_path"]
    if importlib.util.find_spec("llama_cpp") is None:
        assert "skipped" in model
    else:
        assert "skipped" not in model, model.get("skipped")
        _positive(model, "ratio_total", "ratio_generate", "ask_s_total", "direct_s_total", "completion_tokens_total")
        run = model["runs"][0]
        assert run["completion_tokens"] <= bench.QUICK_MAX_TOKENS
        assert run["direct_tokens"] == run["completion_tokens"] + (run["done_reason"] == "stop")
        assert run["prompt_identical_to_request"] is True
        assert run["same_tokens_both_asks"] is True  # ABBA: the second ask did the same work as the first
        assert len(run["ask_s_each"]) == len(run["direct_s_each"]) == 2
        assert run["direct_s"] == pytest.approx(sum(run["direct_s_each"]) / 2, abs=0.002)
        _positive(model["ttft_direct_s"], "median")

    ui = result["ui_start"]
    assert "skipped" not in ui, ui.get("skipped")
    _positive(ui, "seconds")
    assert ui["method"] == "rag ui"
    assert all(run["loaded_s"] >= run["seconds"] for run in ui["runs"])  # the page first, then the model and index
    _positive(ui["first_start"], "seconds")  # from a fresh data folder: graph written, seeds indexed

    rows = result["targets"]
    assert any(r["pass"] is not None for r in rows)
    for row in rows:
        check_verdict(row)


@pytest.mark.slow
def test_markdown_puts_targets_beside_values(quick_run):
    text = (quick_run / "bench.md").read_text()
    assert "| Measurement | Before | Value | Target | Met |" in text
    for target in ("≥ 2.5×", "≥ 0.99", "p50 ≤ 5 ms", "≤ 200 MiB", "≤ 12 s", "p95 ≤ 25 ms", "p95 ≤ 150 ms", "≤ 1.10×",
                   "≤ 5 s"):  # fmt: skip
        assert target in text, target
    assert "How synthetic corpora are made" in text


def test_stats_ms_percentiles():
    stats = bench.stats_ms([0.001 * i for i in range(1, 101)])
    assert stats["n"] == 100
    assert stats["p50_ms"] == pytest.approx(50.5)
    assert stats["p95_ms"] == pytest.approx(95.05)
    assert bench.stats_ms([]) == {"n": 0}


def test_sizes_are_parsed_sorted_and_unique():
    assert bench._parse_sizes("1000,73,1000") == [73, 1000]
    with pytest.raises(SystemExit):
        bench._parse_sizes("a,b")
