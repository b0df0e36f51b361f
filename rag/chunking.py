"""Abstracts -> chunks of whole sentences that fit the encoder, so no sentence is ever cut off.

The packing itself is a pure function over token counts; :class:`SentencePackingParser` wraps it as a LlamaIndex
node parser so ingestion produces ordinary ``TextNode`` objects.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from rag.corpus import Abstract
from rag.text import Span

TokenCounter = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of an abstract's text, embedded as one vector."""

    id: str
    abstract_id: str
    ordinal: int
    start: int
    end: int
    text: str


def pack_sentences(token_counts: Sequence[int], max_tokens: int, overlap: int) -> list[tuple[int, int]]:
    """Group consecutive sentences into windows ``[first, last)`` whose summed tokens fit ``max_tokens``.

    Each window after the first repeats up to ``overlap`` trailing sentences of the previous one (while they fit),
    and every sentence lies wholly inside at least one window. A sentence larger than ``max_tokens`` gets a window
    of its own; the caller splits it further.
    """
    windows: list[tuple[int, int]] = []
    n = len(token_counts)
    first = 0
    while first < n:
        last, used = first, 0
        while last < n and (last == first or used + token_counts[last] <= max_tokens):
            used += token_counts[last]
            last += 1
        windows.append((first, last))
        if last >= n:
            break
        # Start the next window with overlap sentences, but always make progress and keep room for the next one.
        next_first = max(last - overlap, first + 1)
        while next_first < last and sum(token_counts[next_first : last + 1]) > max_tokens:
            next_first += 1
        first = next_first
    return windows


def split_long_span(text: str, span: Span, count_tokens: TokenCounter, max_tokens: int) -> list[Span]:
    """Split one over-long sentence at word boundaries into pieces that each fit ``max_tokens`` (half overlap).

    Each distinct word is counted once and a piece's count is the sum of its words' (exact for BERT's WordPiece,
    which splits at whitespace before anything else): counting every growing prefix again made this quadratic in a
    piece's length, minutes for a long paragraph without punctuation.
    """
    words: list[Span] = []
    counts: list[int] = []
    seen: dict[str, int] = {}
    pos = span.start
    for word in span.of(text).split(" "):
        if word:
            words.append(Span(pos, pos + len(word)))
            if word not in seen:
                seen[word] = count_tokens(word)
            counts.append(seen[word])
        pos += len(word) + 1
    prefix = [0, *accumulate(counts)]  # tokens of words[i:j] == prefix[j] - prefix[i]
    pieces: list[Span] = []
    i = 0
    while i < len(words):
        j = i + 1
        while j < len(words) and prefix[j + 1] - prefix[i] <= max_tokens:
            j += 1
        pieces.append(Span(words[i].start, words[j - 1].end))
        if j >= len(words):
            break
        i = max(i + 1, j - max(1, (j - i) // 2))
    return pieces


def chunk_abstract(
    abstract: Abstract, count_tokens: TokenCounter, max_tokens: int, overlap_sentences: int
) -> list[Chunk]:
    """Chunks for one abstract; ``count_tokens`` must count what the encoder sees (special tokens excluded)."""
    sentences = list(abstract.sentences)
    counts = [count_tokens(s.of(abstract.text)) for s in sentences]
    spans: list[Span] = []
    for first, last in pack_sentences(counts, max_tokens, overlap_sentences):
        if last - first == 1 and counts[first] > max_tokens:
            spans.extend(split_long_span(abstract.text, sentences[first], count_tokens, max_tokens))
        else:
            spans.append(Span(sentences[first].start, sentences[last - 1].end))
    return [
        Chunk(
            id=f"{abstract.id}:{i}",
            abstract_id=abstract.id,
            ordinal=i,
            start=span.start,
            end=span.end,
            text=span.of(abstract.text),
        )
        for i, span in enumerate(spans)
    ]
