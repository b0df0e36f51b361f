import numpy as np

from rag.bm25 import BM25Index, top_indices

DOCS = [
    "AssayBench uses CRISPR screens for phenotypic prediction",
    "Dropout in clinical survival studies causes censoring bias",
    "Calibration of language models and expected calibration error",
]


def test_relevant_document_scores_highest():
    index = BM25Index(DOCS)
    assert int(np.argmax(index.scores("how many CRISPR screens"))) == 0


def test_stemming_matches_plural_and_singular():
    assert BM25Index(DOCS).scores("screen")[0] > 0


def test_unknown_words_score_zero():
    assert not BM25Index(DOCS).scores("quantum teleportation").any()


def test_empty_query_and_empty_index():
    assert not BM25Index(DOCS).scores("the of and").any()
    assert BM25Index([]).scores("anything").shape == (0,)


def test_known_fraction():
    index = BM25Index(DOCS)
    assert index.known_fraction("CRISPR teleportation") == 0.5
    assert index.known_fraction("") == 0.0


def test_repeated_term_raises_score_with_saturation():
    index = BM25Index(["calibration", "calibration calibration calibration", "other words here"])
    s = index.scores("calibration")
    assert s[1] > s[0] > 0


def test_top_indices_order_and_ties():
    assert top_indices(np.array([0.1, 0.5, 0.5, 0.2]), 3) == [1, 2, 3]
    assert top_indices(np.array([]), 3) == []
    assert top_indices(np.array([1.0, 2.0]), 5) == [1, 0]
