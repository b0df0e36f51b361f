"""IndexSnapshot over the manifest's columns: the views (abstracts by id, chunks, sentence rows) give what the
objects they were made from say (small hand-made abstracts)."""

from __future__ import annotations

import numpy as np
import pytest

from rag.chunking import Chunk
from rag.corpus import Abstract, Location
from rag.manifest import Manifest, load_manifest, save_manifest
from rag.retrieve import IndexSnapshot
from rag.text import sentence_spans

TEXTS = (
    "We build a toy model. It learns fast. It fails on long inputs.",
    "Second paper here. It has two sentences.",
    "Ünïcode títle work. Ça marche bien.",
)
LABELS = ("ToyNet", "Second paper", "toynet")


def _manifest() -> Manifest:
    abstracts = tuple(
        Abstract(f"a{i}", LABELS[i], t, (Location("x.txt", i + 1),), f"h{i}", tuple(sentence_spans(t)))
        for i, t in enumerate(TEXTS)
    )
    chunks = tuple(
        Chunk(f"{a.id}:{k}", a.id, k, s.start, s.end, s.of(a.text)) for a in abstracts for k, s in enumerate(a.sentences)
    )
    return Manifest("c", "m", abstracts, chunks, 1, 0.0)


@pytest.fixture(params=["in memory", "loaded"])
def pair(request, tmp_path):
    made = _manifest()
    if request.param == "loaded":
        save_manifest(tmp_path, made)
        manifest = load_manifest(tmp_path)
    else:
        manifest = made
    rows = made.sentence_count()
    return made, IndexSnapshot(manifest, np.zeros((rows, 2), np.float32))


def test_abstracts_by_id_and_in_order(pair):
    made, snap = pair
    assert list(snap.abstracts) == [a.id for a in made.abstracts] == snap.abstract_order
    assert all(snap.abstracts[a.id] == a and a.id in snap.abstracts for a in made.abstracts)
    assert "nope" not in snap.abstracts and len(snap.abstracts) == 3
    with pytest.raises(KeyError):
        snap.abstracts["nope"]


def test_chunks_and_their_index(pair):
    made, snap = pair
    assert list(snap.chunks) == list(made.chunks)
    assert all(snap.chunks[snap.chunk_index[c.id]] == c for c in made.chunks)


def test_sentence_rows_owners_spans_and_texts(pair):
    made, snap = pair
    expected = [(a.id, s, s.of(a.text)) for a in made.abstracts for s in a.sentences]
    assert len(snap.sentence_spans) == len(snap.sentence_owner) == len(expected)
    assert [(snap.sentence_owner[r], snap.sentence_spans[r], snap.sentence_text(r)) for r in range(len(expected))] == expected
    assert snap.sentence_texts == [t for _, _, t in expected]
    assert [r for a in made.abstracts for r in snap.sentence_rows[a.id]] == list(range(len(expected)))


def test_lowered_corpus_and_labels(pair):
    _, snap = pair
    assert snap.lowered_corpus.decode() == "\n".join(TEXTS).lower()
    assert "ça marche" in snap.lowered_corpus and "Ça marche" not in snap.lowered_corpus
    assert "inputs.\nsecond" in snap.lowered_corpus and "bien.\n" not in snap.lowered_corpus
    assert snap.ids_labelled("toynet") == ["a0", "a2"] and snap.ids_labelled("second paper") == ["a1"]
    assert snap.ids_labelled("missing") == []


def test_mapped_rows_read_the_same_values_as_the_matrix(tmp_path):
    from rag.retrieve import MappedRows

    matrix = np.arange(4000 * 8, dtype=np.float32).reshape(4000, 8)
    np.save(tmp_path / "m.npy", matrix)
    rows = MappedRows(np.load(tmp_path / "m.npy", mmap_mode="r"))
    for start in range(0, 4000, 97):
        picked = list(range(start, min(start + 50, 4000)))
        assert np.array_equal(rows[picked], matrix[picked])
    assert rows.shape == (4000, 8) and len(rows) == 4000 and np.array_equal(np.asarray(rows), matrix)


@pytest.mark.parametrize(
    "key",
    [[5, 3, 3, 3999, 0, 1, 2, 17], [7], [-1, -4000, 12], np.array([9, 8, 10, 11], np.int32), [], slice(10, 20), 42,
     np.arange(4000) % 3 == 0],
)  # fmt: skip
def test_mapped_rows_read_any_key_as_numpy_would(tmp_path, key):
    from rag.retrieve import MappedRows

    matrix = np.random.default_rng(0).standard_normal((4000, 6)).astype(np.float32)
    np.save(tmp_path / "m.npy", matrix)
    got = MappedRows(np.load(tmp_path / "m.npy", mmap_mode="r"))[key]
    assert got.shape == matrix[key].shape and np.array_equal(got, matrix[key])


def test_mapped_rows_refuse_rows_out_of_range(tmp_path):
    from rag.retrieve import MappedRows

    np.save(tmp_path / "m.npy", np.zeros((10, 2), np.float32))
    with pytest.raises(IndexError):
        MappedRows(np.load(tmp_path / "m.npy", mmap_mode="r"))[[3, 10]]


def test_topic_presence_counts_abstracts_not_sentences_and_keeps_to_those_asked(pair):
    from rag.evidence import topic_presence
    from rag.text import content_words

    _, snap = pair
    toy, sentences, missing = content_words("toy sentences zebra")
    # "toy" is only in a0, "sentences" only in a1, "zebra" in no abstract
    present, doc_freq = topic_presence(snap, [toy, sentences, missing])
    assert doc_freq == {toy: 1, sentences: 1}
    assert present == {"a0": {toy}, "a1": {sentences}}
    present, doc_freq = topic_presence(snap, [toy, sentences], among=["a1", "unknown"])
    assert present == {"a1": {sentences}} and doc_freq == {toy: 1, sentences: 1}


def test_sentence_roles_are_those_of_each_abstract(pair):
    from rag.roles import abstract_roles

    made, snap = pair
    expected = [r for a in made.abstracts for r in abstract_roles(a.sentence_texts())]
    assert list(snap.sentence_roles) == expected and len(snap.sentence_roles) == len(expected)


def test_release_pages_leaves_every_view_reading_the_same(tmp_path):
    from rag.manifest import mapping_of, save_sentence_vectors

    made = _manifest()
    save_manifest(tmp_path, made)
    manifest = load_manifest(tmp_path)
    name = save_sentence_vectors(tmp_path, 1, np.eye(made.sentence_count(), 4, dtype=np.float32))
    vectors = np.load(tmp_path / name, mmap_mode="r")
    snap = IndexSnapshot(manifest, vectors)
    assert mapping_of(manifest.columns.arrays["text_blob"]) is not None and mapping_of(np.zeros(3)) is None
    assert len(snap._mappings) == 2  # the columns file and the vectors (BM25 built in memory here)
    before = ([snap.sentence_text(r) for r in range(6)], snap.sentence_vectors[[0, 5]], list(snap.sentence_roles))
    snap.release_pages()
    after = ([snap.sentence_text(r) for r in range(6)], snap.sentence_vectors[[0, 5]], list(snap.sentence_roles))
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and before[2] == after[2]
