"""The answer pipeline as a LlamaIndex query engine, so it composes with LlamaIndex tooling."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.response.schema import Response
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode


class AbstractRetriever(BaseRetriever):
    """The hybrid abstract ranking (dense + BM25, score fusion, lexicon links) as a LlamaIndex retriever: one
    ``NodeWithScore`` per abstract, the fused score as its score, the dense and BM25 scores in its metadata."""

    def __init__(self, retriever: Any, k: int = 5) -> None:
        super().__init__()
        self._hybrid = retriever
        self._k = k

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        ranked = self._hybrid.search(query_bundle.query_str, self._k)
        return [
            NodeWithScore(
                node=TextNode(
                    id_=r.abstract.id,
                    text=r.abstract.text,
                    metadata={"label": r.abstract.label, "dense_score": r.dense, "bm25_score": r.bm25},
                ),
                score=r.score,
            )
            for r in ranked
        ]


class CitedQueryEngine(CustomQueryEngine):
    """``query(q)`` returns a Response whose text is the verified answer and whose source nodes are the cited
    abstracts (score = best support of any sentence citing it). The full Answer is in ``response.metadata``."""

    pipeline: Any
    backend: str | None = None
    model: str | None = None

    def custom_query(self, query_str: str) -> Response:
        answer = self.pipeline.ask(query_str, backend=self.backend, model=self.model)
        support: dict[str, float] = {}
        for sentence in answer.sentences:
            for c in sentence.citations:
                support[c.abstract_id] = max(support.get(c.abstract_id, 0.0), c.support)
        listed = answer.nearest if answer.abstained else [s for s in answer.sources if s.abstract.id in support]
        nodes = [
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
        return Response(response=answer.text, source_nodes=nodes, metadata={"answer": answer.to_dict()})
