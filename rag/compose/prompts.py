"""Prompts for the generative composer, and the text clean-up its replies need. Pure functions, no I/O.

Messages are plain ``{"role": ..., "content": ...}`` dicts (Ollama's chat format); the composer converts them
to LlamaIndex messages. Sources are numbered from 1 in the order given, so ``[n]`` in a reply is
``sources[n - 1]``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

from rag.answer import Source

ABSTAIN_TEXT = "The provided abstracts do not answer this question."

MAX_HISTORY_MESSAGES = 6  # the last three question/answer turns
MAX_HISTORY_CHARS = 1500  # per message; older answers are context, not sources
CHARS_PER_TOKEN = 3.5
MESSAGE_OVERHEAD_TOKENS = 4  # role markers and turn delimiters of a chat template

SYSTEM_PROMPT = f"""You are a research assistant that answers questions about paper abstracts.
Use ONLY the numbered sources in the user's message; do not use outside knowledge.

Rules:
- End EVERY sentence with the citation marker(s) of the source(s) that support it, like [1] or [1][3].
- Cite only numbers that appear in the source list; never invent a source number.
- Be concise: at most 5 sentences. If the question asks which papers or abstracts match, write one line per paper: its name, a short reason, and its marker.
- If the sources do not answer the question, reply exactly: {ABSTAIN_TEXT}
- Plain text only: no headings, no preamble, no list of references at the end."""

REMINDER = "Answer from the sources above only. End every sentence with its citation marker, like [1]."

CONDENSE_SYSTEM_PROMPT = """Rewrite the user's follow-up question as a standalone question that can be understood without the conversation.
Resolve pronouns and references ("it", "that paper", "the second one") using the conversation.
If the question already stands alone, repeat it unchanged.
Reply with the question only: no answer, no explanation, no quotes."""

_CITATION_RE = re.compile(r"\s*(?:\[\d+(?:\s*[,;–-]\s*\d+)*\])+")


# --------------------------------------------------------------------------------------------------------------
# Messages


def format_source(source: Source) -> str:
    """``[n] <label> (ID <id>)`` then the full abstract text (never shortened)."""
    a = source.abstract
    return f"[{source.number}] {a.label} (ID {a.id})\n{a.text.strip()}"


def format_sources(sources: Sequence[Source]) -> str:
    return "\n\n".join(format_source(s) for s in sources) if sources else "(no sources)"


def strip_citations(text: str) -> str:
    """Remove ``[n]`` / ``[1, 2]`` markers: old answers' numbers refer to an older source list."""
    return _CITATION_RE.sub("", text)


def recent_history(history: Iterable[Mapping], limit: int = MAX_HISTORY_MESSAGES) -> list[dict[str, str]]:
    """The last ``limit`` user/assistant messages with text, each cut to MAX_HISTORY_CHARS, citations removed.

    Accepts ``{"role", "content"}`` dicts (Gradio's messages format); other roles and non-text content are skipped.
    """
    kept: list[dict[str, str]] = []
    for m in history:
        role = m.get("role")
        content = m.get("content")
        if role not in ("user", "assistant") or not isinstance(content, str):
            continue
        text = content.strip()
        if role == "assistant":
            text = strip_citations(text).strip()
        if not text:
            continue
        if len(text) > MAX_HISTORY_CHARS:
            text = text[: MAX_HISTORY_CHARS - 1].rstrip() + "…"
        kept.append({"role": role, "content": text})
    kept = kept[-limit:] if limit > 0 else []
    while kept and kept[0]["role"] != "user":  # a window starting mid-turn confuses small models
        kept.pop(0)
    return kept


def build_messages(question: str, sources: Sequence[Source], history: Sequence[Mapping] = ()) -> list[dict[str, str]]:
    """System rules, the last few turns, then the numbered sources and the question in one user message."""
    user = f"Sources:\n\n{format_sources(sources)}\n\nQuestion: {question.strip()}\n\n{REMINDER}"
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        *recent_history(history),
        {"role": "user", "content": user},
    ]


def build_condense_messages(question: str, history: Sequence[Mapping]) -> list[dict[str, str]]:
    """Ask for the follow-up ``question`` rewritten to stand alone, given the conversation so far."""
    lines = [f"{'User' if m['role'] == 'user' else 'Assistant'}: {m['content']}" for m in recent_history(history)]
    conversation = "\n".join(lines) if lines else "(no earlier messages)"
    user = (
        f"Conversation:\n{conversation}\n\nFollow-up question: {question.strip()}\n\n"
        "Standalone question (the question only):"
    )
    return [{"role": "system", "content": CONDENSE_SYSTEM_PROMPT}, {"role": "user", "content": user}]


TRANSLATE_SYSTEM_PROMPT = """Translate the user's question into English for searching English paper abstracts.
Keep names of methods, datasets, models and all numbers exactly as written.
Reply with the English question only: no answer, no explanation, no quotes."""


def build_translate_messages(question: str) -> list[dict[str, str]]:
    """Ask for ``question`` (not in English) in English, names and numbers kept."""
    return [{"role": "system", "content": TRANSLATE_SYSTEM_PROMPT}, {"role": "user", "content": question.strip()}]


def estimate_prompt_tokens(messages: Iterable[Mapping]) -> int:
    """A rough token count (characters / 3.5 plus per-message overhead), used to size ``num_ctx``."""
    total = 3  # BOS and the open assistant turn
    for m in messages:
        total += math.ceil(len(str(m.get("content") or "")) / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS
    return total


# --------------------------------------------------------------------------------------------------------------
# Reasoning blocks

_OPEN_TAGS = ("<think>", "<thinking>")
_CLOSE_TAGS = ("</think>", "</thinking>")
_OPEN_RE = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_CLOSE_RE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)


def _partial_tag_len(text: str, tags: Sequence[str]) -> int:
    """Length of the longest end of ``text`` that is a proper beginning of one of ``tags`` (case-insensitive)."""
    tail = text[-max(len(t) for t in tags) :].lower()
    for k in range(min(len(tail), max(len(t) for t in tags) - 1), 0, -1):
        if any(len(t) > k and tail.endswith(t[:k]) for t in tags):
            return k
    return 0


class ReasoningFilter:
    """Removes ``<think>…</think>`` / ``<thinking>…</thinking>`` blocks from a stream of text pieces.

    ``feed`` returns what can be shown now: text is held back only while it may be the start of a tag (at most
    a few characters), so ordinary text passes straight through. An unterminated block hides everything after
    it; whitespace right after a block is dropped. Call ``flush`` at the end for held-back text.
    """

    def __init__(self) -> None:
        self._pending = ""
        self._inside = False
        self._skip_space = False

    @property
    def inside(self) -> bool:
        """True while inside a reasoning block (what arrives now is hidden)."""
        return self._inside

    def feed(self, piece: str) -> str:
        self._pending += piece
        out: list[str] = []
        while self._pending:
            if self._inside:
                m = _CLOSE_RE.search(self._pending)
                if m is None:
                    keep = _partial_tag_len(self._pending, _CLOSE_TAGS)
                    self._pending = self._pending[len(self._pending) - keep :] if keep else ""
                    break
                self._pending = self._pending[m.end() :]
                self._inside = False
                self._skip_space = True
                continue
            if self._skip_space:
                self._pending = self._pending.lstrip()
                if not self._pending:
                    break
                self._skip_space = False
            m = _OPEN_RE.search(self._pending)
            if m is not None:
                out.append(self._pending[: m.start()])
                self._pending = self._pending[m.end() :]
                self._inside = True
                continue
            keep = _partial_tag_len(self._pending, _OPEN_TAGS)
            cut = len(self._pending) - keep
            out.append(self._pending[:cut])
            self._pending = self._pending[cut:]
            break
        return "".join(out)

    def flush(self) -> str:
        """Held-back text outside a block (a ``<thi`` that never became a tag); a block left open is dropped."""
        out = "" if self._inside else self._pending
        if self._skip_space:
            out = out.lstrip()
        self._pending = ""
        return out


def strip_reasoning(text: str) -> str:
    """``text`` without reasoning blocks, stripped. A closing tag with no opening one hides everything before it
    (some templates put the opening tag in the prompt); an opening tag with no closing one hides everything after.
    """
    closes = list(_CLOSE_RE.finditer(text))
    if closes:
        first_close = closes[0]
        first_open = _OPEN_RE.search(text)
        if first_open is None or first_open.start() > first_close.start():
            text = text[first_close.end() :]
    f = ReasoningFilter()
    return (f.feed(text) + f.flush()).strip()
