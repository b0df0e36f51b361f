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


def test_recipe_of_a_long_abstract_matches_containment_for_every_chunk():
    """Many sentences, some over-long: each chunk holds exactly the sentences inside its span (found by bisection)."""
    long_sentence = " ".join(f"word{i}" for i in range(40)) + "."
    body = " ".join(f"Sentence number {i} is here." if i % 7 else "Long " + long_sentence for i in range(300))
    abstract, chunks, r = recipe(body, max_tokens=12)
    spans = abstract.sentences
    for chunk, rows in zip(chunks, r.chunks, strict=True):
        inside = [s.of(abstract.text) for s in spans if chunk.start <= s.start and s.end <= chunk.end]
        assert [r.texts[row] for row in rows] == (inside or [chunk.text])
    for span, rows in zip(spans, r.sentences, strict=True):
        assert all(span.start <= abstract.text.index(r.texts[row], span.start) < span.end for row in rows)


class FakeHashEncoder:
    """A fake encoder for pure tests: a fixed pseudo-random unit vector per text; records each call's size."""

    dimension = 8

    def __init__(self) -> None:
        self.calls: list[int] = []

    def prepare(self, n_texts: int) -> None:
        pass

    def vector(self, text: str) -> np.ndarray:
        v = np.random.default_rng(abs(hash(text)) % 2**32).standard_normal(self.dimension).astype(np.float32)
        return v / np.linalg.norm(v)

    def encode(self, texts, batch_size=None) -> np.ndarray:
        self.calls.append(len(texts))
        return np.stack([self.vector(t) for t in texts])


class FakeListStore:
    """A fake chunk store for pure tests: remembers the ids of the nodes added, in order."""

    def __init__(self) -> None:
        self.added: list[str] = []

    def add(self, nodes) -> None:
        self.added.extend(n.node_id for n in nodes)


def test_one_huge_abstract_is_encoded_in_slices_with_progress_after_each():
    from rag.ingest import _embed_and_store

    bodies = [SIX, " ".join(f"Sentence number {i} is here." for i in range(600)), "Short one. Two here."]
    abstracts = [abstract_of(body) for body in bodies]
    chunks = [c for a in abstracts for c in chunk_abstract(a, fake_word_counter, 12, 1)]
    encoder, store, progress = FakeHashEncoder(), FakeListStore(), []
    vectors = _embed_and_store(
        store, encoder, abstracts, chunks, set(), {}, 16, lambda done, total: progress.append((done, total)),
        slice_texts=256,
    )
    total = sum(len(a.sentences) for a in abstracts)
    assert max(encoder.calls) <= 256 and sum(encoder.calls) == total  # 600 sentences are never one call
    assert len(progress) >= 1 + total // 256 and progress[-1] == (total, total)
    assert [done for done, _ in progress] == sorted({done for done, _ in progress})  # advances every slice
    assert store.added == [c.id for c in chunks]  # every chunk stored once, in order
    expected = np.vstack([np.stack([encoder.vector(s) for s in a.sentence_texts()]) for a in abstracts])
    assert np.allclose(vectors, expected, atol=1e-6)  # slicing changes nothing in the vectors


class FakeBatchReportingEncoder(FakeHashEncoder):
    """A fake encoder that, like the real one, reports each batch of 16 texts it finishes."""

    def encode(self, texts, batch_size=None, progress=None) -> np.ndarray:
        out = super().encode(texts, batch_size)
        for start in range(0, len(texts), 16):
            if progress is not None:
                progress(min(16, len(texts) - start))
        return out


def test_an_encoder_that_reports_batches_moves_progress_within_one_slice():
    from rag.ingest import _embed_and_store

    bodies = [SIX, " ".join(f"Sentence number {i} is here." for i in range(100))]
    abstracts = [abstract_of(body) for body in bodies]
    chunks = [c for a in abstracts for c in chunk_abstract(a, fake_word_counter, 12, 1)]
    encoder, progress = FakeBatchReportingEncoder(), []
    _embed_and_store(FakeListStore(), encoder, abstracts, chunks, set(), {}, 16,
                     lambda done, total: progress.append((done, total)))  # fmt: skip
    total = sum(len(a.sentences) for a in abstracts)
    assert encoder.calls == [total]  # one slice
    dones = [done for done, _ in progress]
    assert dones[0] == 0 and dones[-1] == total and dones == sorted(dones)
    assert len(set(dones)) >= total // 16  # a step per batch, not one jump at the end
