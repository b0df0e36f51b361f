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
