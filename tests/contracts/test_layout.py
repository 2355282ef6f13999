"""The house rules of the source tree (issue 32): no import circles, nothing imported from above
(core and lowering know nothing of the layers built on them), the core imports no framework (issue
44), lowering's files and functions short."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("symgrad", "lowering")

# imports inside a function that point back up the layers, each with its reason; anything else
# that closes a circle fails
LAZY_UPWARD = {
    ("symgrad.tensor", "symgrad.autodiff.tensor_hooks"): "Tensor.register_hook is MindSpore's API "
    "on Tensor; the hooks are autodiff's (a hooked tensor gets a custom reverse rule)",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def _imports(path: Path, modules: dict[str, Path]) -> tuple[set[str], set[str]]:
    """The repository modules ``path`` imports at module level, and inside functions (not the
    ``if TYPE_CHECKING:`` ones, which never run)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top: set[str] = set()
    lazy: set[str] = set()

    def targets(node: ast.Import | ast.ImportFrom) -> set[str]:
        if isinstance(node, ast.Import):
            found = {alias.name for alias in node.names}
        else:
            base = node.module or ""
            if node.level:
                kept = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(kept + ([node.module] if node.module else []))
            found = {f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names}
        return {m for m in found if m in modules and m != name}

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                (lazy if in_function else top).update(targets(child))
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    visit(ast.parse(path.read_text()), False)
    return top, lazy


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = stack[stack.index(v) :]
            del stack[stack.index(v) :]
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def _graph(lazy_too: bool) -> dict[str, set[str]]:
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        top, lazy = _imports(path, modules)
        graph[name] = top | ({m for m in lazy if (name, m) not in LAZY_UPWARD} if lazy_too else set())
    return graph


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_back_at_import_time():
    assert _circles(_graph(lazy_too=False)) == []


def test_no_circle_through_imports_inside_functions_beyond_the_listed_ones():
    assert _circles(_graph(lazy_too=True)) == []
    modules = _modules()
    for (importer, imported), reason in LAZY_UPWARD.items():  # each listed exception is still needed
        assert imported in _imports(modules[importer], modules)[1], reason


def test_core_and_lowering_import_nothing_built_on_them():
    allowed = {
        "symgrad.core": ("symgrad.core", "symgrad.errors"),
        "lowering": ("lowering", "symgrad.core", "symgrad.errors"),
    }
    modules = _modules()
    wrong = []
    for name, path in modules.items():
        for layer, below in allowed.items():
            if name == layer or name.startswith(layer + "."):
                top, lazy = _imports(path, modules)
                wrong += [f"{name} -> {m}" for m in top | lazy if not m.startswith(below)]
    assert wrong == []


FRAMEWORKS = ("jax", "jaxlib", "torch", "mindspore", "tensorflow", "cupy")


def _framework_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of each import of a framework in ``source``, at any depth (inside functions
    and ``if`` blocks too)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        found += [(node.lineno, name) for name in names if name.split(".")[0] in FRAMEWORKS]
    return found


def test_the_framework_import_finder_finds_imports_inside_functions():
    source = "import numpy\nimport jaxtyping\n\ndef f():\n    from jax import lax\n    if True:\n        import torch.nn as nn\n"
    assert _framework_imports(source) == [(5, "jax"), (7, "torch.nn")]


def test_core_imports_no_framework():
    """symgrad/core holds what ops mean; PyTorch's and JAX's conventions are the importers'."""
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted((ROOT / "symgrad" / "core").rglob("*.py"))
        for line, name in _framework_imports(path.read_text())
    ]
    assert wrong == [], "move these to symgrad/importers:\n" + "\n".join(wrong)


def test_lowering_files_and_functions_stay_short():
    long_files, long_functions = [], []
    for path in (ROOT / "lowering").rglob("*.py"):
        text = path.read_text()
        if text.count("\n") > 400:
            long_files.append(path.name)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno + 1 > 60:
                long_functions.append(f"{path.name}:{node.name}")
    assert long_files == [] and long_functions == []
