"""`rag`: the command line. Turns engine errors into messages; never shows a traceback for expected problems.

The composition root: the only module of `rag` that reaches the front ends (`ui`, `eval`), and only inside the
command that needs one (:func:`front_end`); the engine modules never import them.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from rag.errors import RagError
from rag.quiet import quiet_libraries
from rag.text import printable

log = logging.getLogger("rag")

PROCESS_START = time.perf_counter()  # `rag ui` reports its start-up time from here (the CLI is imported first)

EXIT_USER_ERROR = 2
EXIT_FAILURE = 1

DESCRIPTION = """\
A local, citation-first research assistant over NeurIPS 2026 paper abstracts.

Typical use:
  rag ingest                      index ./seeds (only new or changed abstracts are embedded)
  rag search "question" --json    ranked abstracts with scores and matched chunks
  rag list                        every abstract with its ID, label and file locations
  rag verify --claim "..." --source ID   does that abstract support the claim? (and why)

Settings come from RAG_* environment variables (see README); flags override them.
"""


def front_end(module: str) -> ModuleType:
    """A front end's module ("ui.app", "eval.runner"), imported when a command needs it.

    In a checkout (a clone, installed editable or put on PYTHONPATH) the front ends are its top-level `ui/` and
    `eval/` folders, imported under those names (as the tests do); a built wheel carries them inside this package
    as `rag.ui` and `rag.eval`, so installing the project adds no top-level `ui` or `eval` package.
    """
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "pyproject.toml").is_file() and (checkout / module.partition(".")[0] / "__init__.py").is_file():
        if str(checkout) not in sys.path:
            sys.path.insert(0, str(checkout))
        return importlib.import_module(module)
    return importlib.import_module(f"rag.{module}")


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


def _progress_bar(description: str, unit: str) -> Callable[[int, int], None]:
    from tqdm import tqdm

    bar: dict[str, tqdm] = {}

    def update(done: int, total: int) -> None:
        if "bar" not in bar:
            bar["bar"] = tqdm(total=total, desc=description, unit=unit, disable=total == 0, file=sys.stderr)
        bar["bar"].n = done
        bar["bar"].refresh()
        if done >= total:
            bar["bar"].close()

    return update


def cmd_ingest(args: argparse.Namespace) -> int:
    from rag.pipeline import Pipeline

    pipeline = Pipeline(_settings(args))
    progress = _progress_bar("Embedding", unit="sentence")
    report = pipeline.ingest(args.paths or None, rebuild=args.rebuild, progress=progress)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(report.summary())
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from rag.pipeline import Pipeline

    # --k goes through the settings so it is validated like RAG_TOP_K (a negative k is refused, not sliced with).
    pipeline = Pipeline(_settings(args, retrieval_mode=args.mode, top_k=args.k))
    started = time.perf_counter()
    results = pipeline.search(args.question)
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


def _print_answer(answer, *, body: bool = True) -> None:
    for notice in answer.notices:
        print(f"note: {notice}", file=sys.stderr)
    if body:
        print(answer.text)
    shown = answer.nearest if answer.abstained else answer.sources
    if shown:
        print("\nNearest abstracts:" if answer.abstained else "\nSources:")
        for source in shown:
            where = ", ".join(str(loc) for loc in source.abstract.locations)
            print(f"  [{source.number}] {source.abstract.label} ({source.abstract.id}; {where})")
    counts = answer.label_counts
    if counts.get("quoted"):
        print(f"\n{counts['quoted']} sentence(s) quoted from the cited abstracts (their exact text).")
    checked = counts.get("supported", 0) + counts.get("unsupported", 0)
    if checked:
        print(f"\n{counts.get('supported', 0)} of {checked} generated sentence(s) supported by the abstracts they cite.")
    for s in answer.sentences:
        if s.support_label == "unsupported":
            print(f"  unsupported: {s.text[:80]}{'…' if len(s.text) > 80 else ''} ({s.reason or 'no reason given'})")
    t = answer.timings
    model = f" {answer.model}" if answer.model else ""
    print(
        f"\n[{answer.backend}{model}; retrieve {t.retrieve_s:.2f}s, generate {t.generate_s:.2f}s, "
        f"verify {t.verify_s:.2f}s]",
        file=sys.stderr,
    )


def _load_history(path: Path) -> list:
    """The --history file: a JSON list of {"role", "content"} messages; problems become messages, not tracebacks."""
    hint = 'The history file holds a JSON list of messages, e.g. [{"role": "user", "content": "..."}].'
    try:
        history = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise RagError(f"Cannot read the history file {Path(path).name}: {exc.strerror or exc}", hint=hint) from None
    except UnicodeDecodeError:
        raise RagError(f"The history file {Path(path).name} is not UTF-8 text", hint=hint) from None
    except json.JSONDecodeError as exc:
        raise RagError(
            f"The history file {Path(path).name} is not valid JSON ({exc.msg} at line {exc.lineno})", hint=hint
        ) from None
    except RecursionError:
        raise RagError(f"The history file {Path(path).name} is nested too deeply to be a chat history", hint=hint) from None
    if not isinstance(history, list):
        raise RagError(f"The history file {Path(path).name} holds a {type(history).__name__}, not a list", hint=hint)
    return history


def cmd_ask(args: argparse.Namespace) -> int:
    from rag.answer import Answer, TextDelta
    from rag.pipeline import Pipeline

    pipeline = Pipeline(_settings(args))
    history = _load_history(args.history) if args.history else None
    streaming = not args.json and args.stream
    answer = None
    streamed: list[str] = []
    for event in pipeline.stream(args.question, history, backend=args.backend, model=args.model):
        if isinstance(event, TextDelta) and streaming:
            print(event.text, end="", flush=True)
            streamed.append(event.text)
        elif isinstance(event, Answer):
            answer = event
    if args.json:
        print(json.dumps(answer.to_dict(), indent=2, ensure_ascii=False))
    elif streaming and "".join(streamed).strip() == answer.text.strip():
        print()  # what was streamed is the checked answer: print only its sources and labels, not the text again
        _print_answer(answer, body=False)
    else:
        if streaming:  # checking changed the text (a sentence dropped or relabelled): show the version that holds
            print("\n\n--- answer with checked citations ---")
        _print_answer(answer)
    return 0


def _read_claims(path: Path) -> list[dict]:
    """`rag verify`'s input: JSON lines {"id", "claim", "abstract_id"}; every malformed line is named at once."""
    hint = 'Each line of the claims file is a JSON object: {"id": "c1", "claim": "...", "abstract_id": "..."}.'
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RagError(f"Cannot read the claims file {printable(str(path))}: {exc.strerror or exc}", hint=hint) from None
    except UnicodeDecodeError:
        raise RagError(f"The claims file {printable(str(path))} is not UTF-8 text", hint=hint) from None
    rows, problems = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            problems.append(f"line {number}: not valid JSON ({getattr(exc, 'msg', 'nested too deeply')})")
            continue
        if not isinstance(row, dict):
            problems.append(f"line {number}: a JSON {type(row).__name__}, not an object")
            continue
        bad = [k for k in ("id", "claim", "abstract_id") if not isinstance(row.get(k), str) or not row[k].strip()]
        if bad:
            problems.append(f"line {number}: {', '.join(repr(k) for k in bad)} missing or not a non-empty string")
            continue
        rows.append({"line": number, "id": row["id"], "claim": row["claim"], "abstract_id": row["abstract_id"]})
    if problems:
        shown = problems[:10] + ([f"... and {len(problems) - 10} more"] if len(problems) > 10 else [])
        raise RagError(f"The claims file {printable(str(path))} has malformed lines:\n  " + "\n  ".join(shown),
                       hint=hint)  # fmt: skip
    if not rows:
        raise RagError(f"The claims file {printable(str(path))} holds no claims", hint=hint)
    return rows


def cmd_verify(args: argparse.Namespace) -> int:
    from rag.pipeline import Pipeline

    if bool(args.claims) == bool(args.claim):
        raise RagError("Give a claims file or --claim (not both)",
                       hint='rag verify CLAIMS.jsonl, or rag verify --claim "..." --source ID')  # fmt: skip
    if args.claim is not None and not args.source:
        raise RagError("--claim needs --source ID (the abstract it cites)", hint="Run `rag list` to see the IDs.")
    if args.claim is not None:
        rows = [{"line": None, "id": "claim", "claim": args.claim, "abstract_id": args.source}]
    else:
        rows = _read_claims(args.claims)
    pipeline = Pipeline(_settings(args))
    known = pipeline.snapshot.abstracts
    unknown = [r for r in rows if r["abstract_id"] not in known]
    if unknown:
        where = ", ".join(
            (f"line {r['line']} ({r['abstract_id']!r})" if r["line"] else repr(r["abstract_id"])) for r in unknown[:10]
        )
        raise RagError(f"Unknown abstract ID: {where}", hint="Run `rag list` to see the IDs.")
    results = []
    for r in rows:
        if not r["claim"].strip():
            raise RagError("The claim is empty", hint="Pass the sentence to check in quotes.")
        verdict = pipeline.verify_claim(r["claim"], r["abstract_id"])
        span = verdict.evidence_span
        results.append({
            "id": r["id"], "verified": verdict.verified, "support": round(verdict.support, 4), "reason": verdict.reason,
            "evidence_start": span.start, "evidence_end": span.end,
        })  # fmt: skip
    if args.json:
        print(json.dumps({"results": results}, indent=2, ensure_ascii=False))
        return 0
    if len(results) == 1 and args.claim is not None:
        r = results[0]
        abstract = known[rows[0]["abstract_id"]]
        print(f"{'supported' if r['verified'] else 'unsupported'} (support {r['support']:.2f}) by {abstract.label}")
        print(f"  {r['reason']}")
        return 0
    width = max(4, *(len(r["id"]) for r in results[:200]))
    print(f"{'id':{width}}  {'verdict':11}  support  reason")
    for r in results:
        verdict = "supported" if r["verified"] else "unsupported"
        print(f"{r['id']:{width}}  {verdict:11}  {r['support']:7.2f}  {r['reason']}")
    n_ok = sum(r["verified"] for r in results)
    print(f"\n{n_ok} of {len(results)} claims supported by the abstract they cite.")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from rag.pipeline import Pipeline

    questions_file, report, runner = front_end("eval.questions"), front_end("eval.report"), front_end("eval.runner")
    path = args.questions or questions_file.DEFAULT_QUESTIONS
    # a malformed file or an empty split fails here, before any work
    questions = questions_file.select_split(questions_file.load_questions(path), args.split)
    pipeline = Pipeline(_settings(args))
    pipeline.warm_up()
    meta = runner.run_metadata(pipeline, path, args.backend, args.model, args.retrieval_only, args.split)
    results = runner.evaluate(
        pipeline,
        questions,
        backend=args.backend,
        model=args.model,
        retrieval_only=args.retrieval_only,
        progress=_progress_bar("Evaluating", unit="question"),
    )
    summary = runner.summarize(results)
    out_dir = args.out or runner.default_out_dir(Path.cwd())
    paths = report.write_outputs(out_dir, meta, summary, results)
    print(paths["markdown"].read_text(encoding="utf-8"))
    print("\nWrote " + ", ".join(str(p) for p in paths.values()), file=sys.stderr)
    return 0


def cmd_ui(args: argparse.Namespace) -> int:
    import threading

    from rag.errors import IndexNotBuiltError
    from rag.manifest import load_manifest
    from rag.pipeline import Pipeline

    overrides = {"ui_host": args.host, "ui_port": args.port}
    settings = _settings(args, **overrides)
    auth = tuple(settings.ui_auth.split(":", 1)) if settings.ui_auth else None
    pipeline = Pipeline(settings)
    try:
        load_manifest(settings.index_dir)
        have_index = True
    except IndexNotBuiltError:
        have_index = False

    def warm_up() -> None:
        """Load the model and index in the background once the page is served; a question asked before then waits
        for them (the page is usable seconds earlier). A failure is reported here and again on each question."""
        try:
            pipeline.warm_up()
        except RagError as exc:
            print(f"error: cannot load the index or the model: {exc.user_message()}", file=sys.stderr)
        except Exception as exc:  # the UI keeps serving and shows the error per question
            log.debug("warm-up failed", exc_info=exc)
            print(f"error: cannot load the index or the model ({type(exc).__name__}); run with -vv for details",
                  file=sys.stderr)  # fmt: skip
        else:
            print(f"Model and index loaded {time.perf_counter() - PROCESS_START:.1f}s after start.", file=sys.stderr)

    net = front_end("ui.net")  # the bind checks, without importing Gradio
    try:  # refuse an open bind before any slow work (first-run ingest)
        net.check_host(settings.ui_host, auth, args.insecure)
    except ValueError as exc:
        raise RagError(
            str(exc),
            hint="From the command line: set RAG_UI_AUTH=user:password (and put TLS in front, see SECURITY.md), "
            "bind 127.0.0.1 (the default), or pass --insecure if the network is protected otherwise.",
        ) from None
    port_busy = RagError(
        f"Port {settings.ui_port} on {settings.ui_host} is already in use (another `rag ui`, or another program)",
        hint=f"Pick another port with `rag ui --port {min(settings.ui_port + 1, 65535)}` (or RAG_UI_PORT), or "
        "`--port 0` for any free one; or stop the program using it.",
    )
    if net.port_in_use(settings.ui_host, settings.ui_port):  # before the slow work (first-run ingest)
        raise port_busy
    first_run: dict[str, object] = {}
    indexing = None
    if not have_index:
        # Index the seeds while Gradio imports (seconds of Python on one core, while the encoder runs on the others);
        # the page is served only once the index is built.
        seeds = ", ".join(printable(str(p)) for p in settings.seeds)
        print(f"First run: indexing {seeds} (later starts reuse the index).", file=sys.stderr)

        def index_seeds() -> None:
            try:
                first_run["report"] = pipeline.ingest(progress=_progress_bar("Embedding", unit="sentence"))
            except BaseException as exc:  # re-raised in the main thread below
                first_run["error"] = exc

        indexing = threading.Thread(target=index_seeds, name="first-run-ingest", daemon=True)
        indexing.start()
    front_end("ui.gradio_import").import_gradio_without_stub_generation()  # before ui.app imports Gradio
    launch = front_end("ui.app").launch
    if indexing is not None:
        indexing.join()
        if "error" in first_run:
            raise first_run["error"]  # type: ignore[misc]
        print(first_run["report"].summary(), file=sys.stderr)  # type: ignore[union-attr]

    def ready(url: str) -> None:
        print(f"Ready in {time.perf_counter() - PROCESS_START:.1f}s: open {url}  (Ctrl-C to stop)", file=sys.stderr)
        threading.Thread(target=warm_up, name="warm-up", daemon=True).start()

    try:
        launch(pipeline, host=settings.ui_host, port=settings.ui_port, auth=auth, insecure=args.insecure,
               ready_callback=ready, extra_hosts=settings.ui_allowed_hosts)  # fmt: skip
    except OSError as exc:  # taken between the check and the launch; Gradio says "Cannot find empty port"
        if "port" in str(exc).lower() or getattr(exc, "errno", None) == errno.EADDRINUSE:
            raise port_busy from None
        raise
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

    p = sub.add_parser(
        "ask",
        parents=[common],
        help="answer a question with verified citations",
        description="Answer from the abstracts. Every sentence carries [n] citations that are checked against the "
        "abstract they point to; unsupported sentences are re-cited or flagged. When the abstracts do not cover "
        "the question the answer says so and lists the nearest abstracts. --backend auto uses Ollama when it is "
        "running with the model pulled, else the extractive answerer (no model needed).",
    )
    p.add_argument("question", help="the question, in quotes")
    p.add_argument("--backend", choices=["auto", "extractive", "ollama"], help="answering backend (default auto)")
    p.add_argument("--model", help="Ollama model (default llama3.2:3b, or RAG_OLLAMA_MODEL)")
    p.add_argument("--history", type=Path, metavar="FILE", help="JSON chat history for a follow-up question")
    p.add_argument("--no-stream", dest="stream", action="store_false", help="print only the final answer")
    p.add_argument("--json", action="store_true", help="print the full result object as JSON")
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser(
        "verify",
        parents=[common],
        help="check claims against the abstracts they cite (the check every generated sentence gets)",
        description="Check whether an abstract supports a claim: the abstract sentence(s) the claim restates are "
        "found (MiniLM similarity and shared words), then numbers and units, names, polarity, comparison "
        "direction, overclaiming, settings and added details are checked. Each claim gets a verdict, a support "
        "score and a reason quoting the abstract. Input: JSON lines {\"id\", \"claim\", \"abstract_id\"} (IDs from "
        "`rag list`). --json prints {\"results\": [{id, verified, support, reason, evidence_start, evidence_end}]} "
        "in input order; evidence offsets are characters of the abstract's text.",
    )
    p.add_argument("claims", nargs="?", type=Path, metavar="CLAIMS.jsonl", help="JSON lines file of claims")
    p.add_argument("--claim", help="check one claim (with --source)")
    p.add_argument("--source", metavar="ID", help="the abstract ID the --claim cites")
    p.add_argument("--json", action="store_true", help="machine-readable output (fields above)")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser(
        "eval",
        parents=[common],
        help="run the evaluation question set and write a report",
        description="Run every question through the same pipeline as the UI and compute retrieval (hit@1, "
        "recall@5, MRR@10, nDCG@10 for hybrid, BM25-only and dense-only), citation precision/recall/F1, verified "
        "share, invalid-citation rate, key-fact coverage, abstention accuracy and latency, per split (dev: tuned "
        "on; test: written blind, only reported; regression: the first set; validation: written blind, read only as "
        "totals to choose between changes) and per question shape, with the "
        "abstention trade-off curve. Writes results.json, report.md, metrics.png and abstention.png.",
    )
    p.add_argument("--questions", type=Path, help="JSONL question file (default eval/questions.jsonl)")
    p.add_argument("--backend", choices=["auto", "extractive", "ollama"], help="answering backend (default auto)")
    p.add_argument("--model", help="Ollama model for --backend ollama/auto")
    p.add_argument("--out", type=Path, metavar="DIR", help="output folder (default eval/runs/<timestamp>)")
    p.add_argument("--retrieval-only", action="store_true", help="measure retrieval only; compose no answers")
    p.add_argument("--split", default="all", choices=["all", "dev", "test", "regression", "validation"],
                   help="run one split of the question file (default all)")  # fmt: skip
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser(
        "ui",
        parents=[common],
        help="start the chat UI in the browser (indexes ./seeds on first run)",
        description="Serve the Gradio chat UI. On first run it indexes the seeds (with progress); later starts "
        "reuse the index. Binds to 127.0.0.1 by default; another address needs RAG_UI_AUTH=user:password or an "
        "explicit --insecure. Never creates a public share link.",
    )
    p.add_argument("--host", help="address to bind (default 127.0.0.1, or RAG_UI_HOST)")
    p.add_argument("--port", type=int, help="port (default 7860, or RAG_UI_PORT; 0 = any free port)")
    p.add_argument("--insecure", action="store_true", help="allow a non-loopback bind without credentials")
    p.set_defaults(func=cmd_ui)

    p = sub.add_parser(
        "bench",
        help="measure ingest, retrieval, answer, model-path and UI start-up speed and memory",
        description="Benchmarks with targets beside each figure: ingest throughput vs the raw encoder, retrieval "
        "latency p50/p95 (dense, BM25, fused) and peak memory at each corpus size (synthetic corpora recombine "
        "real seed sentences), extractive answer latency, Ollama-path overhead vs llama-cpp-python directly, and "
        "time from `rag ui` to ready. Writes bench.json, bench.md and bench.png.",
    )
    front_end("eval.bench").add_arguments(p)  # light: the benchmarks import their libraries when they run
    p.set_defaults(func=_cmd_bench)
    return parser


def _cmd_bench(args: argparse.Namespace) -> int:
    return front_end("eval.bench").run(args)


def main(argv: Sequence[str] | None = None) -> int:
    quiet_libraries()
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING if args.verbose == 0 else logging.INFO if args.verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if args.verbose == 0:
        logging.getLogger("rag.ingest").setLevel(logging.ERROR)
    try:
        return args.func(args)
    except RagError as exc:
        print(f"error: {printable(exc.user_message(), keep=chr(10))}", file=sys.stderr)  # may name a seed file
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("interrupted; the last complete index is unchanged", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug or an unforeseen environment problem: a message, the details only with -v
        log.debug("unexpected error", exc_info=exc)
        print(
            f"error: unexpected {type(exc).__name__}; the last complete index is unchanged.\n"
            "Run the command again with -vv to see the details, and please report it.",
            file=sys.stderr,
        )
        return EXIT_FAILURE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
