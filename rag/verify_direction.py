"""The direction check: comparisons and changes keep their direction. Pure text; the words of comparison and
change (with their dimension and sign) are in rag/verify_comparatives.py.

Catches: the two sides of a comparison traded ("B outperforms A" where the abstract says "A outperforms B", also
"A is outperformed by B", "A achieves higher X than B", "A improves X over B", "A is superior to B"), matched on the
same dimension and, where both name one, the same property ("fewer samples" is not "more sample-efficient"); a
comparative of amount read by its metric ("lower error" is better, "lower accuracy" worse); "from B to A" for
"from A to B" and "higher in B than in A" where the abstract says the level drops from B to A; steps given in the
other order (rag/verify_binding.py); a change or degree word whose opposite the evidence says about the same thing
("decreases X" for "increases X").

Does not count as the opposite: the converse said with the other comparative ("B is less X than A" for "A is more X
than B"); a state against a change ("sampling is slow" / "speeds up sampling"); sides next to the comparison that
agree when the rest is a frame ("Experiments show that ...").
Cannot catch: comparisons phrased without a comparison word ("A's error is B's halved"); two conditions swapped
across a "but" when the claim adds many words of its own (see crossed parts, rag/verify_binding.py); a correlation
reversed ("higher X goes with higher Y").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rag.verify_binding import steps_reversed
from rag.verify_clauses import _BOUNDARY_WORDS, clauses
from rag.verify_comparatives import COMPARATIVES, COMPARE_VERBS, TRENDS, VERB_PREFIXES
from rag.verify_tokens import CheckContext, Token, is_content, quote_text, sentence_of, sentence_with, stem, stems_of

_WINDOW = 3
_SIDE = 6  # content words taken on each side of a comparison
_THAN_REACH = 8
_SUBJECT_HEAD = 4  # a comparison's subject also includes the first content words of its clause  # "than" looks this many words back for its comparative ("more X into the Y than"), others fewer


@dataclass(frozen=True, slots=True)
class Comparison:
    better: frozenset[str]  # content stems of the side the comparison favours
    worse: frozenset[str]
    dimension: str
    clause: tuple[Token, ...]
    head: str = ""  # stem of the word a comparative modifies ("more robust than": robust), when one follows it
    near_better: frozenset[str] = frozenset()  # the same sides from the words right next to the comparison only
    near_worse: frozenset[str] = frozenset()


# Words that favour their subject over what follows "over": "A improves accuracy over B", "A's gains over B".
_OVER_WORDS = ("improv", "gain", "advantag", "edg", "win", "prefer", "superior", "priorit", "favor", "favour", "choos",
               "select", "emphas")  # fmt: skip
# Of these, the favoured side is the verb's object ("prioritize A over B"), not its subject.
_CHOOSE_WORDS = ("prefer", "priorit", "favor", "favour", "choos", "select", "emphas")
# A comparison's object ends where a phrase of its own starts: "dominates B in terms of X", "beats B on X when Y"
# ("based on", "trained on": a participle before the preposition keeps it inside the object).
_OBJECT_STOPS = {"in", "on", "across", "under", "at", "for", "when", "while", "by", "within", "during", "among",
                 "if", "whenever", "as", "after", "before", "since", "because", "despite", "thanks"}  # fmt: skip
_NOT_ADVERBS = {"family", "anomaly", "assembly", "supply", "apply", "rely", "reply", "poly", "monopoly", "italy",
                "july", "fly", "ally", "only"}  # fmt: skip


# Words that stand in for a noun said before ("later ones", "their counterparts"): they name neither side.
_STAND_INS = {"ones", "one", "counterpart", "counterparts", "others", "ours", "theirs"}


def _is_adverb(token: Token) -> bool:
    """'strictly', 'consistently': how a comparison holds, not what it compares."""
    return token.lower.endswith("ly") and len(token.lower) > 4 and token.lower not in _NOT_ADVERBS


def _object_end(clause: Sequence[Token], start: int) -> int:
    for k in range(start + 1, len(clause)):
        if clause[k].lower in _OBJECT_STOPS and not clause[k - 1].lower.endswith("ed"):
            return k
    return len(clause)


# What a comparative of amount is about decides which side is better: "lower error" is better, "lower accuracy" worse.
_LOWER_IS_BETTER = ("error", "loss", "latenc", "cost", "regret", "perplex", "varianc", "overhead", "risk", "violat",
                    "failur", "memori", "runtim", "time", "mistak", "hallucin")  # fmt: skip
_HIGHER_IS_BETTER = ("accuraci", "perform", "score", "precis", "recal", "reward", "success", "robust", "f1", "auc",
                     "throughput", "effici", "qualiti", "fidel", "win", "return", "util", "speedup", "correl")  # fmt: skip


def _metric_direction(clause: Sequence[Token], k: int, dim: str, sign: int) -> tuple[str, int]:
    """('good', sign) when the comparative at ``k`` is about a metric whose better direction is known."""
    if dim != "amount":
        return dim, sign
    for t in clause[k + 1 : k + 4]:
        if t.stem.startswith(_LOWER_IS_BETTER):
            return "good", -sign
        if t.stem.startswith(_HIGHER_IS_BETTER):
            return "good", sign
    return dim, sign


# ("lags behind", "trails behind": comparison verbs of their own, COMPARE_VERBS)
_BEHIND_VERBS = {stem(w) for w in ("fall", "falls", "fell", "stay", "stays", "remain", "remains", "come", "comes", "be",
                                    "is", "are", "was", "were")}  # fmt: skip


def _marker(clause: Sequence[Token], i: int) -> tuple[int, str, int, int] | None:
    """If clause[i] introduces what a comparison is against ("than", "over", "compared to"...): (sign, dimension,
    where the subject ends, where the object starts)."""
    t = clause[i]
    if t.lower == "behind" or (t.lower == "of" and i > 0 and clause[i - 1].lower in ("short", "ahead")):
        # "falls behind B", "falls short of B": the subject is worse; "stays ahead of B": better
        verb = i - 1 if t.lower == "behind" else i - 2
        if verb >= 0 and clause[verb].stem in _BEHIND_VERBS:
            return (1 if clause[i - 1].lower == "ahead" else -1), "good", verb, i + 1
    if t.lower in ("than", "to", "with", "versus", "vs", "over") and i > 0:
        start = i + 1
        if t.lower in ("to", "with") and clause[i - 1].lower in ("compared", "relative", "contrasted"):
            back_from = i - 1
        elif t.lower in ("to", "with"):
            back_from = i if t.lower == "to" else -1
        else:
            back_from = i
        reach = _THAN_REACH if t.lower == "than" else _WINDOW + 2  # "more cfDNA into the bloodstream than"
        for back in range(1, reach):
            k = back_from - back
            if k < 0:
                break
            word = clause[k].lower
            if word in COMPARATIVES:
                if t.lower == "to" and back_from == i and word not in ("superior", "inferior"):
                    return None
                dim, sign = _metric_direction(clause, k, *COMPARATIVES[word])
                return sign, dim, k, start
            if t.lower == "over" and (clause[k].stem.startswith(_OVER_WORDS) or word.startswith(_OVER_WORDS)):
                return 1, "good", k, start
    return None


_PREPOSITIONS = {"to", "in", "on", "at", "for", "with", "from", "under", "across", "during", "among", "between"}


def _prepositional_sides(clause: Sequence[Token], i: int) -> tuple[int, int] | None:
    """For "than" at ``i`` followed by a preposition, the comparative it belongs to and where the same preposition
    follows it: "closer to X than to Y", "higher in X than in Y" compare X with Y. (position of the comparative,
    position of its preposition)."""
    if clause[i].lower != "than" or i + 2 >= len(clause) or clause[i + 1].lower not in _PREPOSITIONS:
        return None
    prep = clause[i + 1].lower
    for k in range(i - 2, max(-1, i - 2 * _SIDE), -1):
        if clause[k].lower in COMPARATIVES:
            for j in range(k + 1, min(k + 4, i)):
                if clause[j].lower == prep:
                    return k, j
            return None
    return None


def _head(clause: Sequence[Token], k: int) -> str:
    """The stem of the content word right after the comparative at ``k`` ("more robust"), or ""."""
    if not (0 <= k < len(clause) and clause[k].lower in COMPARATIVES):
        return ""
    following = next((t for t in clause[k + 1 : k + 3] if not _is_adverb(t)), None)  # "more lexically aligned"
    return following.stem if following is not None and following.content else ""


def comparisons(tokens: Sequence[Token]) -> list[Comparison]:
    return list(_comparisons(tuple(tokens)))


@lru_cache(maxsize=20_000)
def _comparisons(tokens: tuple[Token, ...]) -> tuple[Comparison, ...]:
    """'A outperforms B', 'B is outperformed by A', 'A achieves higher X than B', 'A is superior to B',
    'A improves X over B', 'A has lower X compared to B'."""
    found = []
    for clause in clauses(tokens):
        for i, t in enumerate(clause):
            sign, dim, object_from, subject_end = 0, "good", None, i
            verb = next((v for v in COMPARE_VERBS if t.stem.startswith(v) or t.lower.startswith(v)), None)
            if verb and t.lower.endswith(("ant", "ance", "ances")):  # "two dominant paradigms", "dominance"
                verb = None
            if verb:
                sign = COMPARE_VERBS[verb]
                object_from = i + 1
                if i + 1 < len(clause) and clause[i + 1].lower == "by" and t.lower.endswith(("ed", "en")):
                    sign, object_from = -sign, i + 2  # passive ("outperformed by", "beaten by")
            else:
                marked = _marker(clause, i)
                if marked:
                    sign, dim, subject_end, object_from = marked
            between = _prepositional_sides(clause, i)
            if between is not None:  # "closer to X than to Y": X against Y, whatever the subject
                k, prep_at = between
                dim, sign = _metric_direction(clause, k, *COMPARATIVES[clause[k].lower])
                subject = set(_ordered_stems(clause[prep_at + 1 : i]))
                obj = set(_ordered_stems(clause[i + 2 : _object_end(clause, i + 2)])[:_SIDE])
                a, b = (subject, obj) if sign > 0 else (obj, subject)
                found.append(Comparison(frozenset(a - b), frozenset(b - a), dim, tuple(clause), _head(clause, k)))
                continue
            if not sign or object_from is None:
                continue
            before = _ordered_stems(clause[:subject_end])
            # the words right before the comparison, and the clause's first words (its subject, when a long
            # phrase separates it from the comparative: "baselines identify the riskiest points ... better than")
            subject = set(before[-_SIDE:]) | set(before[:_SUBJECT_HEAD])
            coordinated = verb is not None and _after_and(clause, i)
            if coordinated:
                # "gains over A and beats B": the second verb's subject is the first's, not its object A
                first = next((k for k in range(i) if clause[k].lower in _OBJECT_MARKERS
                              or any(clause[k].stem.startswith(v) for v in COMPARE_VERBS)), i)  # fmt: skip
                subject = set(_ordered_stems(clause[:first]))
            if t.lower == "over" and clause[subject_end].stem.startswith(_CHOOSE_WORDS):
                # "scores prioritize adherence over aesthetics": what is chosen is between the verb and "over"
                subject = set(_ordered_stems(clause[subject_end + 1 : i]))
            obj = set(_ordered_stems(clause[object_from : _object_end(clause, object_from)])[:_SIDE])
            a, b = (subject, obj) if sign > 0 else (obj, subject)
            head = _head(clause, subject_end) if not verb else ""
            # a verb's own sides ("B trails A"); a comparative's subject is further back than the verb before it
            near_subject = set(_near_subject(clause, subject_end)) if verb and not coordinated else set()
            near_obj = set(_ordered_stems(clause[object_from : _object_end(clause, object_from)])[:_NEAR]) if verb else set()
            na, nb = (near_subject, near_obj) if sign > 0 else (near_obj, near_subject)
            found.append(Comparison(frozenset(a - b), frozenset(b - a), dim, tuple(clause), head,
                                    frozenset(na - nb), frozenset(nb - na)))  # fmt: skip
    return tuple(found)


_OBJECT_MARKERS = {"over", "than", "against", "versus", "vs"}  # what comes after them is the compared-with side


def _after_and(clause: Sequence[Token], i: int) -> bool:
    """clause[i] follows "and" (perhaps after an adverb: "and consistently beats")."""
    k = i - 1
    if k >= 0 and clause[k].lower.endswith("ly") and len(clause[k].lower) > 4:
        k -= 1
    return k >= 1 and clause[k].lower == "and"


_NEAR = 3  # content words next to a comparison that name its sides when the clause opens with a frame
_NEAR_STOPS = {"that", "which", "where", "whereas", "while", "when", "whether", "because", "since", ","}


def _near_subject(clause: Sequence[Token], end: int) -> list[str]:
    """The comparison's own subject: the content words right before it, not past "that", "which" or a comma (so
    "Experiments on X show that B trails A" has B, not the experiments, as the side that trails)."""
    start = end
    while start > 0 and clause[start - 1].lower not in _NEAR_STOPS and end - start < 2 * _NEAR + 2:
        start -= 1
    return _ordered_stems(clause[start:end])[-_NEAR:]


def _ordered_stems(tokens: Sequence[Token]) -> list[str]:
    seen: dict[str, None] = {}
    for t in tokens:
        if (
            is_content(t)
            and not _is_adverb(t)
            and t.lower not in _STAND_INS
            and not t.stem.startswith(VERB_PREFIXES)
            and not t.lower.startswith(VERB_PREFIXES)
            and t.lower not in COMPARATIVES
        ):
            for s in stems_of(t):
                seen.setdefault(s, None)
    return list(seen)


def check_direction(ctx: CheckContext) -> str | None:
    claim_cmp = comparisons(ctx.claim_tokens)
    agreed: set[str] = set()  # comparative words of claim comparisons whose sides agree with one of the abstract's
    if claim_cmp:
        # Every comparison the abstract makes: the alignment may have picked a sentence that makes none.
        evidence_cmp = [c for toks in ctx.evidence_tokens for c in comparisons(toks)]
        evidence_cmp += [c for toks in ctx.sentence_tokens if toks not in ctx.evidence_tokens for c in comparisons(toks)]
        for c in claim_cmp:
            for e in evidence_cmp:
                if c.dimension != e.dimension:  # "lower memory" against "outperforms": not the same comparison
                    continue
                if c.head and e.head and c.head != e.head:
                    continue  # "fewer samples" against "more sample-efficient": two properties
                same = len(c.better & e.better) + len(c.worse & e.worse)
                swapped = len(c.better & e.worse) + len(c.worse & e.better)
                # the two sides traded places outright: each side of the claim holds words of the other side of
                # the evidence and none of its own losing side (words both sides share, like the verb, aside)
                traded = bool(c.better & e.worse) and bool(c.worse & e.better) and not c.worse & e.worse
                near_same = len(c.near_better & e.near_better) + len(c.near_worse & e.near_worse)
                near_swapped = len(c.near_better & e.near_worse) + len(c.near_worse & e.near_better)
                if near_same >= 2 and not near_swapped and c.near_better & e.near_better and c.near_worse & e.near_worse:
                    continue  # the sides next to the comparison agree: the rest is a frame ("Experiments show that")
                if swapped >= 2 and (swapped > same or (traded and swapped >= same)):
                    return f"the abstract says the opposite: {quote_text(sentence_of(ctx, e.clause))}"
                if same >= 2 and not swapped and c.better & e.better and c.worse & e.worse:
                    # "B is less X than A" for "A is more X than B": the converse, so its "less" is no change
                    agreed |= {t.lower for t in c.clause if t.lower in COMPARATIVES}
    reversed_range = _reversed_range(ctx) or _reversed_order(ctx)
    if reversed_range:
        return reversed_range
    moved = steps_reversed(ctx.claim_tokens, ctx.evidence_tokens, ctx.policy.steps_min_moved_words)
    if moved:
        return f"the abstract gives the steps in the other order: {quote_text(' '.join(ctx.evidence_texts))}"
    # A change or degree word whose opposite is what the evidence says about the same thing.
    claim_words = _trend_words(ctx.claim_tokens)
    evidence_words = [w for toks in ctx.evidence_tokens for w in _trend_words(toks)]
    for dim, sign, near, word in claim_words:
        if word.lower() in agreed:
            continue
        same = [w for w in evidence_words if w[0] == dim and w[1] == sign and (near & w[2] or not near)
                and _trend_comparable(word, near, w[3], w[2])]  # fmt: skip
        opposite = [w for w in evidence_words if w[0] == dim and w[1] == -sign and near & w[2]
                    and _trend_comparable(word, near, w[3], w[2])]  # fmt: skip
        if opposite and not same:
            return f"the abstract says '{opposite[0][3]}', not '{word}': {quote_text(sentence_with(ctx, opposite[0][3]))}"
    return None


_RANGE_SIDE = 10  # words looked at after "from" and after "to"


def ranges(tokens: Sequence[Token]) -> list[tuple[frozenset[str], frozenset[str]]]:
    """(stems after "from", stems after "to") for each "from A to B" (a shift, a range, a transfer)."""
    return [(start, stop) for _, start, stop in _ranges_at(tokens)]


def _ranges_at(tokens: Sequence[Token]) -> list[tuple[int, frozenset[str], frozenset[str]]]:
    """(where "from" is among the words, stems after "from", stems after "to")."""
    words = [t for t in tokens if not t.is_punct]
    found = []
    for i, t in enumerate(words):
        if t.lower != "from":
            continue
        to = next((k for k in range(i + 1, min(i + 2 + _RANGE_SIDE, len(words))) if words[k].lower == "to"), None)
        if to is None or to == i + 1:
            continue
        end = next((k for k in range(to + 1, min(to + 1 + _RANGE_SIDE, len(words))) if words[k].lower in _BOUNDARY_WORDS
                    or words[k].lower in ("from", "and", "while")), min(to + 1 + _RANGE_SIDE, len(words)))
        start = {s for x in words[i + 1 : to] if x.content and not _is_adverb(x) for s in stems_of(x)}
        stop = {s for x in words[to + 1 : end] if x.content and not _is_adverb(x) for s in stems_of(x)}
        if start and stop:
            found.append((i, frozenset(start - stop), frozenset(stop - start)))
    return found


def _reversed_range(ctx: CheckContext) -> str | None:
    """"from B to A" where the abstract says "from A to B" (what the two ends share more the other way round)."""
    mine = ranges(ctx.claim_tokens)
    if not mine:
        return None
    for toks, text in zip(ctx.sentence_tokens, ctx.sentence_texts, strict=True):
        if _ends_swapped(mine, ranges(toks)):
            return f"the abstract says it the other way round: {quote_text(text)}"
    return None


def _ends_swapped(
    claimed: Sequence[tuple[frozenset[str], frozenset[str]]], stated: Sequence[tuple[frozenset[str], frozenset[str]]]
) -> bool:
    """Some claimed (first, second) pair shares words with a stated pair's ends crossed over (each claimed end
    with the other stated end), more than it shares with them the right way round."""
    for s_first, s_second in stated:
        for c_first, c_second in claimed:
            crossed = len(c_first & s_second) + len(c_second & s_first)
            kept = len(c_first & s_first) + len(c_second & s_second)
            if len(c_first & s_second) and len(c_second & s_first) and crossed > kept:
                return True
    return False


_LEVEL_DIMENSIONS = {"amount", "good", "quality", "gain"}


def orderings(tokens: Sequence[Token]) -> list[tuple[frozenset[str], frozenset[str]]]:
    """(the side that is higher, the side that is lower) for "higher in X than in Y" and for a change "from A to B"
    ("degradation from A to B": A is higher; "gains from A to B": B is)."""
    return [(high, low) for _, high, low in _orderings(tuple(tokens))]


_RANGE = "range"  # the dimension of a change "from A to B": compared with a comparison of any level dimension


@lru_cache(maxsize=20_000)
def _orderings(tokens: tuple[Token, ...]) -> tuple[tuple[str, frozenset[str], frozenset[str]], ...]:
    """(dimension, higher side, lower side); a comparison's dimension carries its head word ("amount:sensit")."""
    found = [(f"{c.dimension}:{c.head}", c.better, c.worse) for c in comparisons(tokens) if c.dimension in _LEVEL_DIMENSIONS]
    words = [t for t in tokens if not t.is_punct]
    for i, start, stop in _ranges_at(tokens):
        for t in words[max(0, i - _WINDOW) : i]:
            key = t.lower if t.lower in TRENDS else next((k for k in TRENDS if t.stem.startswith(k) and len(k) >= 5), None)
            if key and TRENDS[key][0] in _LEVEL_DIMENSIONS:
                found.append((_RANGE, start, stop) if TRENDS[key][1] < 0 else (_RANGE, stop, start))
                break
    return tuple(found)


def _same_level(a: str, b: str) -> bool:
    """Two comparisons ("dimension:head") speak of one level unless each names what it compares and the two differ
    ("less sensitive" and "more robust" are two properties)."""
    head_a, head_b = a.partition(":")[2], b.partition(":")[2]
    return not (head_a and head_b and head_a != head_b)


def _reversed_order(ctx: CheckContext) -> str | None:
    """"higher in B than in A" where the abstract says the level drops from B... to A, or the other way round. Two
    comparisons are set against each other only on one dimension ("less sensitive" is an amount, "more robust" a
    merit: no opposites); a change from A to B against any."""
    mine = _orderings(tuple(ctx.claim_tokens))
    if not mine:
        return None
    for toks, text in zip(ctx.sentence_tokens, ctx.sentence_texts, strict=True):
        stated = _orderings(tuple(toks))
        for dim, high, low in mine:
            same = [(h, lo) for d, h, lo in stated if _RANGE in (d, dim) or _same_level(d, dim)]
            if _ends_swapped([(high, low)], same):
                return f"the abstract says the opposite: {quote_text(text)}"
    return None


# Words that say how things stand ("sampling is slow"), not how they change ("speeds up sampling"): a paper that
# finds a state and one that changes it say different things, not opposite ones.
_STATE_WORDS = frozenset("high low slow positive negative upper above below".split())
_HEAD = "head:"  # marks, in a trend word's near set, the word a comparative of amount modifies ("more robust")


def _trend_comparable(word: str, near: set[str], other: str, other_near: set[str]) -> bool:
    """Whether two trend words of opposite sign are about the same thing in the same way: both states or both
    changes, and a comparative of amount modifying the same word ("less sensitive" is not the opposite of "more
    robust")."""
    if (word in _STATE_WORDS) != (other in _STATE_WORDS):
        return False
    heads = {x for x in near if x.startswith(_HEAD)}
    other_heads = {x for x in other_near if x.startswith(_HEAD)}
    if heads and other_heads:
        return bool(heads & other_heads)
    if heads or other_heads:  # "less robust" against "boosts poisoning": only if the other is about robustness
        head, near_other = (heads, other_near) if heads else (other_heads, near)
        return any(h[len(_HEAD) :] in near_other for h in head)
    return True


@lru_cache(maxsize=50_000)  # pure; asked for every word of the claim and of the abstract
def _trend_key(lower: str, stem_: str) -> str | None:
    """The TRENDS entry a word is: its lower-cased form, else an entry its stem is or (5 letters or more) starts with."""
    return lower if lower in TRENDS else next((k for k in TRENDS if stem_ == k or stem_.startswith(k) and len(k) >= 5), None)


def _trend_words(tokens: Sequence[Token]) -> list[tuple[str, int, set[str], str]]:
    """(dimension, sign, content stems within a few words, the word) for each change or degree word. A comparative
    of amount followed by the word it modifies ("more robust", "fewer tokens") also carries ``head:<stem>``.
    An amount word next to a metric whose better direction is known ("quality drops") is also a change of quality."""
    out = []
    words = [t for t in tokens if not t.is_punct]
    for i, t in enumerate(words):
        key = _trend_key(t.lower, t.stem)
        if key is None:
            continue
        dim, sign = TRENDS[key]
        near = {
            s
            for x in words[max(0, i - _WINDOW) : i + _WINDOW + 1]
            if x is not t and is_content(x) and x.lower not in TRENDS and x.stem not in TRENDS
            for s in stems_of(x)
        }
        following = next((x for x in words[i + 1 : i + 3] if not _is_adverb(x)), None)  # "more lexically aligned"
        if t.lower in COMPARATIVES and following is not None and following.content and following.lower not in TRENDS:
            near.add(_HEAD + following.stem)
        out.append((dim, sign, near, t.lower))
        if dim == "amount" and t.lower not in COMPARATIVES:
            metric = [x for x in words[max(0, i - 2) : i + 3] if x is not t and x.content]
            if any(x.stem.startswith(_HIGHER_IS_BETTER) for x in metric):
                out.append(("quality", sign, near, t.lower))
            elif any(x.stem.startswith(_LOWER_IS_BETTER) for x in metric):
                out.append(("quality", -sign, near, t.lower))
    return out
