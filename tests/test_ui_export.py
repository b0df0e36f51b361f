"""ui.export: the chat as Markdown with a reference list per answer (pure functions, small fake answers)."""

from __future__ import annotations

from datetime import UTC, datetime

from rag.answer import AnswerSentence, Citation, Source
from tests.test_ui_render import TEXT, make_abstract, make_answer, span_of
from ui import export

NOW = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)


def two_source_answer():
    start, end = span_of(TEXT, "It is built from 1,920 CRISPR screens.")
    sentences = [
        AnswerSentence("AssayBench uses 1,920 screens.", [Citation(1, "assaybench-66f7", 0.9, start, end)], True)
    ]
    sources = [
        Source(1, make_abstract(files=(("000_a.txt", 4), ("001_b.txt", 2)))),
        Source(2, make_abstract("other-1234", "Other")),
    ]
    return make_answer(sentences=sentences, sources=sources, text="- **AssayBench**: 1,920 screens [1]")


def test_turn_record_keeps_only_cited_sources_with_their_evidence_sentence():
    record = export.turn_record(two_source_answer())
    assert [r["number"] for r in record["references"]] == [1]
    ref = record["references"][0]
    assert ref == {
        "number": 1,
        "label": "AssayBench",
        "id": "assaybench-66f7",
        "locations": ["000_a.txt #4", "001_b.txt #2"],
        "evidence": "It is built from 1,920 CRISPR screens.",
    }


def test_markers_in_the_text_count_as_citations():
    answer = make_answer(sentences=[], text="See [2].")
    assert export.cited_numbers(answer) == [2]
    assert export.turn_record(answer)["references"][0]["id"] == "other-1234"


def test_chat_markdown_has_questions_answers_and_numbered_references():
    turns = [export.turn_record(two_source_answer()), export.turn_record(make_answer(question="Second?"))]
    text = export.chat_markdown(turns, title="My chat", now=NOW)
    assert text.startswith("# My chat\n") and "2026-01-02 03:04 UTC" in text
    assert "## 1. How many CRISPR screens does AssayBench use?" in text and "## 2. Second?" in text
    assert "- **AssayBench**: 1,920 screens [1]" in text
    assert (
        "[1] **AssayBench** — ID `assaybench-66f7` — 000_a.txt #4, 001_b.txt #2 — “It is built from 1,920 CRISPR screens.”"
        in text
    )
    assert text.index("## 2.") > text.index("[1] **AssayBench**")


def test_abstained_answer_lists_the_closest_abstracts():
    near = [Source(1, make_abstract("near-1111", "Near one"))]
    answer = make_answer(
        sentences=[], text="The abstracts do not answer this.", abstained=True, nearest=near, sources=[]
    )
    text = export.turn_markdown(export.turn_record(answer), 1)
    assert "Closest abstracts" in text and "`near-1111`" in text and "References" not in text


def test_empty_chat_says_so():
    assert "No questions asked yet" in export.chat_markdown([], title="T", now=NOW)


def test_history_comes_from_answered_turns_only():
    record = export.turn_record(two_source_answer())
    turns = [record, {"question": "broken", "error": "Ollama stopped"}, {"question": "waiting", "pending": True}, None]
    assert export.history(turns) == [
        {"role": "user", "content": record["question"]},
        {
            "role": "assistant",
            "content": record["text"],
            "sources": [
                {"number": 1, "id": "assaybench-66f7", "label": "AssayBench"},
                {"number": 2, "id": "other-1234", "label": "Other"},
            ],
        },
    ]


def test_bibtex_entry_per_cited_abstract():
    ref = {"id": "who-when-pro-1a2b", "label": "Who&When {Pro}", "locations": ["000_a.txt #4"]}
    assert export.bibtex_entry(ref) == (
        "@misc{who_when_pro_1a2b,\n  title = {Who&When (Pro)},\n"
        "  note = {NeurIPS 2026 abstracts; ID who-when-pro-1a2b; 000_a.txt #4},\n  year = {2026}\n}"
    )
    same = [export.turn_record(two_source_answer())] * 2
    assert export.bibtex(same).count("@misc{assaybench_66f7,") == 1


def test_one_answer_as_markdown_with_and_without_bibtex():
    record = export.turn_record(two_source_answer())
    plain = export.answer_markdown(record)
    assert plain.startswith("## How many CRISPR screens") and "[1] **AssayBench**" in plain and "@misc" not in plain
    full = export.answer_markdown(record, with_bibtex=True)
    assert full.startswith(plain.rstrip()) and "```bibtex\n@misc{assaybench_66f7," in full


def test_chat_markdown_ends_with_bibtex_and_notes_unanswered_questions():
    turns = [export.turn_record(two_source_answer()), {"question": "Stopped one", "error": "Stopped early."}]
    text = export.chat_markdown(turns, title="T", now=NOW)
    assert "## 2. Stopped one" in text and "*Not answered: Stopped early.*" in text
    assert text.rstrip().endswith("```") and "## BibTeX" in text
