"""Attribution: what the abstract says of existing methods, given to the paper (rag/verify.py), own examples."""

from __future__ import annotations

from rag.settings import VerifyPolicy
from rag.text import sentence_spans
from rag.verify import check_claim
from rag.verify_attribution import _comma_parts
from rag.verify_tokens import tokenize

ABSTRACT = (
    "Existing compression methods usually rely on hand-tuned bit budgets or retraining, acting on the weights "
    "without modelling how errors spread across layers. "
    "We propose QuillPack, which allocates bits by tracing error propagation through the network. "
    "QuillPack halves memory at equal perplexity."
)


def _check(claim: str, best: int):
    spans = sentence_spans(ABSTRACT)
    sims = [0.2] * len(spans)
    sims[best] = 0.85
    return check_claim(claim, ABSTRACT, spans, sims, VerifyPolicy())


def test_like_existing_methods_with_what_only_they_do_is_rejected():
    v = _check("Like existing compression methods, QuillPack relies on hand-tuned bit budgets acting on the weights.", 0)
    assert not v.verified and "other work" in v.reason


def test_what_the_paper_does_is_fine():
    assert _check("QuillPack allocates bits by tracing how errors propagate through the network.", 1).verified


def test_comma_parts_cut_a_span_where_the_sentence_has_commas():
    text = "rely on budgets, acting on weights; without care"
    parts = _comma_parts([t for t in tokenize(text) if not t.is_punct], text)
    assert [[t.text for t in p] for p in parts] == [["rely", "on", "budgets"], ["acting", "on", "weights"], ["without", "care"]]
    assert _comma_parts(list(tokenize("no commas here")), "no commas here") == []
