"""Draw a gradient's op graph -- like micrograd's ``draw_dot`` -- as Graphviz DOT or Mermaid.

Every node shows its value and its adjoint (∂target/∂node) at one point:

- one node per variable (``value``; ``adjoint`` = the gradient component; a variable the
  target does not use shows ``adjoint = 0``; a variable left out of ``wrt`` has no adjoint
  line, since none was computed for it);
- one node per tape record: ``#k op``, the formula (``y = x^2`` when the record was
  assigned to a statement), ``value = …``, ``adjoint = …`` (``—`` for a record the target
  does not depend on);
- constants as small plain nodes, **one per use** (the ``2`` of ``w1 ** 2`` and the ``2`` of
  ``2 * w1`` are two nodes), showing the number as the tape names it;
- one edge per record input, from the input to the record (``x * x`` has two edges from
  ``x``), so the edge count is the total number of record inputs;
- the target (the record the backward pass started from, or the variable itself for a target
  such as ``z = x``) highlighted.

>>> from gradcalc import grad
>>> result = grad("3*w1**2 + 2*w1*w2", at={"w1": 5, "w2": 3}, check=False)
>>> print(to_dot(result).splitlines()[0])
digraph gradcalc {
>>> print(to_mermaid(result).splitlines()[0])
flowchart LR

The drawing is meant for :func:`gradcalc.grad` results (first-order tapes). The tapes of
``hessian`` and ``derivatives`` also hold second-order records whose adjoints come from the
last backward pass, not from the target: they draw, but the adjoints are not ∂target/∂node.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gradcalc.core.errors import InputError, reason_of
from gradcalc.core.numbers import format_number
from gradcalc.engine.evaluate.evaluate import TapeRow
from gradcalc.engine.run.api import GradResult
from gradcalc.render.pieces.gradient import at_point, point_values, read_as_line

RENDERED = {".svg": "svg", ".png": "png"}
SUFFIXES = (".svg", ".png", ".dot")
DOT_TIMEOUT = 60.0
MAX_DRAWN = 5_000  # tape records a drawing holds at most (30,000 terms: 99 MB of SVG, 12 s)

_ONE_LINE = re.compile(r"\s*;?\s*[\r\n]+\s*")
_ENTITY_LIKE = re.compile(r"#(?=\w+;)")
_MERMAID = {"&": "#amp;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "\n": " ", "\r": " "}


@dataclass(frozen=True)
class Node:
    """One node of the drawing: its id, its label lines and its kind."""

    id: str
    lines: tuple[str, ...]
    kind: str  # "variable", "record" or "constant"
    target: bool = False
    off_path: bool = False  # a record the target does not depend on


@dataclass(frozen=True)
class Drawing:
    """What every format draws: the title lines, the nodes (variables first, then each
    record after its constants) and the edges (input, record), one per record input."""

    title: tuple[str, ...]
    nodes: list[Node]
    edges: list[tuple[str, str]]


def to_dot(result: GradResult, k: int = 0, *, digits: int | None = None) -> str:
    """Graphviz DOT text of ``result``'s op graph with values and adjoints at point ``k``.

    Left to right (``rankdir=LR``); variables are ellipses, records boxes, constants small
    plain text; the target is filled and bold; records the target does not depend on are
    dashed and grey. ``digits`` rounds the numbers (default: as short as exact).

    >>> from gradcalc import grad
    >>> result = grad("y = x**2; z = y**2", at={"x": 3}, check=False)
    >>> print(to_dot(result))  # doctest: +NORMALIZE_WHITESPACE
    digraph gradcalc {
      graph [rankdir=LR, labelloc=t, fontname="Helvetica",
             label="read as: y = x^2; z = y^2\\nat x = 3   (adjoint = ∂z/∂node)"];
      node [fontname="Helvetica", fontsize=11, shape=box, style=rounded];
      edge [color="#555555", arrowsize=0.7];
      "v0" [label="x\\nvalue = 3\\nadjoint = 108", shape=ellipse];
      "c1_1" [label="2", shape=plaintext, fontsize=9, width=0.2, height=0.2, margin=0];
      "r1" [label="#1 pow\\ny = x^2\\nvalue = 9\\nadjoint = 18"];
      "c2_1" [label="2", shape=plaintext, fontsize=9, width=0.2, height=0.2, margin=0];
      "r2" [label="#2 pow\\nz = y^2\\nvalue = 81\\nadjoint = 1",
            style="rounded,filled,bold", fillcolor="#ffe9a8", penwidth=2];
      "v0" -> "r1";
      "c1_1" -> "r1";
      "r1" -> "r2";
      "c2_1" -> "r2";
    }

    Raises:
        InputError: ``k`` is not the index of one of the points.
    """
    drawing = op_graph(result, k, digits)
    title = "\\n".join(dot_escape(line) for line in drawing.title)
    out = [
        "digraph gradcalc {",
        f'  graph [rankdir=LR, labelloc=t, fontname="Helvetica", label="{title}"];',
        '  node [fontname="Helvetica", fontsize=11, shape=box, style=rounded];',
        '  edge [color="#555555", arrowsize=0.7];',
    ]
    for node in drawing.nodes:
        label = "\\n".join(dot_escape(line) for line in node.lines)
        attributes = [f'label="{label}"']
        if node.kind == "variable":
            attributes.append("shape=ellipse")
        elif node.kind == "constant":
            attributes += ["shape=plaintext", "fontsize=9", "width=0.2", "height=0.2", "margin=0"]
        if node.target:
            style = "filled,bold" if node.kind == "variable" else "rounded,filled,bold"
            attributes += [f'style="{style}"', 'fillcolor="#ffe9a8"', "penwidth=2"]
        elif node.off_path:
            attributes += ['style="rounded,dashed"', 'color="#999999"', 'fontcolor="#777777"']
        out.append(f'  "{node.id}" [{", ".join(attributes)}];')
    out += [f'  "{source}" -> "{record}";' for source, record in drawing.edges]
    out.append("}")
    return "\n".join(out) + "\n"


def to_mermaid(result: GradResult, k: int = 0, *, digits: int | None = None) -> str:
    """Mermaid ``flowchart LR`` text with the same nodes and edges as :func:`to_dot`.

    Labels are quoted (``id["..."]``), lines joined with ``<br/>``, and characters Mermaid
    cannot take in a label written as entity codes (see :func:`mermaid_escape`).

    >>> from gradcalc import grad
    >>> result = grad("x*x", at={"x": 3}, check=False)
    >>> print(to_mermaid(result))
    flowchart LR
        %% read as: f(x) = x·x / at x = 3   (adjoint = ∂f/∂node)
        v0(["x<br/>value = 3<br/>adjoint = 6"]):::variable
        r1["#1 mul<br/>x·x<br/>value = 9<br/>adjoint = 1"]:::target
        v0 --> r1
        v0 --> r1
        classDef variable fill:#eef4ff,stroke:#4a6fa5
        classDef constant fill:none,stroke:none,font-size:10px
        classDef target fill:#ffe9a8,stroke:#b58900,stroke-width:2px
        classDef offpath stroke-dasharray:4 3,color:#777777
    <BLANKLINE>

    Raises:
        InputError: ``k`` is not the index of one of the points.
    """
    drawing = op_graph(result, k, digits)
    comment = " / ".join(drawing.title).replace("%%", "% %")
    out = ["flowchart LR", f"    %% {comment}"]
    for node in drawing.nodes:
        label = "<br/>".join(mermaid_escape(line) for line in node.lines)
        shape = f'(["{label}"])' if node.kind == "variable" else f'["{label}"]'
        css = "target" if node.target else "offpath" if node.off_path else node.kind
        suffix = "" if css == "record" else f":::{css}"
        out.append(f"    {node.id}{shape}{suffix}")
    out += [f"    {source} --> {record}" for source, record in drawing.edges]
    out += [
        "    classDef variable fill:#eef4ff,stroke:#4a6fa5",
        "    classDef constant fill:none,stroke:none,font-size:10px",
        "    classDef target fill:#ffe9a8,stroke:#b58900,stroke-width:2px",
        "    classDef offpath stroke-dasharray:4 3,color:#777777",
    ]
    return "\n".join(out) + "\n"


def dot_escape(text: str) -> str:
    """``text`` for a double-quoted DOT string: backslashes and quotes escaped, line breaks
    as DOT's ``\\n``.

    >>> print(dot_escape('a"b\\\\c'))
    a\\"b\\\\c
    """
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "").replace("\n", "\\n")


def mermaid_escape(text: str) -> str:
    """``text`` for a quoted Mermaid label: ``"`` ``<`` ``>`` ``&`` as entity codes
    (``#quot;`` ...), a ``#`` that would start an entity code as ``#35;``, line breaks as
    spaces (join lines with ``<br/>`` yourself).

    >>> mermaid_escape('a"b<c>&#1;')
    'a#quot;b#lt;c#gt;#amp;#35;1;'
    >>> mermaid_escape("#1 + #2")
    '#1 + #2'
    """
    text = _ENTITY_LIKE.sub("#35;", text)
    return "".join(_MERMAID.get(ch, ch) for ch in text)


def render_file(dot_text: str, path: str | Path) -> None:
    """Write ``dot_text`` to ``path``: ``.svg`` and ``.png`` are drawn by Graphviz's ``dot``
    program (found on ``PATH``), ``.dot`` is the text itself.

    The picture is drawn in a temporary folder beside ``path`` and moved into place, so a
    failed run leaves no half-written file.

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "graph.dot"
    >>> render_file("digraph { a -> b }\\n", out)
    >>> out.read_text()
    'digraph { a -> b }\\n'
    >>> render_file("digraph { a -> b }", out.with_suffix(".svg"))  # doctest: +SKIP
    >>> out.with_suffix(".svg").read_text()[:5]  # doctest: +SKIP
    '<?xml'
    >>> render_file("digraph {}", "graph.pdf")
    Traceback (most recent call last):
    ...
    gradcalc.core.errors.InputError: cannot write graph.pdf: the supported suffixes are .svg, .p...

    Raises:
        InputError: an unsupported suffix, ``dot`` missing or failing, or a path that
            cannot be written.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(
            f"cannot write {path.name}: the supported suffixes are {', '.join(SUFFIXES)}"
        )
    if suffix == ".dot":
        write_text(path, dot_text)
        return
    program = shutil.which("dot")
    if program is None:
        raise InputError(
            f"the Graphviz program 'dot' is needed to write {path.name}: install it "
            "(Debian/Ubuntu: sudo apt-get install graphviz; macOS: brew install graphviz), "
            "or write .svg (gradcalc draws it) or .dot"
        )
    try:
        scratch = tempfile.TemporaryDirectory(prefix=".gradcalc-", dir=path.parent)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        raise InputError(f"cannot write {path}: {reason_of(error)}") from None
    with scratch:
        temporary = Path(scratch.name) / path.name
        _run_dot([program, f"-T{RENDERED[suffix]}", f"-o{temporary}"], dot_text, path.name)
        try:
            os.replace(temporary, path)
        except (OSError, ValueError) as error:  # ValueError: a NUL in the path
            raise InputError(f"cannot write {path}: {reason_of(error)}") from None


def _run_dot(command: list[str], dot_text: str, name: str) -> None:
    """Run Graphviz's ``dot`` on ``dot_text``; its failures as one-line input errors."""
    try:
        done = subprocess.run(
            command,
            input=dot_text,
            text=True,
            capture_output=True,
            timeout=DOT_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InputError(
            f"Graphviz 'dot' took more than {DOT_TIMEOUT:g} s to draw {name}"
        ) from None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        raise InputError(f"cannot run Graphviz 'dot': {reason_of(error)}") from None
    if done.returncode != 0:
        lines = (done.stderr or "").strip().splitlines()
        detail = lines[0] if lines else f"exit status {done.returncode}"
        raise InputError(f"Graphviz 'dot' could not draw {name}: {detail}")


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8, whole or not at all: under a temporary name
    beside it, then renamed over it (:class:`gradcalc.io.written.Replacing`).

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "graph.svg"
    >>> write_text(out, "<svg/>")
    >>> write_text(out / "inside", "x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: cannot write .../graph.svg/inside: ...

    Raises:
        InputError: the path cannot be written.
    """
    from gradcalc.io.written import Replacing

    new = Replacing(str(path))
    try:
        with new.open_text() as stream:
            stream.write(text)
    except OSError as error:
        new.discard()
        raise InputError(f"cannot write {path}: {reason_of(error)}") from None
    new.commit()


# --- the graph, independent of the output format --------------------------------------


def op_graph(result: GradResult, k: int = 0, digits: int | None = None) -> Drawing:
    """The nodes and edges at point ``k``, for any output format.

    Each row input says what it is: an earlier record (an edge from that record's node), a
    variable of ``result.points`` (an edge from the variable), or anything else (``2``,
    ``pi``, a folded ``6.28319``: a constant node of its own).

    >>> from gradcalc import grad
    >>> drawing = op_graph(grad("x*x + 1", at={"x": 3}, check=False))
    >>> [node.lines for node in drawing.nodes]  # doctest: +NORMALIZE_WHITESPACE
    [('x', 'value = 3', 'adjoint = 6'), ('#1 mul', 'x·x', 'value = 9', 'adjoint = 1'),
     ('1',), ('#2 add', '#1 + 1', 'value = 10', 'adjoint = 1')]
    >>> drawing.edges
    [('v0', 'r1'), ('v0', 'r1'), ('r1', 'r2'), ('c2_1', 'r2')]
    """
    count = result.points.count
    if not 0 <= k < count:
        raise InputError(f"point {k} does not exist: the points are numbered 0 to {count - 1}")
    if len(result.tape) > MAX_DRAWN:
        raise InputError(
            f"the graph has {len(result.tape):,} tape records; a drawing holds at most "
            f"{MAX_DRAWN:,} (no one can read more): draw a part of the expression, or see "
            "the numbers with gradcalc grad"
        )

    def number(value: object) -> str:
        return format_number(at_point(np.asarray(value), k), digits)

    target_row = _target_row(result)
    variables = {name: f"v{i}" for i, name in enumerate(result.points.names)}
    nodes = _variable_nodes(result, variables, target_row, number)
    edges = _record_nodes(result.tape, variables, target_row, number, nodes)
    return Drawing(_title(result, k, digits), nodes, edges)


def _variable_nodes(
    result: GradResult,
    variables: Mapping[str, str],
    target_row: TapeRow | None,
    number: Callable[[object], str],
) -> list[Node]:
    """One node per variable: its value and adjoint; the target when the expression is one
    variable (no record computes it)."""
    target_variable = None
    if target_row is None:
        connected = [n for n, g in result.gradient.items() if g is not None and n in variables]
        if len(connected) == 1:
            target_variable = connected[0]
    nodes = []
    for name, node_id in variables.items():
        lines = [name, f"value = {number(result.points.arrays[name])}"]
        if name in result.gradient:
            gradient = result.gradient[name]
            lines.append(f"adjoint = {number(0.0 if gradient is None else gradient)}")
        nodes.append(Node(node_id, tuple(lines), "variable", target=name == target_variable))
    return nodes


def _record_nodes(
    rows: Sequence[TapeRow],
    variables: Mapping[str, str],
    target_row: TapeRow | None,
    number: Callable[[object], str],
    nodes: list[Node],
) -> list[tuple[str, str]]:
    """Append a node per record (and one per constant input) to ``nodes``; the edges."""
    edges: list[tuple[str, str]] = []
    drawn = {row.index for row in rows}
    for row in rows:
        node_id = f"r{row.index}"
        for position, operand in enumerate(row.inputs):
            if operand.record in drawn:
                source = f"r{operand.record}"
            elif operand.kind == "variable" and operand.name in variables:
                source = variables[operand.name]
            else:
                source = f"c{row.index}_{position}"
                nodes.append(Node(source, (operand.name,), "constant"))
            edges.append((source, node_id))
        formula = row.statement
        adjoint = "—" if row.adjoint is None else number(row.adjoint)
        heading = (f"#{row.index} {row.op}", formula, f"value = {number(row.value)}")
        nodes.append(
            Node(
                node_id,
                (*heading, f"adjoint = {adjoint}"),
                "record",
                target=row is target_row,
                off_path=row.adjoint is None,
            )
        )
    return edges


def _title(result: GradResult, k: int, digits: int | None) -> tuple[str, ...]:
    """The expression as read, the point, and why the gradient is undefined there if it is."""
    point = ", ".join(
        f"{n} = {format_number(v, digits)}" for n, v in point_values(result, k).items()
    )
    where = f"at {point}   " if point else ""
    if result.points.count > 1:
        where = f"point {k}: {where}"
    title = [
        _ONE_LINE.sub("; ", read_as_line(result).plain.strip()),
        f"{where}(adjoint = ∂{result.target}/∂node)",
    ]
    reason = result.reason(k)
    if reason:
        title.append(f"gradient undefined here: {reason}")
    return tuple(title)


def _target_row(result: GradResult) -> TapeRow | None:
    """The record the backward pass started from: the last record with an adjoint.

    Only records the target depends on get one, and they all come before the target on the
    tape. ``None`` when no record has one (the target is a variable or a constant).
    """
    for row in reversed(result.tape):
        if row.adjoint is not None:
            return row
    return None
