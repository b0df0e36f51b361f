"""`rag ui` start-up: Gradio imported without its stub rewriting, the page served before the model and index load."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import pytest

from rag.cli import main as rag_main
from rag.errors import IndexCorruptError
from rag.pipeline import Pipeline


def test_the_gradio_import_patch_applies_only_to_the_version_it_was_measured_on():
    from ui.gradio_import import PATCHED_MAJOR, installed_gradio_version, patch_applies

    assert patch_applies(f"{PATCHED_MAJOR}.31.0") and patch_applies(f"{PATCHED_MAJOR}.0.0rc1")
    assert not patch_applies(f"{PATCHED_MAJOR + 1}.0.0") and not patch_applies(f"{PATCHED_MAJOR - 1}.9.9")
    assert not patch_applies("") and not patch_applies("dev")
    # A new Gradio major fails here: measure `import gradio` with and without the patch again, then move the guard.
    assert patch_applies(installed_gradio_version()), installed_gradio_version()


def test_gradio_imports_without_rewriting_its_stubs_and_still_builds_an_app():
    script = textwrap.dedent(
        """
        import sys
        from ui.gradio_import import _SkipStubGeneration, _no_stubs, import_gradio_without_stub_generation

        gr = import_gradio_without_stub_generation()
        import gradio.component_meta as meta

        assert meta.create_or_modify_pyi is _no_stubs, meta.create_or_modify_pyi
        assert not any(isinstance(f, _SkipStubGeneration) for f in sys.meta_path)  # the hook is gone again
        with gr.Blocks() as demo:
            box = gr.Textbox(label="Question")
            gr.Button("Ask").click(lambda q: q, box, box)
        assert demo.config["components"]
        assert import_gradio_without_stub_generation() is gr  # already imported: returned as is
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("ok")


@pytest.fixture()
def served(monkeypatch, tmp_path):
    """`rag ui` with launch() replaced: it calls the ready callback as the real one does once the server accepts
    connections, then waits for the background warm-up; records the order of events."""
    events: list[str] = []

    def fake_launch(pipeline, *, ready_callback, **kwargs):
        events.append("serving")
        ready_callback("http://127.0.0.1:1/")
        for thread in threading.enumerate():
            if thread.name == "warm-up":
                thread.join(timeout=60)

    monkeypatch.setattr("ui.app.launch", fake_launch)
    monkeypatch.setattr("rag.manifest.load_manifest", lambda *a: None)  # "an index exists"
    for name in ("RAG_UI_AUTH", "RAG_UI_HOST", "RAG_CHROMA_HOST"):
        monkeypatch.delenv(name, raising=False)
    return events, ["ui", "--data-dir", str(tmp_path)]


def test_ui_serves_the_page_before_loading_the_model_and_index(served, monkeypatch, capsys):
    events, argv = served
    monkeypatch.setattr(Pipeline, "warm_up", lambda self: events.append("warm-up") or 0.0)
    assert rag_main(argv) == 0
    err = capsys.readouterr().err
    assert events == ["serving", "warm-up"]
    assert err.index("Ready in") < err.index("Model and index loaded")


def test_a_failed_load_after_serving_is_reported_and_the_ui_keeps_running(served, monkeypatch, capsys):
    _, argv = served

    def broken(self):
        raise IndexCorruptError("The vector store holds 0 of the index's 175 chunks", hint="Run `rag ingest`.")

    monkeypatch.setattr(Pipeline, "warm_up", broken)
    assert rag_main(argv) == 0  # launch returned normally: the UI was not brought down
    err = capsys.readouterr().err
    assert "error: cannot load the index or the model: The vector store holds 0" in err and "rag ingest" in err
    assert "Model and index loaded" not in err and "Traceback" not in err


def test_an_unexpected_load_failure_is_reported_without_a_traceback(served, monkeypatch, capsys):
    _, argv = served
    monkeypatch.setattr(Pipeline, "warm_up", lambda self: 1 / 0)
    assert rag_main(argv) == 0
    err = capsys.readouterr().err
    assert "cannot load the index or the model (ZeroDivisionError)" in err and "-vv" in err
    assert "Traceback" not in err
