"""The bench's targets, and the figures before issue #18's second round (the report's Before column)."""

from __future__ import annotations

TARGETS = {
    "ingest_speedup": 2.5,  # ingest sentences/s over the old path's (sentence-transformers, 1 thread), at least
    "first_ui_start_s": 12.0,  # `rag ui` from a fresh data folder to the page, index built
    "query_encode_p50_ms": 5.0,
    "serving_rss_mib_seeds": 200.0,
    "list_p95_ms_100k": 150.0,
    "index_load_s_100k": 3.0,
    "serving_rss_mib_100k": 1024.0,
    "retrieval_p95_ms_seeds": 25.0,
    "retrieval_p95_ms_100k": 60.0,
    "extractive_p95_ms": 150.0,
    "verify_p95_ms": 20.0,  # checking one generated sentence against its abstract, no model
    "model_overhead_ratio": 1.10,  # at most
    "ui_start_s": 5.0,
}

# The targets' figures before issue #18's third round (the last `rag bench --sizes 73,100000 --skip-model` of the
# second round, same 2-core machine; the first `rag ui` was 11.7 s in another run), printed beside this run's in the
# table's Before column.
BEFORE = {
    "ingest_speedup": "2.24×",
    "first_ui_start_s": "14.4 s",
    "query_encode_p50_ms": "4.0 ms",
    "serving_rss_mib_seeds": "218 MiB",
    "list_p95_ms_100k": "45 ms",
    "index_load_s_100k": "3.8 s",
    "serving_rss_mib_100k": "1392 MiB",
}
