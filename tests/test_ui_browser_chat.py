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
    import time
    from rag.answer import Answer, AnswerSentence, BackendStatus, Citation, Source, TextDelta, Timings
    from rag.corpus import Abstract, Location
    from rag.errors import QuestionError, UnknownAbstractError
    from ui.app import launch

    A = Abstract("alpha-1111", "AlphaBench", "We present AlphaBench, 4$\\\\times$ larger with $7, 402$ tasks. "
                 "It uses $h$ heads. Code: https://example.org/alpha.", (Location("000_a.txt", 1),), "0" * 64)
    B = Abstract("beta-2222", "BetaNet", "BetaNet is a model that is $\\\\sim$50\\\\% faster on screens. It is small.",
                 (Location("000_a.txt", 2),), "0" * 64)
    LONG = " ".join(f"Filler sentence number {i} says nothing about the question at all." for i in range(60))
    C = Abstract("gamma-3333", "GammaSet", LONG + " GammaSet holds 12,345 annotated proteins.",
                 (Location("001_b.txt", 7),), "0" * 64)
    ALL = (A, B, C)
    CALLS = {"count": 0}

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
            if "slow" in q.lower():  # streams for ~15 s, so it can be stopped
                for i in range(60):
                    time.sleep(0.25)
                    yield TextDelta(f"word{i} ")
            if "proteins" in q.lower() or "this paper" in q.lower():
                subject = C if "proteins" in q.lower() else next(
                    (a for a in ALL for s in (history or [])[-1:] for x in s.get("sources", []) if x["id"] == a.id), A)
                start = subject.text.rindex(". ") + 2 if subject is C else 0
                said = f"{subject.label}: " + subject.text[start:]
                cite = Citation(1, subject.id, 0.9, start, len(subject.text))
                yield Answer(q, said + " [1]", [AnswerSentence(said, [cite], True)], [Source(1, subject)], False, "extractive",
                             None, timings=Timings(0.01, 0.0, 0.01, 0.25))
                return
            if "count" in q.lower():
                CALLS["count"] += 1
                said = f"Call {CALLS['count']}: AlphaBench is a benchmark."
                cite = Citation(1, A.id, 0.9, *e1)
                yield Answer(q, said + " [1]", [AnswerSentence(said, [cite], True)], [Source(1, A)], False, "extractive", None)
                return
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
            return list(ALL)

        def abstract(self, abstract_id):
            for a in ALL:
                if a.id == abstract_id:
                    return a
            raise UnknownAbstractError(abstract_id)

        def backend_status(self, model=None):
            return BackendStatus(False, "http://127.0.0.1:9", [], "extractive", None,
                                 "Ollama is not reachable; answers are extractive.")

    if len(sys.argv) > 2:  # a slow page load: the saved chat is restored only after this many seconds
        from ui.app import UiCallbacks
        _restore = UiCallbacks.restore
        def _slow_restore(self, store):
            time.sleep(float(sys.argv[2]))
            return _restore(self, store)
        UiCallbacks.restore = _slow_restore

    launch(FakeMarkdownPipeline(), host="127.0.0.1", port=int(sys.argv[1]),
           ready_callback=lambda url: print("READY " + url, flush=True))
    """
)


@pytest.fixture(scope="module")
def fake_url():
    yield from serve_fake()


def serve_fake(*extra: str):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-c", FAKE_SERVER, str(_free_port()), *extra],
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


@pytest.fixture(scope="module")
def slow_load_url():
    yield from serve_fake("3")


def test_asking_is_off_until_the_saved_chat_is_restored_so_an_early_answer_is_not_wiped(browser, slow_load_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    try:
        pg.goto(slow_load_url)
        box = pg.locator("#rag-question textarea")
        box.wait_for(timeout=30_000)
        assert box.is_disabled() and "Loading" in box.get_attribute("placeholder")
        assert pg.locator("#rag-ask").is_disabled()
        ask(pg, "how many proteins")  # Playwright waits until the box can be typed in
        pg.wait_for_timeout(1_500)  # anything still in flight from the page load lands now
        assert pg.locator("#rag-chat .rag-answer").count() == 1
        assert pg.locator("#rag-chat a.rag-chip").count() == 1
        assert pg.evaluate("() => document.activeElement === document.querySelector('#rag-question textarea')")
    finally:
        context.close()


# --- evidence panel, chat controls, saved chats, Browse, phone (issue #15) ---


def answers(pg):
    return pg.locator("#rag-chat .rag-answer:not(.rag-streaming)")


def shot(pg, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / name), full_page=False)


def in_viewport(pg, selector: str) -> bool:
    return pg.evaluate(
        """s => { const r = document.querySelector(s).getBoundingClientRect();
                  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }""",
        selector,
    )


MARK = "#rag-evidence .rag-abstract-text mark.rag-evidence"


def test_evidence_panel_scrolls_the_highlighted_sentence_into_view(desktop):
    pg = desktop
    ask(pg, "how many proteins")
    pg.locator("#rag-chat a.rag-chip").first.click()
    pg.locator(MARK).wait_for(state="visible", timeout=10_000)
    assert "12,345 annotated proteins" in pg.locator(MARK).inner_text()
    # The sentence is the last of a long abstract: the panel scrolled so that it is visible, in the panel and page.
    pg.wait_for_function(
        """s => { const m = document.querySelector(s).getBoundingClientRect();
                  const p = document.querySelector('#rag-evidence').getBoundingClientRect();
                  return m.top >= p.top && m.bottom <= p.bottom && m.top >= 0 && m.bottom <= window.innerHeight; }""",
        arg=MARK,
        timeout=5_000,
    )
    assert pg.evaluate("document.querySelector('#rag-evidence').scrollTop") > 0
    shot(pg, "ui-evidence-scrolled-desktop.png")


def test_phone_chip_opens_the_abstract_in_a_drawer_and_back_returns_to_the_chat(browser, fake_url):
    context, pg = open_page(browser, fake_url, 390, 844)
    try:
        ask(pg, "how many proteins")
        assert not pg.locator("#rag-evidence").is_visible()  # no empty panel under the chat on a phone
        chip = pg.locator("#rag-chat a.rag-chip").first
        chip.click()
        pg.locator(MARK).wait_for(state="visible", timeout=10_000)
        box = pg.locator("#rag-evidence").bounding_box()
        assert box["y"] <= 1 and box["height"] >= 800 and box["width"] >= 389  # over the chat, where one looks
        pg.wait_for_function(
            """s => { const r = document.querySelector(s).getBoundingClientRect();
                      return r.top >= 0 && r.bottom <= window.innerHeight; }""",
            arg=MARK,
            timeout=5_000,
        )
        shot(pg, "ui-evidence-drawer-phone.png")
        pg.get_by_role("button", name="Close the abstract and go back to the chat").click()
        pg.wait_for_function("!document.querySelector('#rag-evidence').classList.contains('rag-drawer-open')")
        assert not pg.locator("#rag-evidence").is_visible() and in_viewport(pg, "#rag-chat a.rag-chip.rag-active")
        # Escape closes it too.
        chip.click()
        pg.locator(MARK).wait_for(state="visible", timeout=10_000)
        pg.keyboard.press("Escape")
        assert not pg.locator("#rag-evidence").is_visible()
        assert pg.page_errors == []
    finally:
        context.close()


def test_copy_answer_copies_it_with_its_references(browser, fake_url):
    context, pg = open_page(browser, fake_url, 1400, 1000)
    try:
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        ask(pg, "which papers are fast")
        copy = answers(pg).first.locator("a.rag-copy")
        copy.click()
        pg.wait_for_function("() => document.querySelector('#rag-chat a.rag-copy').innerText === 'Copied'")
        text = pg.evaluate("navigator.clipboard.readText()")
        assert text.startswith("## which papers are fast") and "- **AlphaBench**: a benchmark" in text
        assert "[1] **AlphaBench** — ID `alpha-1111` — 000_a.txt #1 — “We present AlphaBench" in text
        assert "[2] **BetaNet** — ID `beta-2222`" in text and "@misc" not in text
    finally:
        context.close()


def test_one_answer_downloads_as_markdown_with_bibtex(desktop):
    pg = desktop
    ask(pg, "which papers are fast")
    ask(pg, "count", answers_before=1)
    with pg.expect_download(timeout=10_000) as info:
        answers(pg).first.locator("a.rag-save").click()
    assert info.value.suggested_filename == "answer-1.md"
    text = Path(info.value.path()).read_text(encoding="utf-8")
    assert text.startswith("## which papers are fast") and "Call" not in text
    assert "[1] **AlphaBench** — ID `alpha-1111`" in text
    assert "@misc{alpha_1111,\n  title = {AlphaBench}," in text and "@misc{beta_2222," in text


def test_every_answer_has_a_footer_with_backend_and_time(desktop):
    pg = desktop
    ask(pg, "how many proteins")
    ask(pg, "which papers are fast", answers_before=1)
    footers = pg.locator("#rag-chat .rag-answer .rag-footer-meta")
    assert footers.count() == 2
    assert footers.nth(0).inner_text() == "extractive · 250 ms"  # the older answer keeps its own timing
    assert footers.nth(1).inner_text().startswith("extractive · ")


def test_regenerate_replaces_the_last_answer(desktop):
    pg = desktop
    ask(pg, "count")
    first = answers(pg).first.inner_text()
    pg.locator("#rag-chat button[aria-label='Retry']").click()
    pg.wait_for_function(
        "t => { const a = document.querySelectorAll('#rag-chat .rag-answer:not(.rag-streaming)');"
        " return a.length === 1 && a[0].innerText !== t; }",
        arg=first,
        timeout=15_000,
    )
    assert pg.locator("#rag-chat .rag-question").count() == 1 and "Call" in answers(pg).first.inner_text()


def test_edit_a_question_and_resend_replaces_it_and_what_followed(desktop):
    pg = desktop
    ask(pg, "which papers are fast")
    ask(pg, "compare them", answers_before=1)
    pg.locator("#rag-chat a.rag-edit").first.click()
    pg.wait_for_function("() => document.querySelector('#rag-question textarea').value === 'which papers are fast'")
    assert "Editing question 1" in pg.locator("#rag-question-note").inner_text()
    pg.fill("#rag-question textarea", "how many proteins")
    pg.press("#rag-question textarea", "Enter")
    pg.wait_for_function(
        "() => { const q = document.querySelectorAll('#rag-chat .rag-question');"
        " return q.length === 1 && q[0].innerText === 'how many proteins'"
        " && document.querySelectorAll('#rag-chat .rag-answer:not(.rag-streaming)').length === 1; }",
        timeout=15_000,
    )
    assert (
        "GammaSet" in answers(pg).first.inner_text() and "Editing" not in pg.locator("#rag-question-note").inner_text()
    )
    # Cancel leaves the chat as it was.
    pg.locator("#rag-chat a.rag-edit").first.click()
    pg.locator("#rag-question-note a", has_text="Cancel").click()
    pg.wait_for_function("() => !document.querySelector('#rag-question-note').innerText.includes('Editing')")


def test_stop_ends_a_streaming_answer_and_keeps_what_arrived(desktop):
    pg = desktop
    pg.fill("#rag-question textarea", "a slow one")
    pg.press("#rag-question textarea", "Enter")
    pg.locator("#rag-stop").wait_for(state="visible", timeout=10_000)
    pg.wait_for_function(
        "() => (document.querySelector('#rag-chat .rag-streaming') || {}).innerText?.includes('word2')"
    )
    started = time.monotonic()
    pg.click("#rag-stop")
    pg.locator("#rag-chat .rag-stopped").wait_for(state="visible", timeout=5_000)
    assert time.monotonic() - started < 5
    stopped = pg.locator("#rag-chat .rag-stopped").inner_text()
    assert "word2" in stopped and "Stopped" in stopped and "word59" not in stopped
    pg.locator("#rag-ask").wait_for(state="visible", timeout=5_000)
    assert not pg.locator("#rag-stop").is_visible()
    pg.wait_for_timeout(1200)  # the stopped stream sends nothing more
    assert pg.locator("#rag-chat .rag-streaming").count() == 0
    ask(pg, "count", answers_before=1)  # and the next question works


def test_saved_chats_survive_a_reload_and_a_browser_restart_and_can_be_reopened_or_deleted(browser, fake_url):
    context, pg = open_page(browser, fake_url, 1400, 1000)
    try:
        ask(pg, "which papers are fast")
        ask(pg, "compare them", answers_before=1)
        # Saved (in this browser's localStorage) once the list of chats shows both questions.
        pg.wait_for_function(
            "() => (document.querySelector('#rag-chats') || {}).textContent?.includes('2 questions')"
            " && Object.keys(localStorage).some(k => k.includes('rag-abstracts-chats'))",
            timeout=15_000,
        )
        pg.reload()
        pg.wait_for_function("() => document.querySelectorAll('#rag-chat .rag-answer').length === 2", timeout=15_000)
        assert "compare them" in pg.locator("#rag-sources").inner_text()
        answers(pg).first.locator("a.rag-chip").first.click()  # restored chips still open their own source
        pg.wait_for_function(
            "() => (document.querySelector('#rag-evidence .rag-abstract-title') || {}).innerText?.includes('AlphaBench')"
        )
        state = context.storage_state()
    finally:
        context.close()
    # A new browser context with the same storage is a browser restart.
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, storage_state=state)
    try:
        pg = context.new_page()
        pg.goto(fake_url)
        pg.wait_for_function("() => document.querySelectorAll('#rag-chat .rag-answer').length === 2", timeout=30_000)
        pg.click("#rag-clear")  # New chat
        pg.wait_for_function("() => document.querySelectorAll('#rag-chat .rag-answer').length === 0")
        ask(pg, "count")
        pg.click("#rag-saved-chats")
        options = pg.locator("#rag-chats label")
        pg.wait_for_function("() => document.querySelectorAll('#rag-chats label').length === 2")
        pg.wait_for_timeout(400)  # the sidebar slides in
        assert (
            options.nth(0).inner_text().startswith("count") and "which papers are fast" in options.nth(1).inner_text()
        )
        shot(pg, "ui-saved-chats-desktop.png")
        options.nth(1).click()
        pg.wait_for_function("() => document.querySelectorAll('#rag-chat .rag-answer').length === 2")
        assert "which papers are fast" in pg.locator("#rag-chat .rag-question").first.inner_text()
        pg.click("#rag-delete-chat")
        pg.wait_for_function(
            "() => document.querySelectorAll('#rag-chats label').length === 1"
            " && document.querySelectorAll('#rag-chat .rag-answer').length === 0"
        )
        pg.reload()
        pg.wait_for_selector("#rag-question textarea")
        pg.click("#rag-saved-chats")
        pg.wait_for_function("() => document.querySelectorAll('#rag-chats label').length === 1")
        assert pg.locator("#rag-chats label").first.inner_text().startswith("count")
    finally:
        context.close()


def test_browse_finds_typos_highlights_matches_and_asks_about_a_paper(desktop):
    pg = desktop
    pg.get_by_role("tab", name="Browse").click()
    pg.wait_for_selector("#rag-browse-list a.rag-browse-item", timeout=15_000)
    pg.fill("#rag-browse-query textarea", "protiens")  # a typo
    pg.wait_for_function(
        "() => document.querySelectorAll('#rag-browse-list a.rag-browse-item').length === 1", timeout=10_000
    )
    item = pg.locator("#rag-browse-list a.rag-browse-item").first
    assert "GammaSet" in item.inner_text() and item.locator("mark.rag-hit").first.inner_text() == "proteins"
    item.click()
    pg.locator("#rag-browse-ask").wait_for(state="visible", timeout=10_000)
    shot(pg, "ui-browse-fuzzy-desktop.png")
    pg.click("#rag-browse-ask")
    pg.wait_for_function(
        "() => document.querySelectorAll('#rag-chat .rag-answer:not(.rag-streaming)').length === 1", timeout=15_000
    )
    assert pg.locator("#rag-chat .rag-question").first.inner_text() == "What does this paper contribute?"
    assert "GammaSet" in answers(pg).first.inner_text()  # the question reached the engine about this paper
    assert "Asking about GammaSet" in pg.locator("#rag-question-note").inner_text()


def test_phone_chips_wrap_input_is_reachable_and_table_words_stay_whole(browser, fake_url):
    context, pg = open_page(browser, fake_url, 390, 844)
    try:
        ask(pg, "compare them")
        width = pg.evaluate("() => document.documentElement.clientWidth")
        rights = pg.evaluate(
            "() => Array.from(document.querySelectorAll('.rag-example-row button, .rag-controls button'))"
            ".map(b => b.getBoundingClientRect().right)"
        )
        assert rights and max(rights) <= width, (rights, width)
        # No word of a table cell is split across lines (each word is one box); the table scrolls in its own box.
        split = pg.evaluate(
            """() => { const bad = [];
              document.querySelectorAll('#rag-chat td, #rag-chat th').forEach(cell => {
                const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
                let node; while ((node = walker.nextNode())) {
                  const re = /\\S+/g; let m;
                  while ((m = re.exec(node.data))) {
                    const r = document.createRange(); r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
                    const lines = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
                    if (lines.size > 1) bad.push(m[0]);
                  } } });
              return bad; }"""
        )
        assert split == []
        assert pg.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        pg.locator("#rag-question textarea").scroll_into_view_if_needed()
        box = pg.locator("#rag-question textarea").bounding_box()
        # within the 844 px viewport, give or take the browser's sub-pixel layout (a fraction of a pixel)
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844 + 1 and box["x"] + box["width"] <= width, box
        pg.locator("#rag-question textarea").click()
        shot(pg, "ui-phone-table-and-chips.png")
        assert pg.page_errors == []
    finally:
        context.close()


def test_phone_browse_opens_the_abstract_at_the_top_of_the_screen(browser, fake_url):
    context, pg = open_page(browser, fake_url, 390, 844)
    try:
        pg.get_by_role("tab", name="Browse").click()
        pg.wait_for_selector("#rag-browse-list a.rag-browse-item", timeout=15_000)
        pg.locator("#rag-browse-list a.rag-browse-item").last.click()
        pg.locator("#rag-browse-view article").wait_for(state="visible", timeout=10_000)
        pg.wait_for_function(
            "() => { const r = document.querySelector('#rag-browse-view').getBoundingClientRect();"
            " return r.top > -30 && r.top < 100; }",
            timeout=5_000,
        )
        assert pg.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        shot(pg, "ui-browse-phone.png")
    finally:
        context.close()


def test_phone_saved_chat_opens_and_the_sidebar_gets_out_of_the_way(browser, fake_url):
    context, pg = open_page(browser, fake_url, 390, 844)
    try:
        ask(pg, "count")
        pg.wait_for_function("() => (document.querySelector('#rag-chats') || {}).textContent?.includes('1 question')")
        pg.click("#rag-clear")
        pg.wait_for_function("() => document.querySelectorAll('#rag-chat .rag-answer').length === 0")
        pg.click("#rag-saved-chats")
        pg.locator("#rag-chats label").first.click()
        pg.wait_for_function(
            "() => document.querySelectorAll('#rag-chat .rag-answer').length === 1"
            " && !document.querySelector('.sidebar').classList.contains('open')",
            timeout=10_000,
        )
        assert pg.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    finally:
        context.close()
