"""The environment every entry point sets first: offline by design, no library banners or progress bars.

One copy for the command line, the benchmarks and the tests (which also pass :data:`QUIET_ENV` to the processes they
start).
"""

from __future__ import annotations

import os

QUIET_ENV: dict[str, str] = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TOKENIZERS_PARALLELISM": "false",
    "ANONYMIZED_TELEMETRY": "False",
    "GRADIO_ANALYTICS_ENABLED": "False",
}


def quiet_libraries() -> None:
    """Set :data:`QUIET_ENV` in this process, keeping any value the user set."""
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
