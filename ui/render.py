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

from markdown_it import MarkdownIt

from rag.answer import Answer, AnswerSentence, BackendStatus, Source
from rag.corpus import Abstract

CITE_PREFIX = "#cite:"
ABSTRACT_PREFIX = "#abstract:"
NOT_VERIFIED = "unsupported"
QUOTED_TITLE = "quoted: the exact text of the cited abstract"
MAX_SPANS_IN_REF = 64

Span = tuple[int, int]


def esc(text: object) -> str:
    """Escape text for HTML element content and quoted attribute values."""
    return html.escape("" if text is None else str(text), quote=True)


# --- Markdown and LaTeX ---
#
# Text is rendered as Markdown by markdown-it-py (a Gradio dependency) with raw HTML off, so whatever a model, a
# question or an abstract writes is escaped; tables and strikethrough on; images and reference definitions off
# (an answer line "[1]: ..." must stay text). Links are kept only for http(s) URLs and open in a new tab without
# the opener. LaTeX in abstracts (``4$\times$``, ``$7, 402$``, ``$h$``) is turned into plain Unicode text first by
# :func:`latex_to_text`: no KaTeX on the page, and nothing of it left raw.


def _is_web_link(url: str) -> bool:
    return bool(re.match(r"https?://[^\s]", url or "", re.IGNORECASE))


def _link_open(self, tokens, idx, options, env):  # markdown-it render rule
    tokens[idx].attrSet("target", "_blank")
    tokens[idx].attrSet("rel", "noopener noreferrer")
    return self.renderToken(tokens, idx, options, env)


def _markdown(links: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"]).disable(["image", "reference", "html_block", "html_inline", "entity"])
    if not links:
        md.disable(["link", "autolink"])
    md.validateLink = _is_web_link
    md.add_render_rule("link_open", _link_open)
    return md


_MD = _markdown(links=True)
_MD_NO_LINKS = _markdown(links=False)

_GREEK = (
    "alpha α beta β gamma γ delta δ epsilon ε varepsilon ε zeta ζ eta η theta θ iota ι kappa κ lambda λ mu μ "
    "nu ν xi ξ pi π rho ρ sigma σ tau τ upsilon υ phi φ varphi φ chi χ psi ψ omega ω Gamma Γ Delta Δ Theta Θ "
    "Lambda Λ Xi Ξ Pi Π Sigma Σ Phi Φ Psi Ψ Omega Ω"
)
_MACROS = dict(zip(_GREEK.split()[::2], _GREEK.split()[1::2], strict=True)) | {
    "times": "×", "sim": "~", "approx": "≈", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "neq": "≠", "ne": "≠",
    "pm": "±", "cdot": "·", "to": "→", "rightarrow": "→", "Rightarrow": "⇒", "leftarrow": "←", "infty": "∞",
    "in": "∈", "sum": "∑", "prod": "∏", "partial": "∂", "nabla": "∇", "ell": "ℓ", "ldots": "…", "dots": "…",
    "cdots": "⋯", "mid": "|", "propto": "∝", "ll": "≪", "gg": "≫", "circ": "°", "degree": "°", "sqrt": "√",
    "%": "%", "$": "$", "&": "&", "#": "#", "_": "_", ",": "\u2009", ";": " ", ":": " ", "!": "", " ": " ",
}  # fmt: skip
_BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ"}
_SUP = str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ")
_SUB = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
_INLINE_MATH = re.compile(r"\$(?=[^\s$])([^$\n]{1,200}?)(?<=[^\s$\\])\$")
_WRAPPER = re.compile(
    r"\\(?:text|mathrm|mathbf|mathit|textbf|textit|emph|boldsymbol|operatorname|mathsf|mathtt)\s*\{([^{}]*)\}"
)
_SCRIPT = re.compile(r"([\^_])(?:\{([^{}]*)\}|([A-Za-z0-9]))")


def _math_to_text(math: str) -> str:
    """One ``$...$`` body as Markdown text: macros as symbols, scripts as Unicode where possible."""
    text = math.strip()
    for _ in range(3):
        text = _WRAPPER.sub(r"\1", text)
    text = re.sub(r"\\mathbb\s*\{\s*([A-Z])\s*\}", lambda m: _BLACKBOARD.get(m.group(1), m.group(1)), text)
    text = re.sub(r"\\mathcal\s*\{\s*([A-Za-z])\s*\}", r"\1", text)
    text = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"\1/\2", text)
    text = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])", "", text)
    text = re.sub(r"\\([A-Za-z]+|[%$&#_,;:! ])", lambda m: _MACROS.get(m.group(1), m.group(1)), text)

    def script(m: re.Match) -> str:
        body = m.group(2) if m.group(2) is not None else m.group(3)
        table = _SUP if m.group(1) == "^" else _SUB
        mapped = body.translate(table)
        if all(ch != orig or ch in "⁰¹²³⁴⁵⁶⁷⁸⁹" for ch, orig in zip(mapped, body, strict=True)) and body:
            return mapped
        return m.group(1) + (body if len(body) == 1 else f"({body})")

    text = _SCRIPT.sub(script, text)
    text = text.replace("{", "").replace("}", "")
    text = re.sub(r"(\d),\s+(\d{3})(?!\d)", r"\1,\2", text)  # "$7, 402$" -> 7,402
    text = re.sub(r"([*_`\[\]|<>])", r"\\\1", text)  # what is left is literal text, not Markdown
    if re.fullmatch(r"[A-Za-z](?:\\?['_]?[A-Za-z0-9])?", text) or re.fullmatch(r"[A-Za-z]'?", text):
        return f"*{text}*"  # a variable: italic, as typeset
    return text


def latex_to_text(text: str) -> str:
    """``$...$`` and ``$$...$$`` (and a stray ``\\%``) as readable text, for Markdown rendering.

    A dollar that does not open a math span (``$5 and $10``) is left alone.
    """
    if "$" not in text and "\\" not in text:
        return text
    text = _DISPLAY_MATH.sub(lambda m: _math_to_text(m.group(1)), text)
    text = _INLINE_MATH.sub(lambda m: _math_to_text(m.group(1)), text)
    return re.sub(r"\\([%&#$])", r"\1", text)


_TAG_SPLIT = re.compile(r"(<[^>]*>)")
_URL = re.compile(r"https?://(?:(?!&quot;|&lt;|&gt;|&#)[^\s<>\"'])+[^\s<>\"'.,;:!?)\]]", re.IGNORECASE)


def map_text(markup: str, fn, *, skip: Collection[str] = ("a", "code", "pre")) -> str:
    """Apply ``fn`` to the text between tags (already escaped), except inside the ``skip`` elements."""
    out: list[str] = []
    depth = 0
    for part in _TAG_SPLIT.split(markup):
        if part.startswith("<"):
            name = re.match(r"</?\s*([A-Za-z0-9]*)", part).group(1).lower()
            if name in skip and not part.endswith("/>"):
                depth = max(depth - 1, 0) if part.startswith("</") else depth + 1
            out.append(part)
        elif part:
            out.append(fn(part) if depth == 0 else part)
    return "".join(out)


def _linkify(text: str) -> str:
    return _URL.sub(
        lambda m: f'<a href="{m.group(0)}" target="_blank" rel="noopener noreferrer">{m.group(0)}</a>', text
    )


def inline(text: str, *, links: bool = True) -> str:
    """One line of Markdown (``**bold**``, ``*italic*``, ```code```, ``[text](https://...)``, LaTeX) as safe HTML.

    markdown-it escapes everything else; ``links=False`` for text placed inside a link of our own.
    """
    md = _MD if links else _MD_NO_LINKS
    out = md.renderInline(latex_to_text("" if text is None else str(text)))
    return map_text(out, _linkify) if links else out


def render_markdown(text: str) -> str:
    """A block of Markdown (lists, tables, paragraphs) as safe HTML, bare URLs linked; each table inside a box
    that scrolls sideways on its own when the table is wider than the answer."""
    out = map_text(_MD.render(latex_to_text(text or "")), _linkify)
    return out.replace("<table>", '<div class="rag-table-scroll"><table>').replace("</table>", "</table></div>")


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
    turn: int | None = None  # which answer of the chat the link sits in (0-based), when known


_CITE_RE = re.compile(r"^#cite:(\d{1,4}):([^:\s]{1,300}):((?:\d{1,9}-\d{1,9})(?:,\d{1,9}-\d{1,9})*)?(?::t(\d{1,5}))?$")
_ABSTRACT_RE = re.compile(r"^#abstract:([^:\s]{1,300})$")


def cite_href(number: int, abstract_id: str, spans: Iterable[Span] = (), turn: int | None = None) -> str:
    spans = normalize_spans(spans)[:MAX_SPANS_IN_REF]
    href = f"{CITE_PREFIX}{int(number)}:{quote(abstract_id, safe='')}:" + ",".join(f"{s}-{e}" for s, e in spans)
    return href if turn is None else f"{href}:t{int(turn)}"


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
    turn = int(match.group(4)) if match.group(4) is not None else None
    return CiteRef(int(match.group(1)), unquote(match.group(2)), tuple(normalize_spans(spans)), turn)


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


_MARK_OPEN, _MARK_CLOSE = "\ue000", "\ue001"  # private-use characters: cannot occur in rendered markup


def highlight(text: str, spans: Iterable[Span]) -> str:
    """The text rendered as inline Markdown, with each span wrapped in <mark class="rag-evidence">.

    The span edges are marked in the raw text with private-use characters before rendering, so the offsets stay
    those of the abstract; each run of marked text between two tags gets its own <mark>, so a span that starts
    inside ``**bold**`` still nests correctly.
    """
    text = text.replace(_MARK_OPEN, "").replace(_MARK_CLOSE, "")
    pieces: list[str] = []
    cursor = 0
    for start, end in normalize_spans(spans, len(text)):
        pieces += [text[cursor:start], _MARK_OPEN, text[start:end], _MARK_CLOSE]
        cursor = end
    pieces.append(text[cursor:])
    return _place_marks(inline("".join(pieces)))


def _place_marks(rendered: str) -> str:
    """Turn the span sentinels in rendered markup into well-nested <mark> elements (reopened across tags)."""
    open_mark, close_mark = '<mark class="rag-evidence">', "</mark>"
    out: list[str] = []
    stack: list[tuple[str, str]] = []  # open elements: (name, start tag)
    mark_depth: int | None = None  # len(stack) when the current mark opened
    for part in _TAG_SPLIT.split(rendered):
        if part.startswith("<"):
            part = part.replace(_MARK_OPEN, "").replace(_MARK_CLOSE, "")
            name = re.match(r"</?\s*([A-Za-z0-9]*)", part).group(1).lower()
            if part.startswith("</"):
                if mark_depth is not None and len(stack) <= mark_depth:
                    out += [close_mark, part, open_mark]
                    mark_depth = max(len(stack) - 1, 0)
                else:
                    out.append(part)
                if stack:
                    stack.pop()
            else:
                out.append(part)
                if not part.endswith("/>") and name not in {"br", "hr"}:
                    stack.append((name, part))
            continue
        for i, run in enumerate(re.split(f"([{_MARK_OPEN}{_MARK_CLOSE}])", part)):
            if not i % 2:
                out.append(run)
            elif run == _MARK_OPEN and mark_depth is None:
                out.append(open_mark)
                mark_depth = len(stack)
            elif run == _MARK_CLOSE and mark_depth is not None:
                inner = stack[mark_depth:]
                out += [f"</{n}>" for n, _ in reversed(inner)] + [close_mark] + [t for _, t in inner]
                mark_depth = None
    if mark_depth is not None:
        out.append(close_mark)
    return "".join(out).replace(open_mark + close_mark, "")


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
    turn: int | None = None,
) -> str:
    label = abstract.label if abstract is not None else abstract_id
    title = f"[{number}] {label} · {abstract_id}"
    if support is not None:
        title += f" · support {support:.2f}"
    classes = "rag-chip" + (" rag-chip-weak" if weak else "")
    return (
        f'<a class="{classes}" href="{esc(cite_href(number, abstract_id, spans, turn))}" title="{esc(title)}" '
        f'aria-label="{esc(f"Source {number}: {label}")}"><span class="rag-sr">[</span>{number}'
        f'<span class="rag-sr">]</span></a>'
    )


def _sentence(sentence: AnswerSentence, sources: Mapping[int, Source], turn: int | None = None) -> str:
    classes = "rag-sent"
    if sentence.support_label == "quoted":
        title = QUOTED_TITLE
    elif sentence.verified:
        title = "; ".join(x for x in ("supported by the cited abstract", sentence.note) if x)
    else:
        classes += " rag-unverified"
        why = sentence.reason or (sentence.note if sentence.note not in ("", NOT_VERIFIED) else "")
        title = NOT_VERIFIED + (f": {why}" if why else "")
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
                turn=turn,
            )
        )
    body = f'<span class="{classes}"{title_attr}>{inline(sentence.text)}</span>'
    return body + ("&#8202;" + "".join(chips) if chips else "")


_MARKER = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
# An answer written as Markdown blocks (the engine's list and compare answers): rendered as a whole.
_BLOCK_MARKDOWN = re.compile(r"^ {0,3}(?:[-*+] |\d{1,3}[.)] |\|.*\||#{1,6} |> )", re.MULTILINE)


def is_block_markdown(text: str) -> bool:
    """Whether an answer's text is a Markdown list, table, heading or quote (rather than plain sentences)."""
    return bool(_BLOCK_MARKDOWN.search(text or ""))


def chipify(markup: str, make_chip) -> str:
    """Replace ``[n]`` / ``[n, m]`` markers in rendered text with ``make_chip(n)`` (None: keep the marker)."""

    def replace(match: re.Match) -> str:
        numbers = [int(n) for n in re.split(r"\s*,\s*", match.group(1))]
        chips = [make_chip(n) for n in numbers]
        if any(c is None for c in chips):
            return match.group(0)
        return "&#8202;" + "".join(chips)

    return map_text(markup, lambda text: _MARKER.sub(replace, text))


def _answer_chips(answer: Answer, sources: Mapping[int, Source], turn: int | None):
    """A chip factory for the [n] markers of a Markdown answer: evidence spans from its citations."""
    spans = evidence_by_source(answer)
    verified = {c.number for s in answer.sentences if s.verified for c in s.citations}
    support: dict[int, float] = {}
    for sentence in answer.sentences:
        for c in sentence.citations:
            support[c.number] = max(support.get(c.number, 0.0), c.support)

    def make(number: int) -> str | None:
        source = sources.get(number)
        if source is None:
            return None
        weak = bool(answer.sentences) and number not in verified
        return _chip(
            number, source.abstract, source.abstract.id, spans.get(number, ()), weak=weak,
            support=support.get(number), turn=turn,
        )  # fmt: skip

    return make


def _text_with_markers(text: str, sources: Mapping[int, Source]) -> str:
    """Fallback when there are no parsed sentences: render the text, turn known [n] markers into chips."""

    def make(number: int) -> str | None:
        source = sources.get(number)
        return None if source is None else _chip(number, source.abstract, source.abstract.id, (), weak=True)

    return chipify("<br>".join(inline(line) for line in text.splitlines() or [""]), make)


# --- answers ---


def render_user(question: str, turn: int | None = None) -> str:
    """A question as shown in the chat (escaped; line breaks kept), with an Edit link when its place is known."""
    edit = (
        f'<div class="rag-question-actions"><a class="rag-action rag-edit" href="#edit:{int(turn)}" '
        'title="Edit this question and ask it again (the answers after it are replaced)">Edit</a></div>'
        if turn is not None
        else ""
    )
    return f'<div class="rag-question">{esc(question)}</div>{edit}'


def footer_meta(backend: str = "", seconds: float | None = None, tokens_per_s: float | None = None) -> str:
    """The small line under an answer: what answered it and how long it took."""
    parts = [backend] if backend else []
    if seconds is not None:
        parts.append(_seconds(seconds))
    if tokens_per_s is not None:
        parts.append(f"{tokens_per_s:.1f} tokens/s")
    return " · ".join(parts)


def render_footer(meta: str, *, copy_text: str = "", file_text: str = "", file_name: str = "answer.md") -> str:
    """Under each answer: backend and timing, Copy (the answer with its references, as Markdown) and a download of
    the same with BibTeX. The texts ride along in hidden <pre> elements, so copying needs no server round trip."""
    actions = ""
    if copy_text:
        actions += '<a class="rag-action rag-copy" href="#copy" title="Copy the answer and its references">Copy</a>'
    if file_text:
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", file_name) or "answer.md"
        actions += (
            f'<a class="rag-action rag-save" href="#save:{esc(name)}" '
            'title="Download this answer as Markdown, with references and BibTeX">Markdown</a>'
        )
    hidden = (f'<pre class="rag-copy-src">{esc(copy_text)}</pre>' if copy_text else "") + (
        f'<pre class="rag-file-src">{esc(file_text)}</pre>' if file_text else ""
    )
    return f'<div class="rag-footer"><span class="rag-footer-meta">{esc(meta)}</span>{actions}</div>{hidden}'


def render_stopped(markup: str) -> str:
    """A streaming message the person stopped: the text that arrived, no cursor, and a note saying so."""
    text = re.sub(r'<span class="rag-cursor"></span>', "", markup or "")
    text = text.replace("rag-answer rag-streaming", "rag-answer rag-stopped", 1)
    if 'class="rag-pending"' in text:
        text = '<div class="rag-answer rag-stopped"></div>'
    note = '<p class="rag-notice">Stopped. Ask again or regenerate for a full answer.</p>'
    return text[: -len("</div>")] + note + "</div>" if text.endswith("</div>") else text + note


def render_streaming(text: str) -> str:
    """Answer text while it streams in: plain escaped text and a cursor, no chips yet."""
    if not text:
        return '<div class="rag-answer rag-streaming"><p class="rag-pending">Searching the abstracts…</p></div>'
    return f'<div class="rag-answer rag-streaming"><p class="rag-text">{esc(text)}<span class="rag-cursor"></span></p></div>'


def render_error(message: str) -> str:
    """An error shown in place of an answer (the engine's user message; never a traceback)."""
    return f'<div class="rag-answer rag-error" role="alert"><p>{_multiline(message)}</p></div>'


def label_summary(answer: Answer) -> str:
    """What the citations vouch for, in words: quoted text, or the verifier's verdicts on generated sentences.

    Neither says the answer addresses the question, so the wording does not ("Verified 6 of 6" did).
    """
    counts = answer.label_counts
    parts = []
    if counts.get("quoted"):
        n = counts["quoted"]
        parts.append(f"{n} sentence{'s' if n != 1 else ''} quoted from the cited abstracts (their exact text)")
    checked = counts.get("supported", 0) + counts.get("unsupported", 0)
    if checked:
        parts.append(
            f"{counts.get('supported', 0)} of {checked} generated sentence{'s' if checked != 1 else ''} "
            "supported by the abstracts they cite"
        )
    return "; ".join(parts) + "." if parts else ""


def render_answer(answer: Answer, *, turn: int | None = None, footer: str = "") -> str:
    """The verified answer: Markdown with citation chips, unverified sentences marked, closest abstracts.

    A list or table answer is rendered from its Markdown text (chips replace its ``[n]`` markers); a prose
    answer sentence by sentence, so unverified ones can be marked. ``turn`` (the answer's place in the chat) goes
    into each chip's link, so a chip in an older answer opens that answer's sources. Notices go to the status
    banner (:func:`render_status`), not into every answer.
    """
    sources = {s.number: s for s in answer.sources}
    parts: list[str] = [f'<div class="rag-answer{" rag-abstained" if answer.abstained else ""}">']
    markdown = is_block_markdown(answer.text)
    if markdown:
        body = chipify(render_markdown(answer.text), _answer_chips(answer, sources, turn))
        parts.append(f'<div class="rag-text rag-markdown">{body}</div>')
    elif answer.sentences:
        parts.append('<p class="rag-text">' + " ".join(_sentence(s, sources, turn) for s in answer.sentences) + "</p>")
    elif answer.text.strip():
        parts.append(f'<p class="rag-text">{_text_with_markers(answer.text, sources)}</p>')
    if answer.interrupted:
        parts.append('<p class="rag-notice">Generation stopped part-way; this is what arrived.</p>')
    if answer.abstained and answer.nearest:
        items = "".join(
            f'<li><a class="rag-nearest" href="{esc(cite_href(0, s.abstract.id, (), turn))}" '
            f'title="{esc(s.abstract.id)}">{inline(s.abstract.label, links=False)}</a></li>'
            for s in answer.nearest
        )
        parts.append(f'<div class="rag-nearest-list"><p>Closest abstracts:</p><ul>{items}</ul></div>')
    summary = label_summary(answer)
    if summary and not answer.abstained:
        legend = esc(summary)
        if not markdown and any(not s.verified for s in answer.sentences):
            legend += (
                ' <span class="rag-unverified" title="unsupported">Dotted underline</span>: '
                "not supported by the cited abstract (hover for why)."
            )
        parts.append(f'<p class="rag-legend">{legend}</p>')
    parts.append(footer)
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
    question: str | None = None,
    turn: int | None = None,
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
            f'href="{esc(cite_href(source.number, a.id, spans, turn))}" title="Show the abstract">{number}'
            f'<span class="rag-source-body"><span class="rag-source-label">{inline(a.label, links=False)}</span>'
            f'<span class="rag-meta"><code>{esc(a.id)}</code> · {esc(locations_text(a))}</span></span></a></li>'
        )

    main = [s for s in sources if cited is None or s.number in cited]
    others = [] if cited is None else [s for s in sources if s.number not in cited]
    parts = [f'<div class="rag-panel rag-sources"><h3 class="rag-panel-title">{esc(title)}</h3>']
    if question:
        parts.append(f'<p class="rag-sources-question" title="The question these sources answer">{esc(question)}</p>')
    if main:
        parts.append('<ol class="rag-source-list">' + "".join(item(s) for s in main) + "</ol>")
    else:
        parts.append('<p class="rag-empty">The answer cites no abstract.</p>')
    if others:
        parts.append('<p class="rag-subtitle">Retrieved, not cited</p>')
        parts.append('<ol class="rag-source-list">' + "".join(item(s, " rag-uncited") for s in others) + "</ol>")
    parts.append("</div>")
    return "".join(parts)


def render_answer_sources(answer: Answer, *, turn: int | None = None) -> str:
    """The sources panel for an answer, labelled with its question: the cited sources first; the closest
    abstracts when it abstained. ``turn`` goes into the links as in :func:`render_answer`."""
    if answer.abstained and not answer.cited_ids:
        nearest = [Source(0, s.abstract) for s in answer.nearest]
        return render_sources(nearest, title="Closest abstracts", question=answer.question, turn=turn)
    cited = {c.number for s in answer.sentences for c in s.citations}
    if is_block_markdown(answer.text) or not answer.sentences:
        cited |= {int(n) for m in _MARKER.finditer(answer.text) for n in re.split(r"\s*,\s*", m.group(1))}
    return render_sources(answer.sources, evidence_by_source(answer), cited=cited, question=answer.question, turn=turn)


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


def render_evidence(abstract: Abstract, spans: Iterable[Span] = (), *, number: int | None = None) -> str:
    """The evidence panel: the abstract (see :func:`render_abstract`) and, shown on narrow screens where the
    panel opens over the chat, a button back to the chat."""
    return (
        '<button type="button" class="rag-drawer-close" aria-label="Close the abstract and go back to the chat">'
        "← Back to the chat</button>" + render_abstract(abstract, spans, number=number)
    )


def render_evidence_placeholder() -> str:
    return (
        '<div class="rag-panel rag-evidence-empty"><h3 class="rag-panel-title">Evidence</h3>'
        '<p class="rag-empty">Click a citation chip or a source to read the abstract, with the sentences that '
        "support the answer highlighted.</p></div>"
    )


def render_question_note(message: str) -> str:
    """The inline note under the question box (e.g. a question that is too long); empty when all is well."""
    if not message:
        return '<div class="rag-question-note" aria-live="polite"></div>'
    return f'<div class="rag-question-note rag-question-note-on" role="status">{_multiline(message)}</div>'


def render_edit_note(index: int) -> str:
    """The note under the question box while question ``index`` (0-based) is being edited."""
    return (
        '<div class="rag-question-note rag-question-note-on rag-editing" role="status">'
        f"Editing question {int(index) + 1}: press Enter to ask it again; its answer and those after it are "
        'replaced. <a class="rag-action" href="#edit:cancel">Cancel</a></div>'
    )


def render_scope_note(label: str) -> str:
    """The note under the question box in a chat started from Browse's "Ask about this paper"."""
    return (
        '<div class="rag-question-note rag-question-note-on rag-scope" role="status">'
        f"Asking about <strong>{inline(label, links=False)}</strong>: “it” and “this paper” mean this paper.</div>"
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
        rows.append(("Citations", label_summary(answer)))
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
    shown = {status.message.strip()} if show_hint else set()
    for notice in answer.notices if answer is not None else ():
        if notice.strip() and notice.strip() not in shown:  # each notice once, here, not inside every answer
            shown.add(notice.strip())
            parts.append(f'<span class="rag-hint rag-banner-notice">{_multiline(notice)}</span>')
    parts.append("</div>")
    return "".join(parts)


# --- browse ---


_WORD = re.compile(r"\w+")
BROWSE_MIN_SIMILARITY = 85  # rapidfuzz ratio (0-100) for a typo to match a word: "calibraton" ~ "calibration" is 95
BROWSE_MIN_FUZZY_CHARS = 5  # shorter query words match only as written (as part of a word)


def _haystack(a: Abstract) -> str:
    return " ".join([a.id, a.label, a.text, locations_text(a)])


def match_words(
    text: str, query: str, *, min_similarity: float = BROWSE_MIN_SIMILARITY
) -> tuple[float, set[str]] | None:
    """How well ``text`` matches every word of ``query``: (score, the words of ``text`` that matched), or None.

    A query word matches a word of the text that contains it (case-insensitive), else, when it has at least
    ``BROWSE_MIN_FUZZY_CHARS`` characters, a word spelt within ``min_similarity`` (rapidfuzz ratio) of it, so
    typos still find their word. The score adds each query word's best similarity (100 for an exact match).
    """
    from rapidfuzz import fuzz, process

    words = [w.lower() for w in _WORD.findall(query or "")]
    if not words:
        return 0.0, set()
    vocabulary = {w.lower() for w in _WORD.findall(text or "")}
    score = 0.0
    matched: set[str] = set()
    for word in words:
        exact = {v for v in vocabulary if word in v}
        if exact:
            matched |= exact
            score += 100.0
            continue
        if len(word) < BROWSE_MIN_FUZZY_CHARS:
            return None
        close = process.extract(word, vocabulary, scorer=fuzz.ratio, score_cutoff=min_similarity, limit=5)
        if not close:
            return None
        matched |= {v for v, _, _ in close}
        score += max(sim for _, sim, _ in close)
    return score, matched


def filter_abstracts(abstracts: Sequence[Abstract], query: str) -> list[Abstract]:
    """Abstracts whose ID, label, text or file names match every word of the query (typos tolerated), best first."""
    return [a for a, _ in search_abstracts(abstracts, query)]


def search_abstracts(abstracts: Sequence[Abstract], query: str) -> list[tuple[Abstract, set[str]]]:
    """(abstract, matched words) for each abstract matching the query, best match first (ties keep list order)."""
    if not _WORD.search(query or ""):
        return [(a, set()) for a in abstracts]
    found = []
    for i, a in enumerate(abstracts):
        match = match_words(_haystack(a), query)
        if match is not None:
            found.append((-match[0], i, a, match[1]))
    found.sort(key=lambda x: (x[0], x[1]))
    return [(a, words) for _, _, a, words in found]


def mark_words(markup: str, words: Collection[str]) -> str:
    """Wrap each whole occurrence of ``words`` (case-insensitive) in rendered text with <mark class="rag-hit">."""
    words = sorted({w for w in words if w}, key=len, reverse=True)
    if not words:
        return markup
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in words) + r")(?!\w)", re.IGNORECASE)
    return map_text(markup, lambda text: pattern.sub(r'<mark class="rag-hit">\1</mark>', text), skip=("code", "pre"))


def snippet_around(text: str, words: Collection[str], chars: int = 180) -> str:
    """About ``chars`` characters of ``text``: its opening, or the stretch around the first matched word."""
    first = None
    if words:
        pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in words) + r")(?!\w)", re.IGNORECASE)
        hit = pattern.search(text)
        first = hit.start() if hit else None
    if first is None or first < chars // 2:
        return text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0] + "…"
    start = text.rfind(" ", 0, first - chars // 3) + 1
    piece = text[start : start + chars]
    if start + chars < len(text):
        piece = piece.rsplit(" ", 1)[0] + "…"
    return "…" + piece


def render_abstract_list(abstracts: Sequence[Abstract], query: str = "", *, snippet_chars: int = 180) -> str:
    """Every abstract (ID, label, files, a snippet) matching the query, matched words highlighted; each opens in
    full when clicked."""
    shown = search_abstracts(abstracts, query)
    count = f"{len(shown)} of {len(abstracts)} abstracts" if (query or "").strip() else f"{len(abstracts)} abstracts"
    if not shown:
        return (
            f'<div class="rag-browse"><p class="rag-meta">{esc(count)}</p>'
            '<p class="rag-empty">No abstract matches these words.</p></div>'
        )
    items = []
    for a, words in shown:
        snippet = snippet_around(a.text, words, snippet_chars)
        items.append(
            f'<li><a class="rag-browse-item" href="{esc(abstract_href(a.id))}">'
            f'<span class="rag-browse-head"><span class="rag-source-label">'
            f"{mark_words(inline(a.label, links=False), words)}</span>"
            f"<code>{esc(a.id)}</code></span>"
            f'<span class="rag-meta">{esc(locations_text(a))}</span>'
            f'<span class="rag-snippet">{mark_words(inline(snippet, links=False), words)}</span></a></li>'
        )
    return f'<div class="rag-browse"><p class="rag-meta">{esc(count)}</p><ul class="rag-browse-list">{"".join(items)}</ul></div>'


def render_browse_placeholder() -> str:
    return '<div class="rag-panel"><p class="rag-empty">Select an abstract to read it in full.</p></div>'
