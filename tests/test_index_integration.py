"""Real MiniLM, real Chroma (embedded on disk in a temp dir, and a `chroma run` server): chunking, idempotent
ingest, recovery, retrieval. Store-dependent tests run once per store mode (``store_mode`` in conftest)."""

import json
import shutil

import pytest

from rag.cli import main as rag_main
from rag.errors import CorpusError, IndexNotBuiltError
from rag.manifest import load_manifest
from rag.pipeline import Pipeline
from rag.settings import Settings
from tests.conftest import SEEDS

pytestmark = pytest.mark.slow

ASSAY_Q = "How many CRISPR screens does AssayBench use?"


def test_every_sentence_is_embedded_in_full(seeded_index, embedder):
    pipeline, _ = seeded_index
    snapshot = pipeline.snapshot
    by_abstract = {}
    for chunk in snapshot.chunks:
        # What the encoder sees: the chunk's word pieces plus [CLS] and [SEP] must fit its window.
        assert embedder.count_tokens(chunk.text) + 2 <= embedder.max_tokens, chunk.id
        by_abstract.setdefault(chunk.abstract_id, []).append(chunk)
    for abstract in snapshot.abstracts.values():
        for span in abstract.sentences:
            assert any(c.start <= span.start and span.end <= c.end for c in by_abstract[abstract.id]), (
                abstract.id,
                span.of(abstract.text)[:60],
            )


def test_some_abstracts_need_more_than_one_chunk(seeded_index, embedder):
    pipeline, _ = seeded_index
    assert any(embedder.count_tokens(a.text) > embedder.max_tokens for a in pipeline.abstracts())
    assert len(pipeline.snapshot.chunks) > len(pipeline.abstracts())


def test_first_ingest_reports_all_added(seeded_index):
    _, report = seeded_index
    assert (report.abstracts, report.added, report.unchanged, report.removed) == (73, 73, 0, 0)


def test_reingest_adds_nothing(tmp_path, embedder, seeded_index, make_settings):
    source, _ = seeded_index
    shutil.copytree(source.settings.data_dir, tmp_path / "data")
    # The copy brings the embedded store along; a server's collection stays where it is, so share its database.
    settings = make_settings(tmp_path / "data", chroma_database=source.settings.chroma_database)
    pipeline = Pipeline(settings, embedder=embedder)
    report = pipeline.ingest([SEEDS])
    assert (report.added, report.updated, report.removed, report.unchanged) == (0, 0, 0, 73)
    assert report.embedded_chunks == 0


def test_changed_and_removed_abstracts(tmp_path, embedder, seed_copy, make_settings):
    pipeline = Pipeline(make_settings(tmp_path / "data"), embedder=embedder)
    small = seed_copy / "000_624d62ebc0277d3c.txt"
    for other in seed_copy.glob("00[123]*.txt"):
        other.unlink()
    pipeline.ingest([seed_copy])
    text = small.read_text(encoding="utf-8")
    paragraphs = text.split("\n\n")
    paragraphs[1] = paragraphs[1].replace("Dropout is common", "Dropout is very common")
    del paragraphs[-1]  # remove the last abstract
    small.write_text("\n\n".join(paragraphs), encoding="utf-8")
    report = pipeline.ingest([seed_copy])
    assert (report.added, report.updated, report.removed, report.unchanged) == (0, 1, 1, 17)
    assert report.embedded_chunks >= 1
    ids_in_store = pipeline.store.ids()
    manifest_chunks = {c.id for c in load_manifest(pipeline.settings.index_dir).chunks}
    assert ids_in_store == manifest_chunks  # old vectors were deleted, nothing mixed


def test_changing_chunking_uses_a_new_collection(tmp_path):
    a = Settings(data_dir=tmp_path)
    b = Settings(data_dir=tmp_path, chunk_tokens=128)
    c = Settings(data_dir=tmp_path, embed_model="/models/other-encoder")
    assert len({a.collection_name, b.collection_name, c.collection_name}) == 3


def test_interrupted_ingest_keeps_previous_index(tmp_path, embedder, seed_copy, monkeypatch, make_settings):
    pipeline = Pipeline(make_settings(tmp_path / "data"), embedder=embedder)
    first = seed_copy / "000_624d62ebc0277d3c.txt"
    pipeline.ingest([first])
    before = load_manifest(pipeline.settings.index_dir)

    from rag import store as store_module

    def crash(self, nodes):
        raise KeyboardInterrupt  # as if the user pressed Ctrl-C mid-write

    monkeypatch.setattr(store_module.ChunkStore, "add", crash)
    with pytest.raises(KeyboardInterrupt):
        Pipeline(make_settings(tmp_path / "data"), embedder=embedder).ingest([seed_copy])
    monkeypatch.undo()

    after = load_manifest(pipeline.settings.index_dir)
    assert after.generation == before.generation
    fresh = Pipeline(make_settings(tmp_path / "data"), embedder=embedder)
    assert len(fresh.abstracts()) == 19
    assert fresh.search(ASSAY_Q, k=1)[0].abstract.label == "AssayBench"
    report = fresh.ingest([seed_copy])
    assert report.abstracts == 73 and report.added == 54


def test_bad_seed_file_leaves_index_untouched(tmp_path, embedder, seed_copy, make_settings):
    pipeline = Pipeline(make_settings(tmp_path / "data"), embedder=embedder)
    pipeline.ingest([seed_copy])
    (seed_copy / "zz_broken.txt").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CorpusError, match="zz_broken.txt"):
        pipeline.ingest([seed_copy])
    assert len(Pipeline(make_settings(tmp_path / "data"), embedder=embedder).abstracts()) == 73


def test_search_before_ingest_says_what_to_do(tmp_path, embedder, make_settings):
    with pytest.raises(IndexNotBuiltError) as info:
        Pipeline(make_settings(tmp_path / "empty"), embedder=embedder).search("anything")
    assert "rag ingest" in info.value.user_message()


@pytest.mark.parametrize("mode", ["hybrid", "dense", "bm25"])
def test_assaybench_first_in_every_mode(pipeline, mode):
    top = pipeline.search(ASSAY_Q, k=3, mode=mode)[0]
    assert top.abstract.label == "AssayBench"
    assert len(top.abstract.locations) == 2
    assert any("1,920" in c.text for c in top.chunks)


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("benchmark of aptamer ligand interactions", "AptaBench"),
        ("in-context learning foundation model for tabular data", "TabICL"),
        ("hierarchical flow matching for spatiotemporal event modeling", "ARCH"),
    ],
)
def test_known_questions(pipeline, question, label):
    assert pipeline.search(question, k=3)[0].abstract.label == label


def test_cli_search_json(pipeline, capsys):
    code = rag_main(["search", ASSAY_Q, "--json", "--k", "3", "--data-dir", str(pipeline.settings.data_dir)])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    first = payload["results"][0]
    assert set(first) >= {"rank", "id", "label", "locations", "score", "text", "matched_chunks"}
    assert first["label"] == "AssayBench" and len(first["locations"]) == 2
    assert len(payload["results"]) == 3


def test_cli_reports_errors_without_traceback(tmp_path, capsys):
    code = rag_main(["search", "anything", "--data-dir", str(tmp_path / "none")])
    err = capsys.readouterr().err
    assert code == 2 and "rag ingest" in err and "Traceback" not in err


def test_cli_empty_question(pipeline, capsys):
    code = rag_main(["search", "   ", "--data-dir", str(pipeline.settings.data_dir)])
    assert code == 2 and "empty" in capsys.readouterr().err


def test_store_missing_the_index_chunks_is_reported(tmp_path, embedder, make_settings, seed_copy):
    from rag.errors import IndexCorruptError

    settings = make_settings(tmp_path / "data")
    Pipeline(settings, embedder=embedder).ingest([seed_copy / "000_624d62ebc0277d3c.txt"])
    store = Pipeline(settings, embedder=embedder).store
    store.delete(sorted(store.ids()))  # as if the server had been wiped
    with pytest.raises(IndexCorruptError) as info:
        Pipeline(settings, embedder=embedder).search("anything")
    assert "rag ingest" in info.value.user_message()
    Pipeline(settings, embedder=embedder).ingest([seed_copy / "000_624d62ebc0277d3c.txt"])
    assert Pipeline(settings, embedder=embedder).search(ASSAY_Q, k=1)[0].abstract.label == "AssayBench"


def test_ingest_removes_indexes_an_older_schema_built(tmp_path, embedder, seed_copy):
    import chromadb

    settings = Settings(data_dir=tmp_path / "data")
    stem, _, version = settings.collection_name.rpartition("-v")
    older, unrelated = f"{stem}-v{int(version) - 1}", "abstracts-other-encoder-s200o1-v1"
    settings.chroma_dir.mkdir(parents=True)
    client = chromadb.PersistentClient(path=str(settings.chroma_dir))
    for name in (older, unrelated):
        client.create_collection(name).add(ids=["x"], embeddings=[[0.1, 0.2, 0.3]])
        (settings.index_dir.parent / name).mkdir(parents=True)
        (settings.index_dir.parent / name / "manifest.json").write_text("{}", encoding="utf-8")
    for other in seed_copy.glob("00[123]*.txt"):
        other.unlink()
    Pipeline(settings, embedder=embedder).ingest([seed_copy])
    names = {c.name for c in chromadb.PersistentClient(path=str(settings.chroma_dir)).list_collections()}
    assert older not in names and not (settings.index_dir.parent / older).exists()
    assert {unrelated, settings.collection_name} <= names  # another model's index is not this version's to drop
    assert (settings.index_dir.parent / unrelated).exists()
