"""ui.render (pure HTML builders) and the UI's callbacks and launch guard, without a server or a browser."""

from __future__ import annotations

import re
import warnings
from html.parser import HTMLParser
from pathlib import Path

import gradio as gr
import pytest

from rag.answer import Answer, AnswerSentence, BackendStatus, Citation, Source, TextDelta, Timings
from rag.corpus import Abstract, Location
from rag.errors import GenerationError, QuestionError, UnknownAbstractError
from ui import app, export, render

# --- builders and fakes ---

NASTY = [
    '<img src=x onerror="window.__xss=1">',
    "<script>alert(1)</script>",
    '" onmouseover="alert(1)',
    "' autofocus onfocus='alert(1)",
    "javascript:alert(1)",
    "</mark></p><iframe src=//evil>",
    "**<b>bold</b>** *<i>it</i>* `<code>`",
    "&lt;already escaped&gt; & ampersand",
]

TEXT = (
    "We propose AssayBench, a benchmark for phenotypic screens. It is built from 1,920 CRISPR screens. "
    "Models are ranked by adjusted nDCG."
)


def make_abstract(
    abstract_id: str = "assaybench-66f7", label: str = "AssayBench", text: str = TEXT, files=(("000_a.txt", 4),)
) -> Abstract:
    return Abstract(
        id=abstract_id,
        label=label,
        text=text,
        locations=tuple(Location(f, p) for f, p in files),
        content_hash="0" * 64,
    )


def span_of(text: str, piece: str) -> tuple[int, int]:
    start = text.index(piece)
    return start, start + len(piece)


def make_answer(
    sentences: list[AnswerSentence] | None = None,
    sources: list[Source] | None = None,
    **kwargs,
) -> Answer:
    abstract = make_abstract()
    sources = sources if sources is not None else [Source(1, abstract), Source(2, make_abstract("other-1234", "Other"))]
    if sentences is None:
        start, end = span_of(TEXT, "It is built from 1,920 CRISPR screens.")
        sentences = [
            AnswerSentence("AssayBench uses 1,920 CRISPR screens.", [Citation(1, abstract.id, 0.9, start, end)], True),
            AnswerSentence(
                "It is the largest benchmark.", [Citation(1, abstract.id, 0.2, 0, 10)], False, "unsupported"
            ),
        ]
    defaults = dict(
        question="How many CRISPR screens does AssayBench use?",
        text=" ".join(f"{s.text} [1]" for s in sentences),
        sentences=sentences,
        sources=sources,
        abstained=False,
        backend="extractive",
        model=None,
    )
    defaults.update(kwargs)
    return Answer(**defaults)


class TagCollector(HTMLParser):
    """Collects every start tag and its attributes, to check what markup a renderer produced."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


ALLOWED_TAGS = {
    "div",
    "p",
    "span",
    "a",
    "mark",
    "strong",
    "em",
    "code",
    "br",
    "ul",
    "ol",
    "li",
    "h3",
    "article",
    "table",
    "tr",
    "th",
    "td",
    "thead",
    "tbody",
    "del",
    "pre",  # an answer's Markdown for Copy, hidden
    "button",  # the evidence drawer's "Back to the chat"
}
ALLOWED_ATTRS = {"class", "href", "title", "aria-label", "role", "scope", "target", "rel", "type"}


def assert_safe(markup: str) -> TagCollector:
    """Only our own tags and attributes; every link stays on the page (#...)."""
    parser = TagCollector()
    parser.feed(markup)
    parser.close()
    for tag, attrs in parser.tags:
        assert tag in ALLOWED_TAGS, f"unexpected tag <{tag}> in {markup!r}"
        for name, value in attrs.items():
            assert name in ALLOWED_ATTRS, f"unexpected attribute {name}= on <{tag}>"
            if name == "href":
                assert value and (value.startswith("#") or value.startswith(("https://", "http://"))), value
                if not value.startswith("#"):
                    assert attrs.get("rel") == "noopener noreferrer" and attrs.get("target") == "_blank"
    return parser


class FakePipeline:
    """Stands in for rag.pipeline.Pipeline: scripted stream events, fixed abstracts and status."""

    def __init__(self, events=None, error: Exception | None = None, status: BackendStatus | None = None):
        self.events = (
            events if events is not None else [TextDelta("AssayBench uses "), TextDelta("1,920."), make_answer()]
        )
        self.error = error
        self.status = status
        self.calls: list[dict] = []
        self.closed = False
        self.abstract_list = [make_abstract(), make_abstract("other-1234", "Other", "Another abstract text here.")]

    def check_question(self, question: str) -> str:
        cleaned = (question or "").strip()
        if not cleaned:
            raise QuestionError("The question is empty.", hint="Type a question about the abstracts.")
        return cleaned

    def stream(self, question, history=None, *, backend=None, model=None):
        self.calls.append({"question": question, "history": history, "backend": backend, "model": model})
        try:
            yield from self.events
            if self.error is not None:
                raise self.error
        finally:
            self.closed = True

    def abstracts(self):
        return list(self.abstract_list)

    def abstract(self, abstract_id):
        for a in self.abstract_list:
            if a.id == abstract_id:
                return a
        raise UnknownAbstractError(f"No abstract with ID {abstract_id!r}")

    def backend_status(self, model=None):
        if self.status is None:
            raise AttributeError("no status in this fake")
        return self.status


def is_skip(value) -> bool:
    return isinstance(value, dict) and value.get("__type__") == "update" and len(value) == 1


# --- escaping and inline markup ---


def test_esc_escapes_markup_and_quotes():
    assert render.esc('<a href="x">\'&') == "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;"


def test_esc_of_none_is_empty():
    assert render.esc(None) == ""


def test_inline_bold_italic_and_code():
    out = render.inline("**SurvB-learner** is *new*; run `ollama serve`")
    assert out == "<strong>SurvB-learner</strong> is <em>new</em>; run <code>ollama serve</code>"


def test_inline_leaves_arithmetic_asterisks_alone():
    assert render.inline("2 * 3 and a*b") == "2 * 3 and a*b"


def test_inline_markup_cannot_carry_tags():
    out = render.inline("**<img src=x onerror=alert(1)>**")
    assert out == "<strong>&lt;img src=x onerror=alert(1)&gt;</strong>"


@pytest.mark.parametrize("nasty", NASTY)
def test_inline_is_safe_for_nasty_text(nasty):
    assert_safe(render.inline(nasty))


# --- spans and highlighting ---


def test_normalize_spans_sorts_merges_and_drops_empty():
    assert render.normalize_spans([(10, 20), (0, 5), (15, 25), (30, 30), (40, 35)]) == [(0, 5), (10, 25)]


def test_normalize_spans_merges_touching_spans():
    assert render.normalize_spans([(0, 5), (5, 9)]) == [(0, 9)]


def test_normalize_spans_clamps_to_length():
    assert render.normalize_spans([(-5, 3), (8, 100)], length=10) == [(0, 3), (8, 10)]


def test_normalize_spans_ignores_garbage():
    assert render.normalize_spans([("a", 3), (1,), None, (2, 4)]) == [(2, 4)]


def test_highlight_wraps_spans_in_mark():
    text = "One. Two. Three."
    out = render.highlight(text, [span_of(text, "Two.")])
    assert out == 'One. <mark class="rag-evidence">Two.</mark> Three.'


def test_highlight_escapes_inside_and_outside_marks():
    text = "a <b> c & d"
    out = render.highlight(text, [span_of(text, "<b>")])
    assert out == 'a <mark class="rag-evidence">&lt;b&gt;</mark> c &amp; d'


def test_highlight_span_cutting_a_special_character_keeps_entities_whole():
    text = "x&y"
    out = render.highlight(text, [(1, 2)])
    assert out == 'x<mark class="rag-evidence">&amp;</mark>y'


def test_highlight_ignores_out_of_range_spans():
    assert render.highlight("short", [(50, 60)]) == "short"


def test_evidence_by_source_collects_and_merges():
    a = make_abstract()
    answer = make_answer(
        sentences=[
            AnswerSentence("x", [Citation(1, a.id, 0.9, 0, 10), Citation(2, "other-1234", 0.8, 3, 6)], True),
            AnswerSentence("y", [Citation(1, a.id, 0.9, 5, 20)], True),
        ]
    )
    assert render.evidence_by_source(answer) == {1: [(0, 20)], 2: [(3, 6)]}


# --- link references ---


def test_cite_href_round_trips():
    href = render.cite_href(2, "assaybench-66f7", [(30, 10), (5, 9)])
    assert href == "#cite:2:assaybench-66f7:5-9"  # (30, 10) is empty and dropped
    ref = render.parse_cite_ref(href)
    assert ref == render.CiteRef(2, "assaybench-66f7", ((5, 9),))


def test_cite_href_without_spans_round_trips():
    assert render.parse_cite_ref(render.cite_href(0, "a-b")) == render.CiteRef(0, "a-b", ())


def test_cite_href_quotes_unusual_ids():
    href = render.cite_href(1, "odd:id/<x>")
    assert "<" not in href and render.parse_cite_ref(href).abstract_id == "odd:id/<x>"


@pytest.mark.parametrize(
    "ref",
    [
        None,
        3,
        "",
        "#cite:",
        "#cite:x:id:",
        "#cite:1:id:5",
        "#cite:1:id:5-",
        "javascript:alert(1)",
        "#cite:1:id:1-2;alert(1)",
        "#cite:1:a b:1-2",
        "#cite:" + "9" * 20 + ":id:",
        "#cite:1:id:1-2" + ",3-4" * 2000,
    ],
)
def test_parse_cite_ref_rejects_malformed(ref):
    assert render.parse_cite_ref(ref) is None


def test_parse_abstract_ref():
    assert render.parse_abstract_ref(render.abstract_href("assaybench-66f7")) == "assaybench-66f7"
    assert render.parse_abstract_ref("#cite:1:x:") is None
    assert render.parse_abstract_ref(None) is None


# --- answers ---


def chips(markup: str) -> list[dict]:
    parser = assert_safe(markup)
    return [attrs for tag, attrs in parser.tags if tag == "a" and "rag-chip" in (attrs.get("class") or "")]


def test_answer_has_a_chip_per_citation_with_evidence_in_href():
    answer = make_answer()
    found = chips(render.render_answer(answer))
    assert len(found) == 2
    start, end = span_of(TEXT, "It is built from 1,920 CRISPR screens.")
    assert found[0]["href"] == f"#cite:1:assaybench-66f7:{start}-{end}"


def test_chip_shows_number_in_brackets_for_copying():
    out = render.render_answer(make_answer())
    assert '<span class="rag-sr">[</span>1<span class="rag-sr">]</span>' in out


def test_chip_title_names_the_source_and_support():
    title = chips(render.render_answer(make_answer()))[0]["title"]
    assert "AssayBench" in title and "assaybench-66f7" in title and "support 0.90" in title


def test_supported_sentence_is_not_marked_and_says_it_is_supported():
    out = render.render_answer(make_answer())
    assert '<span class="rag-sent" title="supported by the cited abstract">AssayBench uses 1,920 CRISPR screens.' in out


def test_quoted_sentence_says_it_is_quoted_not_verified():
    a = make_abstract()
    quoted = AnswerSentence("x", [Citation(1, a.id, 1.0, 0, 5)], True, support_label="quoted")
    out = render.render_answer(make_answer(sentences=[quoted]))
    assert f'title="{render.QUOTED_TITLE}"' in out and "rag-unverified" not in out
    assert "1 sentence quoted from the cited abstracts" in out and "verified" not in out.lower()


def test_unverified_sentence_is_marked_with_tooltip():
    out = render.render_answer(make_answer())
    assert '<span class="rag-sent rag-unverified" title="unsupported">It is the largest benchmark.' in out


def test_unsupported_sentence_tooltip_gives_the_verifier_reason():
    a = make_abstract()
    wrong = AnswerSentence("x", [Citation(1, a.id, 0.3, 0, 5)], False, reason="the abstract says the opposite")
    out = render.render_answer(make_answer(sentences=[wrong]))
    assert 'title="unsupported: the abstract says the opposite"' in out


def test_unverified_sentence_chip_is_weak():
    found = chips(render.render_answer(make_answer()))
    assert "rag-chip-weak" not in found[0]["class"] and "rag-chip-weak" in found[1]["class"]


def test_dotted_underline_legend_only_when_something_is_unsupported():
    a = make_abstract()
    supported = make_answer(sentences=[AnswerSentence("x", [Citation(1, a.id, 0.9, 0, 5)], True)])
    assert "Dotted underline" not in render.render_answer(supported)
    assert "Dotted underline" in render.render_answer(make_answer())


@pytest.mark.parametrize(
    ("labels", "summary"),
    [
        (["quoted", "quoted"], "2 sentences quoted from the cited abstracts (their exact text)."),
        (["supported", "unsupported", "supported"], "2 of 3 generated sentences supported by the abstracts they cite."),
        (["supported"], "1 of 1 generated sentence supported by the abstracts they cite."),
        ([], ""),
    ],
)
def test_label_summary_counts_what_citations_vouch_for(labels, summary):
    a = make_abstract()
    sentences = [
        AnswerSentence("x", [Citation(1, a.id, 0.9, 0, 5)], label != "unsupported", support_label=label)
        for label in labels
    ]
    assert render.label_summary(make_answer(sentences=sentences)) == summary


def test_sentence_without_citations_is_unverified_and_has_no_chip():
    answer = make_answer(sentences=[AnswerSentence("Plain claim.", [], False)])
    out = render.render_answer(answer)
    assert 'class="rag-sent rag-unverified" title="unsupported"' in out and not chips(out)


def test_repeated_citation_number_in_a_sentence_gives_one_chip_with_both_spans():
    a = make_abstract()
    sentence = AnswerSentence("x", [Citation(1, a.id, 0.5, 0, 5), Citation(1, a.id, 0.9, 10, 15)], True)
    found = chips(render.render_answer(make_answer(sentences=[sentence])))
    assert len(found) == 1 and found[0]["href"].endswith(":0-5,10-15")


def test_verified_sentence_note_becomes_tooltip():
    a = make_abstract()
    sentence = AnswerSentence("x", [Citation(1, a.id, 0.9, 0, 5)], True, "re-cited from [2] to [1]")
    assert 'title="supported by the cited abstract; re-cited from [2] to [1]"' in render.render_answer(
        make_answer(sentences=[sentence])
    )


@pytest.mark.parametrize("nasty", NASTY)
def test_answer_escapes_model_text_labels_and_notices(nasty):
    abstract = make_abstract(label=nasty, text=nasty + " " + TEXT)
    sentence = AnswerSentence(nasty, [Citation(1, abstract.id, 0.9, 0, 5)], False, nasty)
    answer = make_answer(sentences=[sentence], sources=[Source(1, abstract)], notices=[nasty], question=nasty)
    parser = assert_safe(render.render_answer(answer))
    assert nasty.replace("**", "").replace("`", "").split("<")[0] in "".join(parser.text)


def test_answer_without_sentences_turns_known_markers_into_chips():
    answer = make_answer(sentences=[], text="See [1] and [9] <b>.")
    out = render.render_answer(answer)
    found = chips(out)
    assert [c["href"] for c in found] == ["#cite:1:assaybench-66f7:"]
    assert "[9]" in out and "&lt;b&gt;" in out


def test_abstained_answer_lists_nearest_abstracts():
    near = [Source(1, make_abstract("near-1111", "Near <one>"))]
    answer = make_answer(
        sentences=[], text="The abstracts do not answer this.", abstained=True, nearest=near, sources=[]
    )
    out = render.render_answer(answer)
    assert_safe(out)
    assert "rag-abstained" in out and "Closest abstracts" in out
    assert 'href="#cite:0:near-1111:"' in out and "Near &lt;one&gt;" in out


def test_interrupted_answer_says_so():
    assert "stopped part-way" in render.render_answer(make_answer(interrupted=True))


def test_notices_are_in_the_status_banner_once_not_in_the_answer():
    notice = "Ollama is not running; answered extractively"
    answer = make_answer(notices=[notice, notice])
    assert notice not in render.render_answer(answer)
    status = render.render_status(STATUS_ABSENT, answer)
    assert status.count(notice) == 1


def test_notice_equal_to_the_status_hint_is_not_repeated():
    answer = make_answer(notices=[STATUS_ABSENT.message])
    assert render.render_status(STATUS_ABSENT, answer).count("Start Ollama with") == 1


# --- Markdown answers, links and LaTeX ---

LIST_ANSWER = "Two papers:\n\n- **AssayBench**: a benchmark of CRISPR screens [1]\n- **Other**: another study [2]"
TABLE_ANSWER = (
    "| Work | What it does | How | Results |\n|---|---|---|---|\n"
    "| **AssayBench** [1] | benchmark | screens | 1,920 |\n| **Other** [2] | study | method | better |"
)


def markdown_answer(text: str, **kwargs) -> Answer:
    abstract = make_abstract()
    start, end = span_of(TEXT, "It is built from 1,920 CRISPR screens.")
    sentences = [
        AnswerSentence("a benchmark of CRISPR screens", [Citation(1, abstract.id, 0.9, start, end)], True),
        AnswerSentence("another study", [Citation(2, "other-1234", 0.1, 0, 5)], False),
    ]
    return make_answer(sentences=sentences, text=text, **kwargs)


def test_list_answer_renders_as_list_items_with_names_and_chips():
    out = render.render_answer(markdown_answer(LIST_ANSWER))
    assert_safe(out)
    items = re.findall(r"<li>(.*?)</li>", out, re.DOTALL)
    assert len(items) == 2
    assert "<strong>AssayBench</strong>" in items[0] and 'href="#cite:1:assaybench-66f7:' in items[0]
    assert "<strong>Other</strong>" in items[1] and 'href="#cite:2:other-1234:' in items[1]
    assert "[1]" not in re.sub(r"<[^>]+>", "\0", out)  # every marker became a chip


def test_list_answer_chip_carries_the_evidence_span_and_weakness():
    out = render.render_answer(markdown_answer(LIST_ANSWER))
    start, end = span_of(TEXT, "It is built from 1,920 CRISPR screens.")
    first, second = chips(out)
    assert first["href"] == f"#cite:1:assaybench-66f7:{start}-{end}" and "rag-chip-weak" not in first["class"]
    assert "rag-chip-weak" in second["class"]  # only an unverified sentence cites [2]


def test_compare_answer_renders_as_table_with_chips_in_cells():
    out = render.render_answer(markdown_answer(TABLE_ANSWER))
    assert_safe(out)
    assert "<table>" in out and out.count("<th>") == 4
    cells = re.findall(r"<td>(.*?)</td>", out, re.DOTALL)
    assert "<strong>AssayBench</strong>" in cells[0] and "rag-chip" in cells[0]
    assert "rag-chip" in cells[4]


def test_markdown_answer_escapes_script_and_drops_javascript_links():
    text = "- **X** <script>alert(1)</script> [1]\n- [click](javascript:alert(1)) and [ok](https://example.org/a)"
    out = render.render_answer(markdown_answer(text))
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "javascript:" not in re.sub(r">[^<]*<", "><", out)  # in no attribute
    link = re.search(r'<a href="https://example.org/a"[^>]*>', out).group(0)
    assert 'rel="noopener noreferrer"' in link and 'target="_blank"' in link


def test_markdown_answer_markers_in_code_stay_text_and_unknown_numbers_stay():
    out = render.render_answer(markdown_answer("- `a[1]` and [7]\n- real [1]"))
    assert "<code>a[1]</code>" in out and "[7]" in out and len(chips(out)) == 1


def test_reference_style_line_is_not_swallowed():
    out = render.render_answer(markdown_answer("- first [1]\n\n[1]: https://example.org"))
    assert "https://example.org" in out


def test_multi_number_marker_becomes_two_chips():
    out = render.render_answer(markdown_answer("- both [1, 2]"))
    assert [c["href"].split(":")[1] for c in chips(out)] == ["1", "2"]


def test_prose_answer_keeps_sentence_marks_and_renders_inline_markdown():
    abstract = make_abstract()
    sentence = AnswerSentence("Yes — **AssayBench** uses $1, 920$ screens", [Citation(1, abstract.id, 0.9, 0, 5)], True)
    out = render.render_answer(make_answer(sentences=[sentence], text="Yes — **AssayBench** uses 1,920 screens [1]"))
    assert "<strong>AssayBench</strong>" in out and "1,920" in out and "$" not in out and "rag-sent" in out


def test_chips_and_sources_carry_the_answers_turn():
    answer = markdown_answer(LIST_ANSWER)
    assert all(c["href"].endswith(":t3") for c in chips(render.render_answer(answer, turn=3)))
    assert ":t3" in render.render_answer_sources(answer, turn=3)
    assert render.parse_cite_ref("#cite:2:other-1234:0-5:t3") == render.CiteRef(2, "other-1234", ((0, 5),), 3)
    assert render.parse_cite_ref("#cite:2:other-1234::t3").turn == 3
    assert render.parse_cite_ref("#cite:2:other-1234:0-5").turn is None


def test_sources_panel_is_labelled_with_its_question_and_lists_markdown_citations():
    out = render.render_answer_sources(markdown_answer(LIST_ANSWER, question="Which <b>papers</b>?"))
    assert "Which &lt;b&gt;papers&lt;/b&gt;?" in out and "rag-uncited" not in out


@pytest.mark.parametrize(
    ("latex", "shown"),
    [
        ("4$\\times$ faster", "4× faster"),
        ("$7, 402$ items", "7,402 items"),
        ("with $h$ heads", "with <em>h</em> heads"),
        ("$\\sim$50\\% fewer", "~50% fewer"),
        ("up to 3$\\%$", "up to 3%"),
        ("$O(n^2)$ time", "O(n²) time"),
        ("$\\alpha \\leq 0.5$", "α ≤ 0.5"),
        ("$\\mathbb{R}^{d}$", "ℝ^d"),
        ("$\\text{top-}k$", "top-k"),
        ("costs $5 and $10", "costs $5 and $10"),
    ],
)
def test_latex_is_shown_as_text(latex, shown):
    out = render.inline(latex)
    assert out == shown and "\\" not in out


def test_latex_in_math_cannot_make_markup():
    out = render.inline("$<img src=x>$ and $**a**$")
    assert_safe(out)
    assert "<img" not in out and "<strong>" not in out


def test_abstract_view_renders_latex_links_and_highlight():
    text = "We are 4$\\times$ faster. Code at https://github.com/x/y. Tail."
    out = render.render_abstract(make_abstract(text=text), [span_of(text, "We are 4$\\times$ faster.")])
    assert '<mark class="rag-evidence">We are 4× faster.</mark>' in out and "$" not in out
    assert '<a href="https://github.com/x/y" target="_blank" rel="noopener noreferrer">' in out


def test_highlight_across_bold_stays_well_nested():
    text = "Intro **bold text** and more."
    out = render.highlight(text, [span_of(text, "bold text** and")])
    parser = TagCollector()
    parser.feed(out)
    assert out.count("<mark") == out.count("</mark>") and "".join(parser.text) == "Intro bold text and more."
    assert re.search(r"<strong>[^<]*<mark[^>]*>[^<]*</mark></strong>", out)


def test_browse_snippet_link_text_is_not_a_nested_link():
    abstract = make_abstract(text="See [the code](https://example.org) for $\\times$2.")
    out = render.render_abstract_list([abstract])
    assert out.count("<a ") == 1 and "×2" in out


def test_streaming_text_is_escaped_and_has_cursor():
    out = render.render_streaming("partial <img src=x> [1")
    assert_safe(out)
    assert "partial &lt;img src=x&gt; [1" in out and "rag-cursor" in out and "rag-streaming" in out


def test_streaming_placeholder_before_first_text():
    assert "Searching the abstracts" in render.render_streaming("")


@pytest.mark.parametrize("nasty", NASTY)
def test_user_question_is_escaped(nasty):
    out = render.render_user(nasty)
    assert_safe(out)
    assert render.esc(nasty) in out


def test_error_message_is_escaped_and_keeps_lines():
    out = render.render_error("Ollama is not running.\nStart it with `ollama serve` <now>")
    assert_safe(out)
    assert "<br>" in out and "<code>ollama serve</code>" in out and "&lt;now&gt;" in out and 'role="alert"' in out


def test_history_text_is_the_answer_text_with_markers():
    answer = make_answer()
    assert render.answer_history_text(answer) == answer.text


# --- sources and abstracts ---


def test_sources_panel_lists_cited_sources_with_id_label_and_files():
    abstract = make_abstract(files=(("000_a.txt", 4), ("001_b.txt", 3)))
    out = render.render_sources([Source(1, abstract)], {1: [(0, 10)]})
    assert_safe(out)
    assert "AssayBench" in out and "assaybench-66f7" in out and "000_a.txt #4, 001_b.txt #3" in out
    assert 'href="#cite:1:assaybench-66f7:0-10"' in out


def test_sources_panel_separates_uncited_sources():
    answer = make_answer()
    out = render.render_answer_sources(answer)
    assert "Retrieved, not cited" in out
    cited_part, uncited_part = out.split("Retrieved, not cited")
    assert "assaybench-66f7" in cited_part and "other-1234" in uncited_part


def test_sources_panel_empty_placeholder():
    assert "appear here" in render.render_sources([])


def test_sources_panel_for_abstained_answer_shows_closest():
    near = [Source(1, make_abstract("near-1111", "Near"))]
    answer = make_answer(sentences=[], text="No.", abstained=True, nearest=near, sources=[])
    out = render.render_answer_sources(answer)
    assert "Closest abstracts" in out and 'href="#cite:0:near-1111:"' in out


@pytest.mark.parametrize("nasty", NASTY)
def test_sources_panel_escapes_labels_ids_and_files(nasty):
    abstract = make_abstract(abstract_id=nasty, label=nasty, files=((nasty, 1),))
    assert_safe(render.render_sources([Source(1, abstract)]))


def test_abstract_view_highlights_evidence():
    abstract = make_abstract()
    span = span_of(TEXT, "It is built from 1,920 CRISPR screens.")
    out = render.render_abstract(abstract, [span], number=1)
    assert_safe(out)
    assert '<mark class="rag-evidence">It is built from 1,920 CRISPR screens.</mark>' in out
    assert '<span class="rag-num">1</span>' in out and "000_a.txt #4" in out and "supporting the answer" in out


def test_abstract_view_without_spans_has_no_highlight_note():
    out = render.render_abstract(make_abstract())
    assert "supporting the answer" not in out and "rag-num" not in out


@pytest.mark.parametrize("nasty", NASTY)
def test_abstract_view_escapes_abstract_text(nasty):
    text = f"Intro. {nasty} Tail."
    abstract = make_abstract(label=nasty, text=text)
    out = render.render_abstract(abstract, [span_of(text, nasty)])
    parser = assert_safe(out)
    assert sum(tag == "mark" for tag, _ in parser.tags) == 2  # the note's sample and the evidence


def test_message_panel_escapes():
    out = render.render_message("<b>no</b>", kind="bogus")
    assert_safe(out)
    assert "rag-message-info" in out and "&lt;b&gt;" in out


# --- details and status ---


def test_details_for_extractive_answer_have_timings_and_no_tokens():
    answer = make_answer(timings=Timings(retrieve_s=0.012, generate_s=0.0, verify_s=0.5, total_s=1.25))
    out = render.render_details(answer)
    assert_safe(out)
    assert "12 ms" in out and "500 ms" in out and "1.25 s" in out
    assert "Tokens/s" not in out and "1 of 2" in out


def test_details_for_model_answer_show_tokens_and_rate():
    answer = make_answer(
        backend="ollama",
        model="llama3.2:3b",
        prompt_tokens=1200,
        completion_tokens=100,
        timings=Timings(0.1, 2.0, 0.1, 2.3, first_token_s=0.4),
    )
    out = render.render_details(answer)
    assert "ollama · llama3.2:3b" in out and "1,200" in out and "50.0" in out and "First token" in out


def test_details_show_rewritten_follow_up_escaped():
    out = render.render_details(make_answer(standalone_question="What about <AssayBench>?"))
    assert "What about &lt;AssayBench&gt;?" in out


STATUS_ABSENT = BackendStatus(
    False,
    "http://127.0.0.1:11434",
    [],
    "extractive",
    None,
    "Start Ollama with `ollama serve`, then `ollama pull llama3.2:3b`.",
)
STATUS_OLLAMA = BackendStatus(
    True, "http://127.0.0.1:11434", ["llama3.2:3b", "gemma3:270m"], "ollama", "llama3.2:3b", ""
)


def test_status_before_check():
    assert "Checking" in render.render_status(None)


def test_status_without_ollama_explains_extractive_and_how_to_enable():
    out = render.render_status(STATUS_ABSENT)
    assert_safe(out)
    assert "extractive" in out and "<code>ollama serve</code>" in out and "rag-hint" in out


def test_status_with_ollama_names_model_and_host():
    out = render.render_status(STATUS_OLLAMA)
    assert "llama3.2:3b" in out and "127.0.0.1:11434" in out and "rag-hint" not in out


def test_status_after_model_answer_names_backend_and_model():
    out = render.render_status(STATUS_OLLAMA, make_answer(backend="ollama", model="gemma3:270m"))
    assert "gemma3:270m" in out and "rag-badge-ollama" in out


def test_status_after_extractive_fallback_keeps_the_hint():
    out = render.render_status(STATUS_ABSENT, make_answer())
    assert "Last answer" in out and "extractive" in out and "ollama pull" in out


def test_status_escapes_engine_message():
    status = BackendStatus(False, "<h>", [], "extractive", None, "<script>x</script>")
    assert_safe(render.render_status(status))


# --- browse ---


def test_filter_abstracts_matches_every_word_case_insensitively():
    abstracts = [make_abstract(), make_abstract("other-1234", "Other", "Graph neural networks.", (("009_z.txt", 1),))]
    assert [a.id for a in render.filter_abstracts(abstracts, "crispr ASSAYBENCH")] == ["assaybench-66f7"]
    assert [a.id for a in render.filter_abstracts(abstracts, "009_z")] == ["other-1234"]
    assert render.filter_abstracts(abstracts, "crispr graph") == []
    assert len(render.filter_abstracts(abstracts, "  ")) == 2


def test_abstract_list_links_each_abstract_and_counts():
    abstracts = [make_abstract(), make_abstract("other-1234", "Other", "x" * 400)]
    out = render.render_abstract_list(abstracts, "")
    assert_safe(out)
    assert "2 abstracts" in out and 'href="#abstract:assaybench-66f7"' in out and "…" in out
    assert "1 of 2 abstracts" in render.render_abstract_list(abstracts, "crispr")


def test_abstract_list_no_match():
    assert "No abstract matches" in render.render_abstract_list([make_abstract()], "zebrafish")


@pytest.mark.parametrize("nasty", NASTY)
def test_abstract_list_escapes(nasty):
    assert_safe(render.render_abstract_list([make_abstract(abstract_id=nasty, label=nasty, text=nasty)], nasty))


# --- app: launch guard ---


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
def test_loopback_hosts_need_no_password(host):
    app.check_host(host, None, False)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::", "example.org", ""])
def test_other_hosts_are_refused_without_password(host):
    with pytest.raises(ValueError, match="password"):
        app.check_host(host, None, False)


def test_other_host_with_password_or_insecure_is_allowed():
    app.check_host("0.0.0.0", ("user", "secret"), False)
    app.check_host("0.0.0.0", None, True)


@pytest.mark.parametrize("auth", [("user",), ("", "x"), ("u", ""), ("u", 1), "user:pw"])
def test_malformed_auth_is_refused(auth):
    with pytest.raises(ValueError, match="auth"):
        app.check_host("127.0.0.1", auth, False)


def test_launch_refuses_before_serving(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("must not build or launch")

    monkeypatch.setattr(app, "build_app", fail)
    with pytest.raises(ValueError, match="Refusing"):
        app.launch(FakePipeline(), host="0.0.0.0", port=1)


def test_launch_passes_safe_options(monkeypatch):
    seen = {}

    def fake_launch(self, **kwargs):
        seen.update(kwargs)
        self.local_url = "http://127.0.0.1:1234/"

    monkeypatch.setattr(gr.Blocks, "launch", fake_launch)
    monkeypatch.setattr(gr.Blocks, "block_thread", lambda self: None)
    urls = []
    app.launch(FakePipeline(), host="127.0.0.1", port=1234, ready_callback=urls.append)
    assert urls == ["http://127.0.0.1:1234/"]
    assert seen["share"] is False and seen["server_name"] == "127.0.0.1" and seen["server_port"] == 1234
    assert "allowed_paths" not in seen and seen["auth"] is None and seen["css"] == app.CSS


def test_launch_port_zero_picks_a_free_port(monkeypatch):
    seen = {}
    monkeypatch.setattr(gr.Blocks, "launch", lambda self, **kwargs: seen.update(kwargs))
    monkeypatch.setattr(gr.Blocks, "block_thread", lambda self: None)
    urls = []
    app.launch(FakePipeline(), port=0, ready_callback=urls.append)
    assert seen["server_port"] > 0 and urls == [f"http://127.0.0.1:{seen['server_port']}/"]


def test_launch_configures_the_queue(monkeypatch):
    captured = {}
    original = app.configure_queue

    def spy(demo):
        result = original(demo)
        captured["demo"] = demo
        return result

    monkeypatch.setattr(app, "configure_queue", spy)
    monkeypatch.setattr(gr.Blocks, "launch", lambda self, **kwargs: None)
    monkeypatch.setattr(gr.Blocks, "block_thread", lambda self: None)
    app.launch(FakePipeline(), ready_callback=lambda url: None)
    demo = captured["demo"]
    assert demo._queue.default_concurrency_limit == app.CHAT_CONCURRENCY
    assert demo._queue.max_size == app.QUEUE_MAX_SIZE


def test_build_app_returns_blocks_without_launching():
    demo = app.build_app(FakePipeline())
    assert isinstance(demo, gr.Blocks) and not demo.is_running


# --- app: callbacks ---


def run(gen):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gr.Warning outside a request falls back to warnings.warn
        return list(gen)


def test_respond_streams_then_renders_verified_answer():
    pipeline = FakePipeline()
    updates = run(app.UiCallbacks(pipeline).respond("How many CRISPR screens?", [], None, None))
    first, *middle, last = updates
    chat = first[0]
    assert chat[0] == {"role": "user", "content": render.render_user("How many CRISPR screens?", 0)}
    assert first[1] == "" and "Searching" in chat[1]["content"]
    assert any("AssayBench uses" in u[0][-1]["content"] and "rag-streaming" in u[0][-1]["content"] for u in middle)
    final_chat, _, sources, _, details, status, turns, editing, _ = last
    history = export.history(turns)
    assert "rag-chip" in final_chat[-1]["content"] and "rag-streaming" not in final_chat[-1]["content"]
    assert "assaybench-66f7" in sources and "Retrieval" in details and "extractive" in status
    assert [t["question"] for t in turns] == ["How many CRISPR screens?"] and "sources_html" in turns[0]
    assert (
        is_skip(editing)
        and "extractive · " in final_chat[-1]["content"]
        and 'href="#copy"' in final_chat[-1]["content"]
    )
    assert history == [
        {"role": "user", "content": "How many CRISPR screens?"},
        {
            "role": "assistant",
            "content": make_answer().text,
            "sources": [
                {"number": 1, "id": "assaybench-66f7", "label": "AssayBench"},
                {"number": 2, "id": "other-1234", "label": "Other"},
            ],
        },
    ]


def test_respond_sends_history_and_model_to_the_engine():
    pipeline = FakePipeline()
    turns = [{"question": "q1", "text": "a1 [1]", "sources": []}]
    chat = [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"}]
    prior = [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1 [1]", "sources": []}]
    run(app.UiCallbacks(pipeline).respond("and then?", chat, "gemma3:270m", None, turns))
    assert pipeline.calls == [{"question": "and then?", "history": prior, "backend": None, "model": "gemma3:270m"}]


def test_respond_first_question_sends_no_history_and_no_model():
    pipeline = FakePipeline()
    run(app.UiCallbacks(pipeline).respond("q", None, "", None))
    assert pipeline.calls[0]["history"] is None and pipeline.calls[0]["model"] is None


def test_respond_caps_history():
    pipeline = FakePipeline()
    turns = [{"question": str(i), "text": "a", "sources": []} for i in range(50)]
    chat = [{"role": "user", "content": "m"}] * 100
    last = run(app.UiCallbacks(pipeline).respond("q", chat, None, None, turns))[-1]
    assert len(pipeline.calls[0]["history"]) == app.MAX_HISTORY_MESSAGES
    assert len(last[6]) == 51 and len(last[0]) == 102


def test_respond_empty_question_changes_nothing():
    pipeline = FakePipeline()
    updates = run(app.UiCallbacks(pipeline).respond("   ", [], None, None))
    assert len(updates) == 1 and pipeline.calls == []
    assert all(is_skip(u) for i, u in enumerate(updates[0]) if i != 8)
    assert "Type a question first." in updates[0][8]


class FakeSettings:
    max_question_chars = 20


def test_respond_too_long_question_gets_a_plain_inline_note_and_keeps_the_text():
    pipeline = FakePipeline()
    pipeline.settings = FakeSettings()
    pipeline.check_question = lambda q: (_ for _ in ()).throw(
        QuestionError("too long", hint="Ask a shorter question (RAG_MAX_QUESTION_CHARS raises the limit).")
    )
    (update,) = run(app.UiCallbacks(pipeline).respond("x" * 30, [], None, None))
    note = update[8]
    assert "30 characters long" in note and "up to 20" in note and "RAG_" not in note
    assert is_skip(update[1])  # the question stays in the box


def test_second_answer_chips_carry_its_turn_and_old_chip_brings_back_its_sources():
    cb = app.UiCallbacks(FakePipeline())
    first = run(cb.respond("first question", [], None, None))[-1]
    other = make_answer(
        question="second question",
        sources=[Source(1, make_abstract("other-1234", "Other"))],
        sentences=[AnswerSentence("Other says so.", [Citation(1, "other-1234", 0.9, 0, 5)], True)],
    )
    cb.pipeline.events = [other]
    second = run(cb.respond("second question", first[0], None, None, first[6]))[-1]
    turns = second[6]
    assert len(turns) == 2 and ":t1" in second[0][-1]["content"] and ":t0" in second[0][1]["content"]
    old_chip = chips(second[0][1]["content"])[0]["href"]
    evidence, sources = cb.show_evidence(turns, gr.EventData(None, {"ref": old_chip}))
    assert "AssayBench" in evidence and "assaybench-66f7" in sources and "How many CRISPR" in sources
    assert "other-1234" in cb.sources_for(chips(second[0][-1]["content"])[0]["href"], turns)
    assert is_skip(cb.sources_for("#cite:1:x:", turns)) and is_skip(cb.sources_for("#cite:1:x::t9", turns))


def test_export_file_writes_the_chat_as_markdown():
    cb = app.UiCallbacks(FakePipeline())
    turns = run(cb.respond("q", [], None, None))[-1][6]
    update = cb.export_file(turns)
    text = Path(update["value"]).read_text(encoding="utf-8")
    assert update["value"].endswith(".md") and "## 1. q" in text and "[1]" in text and "@misc{assaybench_66f7," in text
    assert cb.export_file([])["value"] is None


def test_respond_shows_engine_error_message_inline():
    error = GenerationError("Ollama stopped mid-answer.", hint="Try again.")
    pipeline = FakePipeline(events=[TextDelta("partial")], error=error)
    last = run(app.UiCallbacks(pipeline).respond("q", [], None, None))[-1]
    content = last[0][-1]["content"]
    assert "rag-error" in content and "Ollama stopped mid-answer." in content and "Try again." in content
    assert export.history(last[6]) == [] and last[6][0]["error"] and pipeline.closed


def test_respond_hides_unexpected_errors():
    pipeline = FakePipeline(events=[], error=RuntimeError("internal detail /secret/path"))
    last = run(app.UiCallbacks(pipeline).respond("q", [], None, None))[-1]
    content = last[0][-1]["content"]
    assert "Something went wrong" in content and "secret" not in content and "Traceback" not in content


def test_respond_without_final_answer_is_an_error_not_a_crash():
    pipeline = FakePipeline(events=[TextDelta("only text")])
    last = run(app.UiCallbacks(pipeline).respond("q", [], None, None))[-1]
    assert "Something went wrong" in last[0][-1]["content"]


def test_respond_closes_the_stream_when_abandoned():
    pipeline = FakePipeline()
    gen = app.UiCallbacks(pipeline).respond("q", [], None, None)
    next(gen)
    next(gen)  # first streamed text
    gen.close()  # the user cleared the chat or left
    assert pipeline.closed


def test_respond_keeps_previous_chat_messages():
    earlier = [{"role": "user", "content": "old"}, {"role": "assistant", "content": "older answer"}]
    old_turns = [{"question": "old", "text": "older answer", "sources": []}]
    last = run(app.UiCallbacks(FakePipeline()).respond("q", earlier, None, None, old_turns))[-1]
    assert last[0][:2] == earlier and len(last[0]) == 4


def test_evidence_for_a_chip():
    cb = app.UiCallbacks(FakePipeline())
    start, end = span_of(TEXT, "It is built from 1,920 CRISPR screens.")
    out = cb.evidence_html(f"#cite:1:assaybench-66f7:{start}-{end}")
    assert '<mark class="rag-evidence">It is built from 1,920 CRISPR screens.</mark>' in out


def test_evidence_for_unknown_abstract_is_a_message():
    out = app.UiCallbacks(FakePipeline()).evidence_html("#cite:1:gone-0000:0-5")
    assert "rag-message-error" in out and "gone-0000" in out and "rag list" in out


def test_evidence_ignores_malformed_refs():
    assert app.UiCallbacks(FakePipeline()).evidence_html("javascript:alert(1)") is None


def test_evidence_spans_beyond_the_text_are_clamped():
    out = app.UiCallbacks(FakePipeline()).evidence_html("#cite:1:assaybench-66f7:0-999999")
    assert out.count("<mark") == 2  # the note's sample and the whole text


def test_clear_resets_everything():
    chat, history, question, sources, evidence, details, turns, download, note = app.UiCallbacks(FakePipeline()).clear()
    assert chat == [] and history == [] and question == "" and turns == [] and download["value"] is None
    assert "appear here" in sources and "Click a citation" in evidence and "appear here" in details


def test_refresh_status_without_ollama_hides_model_choice():
    html, dropdown, status = app.UiCallbacks(FakePipeline(status=STATUS_ABSENT)).refresh_status(None)
    assert "extractive" in html and dropdown["visible"] is False and status is STATUS_ABSENT


def test_refresh_status_with_ollama_offers_installed_models():
    html, dropdown, _ = app.UiCallbacks(FakePipeline(status=STATUS_OLLAMA)).refresh_status(None)
    assert dropdown["visible"] is True and dropdown["choices"] == ["llama3.2:3b", "gemma3:270m"]
    assert dropdown["value"] == "llama3.2:3b"


def test_refresh_status_keeps_the_chosen_model():
    _, dropdown, _ = app.UiCallbacks(FakePipeline(status=STATUS_OLLAMA)).refresh_status("gemma3:270m")
    assert dropdown["value"] == "gemma3:270m"


def test_refresh_status_survives_a_failing_engine():
    html, dropdown, status = app.UiCallbacks(FakePipeline(status=None)).refresh_status(None)
    assert status is None and dropdown["visible"] is False and "rag-status" in html


def test_browse_lists_and_views_abstracts():
    cb = app.UiCallbacks(FakePipeline())
    assert "1 of 2 abstracts" in cb.list_abstracts("crispr")
    assert "We propose AssayBench" in cb.abstract_html("#abstract:assaybench-66f7")
    assert "rag-message-error" in cb.abstract_html("#abstract:gone-0000")
    assert cb.abstract_html("#cite:1:x:") is None


def test_browse_without_index_shows_the_engine_message():
    from rag.errors import IndexNotBuiltError

    pipeline = FakePipeline()
    pipeline.abstracts = lambda: (_ for _ in ()).throw(IndexNotBuiltError("No index yet."))
    out = app.UiCallbacks(pipeline).list_abstracts("")
    assert "No index yet." in out and "rag ingest" in out


def test_examples_include_the_required_questions():
    assert "Which papers study LLM calibration?" in app.EXAMPLES
    assert "How many CRISPR screens does AssayBench use?" in app.EXAMPLES


def test_cite_listener_targets_the_links_render_makes():
    href = render.cite_href(1, "x-1")
    assert href.startswith("#cite:") and 'a[href^="#cite:"]' in app.PAGE_JS
    assert render.abstract_href("x").startswith("#abstract:") and 'a[href^="#abstract:"]' in app.BROWSE_JS
    assert re.search(r"[tT]rigger\('click', \{ref:", app.PAGE_JS) and "trigger('click', {ref:" in app.BROWSE_JS


# --- issue #15: footer, stop, edit, fuzzy Browse, saved chats, scope ---


def test_browse_matches_typos_and_highlights_the_matched_words():
    abstracts = [make_abstract(), make_abstract("other-1234", "Other", "We study model calibration at length.")]
    assert [a.id for a in render.filter_abstracts(abstracts, "calibraton")] == ["other-1234"]
    assert [a.id for a in render.filter_abstracts(abstracts, "CRISPR screns")] == ["assaybench-66f7"]
    assert render.filter_abstracts(abstracts, "zebra") == [] and len(render.filter_abstracts(abstracts, "  ")) == 2
    assert render.filter_abstracts(abstracts, "crisp") and not render.filter_abstracts(abstracts, "crips")  # short
    out = render.render_abstract_list(abstracts, "calibraton")
    assert '<mark class="rag-hit">calibration</mark>' in out and "1 of 2 abstracts" in out
    assert_safe(out)


def test_exact_matches_rank_before_typos():
    abstracts = [make_abstract("a-1", "A", "Calibraton is misspelt here."), make_abstract("b-2", "B", "No match.")]
    abstracts.append(make_abstract("c-3", "C", "Calibration, spelt right."))
    assert [a.id for a in render.filter_abstracts(abstracts, "calibration")][0] == "c-3"


def test_mark_words_leaves_tags_and_code_alone():
    out = render.mark_words('<a href="#x" title="screens">screens</a> <code>screens</code> Screens', {"screens"})
    assert out == '<a href="#x" title="screens"><mark class="rag-hit">screens</mark></a> <code>screens</code> ' + (
        '<mark class="rag-hit">Screens</mark>'
    )


def test_snippet_starts_near_the_first_match():
    text = "Opening words. " * 30 + "The key result is here."
    assert render.snippet_around(text, {"key"}, 60).startswith("…") and "key" in render.snippet_around(
        text, {"key"}, 60
    )
    assert render.snippet_around(text, set(), 60).startswith("Opening words.")


def test_tables_sit_in_their_own_scroll_box():
    out = render.render_markdown("| a | b |\n|---|---|\n| 1 | 2 |")
    assert out.startswith('<div class="rag-table-scroll"><table>') and out.rstrip().endswith("</table></div>")


def test_footer_has_backend_time_and_the_hidden_markdown():
    footer = render.render_footer(
        render.footer_meta("ollama · llama3.2:3b", 1.234, 20.5), copy_text="a <b>", file_text="f", file_name="x y.md"
    )
    assert "ollama · llama3.2:3b · 1.23 s · 20.5 tokens/s" in footer and 'href="#save:x-y.md"' in footer
    assert '<pre class="rag-copy-src">a &lt;b&gt;</pre>' in footer and 'href="#copy"' in footer
    assert_safe(footer)
    assert render.footer_meta("extractive", 0.25) == "extractive · 250 ms"


def test_user_message_has_an_edit_link_for_its_place():
    out = render.render_user("Why <not>?", 3)
    assert 'href="#edit:3"' in out and "Why &lt;not&gt;?" in out and "#edit" not in render.render_user("q")


def test_stopped_stream_keeps_its_text_and_says_so():
    out = render.render_stopped(render.render_streaming("half an"))
    assert "rag-stopped" in out and "half an" in out and "rag-cursor" not in out and "Stopped." in out
    assert "Stopped." in render.render_stopped(render.render_streaming(""))


def test_evidence_has_a_way_back_to_the_chat():
    out = render.render_evidence(make_abstract(), [(0, 10)], number=1)
    assert out.startswith('<button type="button" class="rag-drawer-close"') and "<mark" in out
    assert_safe(out)


def answered(cb, question="q1", chat=None, turns=None, **kwargs):
    return run(cb.respond(question, chat or [], None, None, turns or [], **kwargs))[-1]


def test_editing_a_question_cuts_the_chat_there():
    cb = app.UiCallbacks(FakePipeline())
    first = answered(cb, "q1")
    second = answered(cb, "q2", first[0], first[6])
    assert len(second[0]) == 4 and [t["question"] for t in second[6]] == ["q1", "q2"]
    question, editing, note = cb.start_edit(second[6], gr.EventData(None, {"ref": "#edit:0"}))
    assert question == "q1" and editing == 0 and "Editing question 1" in note
    updates = run(cb.respond("q1 again", second[0], None, None, second[6], editing=0))
    edited = updates[-1]
    assert len(edited[0]) == 2 and [t["question"] for t in edited[6]] == ["q1 again"] and updates[0][7] is None
    assert cb.pipeline.calls[-1]["history"] is None  # nothing before the edited question
    for ref in ("#edit:cancel", "#edit:9", None, "#edit:-1"):
        assert cb.start_edit(second[6], gr.EventData(None, {"ref": ref}))[1] is None


def test_regenerate_asks_the_last_question_again_in_its_place():
    cb = app.UiCallbacks(FakePipeline())
    first = answered(cb, "q1")
    second = answered(cb, "q2", first[0], first[6])
    again = run(cb.regenerate(second[0], None, None, second[6]))[-1]
    assert len(again[0]) == 4 and [t["question"] for t in again[6]] == ["q1", "q2"]
    assert cb.pipeline.calls[-1]["question"] == "q2" and len(cb.pipeline.calls[-1]["history"]) == 2
    (nothing,) = run(cb.regenerate([], None, None, []))
    assert all(is_skip(u) for u in nothing)


def test_stop_marks_the_streaming_answer_and_records_it():
    chat = [
        {"role": "user", "content": [{"type": "text", "text": render.render_user("q", 0)}]},
        {"role": "assistant", "content": [{"type": "text", "text": render.render_streaming("some words")}]},
    ]
    new_chat, turns, ask, stop = app.UiCallbacks.stopped(chat, [{"question": "q", "pending": True}])
    assert "rag-stopped" in new_chat[-1]["content"] and "some words" in new_chat[-1]["content"]
    assert turns == [{"question": "q", "error": "Stopped before the answer was complete."}]
    assert ask["visible"] is True and stop["visible"] is False
    assert app.UiCallbacks.stopped([], [])[0] == []


def test_saved_chats_round_trip_through_the_callbacks():
    cb = app.UiCallbacks(FakePipeline())
    first = answered(cb, "q1")
    download, store, chat_id, listing, *_ = cb.after_answer(first[0], first[6], None, None)
    assert download["value"].endswith(".md") and listing["value"] == chat_id and len(listing["choices"]) == 1
    restored = cb.restore(store)
    assert restored[0] == first[0] and restored[1] == first[6] and restored[5] == chat_id
    assert "assaybench-66f7" in restored[2]  # the last answer's sources
    fresh = cb.new_chat(store)
    assert fresh[0] == [] and fresh[5] is None and fresh[6]["current"] is None and len(fresh[7]["choices"]) == 1
    assert cb.open_chat(fresh[6], chat_id)[0] == first[0]
    gone = cb.delete_chat(store, chat_id)
    assert gone[0] == [] and gone[6]["chats"] == []
    assert cb.restore("garbage")[0] == [] and cb.open_chat(None, "x")[0] == []


def test_ask_about_a_paper_scopes_the_chat_to_it():
    cb = app.UiCallbacks(FakePipeline())
    view = cb.ask_about(None, "assaybench-66f7")
    scope, question, note = view[12], view[11], view[9]
    assert scope == {"id": "assaybench-66f7", "label": "AssayBench"} and "this paper" in question
    assert "Asking about <strong>AssayBench</strong>" in note and view[13]["selected"] == "chat"
    last = answered(cb, question, scope=scope)
    history = cb.pipeline.calls[-1]["history"]
    assert history[-1]["sources"] == [{"number": 1, "id": "assaybench-66f7", "label": "AssayBench"}]
    assert "Asking about" in run(cb.respond(question, [], None, None, [], None, scope))[0][8] and last[6]
    assert "rag-message-error" in cb.ask_about(None, "gone-0000")[9] or "No abstract" in cb.ask_about(None, "x")[9]
    assert app.scope_history({"id": 1}) == [] and app.scope_history(None) == []
    _, store, chat_id, *_ = cb.after_answer(last[0], last[6], None, None, scope)
    reopened = cb.open_chat(store, chat_id)
    assert reopened[12] == scope and "Asking about" in reopened[9]
