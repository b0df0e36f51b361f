"""Does an abstract support a claim? Evidence alignment plus structured checks. Pure: no models, no I/O.

The caller supplies the MiniLM similarity of the claim to each abstract sentence; everything else is text:

1. **Alignment**: the abstract sentence the claim restates (similarity + shared words), or two sentences combined
   when a second one covers clearly more of the claim.
2. **Topical support**: ``dense_weight × similarity + overlap_weight × share of the claim's words in the abstract``;
   below ``support_threshold`` the abstract is about something else.
3. **Structured checks**, each with a reason a person can read: numbers (and their units) agree; the names the
   claim uses are in the abstract; polarity agrees (negation, "fails to", "without", un-/non- antonyms);
   comparisons keep their direction (who outperforms whom, higher/lower, increase/decrease); the claim is not
   stronger than the evidence ("proves", "all", "always" against "suggests", "some"); settings named in the claim
   (video, zero-shot, multilingual, real robots...) are the abstract's; and the claim adds no several-word detail
   the abstract never mentions.

A failed check caps the support below the threshold, so ``support`` and ``verified`` never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz, process

from rag.settings import VerifyPolicy
from rag.text import _STOPWORDS, Span, name_singular
from rag.text import stem as _snowball

CHECKS = ("numbers", "entities", "polarity", "direction", "overclaim", "scope", "novelty")

def stem(word: str) -> str:
    return _snowball(word.lower())  # the one Snowball stemmer (rag/text.py), as content words use


# --------------------------------------------------------------------------------------------------------------
# Tokens


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-'\u2019.][A-Za-z0-9]+)*%?|[,;:()]")


@dataclass(frozen=True, slots=True)
class Token:
    text: str  # as written
    lower: str
    stem: str
    start: int
    end: int

    @property
    def is_punct(self) -> bool:
        return self.text in ",;:()"


@lru_cache(maxsize=20_000)
def tokenize(text: str) -> tuple[Token, ...]:
    out = []
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        if raw.endswith((".",)):
            raw = raw.rstrip(".")
        lower = raw.lower().replace("\u2019", "'")
        if lower.endswith("'s"):
            lower = lower[:-2]
        out.append(Token(raw, lower, stem(lower), m.start(), m.start() + len(raw)))
    return tuple(out)


def _is_content(token: Token) -> bool:
    return not token.is_punct and token.lower not in _STOPWORDS and (len(token.lower) > 1 or token.lower.isdigit())


def _stems_of(token: Token) -> list[str]:
    """A hyphenated word counts as itself and as its parts ("zero-shot" -> zero-shot, zero, shot)."""
    if "-" not in token.lower:
        return [token.stem]
    parts = [p for p in token.lower.split("-") if p and p not in _STOPWORDS]
    return [token.stem, *(stem(p) for p in parts)]


def content_stems(tokens: Sequence[Token]) -> set[str]:
    return {s for t in tokens if _is_content(t) for s in _stems_of(t)}


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


@dataclass(slots=True)
class _Context:
    claim: str
    claim_tokens: tuple[Token, ...]
    claim_stems: set[str]
    abstract: str
    abstract_tokens: tuple[Token, ...]
    abstract_stems: set[str]
    evidence_texts: list[str]
    evidence_tokens: list[tuple[Token, ...]]
    sentence_texts: list[str] = field(default_factory=list)  # every sentence of the abstract
    sentence_tokens: list[tuple[Token, ...]] = field(default_factory=list)
    evidence_stems: set[str] = field(default_factory=set)
    policy: VerifyPolicy = field(default_factory=VerifyPolicy)


def _quote(text: str, limit: int = 220) -> str:
    text = " ".join(text.split())
    return f"'{text}'" if len(text) <= limit else f"'{text[: limit - 1].rstrip()}…'"


# --------------------------------------------------------------------------------------------------------------
# Alignment and topical support


def align(claim_stems: set[str], sentence_stems: Sequence[set[str]], sims: Sequence[float], policy: VerifyPolicy) -> list[int]:
    """Indexes of the sentence(s) the claim restates: the best one, plus a second when it adds enough coverage."""
    if not sentence_stems:
        return []
    n = max(1, len(claim_stems))
    coverage = [len(claim_stems & s) / n for s in sentence_stems]
    score = [0.5 * float(sim) + 0.5 * cov for sim, cov in zip(sims, coverage, strict=True)]
    order = sorted(range(len(score)), key=lambda i: -score[i])
    best = order[0]
    chosen, best_gain = [best], 0.0
    for j in order[1:4]:
        gain = len(claim_stems & (sentence_stems[best] | sentence_stems[j])) / n - coverage[best]
        if gain >= policy.pair_min_gain and gain > best_gain:
            chosen, best_gain = sorted([best, j]), gain
    return chosen


def topical_support(dense: float, overlap: float, policy: VerifyPolicy) -> float:
    return round(policy.dense_weight * max(0.0, min(1.0, dense)) + policy.overlap_weight * overlap, 4)


# --------------------------------------------------------------------------------------------------------------
# Numbers


_NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "thousand": 1000, "dozen": 12, "twice": 2, "double": 2, "half": 0.5,
}  # fmt: skip
_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "b": 1e9, "trillion": 1e12, "t": 1e12}
_UNITS = {
    "%": "%", "percent": "%", "percentage": "%", "pp": "%", "points": "%", "point": "%",
    "x": "x", "×": "x", "times": "x", "fold": "x",
    "ms": "ms", "milliseconds": "ms", "s": "s", "sec": "s", "seconds": "s", "second": "s", "minutes": "min",
    "min": "min", "hours": "h", "hour": "h", "h": "h", "days": "d", "day": "d",
    "gb": "GB", "mb": "MB", "tb": "TB", "kb": "KB", "gpus": "GPU", "gpu": "GPU",
}  # fmt: skip
_NUM = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?:\s*(%|×|x\b|-?fold\b|[KMBTkmb]\b))?(?:\s*-?\s*(percent(?:age)?|points?|pp|times"
    r"|fold|thousand|million|billion|trillion|ms|milliseconds|seconds?|sec|min(?:utes)?|hours?|h|days?|[GMTK]B"
    r"|GPUs?)\b)?"
)


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    unit: str  # normalized unit or ""
    text: str
    counted: frozenset[str] = frozenset()  # stems of the words right after it: "five broad classes" -> broad, class


_COUNTED_WORDS = 2


def _counted_after(tokens: Sequence[Token], end: int) -> frozenset[str]:
    after = [t for t in tokens if t.start >= end and not t.is_punct][: _COUNTED_WORDS + 1]
    return frozenset(s for t in after if _is_content(t) and not t.lower[0].isdigit() for s in _stems_of(t))


def quantities(text: str) -> list[Quantity]:
    """Numbers written in ``text`` with their scale and unit: '1.2M' = 1,200,000; '45 percent' = 45 %."""
    found: list[Quantity] = []
    tokens = tokenize(text)
    for m in _NUM.finditer(text):
        try:
            value = float(m.group(1).replace(",", ""))
        except ValueError:
            continue
        unit = ""
        for part in (m.group(2), m.group(3)):
            if not part:
                continue
            key = part.lower().lstrip("-").strip()
            if key in _SCALE and not (key in ("m", "b", "k", "t") and part.islower() and key != "k"):
                value *= _SCALE[key]
            elif key in _UNITS:
                unit = _UNITS[key]
        found.append(Quantity(round(value, 6), unit, m.group(0).strip(), _counted_after(tokens, m.end())))
    for token in tokens:
        if token.lower in _NUMBER_WORDS:
            found.append(Quantity(float(_NUMBER_WORDS[token.lower]), "", token.text, _counted_after(tokens, token.end)))
    return found


def check_numbers(ctx: _Context) -> str | None:
    claim_q = [q for q in quantities(ctx.claim) if q.text.lower() not in ("half", "double", "twice")]
    if not claim_q:
        return None
    abstract_q = quantities(ctx.abstract)
    values = {q.value for q in abstract_q}
    for q in claim_q:
        if q.value not in values:
            if q.text.lower() in _NUMBER_WORDS:  # "three of the tasks": only when the abstract counts otherwise
                other = next((a for a in abstract_q if a.counted & q.counted), None)
                if other is None:
                    continue
                return f"the abstract gives {other.text} {_counted_text(ctx, other)}, not {q.text}"
            return f"the abstract does not state {q.text}"
        units = {a.unit for a in abstract_q if a.value == q.value}
        if q.unit and "" not in units and q.unit not in units:
            other = next(a.text for a in abstract_q if a.value == q.value)
            return f"the abstract gives {other}, not {q.text}"
    return None


def _counted_text(ctx: _Context, q: Quantity) -> str:
    """The words the abstract counts after ``q`` ('broad classes'), for the reason."""
    at = ctx.abstract.find(q.text)
    if at < 0:
        return ""
    after = [t for t in tokenize(ctx.abstract) if t.start >= at + len(q.text) and not t.is_punct][:_COUNTED_WORDS]
    return " ".join(t.text for t in after)


# --------------------------------------------------------------------------------------------------------------
# Named entities


def _looks_like_name(token: Token, first: bool) -> bool:
    text = token.text
    if token.is_punct or len(text) < 2 or text.lower() in _STOPWORDS:
        return False
    uppers = sum(c.isupper() for c in text)
    has_digit = any(c.isdigit() for c in text)
    has_alpha = any(c.isalpha() for c in text)
    if has_digit and has_alpha:
        return True
    if uppers >= 2 or (uppers == 1 and not text[0].isupper()):  # AssayBench, CRISPR, nDCG
        return True
    return text[0].isupper() and not first


def _name_key(text: str) -> str:
    key = text.lower().replace("\u2019", "'")
    key = re.sub(r"'s$", "", key)
    return name_singular(key)


def check_entities(ctx: _Context) -> str | None:
    tokens = ctx.claim_tokens
    words = [t for t in tokens if not t.is_punct]
    names = [t for i, t in enumerate(words) if _looks_like_name(t, first=i == 0)]
    if not names:
        return None
    abstract_keys = {_name_key(t.text) for t in ctx.abstract_tokens if not t.is_punct}
    abstract_keys |= {_name_key(p) for t in ctx.abstract_tokens if "-" in t.text for p in t.text.split("-") if p}
    lowered = ctx.abstract.lower()
    choices = list(abstract_keys)
    missing = []
    for name in names:
        key = _name_key(name.text)
        if key in abstract_keys or (len(key) >= 4 and key in lowered):
            continue
        if "-" in key and all(_name_key(p) in abstract_keys for p in key.split("-") if p):
            continue
        if not any(c.isdigit() for c in key) and process.extractOne(
            key, choices, scorer=fuzz.ratio, score_cutoff=ctx.policy.entity_min_similarity
        ):
            continue
        missing.append(name.text)
    if missing:
        names_text = ", ".join(dict.fromkeys(missing))
        return f"the abstract does not name {names_text}"
    return None


# --------------------------------------------------------------------------------------------------------------
# Clauses, polarity


_NEGATION = {"not", "no", "never", "none", "nor", "neither", "nothing", "cannot", "unable", "fail", "fails",
             "failed", "failing", "lack", "lacks", "lacking", "absent", "without", "hardly", "barely", "avoid",
             "avoids", "avoiding", "avoided", "freedom", "free"}  # fmt: skip
_BOUNDARY_WORDS = {"but", "while", "whereas", "although", "though", "yet", "however", "despite"}
# "improves X without increasing Y", "unlike existing works that rely on Z, we...": that part alone is negated
_NEGATED_BOUNDARY = {"without", "unlike"}


def _is_negation(token: Token) -> bool:
    return token.lower in _NEGATION or token.lower.endswith("n't")


def clauses(tokens: Sequence[Token]) -> list[list[Token]]:
    """Split at punctuation and contrastive words; "without" starts a clause of its own."""
    out: list[list[Token]] = [[]]
    for i, t in enumerate(tokens):
        if t.is_punct or t.lower in _BOUNDARY_WORDS:
            out.append([])
            continue
        rather = t.lower == "than" and i > 0 and tokens[i - 1].lower == "rather"
        instead = t.lower == "of" and i > 0 and tokens[i - 1].lower == "instead"
        if t.lower in _NEGATED_BOUNDARY or rather or instead:
            if rather or instead:
                out[-1] = out[-1][:-1]
            negation = t if t.lower == "without" else Token("not", "not", "not", t.start, t.end)
            out.append([negation])
            continue
        out[-1].append(t)
    return [c for c in out if any(_is_content(t) for t in c)]


_FAIL = {"fail", "fails", "failed", "failing"}


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
    return True


def _negated(clause: Sequence[Token]) -> bool:
    return sum(_negates(clause, i) for i in range(len(clause))) % 2 == 1


_NEG_PREFIXES = ("un", "non", "in", "im", "ir", "il", "dis")


def _prefix_antonym(a: str, b: str) -> bool:
    """'stable'/'unstable', 'convex'/'non-convex', 'effective'/'ineffective'."""
    for shorter, longer in ((a, b), (b, a)):
        if len(shorter) < 4:
            continue
        for prefix in _NEG_PREFIXES:
            if longer in (prefix + shorter, f"{prefix}-{shorter}"):
                return True
    return False


def _best_clause(claim_clause: set[str], evidence: Sequence[list[Token]]) -> tuple[list[Token], int] | None:
    best, best_shared = None, 0
    for clause in evidence:
        shared = len(claim_clause & content_stems(clause))
        if shared > best_shared:
            best, best_shared = clause, shared
    return (best, best_shared) if best is not None else None


def check_polarity(ctx: _Context) -> str | None:
    evidence_clauses = [c for toks in ctx.evidence_tokens for c in clauses(toks)]
    if not evidence_clauses:
        return None
    abstract_clauses = [c for toks in ctx.sentence_tokens for c in clauses(toks)]
    for claim_clause in clauses(ctx.claim_tokens):
        stems = content_stems(claim_clause) - _NEGATION
        # The clause of the abstract that says most of this part of the claim (a summary may draw on a sentence
        # the alignment did not pick); several equally good ones: any with the claim's polarity will do.
        shared = [len(stems & content_stems(c)) for c in abstract_clauses]
        best = max(shared, default=0)
        if best == 0 or (best < 2 and best < len(stems)):
            continue
        matches = [c for c, n in zip(abstract_clauses, shared, strict=True) if n == best]
        if all(_negated(claim_clause) != _negated(c) for c in matches):
            return f"the abstract says the opposite: {_quote(_sentence_of(ctx, matches[0]))}"
    # A negated part of the abstract ("without increasing memory") that the claim states positively.
    claim_clauses = clauses(ctx.claim_tokens)
    for clause in abstract_clauses:
        stems = content_stems(clause) - _NEGATION
        if not _negated(clause) or len(stems) < 2:
            continue
        needed = max(2, ctx.policy.negated_part_coverage * len(stems))
        if any(not _negated(c) and len(stems & content_stems(c)) >= needed for c in claim_clauses):
            return f"the abstract says the opposite: {_quote(_sentence_of(ctx, clause))}"
    # un-/non- antonyms anywhere in the evidence: "stable" in the claim, only "unstable" in the evidence
    claim_words = {t.lower for t in ctx.claim_tokens if _is_content(t)}
    evidence_words = {t.lower for toks in ctx.evidence_tokens for t in toks if _is_content(t)}
    for word in claim_words - evidence_words:
        for other in evidence_words - claim_words:
            if _prefix_antonym(word, other):
                return f"the abstract says '{other}', not '{word}': {_quote(_sentence_with(ctx, other))}"
    return None


def _sentence_of(ctx: _Context, clause: Sequence[Token]) -> str:
    for text, toks in zip(ctx.evidence_texts + ctx.sentence_texts, ctx.evidence_tokens + ctx.sentence_tokens, strict=True):
        if clause and any(t is clause[0] for t in toks):
            return text
    return ctx.evidence_texts[0] if ctx.evidence_texts else ""


def _sentence_with(ctx: _Context, word: str) -> str:
    for text, toks in zip(ctx.evidence_texts, ctx.evidence_tokens, strict=True):
        if any(t.lower == word for t in toks):
            return text
    return ctx.evidence_texts[0] if ctx.evidence_texts else ""


# --------------------------------------------------------------------------------------------------------------
# Direction of comparisons and changes


# Comparative verbs: +1 "A <verb> B" means A is better; -1 means B is.
_COMPARE_VERBS = {"outperform": 1, "surpass": 1, "beat": 1, "exceed": 1, "outpac": 1, "outscor": 1, "outrank": 1,
                  "overtak": 1, "dominat": 1, "underperform": -1, "trail": -1, "lag": -1}  # fmt: skip
# Comparative adjectives before "than"/"to": (dimension, sign).
_VERB_PREFIXES = tuple(_COMPARE_VERBS)  # matched against the stem and the word ("dominates" stems to "domin")
_COMPARATIVES = {
    "better": ("good", 1), "worse": ("good", -1), "superior": ("good", 1), "inferior": ("good", -1),
    "higher": ("amount", 1), "lower": ("amount", -1), "more": ("amount", 1), "less": ("amount", -1),
    "fewer": ("amount", -1), "greater": ("amount", 1), "larger": ("amount", 1), "smaller": ("amount", -1),
    "faster": ("speed", 1), "slower": ("speed", -1), "stronger": ("strength", 1), "weaker": ("strength", -1),
    "longer": ("length", 1), "shorter": ("length", -1), "cheaper": ("cost", -1), "costlier": ("cost", 1),
}  # fmt: skip
# Words of change or degree: (dimension, sign). The same dimension with the other sign is the opposite claim.
_TRENDS = {
    "increas": ("amount", 1), "decreas": ("amount", -1), "reduc": ("amount", -1), "rais": ("amount", 1),
    "rise": ("amount", 1), "grow": ("amount", 1), "boost": ("amount", 1), "drop": ("amount", -1),
    "declin": ("amount", -1), "shrink": ("amount", -1), "diminish": ("amount", -1), "lower": ("amount", -1),
    "higher": ("amount", 1), "more": ("amount", 1), "less": ("amount", -1), "fewer": ("amount", -1),
    "larger": ("amount", 1), "smaller": ("amount", -1), "greater": ("amount", 1), "high": ("amount", 1),
    "low": ("amount", -1), "improv": ("quality", 1), "degrad": ("quality", -1), "wors": ("quality", -1),
    "worsen": ("quality", -1), "hurt": ("quality", -1), "harm": ("quality", -1), "better": ("quality", 1),
    "worse": ("quality", -1), "enhanc": ("quality", 1), "impair": ("quality", -1), "faster": ("speed", 1),
    "slower": ("speed", -1), "acceler": ("speed", 1), "slow": ("speed", -1), "speed": ("speed", 1),
    "maxim": ("extreme", 1), "minim": ("extreme", -1), "overestim": ("estimate", 1), "underestim": ("estimate", -1),
    "gain": ("gain", 1), "loss": ("gain", -1), "posit": ("sign", 1), "negat": ("sign", -1),
    "strengthen": ("strength", 1), "weaken": ("strength", -1), "stronger": ("strength", 1),
    "weaker": ("strength", -1), "outperform": ("good", 1), "underperform": ("good", -1), "superior": ("good", 1),
    "inferior": ("good", -1), "earlier": ("time", -1), "later": ("time", 1), "wider": ("width", 1),
    "narrower": ("width", -1), "upper": ("amount", 1), "above": ("amount", 1), "below": ("amount", -1),
}  # fmt: skip
_WINDOW = 3
_SIDE = 6  # content words taken on each side of a comparison


@dataclass(frozen=True, slots=True)
class Comparison:
    better: frozenset[str]  # content stems of the side the comparison favours
    worse: frozenset[str]
    dimension: str
    clause: tuple[Token, ...]


def comparisons(tokens: Sequence[Token]) -> list[Comparison]:
    """'A outperforms B', 'B is outperformed by A', 'A achieves higher X than B', 'A is superior to B'."""
    found = []
    for clause in clauses(tokens):
        for i, t in enumerate(clause):
            sign, dim, object_from, subject_end = 0, "good", None, i
            verb = next((v for v in _COMPARE_VERBS if t.stem.startswith(v) or t.lower.startswith(v)), None)
            if verb:
                sign = _COMPARE_VERBS[verb]
                object_from = i + 1
                if i + 1 < len(clause) and clause[i + 1].lower == "by" and t.lower.endswith("ed"):
                    sign, object_from = -sign, i + 2  # passive
            elif t.lower in ("than", "to") and i > 0:
                for back in range(1, _WINDOW + 1):
                    if i - back >= 0 and clause[i - back].lower in _COMPARATIVES:
                        word = clause[i - back].lower
                        if t.lower == "to" and word not in ("superior", "inferior"):
                            break
                        dim, sign = _COMPARATIVES[word]
                        object_from = i + 1
                        subject_end = i - back
                        break
            if not sign or object_from is None:
                continue
            if verb:
                subject_end = i
            subject = set(_ordered_stems(clause[:subject_end])[-_SIDE:])
            obj = set(_ordered_stems(clause[object_from:])[:_SIDE])
            a, b = (subject, obj) if sign > 0 else (obj, subject)
            found.append(Comparison(frozenset(a - b), frozenset(b - a), dim, tuple(clause)))
    return found


def _ordered_stems(tokens: Sequence[Token]) -> list[str]:
    seen: dict[str, None] = {}
    for t in tokens:
        if _is_content(t) and not t.stem.startswith(_VERB_PREFIXES) and not t.lower.startswith(_VERB_PREFIXES) and t.lower not in _COMPARATIVES:
            for s in _stems_of(t):
                seen.setdefault(s, None)
    return list(seen)


def check_direction(ctx: _Context) -> str | None:
    claim_cmp = comparisons(ctx.claim_tokens)
    if claim_cmp:
        # Every comparison the abstract makes: the alignment may have picked a sentence that makes none.
        evidence_cmp = [c for toks in ctx.evidence_tokens for c in comparisons(toks)]
        evidence_cmp += [c for toks in ctx.sentence_tokens if toks not in ctx.evidence_tokens for c in comparisons(toks)]
        for c in claim_cmp:
            for e in evidence_cmp:
                same = len(c.better & e.better) + len(c.worse & e.worse)
                swapped = len(c.better & e.worse) + len(c.worse & e.better)
                if swapped >= 2 and swapped > same:
                    return f"the abstract says the opposite: {_quote(_sentence_of(ctx, e.clause))}"
    # A change or degree word whose opposite is what the evidence says about the same thing.
    claim_words = _trend_words(ctx.claim_tokens)
    evidence_words = [w for toks in ctx.evidence_tokens for w in _trend_words(toks)]
    for dim, sign, near, word in claim_words:
        same = [w for w in evidence_words if w[0] == dim and w[1] == sign and (near & w[2] or not near)]
        opposite = [w for w in evidence_words if w[0] == dim and w[1] == -sign and near & w[2]]
        if opposite and not same:
            return f"the abstract says '{opposite[0][3]}', not '{word}': {_quote(_sentence_with(ctx, opposite[0][3]))}"
    return None


def _trend_words(tokens: Sequence[Token]) -> list[tuple[str, int, set[str], str]]:
    """(dimension, sign, content stems within a few words, the word) for each change or degree word."""
    out = []
    words = [t for t in tokens if not t.is_punct]
    for i, t in enumerate(words):
        key = t.lower if t.lower in _TRENDS else next((k for k in _TRENDS if t.stem == k or t.stem.startswith(k) and len(k) >= 5), None)
        if key is None:
            continue
        dim, sign = _TRENDS[key]
        near = {
            s
            for x in words[max(0, i - _WINDOW) : i + _WINDOW + 1]
            if x is not t and _is_content(x) and x.lower not in _TRENDS and x.stem not in _TRENDS
            for s in _stems_of(x)
        }
        out.append((dim, sign, near, t.lower))
    return out


# --------------------------------------------------------------------------------------------------------------
# Overclaim


_STRONG = {
    "prove": "proves", "proven": "proves", "guarante": "guarantees", "alway": "always", "everi": "every",
    "all": "all", "entir": "entirely", "complet": "completely", "fulli": "fully", "perfect": "perfectly",
    "elimin": "eliminates", "solv": "solves", "certain": "certainly", "definit": "definitively",
    "conclus": "conclusively", "univers": "universally", "invari": "invariably", "never": "never",
    "must": "must", "ensur": "ensures", "establish": "establishes", "confirm": "confirms", "best": "best",
    "first": "first", "onli": "only", "sole": "solely", "optim": "optimal",
}  # fmt: skip
_HEDGES = {"suggest", "may", "might", "could", "some", "most", "mani", "sever", "often", "typic", "usual",
           "general", "larg", "partial", "part", "mostli", "like", "potenti", "possibl", "indic", "appear",
           "seem", "hint", "tend", "nearli", "almost", "approxim", "rough", "promis", "preliminari", "modest",
           "up", "can", "limit"}  # fmt: skip


def _strong_key(token: Token) -> str | None:
    s = token.stem
    for key in _STRONG:
        if s == key or (len(key) >= 5 and s.startswith(key)):
            return key
    return None


def check_overclaim(ctx: _Context) -> str | None:
    evidence_stems = {t.stem for toks in ctx.evidence_tokens for t in toks}
    hedges = [t for toks in ctx.evidence_tokens for t in toks if t.stem in _HEDGES]
    for t in ctx.claim_tokens:
        key = _strong_key(t)
        if key is None or any(_strong_key(e) == key for toks in ctx.evidence_tokens for e in toks):
            continue
        if key in ("first", "best", "optim", "onli", "all") and any(_strong_key(a) == key for a in ctx.abstract_tokens):
            continue  # said elsewhere in the abstract
        if key in evidence_stems:
            continue
        if hedges:
            return f"the claim says '{t.text}' but the abstract only says '{hedges[0].text}': {_quote(ctx.evidence_texts[0])}"
        return f"the abstract does not say '{t.text}'"
    return None


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
)  # fmt: skip


def _term_positions(term: str, stems: Sequence[str]) -> bool:
    parts = term.split()
    if len(parts) == 1:
        return any(s == term or (len(term) >= 5 and s.startswith(term)) for s in stems)
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
        out.extend(_stems_of(t) if "-" in t.lower else [t.stem])
    return out


def check_scope(ctx: _Context) -> str | None:
    claim = _scope_stems(ctx.claim_tokens)
    abstract = _scope_stems(ctx.abstract_tokens)
    evidence = [s for toks in ctx.evidence_tokens for s in _scope_stems(toks)]
    for group in _SCOPE_GROUPS:
        for term in group:
            if not _term_positions(term, claim) or _term_positions(term, evidence):
                continue
            in_abstract = _term_positions(term, abstract)
            siblings = [o for o in group if o != term and not _is_part(term, o) and _term_positions(o, evidence)]
            if not in_abstract:
                siblings = siblings or [o for o in group if o != term and not _is_part(term, o) and _term_positions(o, abstract)]
            word = _surface(term, ctx.claim_tokens)
            if siblings:
                other = _surface(siblings[0], ctx.evidence_tokens[0] if _term_positions(siblings[0], evidence) else ctx.abstract_tokens, ctx)
                return f"the abstract is about {other}, not {word}"
            if not in_abstract:
                return f"the abstract does not mention {word}"
    return None


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


# --------------------------------------------------------------------------------------------------------------
# Novel details


_META = {stem(w) for w in "paper abstract author study studi result results find findings finding report approach "
         "framework method model technique propos work demonstr show reveal".split()}  # fmt: skip


@lru_cache(maxsize=50_000)
def english_frequency(word: str) -> float:
    """Zipf frequency of ``word`` in English (0 unknown .. ~7 'the'); wordfreq is imported on first use."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def check_novelty(ctx: _Context) -> str | None:
    novel = []
    common = ctx.policy.novel_word_max_zipf
    for t in ctx.claim_tokens:
        if not _is_content(t) or t.stem in _META or any(c.isdigit() for c in t.text):
            continue
        if common < 8.0 and english_frequency(t.lower) >= common:
            continue
        stems = _stems_of(t)
        if any(s in ctx.abstract_stems for s in stems):
            continue
        if "-" in t.lower and all(s in ctx.abstract_stems for s in stems[1:]):
            continue
        novel.append(t.text)
    novel = list(dict.fromkeys(novel))
    if len(novel) >= ctx.policy.novel_words_max:
        return f"the abstract does not mention {', '.join(repr(w) for w in novel[:5])}"
    return None


_CHECK_FUNCTIONS: dict[str, Callable[[_Context], str | None]] = {
    "numbers": check_numbers,
    "entities": check_entities,
    "polarity": check_polarity,
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
    overlap = len(claim_stems & abstract_stems) / len(claim_stems) if claim_stems else 1.0
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
