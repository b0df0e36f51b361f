"""The manifest file: what it stores, what loading it trusts, and what it refuses (small hand-made abstracts)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rag.chunking import Chunk
from rag.corpus import Abstract, Location
from rag.errors import IndexCorruptError
from rag.manifest import (
    FORMAT,
    MANIFEST_NAME,
    Manifest,
    load_manifest,
    load_sentence_vectors,
    save_manifest,
    save_manifest_v1,
    save_sentence_vectors,
)
from rag.text import Span, sentence_spans

TEXTS = ("We build a toy model. It learns fast. It fails on long inputs.", "Second paper here. It has two sentences.")


def abstract(i: int, text: str, spans=None) -> Abstract:
    spans = tuple(sentence_spans(text)) if spans is None else spans
    return Abstract(f"a{i}", f"Paper {i}", text, (Location("x.txt", i + 1),), f"h{i}", spans)


def manifest_of(*abstracts: Abstract) -> Manifest:
    chunks = tuple(Chunk(f"{a.id}#0", a.id, 0, 0, len(a.text), a.text) for a in abstracts)
    return Manifest("c", "m", abstracts, chunks, 1, 0.0, "sentences-1.npy")


def test_round_trip_keeps_abstracts_chunks_and_sentence_spans(tmp_path):
    saved = manifest_of(*(abstract(i, t) for i, t in enumerate(TEXTS)))
    save_manifest(tmp_path, saved)
    loaded = load_manifest(tmp_path)
    assert loaded.abstracts == saved.abstracts and loaded.chunks == saved.chunks
    assert [a.sentences for a in loaded.abstracts] == [a.sentences for a in saved.abstracts]
    assert loaded.sentence_count() == 5


def test_sentence_spans_are_read_from_the_file_not_split_again(tmp_path):
    # Spans that no splitter would produce (the whole text as one sentence): loading must keep them, because the
    # sentence vectors were computed for the spans the ingest stored.
    whole = abstract(0, TEXTS[0], (Span(0, len(TEXTS[0])),))
    save_manifest(tmp_path, manifest_of(whole))
    assert load_manifest(tmp_path).abstracts[0].sentences == (Span(0, len(TEXTS[0])),)


def test_a_manifest_written_before_spans_were_stored_is_split_on_load(tmp_path):
    save_manifest_v1(tmp_path, manifest_of(abstract(0, TEXTS[0])))
    path = tmp_path / MANIFEST_NAME
    payload = json.loads(path.read_text())
    del payload["abstracts"][0]["sentences"]
    path.write_text(json.dumps(payload))
    assert load_manifest(tmp_path).abstracts[0].sentences == tuple(sentence_spans(TEXTS[0]))


@pytest.mark.parametrize(
    "bounds",
    [[0, 5, 6], [5, 0], [0, 5, 3, 9], [0, 500], [-1, 4], [0, "5"], [0, None], [3, 3]],
    ids=["odd", "reversed", "overlapping", "past-the-text", "negative", "string", "null", "empty"],
)
def test_damaged_sentence_spans_of_an_old_manifest_are_refused_as_a_corrupt_index(tmp_path, bounds):
    save_manifest_v1(tmp_path, manifest_of(abstract(0, TEXTS[0])))
    path = tmp_path / MANIFEST_NAME
    payload = json.loads(path.read_text())
    payload["abstracts"][0]["sentences"] = bounds
    path.write_text(json.dumps(payload))
    with pytest.raises(IndexCorruptError, match="manifest"):
        load_manifest(tmp_path)


@pytest.mark.parametrize(
    "spans",
    [[(5, 0)], [(0, 5), (3, 9)], [(0, 500)], [(-1, 4)], [(3, 3)]],
    ids=["reversed", "overlapping", "past-the-text", "negative", "empty"],
)
def test_damaged_sentence_spans_in_the_columns_are_refused_as_a_corrupt_index(tmp_path, spans):
    save_manifest(tmp_path, manifest_of(abstract(0, TEXTS[0], tuple(Span(s, e) for s, e in spans))))
    with pytest.raises(IndexCorruptError, match="manifest"):
        load_manifest(tmp_path)


def test_an_old_format_manifest_loads_the_same_abstracts_and_chunks(tmp_path):
    saved = manifest_of(*(abstract(i, t) for i, t in enumerate(TEXTS)))
    save_manifest_v1(tmp_path / "old", saved)
    save_manifest(tmp_path / "new", saved)
    old, new = load_manifest(tmp_path / "old"), load_manifest(tmp_path / "new")
    assert tuple(old.abstracts) == tuple(new.abstracts) and tuple(old.chunks) == tuple(new.chunks)
    assert old.columns_file == "" and new.columns_file == "columns-1.bin"


def test_the_header_is_small_and_the_columns_file_is_memory_mapped(tmp_path):
    saved = manifest_of(*(abstract(i, t) for i, t in enumerate(TEXTS)))
    save_manifest(tmp_path, saved)
    assert TEXTS[0] not in (tmp_path / MANIFEST_NAME).read_text()  # texts live in the columns file
    loaded = load_manifest(tmp_path)
    assert not loaded.columns.arrays["text_blob"].flags.writeable  # a view of the mapped file, not a copy
    assert loaded.columns.all_text() == "\n".join(TEXTS)
    assert loaded.abstracts[1] == saved.abstracts[1] and loaded.chunks[-1] == saved.chunks[-1]


def test_non_ascii_texts_keep_their_character_offsets(tmp_path):
    text = "Le modèle «Ünï» apprend vite. 模型很快。 It ends here."
    saved = manifest_of(abstract(0, text))
    save_manifest(tmp_path, saved)
    loaded = load_manifest(tmp_path).abstracts[0]
    assert loaded.text == text and loaded.sentence_texts() == saved.abstracts[0].sentence_texts()


@pytest.mark.parametrize("damage", ["truncated", "missing", "layout"])
def test_a_damaged_columns_file_is_a_corrupt_index(tmp_path, damage):
    save_manifest(tmp_path, manifest_of(*(abstract(i, t) for i, t in enumerate(TEXTS))))
    columns = tmp_path / "columns-1.bin"
    if damage == "truncated":
        columns.write_bytes(columns.read_bytes()[:100])
    elif damage == "missing":
        columns.unlink()
    else:
        payload = json.loads((tmp_path / MANIFEST_NAME).read_text())
        payload["columns"]["arrays"]["sentence_start"][2] += 1
        (tmp_path / MANIFEST_NAME).write_text(json.dumps(payload))
    with pytest.raises(IndexCorruptError, match="manifest"):
        load_manifest(tmp_path)


def test_sentence_vectors_are_memory_mapped_not_read_into_memory(tmp_path):
    saved = manifest_of(*(abstract(i, t) for i, t in enumerate(TEXTS)))
    name = save_sentence_vectors(tmp_path, 1, np.eye(5, 4, dtype=np.float32))
    vectors = load_sentence_vectors(tmp_path, Manifest(**{**_fields(saved), "sentence_vectors": name}))
    assert isinstance(vectors, np.memmap) and not vectors.flags.writeable
    assert np.array_equal(vectors, np.eye(5, 4, dtype=np.float32))


def test_sentence_vectors_of_another_dtype_are_refused(tmp_path):
    saved = manifest_of(*(abstract(i, t) for i, t in enumerate(TEXTS)))
    np.save(tmp_path / "sentences-1.npy", np.eye(5, 4, dtype=np.float64))
    with pytest.raises(IndexCorruptError, match="do not match"):
        load_sentence_vectors(tmp_path, saved)


def _fields(manifest: Manifest) -> dict:
    return {name: getattr(manifest, name) for name in Manifest.__dataclass_fields__}


def test_the_lowered_corpus_is_made_in_blocks_with_the_same_result():
    from rag.manifest import ManifestColumns

    texts = ["Ab É 𝒪 ΟΔΟΣ x " * 90_000, "Second ΣΑ.", "third"]  # a text over a block's megabyte, non-ASCII
    columns = ManifestColumns.of([abstract(i, t, ()) for i, t in enumerate(texts)], [])
    assert columns.all_text(lower=True) == "\n".join(texts).lower()
    assert columns.all_text() == "\n".join(texts)


def _as_format_2(index_dir) -> None:
    """Rewrite a saved header as format 2 wrote it: no derived columns (lowered text, roles) in its layout."""
    path = index_dir / MANIFEST_NAME
    payload = json.loads(path.read_text())
    payload["format"] = 2
    for key in ("lower_blob", "sentence_role"):
        del payload["columns"]["arrays"][key]
    del payload["columns"]["roles"]
    path.write_text(json.dumps(payload))


def test_the_lowered_text_and_roles_are_stored_columns(tmp_path):
    from rag.roles import ROLES, abstract_roles

    saved = manifest_of(*(abstract(i, t) for i, t in enumerate(TEXTS)))
    save_manifest(tmp_path, saved)
    columns = load_manifest(tmp_path).columns
    assert not columns.arrays["lower_blob"].flags.writeable and not columns.sentence_roles.flags.writeable  # mapped
    assert columns.lowered().decode() == "\n".join(TEXTS).lower()
    assert [ROLES[c] for c in columns.sentence_roles] == [r for a in saved.abstracts for r in abstract_roles(a.sentence_texts())]


def test_a_format_2_index_is_read_with_the_derived_columns_made_in_memory(tmp_path):
    saved = manifest_of(*(abstract(i, t) for i, t in enumerate(TEXTS)))
    save_manifest(tmp_path / "new", saved)
    save_manifest(tmp_path / "old", saved)
    _as_format_2(tmp_path / "old")
    old, new = load_manifest(tmp_path / "old"), load_manifest(tmp_path / "new")
    assert tuple(old.abstracts) == tuple(new.abstracts) and tuple(old.chunks) == tuple(new.chunks)
    assert old.columns.lowered().decode() == new.columns.lowered().decode()
    assert old.columns.roles_signature == "" and list(old.columns.sentence_roles) == list(new.columns.sentence_roles)


def test_roles_stored_by_other_roles_code_are_computed_again(tmp_path):
    saved = manifest_of(*(abstract(i, t) for i, t in enumerate(TEXTS)))
    save_manifest(tmp_path, saved)
    expected = list(load_manifest(tmp_path).columns.sentence_roles)
    path = tmp_path / MANIFEST_NAME
    payload = json.loads(path.read_text())
    payload["columns"]["roles"] = "roles 0000000000000000"  # written by other cues
    path.write_text(json.dumps(payload))
    (tmp_path / "columns-1.bin").write_bytes(_zero_roles(tmp_path, payload))
    columns = load_manifest(tmp_path).columns
    assert columns.arrays["sentence_role"].sum() == 0  # the stale column, as written
    assert list(columns.sentence_roles) == expected  # not used: computed from the texts


def _zero_roles(index_dir, payload) -> bytes:
    data = bytearray((index_dir / "columns-1.bin").read_bytes())
    _, offset, count = payload["columns"]["arrays"]["sentence_role"]
    data[offset : offset + count] = bytes(count)
    return bytes(data)


def test_the_current_format_is_written_and_an_unknown_one_refused(tmp_path):
    save_manifest(tmp_path, manifest_of(abstract(0, TEXTS[0])))
    payload = json.loads((tmp_path / MANIFEST_NAME).read_text())
    assert payload["format"] == FORMAT == 3
    payload["format"] = 4
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(payload))
    with pytest.raises(IndexCorruptError, match="unknown manifest format"):
        load_manifest(tmp_path)


@pytest.mark.parametrize("block", [1, 3, 7, 64, 1 << 20])
def test_searching_the_lowered_text_in_blocks_finds_what_the_whole_string_would(tmp_path, block, monkeypatch):
    import re

    from rag.manifest import LoweredText

    texts = ["Monte Carlo tree search. Ünï tree-based Search", "graph neural\nnetworks. x.y", "Δ-net. ab cd ef."]
    saved = manifest_of(*(abstract(i, t) for i, t in enumerate(texts)))
    save_manifest(tmp_path, saved)
    monkeypatch.setattr(LoweredText, "BLOCK", block)
    lowered = load_manifest(tmp_path).columns.lowered()
    whole = "\n".join(texts).lower()
    patterns = [r"\bm[a-z]{2,}[\s-]+c[a-z]{2,}[\s-]+t[a-z]{2,}\b", r"\bt[a-z]{2,}[\s-]+s[a-z]{2,}\b",
                r"\bn[a-z]{2,}[\s-]+n[a-z]{2,}\b", r"\bs[a-z]{2,}[\s-]+g[a-z]{2,}\b", r"\bnï\b", r"\bcd\b",
                r"\bc[a-z]\b", r"net\b", r"\bearch"]  # fmt: skip
    for pattern in patterns:
        assert lowered.search(re.compile(pattern)) == bool(re.search(pattern, whole)), pattern
    for phrase in ("carlo tree", "search\ngraph", "networks. x", "ünï", "Monte", "Δ-net", "ef.\n", "zz"):
        assert (phrase in lowered) == (phrase in whole), phrase


def test_sorted_unique_is_numpys_unique_of_integers():
    from rag.manifest import sorted_unique

    for values in ([], [7], [3, 1, 3, 2, 1], [5, 5, 5], [-2, 9, 0, -2, 9]):
        array = np.array(values, np.int64)
        assert np.array_equal(sorted_unique(array), np.unique(array))
        assert sorted_unique(array).dtype == array.dtype
