"""Answer composers: extractive (no model) and Ollama. The factory imports the Ollama stack only when used."""

from __future__ import annotations

from rag.compose.base import Composer, GenerationStats
from rag.errors import RagError
from rag.settings import Settings

__all__ = ["Composer", "GenerationStats", "make_ollama_composer"]


def make_ollama_composer(settings: Settings, model: str | None = None) -> Composer:
    try:
        from rag.compose.ollama import OllamaComposer
    except ImportError as exc:  # pragma: no cover - the Ollama integration is a core dependency
        raise RagError(
            f"The Ollama integration is not installed ({exc.name})",
            hint="pip install llama-index-llms-ollama ollama",
        ) from exc
    return OllamaComposer(settings, model)
