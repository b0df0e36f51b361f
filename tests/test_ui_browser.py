"""The real UI in a real browser: the real Pipeline over a freshly ingested index, served by ``ui.app.launch`` in
a subprocess on a free loopback port, driven by Debian's Chromium through Playwright.

Extractive backend only (no Ollama needed). The screenshot of a cited answer is saved to
``test-artifacts/ui-cited-answer.png``.
"""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from rag.quiet import QUIET_ENV
from tests.conftest import CHROMIUM

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"

START_TIMEOUT_S = 240  # ingest (~20-30 s) plus model load and server start
ANSWER_TIMEOUT_MS = 120_000  # an answer takes ~1 s here; the margin is for a CI machine under load (one 60 s timeout seen)
XSS_QUESTION = 'Which papers use <img src=x onerror="window.__xss=1"> for calibration?'

SERVER_SCRIPT = textwrap.dedent(
    """
    import sys
    from rag.pipeline import Pipeline
    from rag.settings import Settings
    from ui.app import launch

    settings = Settings(data_dir=sys.argv[1], seeds=[sys.argv[2]], backend="extractive")
    pipeline = Pipeline(settings)
    pipeline.ingest()
    pipeline.warm_up()
    launch(pipeline, host="127.0.0.1", port=int(sys.argv[3]),
           ready_callback=lambda url: print("READY " + url, flush=True))
    """
)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    """The app on loopback, over a real index built into a temporary data dir; stopped after the module."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    data_dir = tmp_path_factory.mktemp("ui-data")
    port = _free_port()
    env = dict(os.environ)
    env.update(
        RAG_BACKEND="extractive",
        OLLAMA_HOST="http://127.0.0.1:9",  # nothing listens there: the status must not depend on this machine
        **QUIET_ENV,
        PYTHONUNBUFFERED="1",
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER_SCRIPT, str(data_dir), str(REPO / "seeds"), str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    log: list[str] = []

    def pump() -> None:
        for line in proc.stdout:
            log.append(line)
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT_S
    url = None
    try:
        while url is None:
            if proc.poll() is not None:
                time.sleep(0.2)
                pytest.fail("the UI server exited before it was ready:\n" + "".join(log[-60:]))
            if time.monotonic() > deadline:
                pytest.fail(f"the UI server was not ready after {START_TIMEOUT_S} s:\n" + "".join(log[-60:]))
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                continue
            if line.startswith("READY "):
                url = line.split(" ", 1)[1].strip()
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
        print("".join(log[-30:]))


@pytest.fixture
def page(browser, server_url):
    """A fresh page (own session) with the app loaded; records dialogs and script errors."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.dialogs = []
    pg.page_errors = []

    def on_dialog(dialog):
        pg.dialogs.append(dialog.message)
        dialog.dismiss()

    pg.on("dialog", on_dialog)
    pg.on("pageerror", lambda exc: pg.page_errors.append(str(exc)))
    pg.goto(server_url)
    pg.wait_for_selector("#rag-question textarea", timeout=30_000)
    yield pg
    context.close()


def ask(pg, question: str, answers_before: int = 0) -> None:
    """Type a question, press Enter, and wait for the final (verified, non-streaming) answer to replace the stream."""
    pg.fill("#rag-question textarea", question)
    pg.press("#rag-question textarea", "Enter")
    pg.wait_for_function(
        "n => document.querySelectorAll('#rag-chat .rag-answer:not(.rag-streaming)').length > n",
        arg=answers_before,
        timeout=ANSWER_TIMEOUT_MS,
    )


def last_answer(pg):
    return pg.locator("#rag-chat .rag-answer:not(.rag-streaming)").last


def test_cited_answer_chip_opens_highlighted_evidence(page):
    ask(page, "How many CRISPR screens does AssayBench use?")
    answer = last_answer(page)
    assert "1,920" in answer.inner_text()
    chip = answer.locator("a.rag-chip").first
    chip.wait_for(state="visible")
    number = chip.inner_text().strip("[] \n")
    assert number.isdigit()

    # The sources panel lists the cited abstract with its ID and file locations.
    sources = page.locator("#rag-sources")
    assert "assaybench-" in sources.inner_text() and ".txt #" in sources.inner_text()

    chip.click()
    mark = page.locator("#rag-evidence article mark.rag-evidence:not(.rag-evidence-note mark)").first
    mark.wait_for(state="visible", timeout=15_000)
    assert "1,920" in mark.inner_text() and "CRISPR" in mark.inner_text()
    evidence = page.locator("#rag-evidence")
    assert "AssayBench" in evidence.locator(".rag-abstract-title").inner_text()
    assert number in evidence.locator(".rag-num").first.inner_text()
    # The whole abstract is shown, not just the evidence.
    assert len(evidence.locator(".rag-abstract-text").inner_text()) > len(mark.inner_text()) + 200

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui-cited-answer.png"), full_page=True)
    assert page.page_errors == []


def test_source_entry_opens_the_abstract(page):
    ask(page, "Which papers study LLM calibration?")
    link = page.locator("#rag-sources a.rag-source-link").first
    link.wait_for(state="visible")
    label = link.locator(".rag-source-label").inner_text()
    link.click()
    page.wait_for_function(
        "label => { const t = document.querySelector('#rag-evidence .rag-abstract-title'); "
        "return t && t.innerText.includes(label); }",
        arg=label,
        timeout=15_000,
    )
    assert page.locator("#rag-evidence article mark.rag-evidence").count() >= 1


def test_status_says_answers_are_extractive(page):
    status = page.locator("#rag-status")
    page.wait_for_function("document.querySelector('#rag-status .rag-hint') !== null", timeout=15_000)
    assert "extractive" in status.inner_text().lower()
    ask(page, "Which papers study LLM calibration?")
    page.wait_for_function("document.querySelector('#rag-status').innerText.includes('Last answer')")
    assert "extractive" in status.inner_text().lower()
    page.get_by_text("Answer details").click()
    details = page.locator("table.rag-details")
    details.wait_for(state="visible")
    assert "Retrieval" in details.inner_text() and "Verification" in details.inner_text()


def test_follow_up_and_clear(page):
    ask(page, "How many CRISPR screens does AssayBench use?")
    ask(page, "What metric does it introduce?", answers_before=1)
    assert page.locator("#rag-chat .rag-answer:not(.rag-streaming)").count() == 2
    assert page.locator("#rag-chat .rag-error").count() == 0
    # Chips of an earlier answer still open their evidence.
    page.locator("#rag-chat .rag-answer").first.locator("a.rag-chip").first.click()
    page.wait_for_function(
        "() => { const m = document.querySelector('#rag-evidence .rag-abstract-text mark'); "
        "return m && m.innerText.includes('1,920'); }",
        timeout=15_000,
    )
    # "anything similar?" lists other papers (the UI sends each answer's sources back with the history)
    ask(page, "Anything similar?", answers_before=2)
    similar = last_answer(page).inner_text()
    assert "closest to" in similar and "AssayBench" in similar.split("closest to")[1].split("\n")[0]
    assert last_answer(page).locator("li").count() == 3
    page.click("#rag-clear")
    page.wait_for_function("document.querySelectorAll('#rag-chat .rag-answer').length === 0", timeout=10_000)
    assert "appear here" in page.locator("#rag-sources").inner_text()


def test_example_button_asks_its_question(page):
    page.get_by_role("button", name="Which papers study LLM calibration?").click()
    page.wait_for_selector("#rag-chat .rag-answer:not(.rag-streaming)", timeout=ANSWER_TIMEOUT_MS)
    assert "Which papers study LLM calibration?" in page.locator("#rag-chat .rag-question").first.inner_text()


def test_markup_in_a_question_runs_no_script(page):
    ask(page, XSS_QUESTION)
    page.wait_for_timeout(500)  # give an injected onerror handler every chance to run
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.dialogs == []
    assert page.locator("#rag-chat img").count() == 0
    shown = page.locator("#rag-chat .rag-question").last.inner_text()
    assert '<img src=x onerror="window.__xss=1">' in shown  # shown as text, literally
    assert page.page_errors == []


def test_browse_filters_and_shows_a_whole_abstract(page):
    page.get_by_role("tab", name="Browse").click()
    page.wait_for_selector("#rag-browse-list a.rag-browse-item", timeout=15_000)
    total = page.locator("#rag-browse-list a.rag-browse-item").count()
    assert total > 10
    page.fill("#rag-browse-query textarea", "AssayBench CRISPR")
    page.wait_for_function(
        "n => document.querySelectorAll('#rag-browse-list a.rag-browse-item').length < n", arg=total, timeout=10_000
    )
    item = page.locator("#rag-browse-list a.rag-browse-item").first
    assert "assaybench-" in item.inner_text()
    item.click()
    view = page.locator("#rag-browse-view article")
    view.wait_for(state="visible", timeout=10_000)
    assert "1,920 publicly available CRISPR screens" in view.inner_text()
    assert ".txt #" in view.inner_text()


def test_chips_work_after_switching_tabs(page):
    page.get_by_role("tab", name="Browse").click()
    page.wait_for_selector("#rag-browse-list a.rag-browse-item", timeout=15_000)
    page.get_by_role("tab", name="Chat").click()
    ask(page, "How many CRISPR screens does AssayBench use?")
    last_answer(page).locator("a.rag-chip").first.click()
    page.locator("#rag-evidence .rag-abstract-text mark.rag-evidence").first.wait_for(state="visible", timeout=15_000)
    assert page.page_errors == []


def test_no_file_outside_the_app_is_served(server_url):
    for path in [
        "gradio_api/file=pyproject.toml",
        f"gradio_api/file={REPO / 'pyproject.toml'}",
        "gradio_api/file=/etc/passwd",
        "file=pyproject.toml",
    ]:
        try:
            with urllib.request.urlopen(server_url.rstrip("/") + "/" + path, timeout=10) as response:
                body = response.read()
                status = response.status
        except urllib.error.HTTPError as exc:
            status, body = exc.code, b""
        assert status != 200 or b"[build-system]" not in body and b"root:" not in body, path


def test_browse_tolerates_typos_highlights_matches_and_clears_the_footer(page):
    page.get_by_role("tab", name="Browse").click()
    page.wait_for_selector("#rag-browse-list a.rag-browse-item", timeout=15_000)
    page.fill("#rag-browse-query textarea", "calibraton")  # typo for "calibration"
    page.wait_for_function(
        "() => document.querySelector('#rag-browse-list mark.rag-hit') !== null"
        " && document.querySelector('#rag-browse-list .rag-meta').innerText.includes(' of ')",
        timeout=10_000,
    )
    hits = page.locator("#rag-browse-list mark.rag-hit")
    assert hits.first.inner_text().lower().startswith("calibrat")
    # Gradio's footer (Settings) sits below the list and the abstract, never over them.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    footer = page.locator("footer").last.bounding_box()
    for selector in ("#rag-browse-list", "#rag-browse-view"):
        box = page.locator(selector).bounding_box()
        assert box["y"] + box["height"] <= footer["y"] + 1, (selector, box, footer)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ui-browse-typo-real.png"), full_page=True)


def test_ask_about_this_paper_starts_a_chat_about_it(page):
    page.get_by_role("tab", name="Browse").click()
    page.wait_for_selector("#rag-browse-list a.rag-browse-item", timeout=15_000)
    page.fill("#rag-browse-query textarea", "AssayBench CRISPR")
    page.wait_for_function(
        "() => document.querySelector('#rag-browse-list a.rag-browse-item code').innerText.startsWith('assaybench-')",
        timeout=10_000,
    )
    page.locator("#rag-browse-list a.rag-browse-item").first.click()
    page.locator("#rag-browse-ask").wait_for(state="visible", timeout=10_000)
    page.click("#rag-browse-ask")
    page.wait_for_selector("#rag-chat .rag-answer:not(.rag-streaming)", timeout=ANSWER_TIMEOUT_MS)
    assert "AssayBench" in page.locator("#rag-question-note").inner_text()
    # The engine read "this paper" as AssayBench: the answer cites it.
    assert "assaybench-" in page.locator("#rag-sources").inner_text()
    assert page.page_errors == []


def test_reload_keeps_the_chat_and_its_chips(page):
    ask(page, "How many CRISPR screens does AssayBench use?")
    page.wait_for_function(
        "() => (document.querySelector('#rag-chats') || {}).textContent?.includes('1 question')", timeout=15_000
    )
    page.reload()
    page.wait_for_selector("#rag-chat .rag-answer", timeout=30_000)
    assert "1,920" in last_answer(page).inner_text()
    last_answer(page).locator("a.rag-chip").first.click()
    mark = page.locator("#rag-evidence .rag-abstract-text mark.rag-evidence").first
    mark.wait_for(state="visible", timeout=15_000)
    assert "1,920" in mark.inner_text()
