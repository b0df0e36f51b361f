"""Checking a claim against a small abstract with faked MiniLM similarities (no encoder): the sentence numbered
``best`` is the one the claim is closest to, every other sentence scores ``other``."""

from __future__ import annotations

from rag.settings import VerifyPolicy
from rag.text import sentence_spans
from rag.verify import check_claim


def check_with_fake_similarity(abstract: str, claim: str, best: int = 0, sim: float = 0.85, other: float = 0.2,
                               **policy):  # fmt: skip
    spans = sentence_spans(abstract)
    sims = [other] * len(spans)
    sims[best] = sim
    return check_claim(claim, abstract, spans, sims, VerifyPolicy(**policy))
