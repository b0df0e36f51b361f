"""Unit tests for rag/verify_binding.py (crossed roles) with small hand-written sentences."""

from __future__ import annotations

from rag.settings import VerifyPolicy
from rag.text import sentence_spans
from rag.verify import check_claim, tokenize
from rag.verify_binding import crossed_roles

EVIDENCE = "Our pipeline uses a rule tagger to split the recipe into cooking steps, then applies a neural parser to link the steps."


def _crossing(claim: str, *evidence: str):
    return crossed_roles(tokenize(claim), [tokenize(e) for e in evidence])


def test_two_terms_trading_what_they_do_is_a_crossing():
    c = _crossing("The pipeline uses a neural parser to split the recipe into cooking steps and a rule tagger to link the steps.", EVIDENCE)
    assert c is not None and {c.first, c.second} == {"neural parser", "rule tagger"}


def test_the_same_roles_in_other_words_are_no_crossing():
    assert _crossing("A rule tagger splits the recipe into cooking steps and a neural parser links the steps.", EVIDENCE) is None


def test_a_phrase_moved_to_the_front_is_no_crossing():
    evidence = "The planner reaches the goal in fewer moves than the greedy baseline when the map is partially observed."
    assert _crossing("When the map is partially observed, the planner reaches the goal in fewer moves than the greedy baseline.", evidence) is None


def test_symmetric_terms_next_to_each_other_are_no_crossing():
    assert _crossing("Dropout is combined with weight decay in every layer.", "Weight decay is combined with dropout in every layer.") is None


def test_terms_named_after_what_they_do_trading_places():
    evidence = "The codec defines two knobs: Frame Rate, the number of images shown per second, and Bit Depth, the number of bits per pixel."
    claim = "In the codec, Bit Depth is the number of images shown per second, while Frame Rate is the number of bits per pixel."
    assert _crossing(claim, evidence) is not None


def test_parts_of_two_sentences_in_another_order_are_no_crossing():
    first = "Sparse labels make the detector overconfident on rare classes."
    second = "Dense labels slow the annotation of large image collections."
    claim = "Dense labels slow annotation of large image collections, and sparse labels make the detector overconfident on rare classes."
    assert _crossing(claim, first, second) is None


def test_a_crossing_makes_the_claim_unsupported_with_a_readable_reason():
    abstract = "We study recipe parsing. " + EVIDENCE + " The pipeline is evaluated on ten cookbooks."
    spans = sentence_spans(abstract)
    sims = [0.2, 0.9, 0.2]
    claim = "The pipeline uses a neural parser to split the recipe into cooking steps and a rule tagger to link the steps."
    v = check_claim(claim, abstract, spans, sims, VerifyPolicy())
    assert not v.verified and v.failures[0].check == "roles"
    assert "the other way round" in v.reason and "rule tagger" in v.reason
    faithful = "The pipeline uses a rule tagger to split the recipe into cooking steps and a neural parser to link the steps."
    assert check_claim(faithful, abstract, spans, sims, VerifyPolicy()).verified
