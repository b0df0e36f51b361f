"""Score the claim verifier (rag.verify) on eval/claims.jsonl and fit its thresholds on the dev split.

    python -m eval.calibrate                 per-kind accuracy on dev and test, p95 ms per claim
    python -m eval.calibrate --fit           also search VerifyPolicy's thresholds on dev (test only reported)
    python -m eval.calibrate --errors dev    list the dev claims judged wrongly, with the verifier's reason
    python -m eval.calibrate --split dev     dev figures only (while choosing; test is only for reporting)
    python -m eval.calibrate --ablation      per structured check, on dev: faithful claims it rejects and the
                                             unsupported claims only it rejects (its unique catches), per kind
    python -m eval.calibrate --synthetic     also: false rejections of claims that must pass (every abstract
                                             sentence as written, each pair of adjacent sentences joined, and
                                             sentences rewritten in other words), and number changes caught

The claims were written blind (by someone who did not read rag/): faithful restatements (paraphrase, two sentences
combined, summary, exact number) and eight kinds of unsupported claims that stay on the cited abstract's topic.
Each names its abstract by the first 60 characters of its text. Needs an index (`rag ingest`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag.answering import verify_claim
from rag.pipeline import Pipeline
from rag.settings import Settings, VerifyPolicy
from rag.verify import CHECKS, check_claim
from rag.verify_numbers import quantities

DEFAULT_CLAIMS = Path(__file__).resolve().parent / "claims.jsonl"
SUPPORTED_KINDS = ("paraphrase", "combined", "summary", "exact_number")
UNSUPPORTED_KINDS = ("number_changed", "wrong_paper", "added_detail", "entity_swapped", "polarity_flipped",
                     "direction_swapped", "overclaim", "wrong_scope")  # fmt: skip
SPLITS = ("dev", "test")


@dataclass(frozen=True, slots=True)
class Claim:
    id: str
    split: str
    kind: str
    supported: bool
    text: str
    abstract_id: str


def load_claims(path: Path, pipeline: Pipeline) -> list[Claim]:
    abstracts = pipeline.abstracts()
    claims = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        owners = [a.id for a in abstracts if a.text.startswith(row["source"])]
        if len(owners) != 1:
            raise SystemExit(f"{path.name} line {number}: source matches {len(owners)} abstracts")
        claims.append(Claim(row["id"], row["split"], row["kind"], row["label"] == "supported", row["claim"], owners[0]))
    return claims


@dataclass(slots=True)
class Prepared:
    """What the verifier needs per claim, so policies can be compared without re-encoding."""

    claim: Claim
    abstract_text: str
    spans: list
    sims: list[float]


def prepare(claims: Sequence[Claim], pipeline: Pipeline) -> list[Prepared]:
    snapshot = pipeline.snapshot
    vectors = pipeline.embedder.encode([c.text for c in claims])
    out = []
    for claim, vector in zip(claims, vectors, strict=True):
        rows = list(snapshot.sentence_rows[claim.abstract_id])
        sims = [float(x) for x in snapshot.sentence_vectors[rows] @ vector]
        spans = [snapshot.sentence_spans[r] for r in rows]
        out.append(Prepared(claim, snapshot.abstracts[claim.abstract_id].text, spans, sims))
    return out


def judge(prepared: Iterable[Prepared], policy: VerifyPolicy) -> list[tuple[Prepared, object]]:
    return [(p, check_claim(p.claim.text, p.abstract_text, p.spans, p.sims, policy)) for p in prepared]


def correct(claim: Claim, verified: bool) -> bool:
    return verified == claim.supported


def per_kind(judged, split: str) -> dict[str, tuple[int, int]]:
    """kind -> (judged right, total), plus "faithful" and "unsupported" totals."""
    table: dict[str, list[int]] = {}
    for p, v in judged:
        c = p.claim
        if c.split != split:
            continue
        for key in (c.kind, "faithful" if c.supported else "unsupported"):
            right, total = table.setdefault(key, [0, 0])
            table[key] = [right + correct(c, v.verified), total + 1]
    return {k: (r, n) for k, (r, n) in table.items()}


def score(table: dict[str, tuple[int, int]]) -> tuple[float, float, float]:
    """(faithful accepted, unsupported rejected, worst unsupported kind)."""
    rate = {k: r / n for k, (r, n) in table.items() if n}
    worst = min((rate[k] for k in UNSUPPORTED_KINDS if k in rate), default=float("nan"))
    return rate.get("faithful", 0.0), rate.get("unsupported", 0.0), worst


def print_tables(judged, title: str, splits: Sequence[str] = SPLITS) -> None:
    tables = {split: per_kind(judged, split) for split in splits}
    print(f"\n{title}")
    print(f"| claim kind | {' | '.join(splits)} |")
    print("|---|" + "---|" * len(splits))
    rows = [("faithful (accepted)", "faithful"), *((f"  {k}", k) for k in SUPPORTED_KINDS),
            ("unsupported (rejected)", "unsupported"), *((f"  {k}", k) for k in UNSUPPORTED_KINDS)]  # fmt: skip
    for label, key in rows:
        cells = []
        for split in splits:
            right, total = tables[split].get(key, (0, 0))
            cells.append(f"{right / total:.2f} ({right}/{total})" if total else "-")
        print(f"| {label} | {' | '.join(cells)} |")


def timing(claims: Sequence[Claim], pipeline: Pipeline, policy: VerifyPolicy) -> tuple[float, float, float]:
    """(p50, p95 ms per claim including its MiniLM encoding, p95 ms of the checks alone)."""
    total, checks = [], []
    snapshot = pipeline.snapshot
    for c in claims:
        started = time.perf_counter()
        vector = pipeline.embedder.encode([c.text])[0]
        encoded = time.perf_counter()
        verify_claim(c.text, c.abstract_id, snapshot, pipeline.embedder, policy, vector)
        done = time.perf_counter()
        total.append((done - started) * 1000)
        checks.append((done - encoded) * 1000)
    return float(np.percentile(total, 50)), float(np.percentile(total, 95)), float(np.percentile(checks, 95))


def synthetic_faithful(pipeline: Pipeline, policy: VerifyPolicy) -> dict[str, tuple[int, int, dict[str, int]]]:
    """False rejections of claims that must be supported, made from the abstracts themselves (no labels needed):
    each sentence as written ("verbatim") and each two adjacent sentences joined by ", and" ("joined", a combined
    claim). kind -> (rejected, total, {failing check: count})."""
    snapshot = pipeline.snapshot
    out: dict[str, tuple[int, int, dict[str, int]]] = {}
    for aid, abstract in snapshot.abstracts.items():
        rows = list(snapshot.sentence_rows[aid])
        spans = [snapshot.sentence_spans[r] for r in rows]
        vectors = snapshot.sentence_vectors[rows]
        texts = [span.of(abstract.text) for span in spans]
        claims = [("verbatim", t, vectors[k]) for k, t in enumerate(texts) if len(t.split()) >= 6]
        for k in range(len(texts) - 1):
            joined = texts[k].rstrip(". ") + ", and " + texts[k + 1][:1].lower() + texts[k + 1][1:]
            vector = vectors[k] + vectors[k + 1]
            claims.append(("joined", joined, vector / float(np.linalg.norm(vector))))
        for kind, claim, vector in claims:
            verdict = check_claim(claim, abstract.text, spans, [float(x) for x in vectors @ vector], policy)
            rejected, total, checks = out.get(kind, (0, 0, {}))
            if not verdict.verified:
                name = verdict.failures[0].check if verdict.failures else "support"
                checks[name] = checks.get(name, 0) + 1
            out[kind] = (rejected + (not verdict.verified), total + 1, checks)
    return out


_NUMBER_NAMES = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
_COMPARED = re.compile(r"^(.*?\b)([A-Z][\w-]*(?: [\w-]+){0,3}) (consistently )?(outperforms|surpasses|beats) "
                       r"([\w$\\-]+(?: [\w$\\-]+){0,5}?)( on| in| across| by| while|,|\.|$)")  # fmt: skip
_DEFINED = re.compile(r"((?:[A-Za-z-]+ ){1,5}[A-Za-z-]+) \(([A-Z][A-Za-z0-9-]*[A-Z]s?)\)")


def faithful_rewrites(sentence: str, abstract: str) -> list[tuple[str, str]]:
    """(kind, rewrite) of one abstract sentence in other words that keep its meaning: a count in digits written
    in words and back, an acronym the abstract defines written out, "A outperforms B" turned round ("B is
    outperformed by A", "B trails A"), and "We show that X" as "X"."""
    out = []
    for m in re.finditer(r"(?<![\w.$])([2-9]|10)(?= [a-z])", sentence):
        out.append(("number in words", sentence[: m.start()] + _NUMBER_NAMES[int(m.group(1))] + sentence[m.end() :]))
    names = {v: str(k) for k, v in _NUMBER_NAMES.items()}
    for m in re.finditer(r"\b(two|three|four|five|six|seven|eight|nine|ten)\b(?= [a-z])", sentence):
        out.append(("number in digits", sentence[: m.start()] + names[m.group(1)] + sentence[m.end() :]))
    for long, short in {d.group(2): d.group(1) for d in _DEFINED.finditer(abstract)}.items():
        letters = [c for c in long if c.isupper()]
        words = short.split()
        spelled = next((" ".join(words[-n:]) for n in range(1, len(words) + 1)
                        if "".join(w[0] for w in words[-n:]).upper() == "".join(letters)), None)  # fmt: skip
        if spelled and re.search(rf"\b{re.escape(long)}\b", sentence) and f"({long})" not in sentence:
            out.append(("acronym written out", re.sub(rf"\b{re.escape(long)}\b", spelled, sentence, count=1)))
    m = _COMPARED.search(sentence)
    if m:
        before, a, adverb, _, b, tail = m.groups()
        rest, adverb = sentence[m.end() :], adverb or ""
        out.append(("comparison turned round", f"{before}{b} is {adverb}outperformed by {a}{tail}{rest}"))
        out.append(("comparison turned round", f"{before}{b} {adverb}trails {a}{tail}{rest}"))
    shown = re.sub(r"^We (show|find|demonstrate) that ", "", sentence)
    if shown != sentence:
        out.append(("without 'we show that'", shown[:1].upper() + shown[1:]))
    return out


def synthetic_rewrites(pipeline: Pipeline, policy: VerifyPolicy) -> dict[str, tuple[int, int]]:
    """False rejections of abstract sentences rewritten in other words (`faithful_rewrites`), counted only where the
    sentence as written is accepted. kind -> (rejected, total)."""
    snapshot = pipeline.snapshot
    items = []
    for aid, abstract in snapshot.abstracts.items():
        rows = list(snapshot.sentence_rows[aid])
        spans = [snapshot.sentence_spans[r] for r in rows]
        vectors = snapshot.sentence_vectors[rows]
        for k, span in enumerate(spans):
            text = span.of(abstract.text)
            as_written = check_claim(text, abstract.text, spans, [float(x) for x in vectors @ vectors[k]], policy)
            if len(text.split()) >= 6 and as_written.verified:
                items += [(kind, claim, abstract.text, spans, vectors) for kind, claim in faithful_rewrites(text, abstract.text)]
    out: dict[str, tuple[int, int]] = {}
    encoded = pipeline.embedder.encode([claim for _, claim, *_ in items]) if items else []
    for (kind, claim, text, spans, vectors), vector in zip(items, encoded, strict=True):
        verdict = check_claim(claim, text, spans, [float(x) for x in vectors @ vector], policy)
        rejected, total = out.get(kind, (0, 0))
        out[kind] = (rejected + (not verdict.verified), total + 1)
    return out


_FLIP_BOUND = {"more than": "less than", "less than": "more than", "over": "under", "under": "over",
               "at least": "at most", "at most": "at least", "up to": "at least", "above": "below", "below": "above",
               "fewer than": "more than"}  # fmt: skip


def synthetic_number_changes(pipeline: Pipeline, policy: VerifyPolicy) -> dict[str, tuple[int, int]]:
    """Misses on claims that must be rejected, made from the abstracts (no labels needed): a sentence whose count is
    replaced by another count the same abstract gives for something else ("moved", e.g. "4 benchmarks" where it has
    "11 benchmarks" and "4 corpora"), a sentence whose bound is turned round ("bound": "more than 50%" -> "less
    than 50%") and a sentence whose two numbers of one unit trade places ("exchanged"). kind -> (rejected, total)."""
    snapshot = pipeline.snapshot
    out: dict[str, tuple[int, int]] = {}
    for aid, abstract in snapshot.abstracts.items():
        rows = list(snapshot.sentence_rows[aid])
        spans = [snapshot.sentence_spans[r] for r in rows]
        texts = [span.of(abstract.text) for span in spans]
        counts = [q for q in quantities(abstract.text) if q.text[:1].isdigit() and not q.unit and q.counted]
        claims = []
        for k, text in enumerate(texts):
            for q in quantities(text):
                if not (q.text[:1].isdigit() and not q.unit and q.counted):
                    continue
                other = next((a for a in counts if a.value != q.value and not (a.counted & q.counted)), None)
                at = text.find(q.text)
                if other is not None and at >= 0 and not text[at + len(q.text):at + len(q.text) + 1].isdigit():
                    claims.append(("moved", k, text[:at] + other.text + text[at + len(q.text):]))
                if q.bound_text in _FLIP_BOUND and f"{q.bound_text} " in text.lower():
                    at = text.lower().rfind(q.bound_text + " ", 0, max(0, text.find(q.text)) + 1)
                    if at >= 0:
                        flipped = text[:at] + _FLIP_BOUND[q.bound_text] + text[at + len(q.bound_text):]
                        claims.append(("bound", k, flipped))
            numbers = [q for q in quantities(text) if q.text[:1].isdigit()]
            for a, b in itertools.combinations(numbers, 2):  # two numbers of a sentence trading places
                if a.unit == b.unit and a.value != b.value and a.start + len(a.text) <= b.start:
                    swapped = (text[: a.start] + b.text + text[a.start + len(a.text) : b.start] + a.text
                               + text[b.start + len(b.text) :])  # fmt: skip
                    claims.append(("exchanged", k, swapped))
        for kind, k, claim in claims:
            verdict = check_claim(claim, abstract.text, spans, [0.95 if j == k else 0.2 for j in range(len(texts))],
                                  policy)  # fmt: skip
            rejected, total = out.get(kind, (0, 0))
            out[kind] = (rejected + (not verdict.verified), total + 1)
    return out


@dataclass(frozen=True, slots=True)
class Ablation:
    """What one check does on a set of claims: faithful claims it rejects (``costs``), faithful claims only it
    rejects (``sole_costs``: accepted if it were off), and unsupported claims only it rejects (``unique``: missed if
    it were off). Each is kind -> count."""

    costs: dict[str, int]
    sole_costs: dict[str, int]
    unique: dict[str, int]


def firing(prepared: Sequence[Prepared], policy: VerifyPolicy) -> list[set[str]]:
    """Per claim, the names of every check that rejects it on its own ("support": below the support threshold,
    where the structured checks do not run), found by running each check with the others disabled."""
    fired: list[set[str]] = [set() for _ in prepared]
    for name in CHECKS:
        alone = policy.model_copy(update={"disabled_checks": [c for c in CHECKS if c != name]})
        for k, (_, verdict) in enumerate(judge(prepared, alone)):
            if not verdict.verified:
                checks = {f.check for f in verdict.failures} or {"support"}
                fired[k] |= checks
    return fired


def tally(claims: Sequence[Claim], fired: Sequence[set[str]], names: Sequence[str]) -> dict[str, Ablation]:
    """check -> Ablation, given per claim the set of checks that reject it on their own."""
    out = {name: Ablation({}, {}, {}) for name in names}
    for claim, checks in zip(claims, fired, strict=True):
        kind = claim.kind
        for name in checks:
            if claim.supported:
                out[name].costs[kind] = out[name].costs.get(kind, 0) + 1
            if len(checks) == 1:
                table = out[name].sole_costs if claim.supported else out[name].unique
                table[kind] = table.get(kind, 0) + 1
    return out


def ablation(prepared: Sequence[Prepared], policy: VerifyPolicy) -> dict[str, Ablation]:
    """check -> Ablation over ``prepared`` (pass the dev claims only), with "support" for the threshold."""
    names = [name for name in ("support", *CHECKS) if name not in policy.disabled_checks]
    return tally([p.claim for p in prepared], firing(prepared, policy), names)


def print_ablation(prepared: Sequence[Prepared], policy: VerifyPolicy, title: str) -> None:
    table = ablation(prepared, policy)
    n_faithful = sum(p.claim.supported for p in prepared)
    n_unsupported = len(prepared) - n_faithful
    print(f"\n{title} ({n_faithful} faithful, {n_unsupported} unsupported)")
    print("| check | faithful rejected (only it) | by kind | unique catches | by kind |")
    print("|---|---|---|---|---|")
    for name, a in table.items():
        def kinds(counts: dict[str, int]) -> str:
            return ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1])) or "-"

        print(f"| {name} | {sum(a.costs.values())} ({sum(a.sole_costs.values())}) | {kinds(a.costs)} | "
              f"{sum(a.unique.values())} | {kinds(a.unique)} |")  # fmt: skip


def per_set(judged, split: str = "dev") -> dict[str, tuple[int, int, int, int]]:
    """Claim set (the id's first letter: each set was written and scored held out at a different time) ->
    (faithful accepted, faithful, unsupported rejected, unsupported), on one split."""
    out: dict[str, list[int]] = {}
    for p, v in judged:
        c = p.claim
        if c.split != split:
            continue
        row = out.setdefault(c.id[:1], [0, 0, 0, 0])
        at = 0 if c.supported else 2
        row[at] += correct(c, v.verified)
        row[at + 1] += 1
    return {k: (a, b, c, d) for k, (a, b, c, d) in out.items()}


# Candidate values per threshold; the search keeps the rest of the policy as given.
GRID = {
    "support_threshold": [0.50, 0.55, 0.58, 0.60, 0.62, 0.65],
    "novel_words_max": [2, 3, 4, 5],
    "entity_min_similarity": [80.0, 85.0, 88.0, 92.0],
    "pair_min_gain": [0.10, 0.15, 0.20, 0.25],
}


def fit(prepared: Sequence[Prepared], base: VerifyPolicy) -> VerifyPolicy:
    """The policy that maximises balanced accuracy on dev (faithful accepted + unsupported rejected), preferring,
    at equal score, a better worst kind."""
    dev = [p for p in prepared if p.claim.split == "dev"]
    best, best_key = base, (-1.0, -1.0)
    names = list(GRID)
    for values in itertools.product(*(GRID[n] for n in names)):
        policy = base.model_copy(update=dict(zip(names, values, strict=True)))
        faithful, rejected, worst = score(per_kind(judge(dev, policy), "dev"))
        key = (faithful + rejected + (0.5 if faithful >= 0.9 else 0.0), worst)
        if key > best_key:
            best, best_key = policy, key
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=Path, default=DEFAULT_CLAIMS, help="claims JSONL (default eval/claims.jsonl)")
    parser.add_argument("--fit", action="store_true", help="search the thresholds on dev and report both splits")
    parser.add_argument("--errors", choices=SPLITS, help="list the claims of this split judged wrongly")
    parser.add_argument("--split", choices=SPLITS, help="report this split only (default: both)")
    parser.add_argument("--no-timing", dest="timing", action="store_false", help="skip the per-claim timing")
    parser.add_argument("--synthetic", action="store_true",
                        help="also count false rejections of abstract sentences as written and of adjacent pairs joined")
    parser.add_argument("--ablation", action="store_true",
                        help="per check on dev: faithful claims it rejects, unsupported claims only it rejects")
    parser.add_argument("--prefix", help="only claims whose id starts with one of these letters (e.g. 'u' or 'cxyzwv')")
    args = parser.parse_args(argv)
    settings = Settings()
    pipeline = Pipeline(settings)
    claims = load_claims(args.claims, pipeline)
    if args.prefix:
        claims = [c for c in claims if c.id[:1] in args.prefix]
    prepared = prepare(claims, pipeline)
    policy = settings.verify
    splits = (args.split,) if args.split else SPLITS
    judged = judge(prepared, policy)
    print_tables(judged, "Current VerifyPolicy (RAG_VERIFY__* / rag/settings.py): share judged right", splits)
    for split in splits:
        table = per_kind(judged, split)
        if not table:  # a claims file of one split (e.g. new blind claims, all dev)
            continue
        faithful, rejected, worst = score(table)
        print(f"{split}: faithful accepted {faithful:.2f}, unsupported rejected {rejected:.2f}, worst kind {worst:.2f}")
    if args.timing:
        p50, p95, checks95 = timing(claims, pipeline, policy)
        print(f"per claim (MiniLM encoding + checks): p50 {p50:.1f} ms, p95 {p95:.1f} ms; checks alone p95 "
              f"{checks95:.1f} ms (n={len(claims)})")  # fmt: skip
    if args.synthetic:
        for kind, (rejected, total, checks) in synthetic_faithful(pipeline, policy).items():
            print(f"synthetic {kind}: {rejected}/{total} rejected {checks or ''}")
        for kind, (rejected, total) in synthetic_number_changes(pipeline, policy).items():
            print(f"synthetic number {kind} (must be rejected): {rejected}/{total} rejected")
        for kind, (rejected, total) in synthetic_rewrites(pipeline, policy).items():
            print(f"synthetic rewrite, {kind} (must pass): {rejected}/{total} rejected")
    if args.ablation:
        dev = [p for p in prepared if p.claim.split == "dev"]
        print_ablation(dev, policy, "Ablation on dev: what each check costs and catches")
        print("\nPer dev claim set: faithful accepted, unsupported rejected")
        for name, (fa, fn, ur, un) in per_set(judged).items():
            print(f"  {name}: {fa}/{fn} ({fa / max(fn, 1):.2f}), {ur}/{un} ({ur / max(un, 1):.2f})")
    if args.fit:
        fitted = fit(prepared, policy)
        changed = {k: getattr(fitted, k) for k in GRID if getattr(fitted, k) != getattr(policy, k)}
        print_tables(judge(prepared, fitted), f"Fitted on dev: {changed or 'no change'}", splits)
    if args.errors:
        print(f"\nMisjudged {args.errors} claims:")
        for p, v in judged:
            c = p.claim
            if c.split == args.errors and not correct(c, v.verified):
                verdict = "accepted" if v.verified else "rejected"
                print(f"- {c.id} {c.kind} {verdict} ({v.support:.2f}): {c.text}\n    reason: {v.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
