"""Unit tests for rag/lexicon.py: which corpus words are names, and linking question mentions to them (made-up
abstracts)."""

from __future__ import annotations

import pytest

from rag.lexicon import (
    Lexicon,
    Link,
    Linking,
    Name,
    english_candidates,
    introduces,
    is_name_like,
    own_names,
    typing_cost,
)

ABSTRACTS = [
    ("a1", "We introduce FooBench, a benchmark of 512 tasks. FooBench is hard for GPT-7 models."),
    ("a2", "Recent work studies ZetaNet. We propose Quux-Former, built on the Zorro Suite for vision."),
    ("a3", "We present Grapho Pro, a graph learner. Results improve on ZetaNet."),
    ("a4", "Transformers are widely used. We study scaling of language models in English."),
]
LEX = Lexicon.build(ABSTRACTS, generic_share=0.75)


@pytest.mark.parametrize(
    ("token", "expected"),
    [("FooBench", True), ("GPT-7", True), ("CNN", True), ("x-Bench", True), ("Transformers", False),
     ("benchmark", False), ("A", False), ("7B", False), ("data-driven", False)],
)  # fmt: skip
def test_is_name_like(token, expected):
    assert is_name_like(token) is expected


def test_corpus_names_with_their_abstracts():
    assert LEX.names["foobench"].abstract_ids == {"a1"}
    assert LEX.names["zetanet"].abstract_ids == {"a2", "a3"}
    assert LEX.names["quux-former"].surface == "Quux-Former"
    assert "grapho pro" in LEX.names  # a name followed by a capitalised word


def test_sentence_initial_and_common_words_are_not_names():
    assert "recent" not in LEX.names and "transformers" not in LEX.names and "results" not in LEX.names


def test_names_used_by_too_many_abstracts_are_field_vocabulary():
    lexicon = Lexicon.build([(f"x{i}", f"We use the ABCD toolkit in study {i}.") for i in range(8)], 0.25)
    assert "abcd" not in lexicon.names


def test_link_is_case_insensitive():
    linking = LEX.link("what does foobench measure?")
    assert [link.name.surface for link in linking.links] == ["FooBench"]
    assert linking.links[0].exact and not linking.unknown


def test_link_tolerates_typos_and_suggests_the_name():
    linking = LEX.link("how many tasks does FoBench have?")
    assert [link.name.surface for link in linking.links] == ["FooBench"]
    assert linking.suggestions == [("FoBench", "FooBench")]


def test_link_multiword_name_first():
    linking = LEX.link("What is Grapho Pro?")
    assert [link.name.surface for link in linking.links] == ["Grapho Pro"]


def test_unknown_name_is_reported_not_linked():
    linking = LEX.link("Does QwertyNet-3 beat FooBench?")
    assert linking.unknown == ("QwertyNet-3",)
    assert [link.name.surface for link in linking.links] == ["FooBench"]


@pytest.mark.parametrize("word", ["NeurIPS", "PhD", "Python", "English", "However", "ELI5", "TLDR"])
def test_generic_words_are_not_subject_names(word):
    assert LEX.link(f"Is there a {word} result about FooBench?").unknown == ()
    assert LEX.link(f"{word} FooBench results?").unknown == ()


def test_a_rare_english_word_in_capitals_the_corpus_never_uses_is_an_acronym_it_lacks():
    # "COCO" is an English word too, but in capitals and rarer than everyday words it names a dataset
    assert LEX.link("How does FooBench do on COCO?", acronym_zipf=4.0).unknown == ("COCO",)
    # an everyday word in capitals, or one too short to tell from initials, stays ordinary vocabulary
    assert LEX.link("Does FooBench use NASA images?", acronym_zipf=4.0).unknown == ()
    assert LEX.link("Does FooBench use DNA?", acronym_zipf=4.0).unknown == ()
    assert LEX.link("How does FooBench do on COCO?").unknown == ()  # without the setting: as before


def test_sentence_initial_capital_is_not_a_name():
    assert LEX.link("Explain how ZetaNet works").unknown == ()


def test_capitalised_phrase_the_corpus_never_writes_is_unknown():
    corpus = " ".join(text for _, text in ABSTRACTS).lower()
    linking = LEX.link("How does FooBench do on the Acme Data Bank?", corpus_text=corpus)
    assert "Acme Data Bank" in linking.unknown
    assert LEX.link("How does Quux-Former use the Zorro Suite?", corpus_text=corpus).unknown == ()


def test_abstract_weights_favour_rare_names_and_keep_each_abstracts_strongest_link():
    rare = Link("Foo", Name("Foo", frozenset({"a"})), True, 100.0)
    common = Link("bar", Name("Bar", frozenset({"a", "b", "c", "d"})), True, 100.0)
    weights = Linking((common, rare)).abstract_weights()
    assert weights == {"a": 1.0, "b": 0.5, "c": 0.5, "d": 0.5}
    assert Linking().abstract_weights() == {}


def test_a_capitalised_word_the_corpus_also_writes_in_lower_case_is_no_name():
    lexicon = Lexicon.build(
        [
            ("a1", "We study Pooled Attention for speech. The pooled layers help."),
            ("a2", "A different paper about ZorbNet and its Pooled Attention variant."),
        ]
    )
    assert "pooled" not in lexicon.names
    assert "pooled attention" in lexicon.names
    assert "zorbnet" in lexicon.names


def test_a_model_family_name_links_to_its_versioned_names():
    lexicon = Lexicon.build(
        [("a1", "We fine-tune Zorb2.5-7B on math."), ("a2", "Results with Zorb-3 and BarNet are reported.")]
    )
    linking = lexicon.link("Which papers use Zorb models?")
    assert linking.links and linking.abstract_ids == {"a1", "a2"}
    assert not linking.unknown


def test_an_exact_name_also_stands_for_its_versions():
    lexicon = Lexicon.build([("a1", "We sample with FLUX on prompts."), ("a2", "We fine-tune FLUX.1-dev for faces.")])
    assert lexicon.link("Which papers use FLUX?").abstract_ids == {"a1", "a2"}


def test_an_acronym_the_corpus_spells_out_is_not_unknown():
    from rag.lexicon import _spelt_out

    corpus = "we plan with monte carlo tree search over long horizons."
    assert _spelt_out("mcts", corpus)
    assert not _spelt_out("mcts", "we plan with many tricks.")
    assert not _spelt_out("ocr", "optical character recognition")  # three letters: too easily a chance match
    lexicon = Lexicon.build([("a1", "We plan with Monte Carlo tree search over long horizons.")])
    assert "MCTS" not in lexicon.link("Which papers use MCTS?", corpus_text=corpus).unknown
    assert "QXTV" in lexicon.link("Which papers use QXTV?", corpus_text=corpus).unknown


def test_a_spelt_out_acronym_beside_a_name_makes_no_unknown_phrase():
    corpus = "we study the thresholding monte carlo tree search problem with a zedstop strategy."
    lexicon = Lexicon.build([("a1", "We study the Thresholding Monte Carlo Tree Search problem with a ZedStop strategy.")])
    assert lexicon.link("MCTS ZedStop sample complexity", corpus_text=corpus).unknown == ()
    assert "QXTV ZedStop" in lexicon.link("does QXTV ZedStop help?", corpus_text=corpus).unknown


def test_an_acronym_plural_is_not_read_as_a_typo_of_a_longer_name():
    lexicon = Lexicon.build([("a1", "We report the PRR of FooNet."), ("a2", "We mine pull requests and commits.")])
    assert not any(link.name.surface == "PRR" for link in lexicon.link("What is mined from PRs?").links)


def test_a_mistyped_form_of_a_corpus_word_is_no_unknown_name():
    lexicon = Lexicon.build([("a1", "We study fine-tuning and quantization; the model backpropagates through time.")])
    for question in ("does finetuing help?", "what about qauntizing?", "backpropagaing through time"):
        assert lexicon.link(question).unknown == ()
    assert lexicon.link("does ecmwf data help?").unknown == ("ecmwf",)  # a name, near no corpus word


def test_a_name_spelt_as_it_sounds_links_to_the_corpus_name():
    lexicon = Lexicon.build([("a1", "We propose AlphaZed, a quantizer for experts.")])
    linking = lexicon.link("what does AlfaZed do?")
    assert [link.name.surface for link in linking.links] == ["AlphaZed"] and not linking.unknown


def test_correct_spells_a_mistyped_corpus_word_and_name_as_the_corpus_does():
    corrected, fixes = LEX.correct("how many taskss does FoooBench have?")
    assert corrected == "how many tasks does FooBench have?" and fixes == ["tasks", "FooBench"]


def test_correct_spells_a_mistyped_ordinary_word_as_english_when_the_corpus_has_no_close_word():
    corrected, fixes = LEX.correct("Whcih artcles discuss weather forecasts?")
    assert corrected == "Which articles discuss weather forecasts?"
    assert fixes == []  # English spellings are not corpus corrections ("did you mean" is for the corpus)


def test_correct_fixes_each_part_of_a_hyphenated_word():
    corrected, _ = LEX.correct("any work on graph-modelig of langage?")
    assert corrected == "any work on graph-modeling of language?"  # English "modeling": the corpus has "models"


def test_correct_never_respells_an_unknown_capitalised_name_or_a_real_word_as_english():
    assert LEX.correct("does Mamba beat FooBench on lidar?")[0] == "does Mamba beat FooBench on lidar?"


def test_own_names_are_the_names_an_abstract_alone_uses_and_introduces():
    owned = own_names(LEX, ABSTRACTS)
    assert owned["a1"] == "FooBench"  # "We introduce FooBench"
    assert owned["a2"] == "Quux-Former"  # introduced; ZetaNet is only studied, and a3 uses it too
    assert owned["a3"] == "Grapho Pro"  # the longest name where the introduction names it
    assert "a4" not in owned  # introduces no name


def test_a_name_mentioned_without_being_introduced_is_not_the_works_own():
    abstracts = [("b1", "Experiments on KiloSet show gains. We propose a simple loss for ranking.")]
    assert own_names(Lexicon.build(abstracts, generic_share=1.0), abstracts) == {}


def test_field_acronyms_are_never_a_works_own_name():
    abstracts = [("c1", "We present a GUI agent that clicks buttons.")]
    assert own_names(Lexicon.build(abstracts, generic_share=1.0), abstracts) == {}


def test_a_capitalised_name_right_after_our_is_introduced_there():
    abstracts = [("d1", "We study pricing of rooms. Our \\emph{Sliding Price Rule} (SPR) policy posts prices at random.")]
    owned = own_names(Lexicon.build(abstracts, generic_share=1.0), abstracts)
    assert owned["d1"] in {"Sliding Price Rule", "SPR"}
    lowercase = [("d2", "We study pricing of rooms. our results with SPR hold widely, as SPR is simple.")]
    assert own_names(Lexicon.build(lowercase, generic_share=1.0), lowercase) == {}


class FakeTokenizer:
    """A made-up vocabulary behind the three calls EnglishWords makes on a `tokenizers.Tokenizer`."""

    def __init__(self, vocabulary: list[str]) -> None:
        self.vocabulary = vocabulary

    def token_to_id(self, token: str) -> int | None:
        return self.vocabulary.index(token) if token in self.vocabulary else None

    def id_to_token(self, i: int) -> str | None:
        return self.vocabulary[i] if 0 <= i < len(self.vocabulary) else None

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        return len(self.vocabulary)


def test_english_words_are_the_alphabetic_whole_words_of_the_tokenizer():
    from rag.lexicon import EnglishWords

    words = EnglishWords(FakeTokenizer(["[PAD]", "[CLS]", "the", "##ing", "graph", "3d", "naïve", "x-ray"]))
    assert sorted(words) == ["graph", "naïve", "the"] and len(words) == 3
    assert "graph" in words and "the" in words
    assert "##ing" not in words and "[CLS]" not in words and "x-ray" not in words and "trees" not in words
    assert 3 not in words


class FreshStringsTokenizer(FakeTokenizer):
    """Like `tokenizers.Tokenizer`: a new string object on every id_to_token call."""

    def id_to_token(self, i: int) -> str | None:
        word = super().id_to_token(i)
        return None if word is None else "".join(list(word))


def test_english_words_give_one_string_object_per_word_however_often_they_are_read():
    from rag.lexicon import EnglishWords

    words = EnglishWords(FreshStringsTokenizer(["[PAD]", "graph", "kernel"]))
    first, second = list(words), list(words)
    assert first == second == ["graph", "kernel"]
    assert all(a is b for a, b in zip(first, second, strict=True))  # word lists built from it share the strings


def test_english_words_match_the_models_vocabulary_file():
    from pathlib import Path

    from rag.embedding import resolve_model_path
    from rag.lexicon import english_words

    lines = (Path(resolve_model_path("all-MiniLM-L6-v2")) / "vocab.txt").read_text(encoding="utf-8").split("\n")
    assert set(english_words()) == {w for w in lines if w.isalpha() and not w.startswith("[")}


def test_build_reads_an_iterator_once_with_the_same_names():
    pairs = [(f"p{i}", f"Results with the {'ZetaNet' if i < 2 else 'OmegaNet'} model on QuuxBench.") for i in range(4)]
    from_list = Lexicon.build(pairs, 0.5)  # at most 2 of the 4 abstracts: QuuxBench (all 4) is field vocabulary
    from_iterator = Lexicon.build(iter(pairs), 0.5)
    assert from_list.names == from_iterator.names and set(from_list.names) == {"zetanet", "omeganet"}
    assert from_list.names["zetanet"].abstract_ids == {"p0", "p1"}


def test_an_abstract_id_given_twice_counts_once_towards_the_generic_limit():
    # limit = max(2, int(0.25 * 4)) = 2 abstracts: "a" twice and "b" are two abstracts, not three uses
    pairs = [("a", "We test ZetaNet here."), ("a", "We test ZetaNet again."), ("b", "ZetaNet wins."), ("c", "None.")]
    assert Lexicon.build(pairs, 0.25).names["zetanet"].abstract_ids == {"a", "b"}


# --- typed the way people type: typos in short words, lower-case names, names typed as separate words ---

TYPED = Lexicon.build(
    [
        ("t1", "We present Zyx-Bench, a suite of 40 tasks. Tasks are hard, and the tasks take long."),
        ("t2", "We study gated attention in sparse models. Gated layers help on long tasks."),
        ("t3", "The Burer--Monteiro factorization is analysed. We also propose TACO and TABX for tables."),
    ],
    generic_share=1.0,
)


def test_a_part_of_a_hyphenated_corpus_word_is_a_spelling_of_the_corpus():
    corrected, fixes = TYPED.correct("how many tasks in zyx bnech?")
    assert corrected == "how many tasks in zyx bench?" and fixes == ["bench"]  # not English "beach"


def test_a_four_letter_typo_is_corrected_to_the_corpus_word_more_abstracts_use():
    def fake_frequency(word: str) -> float:  # a fake document frequency: the corpus is about tasks
        return {"tasks": 3.0, "take": 1.0, "task": 3.0}.get(word, 0.0)

    corrected, _ = TYPED.correct("which tasjs are hard?", frequency=fake_frequency)
    assert corrected == "which tasks are hard?"  # a neighbouring key: not "takes"


def test_a_known_part_of_a_hyphenated_token_is_never_respelt():
    assert TYPED.correct("what does Zyx-Bench measure?")[0] == "what does Zyx-Bench measure?"


def test_the_parts_of_a_latex_dashed_name_are_corpus_words():
    assert "monteiro" in TYPED.words and "burer" in TYPED.words
    assert TYPED.correct("asymmetric burer-monteiroo factorization")[0] == "asymmetric burer-monteiro factorization"
    assert TYPED.link("asymmetric burer-Monteiro factorization").unknown == ()


def test_a_name_typed_as_separate_words_links_to_the_hyphenated_name():
    linking = TYPED.link("how many tasks does zyx bench have")
    assert [link.name.surface for link in linking.links] == ["Zyx-Bench"] and linking.links[0].exact


def test_english_words_typed_apart_do_not_join_into_a_name():
    lexicon = Lexicon.build([("g1", "We study DeepLearning layers.")], generic_share=1.0)
    assert lexicon.link("is deep learning good?").links == ()


def test_english_words_the_corpus_never_writes_apart_join_into_its_name():
    abstracts = [("g1", "We present RiverBench for flood maps. River gauges are sparse."), ("g2", "We study deep learning.")]
    lexicon = Lexicon.build(abstracts, generic_share=1.0)
    corpus = " ".join(text for _, text in abstracts).lower()
    for typed in ("river bench scores", "rivers bench scores"):  # a word respelt as the corpus inflects it too
        links = lexicon.link(typed, corpus_text=corpus).links
        assert [link.name.surface for link in links] == ["RiverBench"]
    # the corpus writes "deep learning" as words: no name is typed apart
    assert Lexicon.build([("d1", "We study DeepLearning layers and deep learning.")], 1.0).link(
        "is deep learning good?", corpus_text="we study deeplearning layers and deep learning."
    ).links == ()


def test_a_lower_case_word_neither_english_nor_the_corpus_uses_is_an_unknown_name():
    assert TYPED.link("how does zyx-bench compare with qxvmbench?").unknown == ("qxvmbench",)


@pytest.mark.parametrize(
    "word",
    ["multihead", "pretraining", "shakierr", "atention", "tll", "attn", "lidar"],
)
def test_lower_case_compounds_typos_and_short_or_real_words_are_not_unknown_names(word):
    assert TYPED.link(f"does gated attention use {word} layers?").unknown == ()


def test_an_inflection_of_a_word_the_corpus_uses_is_no_unknown_name():
    lexicon = Lexicon.build([("u1", "ZedNet backpropagates through every layer.")], generic_share=1.0)
    assert lexicon.link("only backpropagating through sparse layers").unknown == ()
    assert lexicon.link("only qxvmpropagating through sparse layers").unknown == ("qxvmpropagating",)


def test_a_short_name_mistyped_by_one_edit_is_linked_or_at_least_not_unknown():
    linking = TYPED.link("does TABX beat TCO on tables?")
    assert linking.unknown == ()  # "TCO": one edit from "TACO"
    assert {link.name.surface for link in linking.links} == {"TABX", "TACO"}
    assert [link.exact for link in linking.links] == [True, False]
    assert TYPED.link("does TAB beat TACO?").unknown == ()  # one edit from both TABX and TACO: linked to neither
    assert [link.name.surface for link in TYPED.link("does TAB beat TACO?").links] == ["TACO"]


def test_a_hyphenated_word_is_not_corrected_by_dropping_a_part():
    assert TYPED.correct("is gated-sparsity good?")[0] == "is gated-sparsity good?"  # not "gated"


def test_english_and_field_words_typed_apart_do_not_join_into_a_name():
    lexicon = Lexicon.build([("v1", "We study Video-LLMs on clips.")], generic_share=1.0)
    assert lexicon.link("papers on video LLMs").links == ()
    assert lexicon.link("papers on Video-LLMs").links != ()


@pytest.mark.parametrize("question", ["does Gated Attn use sparse layers?", "what is the perf of gated attention?"])
def test_abbreviations_of_known_words_are_not_unknown_names(question):
    assert TYPED.link(question).unknown == ()


def test_an_english_word_the_corpus_lacks_is_respelt_only_when_a_passage_backs_the_respelling():
    lexicon = Lexicon.build(
        [("p1", "A virtual patient study collects ratings from standardized actors.")], generic_share=1.0
    )

    def fake_together(word, others):  # a fake co-occurrence: "patient" appears with "virtual" and "rate"
        return sum(o in {"virtual", "rate"} for o in others) if word == "patient" else 0

    question = "what did the virtual patent study rate?"
    assert lexicon.correct(question)[0] == question  # "patent" is English: left alone without context
    assert lexicon.correct(question, together=fake_together)[0] == "what did the virtual patient study rate?"
    unrelated = "what did the legal patent office rate?"  # nothing in the corpus puts "patient" with these
    assert lexicon.correct(unrelated, together=fake_together)[0] == unrelated


def test_a_real_word_one_unrelated_letter_from_a_corpus_word_is_left_as_written():
    lexicon = Lexicon.build([("z1", "ZedNet recovers the delay of a fading memory signal.")], generic_share=1.0)

    def fake_together(word, others):  # "delay" appears with "fading", "memory" and "signal"
        return sum(o in {"fade", "memori", "signal", "fading"} for o in others) if word == "delay" else 0

    question = "a fading memory signal with linear decay"  # 'c' and 'l' are far apart: "decay" is meant
    assert lexicon.correct(question, together=fake_together)[0] == question


def test_cooccurrence_counts_the_other_words_one_grouped_passage_holds():
    from rag.bm25 import BM25Index
    from rag.lexicon import cooccurrence

    index = BM25Index(["virtual patient", "rating scale", "legal patent office"])
    held = cooccurrence(index, group=lambda row: "a" if row < 2 else "b")  # rows 0 and 1: one abstract
    assert held("patient", ["virtual", "rate"]) == 2
    assert held("patent", ["virtual", "rate"]) == 0 and held("unseen", ["virtual"]) == 0


def test_of_two_words_as_many_edits_away_the_one_the_question_is_about_wins():
    lexicon = Lexicon.build(
        [
            ("m1", "We study active 3d mapping of rooms with a robot."),
            ("m2", "Floor mopping is hard."),
            ("m3", "Mopping floors is mopping progress."),
        ],
        generic_share=1.0,
    )

    def fake_context(word: str, others) -> int:  # a fake sentence co-occurrence: "mapping" sits with "active", "robot"
        return {"mapping": 2, "mopping": 0}.get(word, 0)

    def fake_frequency(word: str) -> float:  # "mopping" is the more common word
        return {"mopping": 2.0, "mapping": 1.0}.get(word, 0.0)

    # "mepping": one vowel for another from both, an equally likely slip
    assert lexicon.correct("active 3d mepping robot", frequency=fake_frequency)[0] == "active 3d mopping robot"
    corrected, _ = lexicon.correct("active 3d mepping robot", frequency=fake_frequency, context=fake_context)
    assert corrected == "active 3d mapping robot"


# --- spelling by the likeliest slip of the fingers, English candidates, lower-case names, glued words ---


@pytest.mark.parametrize(
    ("typed", "likelier", "less_likely"),
    [("plann", "plan", "plane"), ("sehd", "shed", "send"), ("wiith", "with", "width"), ("cire", "core", "care"),
     ("wht", "what", "why")],
)  # fmt: skip
def test_typing_cost_ranks_the_likeliest_slip_first(typed, likelier, less_likely):
    assert typing_cost(typed, likelier) < typing_cost(typed, less_likely) <= 1.0


def test_typing_cost_counts_several_edits_as_one_each():
    assert typing_cost("abcdef", "abxyef") == 2.0 and typing_cost("same", "same") == 0.0


def test_english_candidates_are_common_english_words_one_slip_away():
    assert "receive" in english_candidates("recieve", 3.0)
    assert english_candidates("qzxv", 3.0) == ()


SPELT = Lexicon.build(
    [
        ("s1", "We propose KiloNet for few-shot decoding. KiloNet scales well; scaling is cheap."),
        ("s2", "The RISE method trains reward models. We study the Token Hypothesis of decoding."),
    ],
    generic_share=1.0,
)


def test_a_corpus_name_typed_in_lower_case_is_written_as_the_corpus_writes_it():
    assert SPELT.correct("what does kilonet decode?") == ("what does KiloNet decode?", [])


def test_a_hyphenated_corpus_word_typed_without_its_hyphen_gets_it_back():
    assert SPELT.correct("fewshot decoding")[0] == "few-shot decoding"


def test_an_english_word_is_not_respelt_as_a_near_corpus_word():
    assert SPELT.correct("scarring of organs")[0] == "scarring of organs"  # not "scaling"


def test_an_english_word_only_alike_in_letters_to_a_corpus_word_is_not_respelt():
    lexicon = Lexicon.build([("z1", "ZedNet segments anatomically plausible organs.")], generic_share=1.0)
    # three letters apart: not a slip of the fingers, whatever the fuzzy ratio says
    assert lexicon.correct("an analytically tractable model")[0] == "an analytically tractable model"
    assert lexicon.correct("anatomicaly plausible")[0] == "anatomically plausible"  # a real slip still is


def test_an_english_word_in_another_form_of_a_corpus_word_is_no_typo_of_a_word_near_it():
    lexicon = Lexicon.build([("z1", "ZedNet: quantifying bias, and the quantities it moves.")], generic_share=1.0)
    # "quantifies" is "quantifying" in another form, not a slip for "quantities" (one key away)
    assert lexicon.correct("which paper quantifies bias?")[0] == "which paper quantifies bias?"


def test_a_typo_of_an_english_word_the_corpus_lacks_is_spelt_as_english():
    assert SPELT.correct("a slowly decyaing signal")[0] == "a slowly decaying signal"  # not the corpus's "decoding"


def test_a_capitalised_typo_keeps_its_capital():
    assert SPELT.correct("what is the Tokn Hypothesis?")[0] == "what is the Token Hypothesis?"


def test_an_english_word_the_corpus_has_only_in_another_form_is_written_in_that_form():
    lexicon = Lexicon.build([("p1", "We solve Sudokus and mazes with one model.")], generic_share=1.0)
    assert lexicon.correct("papers solving sudoku")[0] == "papers solving sudokus"
    assert [link.name.surface for link in lexicon.link("papers solving sudoku").links] == ["Sudokus"]


def test_a_common_misspelling_english_also_records_is_still_respelt():
    assert SPELT.correct("does it recieve rewards?")[0] == "does it receive rewards?"  # two letters swapped
    assert SPELT.correct("at preset rates")[0] == "at preset rates"  # a dropped letter from "present": a real word


def test_a_mistyped_invented_name_is_written_with_the_corpus_capital():
    lexicon = Lexicon.build([("z1", "We present Zorblex, a planner for kitchens.")], generic_share=1.0)
    assert lexicon.correct("what does zorrblex plan?")[0] == "what does Zorblex plan?"
    assert lexicon.correct("what does zorblex plan?")[0] == "what does Zorblex plan?"


def test_a_field_acronym_typed_in_lower_case_is_written_in_capitals():
    assert SPELT.correct("which llms and gpus are used?")[0] == "which LLMs and GPUs are used?"


def test_a_short_word_is_respelt_only_by_a_likely_slip():
    lexicon = Lexicon.build([("r1", "We train RISE on hard tasks.")], generic_share=1.0)
    assert lexicon.correct("what RMSE does it get?")[0] == "what RMSE does it get?"  # m for i: no likely slip
    assert lexicon.correct("how fast is RISR?")[0] == "how fast is RISE?"  # a neighbouring key


def test_an_english_word_is_written_as_a_name_only_when_the_corpus_never_writes_it_in_lower_case():
    lexicon = Lexicon.build(
        [("n1", "We fine-tune FLUX and RISE models."), ("n2", "Costs rise with scale.")], generic_share=1.0
    )
    assert lexicon.correct("papers using flux or rise")[0] == "papers using FLUX or rise"


def test_a_term_of_english_words_the_corpus_capitalises_stays_in_lower_case():
    lexicon = Lexicon.build([("x1", "We scale Mixture-of-Experts models on GPUs.")], generic_share=1.0)
    assert lexicon.correct("papers on mixture-of-experts models")[0] == "papers on mixture-of-experts models"


def _link(mention: str, *abstract_ids: str, exact: bool = True) -> Link:
    return Link(mention, Name(mention, frozenset(abstract_ids)), exact, 100.0 if exact else 90.0)


def test_works_named_are_the_owners_of_names_one_abstract_alone_uses_in_the_order_written():
    linking = Linking((_link("BarNet", "b"), _link("FooNet", "a"), _link("ZetaNet", "a", "c")))
    named = linking.works_named("Is FooNet faster than BarNet on ZetaNet?", lambda aid, name: True)
    assert named == [(3, "a"), (22, "b")]


def test_works_named_skip_typo_links_names_that_are_no_work_and_repeats():
    linking = Linking((_link("FooNet", "a"), _link("fooNet", "a"), _link("RMSE", "r", exact=False), _link("Qux", "q")))
    named = linking.works_named("FooNet fooNet RMSE Qux", lambda aid, name: name != "qux")
    assert named == [(0, "a")]


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        ("We propose FooNet, a pruning method.", "foonet", True),
        ("In this work we introduce a suite of tools called BarKit for audits.", "barkit", True),
        ("We evaluate on ZetaBench and report gains.", "zetabench", False),
        ("FooNet is used by many. We propose a new loss.", "foonet", False),
    ],
)
def test_introduces_reads_the_name_after_an_introduction_cue(text, name, expected):
    assert introduces(text, name) is expected


CLIPPED = Lexicon.build(
    [
        ("c1", "We evaluate the method on images and report its performance with fewer parameters."),
        ("c2", "Our evaluation covers tasks where memory matters; quantization and quantitative results are given."),
        ("c3", "The evaluated models keep their memory small and their performance high on these tasks."),
    ]
)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("eval", "evaluation"), ("perf", "performance"), ("mem", "memory"), ("params", "parameters"),
     ("imgs", "images")],
)  # fmt: skip
def test_a_clipped_word_reads_as_the_corpus_word_it_clips(typed, meant):
    assert CLIPPED.clipped_word(typed) == meant
    assert CLIPPED.correct(f"how is the {typed} of FooNet")[0] == f"how is the {meant} of FooNet"


def test_no_clipping_for_an_ambiguous_clip_a_typo_a_known_word_or_a_hyphen_part():
    # quantization or quantitative, each in one abstract: no one family dominates
    assert CLIPPED.clipped_word("quant", frequency=lambda word: 1.0) is None
    assert CLIPPED.clipped_word("taks") is None  # one slip from "tasks": a typo
    assert CLIPPED.clipped_word("superglue") is None  # clips no corpus word: an unknown name stays unknown
    assert CLIPPED.clipped_word("ev") is None  # too short
    assert "RNA-mem" in CLIPPED.correct("what about RNA-mem here")[0]  # a hyphenated term as written


def test_two_corpus_words_clipped_and_run_together_are_no_unknown_name():
    text = "we speed up sparse matrix multiplication on gpus."
    lexicon = Lexicon.build([("m1", "We speed up sparse matrix multiplication on GPUs.")])
    assert "matmul" not in lexicon.link("does it speed up matmul", corpus_text=text).unknown
    assert "zorbulax" in lexicon.link("does it speed up zorbulax", corpus_text=text).unknown


@pytest.mark.parametrize("question", ["ranking cast members, no ZorbDB credits", "training w/o ZorbDB labels",
                                      "trained on web text instead of ZorbDB"])  # fmt: skip
def test_a_name_the_question_rules_out_is_no_unknown_name(question):
    assert "ZorbDB" not in LEX.link(question).unknown
    assert "ZorbDB" in LEX.link("is ZorbDB used for ranking cast members").unknown


def test_a_name_written_out_where_the_corpus_clips_its_last_part_links_to_it():
    lexicon = Lexicon.build([("q1", "We present ZorbQ, a quantizer for language models."),
                             ("q2", "We study GPT models and their quantization.")])  # fmt: skip
    linking = lexicon.link("how many bits does ZorbQuant use")
    assert [link.name.surface for link in linking.links] == ["ZorbQ"] and not linking.unknown
    assert "ZorbQuantX" in lexicon.link("how many bits does ZorbQuantX use").unknown  # more than lower case
    assert "GPTzilla" in lexicon.link("how many bits does GPTzilla use").unknown  # an acronym clips nothing


def test_a_clipped_x2y_term_the_corpus_writes_with_to_is_no_unknown_name():
    text = "a model mapping sequence-to-sequence data."
    lexicon = Lexicon.build([("s1", "A model mapping sequence-to-sequence data.")])
    assert "seq2seq" not in lexicon.link("any seq2seq map", corpus_text=text).unknown
    assert "img2vid" in lexicon.link("any img2vid map", corpus_text=text).unknown
