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
        "seconds": answer.timings.total_s,
        "references": references,
        "nearest": nearest,
        # what a follow-up needs to resolve "the second one" (see rag.followup)
        "sources": [{"number": s.number, "id": s.abstract.id, "label": s.abstract.label} for s in answer.sources],
    }


def history(turns: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The engine-side conversation (``[{"role", "content"[, "sources"]}]``) of the answered turns."""
    out: list[dict[str, Any]] = []
    for turn in turns:
        if (
            not isinstance(turn, Mapping)
            or turn.get("error")
            or turn.get("pending")
            or not isinstance(turn.get("text"), str)
        ):
            continue
        out.append({"role": "user", "content": str(turn.get("question", ""))})
        out.append({"role": "assistant", "content": turn["text"], "sources": list(turn.get("sources") or [])})
    return out


def bibtex_key(abstract_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", str(abstract_id)).strip("_") or "abstract"


def _bib_value(text: object) -> str:
    return _one_line(str(text)).replace("{", "(").replace("}", ")").replace("\\", "/")


def bibtex_entry(ref: Mapping[str, Any], *, venue: str = "NeurIPS 2026 abstracts") -> str:
    """A BibTeX-style ``@misc`` entry for one cited abstract (label, ID, files; no author data exists)."""
    where = "; ".join(ref.get("locations") or [])
    note = f"{venue}; ID {ref.get('id', '')}" + (f"; {where}" if where else "")
    return (
        f"@misc{{{bibtex_key(ref.get('id', ''))},\n"
        f"  title = {{{_bib_value(ref.get('label', ''))}}},\n"
        f"  note = {{{_bib_value(note)}}},\n"
        "  year = {2026}\n}"
    )


def bibtex(turns: Sequence[Mapping[str, Any]]) -> str:
    """One entry per abstract cited anywhere in ``turns`` (each once, in order of first citation)."""
    seen: dict[str, Mapping[str, Any]] = {}
    for turn in turns:
        for ref in turn.get("references") or []:
            seen.setdefault(str(ref.get("id", "")), ref)
    return "\n\n".join(bibtex_entry(ref) for ref in seen.values())


def answer_markdown(turn: Mapping[str, Any], *, with_bibtex: bool = False) -> str:
    """One answer as Markdown notes: the question, the answer with [n] markers, its references (and BibTeX)."""
    text = turn_markdown(turn).rstrip() + "\n"
    entries = bibtex([turn]) if with_bibtex else ""
    if entries:
        text += "\n**BibTeX**\n\n```bibtex\n" + entries + "\n```\n"
    return text


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
    if turn.get("error"):
        lines += [f"*Not answered: {_one_line(turn['error'])}*", ""]
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
    entries = bibtex(turns)
    if entries:
        parts += ["## BibTeX", "", "```bibtex", entries, "```", ""]
    return "\n".join(parts).rstrip() + "\n"
