"""The answer flow as LlamaIndex components, so it composes with LlamaIndex tooling.

- ``AbstractRetriever`` (a ``BaseRetriever``): the hybrid ranking, one ``NodeWithScore`` per abstract;
- ``EvidencePostprocessor`` (a ``BaseNodePostprocessor``): the sentences to quote, planned by the question's shape;
  its nodes are the abstracts the plan cites, each with its evidence sentences in ``metadata["evidence"]``;
- ``AbstentionPostprocessor``: the abstention decision; when the abstracts do not answer, no nodes;
- ``CitedSynthesizer`` (a ``BaseSynthesizer``): the abstain, extractive or model answer, verified; streams;
- ``CitedQueryEngine`` (a ``RetrieverQueryEngine``) assembled from them (``Pipeline.query_engine``).

Each component runs one step of rag/answering.py (``rank``, ``select_evidence``, ``decide_abstention``,
``compose_answer``), the steps ``Pipeline.stream`` runs, in the same order, so the two give the same Answer
(tests/test_query_engine.py checks it). The question's state (its profile, vector, ranking, plan and decision:
``rag.answering.QuestionState``) travels on the QueryBundle: a ``QuestionBundle`` carries it as a field; a plain
``QueryBundle`` (``engine.query("...")`` on an engine a user assembled) gets it attached by the first component.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.response.schema import RESPONSE_TYPE, Response, StreamingResponse
from llama_index.core.bridge.pydantic import ConfigDict
from llama_index.core.llms import MockLLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.response_synthesizers import BaseSynthesizer
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from rag.answer import Answer, StreamEvent, TextDelta
from rag.answering import (
    QuestionState,
    compose_answer,
    decide_abstention,
    prepare_question,
    rank,
    select_evidence,
)
from rag.policy import AnswerPolicy
from rag.retrieve import HybridRetriever, RankedAbstract
from rag.settings import VerifyPolicy

_STATE = "question_state"  # the attribute a plain QueryBundle gets


@dataclass
class QuestionBundle(QueryBundle):
    """A QueryBundle with the question's state: ``query_str`` is the standalone question retrieval reads."""

    state: QuestionState | None = None


def question_state(bundle: QueryBundle | None, hybrid: HybridRetriever, policy: AnswerPolicy) -> QuestionState:
    """The state a bundle carries; a plain bundle gets a fresh one (no history: its text is the question)."""
    if bundle is None:
        raise ValueError("the answer components need the query (query_bundle or query_str)")
    state = state_of(bundle)
    if state is None:  # (top_k only sizes the rebuilt answers of a history, and a plain bundle has none)
        state = prepare_question(bundle.query_str, snapshot=hybrid.snapshot, retriever=hybrid, top_k=1, policy=policy)
        if isinstance(bundle, QuestionBundle):
            bundle.state = state
        else:
            setattr(bundle, _STATE, state)
    return state


def state_of(bundle: QueryBundle) -> QuestionState | None:
    """The question's state on a bundle the components have seen (None before): its ranking, evidence plan and
    abstention decision (``.retrieved``: ``abstain``, ``abstain_reason``, ``abstention_score``) and the Answer."""
    return bundle.state if isinstance(bundle, QuestionBundle) else getattr(bundle, _STATE, None)


def abstract_node(ranked: RankedAbstract) -> NodeWithScore:
    """One abstract as a node: its text, label, file locations and the dense and BM25 scores of its best chunks."""
    abstract = ranked.abstract
    scores = {"dense_score": ranked.dense, "bm25_score": ranked.bm25}
    node = TextNode(
        id_=abstract.id,
        text=abstract.text,
        metadata={"label": abstract.label, "locations": [str(loc) for loc in abstract.locations], **scores},
        excluded_llm_metadata_keys=["locations", *scores],
        excluded_embed_metadata_keys=["locations", *scores],
    )
    return NodeWithScore(node=node, score=ranked.score)


class AbstractRetriever(BaseRetriever):
    """The hybrid abstract ranking (dense chunks from Chroma + BM25, score fusion, a boost for linked names) as a
    LlamaIndex retriever: one ``NodeWithScore`` per abstract, best first, the fused score as its score.

    It reads the question as answering does (typos spelt as the corpus does, names linked, a follow-up's pinned
    papers first). Chroma is queried directly for ids and distances (rag.store.ChunkStore.query), not through
    LlamaIndex's ChromaVectorStore, which rebuilds a node from stored metadata for every hit: 2.1 ms against 8.8 ms
    per search on the seeds (eval/llamaindex_overhead.py); the abstracts' texts are in the manifest already."""

    def __init__(self, hybrid: HybridRetriever, k: int = 5, policy: AnswerPolicy | None = None) -> None:
        super().__init__()
        self.hybrid = hybrid
        self.k = k
        self.policy = policy or hybrid.policy

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        state = question_state(query_bundle, self.hybrid, self.policy)
        state.ranking = rank(state.standalone, self.hybrid.snapshot, self.hybrid, self.k, self.policy,
                             more=state.more, pinned=state.pinned, similar=state.similar)  # fmt: skip
        return [abstract_node(r) for r in state.ranking.ranked[: self.k]]


class EvidencePostprocessor(BaseNodePostprocessor):
    """Selects the sentences an answer quotes, planned by the question's shape (one paper's best sentences, a list
    item per paper, a comparison table, the next sentences for "tell me more"). Returns the abstracts the plan
    cites, in citation order, each with its quoted sentences in ``metadata["evidence"]``.

    The candidates are the incoming nodes (their ids are abstract ids), so a postprocessor placed before this one
    (a cut-off, a reranker) changes what is considered; list and comparison questions also look past them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    hybrid: Any
    policy: Any = None

    @classmethod
    def class_name(cls) -> str:
        return "EvidencePostprocessor"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        policy = self.policy or self.hybrid.policy
        snapshot = self.hybrid.snapshot
        state = question_state(query_bundle, self.hybrid, policy)
        ranking = state.ranking
        if ranking is None:  # another retriever found the nodes: read the question here
            ranking = rank(state.standalone, snapshot, self.hybrid, len(nodes) or 1, policy, more=state.more,
                           pinned=state.pinned, similar=state.similar)  # fmt: skip
        known = {r.abstract.id: r for r in ranking.ranked}
        candidates: list[RankedAbstract] = []
        for n in nodes:
            aid = n.node.metadata.get("abstract_id") or n.node.node_id
            if aid in known:
                candidates.append(known[aid])
            elif aid in snapshot.abstracts:
                candidates.append(RankedAbstract(snapshot.abstracts[aid], n.score or 0.0))
        ranking.ranked = list({r.abstract.id: r for r in candidates}.values())
        state.ranking = ranking
        state.plan = select_evidence(ranking, snapshot, self.hybrid, policy, more=state.more, ask=state.ask,
                                     similar=state.similar, glossed=state.glossed, each=state.each,
                                     group_lead=state.group_lead)  # fmt: skip
        scores = {r.abstract.id: r.score for r in ranking.ranked}
        selected = []
        for aid in state.plan.abstract_ids:
            evidence = [e for e in state.plan.sentences if e.abstract_id == aid]
            node = abstract_node(RankedAbstract(snapshot.abstracts[aid], scores.get(aid, 0.0)))
            node.node.metadata["evidence"] = [
                {"text": e.text, "start": e.span.start, "end": e.span.end, "score": e.score} for e in evidence
            ]
            node.node.excluded_llm_metadata_keys.append("evidence")
            node.node.excluded_embed_metadata_keys.append("evidence")
            if aid not in scores:
                node.score = max((e.score for e in evidence), default=None)
            selected.append(node)
        return selected


class AbstentionPostprocessor(BaseNodePostprocessor):
    """Decides whether the abstracts answer the question (one logistic score over the signals, rag.abstain).
    When they do not, it returns no nodes; the decision, its reason and score are kept on the question's state
    (``state.retrieved``) for the synthesizer's abstain answer. Runs after ``EvidencePostprocessor``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    hybrid: Any
    top_k: int = 5
    policy: Any = None

    @classmethod
    def class_name(cls) -> str:
        return "AbstentionPostprocessor"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        policy = self.policy or self.hybrid.policy
        state = question_state(query_bundle, self.hybrid, policy)
        if state.ranking is None or state.plan is None:
            raise ValueError("AbstentionPostprocessor decides on the evidence: put EvidencePostprocessor before it")
        state.retrieved = decide_abstention(state.ranking, state.plan, self.hybrid.snapshot, self.top_k, policy,
                                            pinned=state.pinned, glossed=state.glossed,
                                            similar=state.similar, more=state.more)  # fmt: skip
        return [] if state.retrieved.abstain else nodes


def cited_nodes(answer: Answer) -> list[NodeWithScore]:
    """The abstracts an answer cites (the nearest ones when it abstains), scored by the best support of any
    sentence citing each."""
    support: dict[str, float] = {}
    for sentence in answer.sentences:
        for c in sentence.citations:
            support[c.abstract_id] = max(support.get(c.abstract_id, 0.0), c.support)
    listed = answer.nearest if answer.abstained else [s for s in answer.sources if s.abstract.id in support]
    return [
        NodeWithScore(
            node=TextNode(
                id_=s.abstract.id,
                text=s.abstract.text,
                metadata={
                    "number": s.number,
                    "label": s.abstract.label,
                    "locations": [str(loc) for loc in s.abstract.locations],
                },
            ),
            score=support.get(s.abstract.id),
        )
        for s in listed
    ]


class CitedSynthesizer(BaseSynthesizer):
    """Composes the answer and verifies it: the abstain answer when the abstention postprocessor decided so, else
    quoted sentences (``composer`` None) or the model's answer (an ``OllamaComposer``), every sentence checked
    against the abstract it cites. The Response's text is the verified answer, its source nodes the cited
    abstracts, ``metadata["answer"]`` the full Answer (``Answer.to_dict``). With ``streaming=True`` it returns a
    StreamingResponse whose source nodes and metadata are filled in when the stream ends."""

    def __init__(
        self,
        hybrid: HybridRetriever,
        top_k: int = 5,
        policy: AnswerPolicy | None = None,
        verify_policy: VerifyPolicy | None = None,
        composer: Any = None,
        streaming: bool = False,
    ) -> None:
        super().__init__(llm=MockLLM(), streaming=streaming)  # the composer calls its model itself
        self.hybrid = hybrid
        self.top_k = top_k
        self.policy = policy or hybrid.policy
        self.verify_policy = verify_policy
        self.composer = composer

    def _get_prompts(self) -> dict[str, Any]:
        return {}

    def _update_prompts(self, prompts: dict[str, Any]) -> None:
        pass

    def events(self, query: QueryBundle) -> Iterator[StreamEvent]:
        """The answer's text pieces as produced, then the verified Answer (what ``Pipeline.stream`` yields)."""
        state = question_state(query, self.hybrid, self.policy)
        if state.retrieved is None:
            raise ValueError("CitedSynthesizer needs the abstention decided: use AbstentionPostprocessor")
        return compose_answer(state, snapshot=self.hybrid.snapshot, embedder=self.hybrid.embedder, top_k=self.top_k,
                              policy=self.policy, composer=self.composer, verify_policy=self.verify_policy)  # fmt: skip

    def synthesize(
        self,
        query: QueryBundle | str,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        bundle = QueryBundle(query) if isinstance(query, str) else query
        events = self.events(bundle)
        if not self._streaming:
            answer = None
            for event in events:
                answer = event
            assert isinstance(answer, Answer)
            return Response(answer.text, source_nodes=cited_nodes(answer), metadata={"answer": answer.to_dict()})
        response = StreamingResponse(response_gen=iter(()), source_nodes=[], metadata={})

        def pieces() -> Iterator[str]:
            for event in events:
                if isinstance(event, TextDelta):
                    yield event.text
                elif isinstance(event, Answer):
                    response.source_nodes.extend(cited_nodes(event))
                    response.metadata["answer"] = event.to_dict()  # type: ignore[index]

        response.response_gen = pieces()
        return response

    async def asynthesize(
        self,
        query: QueryBundle | str,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        return await asyncio.to_thread(self.synthesize, query, nodes, additional_source_nodes)

    def get_response(self, query_str: str, text_chunks: Sequence[str], **response_kwargs: Any) -> str:
        raise NotImplementedError("CitedSynthesizer answers from the question's evidence: call synthesize()")

    async def aget_response(self, query_str: str, text_chunks: Sequence[str], **response_kwargs: Any) -> str:
        raise NotImplementedError("CitedSynthesizer answers from the question's evidence: call synthesize()")


class CitedQueryEngine(RetrieverQueryEngine):
    """``query(q)`` -> a Response whose text is the verified answer and whose source nodes are the cited abstracts
    (score = best support of any sentence citing it); the full Answer is in ``response.metadata["answer"]``.

    A RetrieverQueryEngine over ``AbstractRetriever`` -> ``EvidencePostprocessor`` -> ``AbstentionPostprocessor``
    -> ``CitedSynthesizer``; ``prepare`` (from ``Pipeline.query_engine``) reads a plain question as the pipeline
    does (the model translates one the encoder cannot read)."""

    def __init__(
        self,
        retriever: BaseRetriever,
        response_synthesizer: BaseSynthesizer,
        node_postprocessors: list[BaseNodePostprocessor],
        prepare: Callable[[str], QuestionState] | None = None,
    ) -> None:
        super().__init__(retriever, response_synthesizer, node_postprocessors)
        self._prepare = prepare

    def bundle(self, query: QueryBundle | str) -> QueryBundle:
        """The QueryBundle the components read: a QuestionBundle prepared as the pipeline does."""
        if isinstance(query, str):
            query = QueryBundle(query)
        if isinstance(query, QuestionBundle) or self._prepare is None:
            return query
        state = self._prepare(query.query_str)
        return QuestionBundle(state.standalone, state=state)

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        return super()._query(self.bundle(query_bundle))

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        return await super()._aquery(self.bundle(query_bundle))

    def stream_events(self, query: QueryBundle | str) -> Iterator[StreamEvent]:
        """Retrieve and postprocess, then the synthesizer's events: text pieces, then the verified Answer."""
        bundle = self.bundle(query)
        self.retrieve(bundle)
        synthesizer = self._response_synthesizer
        assert isinstance(synthesizer, CitedSynthesizer)
        return synthesizer.events(bundle)


__all__ = [
    "AbstentionPostprocessor",
    "AnswerComponents",
    "AbstractRetriever",
    "CitedQueryEngine",
    "CitedSynthesizer",
    "EvidencePostprocessor",
    "QuestionBundle",
]


@dataclass
class AnswerComponents:
    """The components ``Pipeline.components`` builds, ready for ``RetrieverQueryEngine``."""

    retriever: AbstractRetriever
    postprocessors: list[BaseNodePostprocessor]
    synthesizer: CitedSynthesizer
    notices: list[str]
