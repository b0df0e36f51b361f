"""Evaluation metrics as pure functions over ids and strings. Empty inputs are defined, never errors."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from rag.text import normalize_number


def hit_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """1.0 if any gold id is among the first ``k`` ranked ids, else 0.0 (0.0 when there is no gold)."""
    gold_set = set(gold)
    return float(bool(gold_set) and any(r in gold_set for r in ranked[:k]))


def recall_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Share of gold ids found in the first ``k`` (0.0 when there is no gold)."""
    gold_set = set(gold)
    if not gold_set:
        return 0.0
    return len(gold_set & set(ranked[:k])) / len(gold_set)


def mrr_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Reciprocal rank of the first gold id within the first ``k``; 0.0 if none."""
    gold_set = set(gold)
    for rank, item in enumerate(ranked[:k], start=1):
        if item in gold_set:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Binary-relevance nDCG@k (duplicates in ``ranked`` count once)."""
    gold_set = set(gold)
    if not gold_set:
        return 0.0
    seen: set[str] = set()
    dcg = 0.0
    for rank, item in enumerate(ranked[:k], start=1):
        if item in gold_set and item not in seen:
            dcg += 1.0 / math.log2(rank + 1)
        seen.add(item)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(gold_set), k) + 1))
    return dcg / ideal


def citation_prf(cited: Iterable[str], gold: Iterable[str]) -> tuple[float, float, float]:
    """Precision, recall and F1 of the cited abstract set against the gold set (0s when either is empty)."""
    cited_set, gold_set = set(cited), set(gold)
    if not cited_set or not gold_set:
        return 0.0, 0.0, 0.0
    correct = len(cited_set & gold_set)
    precision = correct / len(cited_set)
    recall = correct / len(gold_set)
    f1 = 2 * precision * recall / (precision + recall) if correct else 0.0
    return precision, recall, f1


_NUMBER_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?%?")


def _normalize_fact_text(text: str) -> str:
    text = text.lower().replace("\u2011", "-").replace("\u2013", "-")
    text = _NUMBER_TOKEN.sub(lambda m: normalize_number(m.group(0)), text)
    return re.sub(r"\s+", " ", text)


def fact_present(fact: str, answer: str) -> bool:
    """Case-insensitive containment, with numbers compared after normalisation ("1,920" = "1920")."""
    needle = _normalize_fact_text(fact).strip()
    if not needle:
        return False
    # Word-start boundary on the left, no digit continuing on the right: "245" is not in "2450", "0.85" not in
    # "0.855", while "screen" still matches "screens".
    pattern = r"(?<![a-z0-9])" + re.escape(needle) + r"(?![0-9])"
    return re.search(pattern, _normalize_fact_text(answer)) is not None


def key_fact_coverage(facts: Sequence[str], answer: str) -> float:
    """Share of key facts found in the answer; 1.0 when there are none to find."""
    if not facts:
        return 1.0
    return sum(fact_present(f, answer) for f in facts) / len(facts)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")
