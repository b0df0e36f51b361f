"""'Anything similar?': the abstracts closest by meaning to the papers of the last answer (more like this).

A follow-up asking for similar work wants other papers than the ones just read. The papers' own sentences say what
they are about better than the follow-up's few words, so the search vector is the mean of their sentence vectors
(the same MiniLM vectors every search reads), searched densely, and the papers themselves are left out. Each other
paper's line quotes its sentence closest to that vector, preferring what the work does (contribution, method,
result) over its background.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag.compose.extractive import ExtractivePlan
from rag.evidence import EvidenceSentence
from rag.retrieve import HybridRetriever, IndexSnapshot, RankedAbstract

# what the work itself does, said in its own sentences: a line about a similar paper quotes one of these
_OWN_ROLES = ("contribution", "method", "result")


def source_vector(snapshot: IndexSnapshot, abstract_ids: Sequence[str]) -> np.ndarray | None:
    """The normalised mean of the abstracts' sentence vectors: what they are about, as one search vector."""
    rows = [snapshot.sentence_rows[aid] for aid in abstract_ids if aid in snapshot.sentence_rows]
    rows = [r for r in rows if len(r)]
    if not rows:
        return None
    index = np.concatenate([np.arange(r.start, r.stop) for r in rows])
    mean = np.asarray(snapshot.sentence_vectors[index], dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else None


def nearest_others(
    retriever: HybridRetriever, vector: np.ndarray, exclude: Sequence[str], count: int
) -> list[RankedAbstract]:
    """The ``count`` abstracts closest to ``vector`` by meaning (dense search only), without ``exclude``."""
    found = retriever.search("", count + len(exclude), query_vector=vector, linked={}, dense_weight=1.0)
    left_out = set(exclude)
    return [r for r in found if r.abstract.id not in left_out][:count]


def line_sentence(evidence: Sequence[EvidenceSentence]) -> EvidenceSentence | None:
    """The sentence a similar paper's line quotes: its closest to the source vector among those saying what the work
    does, else its closest of any role but availability."""
    own = [e for e in evidence if e.role in _OWN_ROLES]
    pool = own or [e for e in evidence if e.role != "availability"]
    return max(pool, key=lambda e: e.dense, default=None)


def plan_similar(per_paper: Sequence[tuple[str, Sequence[EvidenceSentence]]], sources: Sequence[str]) -> ExtractivePlan:
    """A list item per similar paper (abstract id, its scored sentences), under a lead naming what they are closest to
    (``sources``: the earlier papers' names)."""
    chosen = [(aid, e) for aid, evidence in per_paper if (e := line_sentence(evidence)) is not None]
    named = ", ".join(f"**{name}**" for name in sources)
    lead = f"The abstracts closest to {named} by what they say:" if named else ""
    return ExtractivePlan([aid for aid, _ in chosen], [e for _, e in chosen], "list", lead=lead)
