"""Crossed roles: the claim pairs two terms of the evidence with each other's words. Pure: no models, no I/O.

"A segments the text and B labels the parts" where the evidence says "B segments the text, then A labels the
parts": every word is the abstract's and in one sentence, so overlap, names and polarity all pass. What changed is
which words go with which term. Each word (or run of words written together in both) is bound to the nearer of two
terms, in the claim and in the evidence. When the evidence is the claim with A and B exchanged (the rest in the same
order) and the words bound to A in the claim are bound to B in the evidence (or the other way round), the two terms
have traded what is said of them.

Distances are counted in words; a punctuation mark or a contrast word ("while", "whereas") counts as several, and two
evidence sentences are far apart, so a word is bound to the term of its own part of the sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.text import _STOPWORDS, stem

_CONTRAST = {"while", "whereas", "but", "however", "although", "though", "yet", "then"}
_SENTENCE_GAP = 100.0


@dataclass(frozen=True, slots=True)
class Unit:
    """A run of shared words written together (in the same order) in the claim and the evidence."""

    words: tuple[str, ...]  # stems
    text: str  # as the claim writes it
    claim_at: tuple[float, ...]  # positions of its words in the claim
    evidence_at: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Crossing:
    first: str  # the claim's words of the two terms
    second: str
    crossed_words: int  # words bound the other way round in the evidence
    agreeing_words: int


def _key(stem: str) -> str:
    """One key for a verb and its noun where the stemmer leaves a trailing vowel ('amplifi' / 'amplif')."""
    return stem.rstrip("ie") if len(stem) > 5 else stem


def _positions(tokens: Sequence, punct_weight: float, start: float = 0.0) -> list[tuple[str, float]]:
    """(stem, position) of each content word; punctuation and contrast words push what follows further away."""
    out, at = [], start
    for t in tokens:
        if t.is_punct or t.lower in _CONTRAST:
            at += punct_weight
            continue
        at += 1.0
        if t.content and t.lower not in _STOPWORDS:
            out.append((_key(t.stem), at))
    return out


def _units(claim: list[tuple[str, float]], evidence: list[tuple[str, float]], texts: dict[str, str]) -> list[Unit]:
    """Words that occur once in the claim and once in the evidence, joined into runs that are consecutive in both."""
    count_c: dict[str, int] = {}
    count_e: dict[str, int] = {}
    for s, _ in claim:
        count_c[s] = count_c.get(s, 0) + 1
    for s, _ in evidence:
        count_e[s] = count_e.get(s, 0) + 1
    ev_index = {s: k for k, (s, _) in enumerate(evidence)}
    units: list[list[tuple[str, float, float, int]]] = []
    prev_ci, prev_ei, prev_c_at, prev_e_at = -2, -2, -9.0, -9.0
    for ci, (s, c_at) in enumerate(claim):
        if count_c[s] != 1 or count_e.get(s) != 1:
            prev_ci = -2
            continue
        ei = ev_index[s]
        if units and ci == prev_ci + 1 and ei == prev_ei + 1 and c_at == prev_c_at + 1 and evidence[ei][1] == prev_e_at + 1:
            units[-1].append((s, c_at, evidence[ei][1], ei))
        else:
            units.append([(s, c_at, evidence[ei][1], ei)])
        prev_ci, prev_ei, prev_c_at, prev_e_at = ci, ei, c_at, evidence[ei][1]
    return [
        Unit(tuple(w[0] for w in u), " ".join(texts.get(w[0], w[0]) for w in u), tuple(w[1] for w in u), tuple(w[2] for w in u))
        for u in units
    ]


def _distance(a: Sequence[float], b: Sequence[float]) -> float:
    return min(abs(x - y) for x in a for y in b)


def _side(unit_at: Sequence[float], a_at: Sequence[float], b_at: Sequence[float]) -> int:
    """0 when nearer to a, 1 when nearer to b, -1 on a tie."""
    da, db = _distance(unit_at, a_at), _distance(unit_at, b_at)
    return -1 if da == db else (0 if da < db else 1)


_MEASURE_WORDS = {"point", "percent", "percentag", "pp", "x", "time", "fold", "%"}


def _is_measure(stem: str) -> bool:
    """A number or the unit of one ("12", "point", "percent")."""
    return stem[:1].isdigit() or stem in _MEASURE_WORDS


def _transposed(units: Sequence[Unit], a: Unit, b: Unit) -> bool:
    """The evidence has ``a`` and ``b`` (in one sentence, with shared words between them) in the other order, and
    every unit from ``a`` on in the claim's order, also relative to them: from there, the claim is the evidence with
    the two terms exchanged. (What comes before ``a`` may be a name the claim puts first.) A phrase moved to the
    front ("under X, A does Y" for "A does Y under X") is not an exchange: what lies between moves too."""
    if a.evidence_at[0] < b.evidence_at[0]:
        return False  # the claim lists units in its own order, so a comes first there
    if abs(a.evidence_at[0] - b.evidence_at[0]) >= _SENTENCE_GAP / 2:
        return False  # two sentences: a claim combining them may take their parts in any order
    between = units[units.index(a) + 1 : units.index(b)]
    if sum(1 for u in between for w in u.words if not _is_measure(w)) < 2:
        return False  # "A is combined with B" says the same as "B is combined with A"; "A beats B by 12 points on
        # M" the same as "A improves M by 12 points over B" (only an amount lies between)
    swapped = {id(a): b.evidence_at[0], id(b): a.evidence_at[0]}
    order = [swapped.get(id(u), u.evidence_at[0]) for u in units[units.index(a) :]]
    return all(x < y for x, y in zip(order, order[1:], strict=False))


def crossed_roles(
    claim_tokens: Sequence,
    evidence_tokens: Sequence[Sequence],
    *,
    min_crossed_words: int = 3,
    punct_weight: float = 3.0,
    settings: frozenset[str] = frozenset(),
) -> Crossing | None:
    """Two terms of the claim that the evidence has the other way round (see the module's docstring): from the first
    term on, the evidence is the claim with the two terms exchanged (every other shared run in the same order), at
    least ``min_crossed_words`` words are bound to the other term in the evidence than in the claim, and more words
    cross than stay with their term. A unit with a word of ``settings`` (stems of a fronted phrase such as "At equal
    compute, ...", where a restatement may move a setting to either end) is not taken for one of the two terms."""
    claim = _positions(claim_tokens, punct_weight)
    evidence: list[tuple[str, float]] = []
    for k, toks in enumerate(evidence_tokens):
        evidence += _positions(toks, punct_weight, start=k * _SENTENCE_GAP)
    texts = {_key(t.stem): t.text for t in claim_tokens if not t.is_punct}
    units = _units(claim, evidence, texts)
    if len(units) < 4:
        return None
    best: Crossing | None = None
    terms = [u for u in units if not set(u.words) & settings]
    for i, a in enumerate(terms):
        for b in terms[i + 1 :]:
            if not _transposed(units, a, b):
                continue
            crossed = {0: 0, 1: 0}
            agree = 0
            for u in units:
                if u is a or u is b:
                    continue
                mine = _side(u.claim_at, a.claim_at, b.claim_at)
                theirs = _side(u.evidence_at, a.evidence_at, b.evidence_at)
                if mine < 0 or theirs < 0:
                    continue
                if mine == theirs:
                    agree += len(u.words)
                else:
                    crossed[mine] += len(u.words)
            total = crossed[0] + crossed[1]
            if total < min_crossed_words or total <= agree:
                continue
            if best is None or total - agree > best.crossed_words - best.agreeing_words:
                best = Crossing(a.text, b.text, total, agree)
    return best


# --------------------------------------------------------------------------------------------------------------
# Crossed parts: "A holds across X, but fails across Y" where the abstract says "A holds across Y, but fails across X"

_PART_BREAKS = {"while", "whereas", "but", "although", "though", "yet", "however", ";", ":"}


def contrast_parts(tokens: Sequence) -> list[tuple]:
    """The parts of a sentence between contrast words, ';' and ':' (and ', and' / ', while'), empty ones dropped."""
    parts: list[list] = [[]]
    for i, t in enumerate(tokens):
        after_comma = t.lower == "and" and i > 0 and tokens[i - 1].text == ","
        if t.lower in _PART_BREAKS or t.text in (";", ":") or after_comma:
            parts.append([])
            continue
        parts[-1].append(t)
    return [tuple(p) for p in parts if any(t.content for t in p)]


def _part_keys(part: Sequence) -> frozenset[str]:
    return frozenset(_key(t.stem) for t in part if t.content and t.lower not in _STOPWORDS)


@dataclass(frozen=True, slots=True)
class CrossedParts:
    evidence: tuple[int, int]  # indexes of the two evidence parts (in the order given)
    crossed: tuple[str, ...]  # claim words that belong to the other part of the evidence
    kept: tuple[str, ...]


def crossed_parts(claim_tokens: Sequence, evidence_parts: Sequence[Sequence], min_words: int,
                  min_coverage: float) -> CrossedParts | None:  # fmt: skip
    """Two parts of the claim that each mix what two parts of the abstract say ("stable across A, but degrades
    across B" for "stable across B, but degrades across A"): for the two evidence parts that cover the claim best,
    each claim part keeps some words only its own evidence part has and takes some only the other one has, at least
    ``min_words`` of each in all. A restatement takes each of its parts from one part of the abstract."""
    parts = contrast_parts(claim_tokens)
    if len(parts) != 2:
        return None
    c1, c2 = (_part_keys(p) for p in parts)
    claim = c1 | c2
    c1, c2 = c1 - c2, c2 - c1  # a word both parts use tells them apart in neither
    if len(c1) < 2 or len(c2) < 2:
        return None
    keys = [_part_keys(p) for p in evidence_parts]
    best: tuple[float, int, CrossedParts | None] = (0.0, 0, None)
    for a in range(len(keys)):
        for b in range(a + 1, len(keys)):
            coverage = len(claim & (keys[a] | keys[b])) / len(claim)
            if coverage < min_coverage or coverage < best[0]:
                continue
            only_a, only_b = keys[a] - keys[b], keys[b] - keys[a]
            # the orientation that keeps most words with their own part
            kept1, kept2 = c1 & only_a, c2 & only_b
            cross1, cross2 = c1 & only_b, c2 & only_a
            if len(kept1) + len(kept2) < len(c1 & only_b) + len(c2 & only_a):
                kept1, kept2, cross1, cross2 = cross1, cross2, kept1, kept2
            straight = len(kept1) + len(kept2)
            crossed = len(cross1) + len(cross2)
            found = None
            if kept1 and kept2 and cross1 and cross2 and min(straight, crossed) >= min_words:
                found = CrossedParts((a, b), tuple(sorted(cross1 | cross2)), tuple(sorted(kept1 | kept2)))
            if coverage > best[0] or (coverage == best[0] and found is None):
                best = (coverage, crossed, found)
    return best[2]


# --------------------------------------------------------------------------------------------------------------
# Exchanged slot fillers: "on A under the pixel pipeline and on B under the latent one" said with the two settings
# exchanged. The claim keeps every word of the evidence in its order except two terms, and each of the two stands
# where the evidence has the other one, between the same words (the same frame: "under the _ pipeline").

_WEAK_FRAME = {"a", "an", "the", "and", "or", "of", ",", ".", ":", ";", "(", ")"}
_LIST_WORDS = {"and", "or", "nor", "both", "either", "as", "well", "versus", "vs", "respectively", "the", "a", "an"}
_EDGE = "^"  # before the first word / after the last one


_SLOT_WORDS = {"on", "in", "under", "for", "with", "from", "to", "at", "by", "over", "via", "than", "while", "whereas"}


def _listed(between: Sequence[str]) -> bool:
    """The words between two terms make them items of one list: only 'and', 'or' and commas, or those and at most
    two other items ("speech, music and ambient sound"), but no word that opens another slot ("under", "than")."""
    others = [w for w in between if w not in _LIST_WORDS and w.isalnum()]
    linked = any(w in ("and", "or", ",") for w in between)
    return not others or (linked and len(others) <= 2 and not set(others) & _SLOT_WORDS)


def _compound(tokens: Sequence, placed: Sequence[tuple[str, float]], lo: float, hi: float) -> bool:
    """Only content words (no function word, no punctuation) lie between two terms of the claim: one compound."""
    between = [t for t, (_, at) in zip(tokens, placed, strict=True) if lo < at < hi]
    return all(t.content and not t.is_punct for t in between)


@dataclass(frozen=True, slots=True)
class Exchange:
    first: str  # the claim's words of the two exchanged terms, in the claim's order
    second: str
    in_order_before: int  # shared words in the evidence's order, as the claim stands
    in_order_after: int  # ... with the two terms exchanged
    shared: int  # shared words in all


@dataclass(frozen=True, slots=True)
class _Run:
    """A term: one or more units that follow each other in both texts."""

    text: str
    claim_at: tuple[float, ...]
    evidence_at: tuple[float, ...]
    size: int


def _longest_in_order(items: Sequence[tuple[float, int]]) -> int:
    """The most words of (position, words) items, taken in the given order, whose positions increase."""
    best: list[int] = []
    for i, (at, n) in enumerate(items):
        best.append(n + max((best[j] for j in range(i) if items[j][0] < at), default=0))
    return max(best, default=0)


def _runs(units: Sequence[Unit]) -> list[_Run]:
    """Consecutive units of the claim that are also next to each other among the evidence's units, joined."""
    rank = {at: k for k, at in enumerate(sorted(u.evidence_at[0] for u in units))}
    runs: list[_Run] = []
    last = -2
    for u in units:
        k = rank[u.evidence_at[0]]
        if runs and k == last + 1:
            r = runs[-1]
            runs[-1] = _Run(f"{r.text} {u.text}", r.claim_at + u.claim_at, r.evidence_at + u.evidence_at, r.size + len(u.words))
        else:
            runs.append(_Run(u.text, u.claim_at, u.evidence_at, len(u.words)))
        last = k
    return runs


def _placed(tokens: Sequence, punct_weight: float, start: float = 0.0) -> list[tuple[str, float]]:
    """(lower-case word, position) of every token, on the same scale as _positions."""
    out, at = [], start
    for t in tokens:
        at += punct_weight if t.is_punct or t.lower in _CONTRAST else 1.0
        out.append((t.lower, at))
    return out


def _frame(placed: Sequence[tuple[str, float]], first: float, last: float) -> tuple[str, str, str, str] | None:
    """The two words before a term and the two after it (_EDGE beyond the text)."""
    i = next((k for k, (_, at) in enumerate(placed) if at == first), None)
    j = next((k for k, (_, at) in reversed(list(enumerate(placed))) if at == last), None)
    if i is None or j is None:
        return None

    def word(k: int) -> str:
        return placed[k][0] if 0 <= k < len(placed) else _EDGE

    return word(i - 2), word(i - 1), word(j + 1), word(j + 2)


def _same_frame(mine: tuple[str, str, str, str], theirs: tuple[str, str, str, str]) -> bool:
    """The term stands between the same words: the word next to it on one side matches, and is a telling word
    ('under', 'pipeline') or the next word out matches too (", the")."""
    for near, far in ((1, 0), (2, 3)):
        if mine[near] == theirs[near] != _EDGE and (
            mine[near] not in _WEAK_FRAME or mine[far] == theirs[far] != _EDGE
        ):
            return True
    return False


def exchanged_terms(
    claim_tokens: Sequence,
    evidence_tokens: Sequence[Sequence],
    *,
    min_gain: int = 2,
    min_share: float = 0.75,
    punct_weight: float = 3.0,
) -> Exchange | None:
    """Two terms of the evidence put in each other's place: exchanging them back puts at least ``min_gain`` more
    shared words in the evidence's order, and then at least ``min_share`` of all shared words are; each term stands
    in the claim between the words that surround the other in the evidence; and the two are not items of one list
    in the evidence ("A and B", which may be given in any order)."""
    claim = _positions(claim_tokens, punct_weight)
    evidence: list[tuple[str, float]] = []
    placed: list[tuple[str, float]] = []
    for k, toks in enumerate(evidence_tokens):
        evidence += _positions(toks, punct_weight, start=k * _SENTENCE_GAP)
        placed += _placed(toks, punct_weight, start=k * _SENTENCE_GAP)
    texts = {_key(t.stem): t.text for t in claim_tokens if not t.is_punct}
    units = _units(claim, evidence, texts)
    if len(units) < 3:
        return None
    claim_placed = _placed(claim_tokens, punct_weight)
    best: Exchange | None = None
    singles = [_Run(u.text, u.claim_at, u.evidence_at, len(u.words)) for u in units]
    for runs in (_runs(units), singles):
        items = [(r.evidence_at[0], r.size) for r in runs]
        before, shared = _longest_in_order(items), sum(n for _, n in items)
        for i, a in enumerate(runs):
            for j in range(i + 1, len(runs)):
                b = runs[j]
                if a.evidence_at[0] < b.evidence_at[0]:
                    continue  # already in the evidence's order
                back = list(items)
                back[i], back[j] = (b.evidence_at[0], a.size), (a.evidence_at[0], b.size)
                after = _longest_in_order(back)
                if after - before < min_gain or after < min_share * shared:
                    continue
                if best is not None and after - before <= best.in_order_after - best.in_order_before:
                    continue
                frames = [_frame(claim_placed, a.claim_at[0], a.claim_at[-1]), _frame(placed, b.evidence_at[0], b.evidence_at[-1]),
                          _frame(claim_placed, b.claim_at[0], b.claim_at[-1]), _frame(placed, a.evidence_at[0], a.evidence_at[-1])]  # fmt: skip
                if any(f is None for f in frames) or not (_same_frame(frames[0], frames[1]) and _same_frame(frames[2], frames[3])):
                    continue
                lo, hi = b.evidence_at[-1], a.evidence_at[0]
                if _listed([w for w, at in placed if lo < at < hi]):
                    continue  # "A, C and B": items of a list, in any order
                if _compound(claim_tokens, claim_placed, a.claim_at[-1], b.claim_at[0]):
                    continue  # "chart reading tasks" for "tasks for reading charts": one compound turned round
                best = Exchange(a.text, b.text, before, after, shared)
    return best


# --------------------------------------------------------------------------------------------------------------
# Steps in the other order: "anchors are first clustered and only afterwards converted into paths" where the
# evidence says "anchors are first converted into paths; we then apply clustering".

_FIRST_STEP = {"first", "firstly", "initially"}
_LATER_STEP = {"then", "afterwards", "afterward", "subsequently", "later", "next", "finally", "second"}
_STEP_WINDOW = 8  # content words taken after each step word


def _step_words(words: Sequence) -> set[str]:
    out: set[str] = set()
    for t in words:
        if t.content and t.lower not in _LATER_STEP:
            out |= {_key(stem(p)) for p in t.lower.split("-") if p and p not in _STOPWORDS} if "-" in t.lower else {_key(t.stem)}
    return out


def steps(tokens: Sequence) -> tuple[set[str], set[str]] | None:
    """(words of the first step, words of the later step) of a text saying "first A ... then B"; None without both."""
    words = [t for t in tokens if not t.is_punct]
    first = next((i for i, t in enumerate(words) if t.lower in _FIRST_STEP), None)
    if first is None:
        return None
    later = next((i for i in range(first + 1, len(words)) if words[i].lower in _LATER_STEP), None)
    if later is None:
        return None
    one = _step_words(words[first + 1 : later][:_STEP_WINDOW])
    two = _step_words(words[later + 1 : later + 1 + _STEP_WINDOW])
    return one - two, two - one


def steps_reversed(claim_tokens: Sequence, evidence_tokens: Sequence[Sequence], min_words: int = 3) -> tuple[str, ...] | None:
    """The claim's first step holds words of the evidence's later step and its later step words of the evidence's
    first step, at least ``min_words`` in all and more than stay in their step: the words that moved, else None."""
    claim = steps(claim_tokens)
    evidence = steps([t for toks in evidence_tokens for t in toks])
    if claim is None or evidence is None:
        return None
    (c1, c2), (e1, e2) = claim, evidence
    moved = (c1 & e2) | (c2 & e1)
    kept = len(c1 & e1) + len(c2 & e2)
    if not (c1 & e2 and c2 & e1) or len(moved) < min_words or len(moved) <= kept:
        return None
    return tuple(sorted(moved))
