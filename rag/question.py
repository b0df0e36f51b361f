"""What a question asks for: its kind (list, number, name, general), its focus words and its specific terms.

Pure functions over the question text; used to pick evidence, shape extractive answers and decide abstention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from rag.text import content_words

Kind = Literal["list", "number", "name", "general"]

_LIST = re.compile(
    r"^\s*(?:(?:which|what)\s+(?:other\s+)?(?:papers?|works?|abstracts?|studies|articles|approaches|methods)\b"
    r"|(?:list|name|find|show)\s+(?:all\s+|the\s+|any\s+)?(?:papers?|works?|abstracts?|studies)\b"
    r"|(?:are|is)\s+there\s+(?:any\s+|a\s+|an\s+)?(?:papers?|works?|abstracts?|studies|study)\b"
    r"|what\s+(?:work|research)\b"
    r"|(?:any\s+)?papers?\s+(?:on|about|that)\b)",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"\b(?:how\s+many|how\s+much|how\s+large|how\s+big|how\s+long|how\s+fast|by\s+how|what\s+(?:percentage|fraction|"
    r"proportion|number|share|ratio|speed-?up|size|rate|accuracy|score)|what\s+is\s+the\s+(?:number|size|"
    r"percentage))\b",
    re.IGNORECASE,
)
_NAME = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+)?(?:dataset|datasets|benchmark|benchmarks|model|models|method|algorithm|metric|"
    r"metrics|framework|architecture|baseline|baselines|language|languages|library|tool|environment|environments)\b"
    r"|\bwhat\s+is\s+(?:it|the\s+\w+)\s+called\b|\bwhat\s+name\b",
    re.IGNORECASE,
)
# Words that carry the question's grammar or generic research vocabulary rather than its topic.
_QUESTION_WORDS = frozenset(
    content_words(
        "how many much which what paper papers work works study studies abstract abstracts propose proposed "
        "introduce method approach use uses used report reports reported does do did is are was were model models "
        "result results show find found author authors achieve achieves specific specifically exactly number"
    )
)
_ANSWER_CATEGORIES = frozenset(
    content_words(
        "which what dataset datasets benchmark benchmarks model models method methods metric metrics algorithm "
        "framework architecture baseline baselines tool library environment environments"
    )
)
_FOCUS_STOP = re.compile(
    r"\b(?:does|do|did|is|are|was|were|can|could|will|would|has|have|had|in|on|of|for|from|by|with|at|to|used|"
    r"reported|the\s+paper)\b",
    re.IGNORECASE,
)
_SPECIFIC = re.compile(r"(?<![\w-])([A-Za-z0-9][\w]*(?:[-&.][\w]+)*)")


@dataclass(frozen=True, slots=True)
class QuestionProfile:
    text: str
    kind: Kind
    topic_words: tuple[str, ...]  # stemmed content words without question grammar
    focus_words: tuple[str, ...] = ()  # for number/name questions: what is counted or named ("screen", "gpu")
    specific_terms: tuple[str, ...] = field(default=())  # name-like tokens as written ("AssayBench", "GPT-4o")


def is_specific_term(token: str, first_word: bool) -> bool:
    """Acronyms, CamelCase, names with digits, and capitalised words that do not start the sentence."""
    if len(token) < 2 or token.isdigit():
        return False
    caps = sum(c.isupper() for c in token)
    digits = sum(c.isdigit() for c in token)
    if caps >= 2 or (caps >= 1 and digits >= 1):
        return True
    return caps == 1 and token[0].isupper() and not first_word and token.lower() not in {"i"}


_SENTENCE_END = re.compile(r"[.!?]\s*$|\n\s*$")


def specific_terms(question: str) -> list[str]:
    terms = []
    for i, match in enumerate(_SPECIFIC.finditer(question)):
        token = match.group(1).rstrip(".")
        # A capital at the start of any sentence of the question is grammar, not a name ("Ignore the… How many…").
        starts_sentence = i == 0 or bool(_SENTENCE_END.search(question, 0, match.start()))
        if is_specific_term(token, first_word=starts_sentence):
            terms.append(token)
    return terms


_WHICH_THING = re.compile(r"^\s*(?:which|what)\s+(?!does\b|do\b|did\b|is\b|are\b|was\b|were\b|can\b)\w+", re.I)
_UNIT = re.compile(r"\bin\s+(?:milliseconds|seconds|minutes|hours|ms|percent|bits|bytes|gb|mb|millimet\w+)\b", re.I)


def classify(question: str) -> Kind:
    """The kind of answer asked for; when several cues appear, the earliest one in the question wins."""
    if _LIST.search(question):
        return "list"
    cues: list[tuple[int, int, Kind]] = []  # (position, priority, kind): at a tie a number cue wins
    for priority, (pattern, kind) in enumerate(
        ((_NUMBER, "number"), (_UNIT, "number"), (_NAME, "name"), (_WHICH_THING, "name"))
    ):
        match = pattern.search(question)
        if match:
            cues.append((match.start(), priority, kind))
    return min(cues)[2] if cues else "general"


def focus_words(question: str, kind: Kind) -> list[str]:
    """The noun phrase a number/name question asks about: 'How many CRISPR screens does…' -> crispr, screen."""
    pattern = _NUMBER if kind == "number" else _NAME if kind == "name" else None
    if pattern is None:
        return []
    match = pattern.search(question)
    if match is None:  # e.g. "What is the latency of X in milliseconds?": the topic minus the names
        names = {w for term in specific_terms(question) for w in content_words(term)}
        return [w for w in content_words(question) if w not in _QUESTION_WORDS and w not in names]
    tail = question[match.end() :] if kind == "number" else question[match.start() :]
    stop = _FOCUS_STOP.search(tail)
    phrase = tail[: stop.start()] if stop else tail
    words = [w for w in content_words(phrase) if w not in _QUESTION_WORDS]
    if kind == "name":  # the category of the answer ("which dataset") is not something the abstract must say
        words = [w for w in words if w not in _ANSWER_CATEGORIES]
    return words


def profile(question: str) -> QuestionProfile:
    kind = classify(question)
    topic = [w for w in dict.fromkeys(content_words(question)) if w not in _QUESTION_WORDS]
    return QuestionProfile(
        text=question,
        kind=kind,
        topic_words=tuple(topic),
        focus_words=tuple(dict.fromkeys(focus_words(question, kind))),
        specific_terms=tuple(dict.fromkeys(specific_terms(question))),
    )


_CLAUSE_SPLIT = re.compile(
    r",\s*and\s+|\?\s+|;\s+|\s+and\s+(?=(?:what|which|how|why|when|where|who|does|do|is|are|can)\b)", re.I
)


def clauses(question: str) -> list[str]:
    """The parts of a compound question ("What is X, and how does it Y?"); one part for a simple question."""
    parts = [p.strip(" ?,") for p in _CLAUSE_SPLIT.split(question)]
    parts = [p for p in parts if len(p.split()) >= 3]
    return parts if len(parts) > 1 else []


def term_variants(term: str) -> set[str]:
    lowered = term.lower()
    variants = {lowered}
    if lowered.endswith("s") and len(lowered) > 3:
        variants.add(lowered[:-1])  # GPUs -> gpu
    return variants


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def term_occurs(term: str, lowered_text: str) -> bool:
    """Whether a name-like term occurs in (lower-cased) text as a word start, ignoring a plural 's'.

    The same test as the pattern ``(?<![a-z0-9])VARIANT s?(?![a-z0-9])``, done with ``str.find``: the text can be the
    whole corpus (tens of MB at 100k chunks), where a regular expression with a look-behind scans it 10-30x slower.
    """
    return any(_occurs_as_word(variant, lowered_text) for variant in term_variants(term))


def _occurs_as_word(word: str, text: str) -> bool:
    start = text.find(word)
    while start != -1:
        end = start + len(word)
        if start == 0 or text[start - 1] not in _WORD_CHARS:
            if end == len(text) or text[end] not in _WORD_CHARS:
                return True
            if text[end] == "s" and (end + 1 == len(text) or text[end + 1] not in _WORD_CHARS):
                return True
        start = text.find(word, start + 1)
    return False
