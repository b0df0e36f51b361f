"""Security: hostile markup stays inert in a real browser, the UI is never opened to a network by accident, a
password really keeps strangers out, Gradio's file routes serve nothing of ours, and no message shows a secret or an
absolute path.

The served app is the real `rag ui` command in a subprocess (loopback, a free port, a password), over an index of a
tiny seed folder whose first abstract is made of markup and script.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from rag.cli import main as rag_main
from rag.pipeline import Pipeline
from rag.quiet import QUIET_ENV
from rag.settings import Settings
from ui import render
from ui.app import UiCallbacks, allowed_hosts, check_host, is_loopback

REPO = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 180
NOBODY_LISTENS = "http://127.0.0.1:9"

USER, PASSWORD = "alice", "correct-horse-battery-staple"
CHROMA_TOKEN = "sekrit-chroma-token-7f3a"

HOSTILE = (
    "We introduce PwnBench, a benchmark for checking that markup in abstracts stays inert: "
    '<script>window.__pwn=1</script> and <img src=x onerror="window.__pwn=2"> must show as text. '
    'PwnBench contains 42 hostile snippets such as <svg onload="window.__pwn=3"></svg> and '
    '<a href="javascript:window.__pwn=4">a link</a>, plus <iframe src="javascript:window.__pwn=5"></iframe>.'
)
TINY_SEEDS = {
    "000_security.txt": "Security test abstracts\n\n"
    + HOSTILE
    + "\n\nWe present CalibraNet, a method for calibrating the confidence of large language models with 17 "
    "temperature schedules, evaluated on six question answering benchmarks.\n\n"
    "We propose FlowGrid, a flow matching approach for generating weather maps on a 0.25 degree grid, trained on "
    "40 years of reanalysis data.\n",
}
HOSTILE_Q = "How many hostile snippets does PwnBench contain?"
HOSTILE_QUESTION_MARKUP = HOSTILE_Q + ' <script>window.__pwn=6</script><img src=x onerror="window.__pwn=7">'


# ================================================================================================================
# A real `rag ui` in a subprocess (also used by tests/test_load.py)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ui_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAG_")}
    env.update(
        RAG_BACKEND="extractive",
        OLLAMA_HOST=NOBODY_LISTENS,  # the status line must not depend on this machine
        **QUIET_ENV,
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


class UiProcess:
    """`python -m rag.cli ui --port P --data-dir D` until stopped; ``url`` once it printed that it is ready."""

    def __init__(self, data_dir: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.log: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rag.cli", "ui", "--port", str(self.port), "--data-dir", str(data_dir)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()

        def pump() -> None:
            for line in self.proc.stdout:
                self.log.append(line)
                lines.put(line)

        threading.Thread(target=pump, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        self.url = ""
        while not self.url:
            if self.proc.poll() is not None:
                time.sleep(0.2)
                self.stop()
                pytest.fail("the UI exited before it was ready:\n" + "".join(self.log[-40:]))
            if time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"the UI was not ready after {START_TIMEOUT_S} s:\n" + "".join(self.log[-40:]))
            with contextlib.suppress(queue.Empty):
                match = re.search(r"Ready in .*?: open (http://\S+)", lines.get(timeout=0.5))
                if match:
                    self.url = match.group(1).rstrip("/") + "/"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)


def http_get(url: str, cookie: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def http_post(url: str, data: bytes, content_type: str, cookie: str | None = None) -> tuple[int, bytes, list[str]]:
    headers = {"Content-Type": content_type}
    if cookie:
        headers["Cookie"] = cookie
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, response.read(), response.headers.get_all("Set-Cookie") or []
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), []


def login(url: str, user: str = USER, password: str = PASSWORD) -> tuple[int, str | None]:
    """POST the login form; the session cookie on success."""
    form = urllib.parse.urlencode({"username": user, "password": password}).encode()
    status, _, cookies = http_post(url + "login", form, "application/x-www-form-urlencoded")
    jar = "; ".join(c.split(";", 1)[0] for c in cookies)
    return status, jar or None


# ================================================================================================================
# The served app over hostile seeds


@pytest.fixture(scope="module")
def hostile_seeds(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile-seeds")
    for name, text in TINY_SEEDS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def hostile_index(hostile_seeds, tmp_path_factory, embedder) -> Pipeline:
    settings = Settings(data_dir=tmp_path_factory.mktemp("hostile-data"), seeds=[hostile_seeds],
                        backend="extractive", chroma_host=None)  # fmt: skip
    pipeline = Pipeline(settings, embedder=embedder)
    pipeline.ingest()
    return pipeline


@pytest.fixture(scope="module")
def app(hostile_index, hostile_seeds):
    """The real `rag ui`, password-protected, on loopback, over the hostile index."""
    server = UiProcess(
        hostile_index.settings.data_dir,
        ui_env(RAG_SEEDS=str(hostile_seeds), RAG_UI_AUTH=f"{USER}:{PASSWORD}", RAG_CHROMA_TOKEN=CHROMA_TOKEN),
    )
    try:
        yield server
    finally:
        server.stop()
        output = "".join(server.log)
        assert PASSWORD not in output and CHROMA_TOKEN not in output, "the server log shows a secret"


@pytest.fixture(scope="module")
def session_cookie(app) -> str:
    status, cookie = login(app.url)
    assert status == 200 and cookie
    return cookie


# --- authentication ---


@pytest.mark.slow
@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", "config"),
        ("GET", "gradio_api/info"),
        ("GET", "gradio_api/openapi.json"),
        ("GET", "gradio_api/queue/status"),
        ("GET", "gradio_api/file=/etc/passwd"),
        ("POST", "gradio_api/queue/join"),
        ("POST", "gradio_api/call/ask"),
        ("POST", "gradio_api/upload"),
    ],
)
def test_strangers_get_nothing_without_the_password(app, method, path):
    if method == "GET":
        status, body = http_get(app.url + path)
    else:
        payload = b'{"data": ["' + HOSTILE_Q.encode() + b'", [], null], "fn_index": 0, "session_hash": "x"}'
        status, body, _ = http_post(app.url + path, payload, "application/json")
    assert status == 401, (status, body[:200])
    assert b"PwnBench" not in body


@pytest.mark.slow
def test_wrong_password_is_refused(app):
    status, cookie = login(app.url, password="not-the-password")
    assert status != 200 and cookie is None
    status, cookie = login(app.url, user="mallory")
    assert status != 200 and cookie is None


@pytest.mark.slow
def test_gradio_client_needs_the_password_and_then_answers(app):
    from gradio_client import Client

    with pytest.raises(Exception, match="(?i)login|credentials|auth"):
        Client(app.url, verbose=False)
    client = Client(app.url, auth=(USER, PASSWORD), verbose=False)
    # The chat event is the one named endpoint; the page's helper events are not advertised.
    assert set(client.view_api(return_format="dict", print_info=False)["named_endpoints"]) == {"/ask"}
    chat = client.predict(HOSTILE_Q, [], None, api_name="/ask")[0]
    assert "42 hostile snippets" in chat[-1]["content"][0]["text"]


@pytest.mark.slow
def test_pages_hold_no_secret(app, session_cookie):
    for path in ("", "config", "gradio_api/info"):
        status, body = http_get(app.url + path, session_cookie)
        assert status == 200, path
        assert PASSWORD.encode() not in body and CHROMA_TOKEN.encode() not in body, path


# --- Gradio's file routes ---

PASSWD = "/etc/passwd"


def _traversal_paths(seed_file: Path, manifest: Path) -> list[str]:
    seed = str(seed_file)
    rel_seed = os.path.relpath(seed_file, REPO)
    return [
        f"file={PASSWD}",
        f"gradio_api/file={PASSWD}",
        "gradio_api/file=../../../../../../etc/passwd",
        "gradio_api/file=..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "gradio_api/file=%2Fetc%2Fpasswd",
        "gradio_api/file=%252Fetc%252Fpasswd",
        "gradio_api/file=%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "gradio_api/file=....//....//....//....//etc/passwd",
        "gradio_api/file%3D%2Fetc%2Fpasswd",
        "gradio_api/file/etc/passwd",
        "gradio_api/file/..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "static/../../../../../../etc/passwd",
        "static/..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "assets/..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "gradio_api/static/..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        f"file={seed}",
        f"gradio_api/file={seed}",
        f"gradio_api/file={urllib.parse.quote(seed, safe='')}",
        f"file={rel_seed}",
        f"gradio_api/file={rel_seed}",
        "gradio_api/file=seeds/000_624d62ebc0277d3c.txt",
        "gradio_api/file=pyproject.toml",
        f"gradio_api/file={REPO / 'pyproject.toml'}",
        f"gradio_api/file={manifest}",
        f"gradio_api/file={urllib.parse.quote(str(manifest))}",
        f"gradio_api/proxy=file://{PASSWD}",
        "gradio_api/proxy=http://127.0.0.1:9/",
    ]


def _leaks(body: bytes, manifest: Path) -> bool:
    """Does a response carry any file of ours (or the machine's)?"""
    markers = [b"root:x:0:0", b"PwnBench contains 42", b"[build-system]", manifest.read_bytes()[:60]]
    markers += [path.read_bytes()[:60] for path in sorted((REPO / "seeds").glob("*.txt"))]
    return any(marker in body for marker in markers)


@pytest.mark.slow
@pytest.mark.parametrize("signed_in", [False, True], ids=["stranger", "signed-in"])
def test_file_routes_serve_nothing_of_ours(app, hostile_index, hostile_seeds, session_cookie, signed_in):
    manifest = hostile_index.settings.index_dir / "manifest.json"
    cookie = session_cookie if signed_in else None
    for path in _traversal_paths(hostile_seeds / "000_security.txt", manifest):
        status, body = _raw_get(app.port, "/" + path, cookie)
        assert not (status == 200 and _leaks(body, manifest)), (path, status, body[:200])
        if not signed_in:
            assert status != 200, (path, status)


def _raw_get(port: int, path: str, cookie: str | None) -> tuple[int, bytes]:
    """GET with the path exactly as written (urllib would normalise '..' and encodings)."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
        if cookie:
            head += f"Cookie: {cookie}\r\n"
        sock.sendall((head + "\r\n").encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


# --- hostile markup in a real browser ---


@pytest.fixture
def page(browser, app):
    """A signed-in page; records dialogs, script errors and any request that leaves for an injected URL."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    status = context.request.post(app.url + "login", form={"username": USER, "password": PASSWORD}).status
    assert status == 200
    pg = context.new_page()
    pg.dialogs, pg.page_errors, pg.injected_requests = [], [], []

    def on_dialog(dialog):
        pg.dialogs.append(dialog.message)
        dialog.dismiss()

    pg.on("dialog", on_dialog)
    pg.on("pageerror", lambda exc: pg.page_errors.append(str(exc)))
    pg.on("request", lambda r: pg.injected_requests.append(r.url) if re.search(r"/x$|javascript:", r.url) else None)
    pg.goto(app.url)
    pg.wait_for_selector("#rag-question textarea", timeout=30_000)
    yield pg
    context.close()


INJECTED = """() => ({
  pwn: typeof window.__pwn,
  scripts: document.querySelectorAll('#rag-chat script, #rag-evidence script, #rag-sources script, '
                                     + '#rag-browse-list script, #rag-browse-view script').length,
  imgs: document.querySelectorAll('img[src="x"], img[onerror]').length,
  svgs: document.querySelectorAll('svg[onload]').length,
  iframes: document.querySelectorAll('iframe').length,
  jsLinks: document.querySelectorAll('a[href^="javascript:"]').length,
  handlers: Array.from(document.querySelectorAll('#rag-chat *, #rag-evidence *, #rag-browse-view *, #rag-browse-list *'))
    .filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
})"""
INERT = {"pwn": "undefined", "scripts": 0, "imgs": 0, "svgs": 0, "iframes": 0, "jsLinks": 0, "handlers": 0}


def assert_inert(pg) -> None:
    pg.wait_for_timeout(400)  # give an injected handler every chance to run
    assert pg.evaluate(INJECTED) == INERT
    assert pg.dialogs == [] and pg.page_errors == [] and pg.injected_requests == []


def ask(pg, question: str) -> None:
    before = pg.locator("#rag-chat .rag-answer:not(.rag-streaming)").count()
    pg.fill("#rag-question textarea", question)
    pg.press("#rag-question textarea", "Enter")
    pg.wait_for_function(
        "n => document.querySelectorAll('#rag-chat .rag-answer:not(.rag-streaming)').length > n",
        arg=before,
        timeout=60_000,
    )


@pytest.mark.slow
@pytest.mark.browser
def test_hostile_abstract_is_inert_in_answer_evidence_and_sources(page):
    ask(page, HOSTILE_Q)
    answer = page.locator("#rag-chat .rag-answer:not(.rag-streaming)").last
    assert "42 hostile snippets" in answer.inner_text()
    assert '<svg onload="window.__pwn=3"></svg>' in answer.inner_text()  # shown as text, literally
    assert_inert(page)

    answer.locator("a.rag-chip").first.click()
    text = page.locator("#rag-evidence .rag-abstract-text")
    text.wait_for(state="visible", timeout=15_000)
    shown = text.inner_text()
    assert "<script>window.__pwn=1</script>" in shown and '<img src=x onerror="window.__pwn=2">' in shown
    assert page.locator("#rag-evidence mark.rag-evidence").count() >= 1
    assert_inert(page)

    page.locator("#rag-sources a.rag-source-link").first.click()
    page.wait_for_timeout(300)
    assert "PwnBench" in page.locator("#rag-sources").inner_text()
    assert_inert(page)


@pytest.mark.slow
@pytest.mark.browser
def test_hostile_abstract_is_inert_in_browse(page):
    page.get_by_role("tab", name="Browse").click()
    page.wait_for_selector("#rag-browse-list a.rag-browse-item", timeout=15_000)
    assert "<script>" in page.locator("#rag-browse-list").inner_text()
    assert_inert(page)
    page.fill("#rag-browse-query textarea", "onerror")
    page.wait_for_function(
        "document.querySelectorAll('#rag-browse-list a.rag-browse-item').length === 1", timeout=10_000
    )
    page.locator("#rag-browse-list a.rag-browse-item").first.click()
    view = page.locator("#rag-browse-view article")
    view.wait_for(state="visible", timeout=10_000)
    assert '<a href="javascript:window.__pwn=4">a link</a>' in view.inner_text()
    assert_inert(page)


@pytest.mark.slow
@pytest.mark.browser
def test_hostile_question_is_inert(page):
    ask(page, HOSTILE_QUESTION_MARKUP)
    assert HOSTILE_QUESTION_MARKUP in page.locator("#rag-chat .rag-question").last.inner_text()
    assert "42 hostile snippets" in page.locator("#rag-chat .rag-answer").last.inner_text()
    assert_inert(page)


# ================================================================================================================
# Binding: never open to a network by accident


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.5"])
def test_loopback_needs_no_password(host):
    assert is_loopback(host)
    check_host(host, None, False)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "10.0.0.1", "example.org", ""])
def test_network_bind_needs_a_password_or_insecure(host):
    assert not is_loopback(host)
    with pytest.raises(ValueError, match="without a password"):
        check_host(host, None, False)
    check_host(host, (USER, PASSWORD), False)
    check_host(host, None, True)


# DNS rebinding: a page whose domain resolves to 127.0.0.1 sends its own name as Host


@pytest.mark.parametrize(
    "bind, extra, expected",
    [
        ("127.0.0.1", [], ["localhost", "127.0.0.1", "[::1]"]),
        ("::1", [], ["localhost", "127.0.0.1", "[::1]"]),
        ("127.0.0.5", ["Notes.Example.org"], ["localhost", "127.0.0.1", "[::1]", "127.0.0.5", "notes.example.org"]),
        ("10.1.2.3", [], ["localhost", "127.0.0.1", "[::1]", "10.1.2.3"]),
        ("0.0.0.0", [], ["*"]),
        ("::", ["proxy.example"], ["localhost", "127.0.0.1", "[::1]", "proxy.example"]),
    ],
)
def test_allowed_hosts_are_loopback_names_the_bound_address_and_the_configured_ones(bind, extra, expected):
    assert allowed_hosts(bind, extra) == expected


@pytest.mark.parametrize("name", ["http://x.org", "x.org:443", "x.org/path", "a*b.org", "*x.org", "", "u@x.org"])
def test_allowed_host_setting_refuses_what_is_not_a_host_name(name):
    with pytest.raises(ValueError, match="not a host name"):
        Settings(ui_allowed_hosts=[name])


def test_allowed_host_setting_reads_a_comma_separated_list(monkeypatch):
    monkeypatch.setenv("RAG_UI_ALLOWED_HOSTS", "notes.example.org, *.lab.example ,[fe80::1]")
    assert Settings().ui_allowed_hosts == ["notes.example.org", "*.lab.example", "[fe80::1]"]


def _request_with_host(port: int, method: str, path: str, host: str, body: bytes = b"") -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
        if body:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        sock.sendall((head + "\r\n").encode() + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, payload = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), payload


@pytest.fixture(scope="module")
def open_loopback_app(hostile_index, hostile_seeds):
    """The real `rag ui` on loopback without a password (the default), with one extra allowed name."""
    server = UiProcess(
        hostile_index.settings.data_dir,
        ui_env(RAG_SEEDS=str(hostile_seeds), RAG_UI_ALLOWED_HOSTS="notes.example.org"),
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.slow
@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example", "localhost.evil"])
@pytest.mark.parametrize(
    "method, path", [("GET", "/"), ("GET", "/config"), ("GET", "/gradio_api/info"), ("POST", "/gradio_api/call/ask")]
)
def test_a_rebound_host_name_gets_nothing_from_the_loopback_ui(open_loopback_app, host, method, path):
    port = open_loopback_app.port
    body = b'{"data": ["' + HOSTILE_Q.encode() + b'", [], null]}' if method == "POST" else b""
    status, payload = _request_with_host(port, method, path, host.format(port=port), body)
    assert status == 400, (status, payload[:200])
    assert b"PwnBench" not in payload and b"components" not in payload


@pytest.mark.slow
@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "notes.example.org"])
def test_loopback_names_and_configured_names_are_served(open_loopback_app, host):
    port = open_loopback_app.port
    status, payload = _request_with_host(port, "GET", "/config", host.format(port=port))
    assert status == 200, (status, payload[:200])
    assert b"components" in payload


@pytest.fixture()
def no_serving(monkeypatch):
    """Records launch() calls instead of serving; fails the test if the index or the model is touched first."""
    launched: list[dict] = []

    def forbidden(*args, **kwargs):
        raise AssertionError("slow work started before the bind was checked")

    monkeypatch.setattr("ui.app.launch", lambda pipeline, **kw: launched.append(kw))
    monkeypatch.setattr(Pipeline, "ingest", forbidden)
    monkeypatch.setattr(Pipeline, "warm_up", forbidden)
    for name in ("RAG_UI_AUTH", "RAG_UI_HOST", "RAG_CHROMA_HOST"):
        monkeypatch.delenv(name, raising=False)
    return launched


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20"])
def test_cli_refuses_network_bind_before_binding(tmp_path, capsys, no_serving, host):
    code = rag_main(["ui", "--host", host, "--data-dir", str(tmp_path / "no-index-yet")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "Refusing to serve the UI" in err and "RAG_UI_AUTH" in err and "--insecure" in err
    assert no_serving == []


@pytest.mark.parametrize("auth", ["alice:", ":secret", ":"])
def test_cli_refuses_empty_user_or_password(tmp_path, capsys, monkeypatch, no_serving, auth):
    monkeypatch.setenv("RAG_UI_AUTH", auth)
    code = rag_main(["ui", "--host", "0.0.0.0", "--data-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "non-empty" in err
    assert no_serving == []


def test_cli_network_bind_with_password_or_insecure_proceeds(tmp_path, capsys, monkeypatch, no_serving):
    monkeypatch.setattr(Pipeline, "ingest", lambda self, *a, **k: None)  # what comes after the check is not
    monkeypatch.setattr(Pipeline, "warm_up", lambda self: 0.0)  # under test here
    monkeypatch.setattr("rag.manifest.load_manifest", lambda *a: None)
    monkeypatch.setenv("RAG_UI_AUTH", f"{USER}:{PASSWORD}")
    assert rag_main(["ui", "--host", "0.0.0.0", "--data-dir", str(tmp_path)]) == 0
    monkeypatch.delenv("RAG_UI_AUTH")
    assert rag_main(["ui", "--host", "0.0.0.0", "--insecure", "--data-dir", str(tmp_path)]) == 0
    assert [(c["host"], c["auth"], c["insecure"]) for c in no_serving] == [
        ("0.0.0.0", (USER, PASSWORD), False),
        ("0.0.0.0", None, True),
    ]
    assert PASSWORD not in capsys.readouterr().err


# ================================================================================================================
# Messages never show a secret or an absolute path


@pytest.fixture()
def secrets_set(monkeypatch):
    monkeypatch.setenv("RAG_CHROMA_TOKEN", CHROMA_TOKEN)
    monkeypatch.setenv("RAG_UI_AUTH", f"{USER}:{PASSWORD}")
    monkeypatch.setenv("OLLAMA_HOST", NOBODY_LISTENS)
    for name in ("RAG_CHROMA_HOST", "RAG_DATA_DIR", "RAG_TOP_K", "RAG_BACKEND"):
        monkeypatch.delenv(name, raising=False)


def assert_discreet(text: str, *paths: Path) -> None:
    assert PASSWORD not in text and CHROMA_TOKEN not in text, text
    for path in paths:
        assert str(path) not in text, text
    assert "Traceback" not in text


def _damage_index(data_dir: Path) -> None:
    (data_dir / "chroma" / "chroma.sqlite3").write_bytes(b"garbage " * 2048)


def _drop_vectors(data_dir: Path) -> None:
    for path in data_dir.glob("indexes/*/sentences-*.npy"):
        path.unlink()


CLI_ERRORS = {
    "chroma-server-down": (["ingest"], {"RAG_CHROMA_HOST": "127.0.0.1", "RAG_CHROMA_PORT": "9"}),
    "index-not-built": (["search", HOSTILE_Q], {}),
    "index-corrupted": (["search", HOSTILE_Q], {}),
    "sentence-vectors-missing": (["ask", HOSTILE_Q], {}),
    "invalid-setting": (["search", HOSTILE_Q], {"RAG_TOP_K": "-1"}),
    "invalid-ui-auth": (["ui"], {"RAG_UI_AUTH": PASSWORD}),
    "unexpected-error": (["search", HOSTILE_Q], {}),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", CLI_ERRORS)
def test_cli_errors_show_no_secret_or_path(
    hostile_index, hostile_seeds, tmp_path, capsys, monkeypatch, secrets_set, embedder, case
):
    argv, env = CLI_ERRORS[case]
    data_dir = tmp_path / "data"
    if case != "index-not-built":
        shutil.copytree(hostile_index.settings.data_dir, data_dir, ignore=shutil.ignore_patterns("ingest.lock"))
    if case == "index-corrupted":
        _damage_index(data_dir)
    if case == "sentence-vectors-missing":
        _drop_vectors(data_dir)
    if case == "unexpected-error":  # a bug whose exception text names a file and a secret
        secret_path = data_dir / "indexes" / CHROMA_TOKEN

        def bug(self, *a, **k):
            raise RuntimeError(f"cannot open {secret_path}")

        monkeypatch.setattr(Pipeline, "search", bug)
    monkeypatch.setattr("rag.pipeline.LocalSentenceEmbedding", lambda *a, **k: embedder)
    monkeypatch.setenv("RAG_SEEDS", str(hostile_seeds))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code = rag_main([*argv, "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert code in (1, 2) and err.startswith("error: "), err
    assert_discreet(out + err, data_dir, tmp_path, hostile_seeds)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["index-not-built", "index-corrupted", "sentence-vectors-missing", "unexpected-error"])
def test_ui_errors_show_no_secret_or_path(hostile_index, tmp_path, monkeypatch, secrets_set, embedder, case):
    data_dir = tmp_path / "data"
    if case != "index-not-built":
        shutil.copytree(hostile_index.settings.data_dir, data_dir, ignore=shutil.ignore_patterns("ingest.lock"))
    if case == "index-corrupted":
        _damage_index(data_dir)
    if case == "sentence-vectors-missing":
        _drop_vectors(data_dir)
    pipeline = Pipeline(Settings(data_dir=data_dir, backend="extractive", chroma_host=None), embedder=embedder)
    if case == "unexpected-error":

        def bug(*a, **k):
            raise RuntimeError(f"cannot open {data_dir}/{CHROMA_TOKEN}")

        monkeypatch.setattr(pipeline, "stream", bug)
    warnings: list[str] = []
    monkeypatch.setattr("gradio.Warning", lambda message="", *a, **k: warnings.append(str(message)))
    cb = UiCallbacks(pipeline)
    updates = list(cb.respond(HOSTILE_Q, [], []))
    shown = updates[-1][0][-1]["content"]
    assert "rag-error" in shown
    assert_discreet(shown + " ".join(warnings), data_dir, tmp_path)
    for html in (cb.list_abstracts(""), cb.evidence_html("#cite:1:pwnbench-0000:"), cb.abstract_html("#abstract:x")):
        assert_discreet(html, data_dir, tmp_path)


def test_rendering_escapes_every_hostile_field():
    """The pure renderer, for every place an abstract's text, label or ID can appear."""
    from rag.corpus import Abstract, Location

    hostile_label = '<img src=x onerror="window.__pwn=9">'
    abstract = Abstract("pwn-0000", hostile_label, HOSTILE, (Location("<b>x</b>.txt", 1),), "0" * 64)
    pieces = [
        render.render_abstract(abstract, [(0, 40)], number=1),
        render.render_abstract_list([abstract], "script"),
        render.render_user(HOSTILE_QUESTION_MARKUP),
        render.render_streaming(HOSTILE),
        render.render_error(HOSTILE),
        render.render_message(HOSTILE),
    ]
    for piece in pieces:
        assert "<script" not in piece and "<img" not in piece and "<svg" not in piece and "<iframe" not in piece
        assert 'href="javascript:' not in piece and "<b>" not in piece
