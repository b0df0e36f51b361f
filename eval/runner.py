"""`rag eval`: run the question set through the same pipeline as the UI and compute the metrics."""

from __future__ import annotations

import datetime as dt
import math
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.cite import markers_in
from rag.errors import RagError

from . import metrics
from .questions import Question, file_sha256, resolve_gold

RETRIEVAL_MODES = ("hybrid", "bm25", "dense")
K_RANK = 10

Progress = Callable[[int, int], None]


@dataclass(slots=True)
class QuestionResult:
    id: str
    type: str
    question: str
    gold: list[str]
    retrieved: dict[str, list[str]]  # mode -> abstract IDs in rank order
    retrieval: dict[str, dict[str, float]]  # mode -> metric -> value
    split: str = ""
    shape: str = ""
    history: list[str] = field(default_factory=list)
    search_query: str | None = None  # what retrieval was measured on (a follow-up's standalone question)
    abstention_score: float | None = None  # the engine's one abstention score, when it reports one
    answer: str | None = None
    cited: list[str] = field(default_factory=list)
    abstained: bool | None = None
    backend: str | None = None
    metrics: dict[str, float | None] = field(default_factory=dict)
    timings: dict[str, float | None] = field(default_factory=dict)
    error: str | None = None
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "type": self.type,
            "split": self.split,
            "shape": self.shape,
            "question": self.question,
            "history": self.history,
            "search_query": self.search_query,
            "gold": self.gold,
            "retrieved": self.retrieved["hybrid"]
            if "hybrid" in self.retrieved
            else next(iter(self.retrieved.values())),
            "retrieved_by_mode": self.retrieved,
            "retrieval": self.retrieval,
            "answer": self.answer,
            "cited": self.cited,
            "abstained": self.abstained,
            "abstention_score": self.abstention_score,
            "backend": self.backend,
            "metrics": self.metrics,
            "timings": self.timings,
            "error": self.error,
            "notices": self.notices,
        }


def retrieval_metrics(ranked: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    return {
        "hit@1": metrics.hit_at_k(ranked, gold, 1),
        "recall@5": metrics.recall_at_k(ranked, gold, 5),
        "mrr@10": metrics.mrr_at_k(ranked, gold, K_RANK),
        "ndcg@10": metrics.ndcg_at_k(ranked, gold, K_RANK),
    }


def answer_metrics(q: Question, gold: Sequence[str], answer) -> dict[str, float | None]:
    markers = markers_in(answer.text)
    invalid = sum(1 for n in markers if not 1 <= n <= len(answer.sources))
    values: dict[str, float | None] = {
        "verified_share": answer.verified_share if answer.sentences else None,
        "invalid_citation_rate": invalid / len(markers) if markers else 0.0,
        "abstained": float(answer.abstained),
    }
    if q.answerable:
        precision, recall, f1 = metrics.citation_prf(answer.cited_ids, gold)
        values.update(
            {
                "citation_precision": precision if answer.cited_ids else None,
                "citation_recall": recall,
                "citation_f1": f1,
                "key_fact_coverage": metrics.key_fact_coverage(q.key_facts, answer.text),
                "all_gold_cited": float(set(gold) <= set(answer.cited_ids)),
                "false_abstention": float(answer.abstained),
            }
        )
    else:
        values["abstention_accuracy"] = float(answer.abstained)
    return values


def history_messages(question: str, answer) -> list[dict]:
    """One turn as the UI keeps it: the question, the answer text and its numbered sources (for "the second one")."""
    return [
        {"role": "user", "content": question},
        {
            "role": "assistant",
            "content": answer.text,
            "sources": [{"number": s.number, "id": s.abstract.id, "label": s.abstract.label} for s in answer.sources],
        },
    ]


def _conversation(pipeline, q: Question, backend: str | None, model: str | None) -> list[dict]:
    """Ask a follow-up's earlier turns in order, so the question meets the history a person would have."""
    history: list[dict] = []
    for turn in q.history:
        history += history_messages(turn, pipeline.ask(turn, history, backend=backend, model=model))
    return history


def evaluate(
    pipeline,
    questions: Sequence[Question],
    *,
    backend: str | None = None,
    model: str | None = None,
    retrieval_only: bool = False,
    progress: Progress | None = None,
) -> list[QuestionResult]:
    abstracts = pipeline.abstracts()
    golds = [resolve_gold(q, abstracts) for q in questions]  # a bad reference fails before any work
    results: list[QuestionResult] = []
    for i, (q, gold) in enumerate(zip(questions, golds, strict=True)):
        result = QuestionResult(q.id, q.type, q.question, gold, {}, {}, q.split, q.shape, list(q.history))
        # Without an answer, a follow-up is searched with its conversation; with one, with the standalone question
        # the engine made of it (what its retrieval actually saw).
        search_query = " ".join([*q.history, q.question])
        if not retrieval_only:
            started = time.perf_counter()
            try:
                history = _conversation(pipeline, q, backend, model)
                started = time.perf_counter()
                answer = pipeline.ask(q.question, history, backend=backend, model=model)
            except RagError as exc:
                result.error = exc.user_message()
            else:
                result.answer = answer.text
                result.cited = answer.cited_ids
                result.abstained = answer.abstained
                result.abstention_score = getattr(answer, "abstention_score", None)
                result.backend = answer.backend
                result.notices = answer.notices
                result.metrics = answer_metrics(q, gold, answer)
                result.timings.update(
                    answer_s=time.perf_counter() - started,
                    retrieve_s=answer.timings.retrieve_s,
                    generate_s=answer.timings.generate_s,
                    verify_s=answer.timings.verify_s,
                )
                if q.history:
                    search_query = answer.standalone_question or q.question
        if not q.history:
            search_query = q.question
        result.search_query = search_query
        for mode in RETRIEVAL_MODES:
            started = time.perf_counter()
            ids = [r.abstract.id for r in pipeline.search(search_query, k=K_RANK, mode=mode)]
            result.timings[f"search_{mode}_s"] = time.perf_counter() - started
            result.retrieved[mode] = ids
            if q.answerable:
                result.retrieval[mode] = retrieval_metrics(ids, gold)
        results.append(result)
        if progress:
            progress(i + 1, len(questions))
    return results


# --- summary ---


def _mean_of(rows: Sequence[QuestionResult], getter) -> tuple[float | None, int]:
    values = [v for v in (getter(r) for r in rows) if v is not None]
    return (metrics.mean(values) if values else None), len(values)


ANSWER_METRICS = (
    "citation_precision",
    "citation_recall",
    "citation_f1",
    "verified_share",
    "invalid_citation_rate",
    "key_fact_coverage",
    "all_gold_cited",
    "abstention_accuracy",
    "false_abstention",
)


def summarize_group(rows: Sequence[QuestionResult]) -> dict:
    summary: dict = {"n": len(rows), "retrieval": {}, "answer": {}, "latency": {}}
    answerable = [r for r in rows if r.retrieval]
    for mode in RETRIEVAL_MODES:
        if any(mode in r.retrieval for r in answerable):
            summary["retrieval"][mode] = {
                name: _mean_of(answerable, lambda r, m=mode, n=name: r.retrieval.get(m, {}).get(n))[0]
                for name in ("hit@1", "recall@5", "mrr@10", "ndcg@10")
            } | {"n": len(answerable)}
    for name in ANSWER_METRICS:
        value, n = _mean_of(rows, lambda r, key=name: r.metrics.get(key))
        if n:
            summary["answer"][name] = {"value": value, "n": n}
    for name in ("answer_s", "search_hybrid_s"):
        values = [r.timings[name] for r in rows if r.timings.get(name) is not None]
        if values:
            summary["latency"][name] = {
                "p50": metrics.percentile(values, 50),
                "p95": metrics.percentile(values, 95),
                "n": len(values),
            }
    summary["errors"] = sum(r.error is not None for r in rows)
    return summary


def abstention_curve(results: Sequence[QuestionResult]) -> list[dict]:
    """The abstain / false-abstain trade-off as the abstention threshold moves over the engine's scores.

    Each point: abstain when score >= threshold; ``abstention`` is the share of unanswerable questions refused,
    ``false_abstention`` the share of answerable ones refused. Empty when the engine reports no scores.
    """
    scored = [(r.abstention_score, r.type == "unanswerable") for r in results
              if r.abstention_score is not None and r.error is None]  # fmt: skip
    unanswerable = sum(1 for _, u in scored if u)
    answerable = len(scored) - unanswerable
    if not scored or not unanswerable or not answerable:
        return []
    thresholds = sorted({score for score, _ in scored}) + [math.inf]
    curve = []
    for threshold in thresholds:
        refused_u = sum(1 for score, u in scored if u and score >= threshold)
        refused_a = sum(1 for score, u in scored if not u and score >= threshold)
        curve.append({"threshold": threshold if math.isfinite(threshold) else None,
                      "abstention": refused_u / unanswerable, "false_abstention": refused_a / answerable})  # fmt: skip
    return curve


def _grouped(results: Sequence[QuestionResult], key) -> dict[str, dict]:
    names = sorted({key(r) for r in results})
    return {name: summarize_group([r for r in results if key(r) == name]) for name in names}


def summarize(results: Sequence[QuestionResult]) -> dict:
    summary = {
        "overall": summarize_group(results),
        "by_type": _grouped(results, lambda r: r.type),
        "by_shape": _grouped(results, lambda r: r.shape or r.type),
        "abstention_curve": abstention_curve(results),
    }
    splits = sorted({r.split for r in results if r.split})
    if splits:
        summary["by_split"] = {}
        for split in splits:
            rows = [r for r in results if r.split == split]
            summary["by_split"][split] = {
                "overall": summarize_group(rows),
                "by_shape": _grouped(rows, lambda r: r.shape or r.type),
                "abstention_curve": abstention_curve(rows),
            }
    return summary


def git_commit(root: Path) -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, timeout=5)
        commit = out.stdout.strip() or "unknown"
        return commit + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def default_out_dir(root: Path) -> Path:
    return root / "eval" / "runs" / dt.datetime.now().strftime("%Y%m%d-%H%M%S")


def run_metadata(
    pipeline, questions_path: Path, backend: str | None, model: str | None, retrieval_only: bool, split: str = "all"
) -> dict:
    settings = pipeline.settings.model_dump(mode="json", exclude={"ui_auth", "chroma_token"})
    return {
        "started_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(Path(__file__).resolve().parents[1]),
        "settings": settings,
        "backend": backend or pipeline.settings.backend,
        "model": model
        or (pipeline.settings.ollama_model if (backend or pipeline.settings.backend) != "extractive" else None),
        "embedding_model": pipeline.settings.embed_model,
        "collection": pipeline.settings.collection_name,
        "questions_file": str(questions_path),
        "questions_sha256": file_sha256(questions_path),
        "retrieval_only": retrieval_only,
        "split": split,
    }
