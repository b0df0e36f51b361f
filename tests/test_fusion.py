"""Score fusion robust to wording: BM25 counts only as far as its best match covers the question (pure)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rag.bm25 import BM25Index
from rag.policy import AnswerPolicy
from rag.retrieve import (
    HybridRetriever,
    bm25_strength,
    centroid_cosines,
    dense_clarity,
    expansion_terms,
    fusion_trust,
    lexical_scores,
    lexical_trust,
    pooled_views,
    query_words,
    question_surface_words,
    score_fuse,
    search_text,
    single_paper,
    top_mean_by_group,
    with_links,
)
from rag.text import content_words

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


def test_top_mean_by_group_averages_each_consecutive_groups_largest_values():
    values = np.array([0.1, 0.7, 0.2, 0.5, -0.3, 0.9], dtype=np.float32)
    assert top_mean_by_group(["x", "y", "z"], [3, 1, 2], values, 1) == pytest.approx({"x": 0.7, "y": 0.5, "z": 0.9})
    # Two best: x -> (0.7 + 0.2) / 2; y has one value only; z -> (0.9 - 0.3) / 2.
    assert top_mean_by_group(["x", "y", "z"], [3, 1, 2], values, 2) == pytest.approx({"x": 0.45, "y": 0.5, "z": 0.3})


def _fake_snapshot_with_sentences():
    """A fake snapshot: 'p' has three sentences, two of them on the question's axis 1 and one off it; 'q' has one
    sentence exactly on axis 1 and three far from it."""
    vectors = np.array(
        [[0.0, 0.9, 0.436], [0.0, 0.8, 0.6], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0],
         [1.0, 0.0, 0.0]],
        dtype=np.float32,
    )  # fmt: skip
    return SimpleNamespace(sentence_rows={"p": range(0, 3), "q": range(3, 7)}, sentence_vectors=vectors)


# The best-sentences view alone (no pooling with the best sentence or the centroid).
_TOP_ONLY = AnswerPolicy(dense_best_share=0.0, dense_centroid_share=0.0)


def test_an_abstract_scores_by_its_best_sentences_not_by_all_of_them():
    retriever = HybridRetriever(_fake_snapshot_with_sentences(), store=None, embedder=None, policy=_TOP_ONLY)  # type: ignore[arg-type]
    question = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    two = retriever.dense_sentence_scores(question, ["p", "q"], 2)
    assert two == pytest.approx({"p": 0.85, "q": 0.5})  # p: two sentences on the topic beat q's single one
    one = retriever.dense_sentence_scores(question, ["p", "q"], 1)
    assert one == pytest.approx({"p": 0.9, "q": 1.0})
    # The mean over every sentence (what one vector of the whole abstract holds) is lower for both.
    assert np.mean([0.9, 0.8, 0.0]) < two["p"] and np.mean([1.0, 0.0, 0.0, 0.0]) < two["q"]


def test_sentence_scores_skip_unknown_abstracts_and_read_only_the_candidates():
    retriever = HybridRetriever(_fake_snapshot_with_sentences(), store=None, embedder=None, policy=_TOP_ONLY)  # type: ignore[arg-type]
    question = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    assert retriever.dense_sentence_scores(question, ["q", "gone"], 2) == pytest.approx({"q": 1.0})
    assert retriever.dense_sentence_scores(question, [], 2) == {}
    pooled = HybridRetriever(_fake_snapshot_with_sentences(), store=None, embedder=None)  # type: ignore[arg-type]
    assert set(pooled.dense_sentence_scores(question, ["q", "gone"], 2)) == {"q"}
    assert pooled.dense_sentence_scores(question, [], 2) == {}


def test_centroid_cosine_reads_the_whole_group_renormalised():
    rows = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)
    question = np.array([1.0, 0.0], dtype=np.float32)
    got = centroid_cosines(["a", "b"], [2, 1], rows, question)
    # a: centroid (0.5, 0.5) re-normalised is (0.707, 0.707); b: its one row
    assert got == pytest.approx({"a": 2**-0.5, "b": 0.6}, abs=1e-6)


def test_centroid_of_opposite_rows_scores_zero_not_nan():
    rows = np.array([[1.0, 0.0], [-1.0, 0.0]], dtype=np.float32)
    assert centroid_cosines(["a"], [2], rows, np.array([1.0, 0.0], dtype=np.float32)) == {"a": 0.0}


def test_pooled_views_weigh_the_three_views_by_their_shares():
    top, best, centroid = {"a": 0.6, "b": 0.5}, {"a": 0.9, "b": 0.5}, {"a": 0.3, "b": 0.8}
    assert pooled_views(top, best, centroid, 0.0, 0.0) == pytest.approx(top)
    assert pooled_views(top, best, centroid, 0.5, 0.5) == pytest.approx({"a": 0.6, "b": 0.65})
    # a third each: a = (0.6 + 0.9 + 0.3) / 3, b = (0.5 + 0.5 + 0.8) / 3
    assert pooled_views(top, best, centroid, 1 / 3, 1 / 3) == pytest.approx({"a": 0.6, "b": 0.6})


def test_pooled_views_clip_shares_over_one_and_fall_back_to_the_top_view():
    # shares summing past 1 are scaled to sum to 1 (the top view gets none, not a negative share)
    assert pooled_views({"a": 0.2}, {"a": 1.0}, {"a": 0.0}, 1.0, 1.0) == pytest.approx({"a": 0.5})
    # a view missing for an abstract counts as its top score
    assert pooled_views({"a": 0.4}, {}, {}, 0.25, 0.25) == pytest.approx({"a": 0.4})


def test_the_retriever_pools_its_candidates_views_with_the_policys_shares():
    snapshot = _fake_snapshot_with_sentences()
    question = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    policy = AnswerPolicy(dense_best_share=0.2, dense_centroid_share=0.5)
    pooled = HybridRetriever(snapshot, store=None, embedder=None, policy=policy).dense_sentence_scores(  # type: ignore[arg-type]
        question, ["p", "q"], 2
    )
    top = HybridRetriever(snapshot, store=None, embedder=None, policy=_TOP_ONLY).dense_sentence_scores(  # type: ignore[arg-type]
        question, ["p", "q"], 2
    )
    best = {"p": 0.9, "q": 1.0}
    centroid = centroid_cosines(["p", "q"], [3, 4], snapshot.sentence_vectors, question)
    assert pooled == pytest.approx(pooled_views(top, best, centroid, 0.2, 0.5))
    # q's one exact sentence among three off the topic: its centroid is further from the question than p's
    assert centroid["p"] > centroid["q"]


def test_lexical_scores_of_words_equal_the_scores_of_a_text_with_them():
    index = BM25Index(DOCS)
    words = content_words("sparse tokenizer for restaurant surveys")
    assert np.allclose(lexical_scores(index, words), index.scores("sparse tokenizer for restaurant surveys"))
    assert not lexical_scores(index, ["zebra"]).any()


def test_request_words_do_not_rank_an_abstract_for_saying_study():
    # "study" matches the second abstract only; the topic ("recurrent training") is the third one's
    index = BM25Index(DOCS)
    question = "Summarize the papers that study recurrent training"
    words = query_words(question, AnswerPolicy())
    assert "studi" not in words and "recurr" in words
    assert int(np.argmax(lexical_scores(index, words))) == 2
    all_words = query_words(question, AnswerPolicy(lexical_skips_request_words=False))
    assert "studi" in all_words


def test_strength_reads_words_or_text_alike():
    index = BM25Index(DOCS)
    text = "QuillNet sparse tokenizer"
    top = float(index.scores(text).max())
    assert bm25_strength(index, content_words(text), top) == pytest.approx(bm25_strength(index, text, top))


def test_a_linked_name_decides_between_close_candidates_not_against_a_clear_winner():
    boost = AnswerPolicy().link_boost
    close = with_links({"top": 1.0, "named": 0.85}, {"named": 1.0}, boost)
    assert max(close, key=close.get) == "named"
    clear = with_links({"top": 1.0, "named": 0.4}, {"named": 1.0}, boost)
    assert max(clear, key=clear.get) == "top"
    # an abstract only the name finds still enters the ranking
    assert with_links({"top": 1.0}, {"named": 0.5}, boost)["named"] == pytest.approx(0.5 * boost)


def test_dense_clarity_is_the_first_gap_over_the_gap_to_the_field():
    # winner 0.8, runner-up 0.5, field down to 0.4: (0.8 - 0.5) / (0.8 - 0.4)
    scores = {"a": 0.8, "b": 0.5, "c": 0.45, "d": 0.4}
    assert dense_clarity(scores, 4) == pytest.approx(0.75)
    # a reference past the end reads the last score
    assert dense_clarity(scores, 10) == pytest.approx(0.75)
    # two close leaders: low clarity
    assert dense_clarity({"a": 0.61, "b": 0.60, "c": 0.30}, 10) == pytest.approx(0.01 / 0.31)


def test_dense_clarity_of_one_or_equal_scores_is_zero():
    assert dense_clarity({"a": 0.7}, 10) == 0.0
    assert dense_clarity({"a": 0.5, "b": 0.5}, 10) == 0.0
    assert dense_clarity({}, 10) == 0.0


def test_dense_clarity_does_not_depend_on_the_similarity_scale():
    scores = {"a": 0.8, "b": 0.5, "c": 0.45, "d": 0.4}
    shifted = {k: 0.5 * v - 0.1 for k, v in scores.items()}
    assert dense_clarity(shifted, 10) == pytest.approx(dense_clarity(scores, 10))


def test_a_partial_lexical_match_yields_to_a_clear_dense_winner():
    policy = AnswerPolicy(bm25_trust_low=0.1, bm25_trust_high=0.3, dense_clear_gap_low=0.3, dense_clear_gap_high=0.6)
    clear = {"a": 0.8, "b": 0.5, "c": 0.45, "d": 0.4}  # clarity 0.75
    close = {"a": 0.61, "b": 0.60, "c": 0.45, "d": 0.40}  # clarity ~0.05
    partial = 0.25  # lexical_trust 0.75
    assert fusion_trust(partial, close, policy) == pytest.approx(0.75)
    assert fusion_trust(partial, clear, policy) == 0.0
    # the weak lexical side then cannot lift its own favourite over the dense winner
    bm25 = {"b": 9.0, "a": 1.0}
    fused = score_fuse(clear, bm25, 0.5, fusion_trust(partial, clear, policy))
    assert max(fused, key=fused.get) == "a"


def test_a_strong_lexical_match_keeps_its_weight_whatever_the_dense_clarity():
    policy = AnswerPolicy(bm25_trust_low=0.1, bm25_trust_high=0.3, dense_clear_gap_low=0.3, dense_clear_gap_high=0.6)
    clear = {"a": 0.8, "b": 0.5, "c": 0.45, "d": 0.4}
    assert fusion_trust(0.3, clear, policy) == 1.0
    assert fusion_trust(0.7, clear, policy) == 1.0


def test_clarity_between_the_bounds_scales_the_lexical_share_linearly():
    policy = AnswerPolicy(bm25_trust_low=0.0, bm25_trust_high=0.5, dense_clear_gap_low=0.2, dense_clear_gap_high=0.6)
    scores = {"a": 1.0, "b": 0.6, "c": 0.2, "d": 0.0}  # clarity 0.4: halfway
    assert fusion_trust(0.25, scores, policy) == pytest.approx(0.5 * 0.5)


def test_when_both_rankings_agree_on_the_winner_bm25_keeps_its_share():
    policy = AnswerPolicy(bm25_trust_low=0.1, bm25_trust_high=0.3, dense_clear_gap_low=0.3, dense_clear_gap_high=0.6)
    clear = {"a": 0.8, "b": 0.5, "c": 0.45, "d": 0.4}
    assert fusion_trust(0.25, clear, policy, lexical_top="a") == pytest.approx(0.75)
    assert fusion_trust(0.25, clear, policy, lexical_top="b") == 0.0


class _FakeLexicon:
    """A fake lexicon: knows the stems given, corrects nothing."""

    def __init__(self, stems: set[str]) -> None:
        self.stems = stems

    def correct(self, question: str, policy: object = None, **_: object) -> tuple[str, list[str]]:
        return question, []


def _fake_snapshot(stems: set[str]) -> SimpleNamespace:
    """A fake snapshot: the fake lexicon and a real BM25 index over DOCS (the spelling's word frequencies)."""
    index = BM25Index(DOCS)
    return SimpleNamespace(lexicon=_FakeLexicon(stems), bm25=index, sentence_bm25=index, chunks=[])


def test_a_question_the_encoder_cannot_read_is_searched_with_its_gloss_in_the_corpus_words(monkeypatch):
    seen = {}

    def fake_gloss(question, known=None):
        seen["known"] = known
        return "large model" if known and known("larg") else "big model"

    monkeypatch.setattr("rag.retrieve.gloss", fake_gloss)
    text = search_text(_fake_snapshot({"larg", "model"}), "\u5927\u6a21\u578b", AnswerPolicy())
    assert text == "large model"
    assert seen["known"]("model") and not seen["known"]("zebra")


def test_an_english_question_is_searched_as_written():
    assert search_text(_fake_snapshot(set()), "Which tokenizer reads proteins?", AnswerPolicy()) == (
        "Which tokenizer reads proteins?"
    )


def test_search_reads_the_shape_words_as_answering_does():
    # the misspelt words of the question's shape are fixed before the corpus's names and words
    assert search_text(_fake_snapshot(set()), "is tehre a paper on tokenizers?", AnswerPolicy()) == (
        "is there a paper on tokenizers?"
    )


def test_surface_words_are_the_distinct_content_words_of_three_letters_or_more():
    assert question_surface_words("Which film tagger names the actors of a film? It is QuillNet.") == [
        "film",
        "tagger",
        "names",
        "actors",
        "quillnet",
    ]


def test_expansion_takes_close_corpus_words_by_their_best_similarity_but_not_the_questions_own():
    asked = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=np.float32)  # "movie", "helper"
    vocabulary = np.array(
        [[0.8, 0.6, 0.0], [0.0, 0.7, 0.714], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], dtype=np.float32
    )  # "film" near both, "surrogate" near "helper", "quasar" near neither, "movie" itself
    terms = expansion_terms(asked, vocabulary, ["film", "surrog", "quasar", "movi"], {"movi"}, 0.65)
    assert terms == pytest.approx({"film": 0.8, "surrog": 0.7})
    assert expansion_terms(asked, vocabulary[:0], [], set(), 0.65) == {}


def test_expansion_is_for_questions_about_one_work():
    assert single_paper("How does QuillNet tokenize protein sequences?")
    assert not single_paper("Which papers study protein tokenizers?")
    assert not single_paper("Compare QuillNet and ZedNet.")


class _WordEmbedder:
    """Each known word a fixed unit vector; any other text the zero vector."""

    VECTORS = {"movie": [1.0, 0.0], "film": [0.9, 0.436], "restaurant": [0.0, 1.0]}

    def encode(self, texts):
        return np.array([self.VECTORS.get(t, [0.0, 0.0]) for t in texts], dtype=np.float32)


def test_a_question_in_other_words_reaches_the_corpus_word_the_encoder_puts_near_it():
    docs = ["A film tagger names every actor on screen.", "Diners choose a restaurant from survey data."]
    snapshot = SimpleNamespace(bm25=BM25Index(docs), columns=SimpleNamespace(texts=lambda: iter(docs)),
                               expansion_vocabulary=None)
    question = "How are people in a movie told apart?"
    for min_sim, expected in ((0.8, True), (0.95, False)):
        policy = AnswerPolicy(lexical_expansion_min_sim=min_sim)
        retriever = HybridRetriever(snapshot, store=None, embedder=_WordEmbedder(), policy=policy)  # type: ignore[arg-type]
        scores = retriever._expansion_scores(question, query_words(question, policy))
        assert bool(scores[0] > 0) is expected and scores[1] == 0
