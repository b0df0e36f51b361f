"""`rag`: the command line. Turns engine errors into messages; never shows a traceback for expected problems."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rag.errors import RagError

log = logging.getLogger("rag")

EXIT_USER_ERROR = 2
EXIT_FAILURE = 1

DESCRIPTION = """\
A local, citation-first research assistant over NeurIPS 2026 paper abstracts.

Typical use:
  rag ingest                      index ./seeds (only new or changed abstracts are embedded)
  rag search "question" --json    ranked abstracts with scores and matched chunks
  rag list                        every abstract with its ID, label and file locations

Settings come from RAG_* environment variables (see README); flags override them.
"""


def _quiet_libraries() -> None:
    # Offline by design, and no library progress bars or banners mixed into our output.
    for key, value in {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
        "TRANSFORMERS_VERBOSITY": "error",
        "TOKENIZERS_PARALLELISM": "false",
        "ANONYMIZED_TELEMETRY": "False",
    }.items():
        os.environ.setdefault(key, value)


def _settings(args: argparse.Namespace, **overrides):
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    from rag.settings import Settings

    values = {k: v for k, v in overrides.items() if v is not None}
    if getattr(args, "data_dir", None):
        values["data_dir"] = args.data_dir
    try:
        return Settings(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}" for err in exc.errors()
        )
        raise RagError(
            f"Invalid settings: {problems}", hint="Check the flags and RAG_* environment variables."
        ) from None
    except (SettingsError, ValueError) as exc:
        raise RagError(f"Invalid settings: {exc}", hint="Check the RAG_* environment variables.") from None


def _progress_bar(description: str) -> Callable[[int, int], None]:
    from tqdm import tqdm

    bar: dict[str, tqdm] = {}

    def update(done: int, total: int) -> None:
        if "bar" not in bar:
            bar["bar"] = tqdm(total=total, desc=description, unit="chunk", disable=total == 0, file=sys.stderr)
        bar["bar"].n = done
        bar["bar"].refresh()
        if done >= total:
            bar["bar"].close()

    return update


def cmd_ingest(args: argparse.Namespace) -> int:
    from rag.pipeline import Pipeline

    pipeline = Pipeline(_settings(args))
    report = pipeline.ingest(args.paths or None, rebuild=args.rebuild, progress=_progress_bar("Embedding"))
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(report.summary())
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from rag.pipeline import Pipeline

    pipeline = Pipeline(_settings(args, retrieval_mode=args.mode))
    started = time.perf_counter()
    results = pipeline.search(args.question, k=args.k)
    elapsed = time.perf_counter() - started
    if args.json:
        payload = {
            "question": args.question,
            "mode": pipeline.settings.retrieval_mode,
            "k": args.k or pipeline.settings.top_k,
            "results": [dict(rank=i, **r.to_dict()) for i, r in enumerate(results, start=1)],
            "seconds": round(elapsed, 4),
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    for i, r in enumerate(results, start=1):
        where = ", ".join(str(loc) for loc in r.abstract.locations)
        print(f"{i}. [{r.abstract.id}] {r.abstract.label}  (score {r.score:.4f}; {where})")
        if r.chunks:
            snippet = r.chunks[0].text
            print(f"   {snippet[:200]}{'…' if len(snippet) > 200 else ''}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from rag.pipeline import Pipeline

    abstracts = Pipeline(_settings(args)).abstracts()
    if args.json:
        print(json.dumps([a.to_dict() for a in abstracts], indent=2, ensure_ascii=False))
    else:
        for a in abstracts:
            print(f"{a.id:32} {a.label[:48]:48} {', '.join(str(loc) for loc in a.locations)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rag", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, help="index folder (default: ./.rag, or RAG_DATA_DIR)", metavar="DIR")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "ingest",
        parents=[common],
        help="index seed files (idempotent: only new or changed abstracts are embedded)",
        description="Parse seed files, chunk every abstract so no sentence is truncated, embed, and store in "
        "Chroma. Reports how many abstracts were added, updated, removed and unchanged. The index always "
        "reflects exactly the files given: abstracts no longer in them are removed.",
    )
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="seed .txt files or folders (default: ./seeds)")
    p.add_argument("--rebuild", action="store_true", help="ignore the previous manifest and re-check everything")
    p.add_argument("--json", action="store_true", help="print the ingest report as JSON")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser(
        "search",
        parents=[common],
        help="rank abstracts for a question (no answer, just retrieval)",
        description="Rank abstracts by hybrid retrieval (dense MiniLM similarity fused with BM25). With --json, "
        "each result has: rank, id, label, locations [{file, position}], score, dense_score, bm25_score, text, "
        "matched_chunks [{chunk_id, start, end, text, dense_score, bm25_score}].",
    )
    p.add_argument("question", help="the question, in quotes")
    p.add_argument("-k", "--k", type=int, default=None, help="how many abstracts (default 5, or RAG_TOP_K)")
    p.add_argument("--mode", choices=["hybrid", "dense", "bm25"], help="retrieval mode (default hybrid)")
    p.add_argument("--json", action="store_true", help="machine-readable output (fields above)")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser(
        "list",
        parents=[common],
        help="list every indexed abstract",
        description="Print every abstract in the index: ID, label and file locations (--json adds the text).",
    )
    p.add_argument("--json", action="store_true", help="print id, label, locations and text as JSON")
    p.set_defaults(func=cmd_list)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    _quiet_libraries()
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING if args.verbose == 0 else logging.INFO if args.verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if args.verbose == 0:
        logging.getLogger("rag.ingest").setLevel(logging.ERROR)
    try:
        return args.func(args)
    except RagError as exc:
        print(f"error: {exc.user_message()}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("interrupted; the last complete index is unchanged", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
