"""Synthetic typo variants of the dev questions: how answers hold up when questions are typed the way people type.

Each dev question without a conversation history (Chinese ones aside) gets ``--per`` variants. A variant misspells
some of its words of four letters or more (``--rate``, at least one word) with one seeded edit each — two adjacent
letters swapped, a letter dropped, a letter doubled, or a letter replaced by a neighbour on a QWERTY keyboard — and
every other variant is also typed all in lower case ("assaybench", "gpt-4o"). The first letter of a word is kept (people
rarely mistype it). Gold, key facts, split and shape are the original question's, so ``rag eval`` reports the
variants per shape next to the originals; ids are ``<id>~t<n>``.

    python -m eval.typo_variants [--questions eval/questions.jsonl] [--split dev] [--per 2] [--rate 0.3]
                                 [--seed 13] [--out eval/typo_variants.jsonl]
    python -m rag.cli eval --backend extractive --questions eval/typo_variants.jsonl --out DIR
"""

from __future__ import annotations

import argparse
import json
import random
import re
import zlib
from pathlib import Path

from .questions import DEFAULT_QUESTIONS

_WORD = re.compile(r"[A-Za-z]{4,}")
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_NEIGHBOURS = {
    c: "".join(
        _ROWS[r2][c2]
        for r2 in range(max(0, r - 1), min(len(_ROWS), r + 2))
        for c2 in range(max(0, i - 1), i + 2)
        if c2 < len(_ROWS[r2]) and _ROWS[r2][c2] != c
    )
    for r, row in enumerate(_ROWS)
    for i, c in enumerate(row)
}
EDITS = ("swap", "drop", "double", "neighbour")


def misspell(word: str, rng: random.Random, edit: str | None = None) -> str:
    """One edit of ``word`` (four letters or more) that keeps its first letter; the case of a replaced letter is
    kept."""
    edit = edit or rng.choice(EDITS)
    i = rng.randrange(1, len(word) - 1) if edit == "swap" else rng.randrange(1, len(word))
    if edit == "swap":
        if word[i] == word[i + 1]:
            return word[:i] + word[i + 1 :]  # swapping two equal letters changes nothing: drop one instead
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if edit == "drop":
        return word[:i] + word[i + 1 :]
    if edit == "double":
        return word[:i] + word[i] + word[i:]
    near = _NEIGHBOURS.get(word[i].lower(), "")
    if not near:
        return word[:i] + word[i + 1 :]
    letter = rng.choice(near)
    return word[:i] + (letter.upper() if word[i].isupper() else letter) + word[i + 1 :]


def perturb(question: str, rng: random.Random, rate: float, lower: bool = False) -> str:
    """The question with about ``rate`` of its words of four letters or more misspelt (at least one), in lower case
    when ``lower``."""
    spans = [m.span() for m in _WORD.finditer(question)]
    if not spans:
        return question.lower() if lower else question
    chosen = {i for i in range(len(spans)) if rng.random() < rate} or {rng.randrange(len(spans))}
    out, last = [], 0
    for i, (a, b) in enumerate(spans):
        out.append(question[last:a])
        word = question[a:b]
        out.append(misspell(word, rng) if i in chosen else word)
        last = b
    out.append(question[last:])
    text = "".join(out)
    return text.lower() if lower else text


def variants(rows: list[dict], per: int, rate: float, seed: int) -> list[dict]:
    """``per`` variants of each row (a question of the question file), seeded by ``seed`` and the question's id."""
    made = []
    for row in rows:
        rng = random.Random(seed * 1_000_003 + zlib.crc32(row["id"].encode()))
        for n in range(per):
            text = perturb(row["question"], rng, rate, lower=n % 2 == 1)
            made.append({**row, "id": f"{row['id']}~t{n}", "question": text, "variant_of": row["id"]})
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--per", type=int, default=2, help="variants per question (every other one in lower case)")
    parser.add_argument("--rate", type=float, default=0.3, help="share of words of 4+ letters misspelt")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("typo_variants.jsonl"))
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    chosen = [
        r
        for r in rows
        if r.get("split") == args.split and not r.get("history") and r.get("shape") not in ("chinese", "typo")
    ]
    made = variants(chosen, args.per, args.rate, args.seed)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in made), encoding="utf-8")
    print(f"{len(made)} variants of {len(chosen)} {args.split} questions -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
