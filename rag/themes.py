"""The themes of the whole collection, for "what are the main themes of these papers?".

Papers are grouped by meaning (average-linkage clustering of their mean sentence vectors, cosine distance, scipy),
and each group is named by its most distinctive words (class-based TF-IDF, as BERTopic names its topics: a word's
frequency in the group times how few groups use it). Pure functions over arrays and word lists; the answer plan
that quotes them lives in rag.answering.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rag.text import content_words


@dataclass(frozen=True, slots=True)
class Theme:
    words: tuple[str, ...]  # its most distinctive words, most distinctive first (as written in the abstracts)
    abstract_ids: tuple[str, ...]  # its papers, the one nearest its centre first
    # the mean of its papers' vectors (what it is about, as one vector); None when made without vectors
    centre: np.ndarray | None = field(default=None, compare=False, repr=False)


def group_papers(vectors: np.ndarray, count: int) -> list[int]:
    """Each row's group (0-based), ``count`` groups at most, by average-linkage clustering on cosine distance: papers
    join the group whose papers they resemble most on average, so a broad group does not swallow a distinct one.
    One group when there are fewer than three rows."""
    n = len(vectors)
    if n < 3 or count <= 1:
        return [0] * n
    from scipy.cluster.hierarchy import fcluster, linkage

    tree = linkage(np.asarray(vectors, dtype=np.float64), method="ward")
    labels = fcluster(tree, t=min(count, n), criterion="maxclust")
    order = {label: i for i, label in enumerate(dict.fromkeys(labels.tolist()))}
    return [order[label] for label in labels.tolist()]


def distinctive_words(
    groups: Sequence[Sequence[str]],
    words_of: Mapping[str, Sequence[str]],
    most: int,
    min_papers: int = 2,
    commonness: Mapping[str, float] | None = None,
    min_share: float = 0.25,
) -> list[list[str]]:
    """For each group of abstract ids, its ``most`` most distinctive words: the share of the group's papers using
    the word times its inverse document frequency over all papers (log(papers / papers using it)), so a word most
    of the group uses and few others do names it, and one every abstract uses ("model") does not. A word must occur
    in at least ``min_papers`` of the group's papers (when it has that many) and ``min_share`` of them: one or two
    papers' vocabulary does not name a theme. ``commonness``: word -> its English Zipf frequency (about 1 for rare words, 7 for "the"); a word then
    also weighs by how rare it is in English (7 minus it), so "simple" or "state" does not name a theme that
    "motion" or "molecular" can."""
    papers = [Counter(w for aid in group for w in set(words_of.get(aid, ()))) for group in groups]
    df: Counter[str] = Counter()
    for p in papers:
        df.update(p)
    n = sum(len(group) for group in groups) or 1
    out = []
    for group, p in zip(groups, papers, strict=True):
        need = min(max(min_papers, math.ceil(min_share * len(group))), len(group))
        scored = {
            w: (k / len(group)) * math.log(n / df[w]) * (max(0.0, 7.0 - commonness.get(w, 0.0)) if commonness else 1.0)
            for w, k in p.items()
            if k >= need
        }
        out.append(sorted((w for w in scored if scored[w] > 0), key=lambda w: (-scored[w], w))[:most])
    return out


def find_themes(
    ids: Sequence[str],
    vectors: np.ndarray,
    words_of: Mapping[str, Sequence[str]],
    count: int,
    label_words: int = 3,
    rarity: Mapping[str, float] | None = None,
) -> list[Theme]:
    """The collection's themes: ``count`` groups at most of the papers ``ids`` (rows of ``vectors``, unit length),
    each named by its ``label_words`` most distinctive words (``words_of``: abstract id -> its words), its papers
    ordered by closeness to the group's centre; the largest theme first."""
    if not len(ids):
        return []
    labels = group_papers(vectors, count)
    members: dict[int, list[int]] = {}
    for row, label in enumerate(labels):
        members.setdefault(label, []).append(row)
    grouped: list[list[str]] = []
    centres: list[np.ndarray] = []
    for rows in sorted(members.values(), key=lambda rows: (-len(rows), rows[0])):
        centre = vectors[rows].mean(axis=0)
        nearest_first = sorted(rows, key=lambda r: (-float(vectors[r] @ centre), r))
        grouped.append([ids[r] for r in nearest_first])
        centres.append(centre)
    names = distinctive_words(grouped, words_of, label_words, commonness=rarity)
    return [
        Theme(tuple(words), tuple(group), centre)
        for words, group, centre in zip(names, grouped, centres, strict=True)
    ]


_WORD = re.compile(r"(?<![\\\w])[A-Za-z][A-Za-z-]*[A-Za-z]")  # not a LaTeX command ("\mathcal")


def words_and_forms(texts: Mapping[str, str]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Each text's content words (stems, rag.text.content_words, one per word written) and each stem's most
    frequent written form (lower-cased unless written with two capitals or more: "LLMs")."""
    forms: Counter[tuple[str, str]] = Counter()
    words_of: dict[str, list[str]] = {}
    for key, text in texts.items():
        words = []
        for token in _WORD.findall(text):
            stems = content_words(token)
            if len(stems) == 1 and len(token) > 2:
                words.append(stems[0])
                forms[(stems[0], token if sum(c.isupper() for c in token) >= 2 else token.lower())] += 1
        words_of[key] = words
    best: dict[str, tuple[int, str]] = {}
    for (stem, form), n in forms.items():
        if n > best.get(stem, (0, ""))[0]:
            best[stem] = (n, form)
    return words_of, {stem: form for stem, (_, form) in best.items()}
