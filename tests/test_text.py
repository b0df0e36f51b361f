import pytest

from rag.text import content_words, normalize_number, normalize_whitespace, numbers_in, sentence_spans


def sentences(text):
    return [s.of(text) for s in sentence_spans(text)]


def test_splits_plain_sentences():
    assert sentences("One here. Two there! Three? Four.") == ["One here.", "Two there!", "Three?", "Four."]


@pytest.mark.parametrize("abbrev", ["e.g.", "i.e.", "et al.", "vs.", "Fig.", "cf."])
def test_abbreviations_do_not_split(abbrev):
    text = f"We compare methods, {abbrev} Smith methods. Then we stop."
    assert len(sentences(text)) == 2


def test_decimals_and_versions_do_not_split():
    assert sentences("Accuracy rose by 3.5 points over v2.1 baselines. Done.") == [
        "Accuracy rose by 3.5 points over v2.1 baselines.",
        "Done.",
    ]


def test_lowercase_after_period_does_not_split():
    assert len(sentences("The value is 5 p.m. today and fine. Next.")) == 2


def test_spans_cover_all_text_without_overlap():
    text = "A b c. D e f? G h (i.e., j). K l."
    spans = sentence_spans(text)
    assert "".join(s.of(text) for s in spans).replace(" ", "") == text.replace(" ", "")
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))


def test_closing_bracket_stays_with_sentence():
    assert sentences("It works (see below.) Next one.") == ["It works (see below.)", "Next one."]


def test_empty_text_has_no_sentences():
    assert sentence_spans("   ") == []


def test_normalize_whitespace_collapses_newlines():
    assert normalize_whitespace(" a\n b\t\tc ") == "a b c"


def test_content_words_drop_stopwords_and_stem():
    assert content_words("The screens of the models") == ["screen", "model"]


def test_content_words_keep_hyphenated_parts():
    assert content_words("zero-shot") == ["zero-shot", "zero", "shot"]


@pytest.mark.parametrize(
    ("raw", "expected"), [("1,920", "1920"), ("45.0%", "45%"), ("3.50", "3.5"), ("+7", "7"), ("10", "10")]
)
def test_normalize_number(raw, expected):
    assert normalize_number(raw) == expected


def test_numbers_in_finds_normalized_numbers():
    assert numbers_in("built from 1,920 screens, 5 classes and 3.5% gain") == {"1920", "5", "3.5%"}


def test_numbers_inside_words_are_ignored():
    assert numbers_in("GPT4 and V33DA") == set()
