"""Clauses and negation: the parts of a sentence that the polarity, attribution, direction, swap and overclaim checks
compare one by one, and whether each part is negated. Pure text.

``clauses`` splits at punctuation and contrastive words ("but", "while", "however"); a negated part starts a clause
of its own: "without X", "unlike X" / "in contrast to X" (up to where the main clause starts), "rather than X",
"instead of X", "replaces X with Y" (X is denied), "X-free" (read as "without X"), "has yet to" (read as "not").
A negated part ends at "and" / "or" when a new predicate starts ("without labels and consistently outperforms"),
and at its means ("without labels by combining X"). ``is_negated`` counts negations, so "not ... without" cancel,
while "no A and no B" is one.

Cannot tell: a negation word used as an adjective beyond the listed ones ("failed parents", "missing modalities");
"and" followed by a plural noun that looks like a finite verb (rare) starts a predicate.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rag.verify_comparatives import TRENDS, VERB_PREFIXES
from rag.verify_entities import looks_like_name
from rag.verify_scope import AUXILIARY_VERBS
from rag.verify_tokens import Token, is_content, make_token, stem

NEGATION = {"not", "no", "never", "none", "nor", "neither", "nothing", "cannot", "unable", "fail", "fails",
             "unavailable", "missing", "impossible", "infeasible", "inaccessible", "nonexistent", "unattainable",
             "failed", "failing", "lack", "lacks", "lacking", "absent", "without", "hardly", "barely", "avoid",
             "avoids", "avoiding", "avoided", "freedom", "free", "prevent", "prevents", "preventing", "prevented",
             "preclude", "precludes", "precluding", "precluded", "inability", "incapable", "skip", "skips",
             "skipping", "skipped", "bypass", "bypasses", "bypassing", "bypassed"}  # fmt: skip
_BOUNDARY_WORDS = {"but", "while", "whereas", "although", "though", "yet", "however", "despite"}
# "improves X without increasing Y", "unlike existing works that rely on Z, we...": that part alone is negated
_NEGATED_BOUNDARY = {"without", "unlike"}
# A "without" part ends where the means of the sentence start: "adapts models without labels by combining X".
_MEANS = {"by", "via", "through", "using", "thereby", "thus"}


def _is_negation(token: Token) -> bool:
    return token.lower in NEGATION or token.lower.endswith("n't")


def clauses(tokens: Sequence[Token]) -> tuple[tuple[Token, ...], ...]:
    """Split at punctuation and contrastive words; "without" starts a clause of its own."""
    return _clauses(tuple(tokens))


@lru_cache(maxsize=50_000)
def _clauses(tokens: tuple[Token, ...]) -> tuple[tuple[Token, ...], ...]:
    out: list[list[Token]] = [[]]
    unlike = False  # inside "Unlike existing works that rely on X, such as Y, to do Z, we ...": one negated part
    skip = attached = 0
    replacing = ""  # the word that ends the replaced part ("with" after "replaces X")
    for i, t in enumerate(tokens):
        if skip:
            skip -= 1
            continue
        after = tokens[i + 1].lower if i + 1 < len(tokens) else ""
        before = tokens[i - 1] if i > 0 else None
        if t.lower in ("in", "as") and tuple(x.lower for x in tokens[i : i + 3]) in _UNLIKE_PHRASES:
            # "In contrast to X, ..." says what "Unlike X, ..." says
            unlike, skip = True, 2
            out.append([make_token("not", "not", "not", t.start, t.end)])
            continue
        if t.lower == "yet" and after == "to":  # "has yet to produce" = has not produced
            out[-1].append(make_token("not", "not", "not", t.start, t.end))
            continue
        if t.lower == "yet" and before is not None and not before.is_punct and before.lower not in ("and", "but"):
            continue  # "has not yet produced": an adverb, not "..., yet ..."
        if unlike and (t.lower in _OWN_START or (before is not None and before.text == "," and _starts_main(t))):
            unlike = False
            out.append([])
        if unlike and t.is_punct:
            continue
        if replacing and t.lower == replacing:
            replacing = ""  # "replaces X with Y": Y is what the paper does
            out.append([])
            continue
        link = _REPLACE.get(t.lower)
        if link and after not in ("by", "with", "for") and any(x.lower == link for x in tokens[i + 2 : i + 12]):
            replacing = link  # "replaces X with Y", "swaps X for Y" say "instead of X, Y": X is denied
            out.append([make_token(t.text, "not", "not", t.start, t.end)])  # written as the verb, read as "not"
            continue
        if t.text == "(" and before is not None and before.end == t.start and not before.is_punct:
            attached += 1  # "g(T)", "f(x)": notation, not a parenthesis between clauses
            continue
        if t.text == ")" and attached:
            attached -= 1
            continue
        if t.is_punct or t.lower in _BOUNDARY_WORDS:
            out.append([])
            continue
        if t.lower in _CONDITION_STARTS and after in ("no", "not", "none", "nothing"):
            out.append([])  # "a score for judging samples when no reference exists": the condition is a part
            continue
        if t.lower in ("and", "or") and after in ("no", "not", "never", "without") and out[-1] and not is_negated(out[-1]):
            out.append([])  # "needs one model and no shadow models": only the part after "and" is negated
            continue
        if t.lower in ("and", "or") and out[-1] and is_negated(out[-1]) and _starts_predicate(tokens, i + 1):
            # "without labels and consistently outperforms X", "needs no labels and relies on Y": the negated part
            # ends at "and"
            out.append([])
            continue
        free = _free_parts(t)
        if free:  # "a training-free rule" = a rule without training
            out.append([make_token("without", "without", "without", t.start, t.end), *free])
            out.append([])
            continue
        if t.lower in _MEANS and out[-1] and out[-1][0].lower == "without" and any(is_content(x) for x in out[-1][1:]):
            # "without labels by combining X": the means are said positively ("without using X" stays negated)
            out.append([t])
            continue
        if t.lower == "no" and before is not None and before.lower == "with" and out[-1] and out[-1][-1] is before:
            # "improves X even with no new data": a condition, like "without new data", not a denial of X
            out[-1] = out[-1][:-1]
            out.append([make_token("without", "without", "without", before.start, t.end)])
            continue
        rather = t.lower == "than" and i > 0 and tokens[i - 1].lower == "rather"
        instead = t.lower == "of" and i > 0 and tokens[i - 1].lower == "instead"
        if t.lower in _NEGATED_BOUNDARY or rather or instead:
            unlike = t.lower == "unlike"
            if rather or instead:
                out[-1] = out[-1][:-1]
            negation = t if t.lower == "without" else make_token("not", "not", "not", t.start, t.end)
            out.append([negation])
            continue
        out[-1].append(t)
    return tuple(tuple(c) for c in out if any(is_content(t) for t in c))


# Words that start a second predicate after "and" ("... without labels and is faster", "and also improves").
_AUXILIARIES = AUXILIARY_VERBS | {"remains", "remain", "becomes", "become"}
# Verbs of results and methods in the third person, which start a predicate after "and" (rarely a plural noun).
_FINITE_VERBS = {"relies", "requires", "achieves", "yields", "attains", "enables", "provides", "remains", "keeps",
                 "preserves", "retains", "generalizes", "generalises", "scales", "learns", "produces", "reaches",
                 "delivers", "maintains", "matches", "allows", "offers", "operates", "converges", "recovers",
                 "identifies", "predicts", "captures", "handles", "adapts", "depends", "performs", "obtains",
                 "exhibits", "shows", "demonstrates", "leads", "leverages", "exploits", "employs", "applies"}  # fmt: skip
_ADVERBS = {"also", "still", "further", "then", "thus", "thereby", "even", "often", "always", "again"}


def _is_adverb_word(token: Token) -> bool:
    return token.lower in _ADVERBS or (token.lower.endswith("ly") and len(token.lower) > 4 and token.lower.isalpha())


def _starts_predicate(tokens: Sequence[Token], j: int) -> bool:
    """Whether the words from ``j`` (after an "and"/"or") start a new predicate rather than continue a noun phrase:
    an auxiliary or modal ("and is", "and can"), an adverb before the next word ("and consistently outperforms"),
    or a comparison or change verb in its finite form ("and outperforms", "and reduces")."""
    if j >= len(tokens):
        return False
    t = tokens[j]
    if t.lower in _AUXILIARIES:
        return True
    if _is_adverb_word(t):
        return j + 1 < len(tokens) and not tokens[j + 1].is_punct and not looks_like_name(tokens[j + 1], first=False)
    if not t.lower.endswith("s") or t.lower.endswith("ss"):
        return False
    return t.lower in _FINITE_VERBS or t.stem.startswith(VERB_PREFIXES) or any(t.stem.startswith(k) for k in TRENDS if len(k) >= 4)


_CONDITION_STARTS = {"when", "where", "whenever", "if", "once"}
_FAIL = {"fail", "fails", "failed", "failing"}
# Verbs that deny their first object in favour of a second, and the word before the second.
_REPLACE = {"replace": "with", "replaces": "with", "replacing": "with", "substitute": "with", "substitutes": "with",
            "swap": "for", "swaps": "for", "swapping": "for", "trade": "for", "trades": "for", "exchange": "for",
            "exchanges": "for"}  # fmt: skip
_UNLIKE_PHRASES = {("in", "contrast", "to"), ("as", "opposed", "to"), ("in", "contrast", "with")}
# After "Unlike X, " the main clause starts with its subject: a pronoun or determiner, or a name ("ZedNet does ...").
_SUBJECT_START = {"it", "its", "they", "their", "the", "these", "those", "each", "both", "all", "every", "a", "an",
                  "one"}  # fmt: skip


def _starts_main(token: Token) -> bool:
    """Whether a word after a comma in an "Unlike X, ..." sentence starts the main clause (its subject): a pronoun or
    determiner, or a name ("Unlike prior work, ZedNet needs no labels"); not "such as", "to", "that" of the X part."""
    if token.is_punct:
        return False
    if token.lower in _SUBJECT_START:
        return True
    return looks_like_name(token, first=False)


def _free_parts(token: Token) -> tuple[Token, ...]:
    """'shadow-model-free' -> the words it is free of ('shadow', 'model'), each as a token."""
    if not token.lower.endswith("-free") or token.lower.count("-") > 3:
        return ()
    words = token.lower[: -len("-free")].split("-")
    if not all(w.isalpha() for w in words) or len(words[-1]) < 3:
        return ()
    out, at = [], token.start
    for w in words:
        out.append(make_token(w, w, stem(w), at, at + len(w)))
        at += len(w) + 1
    return tuple(out)


def _negates(clause: Sequence[Token], i: int) -> bool:
    """Whether the i-th word negates its clause: not "whether ... or not", "yes/no", or "failed" as an adjective
    ("descendants of failed parents"); "fail" negates only as "fail(s/ed) to"."""
    t = clause[i]
    if not _is_negation(t):
        return False
    before = clause[i - 1].lower if i > 0 else ""
    if t.lower == "not" and before == "or":
        return False
    if t.lower == "no" and before == "yes":
        return False
    after = clause[i + 1].lower if i + 1 < len(clause) else ""
    if t.lower in _FAIL:
        return after == "to"
    if t.lower in ("free", "freedom"):  # "freedom from having to augment the data"; not "free energy"
        return after == "from"
    # "missing modalities", "absent labels": a kind of input, not a denial ("X is missing")
    return not (t.lower in ("missing", "absent") and i + 1 < len(clause) and clause[i + 1].content)


_COORDINATORS = {"and", "or", "nor", ","}


def is_negated(clause: Sequence[Token]) -> bool:
    """An odd number of negations ("not ... without" cancel). A negation right after "and" / "or" / "nor" that
    follows another one repeats it for the next item ("no A and no B", "neither A nor B") and does not cancel it."""
    return _is_negated(tuple(clause))


@lru_cache(maxsize=50_000)  # an abstract's clauses are asked again for every claim checked against it
def _is_negated(clause: tuple[Token, ...]) -> bool:
    count, seen = 0, False
    for i in range(len(clause)):
        if not _negates(clause, i):
            continue
        if not (seen and i > 0 and clause[i - 1].lower in _COORDINATORS):
            count += 1
        seen = True
    return count % 2 == 1


# Where the paper's own part of a sentence starts again.
_OWN_START = {"we", "our", "this", "here", "but", "whereas", "instead", "yet", "contrast"}


_UNLIKE_WORDS = {"unlike", "in", "as"}  # how the negated part of "Unlike X, ..." / "In contrast to X, ..." starts


def _free_of(token: Token) -> Token | None:
    """'calibration-free' -> the word it is free of ('calibration'); not 'free' alone or 'sugar-free'-like names.
    Of 'shadow-model-free', the last word ('model'; `_free_parts` gives them all)."""
    parts = _free_parts(token)
    return parts[-1] if parts else None


# A claim part starting with one of these before a comma is a setting ("In the extrapolative regime, ...").
FRAGMENT_START = {"in", "on", "for", "across", "under", "at", "during", "from", "over", "within", "among", "after",
                   "before", "beyond", "throughout", "compared"}  # fmt: skip
