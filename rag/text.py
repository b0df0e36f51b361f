"""Pure text helpers: sentence spans, word tokens for BM25, numbers. No models, no I/O."""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import Stemmer

# Words after which a period does not end a sentence.
_ABBREVIATIONS = {
    "e.g", "i.e", "etc", "vs", "cf", "al", "fig", "figs", "eq", "eqs", "sec", "resp", "approx", "w.r.t",
    "no", "dr", "mr", "ms", "prof", "st", "ref", "refs", "tab", "viz", "incl", "est", "ca", "u.s",
}  # fmt: skip

# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) when whitespace and a plausible
# sentence start follow.
_BOUNDARY = re.compile(r"""[.!?]["')\]]*(?=\s+["'(\[]?[A-Z0-9$\\])""")
# Text extracted from PDFs or web pages sometimes loses the space after a period ("evidence.We propose"): a
# period between a lower-case word and a capitalised word is a boundary too, unless the word is part of a link,
# a file name or an e-mail address (no slash, @ or second dot in it).
_GLUED_BOUNDARY = re.compile(r"(?<=[a-z]{3})\.(?=[A-Z][a-z]+\b)")
_LINK_CHARS = re.compile(r"[/@]|\.\w+\.")


@dataclass(frozen=True, slots=True)
class Span:
    """Half-open character range ``[start, end)`` into a text."""

    start: int
    end: int

    def of(self, text: str) -> str:
        return text[self.start : self.end]


def printable(text: str, keep: str = "") -> str:
    """``text`` safe to print on a terminal: control and invisible format characters (escape sequences, bidi
    overrides that reorder what follows) written as ``\\x1b``/``\\u202e``, as ``repr`` would; ``keep`` lists
    characters to leave as they are (e.g. newlines in a message)."""
    if text.isprintable():
        return text
    out = []
    for c in text:
        if c in keep or unicodedata.category(c)[0] != "C":
            out.append(c)
        else:
            code = ord(c)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def normalize_whitespace(text: str) -> str:
    """NFC, and every run of whitespace (newlines included) collapsed to one space."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip()


_WORD_BEFORE_DOT = re.compile(r"[A-Za-z][A-Za-z.]*\Z")


def _ends_with_abbreviation(text: str, dot: int) -> bool:
    if text[dot] != ".":
        return False
    # Only the word just before the dot matters; searching a short window instead of all of text[:dot] keeps
    # splitting linear in the text's length (a longer word is no abbreviation either way).
    word = _WORD_BEFORE_DOT.search(text, max(0, dot - 64), dot)
    if word is None:
        return False
    token = word.group(0).lower().rstrip(".")
    if token in _ABBREVIATIONS:
        return True
    # Single capital initials ("J. Smith") are not sentence ends.
    return len(token) == 1 and text[dot - 1].isupper()


def sentence_spans(text: str) -> list[Span]:
    """Split ``text`` into sentence spans; every non-space character belongs to exactly one span."""
    spans: list[Span] = []
    start = 0
    for end in _boundary_ends(text):
        if text[start:end].strip():
            spans.append(_trimmed(text, start, end))
        start = end
    if text[start:].strip():
        spans.append(_trimmed(text, start, len(text)))
    return spans


def _boundary_ends(text: str) -> list[int]:
    ends = {m.end() for m in _BOUNDARY.finditer(text) if not _ends_with_abbreviation(text, m.start())}
    for match in _GLUED_BOUNDARY.finditer(text):
        left = text.rfind(" ", 0, match.start()) + 1
        right = text.find(" ", match.end())
        if not _LINK_CHARS.search(text[left : right if right >= 0 else len(text)]):
            ends.add(match.end())
    return sorted(ends)


def _trimmed(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end)


# --- tokens for lexical matching ---


def plural_s(word: str) -> bool:
    """Whether a lower-case word ends as a plural in -s does ("params", "images"; not "loss")."""
    return word.endswith("s") and not word.endswith("ss")


def name_singular(lowered: str) -> str:
    """A lower-cased name without a plural "s" ("gpus" -> "gpu"; "loss" kept). Names are
    matched in raw text, where no stemmer runs; words go through :func:`stem` instead."""
    return lowered[:-1] if len(lowered) > 3 and plural_s(lowered) else lowered


def initials_run(letters: str, rest: str, joiner: str) -> str:
    """A pattern of words whose initials spell ``letters`` ("mcts": "monte carlo tree search"): each letter followed
    by ``rest`` (the rest of a word), the words joined by ``joiner``."""
    return joiner.join(re.escape(c) + rest for c in letters)


def has_name_capitals(token: str) -> bool:
    """Two or more capitals, or a capital and a digit: how a method's or benchmark's name is written ("AssayBench",
    "CATE", "sBMF", "GPT-4o"), unlike an everyday word ("Results") or a number."""
    caps = sum(c.isupper() for c in token)
    return caps >= 2 or (caps >= 1 and any(c.isdigit() for c in token))


_STOPWORDS = frozenset(
    """a an the and or but if then else of in on at to for from by with without as is are was were be been being
    this that these those it its we our us they their them he she his her you your i me my do does did done can
    could should would will shall may might must not no nor so such than too very via into onto over under about
    above below between among across through during before after while which who whom whose what when where why
    how all any both each few more most other some same own only also just one two using use used based show shows
    shown propose proposes proposed present presents introduce introduces paper work approach method methods new
    there here has have had having isn aren wasn weren don doesn didn haven hasn won""".split()
)

_WORD = re.compile(r"[A-Za-z0-9]+(?:[-'\u2019][A-Za-z0-9]+)*")


_stemmers = threading.local()  # a PyStemmer object is not safe to share between threads


@lru_cache(maxsize=200_000)  # corpora repeat words; building BM25 over 100k chunks stems millions
def stem(word: str) -> str:
    """Snowball's English stem of a lower-cased word: "screens" -> "screen"; "calibrated", "calibration" -> "calibr";
    "evaluate", "evaluated", "evaluation" -> "evalu". Content words (BM25, focus) and claim checks use it."""
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = Stemmer.Stemmer("english")
    return stemmer.stemWord(word)


def content_words(text: str) -> list[str]:
    """Lower-cased, stemmed (Snowball) words without stop words; hyphenated terms also yield their parts."""
    words: list[str] = []
    for match in _WORD.finditer(text):
        raw = match.group(0).lower().replace("\u2019", "'")
        if "'" in raw:  # possessives and contractions: "co-locator's" -> "co-locator", "isn't" -> "isn"
            raw = raw.split("'", 1)[0]
        parts = [raw] + (raw.split("-") if "-" in raw else [])
        for part in parts:
            if part in _STOPWORDS or (len(part) < 2 and not part.isdigit()):
                continue
            words.append(stem(part))
    return words


# --- numbers ---

# Number words and their values (counts written out, "dozen", scale words), for reading quantities in text.
NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "thousand": 1000, "dozen": 12,
}  # fmt: skip

_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?%?")


def normalize_number(token: str) -> str:
    """'1,920' -> '1920', '45.0%' -> '45%', '3.50' -> '3.5'."""
    token = token.replace(",", "").lstrip("+")
    percent = token.endswith("%")
    token = token.rstrip("%")
    if "." in token:
        token = token.rstrip("0").rstrip(".")
    return token + ("%" if percent else "")


def numbers_in(text: str) -> set[str]:
    """Normalized numbers written in ``text`` (thousands separators and trailing zeros ignored)."""
    found = set()
    for match in _NUMBER.finditer(text):
        raw = match.group(0).rstrip(",")
        if raw.replace(",", "").replace(".", "").replace("%", "").lstrip("+-"):
            found.add(normalize_number(raw))
    return found
