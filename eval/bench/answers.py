"""Extractive answers on the seed index, in this process, warm."""

from __future__ import annotations

import time

from .measure import QUICK_QUERIES, stats_ms
from .targets import TARGETS


class AnswersSection:
    """Bench step: extractive answers."""

    # -- extractive answer (seed index, this process, warm) -------------------------------------------------
    def measure_extractive(self) -> None:
        questions = self.questions[:QUICK_QUERIES] if self.quick else self.questions
        pipeline = self.pipeline
        pipeline.ask(questions[0], backend="extractive")  # warm: snapshot, BM25, first encode
        times, retrieve, abstained = [], [], 0
        for q in questions:
            started = time.perf_counter()
            answer = pipeline.ask(q, backend="extractive")
            times.append(time.perf_counter() - started)
            retrieve.append(answer.timings.retrieve_s)
            abstained += answer.abstained
        self.result["extractive"] = {
            "index": f"seeds ({self.seed_abstracts} abstracts, {self.seed_chunks} chunks)",
            **stats_ms(times),
            "retrieve_stage": stats_ms(retrieve),
            "abstained": abstained,
            "target_p95_ms": TARGETS["extractive_p95_ms"],
        }
