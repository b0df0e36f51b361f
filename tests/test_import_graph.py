"""The project's import graph, read from the source with ``ast``: no cycles, and the dependency direction

    rag (engine) <- ui, eval <- rag.cli (the composition root, which loads a front end only inside its command)

The engine modules import neither ``ui``, ``eval`` nor ``tests``; ``ui`` imports only the engine. Every import counts,
also one inside a function, and so does a module named by a string to ``importlib.import_module`` or ``front_end``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rag", "ui", "eval", "tests/support")
COMPOSITION_ROOT = "rag.cli"
LOADERS = {"import_module", "front_end"}  # calls whose constant string argument names a module to import


def project_sources(root: Path = ROOT) -> dict[str, str]:
    """Module name -> source, for every module of the project's packages."""
    sources = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            sources[".".join(parts)] = path.read_text(encoding="utf-8")
    return sources


def _imported_names(module: str, is_package: bool, tree: ast.AST) -> Iterable[str]:
    """Dotted names a module imports (``from a import b`` yields ``a.b``, which resolves to ``a`` if ``b`` is no
    module); relative imports made absolute."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if name in LOADERS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value


def import_graph(sources: Mapping[str, str], packages: Iterable[str] = ()) -> dict[str, set[str]]:
    """Module -> the project modules it imports. ``packages`` names the modules that are packages (``__init__``)."""
    packages = set(packages)
    graph: dict[str, set[str]] = {}
    for module, source in sources.items():
        targets = set()
        for name in _imported_names(module, module in packages, ast.parse(source)):
            parts = name.split(".")
            while parts and ".".join(parts) not in sources:  # the longest prefix that is a project module
                parts.pop()
            if parts and ".".join(parts) != module:
                targets.add(".".join(parts))
        graph[module] = targets
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted; [] when acyclic."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _top(module: str) -> str:
    return "tests" if module.startswith("tests.") else module.partition(".")[0]


def direction_violations(graph: Mapping[str, set[str]]) -> list[str]:
    """Imports against the direction: engine -> ui/eval/tests (except the composition root), ui -> eval/tests."""
    forbidden = {"rag": {"ui", "eval", "tests"}, "ui": {"eval", "tests"}}
    return sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        for target in targets
        if module != COMPOSITION_ROOT and _top(target) in forbidden.get(_top(module), set())
    )


def _project_graph() -> dict[str, set[str]]:
    sources = project_sources()
    packages = {m for m in sources if (ROOT / m.replace(".", "/") / "__init__.py").is_file()}
    return import_graph(sources, packages)


# --- the checks on this project ---


def test_the_project_has_no_import_cycles():
    graph = _project_graph()
    assert {"rag.cli", "rag.pipeline", "ui.app", "eval.runner", "tests.support.ollama_server"} <= set(graph)
    assert cycles(graph) == []


def test_the_engine_imports_no_front_end_and_the_ui_no_eval():
    assert direction_violations(_project_graph()) == []


def test_the_composition_root_reaches_the_front_ends():
    # rag.cli names them through front_end("..."): the graph sees those edges, so a cycle through the CLI shows.
    assert {"ui.app", "eval.runner", "eval.bench"} <= _project_graph()["rag.cli"]


# --- the checker itself, on made-up modules ---


def test_a_cycle_through_a_lazy_import_is_found():
    sources = {
        "pkg": "",
        "pkg.a": "from pkg import b\n",
        "pkg.b": "def f():\n    import pkg.c\n",
        "pkg.c": "from .a import thing\n",
        "pkg.d": "import pkg.a\n",
    }
    graph = import_graph(sources, packages={"pkg"})
    assert graph["pkg.c"] == {"pkg.a"}  # a relative import resolved
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    del sources["pkg.c"]
    assert cycles(import_graph(sources, packages={"pkg"})) == []


def test_a_module_named_to_a_loader_is_an_edge():
    sources = {"x": "import importlib\nimportlib.import_module('y')\n", "y": "def f():\n    front_end('x')\n"}
    assert cycles(import_graph(sources)) == [["x", "y"]]


def test_an_engine_module_importing_a_front_end_is_a_violation():
    sources = {
        "rag.cli": "front_end('ui.app')\n",  # the composition root may
        "rag.retrieve": "def f():\n    from eval.metrics import mrr\n",
        "ui.app": "from rag import retrieve\n",
        "eval.metrics": "",
    }
    assert direction_violations(import_graph(sources)) == ["rag.retrieve imports eval.metrics"]
