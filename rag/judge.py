"""The optional model judge: the generative model reads one answer sentence and its evidence and says whether the
evidence entails it, contradicts it, or does not state it. Pure functions here; the HTTP call is the composer's.

The judge can only take support away: a sentence the structured checks (rag.verify) reject stays unsupported
whatever the model says, and a contradiction (or, by default, "not stated") from the model makes a sentence the
checks accepted unsupported. A model cannot vouch for itself, so "entailed" never overrides a failed check.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

JudgeLabel = Literal["entailed", "contradicted", "not_stated"]
LABELS: tuple[JudgeLabel, ...] = ("entailed", "contradicted", "not_stated")

# Ollama's structured output: the reply must be JSON of this shape (``format=`` on /api/chat).
SCHEMA: dict = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": list(LABELS)},
        "reason": {"type": "string"},
    },
    "required": ["verdict", "reason"],
}

SYSTEM_PROMPT = """You check one claim against evidence quoted from a paper abstract.
Answer with JSON only: {"verdict": ..., "reason": ...}.
verdict is "entailed" when the evidence states the claim (paraphrase is fine), "contradicted" when the evidence
states the opposite or different facts (other numbers, the reverse comparison, a different setting), and
"not_stated" when the evidence does not say it either way. Judge strictly: a claim stronger than the evidence
("proves" for "suggests", "all" for "some") is not entailed. reason is one short sentence."""

MAX_REASON_CHARS = 200


@dataclass(frozen=True, slots=True)
class Judgement:
    label: JudgeLabel
    reason: str


def build_messages(claim: str, evidence: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Evidence:\n{evidence.strip()}\n\nClaim:\n{claim.strip()}"},
    ]


def parse(reply: str) -> Judgement | None:
    """The model's JSON reply as a Judgement; None when it is not the JSON asked for (never guessed from prose)."""
    try:
        data = json.loads(reply)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    label = str(data.get("verdict", "")).strip().lower().replace(" ", "_").replace("-", "_")
    if label not in LABELS:
        return None
    reason = data.get("reason")
    reason = " ".join(reason.split())[:MAX_REASON_CHARS] if isinstance(reason, str) else ""
    return Judgement(label, reason)  # type: ignore[arg-type]


def combine(
    checks_pass: bool, checks_reason: str, judgement: Judgement | None, rejects_not_stated: bool = True
) -> tuple[bool, str]:
    """(supported, reason) from the structured checks and the judge, conservatively: either side can reject."""
    if not checks_pass or judgement is None:
        return checks_pass, checks_reason
    if judgement.label == "contradicted":
        return False, "the model judge finds the abstract contradicts it" + (
            f": {judgement.reason}" if judgement.reason else ""
        )
    if judgement.label == "not_stated" and rejects_not_stated:
        return False, "the model judge finds the abstract does not state it" + (
            f": {judgement.reason}" if judgement.reason else ""
        )
    return True, checks_reason
