"""The layer rule, read from the source: every import goes downwards, no module imports itself
back through others, and ``gradcalc --help`` starts without numpy or sympy.

The layers, lowest first, are the subpackages of :data:`LAYERS`; a module may import its own
layer and the ones below it. Inside the layers of :data:`ROOMS` every module lives in a room
(a subpackage, or a lone module at the layer's top), and a room may import itself and the
rooms before it in its layer's order, never one after it. The root ``gradcalc`` package (the
lazy public API) imports no gradcalc module by name, so anyone may read
``gradcalc.__version__`` from it.
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
#: The rooms of a layer, lowest first: a room imports its own and the ones before it. A room
#: is a subpackage saying in its docstring what it owns; a module at the layer's top (apps'
#: catalog and views) is a room of its own.
ROOMS = {
    "symbolic": ("translate", "decide", "crosscheck"),
    "engine": ("evaluate", "judge", "compile", "tensors", "run"),
    "render": ("output", "pieces", "drawings", "views", "notebook"),
    "apps": ("catalog", "critical", "derive", "check", "explain", "optimize", "plot", "views"),
}
#: The most modules one folder may hold (its ``__init__`` aside).
MAX_ROOM_MODULES = 15
PACKAGE = Path(gradcalc.__file__).parent


def module_name(path: Path) -> str:
    """``gradcalc/core/ops/arith.py`` -> ``gradcalc.core.ops.arith`` (a package is its __init__)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: (``__main__``, for ``python -m gradcalc``, is an entry point above every layer, as the
#: console script is: tested on its own below.)
MODULES = {
    module_name(path): path for path in sorted(PACKAGE.rglob("*.py")) if path.name != "__main__.py"
}


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

    >>> "gradcalc.core.ops" in imports_of("gradcalc.core.tape")
    True
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


def room_of(module: str) -> int | None:
    """The room's rank in its layer (``None`` outside a layer of :data:`ROOMS`).

    >>> room_of("gradcalc.engine.evaluate.points") < room_of("gradcalc.engine.compile.replay")
    True
    """
    _, layer, *rest = [*module.split("."), ""][:3]
    return ROOMS[layer].index(rest[0]) if layer in ROOMS and rest[0] else None


def test_every_module_is_in_a_layer() -> None:
    assert {m.split(".")[1] for m in MODULES if m != "gradcalc"} == set(LAYERS)


def test_every_module_is_in_a_room() -> None:
    """In a layer with rooms, every module sits in one of its rooms, and each room exists."""
    roomed = [m.split(".") for m in MODULES if m.count(".") > 1 and m.split(".")[1] in ROOMS]
    strays = [".".join(parts) for parts in roomed if parts[2] not in ROOMS[parts[1]]]
    assert not strays, f"modules outside the rooms of ROOMS: {strays}"
    found = {(parts[1], parts[2]) for parts in roomed}
    assert found == {(layer, room) for layer, rooms in ROOMS.items() for room in rooms}


def test_rooms_say_what_they_own() -> None:
    """Each room's ``__init__`` has a docstring naming what it owns and what it may import."""
    for layer, rooms in ROOMS.items():
        for room in rooms:
            init = PACKAGE / layer / room / "__init__.py"
            if (PACKAGE / layer / room).is_dir():
                doc = ast.get_docstring(ast.parse(init.read_text())) or ""
                assert doc.startswith(f"{layer}.{room}:") and "Imports" in doc, init


def test_folders_are_small() -> None:
    counts = {
        folder.relative_to(PACKAGE.parent).as_posix(): len(
            [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        )
        for folder in [PACKAGE, *(p.parent for p in PACKAGE.rglob("__init__.py"))]
    }
    large = {folder: n for folder, n in counts.items() if n > MAX_ROOM_MODULES}
    assert not large, f"folders over {MAX_ROOM_MODULES} modules (split them into rooms): {large}"


def test_the_root_package_imports_nothing_of_ours_by_name() -> None:
    assert imports_of("gradcalc") == set()


def test_python_dash_m_runs_the_console_scripts_main() -> None:
    tree = ast.parse((PACKAGE / "__main__.py").read_text())
    imported = {(node.module, a.name) for node in _import_nodes(tree, True) for a in node.names}
    assert imported == {("gradcalc.cli.app", "main")}
    assert entry_points(group="console_scripts")["gradcalc"].value == "gradcalc.cli.app:main"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != "gradcalc"))
def test_imports_go_downwards(module: str) -> None:
    upward = sorted(
        target for target in imports_of(module) if (layer_of(target) or 0) > (layer_of(module) or 0)
    )
    assert not upward, f"{module} ({LAYERS[layer_of(module)]}) imports upwards: {upward}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if room_of(m) is not None))
def test_rooms_import_downwards(module: str) -> None:
    layer = module.split(".")[1]
    upward = sorted(
        target
        for target in imports_of(module)
        if target.split(".")[1] == layer and (room_of(target) or 0) > (room_of(module) or 0)
    )
    room = ROOMS[layer][room_of(module) or 0]
    assert not upward, f"{module} (room {layer}.{room}) imports a later room: {upward}"


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
    """Every import counts: those inside functions, and those under ``if TYPE_CHECKING:`` --
    never run, but a cycle through types still ties the modules together: neither can be
    read, tested or moved without the other."""
    graph = {module: imports_of(module) for module in MODULES}
    assert cycles(graph) == []


def test_the_public_names_bring_the_operators() -> None:
    """core.tensor does not import the registry; the public names make sure it is loaded."""
    code = "from gradcalc import constant; print((constant(2.0) * 3 + 1).value)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout == "7.0\n", done.stderr


def test_help_does_not_import_numpy_or_sympy() -> None:
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "gradcalc"]
    code = (  # (the entry point ends the process itself: an exit handler prints)
        "import atexit, sys; sys.argv = ['gradcalc', '--help']\n"
        "atexit.register(lambda: print('numpy' in sys.modules, 'sympy' in sys.modules))\n"
        f"from {script.module} import {script.attr}\n"
        f"{script.attr}()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "False False", done.stderr


def test_the_package_is_typed() -> None:
    """PEP 561: type checkers read gradcalc's annotations (shipped as package data)."""
    assert (PACKAGE / "py.typed").exists()


TESTS = Path(__file__).parent

#: Modules without a test file named after them, and the test file that exercises them
#: instead (through the command line, or as a part of the module tested there). An entry
#: goes when its module gets its own file; the test below fails on a stale one.
TESTED_ELSEWHERE = {
    "gradcalc.core.errors": "cli/test_cli_messages.py",  # the messages and exit codes
    "gradcalc.core.tensor": "core/test_tape.py",  # Variable and the operators on the tape
    "gradcalc.core.sweep": "core/test_tape.py",  # every gradient there runs the sweep
    "gradcalc.lang.graph": "engine/test_evaluate.py",  # lower() and the graph it evaluates
    "gradcalc.lang.literals": "lang/test_parser.py",  # the pi/e table, parsed
    "gradcalc.symbolic.translate.derivative": "core/test_ops.py",  # each op's rule against it
    # derivatives in the user's notation
    "gradcalc.symbolic.translate.notation": "apps/test_diff.py",
    # the shortest form, against sympy
    "gradcalc.symbolic.crosscheck.simplify": "apps/test_diff.py",
    "gradcalc.engine.evaluate.findings": "engine/test_diagnostics.py",  # what a diagnosis finds
    "gradcalc.engine.compile.program": "engine/test_sweep.py",  # the program a sweep records
    "gradcalc.engine.evaluate.display": "render/test_html.py",  # results shown in a notebook
    "gradcalc.engine.evaluate.points": "cli/test_cli_points.py",  # --at points and their errors
    "gradcalc.engine.compile.native_code": "engine/test_native.py",  # each function and program run
    "gradcalc.engine.compile.native_rules": "engine/test_native_bounds.py",  # each rule's boundary
    "gradcalc.engine.compile.replay_steps": "engine/test_replay.py",  # numpy's steps, bit for bit
    "gradcalc.io.arrays": "io/test_files.py",  # .npy/.npz columns
    "gradcalc.io.parquet": "io/test_files.py",  # Parquet and Arrow columns
    "gradcalc.io.results": "io/test_bad_data.py",  # --out files written a chunk at a time
    "gradcalc.render.views.derivative": "cli/test_cli_pointfree.py",  # derivatives without a point
    "gradcalc.render.pieces.gradient": "cli/test_cli_grad.py",  # every format of grad's answer
    "gradcalc.render.drawings.layout": "render/test_graph_svg.py",  # the drawing's boxes and layers
    "gradcalc.render.views.pointfree": "cli/test_cli_pointfree.py",  # formulas in each format
    "gradcalc.render.views.views": "render/test_formats.py",  # every view through every format
    "gradcalc.render.views.matrices": "engine/test_higher.py",  # hessian and jacobian, each format
    "gradcalc.render.views.verdicts": "apps/test_check.py",  # check's verdicts, each format
    "gradcalc.render.views.optimizers": "cli/test_cli_minimize.py",  # and cli/test_cli_fit.py
    "gradcalc.apps.views": "render/test_formats.py",  # the apps' views, likewise
    "gradcalc.apps.explain.explain_render": "apps/test_explain.py",  # an explanation in each format
    "gradcalc.apps.explain.explanation": "apps/test_explain.py",  # the records explain builds
    "gradcalc.apps.plot.figures": "apps/test_plot.py",  # every plot, in the terminal and in files
    "gradcalc.cli.app": "cli/test_cli_niceties.py",  # root options, exits, suggestions
    "gradcalc.cli.context": "cli/test_repl_checks.py",  # one AppContext for REPL and Typer
    "gradcalc.cli.inputs": "cli/test_cli_grad.py",  # expressions and points from files, stdin
    "gradcalc.cli.ipython": "test_notebook.py",  # %gradcalc in a real IPython shell
    "gradcalc.cli.limits": "test_safety.py",  # CPU and memory caps, real processes
    "gradcalc.cli.options": "cli/test_cli_help.py",  # the shared options in every --help
    "gradcalc.cli.parsing": "cli/test_cli_points.py",  # option values read from the line
    "gradcalc.cli.commands.check": "apps/test_check.py",  # the command beside its app
    "gradcalc.cli.commands.critical": "cli/test_cli_pointfree.py",
    "gradcalc.cli.commands.diff": "cli/test_cli_pointfree.py",
    "gradcalc.cli.commands.explain": "apps/test_explain.py",
    "gradcalc.cli.commands.graph": "render/test_drawing.py",
    "gradcalc.cli.commands.hessian": "engine/test_higher.py",
    "gradcalc.cli.commands.jacobian": "engine/test_higher.py",
    "gradcalc.cli.commands.ops": "apps/test_catalog.py",
    "gradcalc.cli.commands.repl": "cli/test_repl.py",
    "gradcalc.cli.commands.taylor": "cli/test_cli_pointfree.py",
}


def mirror(module: str) -> Path:
    """The test file named after a module: ``tests/<layer>/test_<module>.py`` (a room's module
    too: the tests of a layer lie side by side); a command's is
    ``tests/cli/test_cli_<command>.py``, the modules of another subpackage share
    ``test_<subpackage>.py``.

    >>> mirror("gradcalc.core.ops.trig").as_posix().endswith("tests/core/test_ops.py")
    True
    >>> mirror("gradcalc.engine.compile.replay").as_posix().endswith("tests/engine/test_replay.py")
    True
    """
    _, layer, name, *rest = module.split(".")
    if name == "commands":
        return TESTS / layer / f"test_{layer}_{rest[-1]}.py"
    if layer in ROOMS:
        return TESTS / layer / f"test_{(rest or [name])[-1]}.py"
    return TESTS / layer / f"test_{name}.py"


def test_the_tests_mirror_the_package() -> None:
    modules = [m for m, path in MODULES.items() if path.name != "__init__.py" and m.count(".") > 1]
    untested = [m for m in modules if not mirror(m).exists() and m not in TESTED_ELSEWHERE]
    assert not untested, f"no tests/<layer>/test_<module>.py (or TESTED_ELSEWHERE): {untested}"
    stale = [m for m in TESTED_ELSEWHERE if m not in modules or mirror(m).exists()]
    assert not stale, f"TESTED_ELSEWHERE lists modules gone or with their own test file: {stale}"
    missing = [f for f in TESTED_ELSEWHERE.values() if not (TESTS / f).exists()]
    assert not missing, f"TESTED_ELSEWHERE names test files that do not exist: {missing}"


#: The most lines a module may have, docstrings and comments included.
MAX_MODULE_LINES = 500
#: The most lines a function may have, from ``def`` to its last line; a Typer command's
#: signature (its options, each with its help) does not count, only its body.
MAX_FUNCTION_LINES = 60


def _is_typer_command(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    arguments = [*function.args.args, *function.args.kwonlyargs]
    return any(a.annotation and "typer." in ast.unparse(a.annotation) for a in arguments)


def function_lengths(source: str) -> Iterator[tuple[str, int]]:
    """Each function's name and length in lines (a Typer command's: its body's).

    >>> dict(function_lengths("def f():\\n    '''Doc.'''\\n    return 1\\n"))
    {'f': 3}
    """
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            first = node.body[0].lineno if _is_typer_command(node) else node.lineno
            yield node.name, node.end_lineno - first + 1


def test_modules_are_small() -> None:
    sizes = {module: len(path.read_text().splitlines()) for module, path in MODULES.items()}
    large = {module: lines for module, lines in sizes.items() if lines > MAX_MODULE_LINES}
    assert not large, f"modules over {MAX_MODULE_LINES} lines (split them by job): {large}"


def test_functions_are_short() -> None:
    long = {
        f"{module}.{name}": lines
        for module, path in MODULES.items()
        for name, lines in function_lengths(path.read_text())
        if lines > MAX_FUNCTION_LINES
    }
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"
