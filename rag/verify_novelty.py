"""The novelty check: the claim adds no several-word detail the abstract never mentions. Pure text.

A new word is a rare content word of the claim (below ``novel_word_max_zipf`` in English) that the abstract never
uses in any form: not as its stem, its hyphenated parts or a derived form ("failures" where the abstract says
"fail"). Numbers, meta words ("paper", "method", "shows") and the words the direction and overclaim checks judge
(comparison, change and strength words) are never new. Catches: ``novel_words_max`` or more new words, after
dropping the claim's one-for-one substitutions between words the claim and the evidence share in order ("unavoidably
imperfect stand-ins" for "inevitably imperfect surrogates").

Cannot catch: a one- or two-word added detail ("in songbirds" for "in zebra finches"; fewer than
``novel_words_max``); an added detail made of everyday words. The scope check (rag/verify_scope_check.py) asks the
same per-token question (``_is_new_word``, computed once per claim).
"""

from __future__ import annotations

from difflib import SequenceMatcher
from functools import lru_cache

from rag.verify_comparatives import COMPARATIVES, TRENDS, VERB_PREFIXES
from rag.verify_overclaim import _HEDGES, _strong_key
from rag.verify_tokens import (
    META_WORDS,
    CheckContext,
    Token,
    derived_from_any,
    english_frequency,
    is_content,
    make_token,
    stems_of,
)


def _judged_elsewhere(t: Token) -> bool:
    """A comparison, change or strength word, which the direction and overclaim checks judge, not a new detail."""
    return _judged_word(t.lower, t.stem)


@lru_cache(maxsize=20_000)
def _judged_word(lower: str, stem_: str) -> bool:
    if stem_.startswith(VERB_PREFIXES) or lower in COMPARATIVES or lower in TRENDS:
        return True
    if any(stem_ == k or (len(k) >= 5 and stem_.startswith(k)) for k in TRENDS):
        return True
    return stem_ in _HEDGES or _strong_key(make_token(lower, lower, stem_, 0, 0)) is not None


def _is_new_word(ctx: CheckContext, t: Token) -> bool:
    """A rare content word of the claim that the abstract never uses, in any form (once per token: the scope and
    novelty checks both ask)."""
    known = ctx.new_words.get(t.start)
    if known is None:
        known = ctx.new_words[t.start] = _new_word(ctx, t)
    return known


def _new_word(ctx: CheckContext, t: Token) -> bool:
    if not is_content(t) or t.stem in META_WORDS or any(c.isdigit() for c in t.text):
        return False
    if _judged_elsewhere(t):
        return False  # "outperforms", "negligible": comparison, trend and strength words are the other checks' own
    common = ctx.policy.novel_word_max_zipf
    if common < 8.0 and english_frequency(t.lower) >= common:
        return False
    stems = stems_of(t)
    if any(s in ctx.abstract_stems for s in stems):
        return False
    if "-" in t.lower and all(s in ctx.abstract_stems for s in stems[1:]):
        return False
    # "failures" where the abstract says "fail", "reusable" for "reuses"
    return not derived_from_any(t.stem, ctx.abstract_stems)


def check_novelty(ctx: CheckContext) -> str | None:
    novel = list(dict.fromkeys(t.text for t in ctx.claim_tokens if _is_new_word(ctx, t)))
    if len(novel) >= ctx.policy.novel_words_max:
        novel = [w for w in novel if w not in _substituted(ctx)]
    if len(novel) >= ctx.policy.novel_words_max:
        return f"the abstract does not mention {', '.join(repr(w) for w in novel[:5])}"
    return None


def _substituted(ctx: CheckContext) -> set[str]:
    """Claim words (as written) that stand where the evidence has other words, one for one, between words the two
    share in order ("calibration sets are unavoidably imperfect stand-ins" for "... inevitably imperfect
    surrogates"): a paraphrase's substitutions, not details the claim adds."""
    claim = [t for t in ctx.claim_tokens if t.content]
    out: set[str] = set()
    for toks in ctx.evidence_tokens:
        evidence = [t for t in toks if t.content]
        matcher = SequenceMatcher(None, [t.stem for t in claim], [t.stem for t in evidence], autojunk=False)
        blocks = matcher.get_opcodes()
        for k, (op, i1, i2, j1, j2) in enumerate(blocks):
            inside = 0 < k < len(blocks) - 1 and blocks[k - 1][0] == "equal" and blocks[k + 1][0] == "equal"
            if op == "replace" and inside and i2 - i1 == j2 - j1:
                out |= {t.text for t in claim[i1:i2]}
    return out
