"""Unit tests for rag/cite.py: marker parsing, answer splitting, support signals and sentence verification."""

from __future__ import annotations

import pytest

from rag.cite import (
    MAX_RANGE,
    NUMBER_MISMATCH_CAP,
    SUPPORT_THRESHOLD,
    ParsedSentence,
    Support,
    markers_in,
    number_agreement,
    parse_marker_numbers,
    split_answer,
    strip_markers,
    support_score,
    verify_sentences,
    word_overlap,
)
from rag.text import Span

# --- parse_marker_numbers ---


@pytest.mark.parametrize(
    ("group", "expected"),
    [
        ("1", [1]),
        ("1, 3", [1, 3]),
        ("1,3", [1, 3]),
        ("2; 4", [2, 4]),
        ("1-3", [1, 2, 3]),
        ("1 – 3", [1, 2, 3]),
        ("2—4", [2, 3, 4]),
        ("1, 3-5", [1, 3, 4, 5]),
        (" 7 ", [7]),
        ("", []),
        ("1,,2", [1, 2]),
        ("a, 2", [2]),
    ],
)
def test_parse_marker_numbers(group, expected):
    assert parse_marker_numbers(group) == expected


def test_parse_marker_numbers_reversed_range_is_empty():
    assert parse_marker_numbers("3-1") == []


def test_parse_marker_numbers_same_bounds_is_one_number():
    assert parse_marker_numbers("4-4") == [4]


def test_parse_marker_numbers_absurd_range_is_capped():
    numbers = parse_marker_numbers("1-100")
    assert len(numbers) == MAX_RANGE
    assert numbers == list(range(1, MAX_RANGE + 1))


def test_parse_marker_numbers_keeps_duplicates_and_order():
    assert parse_marker_numbers("3, 1, 3") == [3, 1, 3]


# --- markers_in ---


def test_markers_in_all_forms_in_order_with_duplicates():
    assert markers_in("A [1] B [2, 3] C [1][4-5].") == [1, 2, 3, 1, 4, 5]


def test_markers_in_tolerates_inner_spaces():
    assert markers_in("see [ 2 ] and [3 ,4]") == [2, 3, 4]


def test_markers_in_ignores_non_numeric_brackets():
    assert markers_in("see [a] and [note] and [1a]") == []


def test_markers_in_no_markers():
    assert markers_in("plain sentence with 12 numbers") == []


# --- strip_markers ---


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It works [1].", "It works."),
        ("It works [1][2].", "It works."),
        ("It works [1, 2] well [3-4] , too.", "It works well, too."),
        ("[1] Hello  world", "Hello world"),
        ("No markers here.", "No markers here."),
        ("Keeps [a] brackets.", "Keeps [a] brackets."),
        ("  padded [2]  ", "padded"),
    ],
)
def test_strip_markers(text, expected):
    assert strip_markers(text) == expected


# --- split_answer ---


def test_split_answer_two_sentences_each_with_own_marker():
    assert split_answer("It works [1]. It also fails [2].", 3) == [
        ParsedSentence("It works.", (1,)),
        ParsedSentence("It also fails.", (2,)),
    ]


def test_split_answer_leading_marker_belongs_to_previous_sentence():
    parsed = split_answer("First claim. [2] Second claim [1].", 3)
    assert [(p.text, p.cited) for p in parsed] == [("First claim.", (2,)), ("Second claim.", (1,))]


def test_split_answer_trailing_marker_after_final_period_is_carried_back():
    parsed = split_answer("Only claim. [3]", 3)
    assert [(p.text, p.cited) for p in parsed] == [("Only claim.", (3,))]


def test_split_answer_carry_adds_to_existing_citations():
    parsed = split_answer("Claim [1]. [2] Next [3].", 3)
    assert parsed[0].cited == (1, 2)
    assert parsed[1] == ParsedSentence("Next.", (3,))


def test_split_answer_drops_numbers_outside_sources():
    assert split_answer("A claim [1, 9].", 3) == [ParsedSentence("A claim.", (1,), (9,))]


def test_split_answer_zero_is_outside_sources():
    assert split_answer("A claim [0].", 3) == [ParsedSentence("A claim.", (), (0,))]


def test_split_answer_dedupes_citations_in_first_appearance_order():
    assert split_answer("Claim [2][2][1].", 3) == [ParsedSentence("Claim.", (2, 1))]


def test_split_answer_range_marker_expands():
    assert split_answer("Claim [1-3].", 3) == [ParsedSentence("Claim.", (1, 2, 3))]


def test_split_answer_list_items_are_sentences():
    parsed = split_answer("- item one [1]\n* item two [2]\n• item three [3]", 3)
    assert [(p.text, p.cited) for p in parsed] == [("item one", (1,)), ("item two", (2,)), ("item three", (3,))]


def test_split_answer_numbered_list_items_lose_their_ordinal():
    parsed = split_answer("1. First [1]\n2) Second [3]", 3)
    assert [(p.text, p.cited) for p in parsed] == [("First", (1,)), ("Second", (3,))]


def test_split_answer_blank_lines_skipped():
    parsed = split_answer("One [1].\n\n\nTwo [2].", 2)
    assert [p.text for p in parsed] == ["One.", "Two."]


def test_split_answer_marker_only_text_yields_nothing():
    assert split_answer("[1]", 3) == []
    assert split_answer("", 3) == []


def test_split_answer_uncited_sentence_has_no_citations():
    assert split_answer("Nothing cited here.", 2) == [ParsedSentence("Nothing cited here.", ())]


def test_split_answer_abbreviation_does_not_split():
    parsed = split_answer("Dr. Smith did it [1]. Next one [2].", 3)
    assert [p.text for p in parsed] == ["Dr. Smith did it.", "Next one."]


def test_split_answer_decimal_is_not_a_sentence_end():
    parsed = split_answer("Accuracy rose by 3.5 points [1]. Then more [2].", 3)
    assert [(p.text, p.cited) for p in parsed] == [("Accuracy rose by 3.5 points.", (1,)), ("Then more.", (2,))]


def test_split_answer_with_no_sources_drops_everything():
    assert split_answer("Claim [1].", 0) == [ParsedSentence("Claim.", (), (1,))]


# --- word_overlap ---


def test_word_overlap_full():
    assert word_overlap("Protein folding", "We study protein folding at scale.") == 1.0


def test_word_overlap_partial():
    # content words: transform, dominate, vision -> 2 of 3 in the abstract
    assert word_overlap("Transformers dominate vision", "transformer vision") == pytest.approx(2 / 3)


def test_word_overlap_none():
    assert word_overlap("Quantum chemistry", "Robotic grasping policies") == 0.0


def test_word_overlap_sentence_without_content_words_is_one():
    assert word_overlap("It is.", "anything") == 1.0


def test_word_overlap_is_case_insensitive():
    assert word_overlap("CRISPR SCREENS", "crispr screens") == 1.0


# --- number_agreement ---


def test_number_agreement_no_numbers_is_one():
    assert number_agreement("no numbers here", "1 2 3") == 1.0


def test_number_agreement_normalized_numbers_match():
    assert number_agreement("Uses 1,920 screens and 45%.", "we use 1920 screens, 45.0% of them") == 1.0


def test_number_agreement_mismatch():
    assert number_agreement("Uses 12 GPUs.", "uses 8 GPUs") == 0.0


def test_number_agreement_partial():
    assert number_agreement("Uses 12 and 8 GPUs.", "uses 8 GPUs") == 0.5


# --- support_score ---


def test_support_score_weights():
    assert support_score(1.0, 1.0, 1.0) == 1.0
    assert support_score(0.5, 0.5, 1.0) == 0.5
    assert support_score(0.0, 1.0, 1.0) == 0.45
    assert support_score(1.0, 0.0, 1.0) == 0.55


def test_support_score_clamps_dense():
    assert support_score(2.0, 1.0, 1.0) == 1.0
    assert support_score(-1.0, 0.5, 1.0) == 0.225


def test_support_score_number_mismatch_caps_below_threshold():
    capped = support_score(1.0, 1.0, 0.5)
    assert capped == NUMBER_MISMATCH_CAP
    assert capped < SUPPORT_THRESHOLD


def test_support_score_cap_does_not_raise_low_scores():
    assert support_score(0.2, 0.2, 0.0) == 0.2


def test_support_score_is_rounded():
    assert support_score(0.123456, 0.0, 1.0) == round(0.55 * 0.123456, 4)


# --- verify_sentences ---

EVIDENCE = Span(0, 10)


def make_fake_support(scores: dict[tuple[str, int], float]):
    """A fake SupportFn: fixed scores per (sentence, source); records every call."""
    calls: list[tuple[str, int]] = []

    def fake_support(text: str, number: int) -> Support:
        calls.append((text, number))
        return Support(scores.get((text, number), 0.0), EVIDENCE)

    fake_support.calls = calls
    return fake_support


def test_verify_supported_own_citation():
    fake_support = make_fake_support({("A.", 1): 0.9})
    [result] = verify_sentences([ParsedSentence("A.", (1,))], 2, fake_support)
    assert result.verified
    assert result.text == "A."
    assert [(n, s.score) for n, s in result.citations] == [(1, 0.9)]
    assert result.note == ""
    assert fake_support.calls == [("A.", 1)]  # supported: no other source is tried


def test_verify_keeps_only_supporting_citations():
    fake_support = make_fake_support({("A.", 1): 0.2, ("A.", 2): 0.8})
    [result] = verify_sentences([ParsedSentence("A.", (1, 2))], 3, fake_support)
    assert result.verified
    assert [n for n, _ in result.citations] == [2]


def test_verify_threshold_is_inclusive():
    fake_support = make_fake_support({("A.", 1): SUPPORT_THRESHOLD})
    [result] = verify_sentences([ParsedSentence("A.", (1,))], 1, fake_support)
    assert result.verified


def test_verify_custom_threshold():
    fake_support = make_fake_support({("A.", 1): 0.5})
    assert verify_sentences([ParsedSentence("A.", (1,))], 1, fake_support, threshold=0.4)[0].verified
    assert not verify_sentences([ParsedSentence("A.", (1,))], 1, fake_support, threshold=0.6)[0].verified


def test_verify_recites_to_best_other_source():
    fake_support = make_fake_support({("A.", 1): 0.1, ("A.", 2): 0.7, ("A.", 3): 0.95})
    [result] = verify_sentences([ParsedSentence("A.", (1,))], 3, fake_support)
    assert result.verified
    assert [n for n, _ in result.citations] == [3]
    assert result.note == "re-cited from [1] to [3]"


def test_verify_uncited_sentence_gets_a_citation():
    fake_support = make_fake_support({("A.", 2): 0.8})
    [result] = verify_sentences([ParsedSentence("A.", ())], 2, fake_support)
    assert result.verified
    assert [n for n, _ in result.citations] == [2]
    assert result.note == "re-cited from no citation to [2]"


def test_verify_unsupported_sentence_is_flagged_with_its_own_citations():
    fake_support = make_fake_support({("A.", 1): 0.3, ("A.", 2): 0.5})
    [result] = verify_sentences([ParsedSentence("A.", (1,))], 2, fake_support)
    assert not result.verified
    assert [(n, s.score) for n, s in result.citations] == [(1, 0.3)]
    assert result.note == "not supported by the sources"


def test_verify_no_sources_at_all():
    fake_support = make_fake_support({})
    [result] = verify_sentences([ParsedSentence("A.", ())], 0, fake_support)
    assert not result.verified
    assert result.citations == ()
    assert fake_support.calls == []


def test_verify_dropped_citation_noted_when_verified():
    fake_support = make_fake_support({("A.", 1): 0.9})
    [result] = verify_sentences([ParsedSentence("A.", (1,), (7,))], 2, fake_support)
    assert result.verified
    assert result.note == "dropped citation(s) [7] outside the sources"


def test_verify_dropped_citation_noted_when_recited_and_when_unsupported():
    fake_support = make_fake_support({("A.", 2): 0.9})
    recited, flagged = verify_sentences(
        [ParsedSentence("A.", (1,), (7, 8)), ParsedSentence("B.", (), (9,))], 2, fake_support
    )
    assert recited.note == "dropped citation(s) [7], [8] outside the sources; re-cited from [1] to [2]"
    assert flagged.note == "dropped citation(s) [9] outside the sources; not supported by the sources"


def test_verify_preserves_sentence_order_and_count():
    fake_support = make_fake_support({("A.", 1): 0.9, ("C.", 1): 0.9})
    results = verify_sentences(
        [ParsedSentence("A.", (1,)), ParsedSentence("B.", (1,)), ParsedSentence("C.", (1,))], 1, fake_support
    )
    assert [(r.text, r.verified) for r in results] == [("A.", True), ("B.", False), ("C.", True)]


def test_verify_empty_input():
    assert verify_sentences([], 3, make_fake_support({})) == []


def test_split_then_verify_end_to_end_with_fake_support():
    parsed = split_answer("Alpha holds [1]. Beta holds [1].", 2)
    fake_support = make_fake_support({("Alpha holds.", 1): 0.8, ("Beta holds.", 2): 0.8})
    alpha, beta = verify_sentences(parsed, 2, fake_support)
    assert alpha.verified and [n for n, _ in alpha.citations] == [1]
    assert beta.verified and [n for n, _ in beta.citations] == [2]
    assert "re-cited from [1] to [2]" in beta.note
