"""Score fusion robust to wording: BM25 counts only as far as its best match covers the question (pure)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rag.bm25 import BM25Index
from rag.retrieve import HybridRetriever, bm25_strength, lexical_trust, max_by_group, score_fuse

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


def test_max_by_group_takes_each_consecutive_groups_maximum():
    values = np.array([0.1, 0.7, 0.2, 0.5, -0.3, 0.9], dtype=np.float32)
    best = max_by_group(["x", "y", "z"], [3, 1, 2], values)
    assert best == pytest.approx({"x": 0.7, "y": 0.5, "z": 0.9})


def _fake_snapshot_with_sentences():
    """A fake snapshot: two abstracts, 'p' with sentences along axes 0 and 1, 'q' with one sentence between them."""
    vectors = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.6, 0.8, 0.0]], dtype=np.float32)
    return SimpleNamespace(sentence_rows={"p": range(0, 2), "q": range(2, 3)}, sentence_vectors=vectors)


def test_an_abstract_scores_by_its_best_sentence_not_the_average_of_its_sentences():
    retriever = HybridRetriever(_fake_snapshot_with_sentences(), store=None, embedder=None)  # type: ignore[arg-type]
    question = np.array([0.0, 1.0, 0.0], dtype=np.float32)  # exactly p's second sentence
    scores = retriever.dense_sentence_scores(question, ["p", "q"])
    assert scores == pytest.approx({"p": 1.0, "q": 0.8})
    # An average over p's sentences (what one chunk vector of both would hold) would rank q first.
    assert np.mean([0.0, 1.0]) < scores["q"]


def test_sentence_scores_skip_unknown_abstracts_and_read_only_the_candidates():
    retriever = HybridRetriever(_fake_snapshot_with_sentences(), store=None, embedder=None)  # type: ignore[arg-type]
    question = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    assert retriever.dense_sentence_scores(question, ["q", "gone"]) == pytest.approx({"q": 0.6})
    assert retriever.dense_sentence_scores(question, []) == {}
