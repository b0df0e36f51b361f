import numpy as np
import pytest

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


def test_repeated_term_raises_score_with_saturation():
    index = BM25Index(["calibration", "calibration calibration calibration", "other words here"])
    s = index.scores("calibration")
    assert s[1] > s[0] > 0


def test_top_indices_order_and_ties():
    assert top_indices(np.array([0.1, 0.5, 0.5, 0.2]), 3) == [1, 2, 3]
    assert top_indices(np.array([]), 3) == []
    assert top_indices(np.array([1.0, 2.0]), 5) == [1, 0]


# --- word_counts: how many given content words each document holds ---


def test_word_counts_counts_present_words_with_repeats_and_ignores_unknown_ones():
    from rag.text import content_words

    index = BM25Index(DOCS)
    assert index.word_counts(content_words("calibration models quantum")).tolist() == [0, 0, 2]
    assert index.word_counts(content_words("screen screens CRISPR")).tolist() == [3, 0, 0]
    assert index.word_counts([]).tolist() == [0, 0, 0]
    assert BM25Index([]).word_counts(["screen"]).shape == (0,)


def test_word_counts_give_the_focus_share_of_each_seed_sentence():
    """score_sentences reads focus shares off the sentence BM25 matrix; they must equal focus_share over each
    sentence's own content words (the definition it replaced)."""
    from pathlib import Path

    from rag.text import content_words, sentence_spans

    seeds = sorted(Path(__file__).resolve().parents[1].joinpath("seeds").glob("*.txt"))
    paragraphs = [p for path in seeds for p in path.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()]
    sentences = [s.of(p) for p in paragraphs for s in sentence_spans(p)]
    index = BM25Index(sentences)

    def share(focus, words):  # the definition: the share of focus words (repeats counted) the sentence holds
        return sum(w in words for w in focus) / len(focus)

    for question in ("model", "calibration error", "screens screen gene", "nonexistentword data"):
        focus = content_words(question)
        counts = index.word_counts(focus)
        assert counts.any()
        assert [int(c) / len(focus) for c in counts] == [share(focus, set(content_words(s))) for s in sentences]


def test_column_compressed_weights_sum_columns_like_a_dense_matrix():
    from rag.bm25 import CscWeights

    rows, cols = np.array([0, 0, 1, 2, 2]), np.array([1, 2, 0, 1, 2])
    values = np.array([0.5, 1.5, 2.0, 0.25, 4.0], np.float32)
    weights = CscWeights.from_entries(rows, cols, values, (3, 3))
    dense = np.zeros((3, 3), np.float32)
    dense[rows, cols] = values
    weights.check()
    assert np.array_equal(weights.column_sums([1, 2]), dense[:, [1, 2]].sum(axis=1))
    assert np.array_equal(weights.column_sums([]), np.zeros(3, np.float32))


@pytest.mark.parametrize("damage", ["pointer order", "row out of range", "pointer length"])
def test_damaged_column_compressed_weights_are_refused(damage):
    from rag.bm25 import CscWeights

    good = CscWeights.from_entries(np.array([0, 1]), np.array([0, 1]), np.ones(2, np.float32), (2, 2))
    if damage == "pointer order":
        bad = CscWeights(good.data, good.indices, np.array([0, 2, 1]), good.shape)
    elif damage == "row out of range":
        bad = CscWeights(good.data, np.array([0, 5], np.int32), good.indptr, good.shape)
    else:
        bad = CscWeights(good.data, good.indices, good.indptr[:-1], good.shape)
    with pytest.raises(ValueError):
        bad.check()


def test_rows_of_a_term_are_the_documents_holding_it():
    from rag.bm25 import CscWeights

    rows, cols = np.array([0, 2, 1, 2]), np.array([0, 0, 1, 1])
    weights = CscWeights.from_entries(rows, cols, np.array([1.0, 0.5, 0.0, 2.0], np.float32), (3, 3))
    assert weights.rows_of(0).tolist() == [0, 2]
    assert weights.rows_of(1).tolist() == [2]  # a stored zero is no occurrence
    assert weights.rows_of(2).tolist() == []
