"""Follow-up questions -> standalone queries, without a model (history-aware heuristics). Pure functions.

History entries are ``{"role": "user"|"assistant", "content": str}``; an assistant entry may also carry
``"sources": [{"number": n, "id": ..., "label": ...}, ...]`` (what the UI and CLI keep from the last answer).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.question import specific_terms

_ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5,
}  # fmt: skip
_ORDINAL_REF = re.compile(
    r"\b(?:the\s+)?(" + "|".join(_ORDINALS) + r"|last)\s+(?:one|paper|abstract|work|source|result|method)\b", re.I
)
_NUMBER_REF = re.compile(r"(?:\b(?:paper|source|abstract|reference)\s*#?\s*|\[)(\d{1,2})\]?", re.I)
# References to a whole paper. "the dataset" / "the model" are what a follow-up asks about, not references.
_PRONOUN_REF = re.compile(
    r"\b(?:this|that)\s+(?:paper|abstract|work|method|benchmark|model|approach|study|dataset)\b"
    r"|\bthe\s+(?:paper|abstract|work|study)\b"
    r"|\b(?:it|its|they|their|them)\b",
    re.I,
)


def last_sources(history: Sequence[dict]) -> list[dict]:
    for entry in reversed(history):
        if entry.get("role") == "assistant" and entry.get("sources"):
            return list(entry["sources"])
    return []


def last_user_question(history: Sequence[dict]) -> str | None:
    for entry in reversed(history):
        if entry.get("role") == "user" and str(entry.get("content", "")).strip():
            return str(entry["content"])
    return None


def condense_heuristic(question: str, history: Sequence[dict]) -> str:
    """Rewrite references to earlier answers ("the second one", "it", "paper [2]") with the sources' labels."""
    if not history:
        return question
    sources = last_sources(history)
    by_number = {int(s["number"]): s for s in sources if "number" in s}
    rewritten = question

    def label_for(number: int) -> str | None:
        source = by_number.get(number)
        return source.get("label") if source else None

    def ordinal(match: re.Match[str]) -> str:
        word = match.group(1).lower()
        number = max(by_number) if word == "last" and by_number else _ORDINALS.get(word, 0)
        label = label_for(number)
        return label if label else match.group(0)

    rewritten = _ORDINAL_REF.sub(ordinal, rewritten)
    rewritten = _NUMBER_REF.sub(lambda m: label_for(int(m.group(1))) or m.group(0), rewritten)
    if rewritten != question:
        return rewritten
    first = label_for(min(by_number)) if by_number else None
    if first and _PRONOUN_REF.search(question) and not specific_terms(question):
        return _PRONOUN_REF.sub(first, question, count=1)
    previous = last_user_question(history)
    if previous and len(question.split()) <= 6 and not specific_terms(question):
        # "and the dataset?" -> carry the previous answer's paper and question along
        subject = f"{first}; " if first else ""
        return f"{question} ({subject}follow-up to: {previous})"
    return question
