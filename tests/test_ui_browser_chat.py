"""The chat page in a real browser (Debian Chromium via Playwright), served by ``ui.app.launch`` over a fake
pipeline that returns the engine's Markdown answer shapes (a list, a compare table) over small fake abstracts
with LaTeX in them. Screenshots at desktop and phone size go to ``test-artifacts/``.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import CHROMIUM
from tests.test_ui_browser import _free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"

FAKE_SERVER = textwrap.dedent(
    """
    import sys
    from rag.answer import Answer, AnswerSentence, BackendStatus, Citation, Source, TextDelta
    from rag.corpus import Abstract, Location
    from rag.errors import QuestionError, UnknownAbstractError
    from ui.app import launch

    A = Abstract("alpha-1111", "AlphaBench", "We present AlphaBench, 4$\\\\times$ larger with $7, 402$ tasks. "
                 "It uses $h$ heads. Code: https://example.org/alpha.", (Location("000_a.txt", 1),), "0" * 64)
    B = Abstract("beta-2222", "BetaNet", "BetaNet is a model that is $\\\\sim$50\\\\% faster on screens. It is small.",
                 (Location("000_a.txt", 2),), "0" * 64)

    class FakeSettings:
        max_question_chars = 200

    class FakeMarkdownPipeline:
        settings = FakeSettings()

        def check_question(self, q):
            q = (q or "").strip()
            if not q:
                raise QuestionError("The question is empty.")
            if len(q) > 200:
                raise QuestionError("too long", hint="RAG_MAX_QUESTION_CHARS")
            return q

        def stream(self, q, history=None, *, backend=None, model=None):
            e1 = (0, A.text.index("It uses"))
            e2 = (0, B.text.index("It is small"))
            if "compare" in q.lower():
                srcs = [Source(1, B), Source(2, A)]
                text = ("| Work | What it does | How | Results |\\n|---|---|---|---|\\n"
                        "| **BetaNet** [1] | a model | screens | ~50% faster |\\n"
                        "| **AlphaBench** [2] | a benchmark | tasks | 4× larger |")
                cites = [Citation(1, B.id, 0.9, *e2), Citation(2, A.id, 0.9, *e1)]
            else:
                srcs = [Source(1, A), Source(2, B)]
                text = ("- **AlphaBench**: a benchmark 4$\\\\times$ larger [1]\\n"
                        "- **BetaNet**: a model $\\\\sim$50\\\\% faster [2]")
                cites = [Citation(1, A.id, 0.9, *e1), Citation(2, B.id, 0.9, *e2)]
            sentences = [AnswerSentence("row", [c], True) for c in cites]
            yield TextDelta(text[:10])
            yield Answer(q, text, sentences, srcs, False, "extractive", None,
                         notices=["Ollama is not reachable; answered extractively."])

        def abstracts(self):
            return [A, B]

        def abstract(self, abstract_id):
            for a in (A, B):
                if a.id == abstract_id:
                    return a
            raise UnknownAbstractError(abstract_id)

        def backend_status(self, model=None):
            return BackendStatus(False, "http://127.0.0.1:9", [], "extractive", None,
                                 "Ollama is not reachable; answers are extractive.")

    launch(FakeMarkdownPipeline(), host="127.0.0.1", port=int(sys.argv[1]),
           ready_callback=lambda url: print("READY " + url, flush=True))
    """
)


@pytest.fixture(scope="module")
def fake_url():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-c", FAKE_SERVER, str(_free_port())],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    log: list[str] = []

    def pump() -> None:
        for line in proc.stdout:
            log.append(line)
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + 120
    url = None
    try:
        while url is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the fake UI server did not start:\n" + "".join(log[-60:]))
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                continue
            if line.startswith("READY "):
                url = line.split(" ", 1)[1].strip()
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def open_page(browser, url, width, height):
    context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
    pg = context.new_page()
    pg.page_errors = []
    pg.on("pageerror", lambda exc: pg.page_errors.append(str(exc)))
    pg.goto(url)
    pg.wait_for_selector("#rag-question textarea", timeout=30_000)
    return context, pg


def ask(pg, question: str, answers_before: int = 0) -> None:
    pg.fill("#rag-question textarea", question)
    pg.press("#rag-question textarea", "Enter")
    pg.wait_for_function(
        "n => document.querySelectorAll('#rag-chat .rag-answer:not(.rag-streaming)').length > n",
        arg=answers_before,
        timeout=30_000,
    )


@pytest.fixture
def desktop(browser, fake_url):
    context, pg = open_page(browser, fake_url, 1400, 1000)
    yield pg
    context.close()


def test_list_and_table_answers_render_with_chips_and_no_raw_latex(desktop):
    pg = desktop
    ask(pg, "which papers are fast")
    ask(pg, "compare them", answers_before=1)
    first, second = pg.locator("#rag-chat .rag-answer").all()
    items = first.locator("li")
    assert items.count() == 2 and "AlphaBench" in items.nth(0).inner_text() and "BetaNet" in items.nth(1).inner_text()
    assert items.nth(0).locator("a.rag-chip").count() == 1
    table = second.locator("table")
    assert table.count() == 1 and table.locator("th").count() == 4
    assert table.locator("td a.rag-chip").count() == 2
    visible = pg.locator("#rag-chat").inner_text()
    assert "$" not in visible and "\\times" not in visible and "4×" in visible
    # The notice is in the banner once, not in the answers.
    assert "rag-notice" not in first.inner_html() and pg.locator("#rag-status").inner_text().count("answered") == 1

    # An old answer's chip opens its own source and brings back its sources panel.
    first.locator("a.rag-chip").first.click()
    pg.wait_for_function(
        "() => { const t = document.querySelector('#rag-evidence .rag-abstract-title');"
        " return t && t.innerText.includes('AlphaBench'); }",
        timeout=10_000,
    )
    pg.wait_for_function(
        "() => document.querySelector('#rag-sources').innerText.includes('which papers are fast')", timeout=10_000
    )
    evidence = pg.locator("#rag-evidence").inner_text()
    assert "4×" in evidence and "7,402" in evidence and "$" not in evidence
    assert "4× larger" in pg.locator("#rag-evidence .rag-abstract-text mark.rag-evidence").first.inner_text()
    link = pg.locator('#rag-evidence a[href="https://example.org/alpha"]')
    assert link.get_attribute("rel") == "noopener noreferrer" and link.get_attribute("target") == "_blank"
    # The newer answer's [1] is another paper.
    second.locator("a.rag-chip").first.click()
    pg.wait_for_function(
        "() => document.querySelector('#rag-evidence .rag-abstract-title').innerText.includes('BetaNet')"
        " && document.querySelector('#rag-sources').innerText.includes('compare them')",
        timeout=10_000,
    )
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / "ui-markdown-answers-desktop.png"), full_page=True)
    assert pg.page_errors == []


def test_download_chat_as_markdown(desktop):
    pg = desktop
    ask(pg, "which papers are fast")
    pg.wait_for_function("() => !document.querySelector('#rag-download').disabled", timeout=10_000)
    with pg.expect_download(timeout=15_000) as info:
        pg.click("#rag-download")
    text = Path(info.value.path()).read_text(encoding="utf-8")
    assert "## 1. which papers are fast" in text and "- **AlphaBench**: a benchmark" in text
    assert "[1] **AlphaBench** — ID `alpha-1111` — 000_a.txt #1 — “We present AlphaBench" in text
    assert "[2] **BetaNet** — ID `beta-2222`" in text


def test_too_long_question_gets_an_inline_note(desktop):
    pg = desktop
    pg.fill("#rag-question textarea", "word " * 60)
    pg.press("#rag-question textarea", "Enter")
    note = pg.locator("#rag-question-note .rag-question-note-on")
    note.wait_for(state="visible", timeout=10_000)
    assert "up to 200" in note.inner_text() and "RAG_" not in pg.locator("body").inner_text()
    assert pg.input_value("#rag-question textarea").startswith("word word")


def test_phone_width_has_no_sideways_scroll(browser, fake_url):
    context, pg = open_page(browser, fake_url, 390, 844)
    try:
        ask(pg, "which papers are fast")
        ask(pg, "compare them", answers_before=1)
        width = pg.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1], width
        pg.locator("#rag-question textarea").scroll_into_view_if_needed()
        assert pg.locator("#rag-question textarea").is_visible()
        ARTIFACTS.mkdir(exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / "ui-markdown-answers-phone.png"), full_page=True)
    finally:
        context.close()
