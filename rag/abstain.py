"""Whether the abstracts answer a question at all. Pure: decided from signals the pipeline measures.

A similarity threshold alone cannot tell near misses from answerable questions (their best-sentence similarities
overlap), so the decision leans on what the question names and asks for:
- a name-like term (acronym, model, dataset) that occurs in no abstract: the corpus cannot be about it;
- for a question about one paper, a name-like term missing from the abstract that answers it: the detail asked
  about ("…for GPT-4o", "…with LoRA") is not stated there;
- a number question whose evidence has no sentence with a number and the thing counted;
- a "which X" question whose answering abstract mentions none of the words describing X;
- and, as a backstop, a best-sentence similarity below a floor.
Thresholds are calibrated on eval/questions.jsonl (see README, "Abstention").
"""

from __future__ import annotations

from dataclasses import dataclass, field

DENSE_FLOOR = 0.30
NUMBER_FOCUS_MIN = 0.5


@dataclass(frozen=True, slots=True)
class AbstentionSignals:
    kind: str
    unknown_terms: tuple[str, ...] = ()  # name-like question terms that occur in no abstract
    terms_missing_from_answer: tuple[str, ...] = ()  # ... that occur elsewhere but not in the answering abstract
    best_dense: float = 1.0  # best MiniLM similarity of any evidence sentence
    number_evidence: bool = True  # a number question's evidence holds a number next to the counted thing
    focus_in_answer: float | None = None  # name questions: share of the asked-about words in the answering abstract
    reasons: list[str] = field(default_factory=list)


def decide(signals: AbstentionSignals) -> tuple[bool, str]:
    """Return (abstain, reason for the user)."""
    if signals.unknown_terms:
        terms = ", ".join(f"“{t}”" for t in signals.unknown_terms)
        return True, f"No abstract mentions {terms}."
    if signals.kind != "list" and signals.terms_missing_from_answer:
        terms = ", ".join(f"“{t}”" for t in signals.terms_missing_from_answer)
        return True, f"The most relevant abstract does not mention {terms}."
    if signals.kind == "name" and signals.focus_in_answer == 0.0:
        return True, "The most relevant abstract does not mention what the question asks about."
    if signals.kind == "number" and not signals.number_evidence:
        return True, "No abstract states the number asked for."
    if signals.best_dense < DENSE_FLOOR:
        return True, "No abstract is close enough to the question."
    return False, ""
