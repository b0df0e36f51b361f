"""Score fusion robust to wording: BM25 counts only as far as its best match covers the question (pure)."""

from __future__ import annotations

import pytest

from rag.bm25 import BM25Index
from rag.retrieve import bm25_strength, lexical_trust, score_fuse

DOCS = [
    "We introduce QuillNet, a sparse tokenizer for protein sequences trained on ribosome data.",
    "A study of how people choose which restaurant to visit, using survey data from many cities.",
    "Gradient clipping stabilises training of deep recurrent networks on long sequences.",
]


def test_trust_ramp_is_zero_below_low_one_above_high_and_linear_between():
    assert lexical_trust(0.05, 0.1, 0.3) == 0.0
    assert lexical_trust(0.1, 0.1, 0.3) == 0.0
    assert lexical_trust(0.2, 0.1, 0.3) == pytest.approx(0.5)
    assert lexical_trust(0.3, 0.1, 0.3) == 1.0
    assert lexical_trust(0.9, 0.1, 0.3) == 1.0


def test_trust_with_equal_bounds_is_a_step():
    assert lexical_trust(0.2, 0.2, 0.2) == 1.0
    assert lexical_trust(0.19, 0.2, 0.2) == 0.0


def test_a_question_copying_rare_words_is_a_strong_match_a_paraphrase_a_weak_one():
    index = BM25Index(DOCS)
    copying = "QuillNet sparse tokenizer protein sequences ribosome"
    paraphrase = "is there a way to split chains of amino acids into pieces for models to read"
    strong = bm25_strength(index, copying, float(index.scores(copying).max()))
    weak_scores = index.scores(paraphrase)
    weak = bm25_strength(index, paraphrase, float(weak_scores.max()))
    assert strong > 0.4
    assert weak < strong / 2


def test_strength_is_zero_without_known_words_or_match():
    index = BM25Index(DOCS)
    assert bm25_strength(index, "zebra xylophone", 0.0) == 0.0
    assert bm25_strength(index, "QuillNet", 0.0) == 0.0


def test_untrusted_bm25_leaves_the_dense_order():
    dense = {"a": 0.62, "b": 0.60, "c": 0.30}
    bm25 = {"b": 9.0, "c": 1.0}
    assert max(score_fuse(dense, bm25, 0.5, 0.0).items(), key=lambda kv: kv[1])[0] == "a"
    assert max(score_fuse(dense, bm25, 0.5, 1.0).items(), key=lambda kv: kv[1])[0] == "b"


def test_fused_scores_are_shares_of_normalised_scores():
    fused = score_fuse({"a": 1.0, "b": 0.0}, {"a": 2.0, "b": 4.0}, 0.5, 0.5)
    assert fused["a"] == pytest.approx(0.5 + 0.25 * 0.5)
    assert fused["b"] == pytest.approx(0.25)
