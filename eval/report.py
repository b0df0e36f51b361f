"""Eval outputs: results.json, report.md (the tables) and metrics.png (per-type metrics)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from eval.runner import ANSWER_METRICS, RETRIEVAL_MODES

RETRIEVAL_NAMES = ("hit@1", "recall@5", "mrr@10", "ndcg@10")


def _fmt(value: float | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def retrieval_table(summary: dict) -> list[str]:
    lines = ["| retrieval | n | " + " | ".join(RETRIEVAL_NAMES) + " |", "|---|---|" + "---|" * len(RETRIEVAL_NAMES)]
    for mode in RETRIEVAL_MODES:
        row = summary["retrieval"].get(mode)
        if row:
            label = f"{mode} (default)" if mode == "hybrid" else f"{mode} only"
            lines.append(f"| {label} | {row['n']} | " + " | ".join(_fmt(row[m]) for m in RETRIEVAL_NAMES) + " |")
    return lines


def answer_table(groups: dict[str, dict]) -> list[str]:
    header = "| group | n | " + " | ".join(ANSWER_METRICS) + " | answer p50 s | answer p95 s |"
    lines = [header, "|---|---|" + "---|" * (len(ANSWER_METRICS) + 2)]
    for name, summary in groups.items():
        cells = []
        for metric in ANSWER_METRICS:
            entry = summary["answer"].get(metric)
            cells.append(f"{_fmt(entry['value'])} (n={entry['n']})" if entry else "–")
        latency = summary["latency"].get("answer_s", {})
        lines.append(
            f"| {name} | {summary['n']} | "
            + " | ".join(cells)
            + f" | {_fmt(latency.get('p50'))} | {_fmt(latency.get('p95'))} |"
        )
    return lines


def render_markdown(meta: dict, summary: dict) -> str:
    out = [
        "# Evaluation report",
        "",
        f"- commit: `{meta['git_commit']}`; backend: **{meta['backend']}**; model: {meta['model'] or '–'}; "
        f"embedding: {meta['embedding_model']}",
        f"- questions: `{meta['questions_file']}` (sha256 {meta['questions_sha256'][:12]}…); started {meta['started_at']}",
        "",
        "## Retrieval (abstract level, answerable questions)",
        "",
        *retrieval_table(summary["overall"]),
        "",
        "### Retrieval by question type",
        "",
    ]
    for qtype, group in summary["by_type"].items():
        if group["retrieval"]:
            out += [f"**{qtype}**", "", *retrieval_table(group), ""]
    if not meta["retrieval_only"]:
        out += [
            "## Answers",
            "",
            "Citation precision/recall/F1 compare cited abstracts with the gold ones (answerable questions); "
            "verified_share is the share of answer sentences whose citation was verified; invalid_citation_rate the "
            "share of [n] markers outside the sources; key_fact_coverage the share of key facts in the answer; "
            "abstention_accuracy is measured on unanswerable questions, false_abstention on answerable ones.",
            "",
            *answer_table({"overall": summary["overall"], **summary["by_type"]}),
            "",
        ]
    errors = summary["overall"].get("errors", 0)
    if errors:
        out += [f"**{errors} question(s) failed**; see results.json.", ""]
    return "\n".join(out)


def plot(summary: dict, path: Path, retrieval_only: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    types = list(summary["by_type"])
    series: dict[str, list[float]] = {}
    for name in ("hit@1", "recall@5", "mrr@10"):
        series[f"hybrid {name}"] = [
            summary["by_type"][t]["retrieval"].get("hybrid", {}).get(name) or 0.0 for t in types
        ]
    if not retrieval_only:
        for name in ("citation_f1", "key_fact_coverage", "verified_share", "abstention_accuracy"):
            series[name] = [(summary["by_type"][t]["answer"].get(name) or {}).get("value") or 0.0 for t in types]
    fig, ax = plt.subplots(figsize=(max(7, 1.6 * len(types) + 3), 4.5))
    width = 0.8 / max(1, len(series))
    for i, (name, values) in enumerate(series.items()):
        ax.bar([x + i * width for x in range(len(types))], values, width, label=name)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(types))], types)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score")
    ax.set_title("Metrics by question type")
    ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.08), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_outputs(out_dir: Path, meta: dict, summary: dict, results: list) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "results.json", "markdown": out_dir / "report.md", "plot": out_dir / "metrics.png"}
    payload = {"meta": meta, "summary": summary, "questions": [r.to_dict() for r in results]}
    paths["json"].write_text(json.dumps(payload, indent=2, ensure_ascii=False), encoding="utf-8")
    paths["markdown"].write_text(render_markdown(meta, summary), encoding="utf-8")
    plot(summary, paths["plot"], meta["retrieval_only"])
    return paths
