#!/usr/bin/env python3
"""Validate a claims file (default eval/claims.jsonl) against the seed abstracts (stdlib only).

Usage: python -m eval.check_claims [claims.jsonl] [seeds_dir]
Exits non-zero if any problem is found.
"""
import collections
import glob
import json
import os
import sys

CLAIMS = sys.argv[1] if len(sys.argv) > 1 else "eval/claims.jsonl"
SEEDS = sys.argv[2] if len(sys.argv) > 2 else "seeds"

SUPPORTED_MIN = {"paraphrase": 20, "combined": 20, "summary": 20, "exact_number": 20}
UNSUPPORTED_MIN = {k: 16 for k in (
    "number_changed", "wrong_paper", "added_detail", "entity_swapped",
    "polarity_flipped", "direction_swapped", "overclaim", "wrong_scope")}
MINIMUMS = {**SUPPORTED_MIN, **UNSUPPORTED_MIN}
FIELDS = ("id", "split", "kind", "label", "claim", "source", "note")
MAX_PER_ABSTRACT = 6
MIN_ABSTRACTS = 45


def load_abstracts(seeds_dir):
    """Unique abstract paragraphs: skip header line + blank line, split on blank lines."""
    uniq = []
    seen = set()
    files = sorted(glob.glob(os.path.join(seeds_dir, "*.txt")))
    for f in files:
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        lines = text.split("\n")
        body = "\n".join(lines[1:])  # drop header line
        for para in body.split("\n\n"):
            para = para.strip()
            if para and para not in seen:
                seen.add(para)
                uniq.append(para)
    return files, uniq


def main():
    problems = []
    files, abstracts = load_abstracts(SEEDS)
    if not files:
        print(f"no seed files found in {SEEDS}")
        return 2

    rows = []
    with open(CLAIMS, encoding="utf-8") as fh:
        for ln, line in enumerate(fh, 1):
            if not line.strip():
                problems.append(f"line {ln}: blank line")
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                problems.append(f"line {ln}: invalid JSON ({e})")
                continue
            if not isinstance(obj, dict):
                problems.append(f"line {ln}: not a JSON object")
                continue
            rows.append((ln, obj))

    ids = collections.Counter()
    kind_count = collections.Counter()
    kind_split = collections.Counter()
    per_abstract = collections.Counter()

    for ln, r in rows:
        where = f"line {ln} ({r.get('id', '?')})"
        missing = [k for k in FIELDS if k not in r]
        if missing:
            problems.append(f"{where}: missing fields {missing}")
            continue
        extra = [k for k in r if k not in FIELDS]
        if extra:
            problems.append(f"{where}: unexpected fields {extra}")
        for k in FIELDS:
            if not isinstance(r[k], str) or not r[k].strip():
                problems.append(f"{where}: field {k!r} must be a non-empty string")
        if any(not isinstance(r[k], str) for k in FIELDS):
            continue
        ids[r["id"]] += 1
        if r["split"] not in ("dev", "test"):
            problems.append(f"{where}: bad split {r['split']!r}")
        if r["kind"] not in MINIMUMS:
            problems.append(f"{where}: unknown kind {r['kind']!r}")
        else:
            want = "supported" if r["kind"] in SUPPORTED_MIN else "unsupported"
            if r["label"] != want:
                problems.append(f"{where}: kind {r['kind']} needs label {want!r}, got {r['label']!r}")
        if r["label"] not in ("supported", "unsupported"):
            problems.append(f"{where}: bad label {r['label']!r}")
        nwords = len(r["claim"].split())
        if not 10 <= nwords <= 40:
            problems.append(f"{where}: claim has {nwords} words (want 10-40)")
        src = r["source"]
        if len(src) != 60:
            problems.append(f"{where}: source is {len(src)} chars, expected 60")
        matches = [i for i, a in enumerate(abstracts) if a.startswith(src)]
        if len(matches) != 1:
            problems.append(f"{where}: source matches {len(matches)} unique abstracts (need exactly 1)")
        else:
            if abstracts[matches[0]][:60] != src:
                problems.append(f"{where}: source is not the first 60 characters of its abstract")
            per_abstract[matches[0]] += 1
        kind_count[r["kind"]] += 1
        kind_split[(r["kind"], r["split"])] += 1

    for i, n in ids.items():
        if n > 1:
            problems.append(f"duplicate id {i!r} ({n} times)")
    for k, m in MINIMUMS.items():
        if kind_count[k] < m:
            problems.append(f"kind {k}: {kind_count[k]} claims < minimum {m}")
        d, t = kind_split[(k, "dev")], kind_split[(k, "test")]
        if abs(d - t) > 1:
            problems.append(f"kind {k}: dev/test unbalanced ({d}/{t})")
    for a, n in per_abstract.items():
        if n > MAX_PER_ABSTRACT:
            problems.append(f"abstract {a} ({abstracts[a][:40]!r}...) has {n} claims > {MAX_PER_ABSTRACT}")
    if len(per_abstract) < MIN_ABSTRACTS:
        problems.append(f"claims cover {len(per_abstract)} abstracts < {MIN_ABSTRACTS}")

    print(f"seed files: {len(files)}, unique abstracts: {len(abstracts)}")
    print(f"claims: {len(rows)}, abstracts cited: {len(per_abstract)}, "
          f"max per abstract: {max(per_abstract.values()) if per_abstract else 0}")
    print(f"{'kind':<18}{'label':<13}{'dev':>5}{'test':>6}{'total':>7}{'min':>5}")
    for k in list(SUPPORTED_MIN) + list(UNSUPPORTED_MIN):
        lab = "supported" if k in SUPPORTED_MIN else "unsupported"
        print(f"{k:<18}{lab:<13}{kind_split[(k, 'dev')]:>5}{kind_split[(k, 'test')]:>6}"
              f"{kind_count[k]:>7}{MINIMUMS[k]:>5}")
    labels = collections.Counter(r.get("label") for _, r in rows)
    splits = collections.Counter(r.get("split") for _, r in rows)
    print("labels:", dict(labels), " splits:", dict(splits))

    if problems:
        print(f"\n{len(problems)} problem(s):")
        for p in problems:
            print("  -", p)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
