"""Shared fixtures. Heavy ones (the real MiniLM encoder, a real Chroma index of the seeds) are session-scoped."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def embedder():
    from rag.embedding import LocalSentenceEmbedding

    return LocalSentenceEmbedding("all-MiniLM-L6-v2")


@pytest.fixture(scope="session")
def seeded_index(tmp_path_factory, embedder):
    """A real on-disk Chroma index of ./seeds, built once; tests must not modify it."""
    from rag.pipeline import Pipeline
    from rag.settings import Settings

    data_dir = tmp_path_factory.mktemp("seeded-index")
    pipeline = Pipeline(Settings(data_dir=data_dir, backend="extractive"), embedder=embedder)
    report = pipeline.ingest([SEEDS])
    return pipeline, report


@pytest.fixture()
def pipeline(seeded_index):
    return seeded_index[0]


@pytest.fixture()
def seed_copy(tmp_path) -> Path:
    """A writable copy of the seed folder."""
    target = tmp_path / "seeds"
    shutil.copytree(SEEDS, target)
    return target
