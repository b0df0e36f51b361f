"""The entities check: the names a claim uses are the abstract's, each in the role the abstract gives it. Pure text.

A name is a word with letters and digits ("GPT-4"), with two capitals or an inner one ("AssayBench", "CRISPR",
"nDCG"), or capitalised inside the sentence; not the sentence's first word alone, nor a number ("6x", "1.2M").
Accepted as the abstract's: the same name up to case, dashes and a plural or possessive ending; a part of a
hyphenated name ("Shapley-based"); an acronym of words written next to each other ("MCTS" for "Monte Carlo Tree
Search", "QA" for "question answering") or the long form of one of its acronyms; an acronym ending its names ("QA"
of "HotpotQA"); a name inside LaTeX ("l2" for "$\\ell_2$"); and a close spelling (rapidfuzz ratio at least
``entity_min_similarity``, never for names with digits).

Catches: a name the abstract never uses; a name of the abstract put where the sentence that says the rest of the
claim has another of its names, in the same role ("B beats C" where the abstract says "A beats C").
Cannot catch: a name given the property the same sentence gives another name when the claim mentions only one of
them ("B measures X" where the abstract says "A, which measures X, and B, which ..."); a swap in a sentence that
may speak of the name without naming it ("it", "our", "this", "we").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from rapidfuzz import fuzz, process

from rag.text import _STOPWORDS, name_singular
from rag.verify_tokens import (
    _DASHES,
    CheckContext,
    Token,
    content_stems,
    is_content,
    make_token,
    quote_text,
    stem,
    stems_of,
)

_MULTIPLIER = re.compile(r"\d+(?:\.\d+)?[x×]")
_SCALED = re.compile(r"\d+(?:\.\d+)?[kKMBT](?:-[a-z]+)?")  # "1k", "1.2M", "7B-parameter"


def looks_like_name(token: Token, first: bool) -> bool:
    text = token.text
    if token.is_punct or len(text) < 2 or text.lower() in _STOPWORDS:
        return False
    uppers = sum(c.isupper() for c in text)
    has_digit = any(c.isdigit() for c in text)
    has_alpha = any(c.isalpha() for c in text)
    if _MULTIPLIER.fullmatch(text) or _SCALED.fullmatch(text):
        return False  # "6x", "2.5x", "1.2M", "7B-parameter": a number (the numbers check's), not a name
    if has_digit and has_alpha:
        return True
    if uppers >= 2 or (uppers == 1 and not text[0].isupper()):  # AssayBench, CRISPR, nDCG
        return True
    return text[0].isupper() and not first


@lru_cache(maxsize=50_000)
def _name_key(text: str) -> str:
    key = text.lower().translate(_DASHES)
    key = re.sub(r"'s$", "", key)
    return name_singular(key)


def _acronym_of(name: str, tokens: Sequence[Token]) -> bool:
    """'MCTS' where the abstract writes 'Monte Carlo Tree Search' (initials of consecutive words)."""
    if not (3 <= len(name) <= 8 and name.isalpha() and name.isupper()):
        return False
    # the parts of a hyphenated word count as words: "VLMs" for "vision-language models"
    words = [p for t in tokens if is_content(t) for p in t.text.split("-") if p]
    n = len(name)
    return any(all(words[i + k][0].upper() == name[k] for k in range(n)) for i in range(len(words) - n + 1))


def _name_suffix(name: str, tokens: Sequence[Token]) -> bool:
    """An acronym that ends names of the abstract ('QA' of 'HotpotQA', 'GAN' of 'StyleGAN'): the kind they are."""
    if not (2 <= len(name) <= 6 and name.isalpha() and name.isupper()):
        return False
    n = len(name)
    return any(
        len(t.text) > n and t.text.endswith(name) and (t.text[-n - 1].islower() or t.text[-n - 1].isdigit())
        for t in tokens
    )


def _pair_acronym_of(name: str, tokens: Sequence[Token]) -> bool:
    """'QA' where the abstract writes 'question answering': two letters, the initials of two words written next to
    each other, each of at least four letters (so short function words do not make one by chance)."""
    if not (len(name) == 2 and name.isalpha() and name.isupper()):
        return False
    words = [t for t in tokens if not t.is_punct]
    return any(
        a.text[0].upper() == name[0] and b.text[0].upper() == name[1] and len(a.text) >= 4 and len(b.text) >= 4
        for a, b in zip(words, words[1:], strict=False)
    )


@lru_cache(maxsize=2_000)
def _flat_math(text: str) -> str:
    """The abstract with LaTeX markup dropped, lower case: '$\\ell_2/\\ell_1$' reads 'l2/l1'."""
    text = text.replace("\\ell", "l").replace("\\infty", "inf")
    return re.sub(r"\\math[a-z]+|[$_^{}\\]", "", text).lower()


class _Abstract(NamedTuple):
    """An abstract's text and tokens, hashed and compared by the text alone (its tokens follow from it)."""

    text: str
    tokens: tuple[Token, ...]

    def __hash__(self) -> int:
        return hash(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Abstract) and other.text == self.text


@lru_cache(maxsize=256)  # the claims of one answer are checked against the same few abstracts
def _abstract_names(abstract: _Abstract) -> tuple[frozenset[str], list[str], frozenset[str]]:
    """(the name keys of the abstract's words and hyphen parts, the same as a list for fuzzy matching, the
    abbreviations it writes)."""
    tokens = abstract.tokens
    keys = {_name_key(t.text) for t in tokens if not t.is_punct}
    keys |= {_name_key(p) for t in tokens if "-" in t.text for p in t.text.split("-") if p}
    acronyms = {p for t in tokens if _is_abbreviation(t) for p in t.text.split("-") if _is_abbreviation(
        make_token(p, p.lower(), p.lower(), 0, 0))}  # fmt: skip
    return frozenset(keys), list(keys), frozenset(acronyms)


def check_entities(ctx: CheckContext) -> str | None:
    tokens = ctx.claim_tokens
    words = [t for t in tokens if not t.is_punct]
    names = [t for i, t in enumerate(words) if looks_like_name(t, first=i == 0)]
    if not names:
        return None
    abstract_keys, choices, acronyms = _abstract_names(_Abstract(ctx.abstract, ctx.abstract_tokens))
    lowered = ctx.abstract.lower().translate(_DASHES)
    missing = []
    for name in names:
        at = next(i for i, t in enumerate(words) if t is name)
        if any(_spelled_out(a, words, at) for a in acronyms):
            continue  # "Large Language Models" where the abstract writes "LLMs"
        key = _name_key(name.text)
        if key in abstract_keys or (len(key) >= 4 and key in lowered):
            continue
        parts = [p for p in name.text.translate(_DASHES).split("-") if p]
        if "-" in key and all(
            _name_key(p) in abstract_keys
            or not (looks_like_name(make_token(p, p.lower(), stem(p), 0, 0), first=True) or _SCALED.fullmatch(p))
            for p in parts
        ):
            continue  # "Shapley-based": the name part is the abstract's
        bare = re.sub(r"['\u2019]s$", "", name.text)  # "an LLM's confidence"
        initials = bare[:-1] if bare.endswith("s") and bare[:-1].isupper() else bare  # "LLMs"
        if _acronym_of(initials, ctx.abstract_tokens) or _pair_acronym_of(initials, ctx.abstract_tokens):
            continue
        if _name_suffix(initials, ctx.abstract_tokens):
            continue  # "QA datasets" where the abstract names "HotpotQA" and "MultihopQA"
        if re.search(rf"(?<![a-z0-9]){re.escape(key)}(?![a-z0-9])", _flat_math(ctx.abstract)):
            continue  # "l2" where the abstract writes "$\\ell_2$" (as a whole word, not inside another)
        if not any(c.isdigit() for c in key) and process.extractOne(
            key, choices, scorer=fuzz.ratio, score_cutoff=ctx.policy.entity_min_similarity
        ):
            continue
        missing.append(name.text)
    if missing:
        names_text = ", ".join(dict.fromkeys(missing))
        return f"the abstract does not name {names_text}"
    return _swapped_name(ctx, names)


def _spelled_out(acronym: str, words: Sequence[Token], at: int) -> bool:
    """Whether the words around position ``at`` are the long form of ``acronym`` ("Large Language Models" for
    "LLMs", "vision-language models" for "VLMs"): consecutive words, hyphen parts counted as words, one of them the
    word at ``at``, whose initials are the acronym's capitals."""
    if "-" in acronym:  # "Video-LLMs": its acronym part
        return any(_spelled_out(part, words, at) for part in acronym.split("-") if part)
    letters = acronym[:-1] if acronym.endswith("s") else acronym
    if not (2 <= len(letters) <= 8 and letters.isalpha() and letters.isupper()):
        return False
    parts = [(k, p) for k, t in enumerate(words) for p in t.text.split("-") if p]
    n = len(letters)
    for i in range(len(parts) - n + 1):
        window = parts[i : i + n]
        if window[0][0] <= at <= window[-1][0] and all(p[0].upper() == letters[j] for j, (_, p) in enumerate(window)):
            return True
    return False


def _names_in(tokens: Sequence[Token]) -> list[tuple[int, Token]]:
    words = [t for t in tokens if not t.is_punct]
    return [(i, t) for i, t in enumerate(words) if looks_like_name(t, first=i == 0)]


def _neighbours(words: Sequence[Token], i: int) -> set[str]:
    """Content stems of the two words on each side of position ``i`` (the name's role: 'X outperforms', 'on X')."""
    near = [*words[max(0, i - 2) : i], *words[i + 1 : i + 3]]
    return {t.stem for t in near if is_content(t) and not looks_like_name(t, first=False)}


_STAND_FOR_NAME = {"it", "its", "our", "this", "we"}


def _swapped_name(ctx: CheckContext, names: Sequence[Token]) -> str | None:
    """A name the abstract uses, put where the abstract has another of its names: the sentence that says the rest
    of the claim names M in the role the claim gives N, and never names N ("B beats C" where the abstract says
    "A beats C" and mentions B elsewhere)."""
    claim_words = [t for t in ctx.claim_tokens if not t.is_punct]
    claim_keys = {_name_key(t.text) for t in names}
    for n in names:
        key = _name_key(n.text)
        rest = ctx.claim_stems - set(stems_of(n))
        if len(rest) < 3:
            continue
        n_at = next(i for i, t in enumerate(claim_words) if t is n)
        role = _neighbours(claim_words, n_at)
        for toks, text in zip(ctx.sentence_tokens, ctx.sentence_texts, strict=True):
            words = [t for t in toks if not t.is_punct]
            if any(_name_key(t.text) == key for t in words) or key in text.lower().translate(_DASHES):
                continue
            if any(t.lower in _STAND_FOR_NAME for t in words):
                continue  # "It pairs X with Y": the sentence may speak of N without naming it
            if len(rest & content_stems(toks)) < ctx.policy.entity_swap_min_coverage * len(rest):
                continue
            for m_at, m in _names_in(toks):
                m_key = _name_key(m.text)
                if m_key in claim_keys or m_key in key or key in m_key or not role & _neighbours(words, m_at):
                    continue
                if _spelled_out(m.text, claim_words, n_at) or _spelled_out(n.text, words, m_at):
                    continue  # "Arbitrarily Conditioned Hierarchical Flows" where the sentence writes "ARCH"
                return f"the abstract says this of {m.text}, not of {n.text}: {quote_text(text)}"
    return None


def _is_abbreviation(token: Token) -> bool:
    text = token.text[:-1] if token.text.endswith("s") else token.text
    return len(text) >= 2 and sum(c.isupper() for c in text) >= 2
