"""eval/runner.py summaries and eval/report.py tables on hand-made results (pure; no index)."""

from __future__ import annotations

from eval.report import curve_table, render_markdown, shape_table
from eval.runner import QuestionResult, abstention_curve, summarize


def result(qid: str, qtype: str, score: float | None, *, split: str = "dev", shape: str = "fact",
           abstained: bool = False) -> QuestionResult:  # fmt: skip
    answerable = qtype != "unanswerable"
    r = QuestionResult(qid, qtype, "q?", ["a"] if answerable else [], {}, {}, split, shape)
    if answerable:
        r.retrieval = {"hybrid": {"hit@1": 1.0, "recall@5": 1.0, "mrr@10": 1.0, "ndcg@10": 1.0}}
    r.abstention_score = score
    r.abstained = abstained
    r.metrics = {"false_abstention": float(abstained)} if answerable else {"abstention_accuracy": float(abstained)}
    return r


def test_curve_moves_from_refusing_everything_to_nothing():
    rows = [result("a1", "single", 0.1), result("a2", "single", 0.6), result("u1", "unanswerable", 0.8),
            result("u2", "unanswerable", 0.4)]  # fmt: skip
    curve = abstention_curve(rows)
    assert curve[0] == {"threshold": 0.1, "abstention": 1.0, "false_abstention": 1.0}
    assert curve[-1] == {"threshold": None, "abstention": 0.0, "false_abstention": 0.0}
    at_half = next(p for p in curve if p["threshold"] == 0.6)
    assert at_half == {"threshold": 0.6, "abstention": 0.5, "false_abstention": 0.5}
    # moving the threshold up never refuses more
    assert all(a["abstention"] >= b["abstention"] for a, b in zip(curve, curve[1:], strict=False))


def test_curve_needs_scores_and_both_kinds():
    assert abstention_curve([result("a1", "single", None), result("u1", "unanswerable", None)]) == []
    assert abstention_curve([result("a1", "single", 0.3)]) == []


def test_summary_and_report_break_down_by_split_and_shape():
    rows = [result("a1", "single", 0.1, split="dev", shape="fact"),
            result("a2", "single", 0.2, split="test", shape="compare"),
            result("u1", "unanswerable", 0.9, split="test", shape="adjacent", abstained=True)]  # fmt: skip
    summary = summarize(rows)
    assert set(summary["by_split"]) == {"dev", "test"}
    assert set(summary["by_split"]["test"]["by_shape"]) == {"compare", "adjacent"}
    assert summary["by_split"]["test"]["overall"]["answer"]["abstention_accuracy"]["value"] == 1.0
    meta = {"git_commit": "abc", "backend": "extractive", "model": None, "embedding_model": "m",
            "questions_file": "q.jsonl", "questions_sha256": "0" * 64, "started_at": "now", "retrieval_only": False}  # fmt: skip
    report = render_markdown(meta, summary)
    assert "## Split `dev`" in report and "## Split `test`" in report
    assert "| adjacent | 1 |" in report
    assert "Abstention trade-off (`test`)" in report


def test_shape_table_marks_missing_figures():
    [header, _, row] = shape_table({"overall": {"n": 0, "retrieval": {}, "answer": {}}})
    assert header.startswith("| shape | n | hit@1")
    assert row.startswith("| overall | 0 | – |")


def test_curve_table_without_scores():
    assert curve_table([]) == ["(the engine reported no abstention scores)"]
