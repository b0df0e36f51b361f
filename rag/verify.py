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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.settings import VerifyPolicy
from rag.text import Span
from rag.verify_align import _FRAME, _overlap, align, topical_support
from rag.verify_attribution import check_attribution
from rag.verify_direction import check_direction
from rag.verify_entities import (
    _name_suffix,
    check_entities,
)
from rag.verify_novelty import _is_new_word, check_novelty
from rag.verify_numbers import check_numbers
from rag.verify_overclaim import check_overclaim
from rag.verify_polarity import check_polarity
from rag.verify_scope import affix_sibling, count_swapped, narrowed, setting_words
from rag.verify_swap import check_roles, check_swap
from rag.verify_tokens import (
    Token,
    _Context,
    _quote,
    _stems_of,
    content_stems,
    stem,
    tokenize,
)

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
# One term put in place of another the abstract uses elsewhere


# --------------------------------------------------------------------------------------------------------------
# One term of a slot replaced by another: "on linear attention and state-space models" where the sentence has "on
# linear attention and softmax attention models", "in social budgerigars" where it has "in social zebra finches".


# --------------------------------------------------------------------------------------------------------------
# Clauses, polarity


# --------------------------------------------------------------------------------------------------------------
# Attribution: what the abstract says of prior work is not the paper's claim


# --------------------------------------------------------------------------------------------------------------
# Direction of comparisons and changes


# --------------------------------------------------------------------------------------------------------------
# Overclaim


# --------------------------------------------------------------------------------------------------------------
# Settings and scope


# Groups of mutually exclusive settings: a claim's term the abstract does not use, or whose sibling it uses, is
# a change of scope. Entries are stems (hyphens kept); multi-word terms are matched as stem sequences.
_SCOPE_GROUPS: tuple[tuple[str, ...], ...] = (
    ("video", "imag", "text", "audio", "speech", "3d", "2d", "point cloud", "tabular", "time seri", "graph"),
    ("zero-shot", "few-shot", "one-shot", "fine-tun", "supervis", "unsupervis", "self-supervis", "semi-supervis",
     "weakly-supervis", "training-fre", "in-context"),
    ("multilingu", "monolingu", "cross-lingu", "english", "chines", "low-resourc"),
    ("real robot", "real-world", "simul", "synthet", "sim-to-r"),
    ("onlin", "offlin"),
    ("single-ag", "multi-ag"),
    ("white-box", "black-box"),
    ("open-sourc", "closed-sourc", "proprietari"),
    ("centralized", "decentr", "feder"),
    ("discret", "continu"),
    ("linear", "nonlinear", "non-linear"),
    ("convex", "nonconvex", "non-convex"),
    ("stationari", "nonstationari", "non-stationari"),
    ("determinist", "stochast"),
    ("in vivo", "in vitro", "in silico"),
    ("human", "mous", "mice", "rat", "anim"),
    ("small-scal", "large-scal"),
    ("open-end", "multiple-choic"),
    ("single-turn", "multi-turn"),
    ("single-task", "multi-task"),
    ("unimod", "multimod"),
    ("on-polici", "off-polici"),
    ("model-bas", "model-fre"),
    ("in-distribut", "out-of-distribut"),
    ("short-context", "long-context"),
    ("photograph", "video"),
    ("linear", "quadrat", "cubic", "exponenti", "logarithm", "sublinear", "superlinear"),  # rates of growth
    ("classif", "regress"),
    ("egocentr", "exocentr", "first-person", "third-person"),
    ("train time", "infer time", "test time", "test-tim", "deploy time"),
    ("dure train", "dure infer", "dure deploy"),
)  # fmt: skip
_WHOLE_WORDS = {("linear", "quadrat", "cubic", "exponenti", "logarithm", "sublinear", "superlinear")}  # not "linear-regression"


# Groups whose terms describe size rather than a setting: a summary may call a study "large-scale" unprompted, so
# only the sibling ("small-scale" where the abstract says "large-scale") is a change of scope.
_SIBLING_ONLY = {("small-scal", "large-scal")}


_ADJECTIVE_ENDINGS = ("ual", "al", "ic", "ical")  # "textual descriptions" name the text setting


def _term_positions(term: str, stems: Sequence[str]) -> bool:
    parts = term.split()
    if len(parts) == 1:
        return any(s.startswith(term) and (len(term) >= 5 or s == term or s[len(term):] in _ADJECTIVE_ENDINGS)
                   for s in stems)  # fmt: skip
    n = len(parts)
    return any(
        all(stems[i + k] == parts[k] or stems[i + k].startswith(parts[k]) for k in range(n))
        for i in range(len(stems) - n + 1)
    )


def _scope_stems(tokens: Sequence[Token]) -> list[str]:
    out = []
    for t in tokens:
        if t.is_punct:
            continue
        # "text-to-image" is a setting of its own, not text and image
        out.extend(_stems_of(t) if "-" in t.lower and "-to-" not in t.lower else [t.stem])
    return out


def _abbreviated_in(term: str, claim: Sequence[Token], evidence: Sequence[Sequence[Token]]) -> bool:
    """The claim's hyphenated word holding ``term`` ("audio-visual") is written in the evidence as the initials of its
    parts ("AV")."""
    written = {t.text for toks in evidence for t in toks}
    for t in claim:
        parts = [p for p in t.lower.split("-") if p]
        named = len(parts) >= 2 and any(stem(p).startswith(term) for p in parts)
        if named and "".join(p[0] for p in parts).upper() in written:
            return True
    return False


def check_scope(ctx: _Context) -> str | None:
    split = (_scope_stems(ctx.claim_tokens), _scope_stems(ctx.abstract_tokens),
             [s for toks in ctx.evidence_tokens for s in _scope_stems(toks)])  # fmt: skip
    def unhyphenated(tokens: Sequence[Token]) -> list[str]:
        return [t.stem for t in tokens if "-" not in t.lower]

    whole = (unhyphenated(ctx.claim_tokens), unhyphenated(ctx.abstract_tokens),
             [s for toks in ctx.evidence_tokens for s in unhyphenated(toks)])  # fmt: skip
    for group in _SCOPE_GROUPS:
        claim, abstract, evidence = whole if group in _WHOLE_WORDS else split
        for term in group:
            if not _term_positions(term, claim) or _term_positions(term, evidence):
                continue
            if _abbreviated_in(term, ctx.claim_tokens, ctx.evidence_tokens):
                continue  # "audio-visual benchmarks" where the evidence says "AV benchmarks"
            in_abstract = _term_positions(term, abstract)
            # a sibling the claim names too is not one it replaced ("recovers 3D motion from a video")
            siblings = [o for o in group if o != term and not _is_part(term, o) and _term_positions(o, evidence)
                        and not _term_positions(o, claim)]  # fmt: skip
            if not in_abstract:
                siblings = siblings or [o for o in group if o != term and not _is_part(term, o) and _term_positions(o, abstract)]
            word = _surface(term, ctx.claim_tokens)
            if siblings:
                other = _surface(siblings[0], ctx.evidence_tokens[0] if _term_positions(siblings[0], evidence) else ctx.abstract_tokens, ctx)
                return f"the abstract is about {other}, not {word}"
            if not in_abstract and group not in _SIBLING_ONLY:
                return f"the abstract does not mention {word}"
    return _affix_scope(ctx)


def _affix_scope(ctx: _Context) -> str | None:
    """A setting named by an affix ("single-step" for the abstract's "multi-step", "task-specific" for its
    "task-agnostic"), and "only X" where the evidence says "X and Y" (rag/verify_scope.py)."""
    evidence = [t.lower for toks in ctx.evidence_tokens for t in toks]
    abstract = {t.lower for t in ctx.abstract_tokens if t.content}
    for word in dict.fromkeys(t.lower for t in ctx.claim_tokens if t.content):
        if word in abstract:
            continue
        sibling = affix_sibling(word, [w for w in evidence if w in abstract]) or affix_sibling(word, abstract)
        if sibling:
            return f"the abstract is about {sibling}, not {word}"
    claim_words = [t.lower for t in ctx.claim_tokens]
    swapped = count_swapped(claim_words, evidence) or count_swapped(claim_words, [t.lower for t in ctx.abstract_tokens])
    if swapped:
        word, thing = swapped
        return f"the abstract does not speak of {word} {_surface(thing, ctx.claim_tokens)}, it counts otherwise"
    narrow = narrowed([t.lower for t in ctx.claim_tokens], evidence)
    if narrow:
        only, other = narrow
        return f"the abstract says {only} and {other}, not only {only}: {_quote(' '.join(ctx.evidence_texts))}"
    return _new_setting(ctx)


def _new_setting(ctx: _Context) -> str | None:
    """Setting phrases of the claim ("from calibrated multi-view camera rigs", "for purely temporal sequences") with
    at least scope_new_setting_words words the abstract never uses: a setting the abstract does not state. Fewer new
    words than the novelty check needs, since they sit where a setting is named, not where a verb rephrases."""
    new = list(dict.fromkeys(t.text for t in setting_words(ctx.claim_tokens)
                             if _is_new_word(ctx, t) and not _name_suffix(t.text, ctx.abstract_tokens)))  # fmt: skip
    if len(new) < ctx.policy.scope_new_setting_words:
        return None
    return f"the abstract does not state this setting: it never mentions {', '.join(repr(w) for w in new[:5])}"


def _is_part(a: str, b: str) -> bool:
    """'supervis' is part of 'self-supervis': finding one is no evidence against the other."""
    return a in b.split("-") or b in a.split("-") or a.endswith(b) or b.endswith(a)


def _surface(term: str, tokens: Sequence[Token], ctx: _Context | None = None) -> str:
    pools = [tokens] + (list(ctx.evidence_tokens) + [ctx.abstract_tokens] if ctx else [])
    first = term.split()[0]
    for pool in pools:
        for i, t in enumerate(pool):
            if any(s == first or (len(first) >= 5 and s.startswith(first)) for s in _stems_of(t)):
                n = len(term.split())
                return " ".join(x.text for x in pool[i : i + n]) if n > 1 else t.text
    return term


_CHECK_FUNCTIONS: dict[str, Callable[[_Context], str | None]] = {
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
    ctx = _Context(
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
    quoted = _quote(" ".join(ctx.evidence_texts), 160)
    return Verdict(True, topical, f"the abstract states it: {quoted}", evidence, topical)
