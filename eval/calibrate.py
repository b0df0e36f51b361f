"""Calibrate the citation-support threshold (rag.cite.SUPPORT_THRESHOLD) on evidence from the eval questions.

    python -m eval.calibrate [--questions FILE]

For every answerable question, the sentences the extractive answerer quotes from the gold abstract A give
labelled claims (how a model restates a source is approximated by shortened and merged versions):
  supported:    the clause of a quoted sentence around its key words (first/second half), cited to A;
                two halves of different A sentences joined, cited to A
  unsupported:  the same claims cited to B, the next-ranked abstract for the question (a near miss);
                a claim whose number is changed, cited to A
It prints the support-score distribution and the threshold with the best balanced accuracy.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np

from eval.questions import DEFAULT_QUESTIONS, load_questions, resolve_gold
from rag.answer import Source
from rag.answering import SupportScorer
from rag.evidence import rows_of, score_sentences
from rag.pipeline import Pipeline
from rag.question import profile
from rag.settings import Settings


def halves(sentence: str) -> list[str]:
    words = sentence.rstrip(".").split()
    if len(words) < 10:
        return [sentence]
    mid = len(words) // 2
    return [" ".join(words[: mid + 2]) + ".", " ".join(words[mid - 2 :]) + "."]


def change_number(sentence: str) -> str | None:
    match = re.search(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])", sentence)
    if not match:
        return None
    digits = match.group(0).replace(",", "")
    changed = str(int(float(digits)) * 3 + 7)
    return sentence[: match.start()] + changed + sentence[match.end() :]


def labelled_claims(pipeline: Pipeline, questions) -> list[tuple[str, str, str, bool]]:
    """(claim, cited abstract id, kind, supported) tuples."""
    snapshot = pipeline.snapshot
    claims: list[tuple[str, str, str, bool]] = []
    abstracts = list(snapshot.abstracts.values())
    for q in questions:
        if not q.answerable or q.type == "multi":
            continue
        gold = resolve_gold(q, abstracts)[0]
        ranked = [r.abstract.id for r in pipeline.search(q.question, k=4)]
        near_miss = next(a for a in ranked if a != gold)
        vector = pipeline.embedder.encode([q.question])[0]
        evidence = score_sentences(profile(q.question), vector, snapshot, rows_of(snapshot, [gold]))[:2]
        parts = [half for e in evidence for half in halves(e.text)]
        merged = [parts[0].rstrip(".") + ", and " + parts[-1][0].lower() + parts[-1][1:]] if len(parts) > 2 else []
        for claim in parts + merged:
            claims.append((claim, gold, "restated", True))
            claims.append((claim, near_miss, "near-miss source", False))
            changed = change_number(claim)
            if changed:
                claims.append((changed, gold, "changed number", False))
    return claims


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    args = parser.parse_args(argv)
    pipeline = Pipeline(Settings())
    claims = labelled_claims(pipeline, load_questions(args.questions))
    scores, labels, kinds = [], [], []
    for claim, abstract_id, kind, supported in claims:
        scorer = SupportScorer(pipeline.snapshot, pipeline.embedder, [Source(1, pipeline.abstract(abstract_id))])
        scores.append(scorer(claim, 1).score)
        labels.append(supported)
        kinds.append(kind)
    scores_arr, labels_arr = np.array(scores), np.array(labels)
    for kind in dict.fromkeys(kinds):
        mask = np.array([k == kind for k in kinds])
        s = scores_arr[mask]
        print(f"{kind:18} n={mask.sum():3}  min {s.min():.3f}  p10 {np.percentile(s, 10):.3f}  "
              f"median {np.median(s):.3f}  p90 {np.percentile(s, 90):.3f}  max {s.max():.3f}")  # fmt: skip
    best = max(
        (float(t) for t in np.arange(0.30, 0.95, 0.01)),
        key=lambda t: (
            ((scores_arr >= t) & labels_arr).sum() / labels_arr.sum()
            + ((scores_arr < t) & ~labels_arr).sum() / (~labels_arr).sum()
        ),
    )
    tpr = ((scores_arr >= best) & labels_arr).sum() / labels_arr.sum()
    tnr = ((scores_arr < best) & ~labels_arr).sum() / (~labels_arr).sum()
    print(f"best threshold {best:.2f}: supported claims verified {tpr:.3f}, unsupported rejected {tnr:.3f} "
          f"(n={len(claims)})")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
