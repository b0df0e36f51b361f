"""The chat as Markdown notes: questions, answers with their [n] markers, and a numbered reference list per answer.

Pure functions. :func:`turn_record` keeps what the export needs of one answer as plain data (it lives in the
page's state); :func:`chat_markdown` writes the document.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from rag.answer import Answer

_MARKER = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")


def cited_numbers(answer: Answer) -> list[int]:
    """Source numbers the answer cites: its sentences' citations and the [n] markers of its text, in order."""
    numbers = [c.number for s in answer.sentences for c in s.citations]
    numbers += [int(n) for m in _MARKER.finditer(answer.text or "") for n in re.split(r"\s*,\s*", m.group(1))]
    return sorted(set(numbers))


def turn_record(answer: Answer) -> dict[str, Any]:
    """One answered question as plain data: question, text, and each cited source with its evidence sentence."""
    spans: dict[int, tuple[int, int]] = {}
    for sentence in answer.sentences:
        for c in sentence.citations:
            if c.evidence_end > c.evidence_start:
                spans.setdefault(c.number, (c.evidence_start, c.evidence_end))
    by_number = {s.number: s for s in answer.sources}
    references = []
    for number in cited_numbers(answer):
        source = by_number.get(number)
        if source is None:
            continue
        a = source.abstract
        start, end = spans.get(number, (0, 0))
        references.append(
            {
                "number": number,
                "label": a.label,
                "id": a.id,
                "locations": [str(loc) for loc in a.locations],
                "evidence": a.text[start:end].strip(),
            }
        )
    nearest = [{"label": s.abstract.label, "id": s.abstract.id} for s in answer.nearest] if answer.abstained else []
    return {
        "question": answer.question,
        "text": answer.text,
        "backend": answer.backend + (f" · {answer.model}" if answer.model else ""),
        "references": references,
        "nearest": nearest,
    }


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def turn_markdown(turn: Mapping[str, Any], index: int | None = None) -> str:
    """One question and answer with its reference list."""
    head = f"## {index}. " if index is not None else "## "
    lines = [head + _one_line(turn.get("question", "")), "", str(turn.get("text", "")).strip(), ""]
    references = turn.get("references") or []
    if references:
        lines += ["**References**", ""]
        for ref in references:
            where = ", ".join(ref.get("locations") or [])
            entry = f"[{ref['number']}] **{_one_line(ref['label'])}** — ID `{ref['id']}`"
            if where:
                entry += f" — {where}"
            if ref.get("evidence"):
                entry += f" — “{_one_line(ref['evidence'])}”"
            lines.append(entry)
            lines.append("")
    elif turn.get("nearest"):
        lines += ["**Closest abstracts** (none answers the question)", ""]
        lines += [f"- **{_one_line(n['label'])}** — ID `{n['id']}`" for n in turn["nearest"]] + [""]
    if turn.get("backend"):
        lines += [f"*Answered by: {turn['backend']}*", ""]
    return "\n".join(lines)


def chat_markdown(turns: Sequence[Mapping[str, Any]], *, title: str, now: datetime | None = None) -> str:
    """The whole conversation as one Markdown document."""
    now = now or datetime.now(UTC)
    parts = [f"# {title}", "", f"Chat exported {now:%Y-%m-%d %H:%M} UTC · {len(turns)} question(s)", ""]
    if not turns:
        parts += ["*(No questions asked yet.)*", ""]
    parts += [turn_markdown(t, i) for i, t in enumerate(turns, 1)]
    return "\n".join(parts).rstrip() + "\n"
