from rag.chunking import chunk_abstract, pack_sentences, split_long_span
from rag.corpus import build_corpus, parse_seed_text
from rag.text import Span


def fake_word_counter(text: str) -> int:
    """A fake tokenizer for pure tests: one token per whitespace-separated word."""
    return len(text.split())


def covered(windows, n):
    return {i for first, last in windows for i in range(first, last)} == set(range(n))


def test_everything_fits_in_one_window():
    assert pack_sentences([10, 10, 10], max_tokens=50, overlap=1) == [(0, 3)]


def test_windows_respect_the_limit_and_overlap_by_one():
    windows = pack_sentences([30, 30, 30, 30], max_tokens=60, overlap=1)
    assert windows == [(0, 2), (1, 3), (2, 4)]


def test_no_overlap():
    assert pack_sentences([30, 30, 30, 30], max_tokens=60, overlap=0) == [(0, 2), (2, 4)]


def test_overlap_dropped_when_it_would_not_fit():
    assert pack_sentences([50, 50, 50], max_tokens=60, overlap=1) == [(0, 1), (1, 2), (2, 3)]


def test_oversized_sentence_gets_its_own_window():
    windows = pack_sentences([10, 500, 10], max_tokens=60, overlap=1)
    assert (1, 2) in windows and covered(windows, 3)


def test_every_sentence_covered_for_many_shapes():
    for counts in ([1] * 40, [59, 1, 59, 1], [20, 40, 60, 5, 5, 5], [61, 61]):
        assert covered(pack_sentences(counts, max_tokens=60, overlap=2), len(counts))


def test_empty_input():
    assert pack_sentences([], max_tokens=60, overlap=1) == []


def test_split_long_span_pieces_fit_and_cover_all_words():
    text = " ".join(f"w{i}" for i in range(25))
    pieces = split_long_span(text, Span(0, len(text)), fake_word_counter, max_tokens=10)
    assert all(fake_word_counter(p.of(text)) <= 10 for p in pieces)
    assert {w for p in pieces for w in p.of(text).split()} == set(text.split())


def test_chunk_abstract_offsets_point_into_text():
    text = "Header\n\n" + " ".join([f"This is sentence number {i} here." for i in range(12)])
    abstract = build_corpus([parse_seed_text("a.txt", text.encode())])[0]
    chunks = chunk_abstract(abstract, fake_word_counter, max_tokens=20, overlap_sentences=1)
    assert len(chunks) > 1
    for chunk in chunks:
        assert abstract.text[chunk.start : chunk.end] == chunk.text
        assert fake_word_counter(chunk.text) <= 20
        assert chunk.id == f"{abstract.id}:{chunk.ordinal}"


def test_split_long_span_counts_each_distinct_word_once():
    """A long run without punctuation: counting every growing prefix again was quadratic (minutes per MB)."""
    calls: list[str] = []

    def counting_fake_counter(text: str) -> int:
        calls.append(text)
        return fake_word_counter(text)

    text = " ".join(f"w{i % 50}" for i in range(5000))
    pieces = split_long_span(text, Span(0, len(text)), counting_fake_counter, max_tokens=40)
    assert len(calls) == 50  # one call per distinct word, none per piece or prefix
    assert all(fake_word_counter(p.of(text)) <= 40 for p in pieces)
    assert pieces[0].start == 0 and pieces[-1].end == len(text)
    assert all(b.start < a.end for a, b in zip(pieces, pieces[1:], strict=False))  # consecutive pieces overlap


def test_split_long_span_gives_a_word_over_the_limit_a_piece_of_its_own():
    text = "short " + "x" * 30 + " tail"
    pieces = split_long_span(text, Span(0, len(text)), len, max_tokens=10)
    assert [p.of(text) for p in pieces] == ["short", "x" * 30, "tail"]
