"""The extractive answerer: no model, just the evidence sentences themselves, each with its citation.

Single-paper questions get the 1-3 sentences that answer them; list questions one line per relevant abstract.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.corpus import Abstract
from rag.evidence import EvidenceSentence, best_per_abstract, pick_sentences
from rag.question import QuestionProfile

# List questions: an abstract joins the list when its best sentence scores within LIST_MARGIN of the best
# abstract's and above LIST_FLOOR (calibrated on the multi questions of eval/questions.jsonl; see README).
LIST_MARGIN = 0.25
LIST_FLOOR = 0.5
LIST_MAX = 8


@dataclass(frozen=True, slots=True)
class ExtractivePlan:
    """Which abstracts are cited (in citation order) and which sentences of each are quoted."""

    abstract_ids: list[str]
    sentences: list[EvidenceSentence]


def with_marker(sentence: str, number: int) -> str:
    """Put ``[n]`` before the sentence's final punctuation: 'It works.' -> 'It works [1].'"""
    sentence = sentence.strip()
    match = re.search(r"([.!?]+[\"')\]]*)$", sentence)
    if match:
        return f"{sentence[: match.start()].rstrip()} [{number}]{match.group(1)}"
    return f"{sentence} [{number}]"


def plan_single(
    abstract_id: str,
    evidence: Sequence[EvidenceSentence],
    profile: QuestionProfile,
    clause_evidence: Sequence[Sequence[EvidenceSentence]] = (),
) -> ExtractivePlan:
    """Quote the sentences of the top abstract that answer the question (and each part of it)."""
    return ExtractivePlan([abstract_id], pick_sentences(evidence, profile, clause_evidence))


def plan_list(evidence: Sequence[EvidenceSentence]) -> ExtractivePlan:
    """One key sentence per relevant abstract, considering every abstract in the corpus."""
    best = best_per_abstract(evidence)
    ranked = sorted(best.values(), key=lambda e: (-e.score, e.row))
    if not ranked:
        return ExtractivePlan([], [])
    cutoff = max(LIST_FLOOR, ranked[0].score - LIST_MARGIN)
    members = [e for e in ranked if e.score >= cutoff][:LIST_MAX] or ranked[:1]
    return ExtractivePlan([e.abstract_id for e in members], members)


def render(plan: ExtractivePlan, abstracts: dict[str, Abstract], as_list: bool) -> str:
    numbers = {aid: i for i, aid in enumerate(plan.abstract_ids, start=1)}
    if as_list:
        return "\n".join(
            f"- {abstracts[e.abstract_id].label}: {with_marker(e.text, numbers[e.abstract_id])}" for e in plan.sentences
        )
    return " ".join(with_marker(e.text, numbers[e.abstract_id]) for e in plan.sentences)
