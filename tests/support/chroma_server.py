"""A real Chroma server (``chroma run``) on loopback, for tests and benchmarks.

Typical use::

    with ChromaServer(tmp_path / "chroma") as server:
        settings = Settings(chroma_host=server.host, chroma_port=server.port, chroma_database="t-1")

:meth:`ChromaServer.stop` and :meth:`ChromaServer.start` may be called again to take the server down and bring it
back on the same port and data folder (to test what a client sees while it is away).

Command line (manual runs)::

    python -m tests.support.chroma_server --path /tmp/chroma --port 8000
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HEARTBEAT_PATH = "/api/v2/heartbeat"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def chroma_command() -> list[str]:
    """The ``chroma`` CLI of the running interpreter's chromadb (never another installation's)."""
    sibling = Path(sys.executable).with_name("chroma")
    if sibling.exists():
        return [str(sibling)]
    # Same entry point as the `chroma` script; the Rust CLI parses sys.argv, so give it the program name.
    return [sys.executable, "-c", "import sys; from chromadb.cli.cli import app; sys.argv[0] = 'chroma'; app()"]


class ChromaServer:
    """One ``chroma run --path PATH --host HOST --port PORT`` process, ready once its heartbeat answers."""

    def __init__(
        self, path: Path, *, host: str = "127.0.0.1", port: int | None = None, start_timeout_s: float = 60.0
    ) -> None:
        self.path = Path(path)
        self.host = host
        self.port = port or free_port(host)
        self._fixed_port = port is not None
        self.start_timeout_s = start_timeout_s
        self.start_seconds: float | None = None  # time from spawn to the first heartbeat, last start
        self._proc: subprocess.Popen | None = None
        self._log = tempfile.TemporaryFile(mode="w+b")  # noqa: SIM115 - lives as long as the server; close()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def heartbeat(self, timeout_s: float = 1.0) -> bool:
        try:
            with urllib.request.urlopen(self.url + HEARTBEAT_PATH, timeout=timeout_s) as reply:
                return reply.status == 200
        except OSError:
            return False

    def start(self) -> float:
        """Start the server and wait for its heartbeat; returns the seconds that took."""
        if self.running:
            return 0.0
        attempts = 1 if self._fixed_port else 3  # a free port can be taken between probing and binding
        for attempt in range(attempts):
            if attempt:
                self.port = free_port(self.host)
            try:
                self.start_seconds = self._start_once()
                return self.start_seconds
            except RuntimeError:
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _start_once(self) -> float:
        self.path.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
        args = ["run", "--path", str(self.path), "--host", self.host, "--port", str(self.port)]
        started = time.perf_counter()
        self._proc = subprocess.Popen(
            [*chroma_command(), *args],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # a Ctrl-C aimed at the test run does not reach the server first
        )
        deadline = started + self.start_timeout_s
        while time.perf_counter() < deadline:
            if self._proc.poll() is not None:
                self._proc = None
                raise RuntimeError(f"`chroma run` exited before it was ready:\n{self.log_tail()}")
            if self.heartbeat(timeout_s=0.5):
                return time.perf_counter() - started
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"`chroma run` was not ready after {self.start_timeout_s:.0f} s:\n{self.log_tail()}")

    def stop(self, timeout_s: float = 15.0) -> None:
        """Stop the server (SIGINT, then SIGKILL after ``timeout_s``) and wait for the process to exit."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout_s)

    def log_tail(self, lines: int = 30) -> str:
        self._log.flush()
        self._log.seek(0)
        text = self._log.read().decode("utf-8", "replace")
        self._log.seek(0, os.SEEK_END)
        return "\n".join(text.splitlines()[-lines:])

    def close(self) -> None:
        self.stop()
        self._log.close()

    def __enter__(self) -> ChromaServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - manual use
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int)
    args = parser.parse_args(argv)
    with ChromaServer(args.path, host=args.host, port=args.port) as server:
        print(f"READY {server.url} ({server.start_seconds:.2f} s)", flush=True)
        try:
            while server.running:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
