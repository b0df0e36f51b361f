"""Does an abstract support a claim? Evidence alignment plus structured checks. Pure: no models, no I/O.

The caller supplies the MiniLM similarity of the claim to each abstract sentence; everything else is text:

1. **Alignment**: the abstract sentence the claim restates (similarity + shared words), or two sentences combined
   when a second one covers clearly more of the claim.
2. **Topical support**: ``dense_weight × similarity + overlap_weight × share of the claim's words in the abstract``;
   below ``support_threshold`` the abstract is about something else.
3. **Structured checks**, each with a reason a person can read: numbers (and their units, asymptotic bounds and
   fractions after LaTeX is normalised) agree; the names the claim uses are in the abstract, each in the role the
   abstract gives it; no term is swapped for another the abstract uses elsewhere (or for its opposite); polarity
   agrees (negation, "fails to", "has yet to", "without", "X-free", un-/non- antonyms, listed opposites); what the
   abstract says of existing methods is not given to the paper; comparisons keep their direction (who outperforms
   whom, "A improves X over B", higher/lower, increase/decrease); the claim is not stronger than the evidence
   ("proves", "all", "always" against "suggests", "some"); settings named in the claim (video, zero-shot,
   open-ended, real robots...) are the abstract's; and the claim adds no several-word detail the abstract never
   mentions.

A failed check caps the support below the threshold, so ``support`` and ``verified`` never disagree.

This module is the public entry point (``check_claim``, ``Verdict``, ``CheckFailure`` and the order of ``CHECKS``);
each step lives in a module of its own, which says what it catches and what it cannot:

- rag/verify_tokens.py: tokens, stems, word forms, and the context (``CheckContext``) every check reads
- rag/verify_align.py: alignment and topical support
- rag/verify_clauses.py: clauses and negation (used by the polarity, attribution, direction, swap, overclaim checks)
- rag/verify_comparatives.py: the words of comparison and change, with their dimension and sign
- rag/verify_numbers.py: ``numbers``
- rag/verify_entities.py: ``entities``
- rag/verify_swap.py: ``swap`` and ``roles`` (with rag/verify_binding.py)
- rag/verify_polarity.py: ``polarity``
- rag/verify_attribution.py: ``attribution``
- rag/verify_direction.py: ``direction``
- rag/verify_overclaim.py: ``overclaim``
- rag/verify_scope_check.py: ``scope`` (with rag/verify_scope.py)
- rag/verify_novelty.py: ``novelty``
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.settings import VerifyPolicy
from rag.text import Span
from rag.verify_align import _FRAME, _overlap, align, topical_support
from rag.verify_attribution import check_attribution
from rag.verify_direction import check_direction
from rag.verify_entities import check_entities
from rag.verify_novelty import check_novelty
from rag.verify_numbers import check_numbers
from rag.verify_overclaim import check_overclaim
from rag.verify_polarity import check_polarity
from rag.verify_scope_check import check_scope
from rag.verify_swap import check_roles, check_swap
from rag.verify_tokens import CheckContext, content_stems, quote_text, tokenize

CHECKS = ("numbers", "entities", "swap", "polarity", "attribution", "direction", "roles", "overclaim", "scope", "novelty")


# --------------------------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, slots=True)
class CheckFailure:
    check: str  # one of CHECKS, or "support"
    reason: str  # for people: "the abstract says the opposite: '…'"


@dataclass(frozen=True, slots=True)
class Verdict:
    verified: bool
    support: float  # 0..1; capped below the threshold when a check failed
    reason: str  # why it is (not) supported, quoting the abstract where it can
    evidence: tuple[Span, ...]  # the aligned abstract sentence(s)
    topical: float  # the support before the checks
    failures: tuple[CheckFailure, ...] = ()

    @property
    def evidence_span(self) -> Span:
        """One span covering the evidence (for the single start/end offsets the answer format has)."""
        return Span(min(s.start for s in self.evidence), max(s.end for s in self.evidence))


# --------------------------------------------------------------------------------------------------------------
# The checks, by name


_CHECK_FUNCTIONS: dict[str, Callable[[CheckContext], str | None]] = {
    "numbers": check_numbers,
    "entities": check_entities,
    "swap": check_swap,
    "roles": check_roles,
    "polarity": check_polarity,
    "attribution": check_attribution,
    "direction": check_direction,
    "overclaim": check_overclaim,
    "scope": check_scope,
    "novelty": check_novelty,
}


# --------------------------------------------------------------------------------------------------------------
# The verdict


def check_claim(
    claim: str,
    abstract_text: str,
    sentence_spans: Sequence[Span],
    sentence_sims: Sequence[float],
    policy: VerifyPolicy | None = None,
) -> Verdict:
    """Verdict on ``claim`` (marker-free text) against one abstract, given the claim's MiniLM similarity to each of
    the abstract's sentences (same order as ``sentence_spans``)."""
    policy = policy or VerifyPolicy()
    if not sentence_spans:
        return Verdict(False, 0.0, "the abstract has no text", (Span(0, 0),), 0.0)
    claim_tokens = tokenize(claim)
    claim_stems = content_stems(claim_tokens)
    sentence_tokens = [tokenize(span.of(abstract_text)) for span in sentence_spans]
    sentence_stems = [content_stems(toks) for toks in sentence_tokens]
    chosen = align(claim_stems, sentence_stems, sentence_sims, policy)
    evidence = tuple(sentence_spans[i] for i in chosen)
    abstract_tokens = tuple(t for toks in sentence_tokens for t in toks)
    abstract_stems = set().union(*sentence_stems)
    # "According to the paper, ...": who says it is not what is said (a frame word the abstract has still counts)
    said = claim_stems - (_FRAME - abstract_stems) or claim_stems
    overlap = _overlap(claim_tokens, said, abstract_stems, abstract_tokens, policy.common_word_weight) if claim_stems else 1.0
    dense = max(float(sentence_sims[i]) for i in chosen)
    topical = topical_support(dense, overlap, policy)
    if topical < policy.support_threshold:
        reason = f"the abstract is about something else (support {topical:.2f} < {policy.support_threshold:.2f})"
        return Verdict(False, topical, reason, evidence, topical, (CheckFailure("support", reason),))
    ctx = CheckContext(
        claim=claim,
        claim_tokens=claim_tokens,
        claim_stems=claim_stems,
        abstract=abstract_text,
        abstract_tokens=abstract_tokens,
        abstract_stems=abstract_stems,
        evidence_texts=[span.of(abstract_text) for span in evidence],
        evidence_tokens=[sentence_tokens[i] for i in chosen],
        sentence_texts=[span.of(abstract_text) for span in sentence_spans],
        sentence_tokens=sentence_tokens,
        policy=policy,
    )
    ctx.evidence_stems = set().union(*(sentence_stems[i] for i in chosen))
    failures = []
    for name in CHECKS:
        if name in policy.disabled_checks:
            continue
        reason = _CHECK_FUNCTIONS[name](ctx)
        if reason:
            failures.append(CheckFailure(name, reason))
            break  # the first failure is the reason shown; the rest would repeat it
    if failures:
        return Verdict(False, min(topical, policy.failed_check_cap), failures[0].reason, evidence, topical,
                       tuple(failures))  # fmt: skip
    quoted = quote_text(" ".join(ctx.evidence_texts), 160)
    return Verdict(True, topical, f"the abstract states it: {quoted}", evidence, topical)
