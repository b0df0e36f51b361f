"""The encoder's two runners (numpy for questions, sentence-transformers for batches) on the real MiniLM."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from rag.embedding import NUMPY_MAX_TEXTS, LocalSentenceEmbedding, as_llama_index_embedding, resolve_model_path
from rag.errors import EmbeddingModelError
from rag.minilm import load_numpy_encoder
from tests.conftest import ROOT, SEEDS

pytestmark = pytest.mark.slow
STORE_MODES = ("embedded",)  # the import check needs an index, not a server


@pytest.fixture(scope="module")
def encoder():
    return LocalSentenceEmbedding("all-MiniLM-L6-v2", threads=1)


@pytest.fixture(scope="module")
def seed_sentences():
    from rag.corpus import find_seed_files, load_corpus

    return [s for a in load_corpus(find_seed_files([SEEDS])) for s in a.sentence_texts()]


def test_numpy_and_sentence_transformers_agree(encoder, seed_sentences):
    longest = max(seed_sentences, key=len)
    over_long = " ".join(seed_sentences[:20])  # far past 256 word pieces: both must truncate the same way
    texts = seed_sentences[::12] + [longest, over_long, "", "Ünïcödé façade — naïve café: 3.5×10⁻⁴ µm", "a"]
    assert encoder.count_tokens(over_long) > encoder.max_tokens
    fast = np.vstack([encoder.encode(texts[i : i + NUMPY_MAX_TEXTS]) for i in range(0, len(texts), NUMPY_MAX_TEXTS)])
    batch = encoder.encode_batch(texts)
    assert fast.shape == batch.shape == (len(texts), 384)
    assert np.abs(fast - batch).max() < 1e-5
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)


def test_token_counts_match_the_sentence_transformers_tokenizer(encoder, seed_sentences):
    tokenizer = encoder.batch_model.tokenizer
    for text in seed_sentences[::5] + ["", "Ünïcödé façade"]:
        expected = len(tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"])
        assert encoder.count_tokens(text) == expected, text


def test_short_inputs_never_load_torch():
    fresh = LocalSentenceEmbedding("all-MiniLM-L6-v2")
    fresh.encode(["one question"] * NUMPY_MAX_TEXTS)
    fresh.count_tokens("a question")
    assert fresh._batch_model is None


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


def test_llama_index_adapter_gives_the_same_vectors(encoder):
    from llama_index.core.base.embeddings.base import BaseEmbedding

    adapter = as_llama_index_embedding(encoder)
    assert isinstance(adapter, BaseEmbedding)
    assert np.allclose(adapter.get_query_embedding("a question"), encoder.encode(["a question"])[0])
    assert np.allclose(adapter.get_text_embedding_batch(["a", "b"]), encoder.encode(["a", "b"]))


@pytest.fixture()
def model_copy(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(resolve_model_path("all-MiniLM-L6-v2"), folder)
    return folder


def test_an_unsupported_pooling_falls_back_to_sentence_transformers(model_copy):
    pooling = model_copy / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**config, "pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}))
    assert load_numpy_encoder(model_copy) is None
    encoder = LocalSentenceEmbedding(str(model_copy))
    assert encoder._batch_model is not None  # used for everything
    vector = encoder.encode(["a question"])
    assert vector.shape == (1, 384) and np.isclose(np.linalg.norm(vector), 1.0, atol=1e-5)


def test_damaged_weights_are_a_clear_error(model_copy):
    (model_copy / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(EmbeddingModelError, match="Could not load the embedding model"):
        LocalSentenceEmbedding(str(model_copy))


def test_unknown_model_name_says_what_to_use(tmp_path):
    with pytest.raises(EmbeddingModelError) as info:
        LocalSentenceEmbedding(str(tmp_path / "no-such-model"))
    assert "all-MiniLM-L6-v2" in info.value.hint
