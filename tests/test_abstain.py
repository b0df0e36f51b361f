"""Unit tests for rag/abstain.py: one score from several signals, one threshold (made-up signal values)."""

from __future__ import annotations

from dataclasses import replace

from rag.abstain import (
    AbstentionSignals,
    abstention_score,
    decide,
    least_missing,
    names_counted,
    names_new,
    number_near,
    reason_for,
)
from rag.policy import AnswerPolicy

POLICY = AnswerPolicy()
CLEAR = AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7)


def test_a_clear_answer_scores_low_and_answers():
    decision = decide(CLEAR, POLICY)
    assert not decision.abstain
    assert decision.score < POLICY.abstain_threshold
    assert decision.reason == ""


def test_score_is_computed_between_zero_and_one():
    for signals in (CLEAR, AbstentionSignals(unknown_names=("Zorb",), best_dense=0.1)):
        assert 0.0 <= abstention_score(signals, POLICY) <= 1.0


def test_each_signal_raises_the_score():
    base = abstention_score(CLEAR, POLICY)
    for changed in (
        AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7, unknown_names=("Zorb",)),
        AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7, missing_names=("Zorb",)),
        AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7, focus_missing=1.0),
        AbstentionSignals(shape="number", linked_exact=True, best_dense=0.7, number_missing=True),
        AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7, topic_unknown=1.0),
        AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7, names_missing=True),
        AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7, phrase_missing=1.0),
        AbstentionSignals(shape="number", linked_exact=True, best_dense=0.7, value_missing=True),
    ):
        assert abstention_score(changed, POLICY) >= base  # a signal the fit found no use for weighs 0 (never < 0)
        assert abstention_score(changed, _all_weighted(POLICY)) > abstention_score(CLEAR, _all_weighted(POLICY))


def _all_weighted(policy: AnswerPolicy) -> AnswerPolicy:
    """The policy with every signal weighing at least 1 (as a fit may give it)."""
    from rag.abstain import WEIGHTS

    return policy.model_copy(update={f: max(1.0, getattr(policy, f)) for f in WEIGHTS.values() if f != "w_list_shape"})


def test_a_list_question_whose_best_sentence_is_far_from_it_leans_to_no():
    near = AbstentionSignals(shape="list", best_dense=0.6)
    far = AbstentionSignals(shape="list", best_dense=0.2)
    assert abstention_score(far, POLICY) > abstention_score(near, POLICY)


def test_no_single_weak_signal_vetoes_a_well_supported_answer():
    # A name missing from the answering abstract, with everything else pointing to an answer, is not a refusal.
    signals = AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.75, missing_names=("Zorb",))
    assert not decide(signals, POLICY).abstain


def test_unknown_name_with_weak_evidence_abstains_and_names_it():
    weak = POLICY.similarity_floor - 0.3  # evidence well below the neutral similarity (the floor is fitted)
    signals = AbstentionSignals(shape="fact", unknown_names=("Zorblax-9",), best_dense=weak, topic_unknown=1.0)
    # every signal weighing (a refit may find little use for weak evidence on its own)
    decision = decide(signals, _all_weighted(POLICY))
    assert decision.abstain
    assert "Zorblax-9" in decision.reason


def test_unreadable_question_skips_the_similarity_signal():
    # best_dense None: the encoder cannot read the question, so similarity neither helps nor hurts.
    with_none = AbstentionSignals(shape="list", linked_exact=True, best_dense=None)
    low = AbstentionSignals(shape="list", linked_exact=True, best_dense=0.0)
    assert abstention_score(with_none, POLICY) < abstention_score(low, POLICY)


def test_no_evidence_always_abstains():
    assert decide(AbstentionSignals(has_evidence=False), POLICY).abstain


def test_threshold_comes_from_the_policy():
    signals = AbstentionSignals(shape="fact", best_dense=0.4)
    score = abstention_score(signals, POLICY)
    assert decide(signals, POLICY.model_copy(update={"abstain_threshold": score})).abstain
    assert not decide(signals, POLICY.model_copy(update={"abstain_threshold": min(1.0, score + 0.01)})).abstain


def test_pairs_unseen_counts_question_word_pairs_no_sentence_holds_together():
    from rag.answering import pairs_unseen
    from rag.text import content_words

    sentences = ["We train a spiking network on event cameras.", "Learning is federated across many phones."]
    assert pairs_unseen(content_words("spiking network"), sentences) == 0.0
    # both words occur, but never near each other in one sentence
    assert pairs_unseen(content_words("spiking phones"), sentences) == 1.0
    assert pairs_unseen(content_words("federated learning"), sentences) == 0.0
    assert pairs_unseen(content_words("robots"), sentences) == 0.0  # a single word has no pair


def test_pairs_unseen_reads_a_pair_written_inside_one_name_as_held():
    from rag.answering import pairs_unseen
    from rag.text import content_words

    sentences = ["We evaluate ZedNet on 3PondFrogQA and MarshBench."]
    assert pairs_unseen(content_words("frog qa"), sentences) == 0.0  # both inside "3PondFrogQA"
    assert pairs_unseen(content_words("frog marsh"), sentences) == 1.0  # inside two different names: no phrase
    assert pairs_unseen(content_words("toad qa"), sentences) == 1.0


def test_pairs_unseen_weighs_an_unseen_pair_by_the_english_rarity_of_its_rarer_word():
    from rag.answering import pairs_unseen

    sentences = ["ZedNet keeps the quux kernel sparse.", "Training data is safe."]
    rarity = {"keep": 0.2, "safe": 0.3, "quux": 1.0, "data": 0.2}.get
    everyday = pairs_unseen(["keep", "safe"], sentences, rarity=lambda w: rarity(w, 0.5))
    technical = pairs_unseen(["quux", "data"], sentences, rarity=lambda w: rarity(w, 0.5))
    assert everyday == 0.3 and technical == 1.0  # each counts by its rarer word
    assert pairs_unseen(["quux", "kernel"], sentences, rarity=lambda w: 1.0) == 0.0  # a seen pair weighs nothing


def test_pairs_unseen_counts_a_pair_with_a_skipped_word_only_when_some_sentence_holds_it():
    from rag.answering import pairs_unseen
    from rag.text import content_words

    sentences = ["Experiments on FooSet show that ZedNet improves recall.", "ZedNet reports benchmark gains."]
    words = content_words("which datasets is the recall model evaluated on")
    skip = frozenset(content_words("datasets evaluated model"))
    # "datasets" and "evaluated" are never written next to the detail words: those pairs are not counted
    assert pairs_unseen(words, sentences) == 1.0
    assert pairs_unseen(words, sentences, skip=skip) == 0.0
    # a pair with a skipped word that a sentence does hold still counts as seen
    gains = content_words("benchmark gains hardware")
    assert pairs_unseen(gains, sentences, skip=frozenset(content_words("benchmark"))) == 0.5


def test_a_compound_detail_word_is_held_when_its_parts_are():
    from rag.answering import _word_held
    from rag.text import content_words

    words = set(content_words("We find refusal neurons and a simplicity-biased optimiser."))
    assert _word_held(content_words("refusal-neuron")[0], words, "")
    assert _word_held(content_words("simplicity-bias")[0], words, "")
    assert not _word_held(content_words("safety-neuron")[0], words, "")
    assert _word_held("multihop", set(), "2wikimultihopqa")  # written inside a name


def test_parts_unseen_reads_a_topic_of_alternatives_by_its_best_part():
    from rag.answering import parts_unseen
    from rag.question import coordinated_parts
    from rag.text import content_words

    sentences = ["We image zebra cells under a microscope.", "Quux gardens grow in spring."]
    question = "Which papers cover quux farming or zebra cells?"
    words = [w for w in content_words(question) if w not in content_words("which papers cover")]
    parts = coordinated_parts(question, words)
    assert parts == [content_words("quux farming"), content_words("zebra cells")]
    # "farming quux" is no phrase of the sentences, "zebra cells" is: one alternative treated there is enough
    assert parts_unseen(parts, sentences) == 0.0
    assert parts_unseen(coordinated_parts("quux farming or zebra gardens", content_words("quux farming zebra gardens")), sentences) == 1.0
    assert parts_unseen([content_words("quux"), content_words("zebra")], sentences) == 0.0  # no part has a pair


def test_parts_unseen_reads_a_one_word_part_the_sentences_hold_as_a_topic_treated():
    from rag.answering import parts_unseen
    from rag.text import content_words

    sentences = ["We image zebra cells under a microscope.", "Quux gardens grow in spring."]
    unseen_phrase = content_words("blip farming")
    # "zebra or blip farming": "zebra" is written, so one alternative is treated, however the other is written
    assert parts_unseen([content_words("zebra"), unseen_phrase], sentences) == 0.0
    # a one-word part no sentence holds says nothing: the phrase part decides
    assert parts_unseen([content_words("wibble"), unseen_phrase], sentences) == 1.0
    assert parts_unseen([unseen_phrase], sentences) == 1.0


def test_parts_unseen_weighs_an_unseen_pair_by_its_commoner_word():
    from rag.answering import parts_unseen

    sentences = ["We image zebra cells under a microscope."]
    rarity = {"quux": 0.9, "blip": 0.8, "keep": 0.2}.get
    # a field's term missing weighs more than a phrase of everyday words, which abstracts say in their own terms
    technical = parts_unseen([["quux", "blip"]], sentences, rarity=lambda w: rarity(w, 0.5))
    everyday = parts_unseen([["keep", "blip"]], sentences, rarity=lambda w: rarity(w, 0.5))
    assert technical == 0.8 and everyday == 0.2
    assert parts_unseen([["zebra", "cell"]], sentences, rarity=lambda w: 1.0) == 0.0  # a seen pair weighs nothing


def test_coordinated_parts_break_at_commas_conjunctions_and_examples():
    from rag.question import coordinated_parts
    from rag.text import content_words

    words = content_words("zebra cells quux data weights")
    assert coordinated_parts("zebra cells, quux data and weights", words) == [
        content_words("zebra cells"), content_words("quux data"), content_words("weights")
    ]
    assert coordinated_parts("zebra cells (e.g. quux data)", words) == [content_words("zebra cells"), content_words("quux data")]


def test_a_list_question_on_a_topic_no_abstract_uses_leans_to_no():
    from rag.abstain import contributions

    single = AbstentionSignals(shape="fact", best_dense=0.45, topic_unknown=0.5)
    listing = AbstentionSignals(shape="list", best_dense=0.45, topic_unknown=0.5)
    assert contributions(listing, POLICY)["topic_unknown_list"] > 0
    assert contributions(single, POLICY)["topic_unknown_list"] == 0


VOCABULARY = frozenset({"electricity", "demand", "forecasting", "protein", "design", "state", "art"})


def test_a_rare_word_one_edit_from_a_known_word_looks_mistyped():
    from rag.abstain import looks_mistyped

    assert looks_mistyped("electricaty", VOCABULARY)
    assert looks_mistyped("desgin", VOCABULARY)  # an adjacent swap is one edit
    assert not looks_mistyped("design", VOCABULARY)  # known
    assert not looks_mistyped("zqxwvy", VOCABULARY)  # close to nothing: an unknown word, not a typo
    # a real English word the vocabulary lacks is an absent topic, not a typo (it is common in English)
    assert not looks_mistyped("blockchain", VOCABULARY | {"blockchains"})


def test_mistyped_stems_skip_names_and_check_hyphen_parts():
    from rag.abstain import mistyped_stems
    from rag.text import content_words

    known = set(content_words(" ".join(VOCABULARY)))
    assert mistyped_stems("forecasting electricaty demand", known, VOCABULARY) == set(content_words("electricaty"))
    assert mistyped_stems("the statte-of-the-art design", known, VOCABULARY) >= set(content_words("statte"))
    assert mistyped_stems("what does ProtienNet do", known, VOCABULARY) == set()  # a name as written


def test_names_new_finds_a_name_the_question_does_not_give():
    from rag.abstain import names_new

    assert names_new(["We evaluate on CIFAR-10 and SVHN."], {"foonet"})
    assert not names_new(["FooNet is evaluated on six datasets."], {"foonet"})


def test_number_near_finds_a_number_next_to_what_is_counted():
    assert number_near("The corpus holds 4,200 annotated frogs.", {"frog"})
    assert number_near("It reaches an accuracy of 81.5% on the hold-out set.", {"accuraci"})


def test_a_value_written_in_words_is_a_value():
    from rag.abstain import values_in

    assert number_near("ZedNet adds less than one percent trainable overhead.", {"overhead"})
    assert values_in("It decodes three times faster than FooNet.")
    assert values_in("a two-fold gain in recall")
    assert not values_in("We train one model on two tasks.")  # counts, not values, unless a count is asked


def test_number_near_ignores_a_number_far_from_what_is_counted_or_stated_by_the_question():
    far = "We collected 300 recordings in the wild, and after careful manual cleaning we then label every frog."
    assert not number_near(far, {"frog"})
    assert not number_near("The corpus holds 4,200 frogs.", {"frog"}, stated={"4200"})
    assert not number_near("Frogs are hard to count.", {"frog"})


def test_value_missing_is_explained_as_a_number_not_stated():
    signals = AbstentionSignals(shape="fact", value_missing=True, best_dense=0.42)
    assert reason_for(signals, POLICY) == "No abstract states the number asked for."


def test_names_counted_reads_how_many_names_are_asked_for():
    assert names_counted("Which seven toolkits did the survey compare?") == 7
    assert names_counted("what are the three corpora used in the study") == 3
    assert names_counted("Which 4 encoders are tested?") == 4
    assert names_counted("Which toolkits did the survey compare?") == 0


def test_names_new_needs_enough_different_names_and_skips_quantities_and_the_questions_own_names():
    one = ["We evaluate on ZetaSet across 3D scenes."]
    assert names_new(one, {"foobench"}) and not names_new(one, {"foobench"}, at_least=2)
    assert not names_new(["FOO covers 4-way splits."], {"foo-bench"})  # a part of the asked name, a quantity
    assert names_new(["We test on ZetaSet and QuuxQA."], set(), at_least=2)


def test_a_vocabulary_of_several_word_sets_is_their_alphabetic_union():
    from rag.lexicon import Vocabulary, words_of_lengths

    corpus, common = frozenset({"graph", "x-ray", "kernel", "gpt4"}), frozenset({"kernel", "graph", "table", "[cls]"})
    view = Vocabulary((corpus, common))
    union = frozenset(w for w in corpus | common if w.isalpha())
    assert {w for w in view} == union
    assert all(w in view for w in union) and "x-ray" not in view and "gpt4" not in view and "grape" not in view
    assert words_of_lengths(view, 5, 6) == words_of_lengths(union, 5, 6) == ("graph", "table", "kernel")  # each word once
    assert hash(view) == hash(Vocabulary((corpus, common)))  # equal views share the cached length windows


def test_length_windows_are_ordered_by_length_and_clamped_at_the_ends():
    from rag.lexicon import words_of_lengths

    words = frozenset({"ab", "abc", "abd", "abcd", "abcdefg"})
    assert words_of_lengths(words, 3, 4) == ("abc", "abd", "abcd")
    assert words_of_lengths(words, -1, 2) == ("ab",)  # a short word's window may start below zero
    assert words_of_lengths(words, 5, 6) == () and words_of_lengths(words, 7, 99) == ("abcdefg",)
    assert words_of_lengths(words, 4, 3) == () and words_of_lengths(frozenset(), 1, 5) == ()


def test_length_windows_share_the_vocabularys_strings():
    from rag.lexicon import words_of_lengths

    words = frozenset("".join(["kern", "el", str(i)]) for i in range(3)) | {"graphs"}
    window = words_of_lengths(words, 6, 7)
    assert set(window) == words
    assert all(any(w is v for v in words) for w in window)  # references to the same strings, not copies
    assert all(a is b for a, b in zip(window, words_of_lengths(words, 6, 7), strict=True))


def test_looks_mistyped_reads_a_vocabulary_view_as_the_union():
    from rag.abstain import looks_mistyped
    from rag.lexicon import Vocabulary

    view = Vocabulary((frozenset({"electricity", "demand"}), frozenset({"forecasting", "design"})))
    assert looks_mistyped("electricaty", view) and looks_mistyped("desgin", view)
    assert not looks_mistyped("design", view)


# --- whether the answering abstract states what is asked (own made-up sentences) ---


def test_slot_missing_is_zero_when_one_sentence_holds_the_number_and_the_details():
    from rag.abstain import slot_missing
    from rag.text import content_words, numbers_in

    weights = dict.fromkeys(content_words("top-1 accuracy on the FooSet benchmark"), 1.0)
    sentences = ["We propose a new optimizer.", "It reaches 91.5% top-1 accuracy on FooSet."]
    assert slot_missing(sentences, weights, lambda s: bool(numbers_in(s))) < 0.3


def test_slot_missing_is_high_when_the_number_is_said_of_something_else():
    from rag.abstain import slot_missing
    from rag.text import content_words, numbers_in

    weights = dict.fromkeys(content_words("accuracy on BarSet"), 1.0)
    sentences = ["On FooSet it gains 4% accuracy.", "We also release BarSet, a harder benchmark."]
    assert slot_missing(sentences, weights, lambda s: bool(numbers_in(s))) >= 0.5


def test_slot_missing_is_one_without_any_answer_and_zero_without_details():
    from rag.abstain import slot_missing

    assert slot_missing(["No numbers here."], {"number": 1.0}, lambda s: False) == 1.0
    assert slot_missing(["Anything."], {}, lambda s: True) == 0.0


def test_answer_windows_keep_the_words_around_each_answer_word():
    from rag.abstain import answer_windows

    sentence = "On real graphs with dense clusters, FooNet reaches large speedups over BarLib and BazLib."
    windows = answer_windows(sentence, lambda w: w.startswith(("BarLib", "BazLib")), 2)
    assert windows == ["speedups over BarLib and BazLib.", "BarLib and BazLib."]
    assert answer_windows("Nothing to see.", lambda w: False, 3) == []


def test_slot_read_in_windows_misses_a_name_said_far_from_the_asked_detail():
    from rag.abstain import answer_windows, slot_missing
    from rag.text import content_words

    weights = dict.fromkeys(content_words("graphs"), 1.0)
    far = "On real graphs with strong shared structure, the method gives tenfold compression and beats BarLib."
    near = "We evaluate on the graphs FooGraph and BarGraph."

    def windows(sentence: str) -> list[str]:
        return answer_windows(sentence, lambda w: "Bar" in w or "Foo" in w, 3)

    assert slot_missing([far], weights, lambda s: "Bar" in s) == 0.0  # the sentence holds both
    assert slot_missing(windows(far), weights, lambda _: True) == 1.0  # not next to each other
    assert slot_missing(windows(near), weights, lambda _: True) == 0.0


def test_idf_weights_favour_rare_words_and_weigh_absent_words_by_the_given_share():
    from rag.abstain import idf_weights

    weights = idf_weights(["model", "regret", "zorbing"], {"model": 90, "regret": 2}, 100, {"zorbing": 0.5})
    assert weights["regret"] > weights["model"] > 0
    assert 0 < weights["zorbing"] < idf_weights(["zorbing"], {}, 100)["zorbing"]


def test_weighted_missing_is_the_weighted_share_not_present():
    from rag.abstain import weighted_missing

    assert weighted_missing({"a": 3.0, "b": 1.0}, {"a"}) == 0.25
    assert weighted_missing({}, set()) == 0.0


def test_english_rarity_separates_common_words_from_unknown_ones():
    from rag.abstain import english_rarity

    assert english_rarity("the", 7.0) < english_rarity("give", 7.0) < english_rarity("qwzxvbnet", 7.0) == 1.0


def test_without_compounds_drops_a_hyphenated_stem_whose_parts_are_there():
    from rag.abstain import without_compounds
    from rag.text import content_words

    words = content_words("privacy-related papers about well-known tricks")
    kept = without_compounds(words)
    assert not any("-" in w for w in kept)
    assert set(content_words("privacy related")) <= set(kept)


def test_the_new_signals_raise_the_score_once_weighted():
    policy = AnswerPolicy(w_slot_missing=2.0, w_topic_rare_missing_list=2.0)
    fact = AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7)
    assert abstention_score(AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.7, slot_missing=1.0),
                            policy) > abstention_score(fact, policy)  # fmt: skip
    rare_missing = AbstentionSignals(shape="yes_no", best_dense=0.5, topic_rare_missing=1.0)
    assert abstention_score(rare_missing, policy) > abstention_score(AbstentionSignals(shape="yes_no", best_dense=0.5), policy)
    # a single-answer question's rare-topic share is not read (a list signal)
    assert abstention_score(AbstentionSignals(shape="fact", best_dense=0.7, topic_rare_missing=1.0),
                            policy) == abstention_score(AbstentionSignals(shape="fact", best_dense=0.7), policy)  # fmt: skip


def test_number_near_reads_magnitude_suffixes():
    assert number_near("It holds 2.5M labelled frogs and 40K toads.", {"frog"})
    assert number_near("It holds 40K toads.", {"toad"})


def test_a_terse_keyword_query_whose_best_paper_lacks_its_rare_words_leans_to_no():
    policy = POLICY.model_copy(update={"w_topic_rare_missing_terse": 2.0})
    covered = AbstentionSignals(shape="fact", terse=True, best_dense=0.5, topic_rare_missing=0.0)
    lacking = AbstentionSignals(shape="fact", terse=True, best_dense=0.5, topic_rare_missing=0.8)
    assert abstention_score(lacking, policy) > abstention_score(covered, policy)
    assert "topic" in reason_for(AbstentionSignals(shape="fact", terse=True, topic_rare_missing=1.0),
                                 policy.model_copy(update={"w_topic_rare_missing_terse": 9.0}))  # fmt: skip


def test_the_terse_topic_signal_leaves_sentences_lists_and_comparisons_alone():
    from rag.abstain import features

    for signals in (
        AbstentionSignals(shape="fact", terse=False, topic_rare_missing=0.8),  # a question written as a sentence
        AbstentionSignals(shape="list", terse=True, topic_rare_missing=0.8),  # a list has its own weight
        AbstentionSignals(shape="compare", terse=True, topic_rare_missing=0.8),
    ):
        assert features(signals, POLICY)["topic_rare_terse"] == 0.0
    assert features(AbstentionSignals(shape="fact", terse=True, topic_rare_missing=0.8), POLICY)[
        "topic_rare_terse"
    ] == 0.8


def test_matched_mass_sums_the_weights_held_in_units_of_the_largest_idf():
    from rag.abstain import largest_idf, matched_mass

    weights = {"glacier": 4.0, "ice": 2.0, "model": 0.5}
    assert matched_mass(weights, {"glacier", "model"}, 5.0) == 0.9
    assert matched_mass(weights, set(), 5.0) == 0.0
    assert matched_mass(weights, {"glacier"}, 0.0) == 0.0
    assert largest_idf(73) > largest_idf(10) > 0.0


def test_rare_words_a_list_question_shares_with_its_best_paper_lean_to_answering():
    from rag.abstain import features

    policy = POLICY.model_copy(update={"w_topic_matched": -2.0})
    plain = AbstentionSignals(shape="yes_no", focus_missing=0.7, topic_rare_missing=0.6, best_dense=0.4)
    shared = AbstentionSignals(
        shape="yes_no", focus_missing=0.7, topic_rare_missing=0.6, best_dense=0.4, topic_matched=1.5
    )
    assert abstention_score(shared, policy) < abstention_score(plain, policy)
    # a question about one paper's detail is not read this way: its words are details, not a topic
    assert features(AbstentionSignals(shape="fact", topic_matched=1.5), policy)["topic_matched"] == 0.0
    assert features(shared, policy)["topic_matched"] == 1.5


def test_name_core_drops_a_hyphen_joined_english_modifier():
    from rag.abstain import name_core

    assert name_core("GNN-based") == "GNN"
    assert name_core("ViT-style") == "ViT"
    assert name_core("Co-Locator") == "Co-Locator"  # a hyphenated name, not a name and a word
    assert name_core("GPT-4o") == "GPT-4o"


def test_expansion_of_reads_an_acronym_defined_in_a_text():
    from rag.abstain import expansion_of

    texts = ["We study graph neural networks (GNNs) at scale.", "Chain-of-Thought (CoT) prompting helps."]
    assert expansion_of("GNN", texts) == "graph neural networks"
    assert expansion_of("CoT", texts) == "chain of thought"
    assert expansion_of("RAG", texts) is None
    assert expansion_of("Foo", texts) is None  # one capital: a word, not an acronym


def test_mentioned_in_accepts_a_name_written_otherwise():
    from rag.abstain import mentioned_in

    defining = ["Sparse Mixture-of-Experts (MoE) layers route tokens."]
    assert mentioned_in("GNN-based", "A graph neural network (GNN)-based scorer ranks nodes.")
    assert mentioned_in("MoE", "The layer is a hierarchical mixture of experts.", defining)
    assert mentioned_in("foonet", "We propose FooNet.")
    # the same initials by chance are not the name
    assert not mentioned_in("MoE", "We measure overall error.", defining)
    assert not mentioned_in("BarNet", "We propose FooNet.", defining)


def test_an_acronym_is_mentioned_by_the_words_its_letters_begin():
    from rag.abstain import mentioned_in, spelt_out_in

    text = "We mine pull requests and commits, and plan with Monte Carlo tree search."
    assert spelt_out_in("PRs", text) and mentioned_in("PRs", text)
    assert spelt_out_in("MCTS", text)
    assert not spelt_out_in("PR", text)  # two letters alone: chance pairs of words are many
    assert not spelt_out_in("PCs", text)
    assert not spelt_out_in("MoE", "We measure overall error.")  # capitals and lower case: a name, not initials


def test_a_value_in_words_reads_as_a_number():
    from rag.abstain import spelled_out
    from rag.text import numbers_in

    assert numbers_in(spelled_out("adding less than one percent trainable overhead"))
    assert not numbers_in(spelled_out("adding one module"))


def test_a_small_number_after_a_capitalised_name_is_its_version_not_a_value():
    from rag.abstain import number_near, values_in

    assert not values_in("We test on FooBench 2.0 and Llama 3 agents.")
    assert not number_near("Results on Suite 2 and FooBench 1.0 improve accuracy.", {"accuraci"})
    assert values_in("FooNet reaches 81.2% accuracy.")
    assert values_in("In 3 settings it wins.")  # a capital opening the sentence is no name
    assert number_near("FooNet improves accuracy by 4 points on BarBench 2.0.", {"accuraci"})


def test_mean_similarity_averages_each_papers_sentences():
    from rag.abstain import mean_similarity

    pairs = [("p1", 0.2), ("p2", 0.5), ("p1", 0.4), ("p2", 0.5), ("p1", 0.6)]
    means = mean_similarity(pairs)
    assert means.keys() == {"p1", "p2"}
    assert round(means["p1"], 9) == 0.4 and round(means["p2"], 9) == 0.5
    assert mean_similarity([]) == {}


def test_peak_above_median_is_how_far_the_best_stands_out_of_the_field():
    from rag.abstain import peak_above_median

    assert peak_above_median([0.3, 0.31, 0.29, 0.6, 0.3]) == 0.6 - 0.3  # one paper stands out
    assert round(peak_above_median([0.30, 0.31, 0.32, 0.33]), 6) == round(0.33 - 0.315, 6)  # a level field
    assert peak_above_median([0.5]) == 0.0
    assert peak_above_median([]) == 0.0


def test_a_list_question_reads_the_signals_it_shares_with_single_paper_questions_under_its_own_weights():
    from rag.abstain import features

    shared = {"unknown_names": ("Zorblax",), "linked_exact": True, "focus_missing": 0.5, "phrase_missing": 0.75}
    single = features(AbstentionSignals(shape="fact", **shared), POLICY)
    listing = features(AbstentionSignals(shape="list", **shared), POLICY)
    for name in ("unknown", "linked", "focus", "phrase"):
        assert single[name] == listing[f"{name}_list"] > 0
        assert single[f"{name}_list"] == listing[name] == 0.0
    assert (single["list_shape"], listing["list_shape"]) == (0.0, 1.0)


def test_the_shortlist_peak_counts_in_units_of_its_cosine_gap():
    import pytest

    from rag.abstain import contributions, features

    signals = AbstentionSignals(shape="summary", best_dense=0.4, topic_peak=0.25)
    assert features(signals, POLICY.model_copy(update={"topic_peak_unit": 0.1}))["topic_peak"] == pytest.approx(2.5)
    assert features(signals, POLICY.model_copy(update={"topic_peak_unit": 0.5}))["topic_peak"] == pytest.approx(0.5)
    # its weight is log-odds per unit: a gap of five units at -1.0 each
    halved = POLICY.model_copy(update={"topic_peak_unit": 0.05, "w_topic_peak": -1.0})
    assert contributions(signals, halved)["topic_peak"] == pytest.approx(-5.0)


def test_a_list_paper_standing_out_of_its_shortlist_leans_to_answering():
    from rag.abstain import features

    policy = POLICY.model_copy(update={"w_topic_peak": -3.0, "w_topic_matched_any": -1.0})
    level = AbstentionSignals(shape="yes_no", best_dense=0.4, topic_peak=0.05)
    standing_out = AbstentionSignals(shape="yes_no", best_dense=0.4, topic_peak=0.3)
    assert abstention_score(standing_out, policy) < abstention_score(level, policy)
    some_paper_holds_it = AbstentionSignals(shape="list", best_dense=0.4, topic_matched=0.2, topic_matched_any=1.2)
    assert abstention_score(some_paper_holds_it, policy) < abstention_score(
        AbstentionSignals(shape="list", best_dense=0.4, topic_matched=0.2, topic_matched_any=0.2), policy
    )
    # unread when the encoder cannot read the question (None), and for a question about one paper
    assert features(AbstentionSignals(shape="list", topic_peak=None), policy)["topic_peak"] == 0.0
    assert features(AbstentionSignals(shape="fact", topic_peak=0.3, topic_matched_any=1.2), policy)["topic_peak"] == 0.0
    assert features(AbstentionSignals(shape="fact", topic_matched_any=1.2), policy)["topic_matched_any"] == 0.0


def test_words_a_list_paper_lacks_count_less_when_the_question_clearly_means_that_paper():
    import pytest

    from rag.abstain import features, meaning_clarity

    # "Which work makes my photos useless for training?", worded apart from its paper: its paper lacks the topic's
    # words, yet the question's meaning lifts that paper far above the others retrieved with it
    policy = POLICY.model_copy(update={"meaning_peak_low": 0.1, "meaning_peak_high": 0.3})
    lexical = dict(shape="list", best_dense=0.45, topic_rare_missing=0.8, focus_missing=0.6, phrase_missing=0.4)
    level = AbstentionSignals(**lexical, question_peak=0.05)
    halfway = AbstentionSignals(**lexical, question_peak=0.2)
    singled_out = AbstentionSignals(**lexical, question_peak=0.35)
    assert [meaning_clarity(s, policy) for s in (level, halfway, singled_out)] == pytest.approx([0.0, 0.5, 1.0])
    for name, value in (("topic_rare_list", 0.8), ("focus_list", 0.6), ("phrase_list", 0.4)):
        assert features(level, policy)[name] == pytest.approx(value)
        assert features(halfway, policy)[name] == pytest.approx(value / 2)
        assert features(singled_out, policy)[name] == 0.0
    assert abstention_score(singled_out, policy) < abstention_score(level, policy)
    # a topic no abstract uses still counts in full, and so does everything of a question about one paper
    unknown = AbstentionSignals(**lexical, topic_unknown=0.5, question_peak=0.35)
    assert features(unknown, policy)["topic_unknown_list"] == 0.5
    one_paper = AbstentionSignals(shape="fact", focus_missing=0.6, question_peak=0.35)
    assert meaning_clarity(one_paper, policy) == 0.0 and features(one_paper, policy)["focus"] == pytest.approx(0.6)
    # unread when the encoder cannot read the question
    assert meaning_clarity(AbstentionSignals(**lexical, question_peak=None), policy) == 0.0


def test_a_list_question_refused_for_a_name_or_a_missing_phrase_says_so():
    policy = POLICY.model_copy(update={"w_unknown_name_list": 9.0})
    signals = AbstentionSignals(shape="list", unknown_names=("Zorblax",), best_dense=0.4)
    assert "Zorblax" in reason_for(signals, policy)
    phrase = POLICY.model_copy(update={"w_phrase_missing_list": 9.0})
    assert "do not state" in reason_for(AbstentionSignals(shape="list", phrase_missing=1.0, best_dense=0.4), phrase)


def test_a_refusal_for_an_answer_type_the_abstract_never_states_says_which():
    def reason(kind: str) -> str:
        return reason_for(replace(CLEAR, type_missing=True, type_asked=kind), POLICY)

    assert "authors" in reason("author")
    assert "limitation" in reason("limitation")
    assert "hardware" in reason("hardware")
    assert reason("value") == "The most relevant abstract does not state what the question asks for."


def test_a_category_noun_right_after_a_linked_name_is_the_head_of_that_name():
    from rag.answering import _name_heads
    from rag.lexicon import Link, Linking, Name

    linking = Linking((Link("FooSet", Name("FooSet", frozenset({"a"})), True, 100.0),))
    assert _name_heads("How large is the FooSet dataset?", linking) == {"dataset"}
    assert _name_heads("How many datasets does FooSet use?", linking) == set()  # what is counted: a detail
    assert _name_heads("What accuracy does the FooSet split reach?", linking) == set()  # not a category noun


def test_size_adjectives_are_quantity_words_a_number_answers():
    from rag.question import QUANTITY_STEMS
    from rag.text import content_words

    assert set(content_words("how large is it, how big is it")) <= QUANTITY_STEMS


def test_a_described_work_its_paper_does_not_treat_raises_a_single_paper_score():
    policy = POLICY.model_copy(update={"w_described_missing": 2.0, "w_aspect_missing": 2.0})
    held = AbstentionSignals(shape="fact", best_dense=0.6)
    lacking = replace(held, described_missing=1.0)
    assert abstention_score(lacking, policy) > abstention_score(held, policy)
    assert abstention_score(replace(held, aspect_missing=1.0), policy) > abstention_score(held, policy)
    assert decide(replace(lacking, described_missing=5.0), policy).reason == "No abstract is about the question's topic."
    # a list question's topic is read by its own signals
    listed = AbstentionSignals(shape="list", best_dense=0.6)
    assert abstention_score(replace(listed, described_missing=1.0), policy) == abstention_score(listed, policy)


def test_generic_measure_words_are_quantity_words_a_number_answers():
    from rag.question import QUANTITY_STEMS
    from rag.text import content_words

    # "what compression ratio does FooNet reach" is answered by "a 4x compression", not by the word "ratio"
    assert set(content_words("ratio percentage proportion fraction share")) <= QUANTITY_STEMS


def test_an_acronym_its_abstract_defines_is_read_with_its_long_form_beside_it():
    from rag.abstain import with_long_forms

    abstract = "We train frog sound models (FSMs) on Mixture-of-Experts (MoE) layers. We test six FSMs on GlacierSet."
    assert with_long_forms("We test six FSMs on GlacierSet.", abstract) == (
        "We test six FSMs (frog sound models) on GlacierSet."
    )
    assert with_long_forms("Each MoE layer.", abstract) == "Each MoE (mixture of experts) layer."
    # an acronym the abstract never spells out, or none at all: the sentence as it is
    assert with_long_forms("We beat RNNs on GlacierSet.", abstract) == "We beat RNNs on GlacierSet."
    assert with_long_forms("No acronym here.", abstract) == "No acronym here."


def test_topic_words_no_abstract_uses_count_by_their_english_rarity():
    from rag.abstain import english_rarity, rarity_share

    def rarity(word):
        return english_rarity(word, 7.0)

    everyday = rarity_share(["honest"], 2, rarity)
    technical = rarity_share(["quuxification"], 2, rarity)
    assert 0.0 < everyday < technical == 0.5  # an invented word counts whole, a plain word little
    assert rarity_share([], 3, rarity) == 0.0 and rarity_share(["zorb"], 0, rarity) == 0.0


def test_an_asked_aspect_far_from_every_sentence_of_its_paper_raises_a_single_paper_score():
    from rag.abstain import aspect_far, features

    policy = POLICY.model_copy(update={"w_aspect_far": 1.0, "aspect_far_floor": 0.45, "aspect_far_unit": 0.1})
    # "what does FooNet say about quux pruning": the closest FooNet sentence is 0.25 from it, two units under the floor
    assert abs(aspect_far(0.25, policy) - 2.0) < 1e-9
    assert aspect_far(0.6, policy) == 0.0  # a sentence close to it: the paper treats it
    assert aspect_far(None, policy) == 0.0  # no aspect asked, or the encoder cannot read the question
    held = AbstentionSignals(shape="fact", best_dense=0.6, aspect_similarity=0.6)
    far = replace(held, aspect_similarity=0.25)
    assert abstention_score(far, policy) > abstention_score(held, policy)
    assert decide(replace(far, aspect_similarity=-0.5), policy).reason == (
        "The most relevant abstract does not mention what the question asks about."
    )
    # a list question has no one answering paper to read the aspect against
    assert features(AbstentionSignals(shape="list", aspect_similarity=0.1), policy)["aspect_far"] == 0.0


def test_a_technical_topic_far_from_every_sentence_of_the_top_papers_raises_the_score():
    from rag.abstain import features, topic_far

    policy = POLICY.model_copy(update={"w_topic_far": 1.0, "topic_far_floor": 0.65, "topic_far_unit": 0.1})
    # "which papers use quux federation": the topic said alone is at best 0.45 from a sentence, two units under the floor
    assert abs(topic_far(0.45, policy) - 2.0) < 1e-9
    assert topic_far(0.7, policy) == 0.0  # some sentence is close to it: a paper treats it
    assert topic_far(None, policy) == 0.0  # the encoder cannot read the question
    technical = AbstentionSignals(shape="list", best_dense=0.6, topic_similarity=0.45, topic_rarity=0.9)
    everyday = replace(technical, topic_rarity=0.1)  # a lay paraphrase is far for its everyday words
    assert features(technical, policy)["topic_far"] > features(everyday, policy)["topic_far"] > 0.0
    assert abstention_score(technical, policy) > abstention_score(replace(technical, topic_similarity=0.7), policy)
    assert decide(replace(technical, topic_similarity=-1.0), policy).reason == "No abstract is about the question's topic."


def test_least_missing_reads_the_paper_holding_most_of_the_topic():
    weights = {"quux": 3.0, "blip": 1.0}
    # the first paper lacks the rare word, the second holds both: the topic is treated by the second
    assert least_missing(weights, [{"blip"}, {"quux", "blip"}]) == 0.0
    assert least_missing(weights, [{"blip"}, {"quux"}]) == 0.25
    assert least_missing(weights, [{"zed"}]) == 1.0
    assert least_missing(weights, []) == 1.0


def test_a_paper_holding_one_alternative_of_the_topic_misses_nothing():
    weights = {"zedding": 3.0, "quuxing": 2.5, "blip": 0.5}
    parts = [["zedding"], ["quuxing", "blip"]]  # "zedding or quuxing blips"
    assert least_missing(weights, [{"zedding"}], parts) == 0.0
    assert least_missing(weights, [{"quuxing", "blip"}], parts) == 0.0  # all of a part as heavy as the heaviest
    assert least_missing(weights, [{"quuxing"}], parts) == 1.0 - 2.5 / 3.0
    # a part of common words alone weighs little against the heaviest part: holding it is not holding the topic
    assert least_missing(weights, [{"blip"}], parts) == 1.0 - 0.5 / 3.0
    # without alternatives: the weighted share, as before
    assert least_missing(weights, [{"zedding"}]) == 0.5
    assert least_missing(weights, [{"zedding"}], [["zedding", "quuxing", "blip"]]) == 0.5


def test_a_measure_its_abstract_never_writes_raises_a_single_paper_score():
    from rag.abstain import features, measure_unwritten

    abstract = "We propose ZedNet, a sparse router. ZedNet reaches 81.2% accuracy on FooSet with 4 experts."
    # "what learning rate does ZedNet use": neither word of the measure is written, whatever numbers the abstract gives
    assert measure_unwritten("learning rate", abstract) == 1.0
    assert measure_unwritten("accuracy", abstract) == 0.0  # the measure is written: its value may be stated
    assert measure_unwritten("expert recall", abstract) == 0.5  # "experts" written, "recall" not
    # a word saying only that a value is asked ("the number of …") is left out; nothing left weighs nothing
    assert measure_unwritten("number", abstract, generic={"number"}) == 0.0
    policy = POLICY.model_copy(update={"w_measure_absent": 2.0})
    held = AbstentionSignals(shape="fact", linked_exact=True, best_dense=0.6)
    absent = replace(held, measure_absent=1.0)
    assert abstention_score(absent, policy) > abstention_score(held, policy)
    assert decide(replace(absent, measure_absent=3.0), policy).reason == (
        "The most relevant abstract does not state what the question asks for."
    )
    # a list question asks whether any paper qualifies, not for one paper's value
    assert features(AbstentionSignals(shape="list", measure_absent=1.0), policy)["measure"] == 0.0


def test_a_count_of_compared_things_is_no_value_pointing_at_the_answer():
    from rag.answering import counts_stated

    assert counts_stated("what is the spread of FooScore across the 12 models on ZedBench") == {"12"}
    assert counts_stated("which system reaches 0.855 on ZedBench") == set()
    assert counts_stated("which system reaches 45.9 points") == set()


def test_words_a_described_work_lacks_count_less_the_longer_the_description():
    import pytest

    from rag.abstain import described_reading, features

    # "Which work shows that deeper FooNets help only up to a point on small toy problems …": a paraphrase of one
    # paper, whose own words it need not use; "is there a paper that trains ZedNets" names a topic
    policy = POLICY.model_copy(update={"described_work_low": 8.0, "described_work_high": 12.0})
    lexical = dict(shape="yes_no", topic_rare_missing=0.8, focus_missing=0.6, phrase_missing=0.4)
    short = AbstentionSignals(**lexical, described_words=6)
    halfway = AbstentionSignals(**lexical, described_words=10)
    long = AbstentionSignals(**lexical, described_words=14)
    assert [described_reading(s, policy) for s in (short, halfway, long)] == pytest.approx([0.0, 0.5, 1.0])
    for name, value in (("topic_rare_list", 0.8), ("focus_list", 0.6), ("phrase_list", 0.4)):
        assert features(short, policy)[name] == pytest.approx(value)
        assert features(halfway, policy)[name] == pytest.approx(value / 2)
        assert features(long, policy)[name] == 0.0
    assert abstention_score(long, policy) < abstention_score(short, policy)
    # a term no abstract uses ("quuxmarking") still names a topic the corpus lacks, however long the description
    absent = AbstentionSignals(**lexical, topic_rare_absent=0.5, described_words=14)
    assert features(absent, policy)["topic_rare_list"] == pytest.approx(0.5)
    # a question about one paper reads its own signals
    assert described_reading(AbstentionSignals(shape="fact", described_words=14), policy) == 0.0
