"""The layer rule, read from the source: every import goes downwards, no module imports itself
back through others, and ``gradcalc --help`` starts without numpy or sympy.

The layers, lowest first, are the subpackages of :data:`LAYERS`; a module may import its own
layer and the ones below it. The root ``gradcalc`` package (the lazy public API) imports no
gradcalc module by name, so anyone may read ``gradcalc.__version__`` from it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import gradcalc

LAYERS = ("core", "lang", "symbolic", "engine", "io", "render", "apps", "cli")
PACKAGE = Path(gradcalc.__file__).parent


def module_name(path: Path) -> str:
    """``gradcalc/core/ops/arith.py`` -> ``gradcalc.core.ops.arith`` (a package is its __init__)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST, typing_too: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement at any depth (functions too); those under ``if TYPE_CHECKING:``
    only when ``typing_too``."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
        return
    skip = isinstance(node, ast.If) and _is_type_checking(node) and not typing_too
    for child in node.orelse if skip else ast.iter_child_nodes(node):  # type: ignore[attr-defined]
        yield from _import_nodes(child, typing_too)


def imports_of(module: str, typing_too: bool = True) -> set[str]:
    """The gradcalc modules ``module`` imports (``from pkg import mod`` counts as ``pkg.mod``).

    >>> sorted(imports_of("gradcalc.core.tape"))[:1]
    ['gradcalc.core.ops']
    """
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in _import_nodes(ast.parse(path.read_text(), str(path)), typing_too):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, base] if base else anchor)
        found.update(
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
            for alias in node.names
        )
    return {name for name in found if name in MODULES and name != module}


def layer_of(module: str) -> int | None:
    """The layer's rank (``None`` for the root package).

    >>> layer_of("gradcalc.core.tensor") < layer_of("gradcalc.lang.parser")
    True
    """
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 else None


def test_every_module_is_in_a_layer() -> None:
    assert {m.split(".")[1] for m in MODULES if m != "gradcalc"} == set(LAYERS)


def test_the_root_package_imports_nothing_of_ours_by_name() -> None:
    assert imports_of("gradcalc") == set()


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != "gradcalc"))
def test_imports_go_downwards(module: str) -> None:
    upward = sorted(
        target for target in imports_of(module) if (layer_of(target) or 0) > (layer_of(module) or 0)
    )
    assert not upward, f"{module} ({LAYERS[layer_of(module)]}) imports upwards: {upward}"


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm).

    >>> cycles({"a": {"b"}, "b": {"a", "c"}, "c": set()})
    [['a', 'b']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    """Imports inside functions count; ``if TYPE_CHECKING:`` imports (never run) do not."""
    graph = {module: imports_of(module, typing_too=False) for module in MODULES}
    assert cycles(graph) == []


def test_the_public_names_bring_the_operators() -> None:
    """core.tensor does not import the registry; the public names make sure it is loaded."""
    code = "from gradcalc import constant; print((constant(2.0) * 3 + 1).value)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout == "7.0\n", done.stderr


def test_help_does_not_import_numpy_or_sympy() -> None:
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "gradcalc"]
    code = (
        "import sys; sys.argv = ['gradcalc', '--help']\n"
        f"from {script.module} import {script.attr}\n"
        f"try:\n    {script.attr}()\nexcept SystemExit:\n    pass\n"
        "print('numpy' in sys.modules, 'sympy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "False False", done.stderr


def test_the_package_is_typed() -> None:
    """PEP 561: type checkers read gradcalc's annotations (shipped as package data)."""
    assert (PACKAGE / "py.typed").exists()
