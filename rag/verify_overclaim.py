"""The overclaim check: the claim is not stronger than the evidence. Pure text.

Catches: a strong word ("proves", "guarantees", "always", "all", "every", "never", "completely", "eliminates",
"best", "first", "solely", "optimal", "exactly") that no sentence saying much of the claim (or of the words around
the strong word) uses, nor an as-strong word ("solely" for "only", "a guarantee" where the abstract proves); the
reason quotes the evidence's hedge ("suggests", "may", "some", "most") when it has one; "with no assumptions" /
"unconditionally" where the abstract states the result under assumptions or conditions. "Proves" is accepted for
a formal result (a bound, theorem or proof, "we derive", "rigorously show") unless the evidence hedges it.

Does not count as stronger: the abstract's own phrase ("fully connected", "approximation guarantees"); "all"
gathering the claim's own list ("X, Y and Z are all handled"); a capitalised word inside a name ("the All of Us
cohort"); "first trains X and then Y"; an aim ("To solve this, ...", "aims to eliminate"); "can exactly solve"
(what may be done); "never" where the abstract says the same negated; "optimal up to log factors" against a
matched lower bound up to them.
Cannot catch: a stronger claim made by dropping a condition rather than by a strength word (beyond "with no
assumptions", "unconditionally"); "only", "any" and "confirms" are not counted (paraphrases use them too often).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rag.verify_clauses import clauses, is_negated
from rag.verify_tokens import (
    META_WORDS,
    CheckContext,
    Token,
    content_stems,
    derived_from_any,
    is_content,
    quote_text,
    stem,
)

_STRONG = {
    "prove": "proves", "proven": "proves", "guarante": "guarantees", "alway": "always", "everi": "every",
    "all": "all", "entir": "entirely", "complet": "completely", "fulli": "fully", "perfect": "perfectly",
    "elimin": "eliminates", "solv": "solves", "certain": "certainly", "definit": "definitively",
    "conclus": "conclusively", "univers": "universally", "invari": "invariably", "never": "never",
    "must": "must", "ensur": "ensures", "best": "best", "first": "first", "sole": "solely", "optim": "optimal",
    "exact": "exactly",
}  # fmt: skip
_HEDGES = {"suggest", "may", "might", "could", "some", "most", "mani", "sever", "often", "typic", "usual",
           "general", "larg", "partial", "part", "mostli", "like", "potenti", "possibl", "indic", "appear",
           "seem", "hint", "tend", "nearli", "almost", "approxim", "rough", "promis", "preliminari", "modest",
           "up", "can", "limit"}  # fmt: skip


# Words of a formal result: evidence with one of them (and no hedge) supports "proves" ("we establish a bound").
_FORMAL_RESULT = {stem(w) for w in "bound bounds theorem theorems lemma proof establish derive".split()}
# Hedges of certainty ("suggests", "may"): what "proves" overstates. "can" says what is possible ("can be written
# as", "can be approximated"), and "some", "most" say how many: neither makes a shown result less certain.
_EPISTEMIC = {"suggest", "may", "might", "could", "like", "potenti", "possibl", "indic", "appear", "seem", "hint",
              "tend", "promis", "preliminari"}  # fmt: skip
# Words before "to" that make what follows an aim, not a result: "To solve this, ...", "aims to eliminate".
_AIM_WORDS = {"order", "aim", "aims", "aimed", "seek", "seeks", "designed", "try", "tries", "attempt", "attempts",
              "intended", "strive", "strives", "goal"}  # fmt: skip
# One strength said with different words: "every" = "all" (= "each" in the abstract); "proven" = "prove".
# Words of the evidence as strong as a strong word of the claim (stems).
_AS_STRONG = {"sole": frozenset({"onli", "exclus"}), "guarante": frozenset({"prove", "proof", "theorem", "provabl"}),
              "best": frozenset({"strongest", "top", "highest", "lead", "optim"}), "optim": frozenset({"best"})}
# ... and, in a sentence that says the words around the strong word: "selects the most promising mode" for "selects
# the best mode".
_AS_STRONG_NEAR = {"best": frozenset({"most"})}
_SAME_STRENGTH = {"everi": "all", "each": "all", "proven": "prove", "prove": "prove", "proved": "prove"}


def _strong_key(token: Token) -> str | None:
    return _strong_stem_key(token.stem)


@lru_cache(maxsize=50_000)  # pure; asked for every word of the claim and of its evidence
def _strong_stem_key(s: str) -> str | None:
    if s in _SAME_STRENGTH:
        return _SAME_STRENGTH[s]
    for key in _STRONG:
        if s == key or (len(key) >= 5 and s.startswith(key)):
            return key
    return None


_SHOW_WORDS = {stem(w) for w in "show shows demonstrate demonstrates".split()}
_THEORY_WORDS = {stem(w) for w in "prove proves proved proof theorem theorems lemma".split()}


_RIGOROUS = {"rigorously", "formally", "mathematically", "provably"}


def _theoretical(abstract: Sequence[Token], evidence: Sequence[Sequence[Token]]) -> bool:
    """An abstract that states formal results ("we prove", "a theorem"), or evidence that shows "rigorously" or
    "formally": its "we show" is a proof."""
    if any(t.stem in _THEORY_WORDS for t in abstract):
        return True
    return any(a.lower in _RIGOROUS and b.stem in _SHOW_WORDS for toks in evidence for a, b in zip(toks, toks[1:], strict=False))


def _covered(part: set[str], stems: frozenset[str] | set[str]) -> int:
    """How many of ``part`` the stems hold, also in another form ("sharply" for "sharp")."""
    return sum(1 for p in part if p in stems or derived_from_any(p, stems))


def _same_phrase(claim: Sequence[Token], i: int, abstract: Sequence[Token], key: str) -> bool:
    """The strong word at claim[i] stands in the abstract next to the same word it has in the claim."""
    mine = {claim[k].stem for k in (i - 1, i + 1) if 0 <= k < len(claim) and is_content(claim[k])}
    for j, a in enumerate(abstract):
        if _strong_key(a) == key and mine & {abstract[k].stem for k in (j - 1, j + 1) if 0 <= k < len(abstract)}:
            return True
    return False


_CONDITION_WORDS = {stem(w) for w in "assumption assumptions condition conditions".split()}


def _dropped_conditions(ctx: CheckContext) -> str | None:
    """"with no assumptions", "unconditionally" where the abstract states the result under assumptions or
    conditions ("under mild assumptions")."""
    words = [t for t in ctx.claim_tokens if not t.is_punct]
    claim_free = any(
        t.stem in _CONDITION_WORDS and any(w.lower in ("no", "without") for w in words[max(0, k - 2) : k])
        for k, t in enumerate(words)
    ) or any(t.lower.startswith(("unconditional", "assumption-free")) for t in words)
    if not claim_free:
        return None
    for toks, text in zip(ctx.evidence_tokens, ctx.evidence_texts, strict=True):
        for c in clauses(toks):
            if not is_negated(c) and any(t.stem in _CONDITION_WORDS for t in c) and any(t.lower in ("under", "assuming", "given") for t in c):
                return f"the abstract states it under conditions: {quote_text(text)}"
    return None


_HAVE_WORDS = {"has", "have", "having", "with", "offers", "offer", "provides", "provide", "providing", "gives",
               "give", "enjoys", "enjoy", "its", "their", "the", "these", "such", "of", "and", "strong", "formal"}  # fmt: skip


def _names_a_thing(before: Token) -> bool:
    """The word before 'guarantees' makes it a noun ('has guarantees', 'theoretical guarantees', 'provable
    guarantees'), not the verb of a claim ('the method guarantees X')."""
    return before.lower in _HAVE_WORDS or before.lower.endswith(("al", "ble", "ic"))


_FLOATING_BEFORE = {"are", "were", "be", "been", "can", "have", "they", "them", "these"}


def _lists_before(words: Sequence[Token]) -> bool:
    """The words name a list of two or more things ("A, B and C", "A and B")."""
    return any(t.lower in ("and", "or") for t in words[-12:])


_DETERMINERS = {"the", "these", "those", "its", "their", "our", "such", "other", "of"}


def _floating_all(after: Token | None) -> bool:
    """'all' gathers what was listed before it when no noun follows ("..., all without X", "..., all trained on Y"),
    not when it quantifies the next noun ("..., all models fail")."""
    if after is None:
        return True
    if after.lower in _DETERMINERS:
        return False
    return not after.content or after.lower.endswith(("ed", "ing"))


def _qualified_optimal(claim: Sequence[Token], i: int, abstract: Sequence[Token]) -> bool:
    """'optimal up to X' where the abstract says the result matches a lower bound (or is tight) up to X."""
    after = [t.lower for t in claim[i + 1 : i + 4]]
    if after[:2] != ["up", "to"] or len(after) < 3:
        return False
    stems = {t.stem for t in abstract}
    return after[2] in {t.lower for t in abstract} and bool(stems & {"lower", "tight", "match"})


_VERB_KEYS = {"solv"}  # not "can guarantee", "can eliminate": strong still
_MODALS = {"can", "could", "may", "might"}
def _near_words(claim: Sequence[Token], i: int, span: int = 2) -> set[str]:
    """Stems of the content words around claim[i] (up to ``span`` content words each side, meta words aside):
    what a strong word in a long summary sentence is said of ("questions such that exactly one of two models
    solves them")."""
    before = [t for t in claim[:i] if t.content and t.stem not in META_WORDS][-span:]
    after = [t for t in claim[i + 1 :] if t.content and t.stem not in META_WORDS][:span]
    return {t.stem for t in before + after}


_SEQUENCE = {"then", "next", "second", "secondly", "afterwards", "finally", "later", "subsequently"}


def _negated_elsewhere(ctx: CheckContext, word: Token) -> bool:
    """The claim's part with ``word`` ("never") is said negated by a part of the abstract that shares at least two of
    its content words: "never" is then the abstract's own negation, not a stronger claim."""
    part = next((c for c in clauses(ctx.claim_tokens) if any(x is word for x in c)), ())
    stems = {x.stem for x in part if x.content and x is not word}
    return any(
        is_negated(c) and len(stems & {x.stem for x in c if x.content}) >= 2
        and not any(x.lower in _NOT_ALWAYS for x in c)  # "does not consistently outperform" is weaker than "never"
        for toks in ctx.sentence_tokens
        for c in clauses(toks)
    )


# Words that make a negation partial: "not always", "not consistently", "not all" (weaker than "never").
_NOT_ALWAYS = {"always", "consistently", "necessarily", "fully", "entirely", "completely", "all", "every", "uniformly",
               "significantly", "substantially", "much", "greatly", "reliably", "systematically", "asymptotically"}  # fmt: skip


def check_overclaim(ctx: CheckContext) -> str | None:
    dropped = _dropped_conditions(ctx)
    if dropped:
        return dropped
    evidence_stems = {t.stem for toks in ctx.evidence_tokens for t in toks}
    # a hedge the claim keeps ("can be approximated" in both) does not limit the claim's other words
    hedges = [t for toks in ctx.evidence_tokens for t in toks if t.stem in _HEDGES and t.stem not in ctx.claim_stems]
    claim = [t for t in ctx.claim_tokens if not t.is_punct]
    abstract = [t for t in ctx.abstract_tokens if not t.is_punct]
    for i, t in enumerate(claim):
        key = _strong_key(t)
        if key is None or t.lower == "each" or any(_strong_key(e) == key for toks in ctx.evidence_tokens for e in toks):
            continue
        if evidence_stems & _AS_STRONG.get(key, frozenset()):
            continue  # "solely" where the evidence says "only", "a guarantee" where it proves
        if key == "optim" and _qualified_optimal(claim, i, ctx.abstract_tokens):
            continue  # "optimal up to log factors" where the abstract matches lower bounds up to log factors
        if key == "all" and i + 1 < len(claim) and claim[i + 1].lower == "together":
            continue  # "all together" = jointly
        if i and t.text[:1].isupper() and not claim[i - 1].text.endswith(":"):
            continue  # a capital inside the sentence: part of a name ("the All of Us cohort"), not a strength
        if key == "first" and any(w.lower in _SEQUENCE for w in claim[i + 1 :]):
            continue  # "first trains X and then Y": an order of steps, not a priority claim
        if key == "never" and _negated_elsewhere(ctx, t):
            continue  # "never sees rewards" where the abstract says "observes ... but not the rewards"
        if key == "all" and i and claim[i - 1].lower in _FLOATING_BEFORE and _lists_before(claim[:i]):
            continue  # "X, Y, and Z are all handled": "all" gathers the claim's own list, it claims no more
        if key == "all" and i and ctx.claim[: t.start].rstrip().endswith((",", "\u2014")) and _lists_before(claim[:i]) \
                and _floating_all(claim[i + 1] if i + 1 < len(claim) else None):
            continue  # "a dataset, a model and a framework, all built without X": the same, after a comma
        if key == "guarante" and i and _names_a_thing(claim[i - 1]):
            continue  # "has theoretical guarantees such as...": the noun names properties, it does not overclaim
        if i and claim[i - 1].lower == "to" and (i == 1 or claim[i - 2].lower in _AIM_WORDS):
            continue  # "To solve this problem, ...": an aim, not a result
        part = next((content_stems(c) for c in clauses(ctx.claim_tokens) if any(x is t for x in c)), ctx.claim_stems)
        part = {p for p in part if p not in META_WORDS and p != t.stem} or part  # what is said, not "finds" or "every"
        near = _near_words(claim, i)
        if key in _VERB_KEYS and i and claim[i - 1].lower in _MODALS:
            continue  # "questions that exactly one model can solve": what may be done, not a claim that it is
        if any(
            any(_strong_key(a) == key or a.stem in _AS_STRONG.get(key, ()) or a.stem in _AS_STRONG_NEAR.get(key, ()) for a in toks)
            and (_covered(part, content_stems(toks)) >= ctx.policy.overclaim_sentence_coverage * len(part)
                 or _covered(near, content_stems(toks)) >= ctx.policy.overclaim_near_coverage * len(near))
            for toks in ctx.sentence_tokens
        ):  # fmt: skip
            continue  # as strongly said in another sentence that says much of the claim, or of the words around it
        if _same_phrase(claim, i, abstract, key):
            continue  # the abstract's own phrase: "approximation guarantees", "fully connected"
        if key in evidence_stems:
            continue
        if key == "prove":
            hedges = [h for h in hedges if h.stem in _EPISTEMIC]
            if not hedges and evidence_stems & _FORMAL_RESULT:
                continue  # "proves bounds" for "we derive / establish / rigorously show": a formal result
            if not hedges and evidence_stems & _SHOW_WORDS and _theoretical(ctx.abstract_tokens, ctx.evidence_tokens):
                continue  # "we show that every operator can be approximated" in an abstract that proves things
        if hedges:
            return f"the claim says '{t.text}' but the abstract only says '{hedges[0].text}': {quote_text(ctx.evidence_texts[0])}"
        return f"the abstract does not say '{t.text}'"
    return None
