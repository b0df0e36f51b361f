"""The eval question file: load, validate (errors name the line), and resolve gold references to abstract IDs."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.corpus import Abstract
from rag.errors import QuestionFileError

QUESTION_TYPES = ("single", "multi", "paraphrase", "numeric", "unanswerable")
MIN_PREFIX_CHARS = 40
DEFAULT_QUESTIONS = Path(__file__).with_name("questions.jsonl")


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    type: str
    question: str
    gold: tuple[str, ...]  # abstract IDs or text prefixes, as written in the file
    key_facts: tuple[str, ...]
    line: int

    @property
    def answerable(self) -> bool:
        return self.type != "unanswerable"


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_questions(path: Path = DEFAULT_QUESTIONS) -> list[Question]:
    """Parse a JSONL question file; raise :class:`QuestionFileError` naming the line and the problem."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise QuestionFileError(f"{path}: no such question file") from None
    except (UnicodeDecodeError, OSError) as exc:
        raise QuestionFileError(f"{path}: cannot read the file ({exc})") from None
    questions: list[Question] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path.name}, line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QuestionFileError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise QuestionFileError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        missing = [f for f in ("id", "type", "question", "gold", "key_facts") if f not in obj]
        if missing:
            raise QuestionFileError(f"{where}: missing field(s) {', '.join(missing)}")
        qid, qtype, text, gold, facts = obj["id"], obj["type"], obj["question"], obj["gold"], obj["key_facts"]
        if not isinstance(qid, str) or not qid.strip():
            raise QuestionFileError(f"{where}: 'id' must be a non-empty string")
        if qid in seen:
            raise QuestionFileError(f"{where}: duplicate id {qid!r}")
        if qtype not in QUESTION_TYPES:
            raise QuestionFileError(f"{where}: 'type' must be one of {', '.join(QUESTION_TYPES)}, not {qtype!r}")
        if not isinstance(text, str) or not text.strip():
            raise QuestionFileError(f"{where}: 'question' must be a non-empty string")
        for name, value in (("gold", gold), ("key_facts", facts)):
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                raise QuestionFileError(f"{where}: '{name}' must be a list of non-empty strings")
        if qtype == "unanswerable" and (gold or facts):
            raise QuestionFileError(f"{where}: an unanswerable question has empty 'gold' and 'key_facts'")
        if qtype != "unanswerable" and not gold:
            raise QuestionFileError(f"{where}: an answerable question needs at least one 'gold' abstract")
        seen.add(qid)
        questions.append(Question(qid, qtype, text.strip(), tuple(gold), tuple(facts), number))
    if not questions:
        raise QuestionFileError(f"{path}: the file has no questions")
    return questions


def resolve_gold(question: Question, abstracts: Sequence[Abstract]) -> list[str]:
    """Map each gold reference (an ID, or a text prefix of >= 40 characters) to exactly one abstract ID."""
    by_id = {a.id: a for a in abstracts}
    resolved: list[str] = []
    for ref in question.gold:
        if ref in by_id:
            resolved.append(ref)
            continue
        if len(ref) < MIN_PREFIX_CHARS:
            raise QuestionFileError(
                f"line {question.line} ({question.id}): gold {ref!r} is neither an abstract ID nor a text prefix "
                f"of at least {MIN_PREFIX_CHARS} characters"
            )
        matches = [a.id for a in abstracts if a.text.startswith(ref)]
        if len(matches) != 1:
            raise QuestionFileError(
                f"line {question.line} ({question.id}): gold prefix {ref[:50]!r}… matches {len(matches)} abstracts"
            )
        resolved.append(matches[0])
    return resolved
