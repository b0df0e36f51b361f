"""Shared by every section of the bench: the checkout root, small measurement helpers (latency statistics,
RSS, load, CPU peak, timing the encoder) and the fresh-process worker launch."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
QUICK_QUERIES = 3
WORKER_TIMEOUT_S = 4 * 3600


def stats_ms(seconds: Sequence[float]) -> dict[str, float | int]:
    """p50/p95/mean/max in milliseconds (numpy's linear percentiles) and the sample count."""
    import numpy as np

    if not seconds:
        return {"n": 0}
    ms = np.asarray(seconds, dtype=float) * 1000.0
    return {
        "n": int(ms.size),
        "p50_ms": round(float(np.percentile(ms, 50)), 3),
        "p95_ms": round(float(np.percentile(ms, 95)), 3),
        "mean_ms": round(float(ms.mean()), 3),
        "max_ms": round(float(ms.max()), 3),
    }


def peak_rss_mb() -> float:
    """Peak resident set size of this process's address space so far.

    Linux: VmHWM from /proc/self/status. Not ``ru_maxrss``: the kernel carries the parent's high-water mark over
    fork+exec into it, so a fresh subprocess would report at least its parent's RSS.
    """
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return round(peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024, 1)


def current_rss_mb() -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def _load() -> list[float] | None:
    with contextlib.suppress(OSError, AttributeError):
        return [round(x, 2) for x in os.getloadavg()]
    return None


@contextlib.contextmanager
def timed_encode(embedder: Any, calls: list[tuple[str, int, float]], phase: Callable[[], str]) -> Iterator[None]:
    """Record (phase, texts, seconds) of every ``embedder.encode`` call while active (the instance is patched)."""
    original = type(embedder).encode

    def encode(texts, batch_size=None):
        started = time.perf_counter()
        try:
            return original(embedder, texts, batch_size)
        finally:
            calls.append((phase(), len(texts), time.perf_counter() - started))

    embedder.encode = encode  # the instance's attribute wins over the class's method
    try:
        yield
    finally:
        embedder.__dict__.pop("encode", None)


def cpu_peak() -> dict:
    """An estimate of the CPU's peak float32 rate: cores × clock × FLOPs per cycle from the SIMD flags.

    FLOPs per cycle assume two FMA units per core (true of Intel since Haswell and AMD since Zen 2; some AVX-512
    parts have one for 512-bit work): AVX-512 2 × 16 lanes × 2 = 64, AVX2+FMA 2 × 8 × 2 = 32, AVX 16, SSE 8. The
    clock is the highest "cpu MHz" /proc/cpuinfo reports (a VM often shows the base clock; turbo is not counted).
    """
    flags: set[str] = set()
    mhz: list[float] = []
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "flags":
                flags |= set(value.split())
            elif key == "cpu MHz":
                with contextlib.suppress(ValueError):
                    mhz.append(float(value))
            elif key == "model name":
                model = value.strip()
    if "avx512f" in flags:
        per_cycle, simd = 64, "AVX-512 FMA"
    elif {"avx2", "fma"} <= flags:
        per_cycle, simd = 32, "AVX2 + FMA"
    elif "avx" in flags:
        per_cycle, simd = 16, "AVX"
    else:
        per_cycle, simd = 8, "SSE"
    from rag.onnx_encoder import all_cores

    cores = all_cores()
    ghz = max(mhz) / 1000 if mhz else None
    per_core = ghz * per_cycle if ghz else None
    return {
        "cpu": model,
        "cores": cores,
        "ghz": None if ghz is None else round(ghz, 3),
        "simd": simd,
        "flops_per_cycle": per_cycle,
        "int8_dot_product": bool({"avx512_vnni", "avx_vnni", "amx_int8"} & flags),
        "gflops_per_core": None if per_core is None else round(per_core, 1),
        "gflops": None if per_core is None else round(per_core * cores, 1),
    }


def _subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _run_worker(kind: str, config: dict, work: Path) -> dict:
    """Run ``python -m eval.bench _worker KIND CONFIG`` in a fresh process; its stderr (progress) passes through."""
    config_path = work / f"{kind}-{config['label']}.json"
    result_path = work / f"{kind}-{config['label']}.result.json"
    config = dict(config, result=str(result_path))
    config_path.write_text(json.dumps(config))
    proc = subprocess.run(
        [sys.executable, "-m", "eval.bench", "_worker", kind, str(config_path)],
        cwd=ROOT,
        env=_subprocess_env(),
        stdout=subprocess.DEVNULL,
        timeout=WORKER_TIMEOUT_S,
    )
    if proc.returncode != 0 or not result_path.exists():
        raise RuntimeError(f"bench worker {kind} {config['label']} failed with exit code {proc.returncode}")
    return json.loads(result_path.read_text())
