"""`rag verify` on the real seeded index (real MiniLM): JSON and table output, one claim, bad input."""

from __future__ import annotations

import json

import pytest

from rag.cli import main as rag_main

pytestmark = pytest.mark.slow

STORE_MODES = ("embedded",)  # verification reads the snapshot; the store modes are covered by the index tests


def _assaybench(pipeline):
    return next(a for a in pipeline.abstracts() if a.label == "AssayBench")


def _run(pipeline, capsys, *args):
    code = rag_main(["verify", *args, "--data-dir", str(pipeline.settings.data_dir)])
    out, err = capsys.readouterr()
    return code, out, err


def _claims_file(tmp_path, rows):
    path = tmp_path / "claims.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_json_results_in_input_order_with_evidence_offsets(pipeline, capsys, tmp_path):
    aid = _assaybench(pipeline).id
    path = _claims_file(tmp_path, [
        {"id": "faithful", "claim": "AssayBench is built from 1,920 publicly available CRISPR screens.", "abstract_id": aid},
        {"id": "number", "claim": "AssayBench is built from 2,500 publicly available CRISPR screens.", "abstract_id": aid},
        {"id": "swapped", "claim": "Biology-specific LLMs outperform zero-shot generalist LLMs on AssayBench.",
         "abstract_id": aid},
    ])  # fmt: skip
    code, out, _ = _run(pipeline, capsys, str(path), "--json")
    results = json.loads(out)["results"]
    assert code == 0 and [r["id"] for r in results] == ["faithful", "number", "swapped"]
    assert [r["verified"] for r in results] == [True, False, False]
    assert set(results[0]) == {"id", "verified", "support", "reason", "evidence_start", "evidence_end"}
    text = _assaybench(pipeline).text
    first = results[0]
    assert "1,920" in text[first["evidence_start"] : first["evidence_end"]]
    assert "2,500" in results[1]["reason"]
    assert all(0.0 <= r["support"] <= 1.0 for r in results)


def test_one_claim_says_unsupported_and_quotes_the_abstract(pipeline, capsys):
    aid = _assaybench(pipeline).id
    claim = "Biology-specific LLMs outperform zero-shot generalist LLMs on AssayBench."
    code, out, _ = _run(pipeline, capsys, "--claim", claim, "--source", aid)
    assert code == 0 and out.startswith("unsupported")
    assert "opposite" in out and "zero-shot generalist LLMs outperform biology-specific LLMs" in out


def test_table_lists_every_claim_and_a_total(pipeline, capsys, tmp_path):
    aid = _assaybench(pipeline).id
    path = _claims_file(tmp_path, [
        {"id": "a", "claim": "AssayBench is built from 1,920 publicly available CRISPR screens.", "abstract_id": aid},
        {"id": "b", "claim": "AssayBench is built from 2,500 publicly available CRISPR screens.", "abstract_id": aid},
    ])  # fmt: skip
    code, out, _ = _run(pipeline, capsys, str(path))
    lines = out.splitlines()
    assert code == 0 and lines[1].startswith("a ") and "supported" in lines[1] and "unsupported" in lines[2]
    assert "1 of 2 claims supported" in out


def test_malformed_lines_are_named_and_nothing_is_checked(pipeline, capsys, tmp_path):
    aid = _assaybench(pipeline).id
    path = _claims_file(tmp_path, [
        {"id": "ok", "claim": "AssayBench is built from 1,920 CRISPR screens.", "abstract_id": aid},
        "{not json",
        {"id": "no-claim", "abstract_id": aid},
        "[1, 2]",
    ])  # fmt: skip
    code, out, err = _run(pipeline, capsys, str(path), "--json")
    assert code == 2 and out == ""
    assert "line 2: not valid JSON" in err and "line 3: 'claim' missing" in err and "line 4" in err


def test_unknown_abstract_id_names_the_line(pipeline, capsys, tmp_path):
    aid = _assaybench(pipeline).id
    path = _claims_file(tmp_path, [
        {"id": "ok", "claim": "AssayBench is built from 1,920 CRISPR screens.", "abstract_id": aid},
        {"id": "bad", "claim": "AssayBench is built from 1,920 CRISPR screens.", "abstract_id": "no-such-paper"},
    ])  # fmt: skip
    code, out, err = _run(pipeline, capsys, str(path))
    assert code == 2 and "line 2" in err and "no-such-paper" in err and "rag list" in err


@pytest.mark.parametrize("args", [["--claim", "Something."], [], ["x.jsonl", "--claim", "y", "--source", "z"]])
def test_wrong_arguments_say_how_to_call_it(pipeline, capsys, args):
    code, _, err = _run(pipeline, capsys, *args)
    assert code == 2 and ("--source" in err or "--claim" in err)
