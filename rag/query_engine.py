"""The answer pipeline as a LlamaIndex query engine, so it composes with LlamaIndex tooling."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.response.schema import Response
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode


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
