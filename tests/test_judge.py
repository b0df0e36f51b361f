"""The optional model judge: parsing its JSON, combining it with the checks, and the real client over real HTTP
(scripted replies, including malformed and slow ones)."""

from __future__ import annotations

import json

import pytest

from rag import judge
from rag.answer import AnswerSentence, Citation, Source
from rag.answering import judge_sentences
from rag.corpus import Abstract, Location
from rag.errors import GenerationError
from tests.support.ollama_server import ScriptedBackend, serve

# --- parse ---


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ('{"verdict": "entailed", "reason": "It says so."}', "entailed"),
        ('{"verdict": "contradicted", "reason": "Opposite."}', "contradicted"),
        ('{"verdict": "Not stated", "reason": ""}', "not_stated"),
        ('{"verdict": "not-stated", "reason": "x"}', "not_stated"),
    ],
)
def test_parse_reads_the_verdict(reply, label):
    assert judge.parse(reply).label == label


@pytest.mark.parametrize(
    "reply",
    ["Yes, entailed.", "", "[1, 2]", '{"verdict": "probably"}', '{"reason": "no verdict"}', '{"verdict": 3}', "null"],
    ids=["prose", "empty", "list", "unknown-label", "missing", "number", "null"],
)
def test_parse_refuses_what_is_not_the_json_asked_for(reply):
    assert judge.parse(reply) is None


def test_parse_keeps_reasons_short_and_on_one_line():
    parsed = judge.parse(json.dumps({"verdict": "contradicted", "reason": "a\n  b " + "x" * 500}))
    assert parsed.reason.startswith("a b ") and len(parsed.reason) == judge.MAX_REASON_CHARS


# --- combine: either side can reject, neither can rescue ---

ENTAILED = judge.Judgement("entailed", "says so")
CONTRADICTED = judge.Judgement("contradicted", "the reverse")
NOT_STATED = judge.Judgement("not_stated", "not mentioned")


def test_a_failed_check_stays_failed_whatever_the_judge_says():
    assert judge.combine(False, "number differs", ENTAILED) == (False, "number differs")


def test_a_contradiction_from_the_judge_rejects_a_sentence_the_checks_accepted():
    supported, reason = judge.combine(True, "", CONTRADICTED)
    assert not supported and "contradicts" in reason and "the reverse" in reason


def test_not_stated_rejects_only_when_configured():
    assert judge.combine(True, "", NOT_STATED)[0] is False
    assert judge.combine(True, "", NOT_STATED, rejects_not_stated=False)[0] is True


def test_no_judgement_leaves_the_checks_verdict():
    assert judge.combine(True, "ok", None) == (True, "ok")
    assert judge.combine(True, "ok", ENTAILED) == (True, "ok")


# --- judge_sentences with a fake judge function ---

TEXT = "We train on 12 tasks. The model beats all baselines."
SOURCES = [Source(1, Abstract("p1", "Paper", TEXT, (Location("x.txt", 1),), "h"))]


def sentences() -> list[AnswerSentence]:
    return [
        AnswerSentence("It trains on 12 tasks.", [Citation(1, "p1", 0.9, 0, 21)], True),
        AnswerSentence("It beats all baselines.", [Citation(1, "p1", 0.9, 22, len(TEXT))], True),
        AnswerSentence("It was cheap.", [Citation(1, "p1", 0.2, 0, 21)], False, reason="not stated"),
    ]


def fake_judge(replies: dict[str, str], asked: list[tuple[str, str]]):
    def ask(claim: str, evidence: str) -> str:
        asked.append((claim, evidence))
        reply = replies[claim]
        if isinstance(reply, Exception):
            raise reply
        return reply

    return ask


def test_judge_sentences_rejects_what_the_judge_contradicts_and_skips_unsupported_ones():
    asked: list[tuple[str, str]] = []
    replies = {
        "It trains on 12 tasks.": '{"verdict": "entailed", "reason": ""}',
        "It beats all baselines.": '{"verdict": "contradicted", "reason": "only some"}',
    }
    out = sentences()
    assert judge_sentences(out, SOURCES, fake_judge(replies, asked)) == []
    assert [s.support_label for s in out] == ["supported", "unsupported", "unsupported"]
    assert "only some" in out[1].reason and out[2].reason == "not stated"
    assert asked == [("It trains on 12 tasks.", "We train on 12 tasks."), ("It beats all baselines.", TEXT[22:])]


def test_judge_sentences_stops_at_the_first_failure_and_says_so():
    replies = {"It trains on 12 tasks.": GenerationError("Ollama did not answer within 1 s")}
    out = sentences()
    notices = judge_sentences(out, SOURCES, fake_judge(replies, []))
    assert [s.support_label for s in out] == ["supported", "supported", "unsupported"]
    assert len(notices) == 1 and "did not answer" in notices[0] and "2 sentence(s)" in notices[0]


def test_judge_sentences_counts_replies_that_are_not_json():
    replies = {"It trains on 12 tasks.": "Sure!", "It beats all baselines.": '{"verdict": "entailed", "reason": ""}'}
    out = sentences()
    notices = judge_sentences(out, SOURCES, fake_judge(replies, []))
    assert [s.support_label for s in out] == ["supported", "supported", "unsupported"]
    assert notices and "1 sentence(s)" in notices[0]


# --- through the real Ollama client over real HTTP ---

MODEL = "scripted:latest"
ASSAY_Q = "How many CRISPR screens does AssayBench use?"
ANSWER = "AssayBench is built from 1,920 publicly available CRISPR screens [1]."


def scripted(verdict_reply: str, **kw) -> ScriptedBackend:
    def reply(messages):
        if messages and messages[0]["content"] == judge.SYSTEM_PROMPT:
            return verdict_reply
        return ANSWER

    return ScriptedBackend(reply, chunk_size=1000, **kw)


def ask_with(pipeline, backend, **verify):
    with serve({MODEL: backend}) as url:
        settings = pipeline.settings.model_copy(
            update={
                "ollama_host": url,
                "ollama_model": MODEL,
                "verify": pipeline.settings.verify.model_copy(update=verify),
            }
        )
        from rag.pipeline import Pipeline

        other = Pipeline(settings, embedder=pipeline.embedder)
        other._snapshot, other._store = pipeline.snapshot, pipeline.store
        answer = other.ask(ASSAY_Q, backend="ollama")
        bodies = [r.body for r in url.server.requests if r.path == "/api/chat"]
    return answer, bodies


@pytest.mark.slow
def test_the_judge_asks_ollama_for_structured_json_and_its_contradiction_counts(pipeline):
    answer, bodies = ask_with(pipeline, scripted('{"verdict": "contradicted", "reason": "the numbers differ"}'))
    judged = [b for b in bodies if b["messages"][0]["content"] == judge.SYSTEM_PROMPT]
    assert len(judged) == 1 and judged[0]["format"] == judge.SCHEMA and judged[0]["stream"] is False
    assert judged[0]["options"]["temperature"] == 0 and "1,920" in judged[0]["messages"][1]["content"]
    # the only sentence is now unsupported, so the extractive answer replaces the model's
    assert answer.backend == "extractive" and any("supported" in n for n in answer.notices)


@pytest.mark.slow
def test_an_entailed_verdict_keeps_the_sentence_supported(pipeline):
    answer, _ = ask_with(pipeline, scripted('{"verdict": "entailed", "reason": "stated"}'))
    assert answer.backend == "ollama" and [s.support_label for s in answer.sentences] == ["supported"]


@pytest.mark.slow
def test_a_malformed_verdict_leaves_the_checks_to_decide(pipeline):
    answer, _ = ask_with(pipeline, scripted("I think it is probably right."))
    assert answer.backend == "ollama" and answer.sentences[0].support_label == "supported"
    assert any("not the JSON" in n for n in answer.notices)


@pytest.mark.slow
def test_a_slow_judge_times_out_and_the_checks_decide(pipeline):
    answer, _ = ask_with(pipeline, scripted('{"verdict": "contradicted", "reason": "x"}', delay_s=1.5),
                         judge_timeout_s=0.5)  # fmt: skip
    assert answer.backend == "ollama" and answer.sentences[0].support_label == "supported"
    assert any("judge stopped" in n for n in answer.notices)


@pytest.mark.slow
def test_the_judge_can_be_turned_off(pipeline):
    answer, bodies = ask_with(pipeline, scripted('{"verdict": "contradicted", "reason": "x"}'), judge=False)
    assert answer.backend == "ollama" and len(bodies) == 1
