"""BM25 saved at ingest and loaded when the index opens: same scores as building it, and any unusable file just means
building it again. The pure tests use the real seeds without a model (chunks are cut by a word counter)."""

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from rag.bm25 import BM25Index
from rag.chunking import chunk_abstract
from rag.corpus import find_seed_files, load_corpus
from rag.errors import IndexCorruptError
from rag.manifest import (
    MANIFEST_NAME,
    Manifest,
    bm25_name,
    load_bm25,
    load_manifest,
    remove_stale_files,
    save_bm25,
    save_manifest,
)
from rag.pipeline import Pipeline
from rag.retrieve import IndexSnapshot, build_bm25
from tests.conftest import SEEDS

STORE_MODES = ("embedded",)
ASSAY_Q = "How many CRISPR screens does AssayBench use?"
ASSAY_ID = "assaybench-66f7"
QUERIES = (
    ASSAY_Q,
    "calibration of language models",
    "Which benchmarks evaluate survival analysis with censoring?",
    "co-locator's isn't screens",
    "the of and",
    "quantum teleportation",
)


@pytest.fixture(scope="module")
def corpus():
    """The seeds' abstracts and chunks; a 40-word limit makes the chunker split some over-long sentences too."""
    abstracts = load_corpus(find_seed_files([SEEDS]))
    chunks = [c for a in abstracts for c in chunk_abstract(a, lambda t: len(t.split()), 40, 1)]
    return abstracts, chunks


def manifest_of(abstracts, chunks, generation: int = 1, bm25: str = "") -> Manifest:
    return Manifest("c", "m", tuple(abstracts), tuple(chunks), generation, 0.0, sentence_vectors="", bm25=bm25)


def assert_same(a: BM25Index, b: BM25Index) -> None:
    assert list(a.vocabulary.items()) == list(b.vocabulary.items())
    assert a.n_docs == b.n_docs
    for part in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(a.weights, part), getattr(b.weights, part))
    for query in QUERIES:
        assert np.array_equal(a.scores(query), b.scores(query)), query


def test_build_tokenizes_sentences_once_with_the_same_result(corpus):
    abstracts, chunks = corpus
    assert any(not any(s.start == c.start for a in abstracts if a.id == c.abstract_id for s in a.sentences)
               for c in chunks), "no over-long sentence was split"  # fmt: skip
    chunk_index, sentence_index = build_bm25(abstracts, chunks)
    assert_same(chunk_index, BM25Index([c.text for c in chunks]))
    assert_same(sentence_index, BM25Index([t for a in abstracts for t in a.sentence_texts()]))


def test_save_and_load_give_identical_indexes(tmp_path, corpus):
    abstracts, chunks = corpus
    built = build_bm25(abstracts, chunks)
    name = save_bm25(tmp_path, 3, *built)
    assert name == bm25_name(3) == "bm25-3.npz"
    loaded = load_bm25(tmp_path, manifest_of(abstracts, chunks, 3, name))
    assert loaded is not None
    for fresh, saved in zip(built, loaded, strict=True):
        assert_same(fresh, saved)
    assert not list(tmp_path.glob(".*")), "a temporary file was left behind"


def test_arrays_round_trip_small_and_empty_indexes():
    for docs in (["AssayBench uses CRISPR screens", "screens and screening", "co-locator's tool"], [], ["the of"]):
        index = BM25Index(docs)
        assert_same(BM25Index.from_arrays(index.to_arrays(), len(docs)), index)


def test_snapshot_loads_the_saved_file(tmp_path, corpus, monkeypatch):
    abstracts, chunks = corpus
    manifest = manifest_of(abstracts, chunks, 1, save_bm25(tmp_path, 1, *build_bm25(abstracts, chunks)))
    vectors = np.zeros((sum(len(a.sentences) for a in abstracts), 2), np.float32)
    built = IndexSnapshot(manifest, vectors)  # no index folder: built in memory
    assert not built.bm25_loaded

    def no_building(*args, **kwargs):
        raise AssertionError("BM25 was built although a usable file exists")

    monkeypatch.setattr(BM25Index, "_build", no_building)
    loaded = IndexSnapshot(manifest, vectors, tmp_path)
    assert loaded.bm25_loaded
    assert_same(loaded.bm25, built.bm25)
    assert_same(loaded.sentence_bm25, built.sentence_bm25)


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00garbage{{{")


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _missing(path: Path) -> None:
    path.unlink()


def _other_code(path: Path) -> None:  # e.g. saved before the stemmer changed
    with np.load(path, allow_pickle=False) as saved:
        arrays = {key: saved[key] for key in saved.files}
    arrays["signature"] = np.array("bm25 format 1, code 0000000000000000")
    np.savez(path, **arrays)


def _other_k1(path: Path) -> None:
    with np.load(path, allow_pickle=False) as saved:
        arrays = {key: saved[key] for key in saved.files}
    arrays["chunks_params"] = np.array([2.0, 0.75])
    np.savez(path, **arrays)


def _float64_weights(path: Path) -> None:
    with np.load(path, allow_pickle=False) as saved:
        arrays = {key: saved[key] for key in saved.files}
    arrays["sentences_data"] = arrays["sentences_data"].astype(np.float64)
    np.savez(path, **arrays)


def _out_of_range_column(path: Path) -> None:
    with np.load(path, allow_pickle=False) as saved:
        arrays = {key: saved[key] for key in saved.files}
    arrays["chunks_indices"] = arrays["chunks_indices"].copy()
    arrays["chunks_indices"][0] = 10**6
    np.savez(path, **arrays)


def _pickled_object(path: Path) -> None:
    np.savez(path, signature=np.array([{"not": "allowed"}], dtype=object))


DAMAGE = {
    "truncated": _truncate,
    "garbage": _garbage,
    "empty": _empty,
    "missing": _missing,
    "other-code": _other_code,
    "other-k1": _other_k1,
    "float64-weights": _float64_weights,
    "index-out-of-range": _out_of_range_column,
    "pickled-object": _pickled_object,
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_unusable_file_falls_back_to_building(tmp_path, corpus, damage, caplog):
    abstracts, chunks = corpus
    name = save_bm25(tmp_path, 1, *build_bm25(abstracts, chunks))
    DAMAGE[damage](tmp_path / name)
    manifest = manifest_of(abstracts, chunks, 1, name)
    with pytest.raises(IndexCorruptError) as caught:
        load_bm25(tmp_path, manifest)
    assert str(tmp_path) not in str(caught.value)
    vectors = np.zeros((sum(len(a.sentences) for a in abstracts), 2), np.float32)
    with caplog.at_level(logging.WARNING, logger="rag.retrieve"):
        snapshot = IndexSnapshot(manifest, vectors, tmp_path)
    assert not snapshot.bm25_loaded
    assert "building BM25 in memory" in caplog.text
    assert_same(snapshot.bm25, BM25Index([c.text for c in chunks]))


def test_file_of_another_corpus_size_is_not_used(tmp_path, corpus):
    abstracts, chunks = corpus
    name = save_bm25(tmp_path, 1, *build_bm25(abstracts, chunks))
    with pytest.raises(IndexCorruptError, match="does not fit"):
        load_bm25(tmp_path, manifest_of(abstracts, chunks[:-1], 1, name))  # one chunk fewer
    with pytest.raises(IndexCorruptError, match="does not fit"):
        load_bm25(tmp_path, manifest_of(abstracts[:-1], chunks, 1, name))  # fewer sentences


def test_manifest_without_the_field_still_loads_and_builds(tmp_path, corpus):
    abstracts, chunks = corpus
    manifest = manifest_of(abstracts, chunks, 1, bm25_name(1))
    save_manifest(tmp_path, manifest)
    assert load_manifest(tmp_path).bm25 == "bm25-1.npz"
    payload = json.loads((tmp_path / MANIFEST_NAME).read_text())
    del payload["bm25"]  # as written before BM25 was saved
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(payload))
    old = load_manifest(tmp_path)
    assert old.bm25 == ""
    assert load_bm25(tmp_path, old) is None
    snapshot = IndexSnapshot(old, np.zeros((sum(len(a.sentences) for a in abstracts), 2), np.float32), tmp_path)
    assert not snapshot.bm25_loaded and snapshot.bm25.n_docs == len(chunks)


def test_stale_generations_are_removed(tmp_path, corpus):
    for name in ("bm25-1.npz", "bm25-2.npz", "sentences-1.npy", "sentences-2.npy", "manifest.json", "other.npz"):
        (tmp_path / name).write_bytes(b"x")
    abstracts, chunks = corpus
    manifest = Manifest("c", "m", tuple(abstracts), tuple(chunks), 2, 0.0, "sentences-2.npy", "bm25-2.npz")
    remove_stale_files(tmp_path, manifest)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "bm25-2.npz", "manifest.json", "other.npz", "sentences-2.npy",
    ]  # fmt: skip


# --- the real ingest and pipeline (MiniLM, embedded Chroma) ---


@pytest.fixture()
def index_copy(tmp_path, seeded_index, make_settings, embedder):
    """A private copy of the seeded index (its embedded store comes along), and a factory of fresh pipelines on it."""
    source, _ = seeded_index
    shutil.copytree(source.settings.data_dir, tmp_path / "data")
    settings = make_settings(tmp_path / "data", backend="extractive")
    return lambda: Pipeline(settings, embedder=embedder)


@pytest.mark.slow
def test_ingest_saves_bm25_and_a_fresh_pipeline_loads_it(index_copy, monkeypatch):
    pipeline = index_copy()
    index_dir = pipeline.settings.index_dir
    manifest = load_manifest(index_dir)
    assert manifest.bm25 == f"bm25-{manifest.generation}.npz"
    assert (index_dir / manifest.bm25).is_file()

    built = {}
    original = BM25Index._build

    def counting(self, *args, **kwargs):
        built["n"] = built.get("n", 0) + 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(BM25Index, "_build", counting)
    assert pipeline.snapshot.bm25_loaded and not built
    hits = pipeline.search(ASSAY_Q, k=1)
    assert hits[0].abstract.id == ASSAY_ID
    assert_same(pipeline.snapshot.bm25, BM25Index([c.text for c in manifest.chunks]))

    # A second generation: its own file, and the previous generation's files are gone.
    pipeline.ingest([SEEDS])
    after = load_manifest(index_dir)
    assert after.generation == manifest.generation + 1
    assert sorted(p.name for p in index_dir.glob("bm25-*")) == [after.bm25]
    assert sorted(p.name for p in index_dir.glob("sentences-*")) == [after.sentence_vectors]
    built.clear()
    fresh = index_copy()
    assert fresh.snapshot.bm25_loaded and "n" not in built
    assert fresh.search(ASSAY_Q, k=1)[0].abstract.id == ASSAY_ID


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncated", "missing"])
def test_search_works_without_a_usable_bm25_file(index_copy, damage, caplog):
    index_dir = index_copy().settings.index_dir
    DAMAGE[damage](index_dir / load_manifest(index_dir).bm25)
    pipeline = index_copy()
    with caplog.at_level(logging.WARNING, logger="rag.retrieve"):
        hits = pipeline.search(ASSAY_Q, k=1)
    assert not pipeline.snapshot.bm25_loaded
    assert "building BM25 in memory" in caplog.text
    assert hits[0].abstract.id == ASSAY_ID
    assert pipeline.search(ASSAY_Q, k=1, mode="bm25")[0].abstract.id == ASSAY_ID
