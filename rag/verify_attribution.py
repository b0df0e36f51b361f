"""The attribution check: what the abstract says of prior work is not the paper's claim. Pure text.

Catches: a claim that gives the paper (its method, "we", "our approach", its name) what the abstract says of
existing methods: a part of a sentence from "existing methods" / "prior works" / "conventional approaches" to where
the paper's own part starts ("..., we", "but", "whereas"), or one comma-separated piece of it, when the claim shares
enough of its words. "Like existing methods, ZedX ..." still gives the rest to the paper.

Does not judge: a claim that itself says it is about other work or common practice ("unlike", "baselines",
"typically"); a negated claim; a claim naming neither the paper nor a name; a prior-work part that the paper says
of itself elsewhere in the abstract ("prior work uses X; we also use X"); other work the paper acts on ("By
unifying existing approaches, we ..."), or other work named without one of the listed nouns ("models" and
"systems" are often what the paper studies).
Cannot catch: prior work described without such a marker; a prior-work part of which the claim repeats under
``attribution_min_coverage``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.verify_clauses import _OWN_START, NEGATION, clauses, is_negated
from rag.verify_entities import looks_like_name
from rag.verify_tokens import CheckContext, Token, content_stems, quote_text, stems_of

_PRIOR_MARKERS = {"existing", "prior", "previous", "conventional", "traditional", "current", "standard", "earlier",
                  "classical", "classic", "popular", "typical", "common", "mainstream", "many", "most", "other"}  # fmt: skip
# The alternatives a paper sets itself against (not "models" or "systems": those are often what it studies).
_PRIOR_NOUNS = {"approaches", "methods", "works", "techniques", "solutions", "studies", "algorithms", "baselines",
                "frameworks", "pipelines", "literature", "research", "practice", "practices", "methodologies",
                "strategies", "efforts", "attempts"}  # fmt: skip


# A claim that itself says it is about other work (or about common practice) is not misattributing it.
_CLAIM_PRIOR = _PRIOR_MARKERS | {"unlike", "baseline", "baselines", "typically", "commonly", "usually", "often",
                                  "contrast", "others", "whereas"}  # fmt: skip
_SELF = {"we", "our", "proposed", "authors", "paper", "this", "introduced", "presented"}
_SELF_NOUNS = {"method", "approach", "framework", "model", "algorithm", "system", "technique", "work", "study",
               "procedure", "estimator", "learner", "architecture", "pipeline", "benchmark"}  # fmt: skip


def _acted_on(words: Sequence[Token], i: int) -> bool:
    """The other work named at words[i] is what the paper does something to ("By unifying existing approaches under
    one pipeline, we ...", "Extending prior methods to graphs, ..."): what follows is the paper's, not theirs."""
    k = i - 1 if i and words[i - 1].lower not in ("the", "all") else i - 2
    if k < 0 or not words[k].lower.endswith("ing") or len(words[k].lower) < 6:
        return False
    return k == 0 or words[k - 1].lower in ("by", "through", "via", "when", "after")


def _prior_spans(tokens: Sequence[Token]) -> list[list[Token]]:
    """The parts of a sentence said of other work: from "existing methods" / "prior works" to where the paper's own
    part starts ("..., we", "but", "whereas")."""
    words = [t for t in tokens if not t.is_punct]
    spans = []
    for i, t in enumerate(words):
        if t.lower not in _PRIOR_MARKERS:
            continue
        noun = next((k for k in range(i + 1, min(i + 3, len(words))) if words[k].lower in _PRIOR_NOUNS), None)
        if noun is None or _acted_on(words, i):
            continue
        end = next((k for k in range(noun + 1, len(words)) if words[k].lower in _OWN_START), len(words))
        spans.append(words[noun + 1 : end])
    return spans


def _likens(clause: Sequence[Token]) -> bool:
    """'Like existing methods', 'as prior work': the part of a claim that likens the paper to other work."""
    words = [t.lower for t in clause]
    return any(a in ("like", "as", "similar", "similarly") and b in _PRIOR_MARKERS for a, b in zip(words, words[1:], strict=False))


def _comma_parts(span: Sequence[Token], text: str) -> list[list[Token]]:
    """``span`` (tokens of the sentence ``text``) cut where the sentence has a comma or semicolon between two of
    its words; [] when it has none."""
    parts: list[list[Token]] = [[]]
    for k, t in enumerate(span):
        if k and any(c in ",;" for c in text[span[k - 1].end : t.start]):
            parts.append([])
        parts[-1].append(t)
    return [p for p in parts if p] if len(parts) > 1 else []


def check_attribution(ctx: CheckContext) -> str | None:
    """The claim gives the paper (its method, "we") what the abstract says of existing methods."""
    lowered = {t.lower for t in ctx.claim_tokens}
    words = [t.lower for t in ctx.claim_tokens if not t.is_punct]
    likened = any(a in ("like", "as", "similar", "similarly") and b in _PRIOR_MARKERS for a, b in zip(words, words[1:], strict=False))
    if lowered & _CLAIM_PRIOR and not likened:  # "Like existing methods, ZedX ..." still gives it to the paper
        return None
    words = [t for t in ctx.claim_tokens if not t.is_punct]
    self_noun = any(
        a.lower in ("the", "this", "our") and b.lower in _SELF_NOUNS for a, b in zip(words, words[1:], strict=False)
    )
    if not (self_noun or lowered & _SELF or any(looks_like_name(t, first=i == 0) for i, t in enumerate(words))):
        return None
    if any(is_negated(c) for c in clauses(ctx.claim_tokens)):
        return None
    # "Like existing methods, ZedX does P": what P says, measured against the claim (the likening part aside)
    core = set().union(*(content_stems(c) for c in clauses(ctx.claim_tokens) if not _likens(c))) if likened else set()
    core -= {s for t in words if looks_like_name(t, first=False) for s in stems_of(t)}  # the paper's name
    for toks, text in zip(ctx.sentence_tokens, ctx.sentence_texts, strict=True):
        spans = _prior_spans(toks)
        # a part of a long prior-work span ("rely on post-hoc adjustment, operating at the output level") counts too
        parts = [p for span in spans for p in _comma_parts(span, text)]
        for span in spans + [p for p in parts if p not in spans]:
            stems = content_stems(span) - NEGATION
            if len(stems) < 3:
                continue
            shared = ctx.claim_stems & stems
            said_of_core = len(core & stems) >= max(3, ctx.policy.attribution_min_coverage * len(core))
            if len(shared) < max(3, ctx.policy.attribution_min_coverage * len(stems)) and not said_of_core:
                continue
            # The paper may say the same of itself elsewhere ("prior work uses X; we also use X").
            own = [content_stems(o) for o in ctx.sentence_tokens if o is not toks and not _prior_spans(o)]
            if any(len(shared & o) >= ctx.policy.attribution_min_coverage * len(shared) for o in own):
                continue
            return f"the abstract says this of other work, not of this paper: {quote_text(text)}"
    return None
