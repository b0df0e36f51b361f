"""The ONNX Runtime encoder on the real MiniLM: same vectors as sentence-transformers, cached graph, no torch."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from rag import onnx_encoder
from rag.embedding import QUERY_MAX_TEXTS, LocalSentenceEmbedding, resolve_model_path
from rag.errors import EmbeddingModelError
from rag.onnx_encoder import ModelShape, model_file_name
from tests.conftest import ROOT, SEEDS

pytestmark = pytest.mark.slow
STORE_MODES = ("embedded",)  # the import check needs an index, not a server


@pytest.fixture(scope="module")
def encoder(tmp_path_factory):
    return LocalSentenceEmbedding("all-MiniLM-L6-v2", threads=1, cache_dir=tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="module")
def sentence_transformer():
    """The reference implementation (imports torch: seconds)."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(resolve_model_path("all-MiniLM-L6-v2")), device="cpu", local_files_only=True)


@pytest.fixture(scope="module")
def seed_sentences():
    from rag.corpus import find_seed_files, load_corpus

    return [s for a in load_corpus(find_seed_files([SEEDS])) for s in a.sentence_texts()]


def test_onnx_vectors_match_sentence_transformers_on_every_seed_sentence(encoder, sentence_transformer,
                                                                         seed_sentences):  # fmt: skip
    over_long = " ".join(seed_sentences[:20])  # far past 256 word pieces: both must truncate the same way
    texts = [*seed_sentences, over_long, "", "Ünïcödé façade — naïve café: 3.5×10⁻⁴ µm", "a"]
    assert encoder.count_tokens(over_long) > encoder.max_tokens
    ours = encoder.encode(texts)  # a bulk call: the float32 graph on all cores, batches sorted by length
    reference = sentence_transformer.encode(texts, batch_size=16, normalize_embeddings=True, convert_to_numpy=True)
    assert ours.shape == reference.shape == (len(texts), 384)
    cosine = (ours * reference).sum(axis=1)
    # 0.9999, not only 0.99: vectors this close are the same function, so indexes built by either stay valid
    # (the collection name, which encodes how vectors are made, does not change).
    assert cosine.min() >= 0.9999, texts[int(cosine.argmin())]
    assert np.abs(ours - reference).max() < 1e-4
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_int8_question_vectors_stay_within_cosine_0_99_of_sentence_transformers(encoder, sentence_transformer,
                                                                                  seed_sentences):  # fmt: skip
    assert encoder.query_encoder.int8 and not encoder.onnx_encoder.int8
    reference = sentence_transformer.encode(seed_sentences, batch_size=16, normalize_embeddings=True,
                                            convert_to_numpy=True)  # fmt: skip
    cosine = (encoder.query_encoder.encode(seed_sentences) * reference).sum(axis=1)
    assert cosine.min() >= 0.99, seed_sentences[int(cosine.argmin())]
    assert cosine.mean() >= 0.995
    odd = ["", "a", "Ünïcödé façade — naïve café: 3.5×10⁻⁴ µm"]  # far from any abstract: a looser bound
    odd_reference = sentence_transformer.encode(odd, normalize_embeddings=True, convert_to_numpy=True)
    assert (encoder.encode(odd) * odd_reference).sum(axis=1).min() >= 0.97


def test_questions_load_only_the_int8_graph_and_bulk_work_the_float32_one(tmp_path):
    folder = resolve_model_path("all-MiniLM-L6-v2")
    embedder = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path)
    embedder.encode(["a question", "and a clause of it"])
    assert [f.name for f in tmp_path.glob("*.onnx")] == [model_file_name(folder, int8=True)]
    embedder.prepare(QUERY_MAX_TEXTS + 1)
    assert sorted(f.name for f in tmp_path.glob("*.onnx")) == sorted(
        [model_file_name(folder, int8=True), model_file_name(folder, int8=False)]
    )
    plain = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path, query_int8=False)
    assert plain.query_encoder is plain.onnx_encoder and not plain.query_encoder.int8


def test_a_text_alone_gets_the_vector_it_gets_in_a_batch(encoder, seed_sentences):
    texts = seed_sentences[:40]
    batch = encoder.encode(texts)  # padded float32 batches on all cores
    alone = np.vstack([encoder.onnx_encoder.encode([t]) for t in texts[:5]])  # no padding
    assert len(texts) > QUERY_MAX_TEXTS
    assert np.abs(batch[:5] - alone).max() < 1e-5
    # int8: activations are quantised per call, so each question's text runs alone (never beside padding)
    together = encoder.encode(texts[:5])
    assert np.array_equal(together, np.vstack([encoder.encode([t]) for t in texts[:5]]))


def test_token_counts_match_the_sentence_transformers_tokenizer(encoder, sentence_transformer, seed_sentences):
    tokenizer = sentence_transformer.tokenizer
    for text in seed_sentences[::5] + ["", "Ünïcödé façade"]:
        expected = len(tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"])
        assert encoder.count_tokens(text) == expected, text


def test_questions_use_one_batch_at_a_time_and_bulk_work_every_ingest_thread(tmp_path):
    fresh = LocalSentenceEmbedding("all-MiniLM-L6-v2", threads=1, ingest_threads=3, cache_dir=tmp_path)
    assert fresh.workers_for(1) == fresh.workers_for(QUERY_MAX_TEXTS) == 1
    assert fresh.workers_for(QUERY_MAX_TEXTS + 1) == 3
    wide = LocalSentenceEmbedding("all-MiniLM-L6-v2", threads=2, ingest_threads=4, cache_dir=tmp_path)
    assert wide.workers_for(1000) == 2  # two batches of two intra-op threads each: no oversubscription


def test_data_parallel_batches_give_the_same_vectors(encoder, seed_sentences):
    texts = seed_sentences[:70]
    one_at_a_time = encoder.onnx_encoder.encode(texts, batch_size=8, workers=1)
    three_at_once = encoder.onnx_encoder.encode(texts, batch_size=8, workers=3)
    assert np.array_equal(one_at_a_time, three_at_once)


@pytest.mark.parametrize("workers", [1, 3])
def test_progress_hears_of_every_batch_in_the_calling_thread(encoder, seed_sentences, workers):
    import threading

    texts, heard = seed_sentences[:70], []
    vectors = encoder.onnx_encoder.encode(
        texts, batch_size=8, workers=workers, progress=lambda n: heard.append((n, threading.current_thread().name))
    )
    assert sorted(n for n, _ in heard) == [6] + [8] * 8 and {name for _, name in heard} == {"MainThread"}
    assert np.array_equal(vectors, encoder.onnx_encoder.encode(texts, batch_size=8, workers=1))


def test_the_graph_is_written_once_per_model_and_exporter_version(tmp_path, monkeypatch):
    LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path).encode(["a question"])
    files = list(tmp_path.glob("*.onnx"))
    assert [f.name for f in files] == [model_file_name(resolve_model_path("all-MiniLM-L6-v2"))]
    written = files[0].stat().st_mtime_ns
    LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path).encode(["a question"])
    assert files[0].stat().st_mtime_ns == written  # reused, not written again
    monkeypatch.setattr(onnx_encoder, "EXPORTER_VERSION", onnx_encoder.EXPORTER_VERSION + 1)
    LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path).encode(["a question"])
    assert len(list(tmp_path.glob("*.onnx"))) == 2  # another exporter writes another file


def test_a_damaged_cached_graph_is_written_again(tmp_path):
    first = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path)
    expected = first.encode(["a question"])
    (cached,) = tmp_path.glob("*.onnx")
    cached.write_bytes(cached.read_bytes()[:1000])  # a truncated file
    again = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path)
    assert np.allclose(again.encode(["a question"]), expected, atol=1e-6)
    assert cached.stat().st_size > 100_000  # the graph; its weights are in the file beside it


def test_a_damaged_weights_file_is_written_again(tmp_path):
    expected = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path).encode(["a question"])
    (weights,) = tmp_path.glob("*.onnx.weights")
    weights.write_bytes(weights.read_bytes()[:1000])
    again = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path)
    assert np.allclose(again.encode(["a question"]), expected, atol=1e-6)
    assert weights.stat().st_size > 10_000_000


def test_a_damaged_word_table_is_written_again(tmp_path):
    expected = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path).encode(["a question"])
    (words,) = tmp_path.glob("*.onnx.words")
    words.write_bytes(words.read_bytes()[:1001])
    again = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path).encode(["a question"])
    assert np.array_equal(again, expected)
    assert words.stat().st_size > 10_000_000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_the_word_table_is_read_not_mapped_into_the_process(tmp_path):
    """ONNX Runtime maps a graph's weights file; rows gathered from a mapped table would pile up in the process."""
    encoder = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path)
    encoder.encode(["which papers study protein folding?", "zebrafish lidar quantum"])
    with open("/proc/self/maps") as maps:
        mapped = maps.read()
    assert ".onnx.weights" in mapped  # the graph's weights, as ONNX Runtime holds them
    assert ".onnx.words" not in mapped


def test_the_cached_graph_keeps_its_weights_in_a_file_beside_it(tmp_path):
    """ONNX external data: the same vectors as the graph held in memory as one piece (no cache folder)."""
    texts = ["a question", "Graph neural networks for molecules."]
    cached = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path).encode(texts)
    (graph,) = tmp_path.glob("*.onnx")
    weights = graph.with_name(onnx_encoder.weights_file_name(graph.name))
    assert graph.stat().st_size < 1_000_000 < 10_000_000 < weights.stat().st_size
    in_memory = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=None).encode(texts)
    assert np.array_equal(cached, in_memory)


def test_an_unwritable_cache_folder_still_encodes(tmp_path):
    blocker = tmp_path / "models"
    blocker.write_text("a file where the folder should be")
    encoder = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=blocker)
    vector = encoder.encode(["a question"])
    assert vector.shape == (1, 384) and np.isclose(np.linalg.norm(vector), 1.0, atol=1e-5)


def test_encoding_imports_no_torch(tmp_path):
    """Questions and ingest-sized batches, from a fresh cache folder (so the graph is written too): no torch."""
    script = (
        "import sys\nfrom pathlib import Path\nfrom rag.embedding import LocalSentenceEmbedding\n"
        f"e = LocalSentenceEmbedding('all-MiniLM-L6-v2', cache_dir=Path({str(tmp_path)!r}))\n"
        "e.encode(['a question']); e.encode(['a sentence %d' % i for i in range(100)])\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "HEAVY []" in result.stdout


def test_answering_from_an_index_imports_no_torch_or_llama_index(seeded_index):
    """What `rag ui` loads at start and per question: no torch, sentence-transformers or LlamaIndex (seconds)."""
    pipeline, _ = seeded_index
    script = (
        "import sys\n"
        "from rag.pipeline import Pipeline\nfrom rag.settings import Settings\n"
        "p = Pipeline(Settings(backend='extractive'))\np.warm_up()\n"
        "assert p.ask('How many CRISPR screens does AssayBench use?').cited_ids\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers', 'llama_index.core') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    env = {**os.environ, "RAG_DATA_DIR": str(pipeline.settings.data_dir), "RAG_CHROMA_HOST": ""}
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert "HEAVY []" in result.stdout


def test_flops_count_the_six_weight_matmuls_and_attention():
    minilm = ModelShape(layers=6, hidden=384, heads=12, intermediate=1536, max_tokens=256, eps=1e-12)
    per_token_weights = 2 * 6 * (4 * 384 * 384 + 2 * 384 * 1536)  # 21.2 MFLOP
    assert minilm.flops_per_sequence(1) == per_token_weights + 2 * 6 * 2 * 384
    # attention grows with the square of the length, the weights linearly
    assert minilm.flops_per_sequence(100) == 100 * per_token_weights + 2 * 6 * 2 * 100 * 100 * 384


@pytest.fixture()
def model_copy(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(resolve_model_path("all-MiniLM-L6-v2"), folder)
    return folder


def test_counting_tokens_and_ingest_build_no_question_graph(tmp_path):
    embedder = LocalSentenceEmbedding("all-MiniLM-L6-v2", cache_dir=tmp_path)
    assert embedder.count_tokens("A short sentence.") > 0 and embedder.dimension == 384
    assert list(tmp_path.glob("*.onnx")) == []  # no graph written or loaded yet
    embedder.encode(["a text"] * (QUERY_MAX_TEXTS + 1))  # bulk work: the float32 graph only
    assert [f.name for f in tmp_path.glob("*.onnx")] == [model_file_name(resolve_model_path("all-MiniLM-L6-v2"), int8=False)]


def test_an_unsupported_pooling_is_a_clear_error(model_copy):
    pooling = model_copy / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**config, "pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}))
    with pytest.raises(EmbeddingModelError, match="not one this encoder can run") as info:
        LocalSentenceEmbedding(str(model_copy))
    assert "pooling" in info.value.message and "mean pooling" in info.value.hint


def test_damaged_weights_are_a_clear_error(model_copy):
    (model_copy / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(EmbeddingModelError, match="Could not load the embedding model"):
        LocalSentenceEmbedding(str(model_copy)).encode(["a question"])  # each graph loads on first use


def test_unknown_model_name_says_what_to_use(tmp_path):
    with pytest.raises(EmbeddingModelError) as info:
        LocalSentenceEmbedding(str(tmp_path / "no-such-model"))
    assert "all-MiniLM-L6-v2" in info.value.hint
