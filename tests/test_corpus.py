from pathlib import Path

import pytest

from rag.corpus import (
    Location,
    build_corpus,
    find_seed_files,
    load_corpus,
    make_id,
    make_label,
    parse_seed_text,
)
from rag.errors import CorpusError

SEEDS = Path(__file__).resolve().parents[1] / "seeds"
ABSTRACT_A = "We present AssayBench, a benchmark built from 1,920 CRISPR screens. It has five classes."
ABSTRACT_B = "Dropout is common in clinical studies with many patients. We study the resulting bias."


def seed(*paragraphs, header="NeurIPS 2026 Papers"):
    return ("\n\n".join([header, *paragraphs]) + "\n").encode()


# --- parsing one file ---


def test_parses_header_and_paragraphs():
    parsed = parse_seed_text("a.txt", seed(ABSTRACT_A, ABSTRACT_B))
    assert parsed.header == "NeurIPS 2026 Papers"
    assert parsed.paragraphs == (ABSTRACT_A, ABSTRACT_B)


def test_non_english_header():
    assert parse_seed_text("a.txt", seed(ABSTRACT_A, header="NeurIPS 2026 论文列表")).header == "NeurIPS 2026 论文列表"


def test_wrapped_lines_are_joined():
    parsed = parse_seed_text("a.txt", b"Header\n\nFirst line of an abstract\ncontinues here.\n")
    assert parsed.paragraphs == ("First line of an abstract continues here.",)


def test_crlf_bom_and_extra_blank_lines():
    raw = "\ufeffHeader\r\n\r\n\r\n" + ABSTRACT_A + "\r\n   \r\n" + ABSTRACT_B + "\r\n\r\n"
    assert parse_seed_text("a.txt", raw.encode()).paragraphs == (ABSTRACT_A, ABSTRACT_B)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"", "empty"),
        (b"  \n\n \n", "empty"),
        (b"Header only\n", "no abstracts"),
        (b"Header\n\n\n", "no abstracts"),
        (b"Header\n\n\x00\x01binary" + b"x" * 40, "binary"),
        (b"Header\n\n" + "caf\u00e9 ".encode("latin-1") * 10, "not UTF-8"),
        (b"Header\n\nshort\n", "only 5 characters"),
        (b"Header\n\n" + b"A bell \x07 rings in this abstract text.\n", "control characters"),
    ],
)
def test_malformed_files_name_file_and_problem(raw, problem):
    with pytest.raises(CorpusError) as info:
        parse_seed_text("bad.txt", raw)
    assert "bad.txt" in str(info.value)
    assert problem in str(info.value)


def test_directory_without_txt_files(tmp_path):
    (tmp_path / "notes.md").write_text("x")
    with pytest.raises(CorpusError, match="no .txt files"):
        find_seed_files([tmp_path])


def test_missing_path(tmp_path):
    with pytest.raises(CorpusError, match="no such file"):
        find_seed_files([tmp_path / "nope"])


def test_huge_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("rag.corpus.MAX_SEED_FILE_BYTES", 100)
    big = tmp_path / "big.txt"
    big.write_bytes(seed(ABSTRACT_A, ABSTRACT_B))
    with pytest.raises(CorpusError, match="refused"):
        load_corpus([big])


# --- the corpus: dedupe, locations, ids ---


def test_duplicates_become_one_abstract_with_both_locations():
    corpus = build_corpus(
        [parse_seed_text("a.txt", seed(ABSTRACT_A, ABSTRACT_B)), parse_seed_text("b.txt", seed(ABSTRACT_B))]
    )
    assert len(corpus) == 2
    dropout = next(a for a in corpus if a.text == ABSTRACT_B)
    assert dropout.locations == (Location("a.txt", 2), Location("b.txt", 1))


def test_duplicate_within_one_file_keeps_both_positions():
    corpus = build_corpus([parse_seed_text("a.txt", seed(ABSTRACT_A, ABSTRACT_A))])
    assert [a.locations for a in corpus] == [(Location("a.txt", 1), Location("a.txt", 2))]


def test_whitespace_only_differences_are_the_same_abstract():
    corpus = build_corpus(
        [parse_seed_text("a.txt", seed(ABSTRACT_A)), parse_seed_text("b.txt", seed(ABSTRACT_A.replace(" ", "  ")))]
    )
    assert len(corpus) == 1


def test_ids_do_not_change_when_files_are_reordered_or_added():
    a = parse_seed_text("a.txt", seed(ABSTRACT_A))
    b = parse_seed_text("b.txt", seed(ABSTRACT_B))
    extra = parse_seed_text("c.txt", seed("A third abstract about something else entirely, long enough."))
    ids_ab = {x.text: x.id for x in build_corpus([a, b])}
    ids_bac = {x.text: x.id for x in build_corpus([b, extra, a])}
    assert all(ids_bac[text] == ids_ab[text] for text in ids_ab)


def test_id_is_readable_label_slug_plus_hash():
    assert make_id("AssayBench", "66f7abcd") == "assaybench-66f7"


def test_label_prefers_named_contribution():
    assert make_label(ABSTRACT_A) == "AssayBench"


def test_label_skips_generic_acronyms():
    assert make_label("We present LLM agents for GUI tasks in the wild and test them at scale.").startswith("We")


def test_label_falls_back_to_opening_words():
    assert make_label("Dropout is common in clinical studies with many patients leaving.") == (
        "Dropout is common in clinical studies…"
    )


def test_sentence_spans_are_precomputed():
    corpus = build_corpus([parse_seed_text("a.txt", seed(ABSTRACT_A))])
    assert corpus[0].sentence_texts() == [
        "We present AssayBench, a benchmark built from 1,920 CRISPR screens.",
        "It has five classes.",
    ]


# --- the real seeds ---


def test_seed_corpus_has_73_unique_abstracts_and_three_shared():
    corpus = load_corpus([SEEDS])
    assert sum(len(a.locations) for a in corpus) == 76
    assert len(corpus) == 73
    assert len({a.id for a in corpus}) == 73
    assert sum(len(a.locations) == 2 for a in corpus) == 3


def test_assaybench_in_seeds_has_both_locations():
    corpus = load_corpus([SEEDS])
    assay = next(a for a in corpus if a.label == "AssayBench")
    assert [loc.file[:3] for loc in assay.locations] == ["000", "001"]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Graphs are hard. We introduce Foo&Bar Pro, a benchmark for graph tasks. It is big.", "Foo&Bar Pro"),
        (
            "Models fail. We present the Quiet Lattice Hypothesis, a theory of depth. It holds.",
            "Quiet Lattice Hypothesis",
        ),
        (
            "Sampling is slow. We propose a faster sampler for diffusion models. It helps.",
            "Sampling is slow. We propose a…",
        ),  # no name: opening words
    ],
)
def test_label_is_the_name_the_abstract_gives_its_work(text, label):
    assert make_label(text) == label


@pytest.mark.parametrize("invisible", ["\u200b", "\ufeff", "\u202e", "\u202d", "\u2060", "\u200b \u2060\t\u202e"])
def test_paragraph_of_invisible_characters_is_a_blank_line(invisible):
    raw = "Header\n\n" + ABSTRACT_A + "\n" + invisible * 30 + "\n" + ABSTRACT_B + "\n\n" + invisible * 30 + "\n"
    assert parse_seed_text("a.txt", raw.encode()).paragraphs == (ABSTRACT_A, ABSTRACT_B)


def test_file_of_invisible_characters_only_is_empty():
    with pytest.raises(CorpusError, match="empty"):
        parse_seed_text("bad.txt", ("\u200b" * 50 + "\n\u2060\n").encode())


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_files_with_a_byte_order_mark_are_read(encoding):
    text = "Header 论文\r\n\r\n" + ABSTRACT_A + "\r\n\r\n" + ABSTRACT_B + "\r\n"
    bom = {"utf-16-le": "\ufeff", "utf-16-be": "\ufeff"}.get(encoding, "")
    parsed = parse_seed_text("a.txt", (bom + text).encode(encoding))
    assert parsed.header == "Header 论文"
    assert parsed.paragraphs == (ABSTRACT_A, ABSTRACT_B)


def test_utf16_without_a_byte_order_mark_is_still_refused():
    with pytest.raises(CorpusError, match="binary"):
        parse_seed_text("bad.txt", ("Header\n\n" + ABSTRACT_A).encode("utf-16-le"))
