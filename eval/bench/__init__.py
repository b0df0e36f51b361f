"""`rag bench`: throughput, latency and memory of the real engine, each measurement next to its target.

One module per section, run in this order by ``runner.Bench``:

* ``encoder`` - loading the embedder, raw encoder throughput (new ONNX path vs the old one);
* ``ingest`` - ingest of the seeds into a fresh data folder;
* ``scale`` - synthetic corpora up to 100k chunks, each built in a fresh process;
* ``retrieval`` - serving each size in a fresh process: index load, search/list latency, RSS;
* ``answers`` - extractive answers; ``verify`` - checking one sentence against its abstract;
* ``model`` - the model path (Ollama protocol vs llama-cpp-python directly);
* ``ui_start`` - time from `rag ui` to ready.

Shared: ``measure`` (helpers, worker launch), ``targets`` (targets and Before figures), ``report`` (target rows,
markdown, plot) and ``runner`` (CLI arguments, the run, the worker entry). ``python -m eval.bench --quick`` runs it
without the CLI.
"""

from __future__ import annotations

from .measure import QUICK_QUERIES, stats_ms
from .model import QUICK_MAX_TOKENS
from .runner import Bench, _parse_sizes, add_arguments, main, run

__all__ = ["QUICK_MAX_TOKENS", "QUICK_QUERIES", "Bench", "_parse_sizes", "add_arguments", "main", "run", "stats_ms"]
