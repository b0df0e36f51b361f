"""eval.memory_steps: resident memory figures read from /proc (Linux)."""

from __future__ import annotations

import sys

import pytest

from eval.memory_steps import mappings_mb, memory_mb

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")


def test_memory_figures_are_consistent():
    now = memory_mb()
    assert set(now) == {"VmRSS", "VmHWM", "RssAnon", "RssFile"}
    assert now["VmHWM"] >= now["VmRSS"] > 0
    assert abs(now["RssAnon"] + now["RssFile"] - now["VmRSS"]) < 1.0  # RssShmem is ~0 here


def test_mappings_are_largest_first_and_sum_to_at_most_the_resident_total():
    rows = mappings_mb(top=1000)
    assert rows and all(a[1] >= b[1] for a, b in zip(rows, rows[1:], strict=False))
    assert sum(r[1] for r in rows) <= memory_mb()["VmRSS"] + 1.0
    assert all(0 <= anon <= resident + 1e-6 for _, resident, anon in rows)
