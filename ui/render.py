"""Answers, sources and abstracts -> HTML for the UI. Pure functions, no Gradio.

Every piece of text that comes from an abstract, a question, the model or the engine goes through :func:`esc`
(``html.escape``) before it is placed in markup, so nothing a user, a seed file or a model writes can add
elements, attributes or script. The only markup in the output is written here.

Citation chips and source entries are links whose ``href`` carries what the evidence panel needs
(``#cite:<number>:<abstract id>:<start>-<end>,...``): Gradio's chat sanitizer keeps ``href`` but drops
``data-*`` attributes, and the page's click handler (see ``ui.app``) hands the ``href`` to the server, which
parses it with :func:`parse_cite_ref` and renders :func:`render_abstract`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote, unquote

from rag.answer import Answer, AnswerSentence, BackendStatus, Source
from rag.corpus import Abstract

CITE_PREFIX = "#cite:"
ABSTRACT_PREFIX = "#abstract:"
NOT_VERIFIED = "not verified"
MAX_SPANS_IN_REF = 64

Span = tuple[int, int]


def esc(text: object) -> str:
    """Escape text for HTML element content and quoted attribute values."""
    return html.escape("" if text is None else str(text), quote=True)


_BOLD = re.compile(r"\*\*(?=\S)([^*\n]+?)(?<=\S)\*\*")
_CODE = re.compile(r"`([^`\n]+)`")
_ITALIC = re.compile(r"(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])")


def inline(text: str) -> str:
    """Escape, then turn ``**bold**``, ``*italic*`` (used in the seed abstracts) and ```code``` into tags.

    The patterns run on escaped text and only wrap it in fixed tags, so they cannot create any other markup.
    """
    text = _ITALIC.sub(r"<em>\1</em>", _BOLD.sub(r"<strong>\1</strong>", esc(text)))
    return _CODE.sub(r"<code>\1</code>", text)


def _multiline(text: str) -> str:
    """Escaped text with newlines as <br>."""
    return "<br>".join(inline(line) for line in str(text).splitlines() or [""])


# --- references carried by links ---


@dataclass(frozen=True, slots=True)
class CiteRef:
    """What a chip or source link points at: a source number (0: unnumbered), an abstract and evidence spans."""

    number: int
    abstract_id: str
    spans: tuple[Span, ...] = ()


_CITE_RE = re.compile(r"^#cite:(\d{1,4}):([^:\s]{1,300}):((?:\d{1,9}-\d{1,9})(?:,\d{1,9}-\d{1,9})*)?$")
_ABSTRACT_RE = re.compile(r"^#abstract:([^:\s]{1,300})$")


def cite_href(number: int, abstract_id: str, spans: Iterable[Span] = ()) -> str:
    spans = normalize_spans(spans)[:MAX_SPANS_IN_REF]
    return f"{CITE_PREFIX}{int(number)}:{quote(abstract_id, safe='')}:" + ",".join(f"{s}-{e}" for s, e in spans)


def abstract_href(abstract_id: str) -> str:
    return f"{ABSTRACT_PREFIX}{quote(abstract_id, safe='')}"


def parse_cite_ref(ref: object) -> CiteRef | None:
    """Parse a ``#cite:`` href from the page; None for anything malformed (it comes from the browser)."""
    if not isinstance(ref, str) or len(ref) > 2000:
        return None
    match = _CITE_RE.match(ref.strip())
    if match is None:
        return None
    spans: list[Span] = []
    for part in (match.group(3) or "").split(",")[:MAX_SPANS_IN_REF]:
        if part:
            start, end = part.split("-")
            spans.append((int(start), int(end)))
    return CiteRef(int(match.group(1)), unquote(match.group(2)), tuple(normalize_spans(spans)))


def parse_abstract_ref(ref: object) -> str | None:
    """The abstract ID in an ``#abstract:`` href, or None."""
    if not isinstance(ref, str) or len(ref) > 400:
        return None
    match = _ABSTRACT_RE.match(ref.strip())
    return unquote(match.group(1)) if match else None


# --- spans ---


def normalize_spans(spans: Iterable[Span], length: int | None = None) -> list[Span]:
    """Sorted, merged, non-empty spans; clamped to ``[0, length]`` when a length is given."""
    cleaned: list[Span] = []
    for span in spans:
        try:
            start, end = int(span[0]), int(span[1])
        except (TypeError, ValueError, IndexError):
            continue
        start = max(start, 0)
        if length is not None:
            end = min(end, length)
        if end > start:
            cleaned.append((start, end))
    cleaned.sort()
    merged: list[Span] = []
    for start, end in cleaned:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def highlight(text: str, spans: Iterable[Span]) -> str:
    """The text escaped, with each span wrapped in <mark class="rag-evidence">."""
    parts: list[str] = []
    cursor = 0
    for start, end in normalize_spans(spans, len(text)):
        parts.append(inline(text[cursor:start]))
        parts.append(f'<mark class="rag-evidence">{inline(text[start:end])}</mark>')
        cursor = end
    parts.append(inline(text[cursor:]))
    return "".join(parts)


def evidence_by_source(answer: Answer) -> dict[int, list[Span]]:
    """Source number -> the evidence spans its citations point at, over all sentences of the answer."""
    spans: dict[int, list[Span]] = {}
    for sentence in answer.sentences:
        for c in sentence.citations:
            spans.setdefault(c.number, []).append((c.evidence_start, c.evidence_end))
    return {number: normalize_spans(s) for number, s in spans.items()}


# --- small pieces ---


def locations_text(abstract: Abstract) -> str:
    return ", ".join(str(loc) for loc in abstract.locations)


def _chip(
    number: int,
    abstract: Abstract | None,
    abstract_id: str,
    spans: Iterable[Span],
    *,
    weak: bool,
    support: float | None = None,
) -> str:
    label = abstract.label if abstract is not None else abstract_id
    title = f"[{number}] {label} · {abstract_id}"
    if support is not None:
        title += f" · support {support:.2f}"
    classes = "rag-chip" + (" rag-chip-weak" if weak else "")
    return (
        f'<a class="{classes}" href="{esc(cite_href(number, abstract_id, spans))}" title="{esc(title)}" '
        f'aria-label="{esc(f"Source {number}: {label}")}"><span class="rag-sr">[</span>{number}'
        f'<span class="rag-sr">]</span></a>'
    )


def _sentence(sentence: AnswerSentence, sources: Mapping[int, Source]) -> str:
    classes = "rag-sent"
    if sentence.verified:
        title = sentence.note
    else:
        classes += " rag-unverified"
        title = NOT_VERIFIED + (f": {sentence.note}" if sentence.note and sentence.note != NOT_VERIFIED else "")
    title_attr = f' title="{esc(title)}"' if title else ""
    chips: list[str] = []
    seen: dict[int, int] = {}
    for c in sentence.citations:
        if c.number in seen:
            continue
        seen[c.number] = len(chips)
        source = sources.get(c.number)
        spans = [(x.evidence_start, x.evidence_end) for x in sentence.citations if x.number == c.number]
        support = max(x.support for x in sentence.citations if x.number == c.number)
        chips.append(
            _chip(
                c.number,
                source.abstract if source else None,
                c.abstract_id,
                spans,
                weak=not sentence.verified,
                support=support,
            )
        )
    body = f'<span class="{classes}"{title_attr}>{inline(sentence.text)}</span>'
    return body + ("&#8202;" + "".join(chips) if chips else "")


_MARKER = re.compile(r"\[(\d{1,3})\]")


def _text_with_markers(text: str, sources: Mapping[int, Source]) -> str:
    """Fallback when there are no parsed sentences: escape the text and turn known [n] markers into chips."""
    out: list[str] = []
    cursor = 0
    for match in _MARKER.finditer(text):
        number = int(match.group(1))
        source = sources.get(number)
        if source is None:
            continue
        out.append(_multiline(text[cursor : match.start()]))
        out.append(_chip(number, source.abstract, source.abstract.id, (), weak=True))
        cursor = match.end()
    out.append(_multiline(text[cursor:]))
    return "".join(out)


# --- answers ---


def render_user(question: str) -> str:
    """A question as shown in the chat (escaped; line breaks kept)."""
    return f'<div class="rag-question">{esc(question)}</div>'


def render_streaming(text: str) -> str:
    """Answer text while it streams in: plain escaped text and a cursor, no chips yet."""
    if not text:
        return '<div class="rag-answer rag-streaming"><p class="rag-pending">Searching the abstracts…</p></div>'
    return f'<div class="rag-answer rag-streaming"><p class="rag-text">{esc(text)}<span class="rag-cursor"></span></p></div>'


def render_error(message: str) -> str:
    """An error shown in place of an answer (the engine's user message; never a traceback)."""
    return f'<div class="rag-answer rag-error" role="alert"><p>{_multiline(message)}</p></div>'


def render_answer(answer: Answer) -> str:
    """The verified answer: sentences with citation chips, unverified sentences marked, notices, closest abstracts."""
    sources = {s.number: s for s in answer.sources}
    parts: list[str] = [f'<div class="rag-answer{" rag-abstained" if answer.abstained else ""}">']
    for notice in answer.notices:
        parts.append(f'<p class="rag-notice">{_multiline(notice)}</p>')
    if answer.sentences:
        parts.append('<p class="rag-text">' + " ".join(_sentence(s, sources) for s in answer.sentences) + "</p>")
    elif answer.text.strip():
        parts.append(f'<p class="rag-text">{_text_with_markers(answer.text, sources)}</p>')
    if answer.interrupted:
        parts.append('<p class="rag-notice">Generation stopped part-way; this is what arrived.</p>')
    if answer.abstained and answer.nearest:
        items = "".join(
            f'<li><a class="rag-nearest" href="{esc(cite_href(0, s.abstract.id))}" '
            f'title="{esc(s.abstract.id)}">{inline(s.abstract.label)}</a></li>'
            for s in answer.nearest
        )
        parts.append(f'<div class="rag-nearest-list"><p>Closest abstracts:</p><ul>{items}</ul></div>')
    if any(not s.verified for s in answer.sentences):
        parts.append(
            '<p class="rag-legend"><span class="rag-unverified" title="not verified">Dotted underline</span>: '
            "not verified against the cited abstract.</p>"
        )
    parts.append("</div>")
    return "".join(parts)


def answer_history_text(answer: Answer) -> str:
    """What goes into the conversation history sent back to the engine for follow-ups."""
    return answer.text


# --- sources and abstracts ---


def render_sources(
    sources: Sequence[Source],
    evidence: Mapping[int, Sequence[Span]] | None = None,
    *,
    cited: Collection[int] | None = None,
    title: str = "Sources",
) -> str:
    """The numbered source list; each entry opens the abstract with its evidence highlighted.

    ``cited`` (source numbers) splits the list into cited sources and others retrieved but not cited.
    """
    evidence = evidence or {}
    if not sources:
        return (
            f'<div class="rag-panel rag-sources"><h3 class="rag-panel-title">{esc(title)}</h3>'
            '<p class="rag-empty">The abstracts an answer cites appear here.</p></div>'
        )

    def item(source: Source, extra: str = "") -> str:
        a = source.abstract
        spans = evidence.get(source.number, ())
        number = f'<span class="rag-num">{source.number}</span>' if source.number else ""
        return (
            f'<li class="rag-source{extra}"><a class="rag-source-link" '
            f'href="{esc(cite_href(source.number, a.id, spans))}" title="Show the abstract">{number}'
            f'<span class="rag-source-body"><span class="rag-source-label">{inline(a.label)}</span>'
            f'<span class="rag-meta"><code>{esc(a.id)}</code> · {esc(locations_text(a))}</span></span></a></li>'
        )

    main = [s for s in sources if cited is None or s.number in cited]
    others = [] if cited is None else [s for s in sources if s.number not in cited]
    parts = [f'<div class="rag-panel rag-sources"><h3 class="rag-panel-title">{esc(title)}</h3>']
    if main:
        parts.append('<ol class="rag-source-list">' + "".join(item(s) for s in main) + "</ol>")
    else:
        parts.append('<p class="rag-empty">The answer cites no abstract.</p>')
    if others:
        parts.append('<p class="rag-subtitle">Retrieved, not cited</p>')
        parts.append('<ol class="rag-source-list">' + "".join(item(s, " rag-uncited") for s in others) + "</ol>")
    parts.append("</div>")
    return "".join(parts)


def render_answer_sources(answer: Answer) -> str:
    """The sources panel for an answer: the cited sources first; the closest abstracts when it abstained."""
    if answer.abstained and not answer.cited_ids:
        return render_sources([Source(0, s.abstract) for s in answer.nearest], title="Closest abstracts")
    cited = {c.number for s in answer.sentences for c in s.citations}
    return render_sources(answer.sources, evidence_by_source(answer), cited=cited)


def render_abstract(abstract: Abstract, spans: Iterable[Span] = (), *, number: int | None = None) -> str:
    """The whole abstract, with the supporting sentence(s) highlighted."""
    spans = normalize_spans(spans, len(abstract.text))
    num = f'<span class="rag-num">{number}</span>' if number else ""
    note = (
        '<p class="rag-meta rag-evidence-note"><mark class="rag-evidence">Highlighted</mark>: '
        f"the sentence{'s' if len(spans) > 1 else ''} supporting the answer.</p>"
        if spans
        else ""
    )
    return (
        '<article class="rag-panel rag-abstract">'
        f'<h3 class="rag-abstract-title">{num}<span>{inline(abstract.label)}</span></h3>'
        f'<p class="rag-meta"><code>{esc(abstract.id)}</code> · {esc(locations_text(abstract))}</p>'
        f"{note}"
        f'<p class="rag-abstract-text">{highlight(abstract.text, spans)}</p>'
        "</article>"
    )


def render_evidence_placeholder() -> str:
    return (
        '<div class="rag-panel rag-evidence-empty"><h3 class="rag-panel-title">Evidence</h3>'
        '<p class="rag-empty">Click a citation chip or a source to read the abstract, with the sentences that '
        "support the answer highlighted.</p></div>"
    )


def render_message(message: str, *, kind: str = "info") -> str:
    """A short message in a panel (e.g. an abstract that is no longer indexed)."""
    kind = kind if kind in {"info", "error"} else "info"
    return f'<div class="rag-panel rag-message rag-message-{kind}"><p>{_multiline(message)}</p></div>'


# --- details and status ---


def _seconds(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def render_details(answer: Answer) -> str:
    """Timings, tokens and verification counts for one answer."""
    t = answer.timings
    rows = [
        ("Answered by", answer.backend + (f" · {answer.model}" if answer.model else "")),
        ("Retrieval", _seconds(t.retrieve_s)),
        ("Generation", _seconds(t.generate_s)),
        ("Verification", _seconds(t.verify_s)),
        ("Total", _seconds(t.total_s)),
    ]
    if t.first_token_s is not None:
        rows.append(("First token", _seconds(t.first_token_s)))
    if answer.completion_tokens is not None or answer.prompt_tokens is not None:
        rows.append(("Prompt tokens", "–" if answer.prompt_tokens is None else f"{answer.prompt_tokens:,}"))
        rows.append(("Completion tokens", "–" if answer.completion_tokens is None else f"{answer.completion_tokens:,}"))
        rate = answer.tokens_per_s
        rows.append(("Tokens/s", "–" if rate is None else f"{rate:.1f}"))
    if answer.sentences:
        verified = sum(s.verified for s in answer.sentences)
        rows.append(("Verified sentences", f"{verified} of {len(answer.sentences)}"))
    if answer.standalone_question:
        rows.append(("Follow-up read as", answer.standalone_question))
    body = "".join(f'<tr><th scope="row">{esc(k)}</th><td>{esc(v)}</td></tr>' for k, v in rows)
    return f'<table class="rag-details">{body}</table>'


def render_details_placeholder() -> str:
    return '<p class="rag-empty">Timings and token counts of the last answer appear here.</p>'


def render_status(status: BackendStatus | None, answer: Answer | None = None) -> str:
    """The status line: what answered (or will answer), and how to enable generation when Ollama is absent."""
    parts: list[str] = ['<div class="rag-status">']
    if answer is not None:
        if answer.backend == "ollama":
            who = f"Ollama · <strong>{esc(answer.model or 'model')}</strong>"
        else:
            who = "<strong>extractive</strong> (sentences quoted from the abstracts, no language model)"
        parts.append(
            f'<span class="rag-badge rag-badge-{esc(answer.backend)}">{esc(answer.backend)}</span>'
            f"<span>Last answer: {who}</span>"
        )
    elif status is not None and status.backend == "ollama":
        parts.append(
            '<span class="rag-badge rag-badge-ollama">ollama</span>'
            f"<span>Answers are generated by <strong>{esc(status.model or 'the selected model')}</strong> "
            f"via Ollama at {esc(status.ollama_host)}, then verified against the abstracts.</span>"
        )
    elif status is not None:
        parts.append(
            '<span class="rag-badge rag-badge-extractive">extractive</span>'
            "<span>Answers are <strong>extractive</strong>: sentences quoted from the abstracts, "
            "no language model.</span>"
        )
    else:
        parts.append('<span class="rag-badge">…</span><span>Checking the answering backend…</span>')
    show_hint = (
        status is not None
        and status.message
        and (status.backend != "ollama" or (answer is not None and answer.backend != "ollama"))
    )
    if show_hint:
        parts.append(f'<span class="rag-hint">{_multiline(status.message)}</span>')
    parts.append("</div>")
    return "".join(parts)


# --- browse ---


def filter_abstracts(abstracts: Sequence[Abstract], query: str) -> list[Abstract]:
    """Abstracts whose ID, label, text or file names contain every word of the query (case-insensitive)."""
    words = (query or "").lower().split()
    if not words:
        return list(abstracts)
    found = []
    for a in abstracts:
        haystack = " ".join([a.id, a.label, a.text, locations_text(a)]).lower()
        if all(w in haystack for w in words):
            found.append(a)
    return found


def render_abstract_list(abstracts: Sequence[Abstract], query: str = "", *, snippet_chars: int = 180) -> str:
    """Every abstract (ID, label, files, opening words) matching the query; each opens in full when clicked."""
    shown = filter_abstracts(abstracts, query)
    count = f"{len(shown)} of {len(abstracts)} abstracts" if query.strip() else f"{len(abstracts)} abstracts"
    if not shown:
        return (
            f'<div class="rag-browse"><p class="rag-meta">{esc(count)}</p>'
            '<p class="rag-empty">No abstract matches these words.</p></div>'
        )
    items = []
    for a in shown:
        snippet = a.text if len(a.text) <= snippet_chars else a.text[:snippet_chars].rsplit(" ", 1)[0] + "…"
        items.append(
            f'<li><a class="rag-browse-item" href="{esc(abstract_href(a.id))}">'
            f'<span class="rag-browse-head"><span class="rag-source-label">{inline(a.label)}</span>'
            f"<code>{esc(a.id)}</code></span>"
            f'<span class="rag-meta">{esc(locations_text(a))}</span>'
            f'<span class="rag-snippet">{inline(snippet)}</span></a></li>'
        )
    return f'<div class="rag-browse"><p class="rag-meta">{esc(count)}</p><ul class="rag-browse-list">{"".join(items)}</ul></div>'


def render_browse_placeholder() -> str:
    return '<div class="rag-panel"><p class="rag-empty">Select an abstract to read it in full.</p></div>'
