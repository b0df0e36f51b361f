"""Citation parsing and verification: pure functions over answer text and per-abstract support scores.

An answer is split into sentences; each sentence's ``[n]`` markers are parsed (``[1]``, ``[1, 3]``, ``[1][2]``,
``[1-3]``), markers outside the sources are dropped, and each sentence is scored against each abstract it cites.
A sentence its own citation does not support is re-attached to the source that does; one that nothing supports
is marked unverified.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.text import Span, content_words, numbers_in, sentence_spans

# A citation's support score: MiniLM similarity and word overlap with the cited abstract's best sentence (README,
# "How answers are made and checked", step on citations); the claim checks behind it are calibrated as README,
# "Calibration" says.
SUPPORT_THRESHOLD = 0.60
DENSE_WEIGHT = 0.55
OVERLAP_WEIGHT = 0.45
NUMBER_MISMATCH_CAP = 0.45  # a sentence stating a number its source does not contain is never verified

_MARKER_GROUP = re.compile(r"\[(\s*\d+\s*(?:(?:,|;|-|–|—)\s*\d+\s*)*)\]")
_ANY_MARKERS = re.compile(r"(?:\s*\[\s*\d+\s*(?:(?:,|;|-|–|—)\s*\d+\s*)*\])+")
MAX_RANGE = 20


@dataclass(frozen=True, slots=True)
class ParsedSentence:
    text: str  # without markers, whitespace tidied
    cited: tuple[int, ...]  # valid source numbers in order of first appearance
    dropped: tuple[int, ...] = ()  # numbers that point outside the sources


def parse_marker_numbers(group: str) -> list[int]:
    """'1, 3' -> [1, 3]; '1-3' -> [1, 2, 3]; absurd ranges are cut at MAX_RANGE numbers."""
    numbers: list[int] = []
    for part in re.split(r"[,;]", group):
        part = part.strip()
        if not part:
            continue
        bounds = re.split(r"\s*[-–—]\s*", part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            low, high = int(bounds[0]), int(bounds[1])
            if low <= high:
                numbers.extend(range(low, min(high, low + MAX_RANGE - 1) + 1))
        elif part.isdigit():
            numbers.append(int(part))
    return numbers


def markers_in(text: str) -> list[int]:
    """All cited numbers in order of appearance (duplicates kept)."""
    return [n for match in _MARKER_GROUP.finditer(text) for n in parse_marker_numbers(match.group(1))]


def strip_markers(text: str) -> str:
    text = _ANY_MARKERS.sub("", text)
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    return re.sub(r"[ \t]+", " ", text).strip()


def split_answer(text: str, n_sources: int) -> list[ParsedSentence]:
    """Split answer text into sentences with their citations.

    Markers standing at the start of a sentence (``"… end. [2] Next …"``) belong to the previous sentence. List
    items and lines are sentences of their own.
    """
    pieces: list[str] = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", line).strip()
        if not line:
            continue
        pieces.extend(s.of(line) for s in _sentence_spans_keeping_markers(line))
    result: list[ParsedSentence] = []
    for piece in pieces:
        leading = re.match(r"^(?:\s*\[[^\]]*\])+", piece)
        if leading and result and _MARKER_GROUP.search(leading.group(0)):
            carried = markers_in(leading.group(0))
            previous = result.pop()
            result.append(_parsed(previous.text, list(previous.cited) + list(previous.dropped) + carried, n_sources))
            piece = piece[leading.end() :]
        body = strip_markers(piece)
        if not re.search(r"\w", body):
            continue
        result.append(_parsed(body, markers_in(piece), n_sources))
    return result


def _sentence_spans_keeping_markers(line: str) -> list[Span]:
    # Sentence ends are looked for with markers masked, so "[1]." does not confuse the splitter.
    masked = _MARKER_GROUP.sub(lambda m: "X" * len(m.group(0)), line)
    return sentence_spans(masked)


def _parsed(text: str, numbers: list[int], n_sources: int) -> ParsedSentence:
    valid = tuple(dict.fromkeys(n for n in numbers if 1 <= n <= n_sources))
    dropped = tuple(dict.fromkeys(n for n in numbers if not 1 <= n <= n_sources))
    return ParsedSentence(text=text, cited=valid, dropped=dropped)


# --- support ---


def word_overlap(sentence: str, abstract_text: str) -> float:
    """Share of the sentence's content words that occur in the abstract (1.0 for a sentence with none)."""
    words = set(content_words(sentence))
    if not words:
        return 1.0
    return len(words & set(content_words(abstract_text))) / len(words)


def number_agreement(sentence: str, abstract_text: str) -> float:
    """Share of the sentence's numbers that the abstract states (1.0 when the sentence has none).

    Citation numbers and list ordinals are not claims; callers pass marker-free text.
    """
    numbers = numbers_in(sentence)
    if not numbers:
        return 1.0
    return len(numbers & numbers_in(abstract_text)) / len(numbers)


def support_score(dense: float, overlap: float, numbers: float) -> float:
    """Combine the signals into 0..1; a number the source does not state caps the score below the threshold."""
    score = DENSE_WEIGHT * max(0.0, min(1.0, dense)) + OVERLAP_WEIGHT * overlap
    if numbers < 1.0:
        score = min(score, NUMBER_MISMATCH_CAP)
    return round(score, 4)


@dataclass(frozen=True, slots=True)
class Support:
    score: float
    evidence: Span  # best-matching sentence of the abstract
    supported: bool | None = None  # the verifier's verdict (rag.verify); None: decide by ``score >= threshold``
    reason: str = ""  # why it is (not) supported, for people

    def passes(self, threshold: float) -> bool:
        return self.score >= threshold if self.supported is None else self.supported


SupportFn = Callable[[str, int], Support]  # (sentence text, source number) -> support


@dataclass(frozen=True, slots=True)
class VerifiedSentence:
    text: str
    citations: tuple[tuple[int, Support], ...]  # (source number, support), supporting ones only when verified
    verified: bool
    note: str = ""
    reason: str = ""  # when unverified: why the cited source does not support it (from rag.verify)


def verify_sentences(
    parsed: Sequence[ParsedSentence],
    n_sources: int,
    support: SupportFn,
    threshold: float = SUPPORT_THRESHOLD,
) -> list[VerifiedSentence]:
    """Check each sentence against the sources it cites; re-cite or flag it when they do not support it."""
    verified: list[VerifiedSentence] = []
    for sentence in parsed:
        own = [(n, support(sentence.text, n)) for n in sentence.cited]
        supporting = [(n, s) for n, s in own if s.passes(threshold)]
        note = (
            f"dropped citation(s) {', '.join(f'[{n}]' for n in sentence.dropped)} outside the sources; "
            if sentence.dropped
            else ""
        )
        if supporting:
            verified.append(VerifiedSentence(sentence.text, tuple(supporting), True, note.rstrip("; ")))
            continue
        others = [(n, support(sentence.text, n)) for n in range(1, n_sources + 1) if n not in sentence.cited]
        best = max(others, key=lambda item: item[1].score, default=None)
        if best is not None and best[1].passes(threshold):
            was = ", ".join(f"[{n}]" for n in sentence.cited) or "no citation"
            verified.append(VerifiedSentence(sentence.text, (best,), True, f"{note}re-cited from {was} to [{best[0]}]"))
        else:
            why = max(own, key=lambda item: item[1].score)[1].reason if own else ""
            why = why or ("it cites no source" if not own else "")
            verified.append(
                VerifiedSentence(sentence.text, tuple(own), False, f"{note}not supported by the sources", why)
            )
    return verified
