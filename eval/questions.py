"""The eval question file: load, validate (errors name the line), and resolve gold references to abstract IDs."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.corpus import Abstract
from rag.errors import QuestionFileError

QUESTION_TYPES = ("single", "multi", "paraphrase", "numeric", "unanswerable")
# What a question looks like to the person asking it; the report breaks every metric down by shape.
SHAPES = (
    "fact", "number", "name", "paraphrase", "keyword", "how_why", "list", "compare", "summary", "yes_no",
    "followup", "chinese", "typo", "near_miss", "adjacent",
)  # fmt: skip
UNANSWERABLE_SHAPES = ("near_miss", "adjacent")
# dev: fit thresholds and weights; test: report (written blind, never tuned on); regression: the first set;
# validation: written blind, read only as aggregate figures, to choose between changes (what to merge), never tuned on.
SPLITS = ("dev", "test", "regression", "validation")
# A file written before shapes existed: its type says enough.
SHAPE_OF_TYPE = {"single": "fact", "numeric": "number", "multi": "list", "paraphrase": "paraphrase",
                 "unanswerable": "near_miss"}  # fmt: skip
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
    split: str = ""  # "" when the file has no splits
    shape: str = ""
    history: tuple[str, ...] = ()  # earlier user turns of the conversation, asked first and in order

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
        split, shape, history = _optional_fields(obj, qtype, where)
        seen.add(qid)
        questions.append(
            Question(qid, qtype, text.strip(), tuple(gold), tuple(facts), number, split, shape, tuple(history))
        )
    if not questions:
        raise QuestionFileError(f"{path}: the file has no questions")
    return questions


def _optional_fields(obj: dict, qtype: str, where: str) -> tuple[str, str, list[str]]:
    split = obj.get("split", "")
    if split != "" and split not in SPLITS:
        raise QuestionFileError(f"{where}: 'split' must be one of {', '.join(SPLITS)}, not {split!r}")
    shape = obj.get("shape", SHAPE_OF_TYPE[qtype])
    if shape not in SHAPES:
        raise QuestionFileError(f"{where}: 'shape' must be one of {', '.join(SHAPES)}, not {shape!r}")
    if (shape in UNANSWERABLE_SHAPES) != (qtype == "unanswerable"):
        raise QuestionFileError(f"{where}: shape {shape!r} does not fit type {qtype!r}")
    history = obj.get("history", [])
    if not isinstance(history, list) or not all(isinstance(h, str) and h.strip() for h in history):
        raise QuestionFileError(f"{where}: 'history' must be a list of earlier questions (non-empty strings)")
    return split, shape, history


def select_split(questions: Sequence[Question], split: str | None) -> list[Question]:
    """The questions of one split (``None`` or "all": every question)."""
    if split in (None, "all"):
        return list(questions)
    chosen = [q for q in questions if q.split == split]
    if not chosen:
        raise QuestionFileError(f"no questions in split {split!r}; the file has {sorted({q.split for q in questions})}")
    return chosen


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


# --- writer sets: questions written by one writer share a style, so transfer is measured set by set ---

TEAM_SETS = ("q", "d")  # the team's own questions (regression, dev): one writer group
_SET = re.compile(r"[A-Za-z]+")


def writer_set(question_id: str, team: Collection[str] = TEAM_SETS) -> str:
    """The writer set of a question: its ID's leading letters ("e" of "e042", "b" of "b007"), with the team's own
    prefixes merged into one set, "team" (one set of writers, one style)."""
    match = _SET.match(question_id)
    prefix = match.group(0).lower() if match else ""
    return "team" if prefix in team else prefix


def writer_sets(ids: Sequence[str], team: Collection[str] = TEAM_SETS) -> list[str]:
    return [writer_set(str(i), team) for i in ids]
