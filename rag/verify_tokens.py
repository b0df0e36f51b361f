"""Tokens, stems and word forms that every claim check reads, and the context a check is given. Pure text.

A token keeps its text as written, its lower-cased form (dashes and curly apostrophes folded, "'s" dropped) and its
Snowball stem (rag/text.py); a hyphenated word also counts as its parts ("zero-shot" -> zero-shot, zero, shot).
``derived`` relates one stem to another with a derivational ending ("fail" / "failur"); ``english_frequency`` is
wordfreq's Zipf frequency, read from disk on first use. ``CheckContext`` holds one claim and one abstract (tokens, stems,
aligned evidence sentences and the policy) for the checks in the other ``rag/verify_*.py`` modules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from rag.settings import VerifyPolicy
from rag.text import _STOPWORDS
from rag.text import stem as _snowball


def stem(word: str) -> str:
    return _snowball(word.lower())  # the one Snowball stemmer (rag/text.py), as content words use


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-'\u2019.\u2010\u2011\u2013][A-Za-z0-9]+)*%?|[,;:()]")
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2013": "-", "\u2019": "'"})  # "Bradley–Terry" = "Bradley-Terry"


class Token(NamedTuple):
    """One word or punctuation mark. A named tuple, not a dataclass: the checks key their caches by tuples of
    tokens, and a tuple of named tuples is hashed and compared in C (a frozen dataclass's ``__hash__`` is a Python
    call per token: 8% of the time checking a claim took)."""

    text: str  # as written
    lower: str
    stem: str
    start: int
    end: int
    is_punct: bool = False
    content: bool = False  # not punctuation, not a stopword, a number or longer than one letter


def make_token(text: str, lower: str, stem_: str, start: int, end: int) -> Token:
    punct = text in ",;:()"
    content = not punct and lower not in _STOPWORDS and (len(lower) > 1 or lower.isdigit())
    return Token(text, lower, stem_, start, end, punct, content)


@lru_cache(maxsize=20_000)
def tokenize(text: str) -> tuple[Token, ...]:
    out = []
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        if raw.endswith((".",)):
            raw = raw.rstrip(".")
        lower = raw.lower().translate(_DASHES)
        if lower.endswith("'s"):
            lower = lower[:-2]
        out.append(make_token(raw, lower, stem(lower), m.start(), m.start() + len(raw)))
    return tuple(out)


def is_content(token: Token) -> bool:
    return token.content


def stems_of(token: Token) -> list[str]:
    """A hyphenated word counts as itself and as its parts ("zero-shot" -> zero-shot, zero, shot)."""
    if "-" not in token.lower:
        return [token.stem]
    parts = [p for p in token.lower.split("-") if p and p not in _STOPWORDS]
    return [token.stem, *(stem(p) for p in parts)]


def content_stems(tokens: Sequence[Token]) -> frozenset[str]:
    return _content_stems(tuple(tokens))


@lru_cache(maxsize=50_000)
def _content_stems(tokens: tuple[Token, ...]) -> frozenset[str]:
    return frozenset(s for t in tokens if t.content for s in stems_of(t))


@dataclass(slots=True)
class CheckContext:
    claim: str
    claim_tokens: tuple[Token, ...]
    claim_stems: set[str]
    abstract: str
    abstract_tokens: tuple[Token, ...]
    abstract_stems: set[str]
    evidence_texts: list[str]
    evidence_tokens: list[tuple[Token, ...]]
    sentence_texts: list[str] = field(default_factory=list)  # every sentence of the abstract
    sentence_tokens: list[tuple[Token, ...]] = field(default_factory=list)
    evidence_stems: set[str] = field(default_factory=set)
    policy: VerifyPolicy = field(default_factory=VerifyPolicy)
    new_words: dict[int, bool] = field(default_factory=dict)  # _is_new_word by token position, computed once


def quote_text(text: str, limit: int = 220) -> str:
    text = " ".join(text.split())
    return f"'{text}'" if len(text) <= limit else f"'{text[: limit - 1].rstrip()}…'"


def sentence_of(ctx: CheckContext, clause: Sequence[Token]) -> str:
    for text, toks in zip(ctx.evidence_texts + ctx.sentence_texts, ctx.evidence_tokens + ctx.sentence_tokens, strict=True):
        if clause and any(t is clause[0] for t in toks):
            return text
    return ctx.evidence_texts[0] if ctx.evidence_texts else ""


def sentence_with(ctx: CheckContext, word: str) -> str:
    for text, toks in zip(ctx.evidence_texts, ctx.evidence_tokens, strict=True):
        if any(t.lower == word for t in toks):
            return text
    return ctx.evidence_texts[0] if ctx.evidence_texts else ""


META_WORDS = {stem(w) for w in "paper abstract author study studi result results find findings finding report approach "
         "framework method model technique propos work demonstr show reveal".split()}  # fmt: skip


@lru_cache(maxsize=50_000)
def english_frequency(word: str) -> float:
    """Zipf frequency of ``word`` in English (0 unknown .. ~7 'the'; wordfreq's list, read from disk)."""
    from rag.word_frequency import zipf_frequency

    return zipf_frequency(word)


_DERIVED_MIN = 4  # letters the shorter stem must have for a longer one to count as derived from it


def derived(a: str, b: str) -> bool:
    """One stem is the other with a derivational ending ('fail' / 'failur', 'reus' / 'reusabl', 'identifi' /
    'identifiabl'): the shorter (at least four letters) starts the longer, which adds at most five letters."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= _DERIVED_MIN and long.startswith(short) and len(long) - len(short) <= 5


def derived_from_any(word: str, stems: set[str] | frozenset[str]) -> bool:
    return len(word) >= _DERIVED_MIN and any(derived(word, s) for s in stems if s[:3] == word[:3])

