"""Settings named by an affix: "single-step" against "multi-step", "task-specific" against "task-agnostic", and a
claim that narrows what the abstract says of two things to one ("only on synthetic data" where the abstract has
"synthetic and real-world data"). Pure: no models, no I/O.

A setting word built from a stem and one of a family of exclusive affixes names a different setting than the same
stem with a sibling affix: that holds for any stem, so no list of settings is needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from rag.text import stem

# Families of prefixes of which one stem takes one at a time ("single-agent" / "multi-agent").
PREFIX_FAMILIES: tuple[frozenset[str], ...] = (
    frozenset({"single", "multi", "mono", "uni", "bi", "dual"}),
    frozenset({"zero", "one", "few", "many"}),
    frozenset({"in", "out-of", "cross"}),
    frozenset({"on", "off"}),
    frozenset({"short", "long"}),
    frozenset({"low", "high"}),
    frozenset({"small", "large"}),
    frozenset({"pre", "post"}),
    frozenset({"intra", "inter"}),
    frozenset({"open", "closed"}),
    frozenset({"white", "black", "gray", "grey"}),
    frozenset({"hard", "soft"}),
    frozenset({"self", "cross"}),
    frozenset({"under", "over"}),
)
# Families of suffixes ("model-based" / "model-free", "task-specific" / "task-agnostic").
SUFFIX_FAMILIES: tuple[frozenset[str], ...] = (
    frozenset({"based", "free"}),
    frozenset({"guided", "free"}),
    frozenset({"specific", "agnostic"}),
    frozenset({"aware", "agnostic"}),
    frozenset({"dependent", "independent"}),
    frozenset({"variant", "invariant"}),
)
_MIN_STEM = 4  # "multimodal" = multi + modal; shorter rests ("bi" + "as") are not settings
_MIN_HYPHENATED = 3  # "single-hop"
_ONLY = {"only", "solely", "exclusively", "purely"}
_SKIP_AFTER_ONLY = {"on", "in", "for", "with", "to", "at", "from", "the", "a", "an", "using", "over", "under"}
_COORDINATION = {"and", "or", "&", ",", "as well as", "plus"}


def _split_prefix(word: str) -> list[tuple[str, str]]:
    """(prefix, rest) readings of ``word``: 'multi-agent' -> ('multi', 'agent'); 'multimodal' -> ('multi', 'modal')
    (unhyphenated only for prefixes of three letters or more, and a rest of five or more)."""
    out = []
    for prefix in {p for family in PREFIX_FAMILIES for p in family}:
        if word.startswith(prefix + "-") and len(word) - len(prefix) - 1 >= _MIN_HYPHENATED:
            out.append((prefix, word[len(prefix) + 1 :]))
        joined = len(prefix) >= 3 and "-" not in prefix and len(word) - len(prefix) > _MIN_STEM
        if joined and word.startswith(prefix) and word[len(prefix)].isalpha():
            out.append((prefix, word[len(prefix) :]))
    return out


def _split_suffix(word: str) -> list[tuple[str, str]]:
    """(suffix, rest) readings: 'model-free' -> ('free', 'model')."""
    suffixes = {x for family in SUFFIX_FAMILIES for x in family}
    return [(x, word[: -len(x) - 1]) for x in suffixes if word.endswith("-" + x) and len(word) - len(x) - 1 >= 3]


@lru_cache(maxsize=50_000)
def _readings(word: str) -> list[tuple[frozenset[str], str, str]]:
    """(family, affix, stem of the rest) for each way ``word`` splits into an affix of a family and a stem."""
    out = [(f, p, stem(rest)) for p, rest in _split_prefix(word) for f in PREFIX_FAMILIES if p in f]
    out += [(f, x, stem(rest)) for x, rest in _split_suffix(word) for f in SUFFIX_FAMILIES if x in f]
    return out


def affix_sibling(word: str, others: Iterable[str]) -> str | None:
    """A word of ``others`` naming the sibling setting of ``word`` (the same stem with another affix of the same
    family): 'single-step' against 'multi-step', 'pre-trained' against 'post-training', 'model-based' against
    'model-free'; None when there is none or ``others`` has ``word`` itself."""
    others = list(others)
    if word in others:
        return None
    mine = _readings(word)
    if not mine:
        return None
    for other in others:
        for family, affix, rest in _readings(other):
            if any(f == family and a != affix and r == rest for f, a, r in mine):
                return other
    return None


def narrowed(claim_words: Sequence[str], evidence_words: Sequence[str]) -> tuple[str, str] | None:
    """The claim says "only X" (or "solely", "exclusively") where the evidence has X coordinated with another term Y
    the claim does not use ("on synthetic and real-world data"): (X, Y), else None. Words are lowercased tokens."""
    claim_set = set(claim_words)
    for i, w in enumerate(claim_words):
        if w not in _ONLY:
            continue
        k = i + 1
        while k < len(claim_words) and claim_words[k] in _SKIP_AFTER_ONLY:
            k += 1
        if k >= len(claim_words):
            continue
        target = claim_words[k]
        for j, e in enumerate(evidence_words):
            if e != target:
                continue
            for step in (1, -1):
                link = j + step
                other = j + 2 * step
                if 0 <= other < len(evidence_words) and evidence_words[link] in _COORDINATION:
                    sibling = evidence_words[other]
                    wordlike = sibling.isalpha() or "-" in sibling
                    if wordlike and sibling not in claim_set and sibling not in _SKIP_AFTER_ONLY and len(sibling) > 2:
                        return target, sibling
    return None


# --------------------------------------------------------------------------------------------------------------
# One against many of the same thing: "a single collective" where the abstract studies "multiple collectives"

_ONE = frozenset({"single", "one", "sole", "lone", "individual"})
_MANY = frozenset({"multiple", "many", "several", "various", "numerous"})


def _counted_things(words: Sequence[str]) -> dict[str, set[str]]:
    """stem of the noun -> {"one", "many"}: how the words count each thing they name with a count word before it
    ("a single collective", "multiple collectives"). Words are lowercased tokens."""
    out: dict[str, set[str]] = {}
    for i, w in enumerate(words[:-1]):
        side = "one" if w in _ONE else "many" if w in _MANY else None
        if side is None or not words[i + 1].isalpha():
            continue
        out.setdefault(stem(words[i + 1]), set()).add(side)
    return out


def count_swapped(claim_words: Sequence[str], abstract_words: Sequence[str]) -> tuple[str, str] | None:
    """A thing the claim counts as one that the abstract only counts as many, or the other way round: (the claim's
    count word, the thing), else None."""
    theirs = _counted_things(abstract_words)
    for thing, sides in _counted_things(claim_words).items():
        said = theirs.get(thing)
        if said and not sides & said:
            side = next(iter(sides))
            word = next(w for i, w in enumerate(claim_words[:-1])
                        if stem(claim_words[i + 1]) == thing and w in (_ONE if side == "one" else _MANY))  # fmt: skip
            return word, thing
    return None


# Words that open a setting phrase ("from a single video", "for temporal event sequences", "under the rental model").
SETTING_OPENERS = frozenset({"on", "in", "for", "from", "with", "under", "at", "over", "across", "via", "using",
                             "within", "into", "onto", "through", "beyond", "without"})  # fmt: skip
# Words that end one: a clause or list boundary, another relation, or a verb that follows the phrase as a subject's
# ("failures on rare combinations are detectable").
# Auxiliary and modal verbs in their finite forms: after "and" they start a second predicate (rag.verify), after a
# setting phrase they end it.
AUXILIARY_VERBS = frozenset({"is", "are", "was", "were", "can", "could", "may", "might", "will", "would", "should",
                             "must", "has", "have", "had", "do", "does", "did"})  # fmt: skip
_SETTING_ENDS = frozenset({"and", "or", "that", "which", "where", "while", "whereas", "but", "to", "by", "than", "as",
                           "when", "if", "whose", "be", "been", "being"}) | AUXILIARY_VERBS  # fmt: skip


def setting_words(tokens: Sequence) -> list:
    """The tokens inside setting phrases: from a word of SETTING_OPENERS up to punctuation or a word of
    _SETTING_ENDS. A phrase whose first word ends in '-ing' ("by locating", "through combining") is an action, not a
    setting, and is skipped."""
    out: list = []
    inside = first = False
    for t in tokens:
        if t.is_punct or t.lower in _SETTING_ENDS:
            inside = False
        elif t.lower in SETTING_OPENERS:
            inside = first = True
        elif inside:
            if first and t.lower.endswith("ing"):
                inside = False
                continue
            first = False
            out.append(t)
    return out
