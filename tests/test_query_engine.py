"""The answer flow as LlamaIndex components (rag/query_engine.py), on the real seeded index: each component on its
own, recombined in a RetrieverQueryEngine a user builds, and the assembled engine giving the pipeline's Answer."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from llama_index.core.base.response.schema import StreamingResponse
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import QueryBundle

from rag.answering import prepare_question
from rag.query_engine import (
    AbstentionPostprocessor,
    CitedQueryEngine,
    EvidencePostprocessor,
    QuestionBundle,
    state_of,
)

pytestmark = pytest.mark.slow
STORE_MODES = ("embedded",)  # answering does not depend on where the vectors live

ROOT = Path(__file__).resolve().parents[1]
FACT_Q = "How many CRISPR screens is AssayBench built from?"
LIST_Q = "Which papers propose a new benchmark?"
OFF_TOPIC_Q = "What does the QwertyNet-9 benchmark measure?"  # a made-up name: no abstract uses it


def comparable(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k != "timings"}


def test_retriever_returns_one_node_per_abstract_best_first(pipeline):
    nodes = pipeline.as_retriever(k=4).retrieve("a benchmark of CRISPR screens for phenotype prediction")
    ids = [n.node.node_id for n in nodes]
    assert len(nodes) == 4 and len(set(ids)) == 4
    assert [n.score for n in nodes] == sorted((n.score for n in nodes), reverse=True)
    for n in nodes:
        assert n.node.get_content() == pipeline.abstract(n.node.node_id).text
        assert n.node.metadata["label"] == pipeline.abstract(n.node.node_id).label


def test_evidence_postprocessor_alone_quotes_sentences_of_the_nodes_it_gets(pipeline):
    parts = pipeline.components()
    nodes = parts.retriever.retrieve(FACT_Q)
    evidence = parts.postprocessors[0]
    assert isinstance(evidence, EvidencePostprocessor)
    selected = evidence.postprocess_nodes(nodes, query_str=FACT_Q)  # a fresh bundle: reads the question itself
    assert selected and {n.node.node_id for n in selected} <= {n.node.node_id for n in nodes}
    for n in selected:
        quoted = n.node.metadata["evidence"]
        assert quoted and all(n.node.get_content()[q["start"] : q["end"]] == q["text"] for q in quoted)
        assert "evidence" not in n.node.get_content(metadata_mode="llm")  # the text once, not twice


def test_abstention_postprocessor_empties_the_nodes_of_an_off_topic_question(pipeline):
    parts = pipeline.components()
    evidence, abstention = parts.postprocessors
    assert isinstance(abstention, AbstentionPostprocessor)
    for question, abstains in ((OFF_TOPIC_Q, True), (FACT_Q, False)):
        bundle = QueryBundle(question)
        nodes = evidence.postprocess_nodes(parts.retriever.retrieve(bundle), bundle)
        kept = abstention.postprocess_nodes(nodes, bundle)
        decision = state_of(bundle).retrieved
        assert decision.abstain is abstains and (kept == []) is abstains
        if abstains:
            assert "QwertyNet-9" in decision.abstain_reason and nodes
        else:
            assert kept == nodes


def test_the_components_recombine_in_a_retriever_query_engine_a_user_builds(pipeline):
    parts = pipeline.components()
    engine = RetrieverQueryEngine(parts.retriever, parts.synthesizer, parts.postprocessors)
    response = engine.query(FACT_Q)
    assert "1,920" in str(response) and [n.node.metadata["label"] for n in response.source_nodes] == ["AssayBench"]
    # a LlamaIndex postprocessor in front: only the best-scoring abstract is left as a candidate
    best = parts.retriever.retrieve(LIST_Q)[0]
    cut = SimilarityPostprocessor(similarity_cutoff=best.score - 1e-9)
    engine = RetrieverQueryEngine(parts.retriever, parts.synthesizer, [cut, *parts.postprocessors])
    bundle = QueryBundle(LIST_Q)
    nodes = engine.retrieve(bundle)
    assert [r.abstract.id for r in state_of(bundle).ranking.ranked] == [best.node.node_id]
    assert best.node.node_id in {n.node.node_id for n in nodes}


def test_engine_source_nodes_are_the_cited_abstracts(pipeline):
    engine = pipeline.query_engine(backend="extractive")
    assert isinstance(engine, CitedQueryEngine) and isinstance(engine, RetrieverQueryEngine)
    response = engine.query(LIST_Q)
    answer = response.metadata["answer"]
    assert len(answer["cited_ids"]) >= 2
    assert [n.node.node_id for n in response.source_nodes] == answer["cited_ids"]
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", str(response))}
    assert {n.node.metadata["number"] for n in response.source_nodes} == numbers
    refused = engine.query(OFF_TOPIC_Q)
    assert refused.metadata["answer"]["abstained"] and refused.source_nodes  # the nearest abstracts


@pytest.mark.parametrize(
    "question",
    [FACT_Q, LIST_Q, "Compare AptaBench and AssayBench", OFF_TOPIC_Q, "AssayBench 用了多少个 CRISPR 筛选？"],
    ids=["fact", "list", "compare", "off-topic", "not-english"],
)
def test_engine_and_pipeline_give_the_same_answer(pipeline, question):
    answer = pipeline.ask(question, backend="extractive")
    response = pipeline.query_engine(backend="extractive").query(question)
    assert comparable(response.metadata["answer"]) == comparable(answer.to_dict())


def test_engine_answers_a_follow_up_from_a_prepared_bundle_as_the_pipeline_does(pipeline):
    history = [{"role": "user", "content": LIST_Q}]
    question = "What does the second one evaluate?"
    answer = pipeline.ask(question, history, backend="extractive")
    engine = pipeline.query_engine(backend="extractive")
    hybrid = engine.retriever.hybrid
    state = prepare_question(question, snapshot=hybrid.snapshot, retriever=hybrid, top_k=pipeline.settings.top_k,
                             policy=pipeline.settings.answer, history=history)  # fmt: skip
    response = engine.query(QuestionBundle(state.standalone, state=state))
    assert answer.standalone_question and comparable(response.metadata["answer"]) == comparable(answer.to_dict())
    assert state.answer is not None and state.answer.text == str(response)


def test_streaming_engine_streams_the_answer_then_fills_in_its_sources(pipeline):
    response = pipeline.query_engine(backend="extractive", streaming=True).query(LIST_Q)
    assert isinstance(response, StreamingResponse) and response.source_nodes == []
    text = "".join(response.response_gen)
    assert text == response.metadata["answer"]["answer"]
    assert [n.node.node_id for n in response.source_nodes] == response.metadata["answer"]["cited_ids"]


def test_readme_example_runs(pipeline, monkeypatch):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"### From LlamaIndex code.*?```python\n(.*?)```", readme, re.S).group(1)
    assert len([line for line in code.splitlines() if line and not line.startswith(("from ", "import "))]) <= 6
    monkeypatch.setenv("RAG_DATA_DIR", str(pipeline.settings.data_dir))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example
    assert "1,920" in out.getvalue() and "['AssayBench']" in out.getvalue()
