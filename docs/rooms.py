"""The rooms of gradcalc and the path of one ``grad`` through them: measured, and drawn.

The path is traced, not told: :func:`trace` runs :data:`COMMAND` in a fresh process under a
profiler (:func:`sys.setprofile`) and keeps every call from one gradcalc module into another
while the command runs (not while modules are imported). Calls into ``core`` are left out
(the array type, the ops, the number formatter: the floor every layer stands on), and so are
methods (``Graph.variable_node``, ``Points.count``, ``GradView.tables``: reading an object
handed along the path, not a step of it). :func:`figures` counts what is left;
:func:`picture` draws the layers, their rooms with their sizes and the path as an SVG, which
``docs/pictures.py`` adds to the site as ``images/rooms.svg`` (docs/architecture.md shows
it). From the repository root::

    python docs/rooms.py                  # the figures, and the path step by step
    python docs/rooms.py --out rooms.svg  # and the picture
    python docs/rooms.py --table          # each room's size

The layers and rooms are read from ``tests/test_architecture.py`` (:data:`LAYERS`,
:data:`ROOMS`), which enforces them; the sizes from the package's files.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from html import escape
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gradcalc"
COMMAND = ("grad", "3*w1**2+2*w1*w2", "--at", "w1=5,w2=3")


def _table(name: str) -> Any:
    """The value of ``NAME = <literal>`` in tests/test_architecture.py (read, not imported:
    the docs build needs no pytest)."""
    tree = ast.parse((ROOT / "tests/test_architecture.py").read_text(encoding="utf-8"))
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign):
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == name and node.value is not None:
            return ast.literal_eval(node.value)
    raise LookupError(f"tests/test_architecture.py defines no {name}")


#: The layers, lowest first, and the rooms of the layers split into rooms (the test's).
LAYERS: tuple[str, ...] = _table("LAYERS")
ROOMS: dict[str, tuple[str, ...]] = _table("ROOMS")
FLOOR = "core"  # calls into it are not steps of the path

#: The steps of a command, in their order: its options (cli), reading its text and data
#: (lang, io), computing (engine, symbolic, apps), showing the result (render). A call from
#: a layer of a later step into a layer of an earlier one climbs back (render asking
#: symbolic, the engine reading text); cli, which runs the steps, calls each.
STAGES = {"cli": 0, "lang": 1, "io": 1, "symbolic": 2, "engine": 2, "apps": 2, "render": 3}

#: Run in the traced process: the command, every call between two gradcalc modules as a JSON
#: line ``[caller, callee, function, a method?]`` written to the file ``argv[1]``.
TRACER = """
import json, sys
out, sys.argv = open(sys.argv[1], "w"), ["gradcalc", *sys.argv[2:]]
def module(frame):
    while frame is not None and not frame.f_globals.get("__name__", "").startswith("gradcalc"):
        frame = frame.f_back
    return frame
def profile(frame, event, arg):
    name = frame.f_globals.get("__name__", "")
    if event != "call" or not name.startswith("gradcalc.") or frame.f_code.co_name == "<module>":
        return
    caller, up, code = module(frame.f_back), frame.f_back, frame.f_code
    if caller is None or caller.f_globals["__name__"] == name:
        return
    while up is not None:
        if "importlib" in up.f_code.co_filename:
            return
        up = up.f_back
    method = code.co_argcount > 0 and code.co_varnames[0] in ("self", "cls")
    row = [caller.f_globals["__name__"], name, code.co_name, method]
    out.write(json.dumps(row) + "\\n")
import atexit
atexit.register(lambda: (sys.setprofile(None), out.close()))
from gradcalc.cli.app import main
sys.setprofile(profile)
main()
"""


class Step(NamedTuple):
    """One call from a module into another on the path."""

    caller: str
    callee: str
    function: str
    #: a call from a layer of a later step into a layer of an earlier one
    back: bool


def layer(module: str) -> str:
    """The layer of a module.

    >>> layer("gradcalc.render.views.views")
    'render'
    """
    return module.split(".")[1]


def trace(command: tuple[str, ...] = COMMAND) -> list[list]:
    """The calls between gradcalc modules while ``gradcalc COMMAND`` runs, in order: each
    ``[caller, callee, function, a method?]``."""
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
        done = subprocess.run(
            [sys.executable, "-c", TRACER, out.name, *command],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={  # this checkout's gradcalc, with no GRADCALC_* setting of the caller's
                **{k: v for k, v in os.environ.items() if not k.startswith("GRADCALC_")},
                "PYTHONPATH": str(ROOT),
                "COLUMNS": "100",
            },
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"gradcalc {' '.join(command)} exited {done.returncode}: {done.stderr}"
            )
        return [json.loads(line) for line in out.read().splitlines()]


def steps(calls: list[list]) -> list[Step]:
    """The path: the calls that are steps (not into ``core``, not methods), each marked
    when it climbs back from a later step (:data:`STAGES`) to an earlier one.

    >>> path = steps([
    ...     ["gradcalc.cli.a", "gradcalc.lang.r", "read", False],
    ...     ["gradcalc.cli.a", "gradcalc.engine.b", "f", False],
    ...     ["gradcalc.engine.b", "gradcalc.core.c", "g", False],
    ...     ["gradcalc.cli.a", "gradcalc.render.d", "h", False],
    ...     ["gradcalc.render.d", "gradcalc.engine.b", "count", True],
    ...     ["gradcalc.render.d", "gradcalc.symbolic.e", "k", False],
    ...     ["gradcalc.engine.b", "gradcalc.symbolic.e", "k", False],
    ... ])
    >>> [(s.callee, s.back) for s in path]
    [('gradcalc.lang.r', False), ('gradcalc.engine.b', False), ('gradcalc.render.d', False), \
('gradcalc.symbolic.e', True), ('gradcalc.symbolic.e', False)]
    """
    return [
        Step(caller, callee, function, STAGES[layer(callee)] < STAGES[layer(caller)])
        for caller, callee, function, method in calls
        if FLOOR not in (layer(callee), layer(caller)) and not method
    ]


def figures(path: list[Step]) -> dict[str, int]:
    """What the path counts: the modules it enters, its entries (calls from one module into
    another), the layer crossings among them, the climbs back (from a layer of a later step
    into one of an earlier step) and the upward calls (into a higher layer than the
    caller's, which only a callback can make).

    >>> figures([Step("gradcalc.cli.a", "gradcalc.engine.b", "f", False)])
    {'modules': 2, 'entries': 1, 'layer crossings': 1, 'climbs back': 0, 'upward calls': 0}
    """
    rank = LAYERS.index
    return {
        "modules": len({s.caller for s in path} | {s.callee for s in path}),
        "entries": len(path),
        "layer crossings": sum(layer(s.caller) != layer(s.callee) for s in path),
        "climbs back": sum(s.back for s in path),
        "upward calls": sum(rank(layer(s.callee)) > rank(layer(s.caller)) for s in path),
    }


class Room(NamedTuple):
    """A room (or a layer's loose modules) and its size."""

    layer: str
    name: str
    modules: int
    lines: int


def rooms() -> list[Room]:
    """Every layer's rooms with their sizes (modules, lines), lowest layer first: in a layer
    of :data:`ROOMS` its rooms in their order (a lone module is a room too); in another, its
    loose modules (the room ``""``), then its subpackages.

    >>> [r.name for r in rooms() if r.layer == "render"]
    ['output', 'pieces', 'drawings', 'views', 'notebook']
    """
    found = []
    for name in LAYERS:
        folder = PACKAGE / name
        if name in ROOMS:
            places = [(room, folder / room) for room in ROOMS[name]]
        else:
            subpackages = sorted(p.parent for p in folder.glob("*/__init__.py"))
            places = [("", folder), *((p.name, p) for p in subpackages)]
        for room, place in places:
            files = [place.with_suffix(".py")] if not place.is_dir() else sorted(place.glob("*.py"))
            files = [p for p in files if p.name != "__init__.py"]
            lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files)
            found.append(Room(name, room, len(files), lines))
    return found


LANE, TOP, LEFT, GAP = 52.0, 56.0, 440.0, 22.0  # a layer's height; the margins; a step's width
LABELS = 190.0  # the band under the lanes where each step is named
FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
CALL, BACK, AGAIN = "#2f6db5", "#b8b8b8", "#a8322d"  # a call, a return, a climb back


def _lane_text(layer: str, found: list[Room]) -> list[str]:
    """A layer's rooms and sizes as lines of at most 56 characters."""
    words = [f"{r.name or 'at its top'} {r.modules}" for r in found if r.layer == layer]
    lines, line = [], ""
    for word in words:
        if line and len(line) + len(word) + 3 > 56:
            lines.append(line)
            line = ""
        line = f"{line} · {word}" if line else word
    return [*lines, line][:2]


class Move(NamedTuple):
    """Consecutive calls from one layer into another, drawn as one step of the picture."""

    source: str
    target: str
    back: bool
    calls: int
    label: str  # the first call's module and function, ``api.gradient_at``


def moves(path: list[Step]) -> list[Move]:
    """The path's layer crossings, consecutive ones between the same two layers as one.

    >>> moves([
    ...     Step("gradcalc.engine.run.api", "gradcalc.symbolic.x.y", "f", False),
    ...     Step("gradcalc.engine.run.api", "gradcalc.engine.judge.z", "g", False),
    ...     Step("gradcalc.engine.judge.z", "gradcalc.symbolic.x.y", "h", False),
    ... ])
    [Move(source='engine', target='symbolic', back=False, calls=2, label='y.f')]
    """
    found: list[Move] = []
    for step in path:
        source, target = layer(step.caller), layer(step.callee)
        if source == target:
            continue
        last = found[-1] if found else None
        if last and (last.source, last.target, last.back) == (source, target, step.back):
            found[-1] = last._replace(calls=last.calls + 1)
        else:
            label = f"{step.callee.rpartition('.')[2]}.{step.function}"
            found.append(Move(source, target, step.back, 1, label))
    return found


def picture(path: list[Step], found: list[Room]) -> str:
    """The SVG: a lane per layer (the highest on top) with its rooms and their sizes, and the
    path from left to right -- a blue line where a call enters another layer, red where it
    climbs back to an earlier step, grey where a call returns.

    >>> svg = picture([Step("gradcalc.cli.a", "gradcalc.engine.b", "f", False)], rooms())
    >>> svg.startswith("<svg") and svg.count('stroke="#2f6db5"') == 1
    True
    """
    lanes = list(reversed(LAYERS))
    steps = moves(path)
    width = max(LEFT + GAP * (len(steps) + 2), 960.0)  # (the legend's width)
    height = TOP + LANE * len(lanes) + LABELS + 40
    y = {name: TOP + LANE * i + LANE / 2 for i, name in enumerate(lanes)}
    sizes = {name: sum(r.lines for r in found if r.layer == name) for name in lanes}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{FONT}" font-size="11">',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
        _text(12, 24, f"gradcalc {' '.join(COMMAND)}: its path through the layers", 13, True),
    ]
    for i, name in enumerate(lanes):
        top = TOP + LANE * i
        fill = "#f4f6fa" if i % 2 else "#ffffff"
        parts.append(
            f'<rect x="0" y="{top:.0f}" width="{width:.0f}" height="{LANE:.0f}" fill="{fill}"/>'
        )
        parts.append(_text(12, top + 18, f"{name}/  ({sizes[name]:,} lines)", 12, True))
        for k, line in enumerate(_lane_text(name, found)):
            parts.append(_text(12, top + 33 + 12 * k, line, 11, False))
    x, last, bottom = LEFT + GAP, None, TOP + LANE * len(lanes)
    for move in steps:
        start, end = y[move.source], y[move.target]
        if last is not None and last != start:
            parts.append(_line(x - GAP, last, x, start, BACK, 1.2))
        colour = AGAIN if move.back else CALL
        parts.append(_line(x, start, x + GAP * 0.7, end, colour, 2.2))
        parts.append(f'<circle cx="{x + GAP * 0.7:.1f}" cy="{end:.1f}" r="2.6" fill="{colour}"/>')
        label = move.label + (f" ×{move.calls}" if move.calls > 1 else "")
        parts.append(
            f'<text transform="translate({x + GAP * 0.7 + 3:.1f},{bottom + 8:.0f}) rotate(90)" '
            f'font-size="10" fill="{colour}">{escape(label)}</text>'
        )
        last, x = end, x + GAP
    counts = figures(path)
    legend = (
        f"{counts['modules']} modules, {counts['entries']} entries, "
        f"{counts['layer crossings']} of them into another layer (blue), "
        f"{counts['climbs back']} climbing back to an earlier step (red); grey: a return."
    )
    note = (
        "Traced (docs/rooms.py): every call from one gradcalc module into another; calls "
        "into core and methods of objects handed along are left out."
    )
    parts.append(_text(12, height - 28, legend, 11, False))
    parts.append(_text(12, height - 12, note, 11, False))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _text(x: float, y: float, text: str, size: float, bold: bool) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size:.0f}"{weight}>{escape(text)}</text>'


def _line(x1: float, y1: float, x2: float, y2: float, colour: str, width: float) -> str:
    return (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="{colour}" stroke-width="{width}"/>'
    )


def main(argv: list[str]) -> int:
    """Print the figures and the path's layer crossings; with ``--out FILE``, draw it; with
    ``--table``, print each room's size instead (docs/architecture.md's table)."""
    if "--table" in argv:
        for room in rooms():
            print(f"{room.layer}/{room.name}: {room.modules} modules, {room.lines:,} lines")
        return 0
    path = steps(trace())
    for step in path:
        if layer(step.caller) != layer(step.callee):
            mark = "  (climbs back)" if step.back else ""
            callee = step.callee.removeprefix("gradcalc.")
            print(f"{step.caller.removeprefix('gradcalc.')} -> {callee}.{step.function}{mark}")
    print(json.dumps(figures(path)))
    if "--out" in argv:
        Path(argv[argv.index("--out") + 1]).write_text(picture(path, rooms()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
