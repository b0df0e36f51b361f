"""The scope check: the settings a claim names (video, zero-shot, open-ended, real robots, ...) are the abstract's.
Pure text; settings named by an affix and "only X" against "X and Y" are measured in rag/verify_scope.py.

Catches: a term of a group of mutually exclusive settings that the evidence does not use while it (or, failing
that, the abstract) uses a sibling ("video" where the abstract is about images); such a term the abstract never
mentions (except for size words: a summary may call a study "large-scale" unprompted, so only "small-scale" against
"large-scale" counts); a setting named by an affix ("single-step" for "multi-step"); a count word put on another
thing; "only X" where the evidence says "X and Y"; a setting phrase of the claim ("from calibrated multi-view camera
rigs") with at least ``scope_new_setting_words`` words the abstract never uses (fewer than the novelty check needs).

Not a change of scope: a sibling the claim names too ("recovers 3D motion from a video"); a term part of another
("supervised" / "self-supervised"); a hyphenated word the evidence writes as initials ("audio-visual" / "AV"); an
acronym ending the abstract's names ("QA" of "HotpotQA"). Cannot catch: settings outside the families and affixes listed here and in rag/verify_scope.py (a model family:
"large language models" for a vision model); a new setting of one rare word ("in songbirds") unless the slot check
(rag/verify_swap.py) finds it replaced.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.verify_entities import _name_suffix
from rag.verify_novelty import _is_new_word
from rag.verify_scope import affix_sibling, count_swapped, narrowed, setting_words
from rag.verify_tokens import CheckContext, Token, quote_text, stem, stems_of

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
        out.extend(stems_of(t) if "-" in t.lower and "-to-" not in t.lower else [t.stem])
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


def check_scope(ctx: CheckContext) -> str | None:
    split = (_scope_stems(ctx.claim_tokens), _scope_stems(ctx.abstract_tokens),
             [s for toks in ctx.evidence_tokens for s in _scope_stems(toks)])  # fmt: skip
    def unhyphenated(tokens: Sequence[Token]) -> list[str]:
        return [t.stem for t in tokens if "-" not in t.lower]

    whole = (unhyphenated(ctx.claim_tokens), unhyphenated(ctx.abstract_tokens),
             [s for toks in ctx.evidence_tokens for s in unhyphenated(toks)])  # fmt: skip
    # every leading part of the claim's stems: a term none of them is cannot be in the claim (a quick test before
    # the word-by-word one, over some hundred terms)
    heads = {s[:k] for s in [*split[0], *whole[0]] for k in range(1, len(s) + 1)}
    for group in _SCOPE_GROUPS:
        claim, abstract, evidence = whole if group in _WHOLE_WORDS else split
        for term in group:
            if term.split(" ", 1)[0] not in heads:
                continue
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


def _affix_scope(ctx: CheckContext) -> str | None:
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
        return f"the abstract says {only} and {other}, not only {only}: {quote_text(' '.join(ctx.evidence_texts))}"
    return _new_setting(ctx)


def _new_setting(ctx: CheckContext) -> str | None:
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


def _surface(term: str, tokens: Sequence[Token], ctx: CheckContext | None = None) -> str:
    pools = [tokens] + (list(ctx.evidence_tokens) + [ctx.abstract_tokens] if ctx else [])
    first = term.split()[0]
    for pool in pools:
        for i, t in enumerate(pool):
            if any(s == first or (len(first) >= 5 and s.startswith(first)) for s in stems_of(t)):
                n = len(term.split())
                return " ".join(x.text for x in pool[i : i + n]) if n > 1 else t.text
    return term
