"""Pure tests of how sentence and chunk vectors are made from encoded texts (a fake word counter, no model)."""

import numpy as np
import pytest

from rag.chunking import chunk_abstract
from rag.corpus import build_corpus, parse_seed_text
from rag.ingest import mean_vectors, vector_recipe


def fake_word_counter(text: str) -> int:
    """A fake tokenizer for pure tests: one token per whitespace-separated word."""
    return len(text.split())


def abstract_of(body: str):
    return build_corpus([parse_seed_text("a.txt", f"Header\n\n{body}".encode())])[0]


def recipe(body: str, max_tokens: int = 12, overlap: int = 1):
    abstract = abstract_of(body)
    chunks = chunk_abstract(abstract, fake_word_counter, max_tokens, overlap)
    return abstract, chunks, vector_recipe(abstract, chunks)


SIX = " ".join(f"Sentence number {i} is here." for i in range(6))  # five words each


def test_each_sentence_is_encoded_once_even_when_chunks_overlap():
    abstract, chunks, r = recipe(SIX)
    assert len(chunks) > 1  # overlapping windows share sentences
    assert list(r.texts) == abstract.sentence_texts()
    assert r.sentences == tuple((i,) for i in range(6))


def test_a_chunk_is_made_of_exactly_the_sentences_inside_it():
    abstract, chunks, r = recipe(SIX)
    for chunk, rows in zip(chunks, r.chunks, strict=True):
        assert " ".join(r.texts[i] for i in rows) == chunk.text


def test_one_chunk_abstract():
    _, chunks, r = recipe("Short one. Two here.", max_tokens=50)
    assert len(chunks) == 1 and r.chunks == ((0, 1),) and r.sentences == ((0,), (1,))


def test_an_over_long_sentence_is_the_mean_of_its_pieces_and_is_never_encoded_whole():
    long = "Long " + " ".join(f"w{i}" for i in range(30)) + "."
    abstract, chunks, r = recipe(f"First short one. {long} Last short one.", max_tokens=10, overlap=0)
    pieces = chunks[1:-1]  # between the two short sentences
    assert len(pieces) > 1
    assert long not in r.texts
    assert all(fake_word_counter(t) <= 10 for t in r.texts)
    long_rows = r.sentences[1]
    assert [r.texts[i] for i in long_rows] == [p.text for p in pieces]
    for chunk, rows in zip(chunks, r.chunks, strict=True):
        if chunk in pieces:
            assert [r.texts[i] for i in rows] == [chunk.text]


def test_mean_vectors_normalises():
    encoded = np.array([[1.0, 0.0], [0.0, 1.0], [3.0, 4.0]], np.float32)
    out = mean_vectors(encoded, [(0,), (0, 1), (2,)])
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0)
    assert np.allclose(out[0], [1, 0]) and np.allclose(out[1], [2**-0.5, 2**-0.5]) and np.allclose(out[2], [0.6, 0.8])
    assert out.dtype == np.float32


def test_mean_vectors_of_nothing_and_of_a_zero_row():
    assert mean_vectors(np.ones((2, 3), np.float32), []).shape == (0, 3)
    assert np.allclose(mean_vectors(np.zeros((1, 3), np.float32), [(0,)]), 0.0)  # no division by zero


def test_a_sentence_in_no_chunk_is_refused():
    abstract = abstract_of(SIX)
    chunks = chunk_abstract(abstract, fake_word_counter, 12, 1)[:1]  # drop the chunks holding later sentences
    with pytest.raises(ValueError, match="lies in no chunk"):
        vector_recipe(abstract, chunks)
