"""Alignment and topical support: which abstract sentence(s) a claim restates, and whether the abstract is about
what the claim says at all. Pure text; the caller gives the MiniLM similarity of the claim to each sentence.

``align`` picks the sentence with the best mix of similarity and shared words, plus a second one when it covers
clearly more of the claim. ``topical_support`` is ``dense_weight x similarity + overlap_weight x overlap``, where
the overlap is the share of the claim's content words the abstract has, also in another form ("failures" for
"fail"), as one word for two ("runtime" for "running time"), as its hyphenated parts next to each other, as a count
in digits for words, or as the words of an acronym ("LLM"); everyday words weigh less (``common_word_weight``).
Below ``support_threshold`` the abstract is about something else.

Cannot catch: a claim on the abstract's topic that says something the abstract does not: that is the structured
checks' job (rag/verify.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rag.settings import VerifyPolicy
from rag.text import _STOPWORDS
from rag.text import NUMBER_WORDS as _NUMBER_WORDS
from rag.verify_entities import _acronym_of, _pair_acronym_of
from rag.verify_tokens import Token, derived_from_any, english_frequency, stem, stems_of


def align(claim_stems: set[str], sentence_stems: Sequence[set[str]], sims: Sequence[float], policy: VerifyPolicy) -> list[int]:
    """Indexes of the sentence(s) the claim restates: the best one, plus a second when it adds enough coverage."""
    if not sentence_stems:
        return []
    n = max(1, len(claim_stems))
    coverage = [len(claim_stems & s) / n for s in sentence_stems]
    score = [0.5 * float(sim) + 0.5 * cov for sim, cov in zip(sims, coverage, strict=True)]
    order = sorted(range(len(score)), key=lambda i: -score[i])
    chosen = [order[0]]
    covered = set(sentence_stems[order[0]]) & claim_stems
    for _ in range(policy.evidence_max_sentences - 1):
        # the next sentence that adds most of the claim's words not yet covered, among the closest few
        gains = [(len((sentence_stems[j] & claim_stems) - covered) / n, j) for j in order[1:4] if j not in chosen]
        gain, j = max(gains, key=lambda g: (g[0], -order.index(g[1])), default=(0.0, -1))
        if j < 0 or gain < policy.pair_min_gain:
            break
        chosen.append(j)
        covered |= sentence_stems[j] & claim_stems
    return sorted(chosen)


def _overlap(claim_tokens: Sequence[Token], claim_stems: frozenset[str], abstract_stems: set[str],
             abstract_tokens: Sequence[Token] = (), common_weight: float = 1.0) -> float:  # fmt: skip
    """Share of the claim's content stems the abstract has, also in another form ("failures" for "fail") or as
    one word where the claim writes two ("running time" for "runtime")."""
    found = claim_stems & abstract_stems
    missing = claim_stems - found
    if missing:
        found |= {s for s in missing if derived_from_any(s, abstract_stems)}
        for t in claim_tokens:  # "shadow-model-free", "transformer-based": the thing named is the abstract's
            if "-" in t.lower and t.stem in missing:
                parts = [stem(p) for p in t.lower.split("-") if p and p not in _STOPWORDS]
                named = [p for p in parts if p not in _COMPOUND_ENDINGS]
                if named and len(named) < len(parts) and all(p in abstract_stems or derived_from_any(p, abstract_stems) for p in named):
                    found |= {t.stem, *parts} & claim_stems
        words = [t for t in claim_tokens if not t.is_punct]
        for a, b in zip(words, words[1:], strict=False):
            if a.content and b.content and {stem(a.lower + b.lower), stem(a.stem + b.lower)} & abstract_stems:
                found |= {a.stem, b.stem} & claim_stems
        if abstract_tokens:
            found |= _written_otherwise(claim_tokens, claim_stems - found, abstract_stems, abstract_tokens)
    if common_weight >= 1.0:
        return len(found) / len(claim_stems)
    weights = _stem_weights(tuple(claim_tokens), common_weight)
    total = sum(weights.get(s, 1.0) for s in claim_stems)
    return sum(weights.get(s, 1.0) for s in found) / total


@lru_cache(maxsize=5_000)
def _stem_weights(claim_tokens: tuple[Token, ...], common_weight: float) -> dict[str, float]:
    """Weight of each content stem of the claim in the overlap: 1 for a word rarer than Zipf 3.5 in English (the
    terms a claim is about), falling to ``common_weight`` at Zipf 5.5 ('put', 'kind', 'leaves': a paraphrase's
    everyday words, which say less about whether the abstract states the claim)."""
    out: dict[str, float] = {}
    for t in claim_tokens:
        if not t.content:
            continue
        words = [t.lower] if "-" not in t.lower else [t.lower, *(p for p in t.lower.split("-") if p)]
        for stem_, word in zip(stems_of(t), words, strict=False):
            if any(c.isdigit() for c in word):
                out[stem_] = 1.0
                continue
            zipf = english_frequency(word)
            share = min(1.0, max(0.0, (zipf - 3.5) / 2.0))
            out[stem_] = min(out.get(stem_, 1.0), 1.0 - share * (1.0 - common_weight))
    return out


def _written_otherwise(claim_tokens: Sequence[Token], missing: set[str] | frozenset[str], abstract_stems: set[str],
                       abstract_tokens: Sequence[Token]) -> set[str]:  # fmt: skip
    """Stems of claim words the abstract writes in another form: a hyphenated word as its parts next to each other
    ("single-neuron" for "single neuron", "quality-speed" for "quality--speed"), a count in words for its digits
    ("seventeen" for "17") or in digits for its word, an acronym of words written next to each other ("LLM" for
    "large language model", "LMs" for "language models")."""
    out: set[str] = set()
    pairs = None
    for t in claim_tokens:
        if t.stem not in missing:
            continue
        if "-" in t.lower:
            parts = [stem(p) for p in t.lower.split("-") if p]
            if pairs is None:
                words = [a for a in abstract_tokens if not a.is_punct]
                pairs = {(a.stem, b.stem) for a, b in zip(words, words[1:], strict=False)}
            if len(parts) >= 2 and all((a, b) in pairs for a, b in zip(parts, parts[1:], strict=False)):
                out.add(t.stem)
        elif _count_written_otherwise(t.lower, abstract_stems):
            out.add(t.stem)
        elif t.text.isupper() or (t.text[:-1].isupper() and t.text.endswith("s")):
            letters = t.text[:-1] if t.text.endswith("s") else t.text
            if _acronym_of(letters, abstract_tokens) or _pair_acronym_of(letters, abstract_tokens):
                out.add(t.stem)
    return out


_DIGIT_WORDS = {value: stem(word) for word, value in _NUMBER_WORDS.items()}


def _count_written_otherwise(word: str, abstract_stems: set[str]) -> bool:
    """'seventeen' where the abstract writes '17', or '17' where it writes 'seventeen'."""
    if word in _NUMBER_WORDS:
        return str(_NUMBER_WORDS[word]) in abstract_stems
    return word.isdigit() and _DIGIT_WORDS.get(int(word), "") in abstract_stems


# Last parts of a hyphenated word that say how it relates to the rest ("-free", "-based"), not what it is about.
_COMPOUND_ENDINGS = {stem(w) for w in "free based aware like level wise driven specific agnostic guided".split()}


# Words that frame a statement as reported ("The authors find that", "According to the paper", "This work
# shows"): an assistant's answer uses them, the abstract says "we"; they are not content the abstract must hold.
_FRAME = frozenset(stem(w) for w in "paper papers author authors study work according find finds found findings "
                   "show shows showed shown demonstrate demonstrates report reports argue argues".split())  # fmt: skip


def topical_support(dense: float, overlap: float, policy: VerifyPolicy) -> float:
    return round(policy.dense_weight * max(0.0, min(1.0, dense)) + policy.overlap_weight * overlap, 4)
