"""Eval outputs: results.json, report.md (the tables) and metrics.png (per-type metrics)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from .runner import ANSWER_METRICS, RETRIEVAL_MODES

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


# The compact per-shape table: the figures a reader compares across splits.
SHAPE_COLUMNS = (
    ("hit@1", lambda g: (g["retrieval"].get("hybrid") or {}).get("hit@1")),
    ("recall@5", lambda g: (g["retrieval"].get("hybrid") or {}).get("recall@5")),
    ("dense hit@1", lambda g: (g["retrieval"].get("dense") or {}).get("hit@1")),
    ("bm25 hit@1", lambda g: (g["retrieval"].get("bm25") or {}).get("hit@1")),
    ("cit P", lambda g: (g["answer"].get("citation_precision") or {}).get("value")),
    ("cit R", lambda g: (g["answer"].get("citation_recall") or {}).get("value")),
    ("all cited", lambda g: (g["answer"].get("all_gold_cited") or {}).get("value")),
    ("key facts", lambda g: (g["answer"].get("key_fact_coverage") or {}).get("value")),
    ("abstention", lambda g: (g["answer"].get("abstention_accuracy") or {}).get("value")),
    ("false abst.", lambda g: (g["answer"].get("false_abstention") or {}).get("value")),
)


def shape_table(groups: dict[str, dict]) -> list[str]:
    """One row per group (e.g. overall, then each shape): n and the main retrieval and answer figures."""
    names = [name for name, _ in SHAPE_COLUMNS]
    lines = ["| shape | n | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for name, group in groups.items():
        lines.append(f"| {name} | {group['n']} | " + " | ".join(_fmt(get(group)) for _, get in SHAPE_COLUMNS) + " |")
    return lines


def curve_table(curve: list[dict], points: int = 12) -> list[str]:
    """A readable sample of the abstention trade-off curve (every point is in results.json)."""
    if not curve:
        return ["(the engine reported no abstention scores)"]
    step = max(1, len(curve) // points)
    sample = curve[::step] + ([curve[-1]] if (len(curve) - 1) % step else [])
    lines = ["| threshold | abstains on unanswerable | false abstention |", "|---|---|---|"]
    for point in sample:
        threshold = "never" if point["threshold"] is None else _fmt(point["threshold"])
        lines.append(f"| {threshold} | {_fmt(point['abstention'])} | {_fmt(point['false_abstention'])} |")
    return lines


def split_sections(summary: dict, retrieval_only: bool) -> list[str]:
    out: list[str] = []
    for split, group in summary.get("by_split", {}).items():
        out += [f"## Split `{split}`", "", *shape_table({"overall": group["overall"], **group["by_shape"]}), ""]
        if not retrieval_only:
            out += [f"Abstention trade-off (`{split}`):", "", *curve_table(group["abstention_curve"]), ""]
    return out


def render_markdown(meta: dict, summary: dict) -> str:
    out = [
        "# Evaluation report",
        "",
        f"- commit: `{meta['git_commit']}`; backend: **{meta['backend']}**; model: {meta['model'] or '–'}; "
        f"embedding: {meta['embedding_model']}",
        f"- questions: `{meta['questions_file']}` (sha256 {meta['questions_sha256'][:12]}…); started {meta['started_at']}",
        "",
        "Tables per split (`dev` is tuned on, `test` was written blind and is only reported, `regression` is the "
        "first set), then every question together.",
        "",
        *split_sections(summary, meta["retrieval_only"]),
        "## All questions by shape",
        "",
        *shape_table({"overall": summary["overall"], **summary.get("by_shape", {})}),
        "",
        "## Retrieval (abstract level, answerable questions)",
        "",
        *retrieval_table(summary["overall"]),
        "",
        "### Retrieval by question shape",
        "",
    ]
    for qtype, group in summary["by_shape"].items():
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
            *answer_table({"overall": summary["overall"], **summary["by_shape"]}),
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

    groups = summary.get("by_shape") or summary["by_type"]
    types = list(groups)
    series: dict[str, list[float]] = {}
    for name in ("hit@1", "recall@5", "mrr@10"):
        series[f"hybrid {name}"] = [groups[t]["retrieval"].get("hybrid", {}).get(name) or 0.0 for t in types]
    if not retrieval_only:
        for name in ("citation_f1", "key_fact_coverage", "abstention_accuracy"):
            series[name] = [(groups[t]["answer"].get(name) or {}).get("value") or 0.0 for t in types]
    fig, ax = plt.subplots(figsize=(max(7, 1.0 * len(types) + 3), 4.5))
    width = 0.8 / max(1, len(series))
    for i, (name, values) in enumerate(series.items()):
        ax.bar([x + i * width for x in range(len(types))], values, width, label=name)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(types))], types, rotation=30, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score")
    ax.set_title("Metrics by question shape")
    ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.08), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_curve(summary: dict, path: Path) -> bool:
    """The abstain / false-abstain trade-off, one line per split; False when there is nothing to draw."""
    curves = {split: g["abstention_curve"] for split, g in summary.get("by_split", {}).items() if g["abstention_curve"]}
    if not curves and summary.get("abstention_curve"):
        curves = {"all": summary["abstention_curve"]}
    if not curves:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    for split, curve in curves.items():
        ax.plot([p["false_abstention"] for p in curve], [p["abstention"] for p in curve], marker=".", label=split)
    ax.set_xlabel("false abstention (answerable questions refused)")
    ax.set_ylabel("abstention (unanswerable questions refused)")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Abstention trade-off as the threshold moves")
    ax.legend(frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def write_outputs(out_dir: Path, meta: dict, summary: dict, results: list) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "results.json", "markdown": out_dir / "report.md", "plot": out_dir / "metrics.png"}
    payload = {"meta": meta, "summary": summary, "questions": [r.to_dict() for r in results]}
    paths["json"].write_text(json.dumps(payload, indent=2, ensure_ascii=False), encoding="utf-8")
    paths["markdown"].write_text(render_markdown(meta, summary), encoding="utf-8")
    plot(summary, paths["plot"], meta["retrieval_only"])
    if not meta["retrieval_only"] and plot_curve(summary, out_dir / "abstention.png"):
        paths["curve"] = out_dir / "abstention.png"
    return paths
