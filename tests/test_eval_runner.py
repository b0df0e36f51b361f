"""`rag eval` on a small question file against the real seeded index."""

from __future__ import annotations

import json

import pytest

from rag.cli import main as rag_main

pytestmark = pytest.mark.slow

# Answering does not depend on where the vectors live; the store modes are covered by the index tests.
STORE_MODES = ("embedded",)

QUESTIONS = [
    {"id": "a1", "type": "numeric", "question": "How many CRISPR screens does AssayBench use?",
     "gold": ["Recent advances in machine learning and large-scale biological"], "key_facts": ["1,920"]},
    {"id": "a2", "type": "multi", "question": "Which papers study LLM calibration?",
     "gold": ["Calibration measures whether a model's predicted confidence", "Modern large language models (LLMs) often exhibit overconfident"],
     "key_facts": ["Sem-ECE"]},
    {"id": "a3", "type": "unanswerable", "question": "What does the AgentHarmBench-X benchmark reveal about agents?",
     "gold": [], "key_facts": []},
    {"id": "a4", "type": "numeric", "shape": "followup", "split": "test", "history": ["What is AssayBench?"],
     "question": "How many CRISPR screens does it use?",
     "gold": ["Recent advances in machine learning and large-scale biological"], "key_facts": ["1,920"]},
]  # fmt: skip


@pytest.fixture()
def question_file(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return path


def run_eval(pipeline, *args):
    return rag_main(["eval", "--data-dir", str(pipeline.settings.data_dir), "--backend", "extractive", *args])


def test_eval_writes_results_report_and_plot(pipeline, question_file, tmp_path, capsys):
    out = tmp_path / "run"
    assert run_eval(pipeline, "--questions", str(question_file), "--out", str(out)) == 0
    assert {p.name for p in out.iterdir()} >= {"results.json", "report.md", "metrics.png"}
    payload = json.loads((out / "results.json").read_text())
    meta = payload["meta"]
    assert meta["backend"] == "extractive" and len(meta["questions_sha256"]) == 64 and meta["git_commit"]
    assert meta["embedding_model"] == "all-MiniLM-L6-v2"
    rows = {q["id"]: q for q in payload["questions"]}
    assert rows["a1"]["retrieved"][0] == rows["a1"]["gold"][0]
    assert rows["a1"]["metrics"]["key_fact_coverage"] == 1.0
    assert rows["a3"]["abstained"] is True and rows["a3"]["metrics"]["abstention_accuracy"] == 1.0
    overall = payload["summary"]["overall"]
    assert set(overall["retrieval"]) == {"hybrid", "bm25", "dense"}
    assert overall["answer"]["citation_precision"]["n"] == 3
    # the follow-up was asked after its history, and searched with what the engine made of it
    assert rows["a4"]["history"] == ["What is AssayBench?"] and rows["a4"]["answer"]
    assert rows["a4"]["search_query"]
    assert set(payload["summary"]["by_split"]) == {"test"}
    assert "## Split `test`" in (out / "report.md").read_text()
    assert "| hybrid (default) |" in (out / "report.md").read_text()
    assert (out / "metrics.png").read_bytes()[:4] == b"\x89PNG"


def test_split_option_runs_one_split(pipeline, question_file, tmp_path):
    out = tmp_path / "run"
    assert run_eval(pipeline, "--questions", str(question_file), "--out", str(out), "--split", "test",
                    "--retrieval-only") == 0  # fmt: skip
    payload = json.loads((out / "results.json").read_text())
    assert [q["id"] for q in payload["questions"]] == ["a4"]
    assert payload["meta"]["split"] == "test"


def test_retrieval_only_composes_no_answers(pipeline, question_file, tmp_path):
    out = tmp_path / "run"
    assert run_eval(pipeline, "--questions", str(question_file), "--out", str(out), "--retrieval-only") == 0
    payload = json.loads((out / "results.json").read_text())
    assert all(q["answer"] is None for q in payload["questions"])
    assert payload["summary"]["overall"]["answer"] == {}


def test_malformed_question_file_names_the_line(pipeline, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(QUESTIONS[0]) + "\n{not json}\n", encoding="utf-8")
    assert run_eval(pipeline, "--questions", str(bad), "--out", str(tmp_path / "o")) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "not valid JSON" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()
