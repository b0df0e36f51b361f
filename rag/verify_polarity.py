"""The polarity check: the claim does not say the opposite of the abstract. Pure text; clauses and negation come
from rag/verify_clauses.py.

Catches, one clause of the claim against the clause of the abstract that says most of it: a negation the other
side lacks ("does not require X" / "requires X"), also written with a prefix ("unmentioned" for "not mentioned"),
as "fails to", "has yet to", "without", "X-free", or with a listed opposite ("stable" / "brittle"); "only if Y"
where the abstract says it holds even without Y; a negated part of the abstract ("without increasing memory")
that the claim states positively; "with labels" / "requires labels" where the paper goes without them, or a claim
that does what the paper goes without ("a training-free strategy" against "a module trained to ..."); a word of
the claim whose opposite (un-/non-/in- prefix or listed) the evidence uses instead.

Does not count as the opposite: what the abstract says of other work, against a claim about the paper; a setting
("In the low-data regime, ..."); "replaces X with Y" (X is done elsewhere); "not only X", "rather than X alone";
"without altering X" against "keeps X"; "we trace the failure of X" against "X cannot"; two opposites that cancel
("unlikely to change" for "likely to preserve"); "less robust" / "not robust" for "non-robust" / "brittle".
Cannot catch: opposites outside the short list (WordNet's antonym pairs are not installable offline here);
negation carried by a quantifier ("no customer demands more than ..."); "only when X is known" against "without
knowledge of X" (different words); a contradiction of a sentence that refers to the thing by a pronoun; a
contradiction from a sentence the claim does not restate unless the two share at least
``polarity_elsewhere_min_shared`` words.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rag.verify_attribution import _CLAIM_PRIOR, _PRIOR_MARKERS, _prior_spans
from rag.verify_clauses import (
    _REPLACE,
    _UNLIKE_WORDS,
    FRAGMENT_START,
    NEGATION,
    _free_of,
    _is_negation,
    _negates,
    clauses,
    is_negated,
)
from rag.verify_tokens import (
    CheckContext,
    Token,
    content_stems,
    derived_from_any,
    is_content,
    quote_text,
    sentence_of,
    sentence_with,
    stem,
    stems_of,
)

_NEG_PREFIXES = ("un", "non", "in", "im", "ir", "il", "dis", "a")


@lru_cache(maxsize=50_000)  # pure; asked for every pair of a claim's and its evidence's words
def _prefix_antonym(a: str, b: str) -> bool:
    """'stable'/'unstable', 'convex'/'non-convex', 'effective'/'ineffective'."""
    for shorter, longer in ((a, b), (b, a)):
        if len(shorter) < 4:
            continue
        for prefix in _NEG_PREFIXES:
            hyphened = prefix in ("non", "un") and longer == f"{prefix}-{shorter}"  # "in-silico" is no negation
            if longer == prefix + shorter or hyphened:
                return True
            rest = longer[len(prefix) :].lstrip("-") if longer.startswith(prefix) else ""
            if prefix in ("non", "un") and len(rest) >= 6 and stem(rest) == stem(shorter):
                return True  # "identified" / "non-identifiable"
    return False


def _shared_words(clause: Sequence[Token], stems: frozenset[str] | set[str]) -> int:
    """How many words of ``clause`` (negations aside) ``stems`` has: a hyphenated word counts once, matched by
    itself or a part ("ancestry-dependent" is one word, not three)."""
    return sum(1 for keys in _word_keys(tuple(clause)) if any(s in stems for s in keys))


@lru_cache(maxsize=50_000)
def _word_keys(clause: tuple[Token, ...]) -> tuple[tuple[str, ...], ...]:
    """The stems of each content word of ``clause`` (one entry per distinct word, negations aside)."""
    seen: dict[str, tuple[str, ...]] = {}
    for t in clause:
        if t.content and t.lower not in NEGATION and t.stem not in seen:
            seen[t.stem] = tuple(stems_of(t))
    return tuple(seen.values())


def _negation_scope(clause: Sequence[Token]) -> set[str]:
    """Stems of the content words after the first negating word (whole words: "high-reward", not "reward"): what
    the clause denies ("requires one model and no shadow models" denies shadow models, not the one model)."""
    for i in range(len(clause)):
        if _negates(clause, i):
            before = {t.stem for t in clause[:i] if t.content}  # "one model and no shadow models": not "model"
            return {t.stem for t in clause[i + 1 :] if t.content and t.lower not in NEGATION} - before
    return set()


def _negation_concerns(claim_clause: Sequence[Token], clause: Sequence[Token]) -> bool:
    """The negation of whichever of the two parts is negated covers words the other part says: otherwise the two
    are about different things ("extends to deep networks" against "extends to deep networks and needs no shadow
    models")."""
    negated, other = (claim_clause, clause) if is_negated(claim_clause) else (clause, claim_clause)
    scope = _negation_scope(negated)
    return not scope or any(t.stem in scope for t in other if t.content)


def _best_clause(claim_clause: set[str], evidence: Sequence[list[Token]]) -> tuple[list[Token], int] | None:
    best, best_shared = None, 0
    for clause in evidence:
        shared = len(claim_clause & content_stems(clause))
        if shared > best_shared:
            best, best_shared = clause, shared
    return (best, best_shared) if best is not None else None


def _prefix_negates(claim_clause: Sequence[Token], abstract_clause: Sequence[Token]) -> bool:
    """The claim says with a prefix what the abstract says with "not": "unmentioned" for "not mentioned"."""
    words = {t.lower for t in abstract_clause}
    stems = {t.stem for t in abstract_clause if t.content}
    if not is_negated(abstract_clause):
        return False
    return any(
        t.lower.startswith(prefix) and ((rest := t.lower[len(prefix) :].lstrip("-")) in words
                                        or (len(rest) >= 6 and stem(rest) in stems)  # "non-identifiable": "identified"
                                        or derived_from_any(stem(rest), stems))  # "unknown": "know"
        for t in claim_clause
        if len(t.lower) > 4
        for prefix in _NEG_PREFIXES
    )  # fmt: skip


_CHANGE = ("alter", "chang", "modifi", "affect", "compromis", "sacrific", "degrad", "hurt", "lose", "harm",
           "distort", "break", "destroy", "sacrif")  # fmt: skip
_KEEP = {stem(w) for w in "same preserve preserves maintain maintains keep keeps retain retains unchanged intact "
         "identical equal".split()}  # fmt: skip


def _kept(claim_clause: Sequence[Token], abstract_clause: Sequence[Token]) -> bool:
    """'without altering X' says X is kept: it agrees with a claim that X stays the same / is preserved."""
    words = [t for t in abstract_clause if not t.is_punct]
    changed = len(words) > 1 and words[0].lower == "without" and words[1].stem.startswith(_CHANGE)
    return changed and any(t.stem in _KEEP for t in claim_clause)


_ONLY_IF = (("unless",), ("only", "when"), ("only", "if"), ("only", "with"), ("only", "after"), ("provided", "that"))
_LACKING = {"without", "no"}


def _condition_after(tokens: Sequence[Token], limit: int = 8) -> set[str]:
    """Stems of the content words after ``tokens`` start, to the next punctuation mark (at most ``limit``)."""
    out: set[str] = set()
    for t in tokens[:limit]:
        if t.is_punct:
            break
        if t.content and not _is_negation(t):
            out.update(stems_of(t))
    return out


def _only_if_contradicted(ctx: CheckContext) -> str | None:
    """"X does not improve unless Y" / "only when Y" where the abstract says X holds even without Y ("even with no
    Y"): the claim makes a condition of what the abstract says is not needed."""
    words = [t for t in ctx.claim_tokens if not t.is_punct or t.text in ",;:"]
    conditions = []
    for i in range(len(words)):
        for marker in _ONLY_IF:
            if tuple(w.lower for w in words[i : i + len(marker)]) == marker:
                conditions.append(_condition_after(words[i + len(marker) :]))
    if not conditions:
        return None
    for toks, text in zip(ctx.sentence_tokens, ctx.sentence_texts, strict=True):
        lacking = set()
        for k, t in enumerate(toks):
            if t.lower in _LACKING:
                lacking |= _condition_after(toks[k + 1 :], 4)
        for condition in conditions:
            if len(condition & lacking) >= ctx.policy.only_if_min_shared:
                return f"the abstract says it holds without {', '.join(sorted(condition & lacking))}: {quote_text(text)}"
    return None


# Nouns that say something does not work: "we trace the failure of X to Y" agrees with "X cannot do Y".
_FAILURE_NOUNS = {stem(w) for w in "failure failures inability limitation limitations shortcoming shortcomings "
                  "deficiency deficiencies".split()}  # fmt: skip


def _replaced_part(clause: Sequence[Token]) -> bool:
    """The clause is the X of "replaces X with Y"."""
    return clause[0].lower == "not" and clause[0].text.lower() in _REPLACE


# Words that make a negation deny exclusiveness, not the thing: "not only X", "rather than X alone".
_EXCLUSIVE = {"alone", "only", "solely", "merely", "just", "exclusively", "purely"}


def _denies_exclusiveness(clause: Sequence[Token]) -> bool:
    """The clause's negation is of "only"/"alone" ("not only X", "rather than X alone"): an exclusiveness word
    after its first negation."""
    first = next((i for i in range(len(clause)) if _negates(clause, i)), None)
    return first is not None and any(t.lower in _EXCLUSIVE for t in clause[first + 1 :])


def check_polarity(ctx: CheckContext) -> str | None:
    only_if = _only_if_contradicted(ctx)
    if only_if:
        return only_if
    evidence_clauses = [c for toks in ctx.evidence_tokens for c in clauses(toks)]
    if not evidence_clauses:
        return None
    abstract_clauses = [c for toks in ctx.sentence_tokens for c in clauses(toks)]
    in_evidence = {id(c) for c in evidence_clauses}
    # What the abstract says of other work ("existing methods require X") is no evidence against a claim about the
    # paper ("ZedCap does not require X"): a claim part that does not itself speak of other work skips it.
    prior = {id(t) for toks in ctx.sentence_tokens for span in _prior_spans(toks) for t in span}
    own_clauses = [c for c in abstract_clauses if not any(id(t) in prior for t in c)]
    abstract_stems = [content_stems(c) for c in abstract_clauses]  # once, not again for each part of the claim
    for claim_clause in clauses(ctx.claim_tokens):
        if claim_clause[0].lower in FRAGMENT_START:
            continue  # "In the low-data regime, ...": a setting, not a statement with a polarity
        if claim_clause[0].lower == "not" and ctx.claim[claim_clause[0].start : claim_clause[0].end].lower() in _UNLIKE_WORDS:
            continue  # "Unlike prior methods, whose cost grows with X, ...": what other work does, not a denial
        if _replaced_part(claim_clause):
            continue  # "swaps X for Y" presupposes that X is what is done elsewhere: the abstract saying so agrees
        if is_negated(claim_clause) and _denies_exclusiveness(claim_clause):
            continue  # "rather than X alone", "not only X": X is used, just not by itself
        stems = content_stems(claim_clause) - NEGATION
        about_prior = any(t.lower in _CLAIM_PRIOR or t.lower in _PRIOR_MARKERS for t in claim_clause)
        candidates = abstract_clauses if about_prior else own_clauses
        if not is_negated(claim_clause):  # "replaces X with Y" denies X only against a claim that denies something
            candidates = [c for c in candidates if not _replaced_part(c)]
        # The clause of the abstract that says most of this part of the claim (a summary may draw on a sentence
        # the alignment did not pick); several equally good ones: any with the claim's polarity will do.
        keys = _word_keys(tuple(claim_clause))
        in_all = {
            id(c): sum(1 for k in keys if any(x in stems_c for x in k))
            for c, stems_c in zip(abstract_clauses, abstract_stems, strict=True)
        }  # _shared_words of each clause
        shared = [in_all[id(c)] for c in candidates]
        best = max(shared, default=0)
        if best == 0 or (best < 2 and best < len(stems)):
            continue
        matches = [c for c, n in zip(candidates, shared, strict=True) if n == best]
        if best < ctx.policy.polarity_elsewhere_min_shared and not any(id(c) in in_evidence for c in matches):
            continue  # a contradiction from a sentence the claim does not restate needs more words in common
        agreeing = [c for c in abstract_clauses if in_all[id(c)] >= best]  # prior work's too
        if all(
            is_negated(claim_clause)
            != is_negated(c) ^ _prefix_negates(claim_clause, c) ^ _prefix_negates(c, claim_clause) ^ _opposed(claim_clause, c)
            and not _kept(claim_clause, c)
            and not (is_negated(claim_clause) and any(t.stem in _FAILURE_NOUNS for t in c))
            and _negation_concerns(claim_clause, c)
            for c in matches + agreeing
        ):
            return f"the abstract says the opposite: {quote_text(sentence_of(ctx, matches[0]))}"
    # A negated part of the abstract ("without increasing memory") that the claim states positively.
    claim_clauses = clauses(ctx.claim_tokens)
    claim_about_prior = any(t.lower in _CLAIM_PRIOR for t in ctx.claim_tokens)
    for clause in abstract_clauses if claim_about_prior else own_clauses:
        words = len(_word_keys(tuple(clause)))  # a hyphenated word counts once
        if not is_negated(clause) or words < 2:
            continue
        if _replaced_part(clause):
            continue  # "replaces random cropping with X" does not deny what the abstract says of random cropping
        needed = max(2, ctx.policy.negated_part_coverage * words)
        if any(
            not is_negated(c) and not _prefix_negates(c, clause) and _shared_words(clause, content_stems(c)) >= needed
            for c in claim_clauses
        ):
            return f"the abstract says the opposite: {quote_text(sentence_of(ctx, clause))}"
    # "with labels" where the evidence says "without labels" (a one-word negated part the clause match misses)
    about_prior = any(t.lower in _CLAIM_PRIOR for t in ctx.claim_tokens)
    positive = [c for c in clauses(ctx.claim_tokens) if not is_negated(c) and not about_prior]
    claim_with = {s for c in positive for w in _NEEDS for s in _after_word(c, w)}
    claim_without = _after_word(ctx.claim_tokens, "without") | {f.stem for t in ctx.claim_tokens if (f := _free_of(t))}
    for toks, text in zip(ctx.sentence_tokens, ctx.sentence_texts, strict=True):
        if any(id(t) in prior for t in toks):
            continue  # what other work goes without is not the paper's
        lacking = _after_word(toks, "without") | _after_word(toks, "no") | {f.stem for t in toks if (f := _free_of(t))}
        for w in sorted(lacking & claim_with - claim_without - _GENERIC_NEEDS):
            return f"the abstract says it is without {w}: {quote_text(text)}"
    own_positive = [c for c in clauses(ctx.claim_tokens) if not is_negated(c) and not any(t.lower in _PRIOR_MARKERS for t in c)]
    for toks, text in zip(ctx.evidence_tokens, ctx.evidence_texts, strict=True):
        # "a training-free strategy" against "a module trained to predict", "without real-world tuning data" against
        # "after tuning on real-world videos": the claim does what the paper goes without (a sentence that also
        # speaks of other work counts where the "without" is not in the part about other work)
        own = [t for t in toks if id(t) not in prior]
        free = {f.stem for t in own if (f := _free_of(t))}
        without = _after_word(own, "without") - _GENERIC_NEEDS
        for w in sorted((free | without) - claim_without - _GENERIC_NEEDS):
            for c in own_positive:
                done = any(t.stem == w and t.lower.endswith(("ed", "ing")) for t in c)  # "trained", "tuning"
                if done and (w in free or len(without & content_stems(c)) >= 2):  # "real-world" and "tuning"
                    return f"the abstract says it is without {w}: {quote_text(text)}"
    # Antonyms in the evidence: "stable" in the claim, only "unstable" (or "redundant" / "complementary") there
    claim_order = list(dict.fromkeys(t.lower for t in ctx.claim_tokens if is_content(t)))
    evidence_order = list(dict.fromkeys(t.lower for toks in ctx.evidence_tokens for t in toks if is_content(t)))
    claim_words, evidence_words = set(claim_order), set(evidence_order)
    if _double_flip(ctx, claim_words, evidence_words):
        return None
    # in the texts' order, so the reason given is the same on every run (a set's order changes with the hash seed)
    for word in (w for w in claim_order if w not in evidence_words):
        for other in (o for o in evidence_order if o not in claim_words):
            if _prefix_antonym(word, other) and not _said_negated(ctx, other) and not _lessened(ctx.claim_tokens, word):
                return f"the abstract says '{other}', not '{word}': {quote_text(sentence_with(ctx, other))}"
            if (
                _lexical_antonym(word, other, claim_words, evidence_words) and _same_role(ctx, word, other)
                and not _lessened(ctx.claim_tokens, word)  # "not robust" for "brittle"
            ):
                return f"the abstract says '{other}', not '{word}': {quote_text(sentence_with(ctx, other))}"
    return None


# Opposites without a negating prefix, general to scientific writing (words; compared by stem). WordNet's antonym
# pairs are not installable offline as a package here, and most of them are about everyday senses.
_ANTONYM_WORDS = (
    ("redundant", "complementary"), ("np-hard", "polynomial"), ("intractable", "polynomial"),
    ("necessary", "sufficient"), ("robust", "brittle"), ("robust", "fragile"), ("sparse", "dense"),
    ("local", "global"), ("explicit", "implicit"), ("static", "dynamic"), ("homogeneous", "heterogeneous"),
    ("overfitting", "underfitting"), ("optimistic", "pessimistic"), ("conservative", "aggressive"),
    ("coarse", "fine-grained"), ("shallow", "deep"), ("easy", "hard"), ("easy", "difficult"),
    ("cheap", "expensive"), ("cheap", "costly"), ("success", "failure"), ("succeeds", "fails"),
    ("strength", "weakness"), ("helps", "hurts"), ("benefits", "harms"), ("promotes", "suppresses"),
    ("promotes", "inhibits"), ("activates", "inhibits"), ("activates", "suppresses"), ("exact", "approximate"),
    ("enables", "prevents"), ("allows", "prevents"), ("facilitates", "hinders"), ("interpolation", "extrapolation"),
    ("forward", "backward"), ("top-down", "bottom-up"), ("lossless", "lossy"), ("centralized", "decentralized"),
    ("convex", "concave"), ("exploration", "exploitation"), ("overconfident", "underconfident"),
    ("overparameterized", "underparameterized"), ("generalist", "specialist"), ("simple", "complex"),
    ("rigid", "flexible"), ("expands", "shrinks"), ("novice", "expert"), ("negligible", "substantial"),
    ("negligible", "significant"), ("marginal", "substantial"), ("minor", "major"), ("benign", "harmful"),
    ("safe", "harmful"), ("aligned", "misaligned"), ("calibrated", "miscalibrated"), ("specified", "misspecified"),
    ("tight", "loose"), ("majority", "minority"), ("rare", "common"), ("rare", "frequent"), ("weak", "strong"),
    ("correlated", "anticorrelated"), ("agrees", "disagrees"), ("converges", "diverges"),
    ("convergence", "divergence"), ("stable", "chaotic"), ("accept", "reject"), ("include", "exclude"),
    ("preserve", "destroy"), ("preserves", "distorts"), ("overestimates", "underestimates"),
    ("similar", "distinct"), ("similar", "different"), ("mirror", "distinct"), ("resemble", "differ"),
    ("redundant", "orthogonal"), ("duplicates", "orthogonal"), ("duplicates", "complementary"), ("close", "far"),
    ("subtle", "conspicuous"), ("subtle", "obvious"), ("largest", "smallest"), ("highest", "lowest"),
    ("best", "worst"), ("confirms", "counter"), ("confirms", "contradicts"), ("rich", "limited"),
    ("abundant", "scarce"), ("abundant", "limited"), ("well", "poorly"), ("rewards", "penalizes"),
    ("encourages", "discourages"), ("encourages", "penalizes"), ("longer", "shorter"),
)  # fmt: skip


def _same_role(ctx: CheckContext, word: str, other: str) -> bool:
    """The claim's part with ``word`` and the evidence's part with ``other`` share at least two content words (the
    two words say opposite things about the same thing, not about two things)."""
    mine = [c for c in clauses(ctx.claim_tokens) if any(t.lower == word for t in c)]
    theirs = [c for toks in ctx.evidence_tokens for c in clauses(toks) if any(t.lower == other for t in c)]
    return any(len(content_stems(a) & content_stems(b)) >= 2 for a in mine for b in theirs)


def graded_forms(word: str) -> set[str]:
    """A word with its comparative form, as English builds it ('subtle' -> 'subtler', 'rich' -> 'richer', 'noisy' ->
    'noisier', 'big' -> 'bigger'). Forms no adjective takes ('promoteser') are never written, so building them for
    every word is harmless. (Superlatives are left out: 'the simplest setting' is no opposite of 'complex'.)"""
    if " " in word or "-" in word or len(word) < 3:
        return {word}
    if word.endswith("e"):
        bases = [word[:-1]]
    elif word.endswith("y") and word[-2] not in "aeiou":
        bases = [word[:-1] + "i"]
    elif len(word) <= 4 and word[-1] not in "aeiouwxy" and word[-2] in "aeiou" and word[-3] not in "aeiou":
        bases = [word + word[-1]]
    else:
        bases = [word]
    return {word} | {b + "er" for b in bases}


def _antonym_key(word: str) -> str:
    """The stem an opposite is looked up by; an adjective in -ly keeps it ('costly', not 'cost': "low costs" is
    not the opposite of "cheap")."""
    key = stem(word)
    return key + "ly" if word.endswith("ly") and not key.endswith(("li", "ly")) else key


@lru_cache(maxsize=1)
def _antonym_stems() -> dict[str, frozenset[str]]:
    """Listed opposites by stem, each also in its comparative form ('subtler' against 'more conspicuous')."""
    table: dict[str, set[str]] = {}
    for a, b in _ANTONYM_WORDS:
        sa = {_antonym_key(w) for w in graded_forms(a)}
        sb = {_antonym_key(w) for w in graded_forms(b)}
        for x in sa:
            table.setdefault(x, set()).update(sb)
        for y in sb:
            table.setdefault(y, set()).update(sa)
    return {k: frozenset(v) for k, v in table.items()}


def _double_flip(ctx: CheckContext, claim_words: set[str], evidence_words: set[str]) -> bool:
    """Two opposites that cancel: "unlikely to change the labels" for "likely to preserve the labels" (a change
    word for a keep word, or the other way round, right after an opposite of the evidence's word before it)."""
    words = [t for t in ctx.claim_tokens if not t.is_punct]
    for k, t in enumerate(words):
        changed = [o for o in evidence_words - claim_words
                   if (t.stem.startswith(_CHANGE) and stem(o) in _KEEP) or (t.stem in _KEEP and stem(o).startswith(_CHANGE))]  # fmt: skip
        if not changed or t.lower in evidence_words:
            continue
        for w in words[max(0, k - 3) : k]:
            if w.lower in claim_words - evidence_words and any(
                _prefix_antonym(w.lower, o) or _lexical_antonym(w.lower, o, claim_words, evidence_words)
                for o in evidence_words - claim_words
            ):
                return True
    return False


def _opposed(claim_clause: Sequence[Token], clause: Sequence[Token]) -> bool:
    """The claim's part uses a listed opposite of a word of the abstract's part that it does not use itself: "not
    robust" against "brittle", "unlikely to change" against "likely to preserve" say the same."""
    mine = {_antonym_key(t.lower) for t in claim_clause if t.content}
    theirs = {_antonym_key(t.lower) for t in clause if t.content}
    table = _antonym_stems()
    return any(table.get(w, frozenset()) & (theirs - mine) for w in mine - theirs)


def _lexical_antonym(word: str, other: str, claim_words: set[str], evidence_words: set[str]) -> bool:
    """``word`` (claim only) and ``other`` (evidence only) are listed opposites, and neither side also uses the
    other's word (a sentence saying "from short to long" says both)."""
    opposites = _antonym_stems().get(_antonym_key(word))
    if not opposites or _antonym_key(other) not in opposites:
        return False
    claim_stems = {_antonym_key(w) for w in claim_words}
    evidence_stems = {_antonym_key(w) for w in evidence_words}
    return _antonym_key(word) not in evidence_stems and _antonym_key(other) not in claim_stems


_LESSENING = {"less", "not", "no", "never", "hardly", "barely", "least"}


def _lessened(tokens: Sequence[Token], word: str) -> bool:
    """``word`` follows "less" / "not" / "cannot be" in the claim ("less robust" agrees with "non-robust")."""
    words = [t for t in tokens if not t.is_punct]
    return any(
        w.lower == word and any(x.lower in _LESSENING or _is_negation(x) for x in words[max(0, k - 3) : k])
        for k, w in enumerate(words)
    )


def _said_negated(ctx: CheckContext, word: str) -> bool:
    """``word`` stands in a negated part of the evidence ("not explicitly mentioned" agrees with "unmentioned")."""
    return any(is_negated(c) for toks in ctx.evidence_tokens for c in clauses(toks) if any(t.lower == word for t in c))


# Words too general to say what is needed ("no additional cost" against "requires additional labels").
_GENERIC_NEEDS = {stem(w) for w in "additional extra new explicit any further more extensive large".split()}
# Words after which a claim says something is needed or used ("requires labels", "relies on labels", "with labels").
_NEEDS = ("with", "requires", "require", "required", "requiring", "needs", "need", "needed", "uses", "use", "using",
          "relies", "rely", "relying", "depends", "depend")  # fmt: skip


def _after_word(tokens: Sequence[Token], word: str) -> set[str]:
    """Stems of the content words right after ``word`` ("with labels" -> {label}; "relies on labels" too)."""
    out = set()
    for k, t in enumerate(tokens[:-1]):
        if t.lower != word:
            continue
        taken = 0
        for nxt in tokens[k + 1 : k + 4]:  # "requires additional training": the next two content words
            if nxt.is_punct or _is_negation(nxt) or taken == 2:
                break
            if is_content(nxt):
                out.add(nxt.stem)
                taken += 1
    return out
