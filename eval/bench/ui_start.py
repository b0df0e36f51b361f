"""UI start: time from `rag ui` to ready, in a subprocess."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from .measure import ROOT, _subprocess_env
from .targets import TARGETS

UI_TIMEOUT_S = 180


class UiStartSection:
    """Bench step: UI start."""

    # -- UI start --------------------------------------------------------------------------------------------
    def measure_ui_start(self) -> None:
        section: dict[str, Any] = {"target_s": TARGETS["ui_start_s"]}
        self.result["ui_start"] = section
        if self.args.skip_ui:
            section["skipped"] = "--skip-ui"
            return
        repeats = 1 if self.quick else max(1, self.args.ui_repeats)
        method, runs = None, []
        try:
            for _ in range(repeats):
                method, run = time_ui_start(self.seed_dir)
                runs.append(run)
        except Exception as exc:  # noqa: BLE001 - report it; the other sections stand
            section["skipped"] = f"failed: {type(exc).__name__}: {str(exc)[:1500]}"
            return
        fresh = self.work / "first-start"
        try:
            _, first = time_ui_start(fresh, seeds=self.seeds)
            section["first_start"] = first
        except Exception as exc:  # noqa: BLE001 - report it; the other sections stand
            section["first_start_failed"] = f"{type(exc).__name__}: {str(exc)[:1500]}"
        finally:
            shutil.rmtree(fresh, ignore_errors=True)
        seconds = [r["seconds"] for r in runs]
        section.update(
            method=method,
            index=f"seeds ({self.seed_abstracts} abstracts, {self.seed_chunks} chunks), existing",
            seconds=round(min(seconds), 3),
            runs=runs,
        )
        loaded = [r["loaded_s"] for r in runs if "loaded_s" in r]
        if loaded:
            section["loaded_s"] = round(min(loaded), 3)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_UI_LAUNCH = """
import sys, time
t0 = time.perf_counter()
from rag.pipeline import Pipeline
from rag.settings import Settings
from ui.app import launch
print(f"MARK imported {time.perf_counter() - t0:.3f}", flush=True)
pipeline = Pipeline(Settings())
pipeline.warm_up()
print(f"MARK warm {time.perf_counter() - t0:.3f}", flush=True)
launch(pipeline, host="127.0.0.1", port=int(sys.argv[1]), ready_callback=lambda url: print("MARK ready", flush=True))
"""

_WARM_UP_ONLY = """
import time
t0 = time.perf_counter()
from rag.pipeline import Pipeline
from rag.settings import Settings
print(f"MARK imported {time.perf_counter() - t0:.3f}", flush=True)
Pipeline(Settings()).warm_up()
print(f"MARK warm {time.perf_counter() - t0:.3f}", flush=True)
"""


def ui_command(port: int) -> tuple[str, list[str], bool]:
    """(label, argv, serves_http): `rag ui` when the CLI has it, else ui.app.launch, else Pipeline.warm_up."""
    env = _subprocess_env()
    check = subprocess.run(
        [sys.executable, "-m", "rag.cli", "ui", "--help"], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    if check.returncode == 0:
        argv = [sys.executable, "-m", "rag.cli", "ui"]
        if "--port" in check.stdout:
            argv += ["--port", str(port)]
        return "rag ui", argv, True
    probe = subprocess.run(
        [sys.executable, "-c", "import importlib.util as u; raise SystemExit(u.find_spec('ui.app') is None)"],
        cwd=ROOT, env=env, capture_output=True, timeout=60,
    )  # fmt: skip
    if probe.returncode == 0:
        return "ui.app.launch after Pipeline.warm_up (`rag ui` not in the CLI yet)", [
            sys.executable, "-c", _UI_LAUNCH, str(port)], True  # fmt: skip
    return "Pipeline(Settings()).warm_up() only (no UI module yet)", [sys.executable, "-c", _WARM_UP_ONLY], False


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


UI_LOADED_LINE = "Model and index loaded"  # what `rag ui` prints once its background warm-up is done


def time_ui_start(data_dir: Path, seeds: Path | None = None) -> tuple[str, dict]:
    """Seconds from spawning the UI process to an HTTP 200 on its port (or to warm_up's end, without a UI), and
    (``loaded_s``) to `rag ui` saying the model and index are loaded, after which no question waits for them."""
    port = _free_port()
    label, argv, serves_http = ui_command(port)
    env = _subprocess_env()
    env.update(RAG_DATA_DIR=str(data_dir), RAG_UI_PORT=str(port), RAG_BACKEND="extractive",
               RAG_UI_HOST="127.0.0.1", GRADIO_ANALYTICS_ENABLED="False")  # fmt: skip
    if seeds is not None:  # a fresh data folder: `rag ui` indexes these first
        env["RAG_SEEDS"] = str(seeds)
    with tempfile.TemporaryFile(mode="w+") as log:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
        ready = loaded = None
        try:
            deadline = started + UI_TIMEOUT_S
            while time.perf_counter() < deadline:
                if serves_http and ready is None and _http_ok(f"http://127.0.0.1:{port}/"):
                    ready = time.perf_counter() - started
                if ready is not None:
                    # `rag ui` serves the page first and then loads the model and index, saying when it is done
                    # (a question asked before then waits); older entry points load first, so nothing to wait for.
                    log.seek(0)
                    output = log.read()
                    if UI_LOADED_LINE in output or "error:" in output:
                        loaded = time.perf_counter() - started if UI_LOADED_LINE in output else None
                        break
                    if label != "rag ui" or proc.poll() is not None:
                        break
                    time.sleep(0.05)
                    continue
                if proc.poll() is not None:
                    if not serves_http and proc.returncode == 0:
                        ready = time.perf_counter() - started
                    break
                time.sleep(0.05)
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        log.seek(0)
        output = log.read()
    if ready is None:
        raise RuntimeError(f"{label} did not become ready in {UI_TIMEOUT_S}s:\n{output[-2000:]}")
    if label == "rag ui" and loaded is None:
        raise RuntimeError(f"{label} served the page but did not load the model and index:\n{output[-2000:]}")
    marks = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "MARK":
            with contextlib.suppress(ValueError):
                marks[f"{parts[1]}_s"] = float(parts[2])
    if loaded is not None:
        marks["loaded_s"] = round(loaded, 3)
    return label, {"seconds": round(ready, 3), **marks}
