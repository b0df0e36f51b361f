"""The small interface every answer composer implements, and the generation statistics it reports."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from rag.answer import Source


@dataclass(slots=True)
class GenerationStats:
    """Filled in by a composer while it streams; read after the stream ends."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    first_token_s: float | None = None  # seconds from request to first text
    generate_s: float = 0.0
    model: str | None = None


class Composer(Protocol):
    """Writes answer text with [n] citation markers, where n is a 1-based index into ``sources``."""

    name: str  # "extractive" | "ollama"

    def stream(
        self, question: str, sources: Sequence[Source], stats: GenerationStats, history: Sequence[dict] = ()
    ) -> Iterator[str]:
        """Yield answer text pieces; raise a RagError subclass on failure (text yielded so far stays valid)."""
        ...
