"""The Gradio UI: a thin adapter over :class:`rag.pipeline.Pipeline`.

``build_app(pipeline)`` returns the Blocks (nothing is launched); ``launch(pipeline, ...)`` serves it on loopback
(or elsewhere only with a password or an explicit ``insecure=True``), with the queue sized for a small machine.

Citation clicks: chips and source entries are links whose ``href`` is ``#cite:<n>:<abstract id>:<spans>``
(see ``ui.render``). The evidence panel is a ``gr.HTML`` whose ``js_on_load`` (:data:`PAGE_JS`, the page's only
script of its own) installs one click listener on the document; a click on such a link calls the panel's
``trigger('click', {ref})``, and the panel's ``.click`` event renders the abstract with the evidence highlighted.
The same listener handles each answer's Copy and Markdown links (in the browser, from hidden text in the answer)
and each question's Edit link (through the question note's ``trigger``). The Browse list does the same with
``#abstract:<id>`` links inside its own element.

Everything else is Gradio's own: the chat's retry button regenerates, a Stop button cancels the answering event,
``gr.BrowserState`` keeps saved chats in the browser (``ui.chats``), ``gr.Sidebar`` lists them.
"""

from __future__ import annotations

import logging
import re
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gradio as gr

from rag.answer import Answer, BackendStatus, TextDelta
from rag.errors import RagError

from . import chats, export, render
from .net import check_host, is_loopback, port_in_use  # noqa: F401 - also this module's API

log = logging.getLogger(__name__)

TITLE = "NeurIPS 2026 abstracts · research assistant"

QUESTION_PLACEHOLDER = "Ask about the abstracts…  (Enter to send)"
LOADING_PLACEHOLDER = "Loading your saved chats…"
EXAMPLES = [
    "Which papers study LLM calibration?",
    "How many CRISPR screens does AssayBench use?",
    "Which papers propose new benchmarks for scientific reasoning?",
    "What methods handle informative censoring in survival analysis?",
]

PLACEHOLDER = (
    '<div class="rag-placeholder"><strong>Ask about the NeurIPS 2026 abstracts</strong>'
    "Every sentence of an answer cites the abstracts it comes from. Click a citation to read the abstract with "
    "the supporting sentence highlighted.</div>"
)

# ~20 people chatting on a 2-core machine: answers run a few at a time (retrieval is CPU-bound; Ollama serves
# one or a few generations at once anyway) and everyone else waits in the queue with their position shown.
# Cheap events (evidence, browse, status) do not count against that limit.
CHAT_CONCURRENCY = 4
QUEUE_MAX_SIZE = 64
MAX_HISTORY_MESSAGES = 40  # the engine gets at most the last 20 turns
STREAM_MIN_INTERVAL_S = 0.05  # at most ~20 screen updates a second while text streams in

_GENERIC_ERROR = "Something went wrong while answering. Please try again; if it keeps happening, check the server log."

# The page's one script, installed once by the evidence panel (see the module docstring). One delegated click
# listener on the document handles what Gradio's own events cannot see inside chat messages:
#   #cite:...   a citation chip or source -> the evidence panel's `trigger` (on a narrow screen the panel opens as a
#               full-screen drawer over the chat; "Back to the chat" or Escape closes it and shows the chip again)
#   #copy       an answer's Copy link -> its Markdown (kept in a hidden <pre> of the answer) to the clipboard
#   #save:name  an answer's Markdown link -> that Markdown, with BibTeX, downloaded as a file (made in the browser)
#   #edit:n     a question's Edit link -> the question note's `trigger`, which puts the question back in the box
# and, after each new abstract, scrolls its highlighted sentence into view; on a phone, picking a saved chat closes
# the sidebar that covers the screen.
PAGE_JS = """
window.__ragCiteTrigger = trigger;
if (!window.__ragPageListener) {
  window.__ragPageListener = true;
  var narrow = function () { return window.matchMedia('(max-width: 640px)').matches; };
  var closeDrawer = function () {
    var panel = document.getElementById('rag-evidence');
    if (!panel || !panel.classList.contains('rag-drawer-open')) return;
    panel.classList.remove('rag-drawer-open');
    document.body.style.overflow = '';
    var chip = window.__ragLastChip;
    if (chip && chip.isConnected && chip.scrollIntoView) chip.scrollIntoView({block: 'center'});
  };
  var copyText = function (text, done) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { legacyCopy(text); done(); });
    } else { legacyCopy(text); done(); }
  };
  var legacyCopy = function (text) {
    var area = document.createElement('textarea');
    area.value = text; area.style.position = 'fixed'; area.style.opacity = '0';
    document.body.appendChild(area); area.select();
    try { document.execCommand('copy'); } catch (e) {}
    area.remove();
  };
  document.addEventListener('click', function (ev) {
    var t = ev.target && ev.target.closest ? ev.target : null;
    if (!t) return;
    var link = t.closest('a[href^="#cite:"]');
    if (link) {
      ev.preventDefault();
      ev.stopPropagation();
      document.querySelectorAll('.rag-active').forEach(function (e) { e.classList.remove('rag-active'); });
      link.classList.add('rag-active');
      window.__ragLastChip = link;
      var panel = document.getElementById('rag-evidence');
      if (narrow() && panel) { panel.classList.add('rag-drawer-open'); document.body.style.overflow = 'hidden'; }
      window.__ragCiteTrigger('click', {ref: link.getAttribute('href')});
      return;
    }
    if (t.closest('.rag-drawer-close')) { ev.preventDefault(); closeDrawer(); return; }
    var action = t.closest('a.rag-action');
    if (!action) return;
    var href = action.getAttribute('href') || '';
    var answer = action.closest('.rag-answer');
    if (href === '#copy' && answer) {
      ev.preventDefault(); ev.stopPropagation();
      var src = answer.querySelector('.rag-copy-src');
      copyText(src ? src.textContent : '', function () {
        action.textContent = 'Copied';
        setTimeout(function () { action.textContent = 'Copy'; }, 1500);
      });
    } else if (href.indexOf('#save:') === 0 && answer) {
      ev.preventDefault(); ev.stopPropagation();
      var file = answer.querySelector('.rag-file-src');
      var blob = new Blob([file ? file.textContent : ''], {type: 'text/markdown;charset=utf-8'});
      var a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = href.slice(6) || 'answer.md';
      document.body.appendChild(a); a.click(); a.remove();
      setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
    } else if (href.indexOf('#edit:') === 0 && window.__ragEditTrigger) {
      ev.preventDefault(); ev.stopPropagation();
      window.__ragEditTrigger('click', {ref: href});
    }
  }, true);
  document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') closeDrawer(); });
  // On a phone the saved-chats sidebar covers the screen: picking a chat closes it, to show that chat.
  document.addEventListener('change', function (ev) {
    if (!narrow() || !ev.target || !ev.target.closest || !ev.target.closest('#rag-chats')) return;
    var sidebar = ev.target.closest('.sidebar');
    var toggle = sidebar && sidebar.classList.contains('open') ? sidebar.querySelector('.toggle-button') : null;
    if (toggle) setTimeout(function () { toggle.click(); }, 150);
  }, true);
}
watch('value', function () {
  // Scroll the panel (not the page's hidden-overflow wrappers, which scrollIntoView would also move) so the
  // highlighted sentence sits in its middle, then the window only as far as needed to show it.
  var panel = document.getElementById('rag-evidence');
  var mark = element.querySelector('.rag-abstract-text mark.rag-evidence');
  if (!panel) return;
  if (!mark) { panel.scrollTop = 0; return; }
  var m = mark.getBoundingClientRect(), p = panel.getBoundingClientRect();
  panel.scrollTop += (m.top - p.top) - Math.max(0, (panel.clientHeight - m.height) / 2);
  if (panel.classList.contains('rag-drawer-open')) return;
  m = mark.getBoundingClientRect();
  if (m.bottom > window.innerHeight) window.scrollBy(0, m.bottom - window.innerHeight + 24);
  else if (m.top < 0) window.scrollBy(0, m.top - 24);
});
"""

EDIT_JS = "window.__ragEditTrigger = trigger;"

# Browse on a phone: the abstract opens below the list, so bring it to the top of the screen when it changes.
BROWSE_VIEW_JS = """
watch('value', function () {
  if (!window.matchMedia('(max-width: 640px)').matches || !element.querySelector('article')) return;
  requestAnimationFrame(function () {
    window.scrollTo(0, element.getBoundingClientRect().top + window.scrollY - 8);
  });
});
"""

BROWSE_JS = """
element.addEventListener('click', function (ev) {
  var link = ev.target && ev.target.closest ? ev.target.closest('a[href^="#abstract:"]') : null;
  if (!link) return;
  ev.preventDefault();
  element.querySelectorAll('.rag-active').forEach(function (e) { e.classList.remove('rag-active'); });
  link.classList.add('rag-active');
  trigger('click', {ref: link.getAttribute('href')});
});
"""

CSS = """
.gradio-container { max-width: 1400px !important; margin: 0 auto !important; }
#rag-header h1 { font-size: 1.35rem; margin: 0.2rem 0 0; }
#rag-header p { margin: 0.15rem 0 0; color: var(--body-text-color-subdued); font-size: 0.9rem; }

.rag-status { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.35rem 0.6rem; font-size: 0.88rem;
  padding: 0.45rem 0.75rem; border: 1px solid var(--border-color-primary); border-radius: 8px;
  background: var(--background-fill-secondary); }
.rag-hint { flex-basis: 100%; color: var(--body-text-color-subdued); font-size: 0.84rem; }
.rag-badge { display: inline-block; font-size: 0.72rem; font-weight: 600; letter-spacing: 0.02em;
  text-transform: uppercase; padding: 0.05rem 0.5rem; border-radius: 999px; background: #e5e7eb; color: #374151; }
.rag-badge-ollama { background: #dcfce7; color: #166534; }
.rag-badge-extractive { background: #fef3c7; color: #92400e; }

#rag-chat { border: 1px solid var(--border-color-primary); border-radius: 10px; }
.rag-placeholder { max-width: 32rem; margin: 3rem auto; text-align: center; color: var(--body-text-color-subdued); }
.rag-placeholder strong { display: block; font-size: 1.05rem; color: var(--body-text-color); margin-bottom: 0.3rem; }
.rag-answer { line-height: 1.65; }
.rag-answer code, .rag-hint code, .rag-abstract-text code { font-size: 0.85em; padding: 0 0.25rem; border-radius: 4px;
  background: var(--background-fill-secondary); }
.rag-answer p { margin: 0 0 0.5rem; }
.rag-answer p:last-child { margin-bottom: 0; }
.rag-question { white-space: pre-wrap; }
.rag-streaming .rag-text { white-space: pre-wrap; }
.rag-pending { color: var(--body-text-color-subdued); font-style: italic; }
.rag-cursor { display: inline-block; width: 0.5em; height: 1em; margin-left: 1px; vertical-align: text-bottom;
  background: currentColor; opacity: 0.5; animation: rag-blink 1s steps(2) infinite; }
@keyframes rag-blink { to { visibility: hidden; } }

a.rag-chip { display: inline-block; min-width: 1.35em; padding: 0 0.38em; margin: 0 0.12em; border-radius: 999px;
  font-size: 0.74em; font-weight: 600; line-height: 1.5; text-align: center; vertical-align: 0.12em;
  text-decoration: none !important; color: #1d4ed8 !important; background: #dbeafe; border: 1px solid #bfdbfe;
  cursor: pointer; transition: background 0.12s; }
a.rag-chip:hover, a.rag-chip:focus-visible { background: #bfdbfe; border-color: #93c5fd; }
a.rag-chip.rag-active { background: #1d4ed8; color: #fff !important; border-color: #1d4ed8; }
a.rag-chip.rag-chip-weak { background: transparent; border-style: dashed; border-color: #93a3b8; color: #475569 !important; }
.rag-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.rag-unverified { text-decoration: underline dotted #d97706; text-decoration-thickness: 2px;
  text-underline-offset: 3px; cursor: help; }
.rag-legend { font-size: 0.8rem; color: var(--body-text-color-subdued); margin-top: 0.35rem !important; }
.rag-notice { font-size: 0.85rem; padding: 0.3rem 0.6rem; border-left: 3px solid #f59e0b;
  background: rgba(245, 158, 11, 0.08); border-radius: 0 6px 6px 0; }
.rag-error p { color: #b91c1c; }
.rag-nearest-list ul { margin: 0.2rem 0 0 1.1rem; padding: 0; }
a.rag-nearest { color: var(--link-text-color); text-decoration: none; }
a.rag-nearest:hover { text-decoration: underline; }

.rag-panel { padding: 0.25rem 0.1rem; }
.rag-panel-title { font-size: 0.8rem !important; font-weight: 600; text-transform: uppercase; letter-spacing: 0.05em;
  color: var(--body-text-color-subdued); margin: 0 0 0.5rem !important; }
.rag-subtitle { font-size: 0.78rem; color: var(--body-text-color-subdued); margin: 0.6rem 0 0.3rem; }
.rag-empty { color: var(--body-text-color-subdued); font-size: 0.88rem; }
.rag-meta { color: var(--body-text-color-subdued); font-size: 0.8rem; }
.rag-meta code, .rag-browse code { font-size: 0.78rem; padding: 0 0.3rem; border-radius: 4px;
  background: var(--background-fill-secondary); }
.rag-num { display: inline-flex; align-items: center; justify-content: center; flex: none; min-width: 1.5rem;
  height: 1.5rem; padding: 0 0.3rem; border-radius: 999px; font-size: 0.78rem; font-weight: 600;
  background: #dbeafe; color: #1d4ed8; }

ol.rag-source-list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.35rem; }
a.rag-source-link { text-align: left; display: flex; gap: 0.6rem; align-items: flex-start; padding: 0.5rem 0.6rem; border-radius: 8px;
  border: 1px solid var(--border-color-primary); text-decoration: none !important; color: inherit !important;
  transition: border-color 0.12s, background 0.12s; }
a.rag-source-link:hover, a.rag-source-link.rag-active { border-color: #93c5fd; background: rgba(59, 130, 246, 0.06); }
.rag-source-body { display: flex; flex-direction: column; gap: 0.1rem; min-width: 0; }
.rag-source-label { font-weight: 600; }
.rag-uncited a.rag-source-link { opacity: 0.75; }
.rag-uncited .rag-num { background: #e5e7eb; color: #4b5563; }

.rag-abstract-title { display: flex; gap: 0.5rem; align-items: center; font-size: 1.02rem !important;
  margin: 0 0 0.25rem !important; }
.rag-abstract-text { line-height: 1.7; margin-top: 0.6rem !important; }
mark.rag-evidence { background: #fde68a; color: inherit; padding: 0.05em 0.15em; border-radius: 3px;
  box-shadow: 0 0 0 1px #fcd34d; }
.rag-evidence-note mark.rag-evidence { font-size: 0.78rem; }
#rag-evidence { border: 1px solid var(--border-color-primary); border-radius: 10px; padding: 0.75rem 0.9rem;
  background: var(--background-fill-primary); }
#rag-sources { padding: 0.1rem 0.1rem 0.4rem; }

table.rag-details { border-collapse: collapse; font-size: 0.85rem; width: 100%; border: none !important; margin: 0 !important; }
table.rag-details tr { border: none !important; border-bottom: 1px solid var(--border-color-primary) !important; }
table.rag-details tr:last-child { border-bottom: none !important; }
table.rag-details th, table.rag-details td { border: none !important; background: none !important; padding: 0.25rem 0.4rem !important; }
table.rag-details th { text-align: left; font-weight: 500; color: var(--body-text-color-subdued); width: 11rem; }
table.rag-details td { font-variant-numeric: tabular-nums; }

.rag-example-row { flex-wrap: wrap !important; gap: 0.4rem !important; }
.rag-example-row button, .rag-controls button { flex: 0 0 auto !important; width: auto !important;
  min-width: 0 !important; font-size: 0.82rem !important; font-weight: 500; }
.rag-example-row button { border-radius: 999px !important; padding: 0.25rem 0.8rem !important; }
.rag-controls { align-items: flex-end !important; gap: 0.5rem !important; }
.rag-controls > .form, .rag-controls > div:first-child { flex: 1 1 auto; }
ul.rag-browse-list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.35rem; }
a.rag-browse-item { text-align: left; display: flex; flex-direction: column; gap: 0.15rem; padding: 0.5rem 0.7rem; border-radius: 8px;
  border: 1px solid var(--border-color-primary); text-decoration: none !important; color: inherit !important; }
a.rag-browse-item:hover, a.rag-browse-item.rag-active { border-color: #93c5fd; background: rgba(59, 130, 246, 0.06); }
.rag-browse-head { display: flex; gap: 0.5rem; align-items: baseline; flex-wrap: wrap; }
.rag-snippet { font-size: 0.85rem; color: var(--body-text-color-subdued); }
#rag-browse-list { max-height: 70vh; overflow-y: auto; padding-right: 0.3rem; }
#rag-browse-view { border: 1px solid var(--border-color-primary); border-radius: 10px; padding: 0.75rem 0.9rem; }

.rag-markdown ul, .rag-markdown ol { margin: 0.2rem 0 0.5rem 1.2rem; padding: 0; }
.rag-markdown li { margin: 0.15rem 0; }
.rag-markdown table { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse;
  font-size: 0.88rem; margin: 0.3rem 0 0.5rem; }
.rag-markdown th, .rag-markdown td { border: 1px solid var(--border-color-primary); padding: 0.3rem 0.5rem;
  vertical-align: top; text-align: left; }
.rag-markdown th { background: var(--background-fill-secondary); }
.rag-answer, .rag-abstract-text, .rag-snippet, .rag-source-label, .rag-question { overflow-wrap: anywhere; }
.rag-answer a[target="_blank"], .rag-abstract-text a[target="_blank"] { color: var(--link-text-color);
  text-decoration: underline; }
.rag-sources-question { font-size: 0.85rem; font-style: italic; margin: -0.3rem 0 0.5rem;
  color: var(--body-text-color-subdued); }
.rag-question-note-on { color: #b45309; font-size: 0.88rem; padding: 0.2rem 0.2rem 0; }
.rag-example-row button { white-space: normal !important; max-width: 100% !important; text-align: left; }
.rag-footer { display: flex; flex-wrap: wrap; gap: 0.2rem 0.75rem; align-items: baseline; margin-top: 0.45rem;
  padding-top: 0.3rem; border-top: 1px solid var(--border-color-primary); font-size: 0.75rem;
  color: var(--body-text-color-subdued); }
.rag-footer-meta { margin-right: auto; font-variant-numeric: tabular-nums; }
a.rag-action { color: var(--link-text-color) !important; text-decoration: none !important; cursor: pointer;
  font-size: 0.75rem; }
a.rag-action:hover, a.rag-action:focus-visible { text-decoration: underline !important; }
.rag-question-actions { text-align: right; margin-top: 0.15rem; }
pre.rag-copy-src, pre.rag-file-src { display: none !important; }
.rag-stopped .rag-text { white-space: pre-wrap; }
.rag-editing, .rag-scope { color: var(--body-text-color) !important; background: rgba(59, 130, 246, 0.08);
  border-radius: 6px; padding: 0.3rem 0.5rem !important; }
mark.rag-hit { background: #fef08a; color: inherit; padding: 0 0.1em; border-radius: 2px; }
.dark mark.rag-hit { background: #854d0e; }
.rag-drawer-close { display: none; }
#rag-evidence { max-height: 640px; overflow-y: auto !important; }
#rag-evidence .rag-abstract-title { position: sticky; top: -0.75rem; z-index: 1; padding: 0.35rem 0;
  background: var(--background-fill-primary); }
#rag-evidence.rag-drawer-open .rag-abstract-title { position: static; }
/* Table cells wrap at spaces only; a table wider than the answer scrolls inside its own box. */
.rag-table-scroll { max-width: 100%; overflow-x: auto; }
.rag-table-scroll table { display: table !important; max-width: none !important; overflow: visible !important; }
.rag-markdown table th, .rag-markdown table td { overflow-wrap: normal !important; word-break: normal !important;
  hyphens: manual; min-width: 6rem; }
#rag-chats .wrap { flex-direction: column; align-items: stretch; }
/* Gradio's floating footer sits at the page bottom: leave room so it never covers the last items. */
.gradio-container { padding-bottom: 3.5rem !important; }
@media (max-width: 640px) {
  .gradio-container { padding-left: 6px !important; padding-right: 6px !important; }
  .rag-controls { flex-wrap: wrap !important; }
  #rag-chat { height: 62vh !important; }
  /* a table's min-content width would otherwise widen every flex box up to the page; bound it so it scrolls */
  .rag-table-scroll { max-width: calc(100vw - 4.5rem) !important; }
  /* The evidence panel opens as a drawer over the chat, where the person is looking, and closes back to it. */
  #rag-evidence { display: none !important; }
  #rag-evidence.rag-drawer-open { display: block !important; position: fixed !important; inset: 0 !important;
    z-index: 1000; max-height: none !important; margin: 0 !important; border-radius: 0 !important;
    overflow-y: auto !important; padding: 0 0.9rem 1.5rem !important; box-shadow: 0 0 0 100vmax rgba(0,0,0,0.3); }
  #rag-evidence.rag-drawer-open .rag-drawer-close { display: block; position: sticky; top: 0; z-index: 1; width: calc(100% + 1.8rem);
    margin: 0 -0.9rem 0.6rem; padding: 0.7rem 0.9rem; text-align: left; font-weight: 600; font-size: 0.95rem;
    border: none; border-bottom: 1px solid var(--border-color-primary); background: var(--background-fill-primary);
    color: var(--link-text-color); cursor: pointer; }
}

.dark a.rag-chip { background: #1e3a8a; border-color: #1e40af; color: #dbeafe !important; }
.dark a.rag-chip.rag-chip-weak { background: transparent; color: #cbd5e1 !important; }
.dark .rag-num { background: #1e3a8a; color: #dbeafe; }
.dark mark.rag-evidence { background: #854d0e; box-shadow: 0 0 0 1px #a16207; }
.dark .rag-badge-ollama { background: #14532d; color: #dcfce7; }
.dark .rag-badge-extractive { background: #78350f; color: #fef3c7; }
"""

# Gradio scopes `css` to the app's content; the page padding around it needs a rule of its own.
HEAD = (
    "<style>@media (max-width: 640px) { .gradio-container > .main.app { padding-left: 6px !important; "
    "padding-right: 6px !important; } }</style>"
)

# System fonts only: the app makes no request outside the machine (the default theme loads Google Fonts).
THEME = gr.themes.Soft(
    primary_hue="blue",
    neutral_hue="slate",
    font=["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"],
)


# --- engine calls that must not break the page ---


def _user_message(exc: BaseException) -> str:
    if isinstance(exc, RagError):
        return exc.user_message()
    log.exception("unexpected error in the UI", exc_info=exc)
    return _GENERIC_ERROR


def _backend_status(pipeline: Any, model: str | None = None) -> BackendStatus | None:
    try:
        return pipeline.backend_status(model)
    except Exception as exc:  # the status line is informative only; never fail the page for it
        if not isinstance(exc, RagError):
            log.warning("backend_status failed: %s", exc)
        return None


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
WILDCARD_BINDS = ("", "0.0.0.0", "::", "[::]")


def allowed_hosts(bind_host: str, extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The ``Host`` header names the UI answers to (DNS-rebinding protection): loopback names, the bound address
    and ``extra`` (e.g. the name a reverse proxy forwards). Bound to every interface, any name is accepted unless
    ``extra`` restricts it (that bind needs a password, which a rebinding page does not have)."""
    bind = (bind_host or "").strip().lower()
    if bind in WILDCARD_BINDS and not extra:
        return ["*"]
    names = list(LOOPBACK_NAMES)
    if bind not in WILDCARD_BINDS:
        names.append(f"[{bind.strip('[]')}]" if ":" in bind else bind)
    names += [name.strip().lower() for name in extra if name.strip()]
    return list(dict.fromkeys(names))


# --- callbacks (thin: call the engine, render with ui.render) ---


def scope_history(scope: object) -> list[dict]:
    """A chat about one paper (Browse's "Ask about this paper"): the paper as the source last talked about, so the
    engine's follow-up logic reads "it" / "this paper" as that paper."""
    if not isinstance(scope, dict) or not isinstance(scope.get("id"), str) or not isinstance(scope.get("label"), str):
        return []
    return [
        {"role": "user", "content": f"About {scope['label']}"},
        {"role": "assistant", "content": "", "sources": [{"number": 1, "id": scope["id"], "label": scope["label"]}]},
    ]


SKIP = gr.skip


class UiCallbacks:
    """The event handlers, kept outside the layout so they can be tested without a server.

    ``respond`` yields updates for, in order: chatbot, question box, sources panel, evidence panel, details,
    status line, and the engine-side history (``[{"role", "content"}]``, plain text).
    """

    def __init__(self, pipeline: Any) -> None:
        self.pipeline = pipeline

    def refresh_status(self, model: str | None = None):
        status = _backend_status(self.pipeline, model or None)
        if status is not None and status.ollama_reachable and status.models:
            if model in status.models:
                value = model
            else:
                value = status.model if status.model in status.models else status.models[0]
            dropdown = gr.update(choices=status.models, value=value, visible=True)
        else:
            dropdown = gr.update(choices=[], value=None, visible=False)
        return render.render_status(status), dropdown, status

    def question_problem(self, question: str | None, exc: BaseException) -> str:
        """The inline note for a question the engine refused, in plain words (no setting names)."""
        limit = getattr(getattr(self.pipeline, "settings", None), "max_question_chars", None)
        length = len((question or "").strip())
        if isinstance(limit, int) and length > limit:
            return (
                f"This question is {length:,} characters long; questions can be up to {limit:,}. "
                "Please shorten it and ask again — your text is still in the box."
            )
        if not (question or "").strip():
            return "Type a question first."
        message = exc.message if isinstance(exc, RagError) else _GENERIC_ERROR
        return message

    def respond(
        self,
        question: str,
        chat: list | None,
        model: str | None = None,
        status: BackendStatus | None = None,
        turns: list | None = None,
        editing: int | None = None,
        scope: dict | None = None,
    ) -> Iterator[tuple]:
        """Yields updates for: chatbot, question, sources, evidence, details, status, turns, editing, note.

        ``turns`` holds one record per question, in step with the chat's messages (two per question): the answer's
        export record (``ui.export.turn_record``) and sources panel, or the error that replaced it. ``editing`` (a
        question's place) asks this question in place of that one: the chat is cut there first. ``scope`` (a paper
        picked in Browse) is put before the conversation as the paper last talked about, so "it" means that paper.
        """
        chat = list(chat or [])
        turns = list(turns or [])
        try:
            cleaned = self.pipeline.check_question(question)
        except Exception as exc:
            note = render.render_question_note(self.question_problem(question, exc))
            yield SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), note
            return
        if len(chat) != 2 * len(turns):  # out of step (an old saved chat): keep the messages, restart the records
            turns = [{"question": "", "error": "not kept"} for _ in range(len(chat) // 2)]
            chat = chat[: 2 * len(turns)]
        if isinstance(editing, int) and 0 <= editing < len(turns):
            chat, turns = chat[: 2 * editing], turns[:editing]
        history = (scope_history(scope) + export.history(turns))[-MAX_HISTORY_MESSAGES:]
        turn = len(turns)
        chat.append({"role": "user", "content": render.render_user(cleaned, turn)})
        chat.append({"role": "assistant", "content": render.render_streaming("")})
        turns.append({"question": cleaned, "pending": True})
        valid_scope = scope_history(scope)
        clear_note = render.render_scope_note(scope["label"]) if valid_scope else render.render_question_note("")
        evidence = render.render_evidence_placeholder()
        yield list(chat), "", SKIP(), evidence, SKIP(), SKIP(), list(turns), None, clear_note

        streamed = ""
        last_yield = 0.0
        answer: Answer | None = None
        events = None
        try:
            events = self.pipeline.stream(cleaned, history or None, model=model or None)
            for event in events:
                if isinstance(event, TextDelta):
                    streamed += event.text
                    now = time.monotonic()
                    if now - last_yield >= STREAM_MIN_INTERVAL_S:
                        last_yield = now
                        chat[-1] = {"role": "assistant", "content": render.render_streaming(streamed)}
                        yield list(chat), SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), SKIP()
                elif isinstance(event, Answer):
                    answer = event
            if answer is None:
                raise RuntimeError("the engine's stream ended without an answer")
        except Exception as exc:
            message = _user_message(exc)
            chat[-1] = {"role": "assistant", "content": render.render_error(message)}
            turns[-1] = {"question": cleaned, "error": message}
            yield chat, SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), turns, SKIP(), SKIP()
            return
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                close()  # stops generation when the user stops, clears the chat or leaves

        sources_html = render.render_answer_sources(answer, turn=turn)
        record = {**export.turn_record(answer), "question": cleaned, "sources_html": sources_html}
        footer = render.render_footer(
            render.footer_meta(record["backend"], answer.timings.total_s, answer.tokens_per_s),
            copy_text=export.answer_markdown(record),
            file_text=export.answer_markdown(record, with_bibtex=True),
            file_name=f"answer-{turn + 1}.md",
        )
        chat[-1] = {"role": "assistant", "content": render.render_answer(answer, turn=turn, footer=footer)}
        turns[-1] = record
        yield (
            chat,
            SKIP(),
            sources_html,
            SKIP(),
            render.render_details(answer),
            render.render_status(status, answer),
            turns,
            SKIP(),
            SKIP(),
        )

    def regenerate(self, chat: list | None, model=None, status=None, turns: list | None = None, scope=None):
        """The last question asked again in place of its answer (the chat's retry button)."""
        turns = list(turns or [])
        if not turns or not turns[-1].get("question"):
            yield SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), SKIP(), SKIP()
            return
        yield from self.respond(turns[-1]["question"], chat, model, status, turns, len(turns) - 1, scope)

    def start_edit(self, turns: list | None, evt: gr.EventData):
        """An Edit link (``#edit:<n>``) puts question n back in the box; ``#edit:cancel`` stops editing.

        Outputs: question, editing, note."""
        ref = str(getattr(evt, "ref", "") or "")
        turns = list(turns or [])
        match = re.fullmatch(r"#edit:(\d{1,5})", ref)
        if match is None or not int(match.group(1)) < len(turns):
            return SKIP(), None, render.render_question_note("")
        index = int(match.group(1))
        note = render.render_edit_note(index)
        return str(turns[index].get("question", "")), index, note

    @staticmethod
    def stopped(chat: list | None, turns: list | None):
        """The Stop button: the streaming answer keeps what arrived and says it was stopped.

        Outputs: chatbot, turns, ask, stop."""
        chat = list(chat or [])
        turns = list(turns or [])
        last = chats.message_text(chat[-1].get("content")) if chat and isinstance(chat[-1], dict) else None
        if last and "rag-streaming" in last:
            chat[-1] = {"role": "assistant", "content": render.render_stopped(last)}
        if turns and turns[-1].get("pending"):
            turns[-1] = {"question": turns[-1].get("question", ""), "error": "Stopped before the answer was complete."}
        return chat, turns, gr.update(visible=True), gr.update(visible=False)

    def export_file(self, turns: list | None):
        """The chat as a Markdown file for the download button (None while nothing was asked)."""
        turns = [t for t in (turns or []) if isinstance(t, dict) and not t.get("pending")]
        if not turns:
            return gr.update(value=None, interactive=False)
        folder = Path(tempfile.mkdtemp(prefix="rag-chat-"))
        path = folder / "research-chat.md"
        path.write_text(export.chat_markdown(turns, title=TITLE), encoding="utf-8")
        return gr.update(value=str(path), interactive=True)

    # --- saved chats (kept in the browser's storage; see ui.chats) ---

    def after_answer(
        self, chat: list | None, turns: list | None, store: object, chat_id: str | None, scope: dict | None = None
    ):
        """Save the chat in the browser and refresh the download. Outputs: download, store, chat id, chat list,
        ask, stop."""
        turns = list(turns or [])
        store, chat_id = chats.upsert(store, chat_id, list(chat or []), turns, scope=scope)
        listing = gr.update(choices=chats.choices(store), value=chat_id)
        return self.export_file(turns), store, chat_id, listing, gr.update(visible=True), gr.update(visible=False)

    def _view(self, store: dict, chat: dict | None, *, question: object = None):
        """Outputs of VIEW: chatbot, turns, sources, evidence, details, chat id, store, chat list, download, note,
        editing, question, scope."""
        messages = chat["messages"] if chat else []
        turns = chat["turns"] if chat else []
        last = next((t.get("sources_html") for t in reversed(turns) if t.get("sources_html")), None)
        return (
            messages,
            turns,
            last or render.render_sources([]),
            render.render_evidence_placeholder(),
            render.render_details_placeholder(),
            chat["id"] if chat else None,
            store,
            gr.update(choices=chats.choices(store), value=chat["id"] if chat else None),
            self.export_file(turns),
            render.render_scope_note(chat["scope"]["label"])
            if chat and chat.get("scope")
            else render.render_question_note(""),
            None,
            "" if question is None else question,
            chat.get("scope") if chat else None,
        )

    def restore(self, store: object):
        """On page load: the chat that was open, from the browser's storage."""
        store = chats.normalize(store)
        return self._view(store, chats.get(store, store["current"]), question=SKIP())

    def open_chat(self, store: object, chat_id: object):
        store = chats.normalize(store)
        chat = chats.get(store, chat_id)
        return self._view(chats.set_current(store, chat["id"] if chat else None), chat)

    def new_chat(self, store: object):
        return self._view(chats.set_current(store, None), None)

    def delete_chat(self, store: object, chat_id: object):
        return self._view(chats.remove(store, chat_id), None)

    def clear(self):
        """Outputs: chatbot, history, question, sources, evidence, details, turns, download, note (kept for API
        callers; the page's "New chat" is :meth:`new_chat`)."""
        return (
            [],
            [],
            "",
            render.render_sources([]),
            render.render_evidence_placeholder(),
            render.render_details_placeholder(),
            [],
            gr.update(value=None, interactive=False),
            render.render_question_note(""),
        )

    def evidence_html(self, ref: object) -> str | None:
        """The abstract a ``#cite:`` link points at, evidence highlighted; None for a malformed link."""
        cite = render.parse_cite_ref(ref)
        if cite is None:
            return None
        try:
            abstract = self.pipeline.abstract(cite.abstract_id)
        except Exception as exc:
            return render.render_message(_user_message(exc), kind="error")
        return render.render_evidence(abstract, cite.spans, number=cite.number or None)

    def show_evidence(self, turns: list | None, evt: gr.EventData):
        """Outputs: evidence, sources. A link from an older answer also brings back that answer's sources."""
        ref = getattr(evt, "ref", None)
        html = self.evidence_html(ref)
        if html is None:
            return SKIP(), SKIP()
        return html, self.sources_for(ref, turns)

    @staticmethod
    def sources_for(ref: object, turns: list | None):
        """The sources panel of the answer a link sits in (SKIP when the link names none we have)."""
        cite = render.parse_cite_ref(ref)
        turns = turns or []
        if cite is None or cite.turn is None or not 0 <= cite.turn < len(turns):
            return SKIP()
        return turns[cite.turn].get("sources_html") or SKIP()

    def list_abstracts(self, query: str | None = ""):
        try:
            return render.render_abstract_list(self.pipeline.abstracts(), query or "")
        except Exception as exc:
            return render.render_message(_user_message(exc), kind="error")

    def abstract_html(self, ref: object) -> str | None:
        abstract_id = render.parse_abstract_ref(ref)
        if abstract_id is None:
            return None
        try:
            return render.render_abstract(self.pipeline.abstract(abstract_id))
        except Exception as exc:
            return render.render_message(_user_message(exc), kind="error")

    def view_abstract(self, evt: gr.EventData):
        """Outputs: browse view, selected abstract ID, the "Ask about this paper" button."""
        ref = getattr(evt, "ref", None)
        html = self.abstract_html(ref)
        if html is None:
            return SKIP(), SKIP(), SKIP()
        abstract_id = render.parse_abstract_ref(ref)
        return html, abstract_id, gr.update(visible="rag-message-error" not in html)

    def ask_about(self, store: object, abstract_id: object):
        """Browse's "Ask about this paper": a new chat about it, on the Chat tab, with a first question asked.

        Outputs: those of :meth:`new_chat`, then the tabs."""
        view = list(self.new_chat(store))
        try:
            abstract = self.pipeline.abstract(str(abstract_id))
        except Exception as exc:
            view[9] = render.render_question_note(_user_message(exc))
            return (*view, gr.update(selected="chat"), gr.update(visible=True), gr.update(visible=False))
        view[9] = render.render_scope_note(abstract.label)
        view[11] = "What does this paper contribute?"
        view[12] = {"id": abstract.id, "label": abstract.label}
        return (*view, gr.update(selected="chat"), gr.update(visible=False), gr.update(visible=True))


# --- the app ---


STORE_KEY = "rag-abstracts-chats"
# gr.BrowserState encrypts what it stores with a key the page itself receives, so it protects nothing on this
# local app; a fixed key keeps saved chats readable after the server restarts (a random one would not).
STORE_SECRET = "rag-abstracts-saved-chats"


def build_app(pipeline: Any) -> gr.Blocks:
    """The Blocks for the chat and browse tabs (not launched); callbacks only call the engine and ``ui.render``."""
    cb = UiCallbacks(pipeline)

    # ---- layout ----

    with gr.Blocks(title=TITLE, analytics_enabled=False) as demo:
        turns = gr.State([])  # per question: its record (see ui.export.turn_record) or error, in step with the chat
        status_state = gr.State(None)
        editing = gr.State(None)  # which question is being edited (0-based), or None
        scope = gr.State(None)  # {"id", "label"} of the paper a chat from Browse is about
        chat_id = gr.State(None)
        browse_selected = gr.State(None)
        store = gr.BrowserState(chats.empty(), storage_key=STORE_KEY, secret=STORE_SECRET)
        gr.HTML(
            f"<h1>{render.esc(TITLE)}</h1><p>Answers cite the abstracts they come from; click a citation to read "
            "the evidence. Sentences the verifier could not match to a source are marked.</p>",
            elem_id="rag-header",
            js_on_load=None,
        )
        with gr.Sidebar(open=False, label="Saved chats", elem_id="rag-sidebar") as sidebar:
            gr.Markdown("**Saved chats** — kept in this browser only; nothing is sent anywhere.")
            chat_list = gr.Radio(choices=[], value=None, show_label=False, elem_id="rag-chats", container=False)
            delete_btn = gr.Button("Delete this chat", size="sm", variant="stop", elem_id="rag-delete-chat")
        with gr.Tabs(selected="chat") as tabs:
            with gr.Tab("Chat", id="chat"):
                status_line = gr.HTML(render.render_status(None), elem_id="rag-status", js_on_load=None)
                with gr.Row(equal_height=False):
                    with gr.Column(scale=3, min_width=380):
                        chatbot = gr.Chatbot(
                            elem_id="rag-chat",
                            label="Conversation",
                            show_label=False,
                            height=560,
                            render_markdown=False,  # messages are HTML built by ui.render
                            sanitize_html=True,  # and still sanitized, as a second line of defence
                            latex_delimiters=[],
                            buttons=[],
                            feedback_options=None,
                            layout="panel",
                            placeholder=PLACEHOLDER,
                        )
                        with gr.Row(equal_height=True):
                            # Off until the page has restored the saved chat: a question asked before then would
                            # be answered and then wiped by the restore landing after it.
                            question = gr.Textbox(
                                placeholder=LOADING_PLACEHOLDER,
                                interactive=False,
                                show_label=False,
                                lines=1,
                                max_lines=6,
                                scale=8,
                                autofocus=True,
                                elem_id="rag-question",
                            )
                            ask = gr.Button(
                                "Ask", variant="primary", scale=1, min_width=80, interactive=False, elem_id="rag-ask"
                            )
                            stop = gr.Button(
                                "Stop", variant="stop", scale=1, min_width=80, visible=False, elem_id="rag-stop"
                            )
                        question_note = gr.HTML(
                            render.render_question_note(""), elem_id="rag-question-note", js_on_load=EDIT_JS
                        )
                        with gr.Row(elem_classes="rag-example-row"):
                            example_buttons = [
                                gr.Button(
                                    text, size="sm", variant="secondary", interactive=False, elem_classes="rag-example"
                                )
                                for text in EXAMPLES
                            ]
                        with gr.Row(elem_classes="rag-controls"):
                            model = gr.Dropdown(
                                label="Ollama model",
                                choices=[],
                                value=None,
                                visible=False,
                                interactive=True,
                                scale=3,
                                elem_id="rag-model",
                            )
                            refresh = gr.Button("Check Ollama", size="sm", scale=1, elem_id="rag-refresh")
                            new_btn = gr.Button("New chat", size="sm", scale=1, elem_id="rag-clear")
                            saved_btn = gr.Button("Saved chats", size="sm", scale=1, elem_id="rag-saved-chats")
                            download = gr.DownloadButton(
                                "Download chat as Markdown",
                                value=None,
                                size="sm",
                                scale=1,
                                interactive=False,
                                elem_id="rag-download",
                            )
                        with gr.Accordion("Answer details", open=False, elem_id="rag-details"):
                            details = gr.HTML(render.render_details_placeholder(), js_on_load=None)
                    with gr.Column(scale=2, min_width=320):
                        sources = gr.HTML(render.render_sources([]), elem_id="rag-sources", js_on_load=None)
                        evidence = gr.HTML(
                            render.render_evidence_placeholder(),
                            elem_id="rag-evidence",
                            js_on_load=PAGE_JS,
                            autoscroll=False,
                        )
            with gr.Tab("Browse", id="browse"), gr.Row(equal_height=False):
                with gr.Column(scale=1, min_width=320):
                    browse_query = gr.Textbox(
                        placeholder="Search the ID, label, text or file name (typos are fine)",
                        show_label=False,
                        elem_id="rag-browse-query",
                    )
                    browse_list = gr.HTML(
                        render.render_message("Loading the abstracts…"),
                        elem_id="rag-browse-list",
                        js_on_load=BROWSE_JS,
                    )
                with gr.Column(scale=1, min_width=320):
                    browse_view = gr.HTML(
                        render.render_browse_placeholder(), elem_id="rag-browse-view", js_on_load=BROWSE_VIEW_JS
                    )
                    browse_ask = gr.Button(
                        "Ask about this paper", variant="primary", visible=False, elem_id="rag-browse-ask"
                    )

        # ---- events ----
        chat_outputs = [chatbot, question, sources, evidence, details, status_line, turns, editing, question_note]
        chat_inputs = [question, chatbot, model, status_state, turns, editing, scope]
        light = {"concurrency_limit": None, "api_visibility": "undocumented"}
        quick = {"queue": False, "api_visibility": "undocumented", "show_progress": "hidden"}
        # Every way of asking (Enter, the button, an example, regenerate) shares one concurrency pool and progress.
        answering = {"show_progress": "minimal", "show_progress_on": [chatbot], "concurrency_id": "chat"}

        def show_stop():
            return gr.update(visible=False), gr.update(visible=True)

        after = {
            "fn": cb.after_answer,
            "inputs": [chatbot, turns, store, chat_id, scope],
            "outputs": [download, store, chat_id, chat_list, ask, stop],
            "show_progress": "hidden",
            **light,
        }
        answer_events = []  # the answering steps, which Stop, New chat and opening another chat cancel

        def chain(start, fn=cb.respond, inputs=chat_inputs, **kwargs):
            """``start`` (which shows Stop in place of Ask), then the answer, then saving the chat."""
            step = start.then(fn, inputs, chat_outputs, **answering, **kwargs)
            answer_events.append(step)
            step.then(**after)
            return step

        chain(question.submit(show_stop, None, [ask, stop], **quick), api_name="ask")
        chain(ask.click(show_stop, None, [ask, stop], **quick), api_visibility="undocumented")
        for button, text in zip(example_buttons, EXAMPLES, strict=True):
            chain(
                button.click(lambda t=text: (t, *show_stop()), None, [question, ask, stop], **quick),
                api_visibility="undocumented",
            )
        chain(
            chatbot.retry(show_stop, None, [ask, stop], **quick),
            fn=cb.regenerate,
            inputs=[chatbot, model, status_state, turns, scope],
            api_visibility="undocumented",
        )
        # Cancel first; mark the answer as stopped in a second step, so that it lands after the last streamed update.
        stop.click(None, None, None, cancels=answer_events, **quick).then(
            cb.stopped, [chatbot, turns], [chatbot, turns, ask, stop], **quick
        ).then(**after)
        question_note.click(cb.start_edit, [turns], [question, editing, question_note], **quick)

        view_outputs = [
            chatbot, turns, sources, evidence, details, chat_id, store, chat_list, download, question_note, editing,
            question, scope,
        ]  # fmt: skip
        restore_buttons = {"fn": lambda: (gr.update(visible=True), gr.update(visible=False)), "outputs": [ask, stop]}
        new_btn.click(cb.new_chat, [store], view_outputs, cancels=answer_events, **quick).then(
            **restore_buttons, **quick
        )
        chatbot.clear(cb.new_chat, [store], view_outputs, cancels=answer_events, **quick).then(
            **restore_buttons, **quick
        )
        chat_list.input(cb.open_chat, [store, chat_list], view_outputs, cancels=answer_events, **quick).then(
            **restore_buttons, **quick
        )
        delete_btn.click(cb.delete_chat, [store, chat_id], view_outputs, cancels=answer_events, **quick).then(
            **restore_buttons, **quick
        )
        demo.load(cb.restore, [store], view_outputs, **quick).then(
            lambda: (
                gr.update(interactive=True, placeholder=QUESTION_PLACEHOLDER),
                gr.update(interactive=True),
                *(gr.update(interactive=True) for _ in example_buttons),
            ),
            None,
            [question, ask, *example_buttons],
            **quick,
        ).then(None, None, None, js="() => { document.querySelector('#rag-question textarea')?.focus(); }")
        saved_btn.click(lambda: gr.Sidebar(open=True), None, sidebar, **quick)

        evidence.click(cb.show_evidence, [turns], [evidence, sources], show_progress="hidden", **light)

        status_outputs = [status_line, model, status_state]
        demo.load(cb.refresh_status, [model], status_outputs, show_progress="hidden", **light)
        refresh.click(cb.refresh_status, [model], status_outputs, show_progress="hidden", **light)
        model.input(cb.refresh_status, [model], status_outputs, show_progress="hidden", **light)

        demo.load(cb.list_abstracts, [browse_query], browse_list, show_progress="hidden", **light)
        browse_query.change(
            cb.list_abstracts, [browse_query], browse_list, show_progress="hidden", trigger_mode="always_last", **light
        )
        browse_list.click(
            cb.view_abstract, None, [browse_view, browse_selected, browse_ask], show_progress="hidden", **light
        )
        chain(
            browse_ask.click(
                cb.ask_about, [store, browse_selected], [*view_outputs, tabs, ask, stop], cancels=answer_events, **quick
            ),
            api_visibility="undocumented",
        )
    return demo


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on right now (for ``port=0``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host.strip("[]") or "0.0.0.0", 0))
        return s.getsockname()[1]


def configure_queue(demo: gr.Blocks) -> gr.Blocks:
    return demo.queue(default_concurrency_limit=CHAT_CONCURRENCY, max_size=QUEUE_MAX_SIZE, api_open=False)


def launch_options() -> dict[str, Any]:
    """Look and client-side options that Gradio 6 takes at launch rather than in the Blocks."""
    return {"theme": THEME, "css": CSS, "head": HEAD}


def launch(
    pipeline: Any,
    host: str = "127.0.0.1",
    port: int = 7860,
    auth: tuple[str, str] | None = None,
    insecure: bool = False,
    ready_callback: Callable[[str], None] | None = None,
    extra_hosts: list[str] | tuple[str, ...] = (),
) -> None:
    """Serve the UI until interrupted. Loopback only, unless ``auth`` is given or ``insecure=True``.

    Never shares (no public link) and serves no files beyond Gradio's own (no ``allowed_paths``).
    ``port=0`` picks a free port. ``ready_callback(url)`` runs once the server accepts connections (default: print
    the URL). Requests whose ``Host`` header is not in :func:`allowed_hosts` get 400 (DNS rebinding).
    """
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    check_host(host, auth, insecure)
    if port == 0:
        port = free_port(host)
    demo = configure_queue(build_app(pipeline))
    demo.launch(
        server_name=host,
        server_port=port,
        auth=tuple(auth) if auth is not None else None,
        auth_message="Sign in to the research assistant." if auth else None,
        share=False,
        inbrowser=False,
        prevent_thread_lock=True,
        show_error=False,
        quiet=True,
        ssr_mode=False,
        pwa=False,
        mcp_server=False,
        enable_monitoring=False,
        max_file_size="1mb",
        footer_links=["settings"],
        app_kwargs={"middleware": [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(host, extra_hosts))]},
        **launch_options(),
    )
    url = demo.local_url or f"http://{host}:{port}/"
    if ready_callback is not None:
        ready_callback(url)
    else:
        print(f"Research assistant UI: {url}  (Ctrl+C to stop)", flush=True)
    try:
        demo.block_thread()
    finally:
        demo.close()
