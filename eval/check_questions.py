"""Check a question file against the seeds: every gold reference resolves to exactly one abstract, every key fact
occurs in a gold abstract, and every split has each shape. Prints the counts; exits 1 on any problem.

    python -m eval.check_questions [--questions eval/questions.jsonl] [--seeds seeds]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from rag.corpus import load_corpus
from rag.errors import RagError

from .metrics import fact_present
from .questions import DEFAULT_QUESTIONS, SHAPES, load_questions, resolve_gold

ROOT = Path(__file__).resolve().parents[1]


def problems_in(questions, abstracts) -> list[str]:
    """Every problem found, one line each (empty when the file is sound)."""
    by_id = {a.id: a for a in abstracts}
    found: list[str] = []
    for q in questions:
        try:
            gold = resolve_gold(q, abstracts)
        except RagError as exc:
            found.append(str(exc))
            continue
        if len(set(gold)) != len(gold):
            found.append(f"line {q.line} ({q.id}): the same abstract is listed twice in gold")
        for fact in q.key_facts:
            if not any(fact_present(fact, by_id[g].text) for g in gold):
                found.append(f"line {q.line} ({q.id}): key fact {fact!r} is in no gold abstract")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.check_questions", description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS, help="JSONL question file")
    parser.add_argument("--seeds", type=Path, nargs="+", default=[ROOT / "seeds"], help="seed files or folders")
    args = parser.parse_args(argv)
    try:
        questions = load_questions(args.questions)
        abstracts = load_corpus(args.seeds)
    except RagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    counts = Counter((q.split or "-", q.shape) for q in questions)
    splits = sorted({split for split, _ in counts})
    print("| shape | " + " | ".join(splits) + " |")
    print("|---|" + "---|" * len(splits))
    for shape in SHAPES:
        if any(counts[(split, shape)] for split in splits):
            print(f"| {shape} | " + " | ".join(str(counts[(split, shape)]) for split in splits) + " |")
    print("| total | " + " | ".join(str(sum(n for (s, _), n in counts.items() if s == split)) for split in splits)
          + " |")  # fmt: skip
    found = problems_in(questions, abstracts)
    for line in found:
        print(f"problem: {line}", file=sys.stderr)
    print(f"{len(questions)} questions, {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
