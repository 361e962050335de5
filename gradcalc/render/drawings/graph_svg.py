"""Draw a gradient's op graph as SVG with gradcalc's own layout (no Graphviz needed).

The same nodes and edges as the DOT and Mermaid drawings
(:func:`gradcalc.render.drawings.drawing.op_graph`), laid out left to right by
:mod:`gradcalc.render.drawings.layout`: variables as blue pills, records as boxes (``#k op``,
the formula, ``value = …`` and, in red, ``adjoint = …``), constants as small text, the target
filled yellow, records off the target's path dashed and grey. Text is set in a monospaced
font, so the boxes fit their text without measuring it.

The output is the same bytes for the same result (no dates, no random ids), so a generated
picture can be kept in a repository and compared.

>>> from gradcalc import grad
>>> svg = to_svg(grad("y = x**2; z = y**2", at={"x": 3}, check=False))
>>> svg.startswith("<svg "), svg.count('class="edge"'), "adjoint = 108" in svg
(True, 4, True)
"""

from __future__ import annotations

from html import escape

from gradcalc.engine.run.api import GradResult
from gradcalc.render.drawings.drawing import Drawing, Node, op_graph
from gradcalc.render.drawings.layout import MARGIN, layout

FONT = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace"
SIZE = 12.0  # font size of the labels
SMALL = 11.0  # of constants
TITLE = 13.0
CHAR = 0.62  # a monospaced character's advance, in ems (DejaVu 0.60, Menlo 0.60)
LINE = 1.35  # line height, in ems
PAD = (9.0, 6.0)  # inside a box: horizontal, vertical

STYLE = {  # kind -> (fill, stroke, stroke width, dash, text colour)
    "variable": ("#eef4ff", "#4a6fa5", 1.2, "", "#1b2a41"),
    "record": ("#ffffff", "#555555", 1.2, "", "#1b1b1b"),
    "target": ("#ffe9a8", "#b58900", 2.2, "", "#1b1b1b"),
    "offpath": ("#f7f7f7", "#999999", 1.2, "4 3", "#777777"),
}
ADJOINT = "#a8322d"  # the colour of adjoint lines: the reverse pass
EDGE = "#777777"


def to_svg(result: GradResult, k: int = 0, *, digits: int | None = None) -> str:
    """SVG text of ``result``'s op graph with values and adjoints at point ``k``.

    ``digits`` rounds the numbers (default: as short as exact). The picture has a white
    background (it stays readable on a dark page), a ``<title>`` for screen readers, and
    each node and edge is marked for programs: ``<g class="node KIND" id="ID">`` with one
    ``<text>`` per label line, ``<path class="edge" data-from="ID" data-to="ID">``.

    >>> from gradcalc import grad
    >>> svg = to_svg(grad("x*x", at={"x": 3}, check=False))
    >>> print(svg[svg.index("<title>"):svg.index("</title>") + 8])
    <title>read as: f(x) = x·x
    at x = 3   (adjoint = ∂f/∂node)</title>

    Raises:
        InputError: ``k`` is not the index of one of the points.
    """
    return draw(op_graph(result, k, digits))


def draw(drawing: Drawing) -> str:
    """SVG text of a :class:`~gradcalc.render.drawings.drawing.Drawing` (see :func:`to_svg`).

    >>> from gradcalc.render.drawings.drawing import Drawing, Node
    >>> print(draw(Drawing(("f",), [Node("v0", ("x",), "variable")], [])).splitlines()[0])
    <svg xmlns="http://www.w3.org/2000/svg" width="61" height="80" viewBox="0 0 61 80" ...>
    """
    title_height = len(drawing.title) * TITLE * LINE + 10
    sizes = {node.id: _size(node) for node in drawing.nodes}
    variables = {node.id for node in drawing.nodes if node.kind == "variable"}
    placed = layout(sizes, drawing.edges, anchored=variables, top=title_height)
    title_width = max(len(line) for line in drawing.title) * TITLE * CHAR + 2 * MARGIN
    width, height = max(placed.width, title_width), placed.height
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" font-family="{FONT}">',
        f"<title>{escape(chr(10).join(drawing.title))}</title>",
        "<defs>"
        '<marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{EDGE}"/></marker>'
        "</defs>",
        '<rect width="100%" height="100%" fill="#ffffff"/>',
    ]
    for i, line in enumerate(drawing.title):
        y = MARGIN + TITLE * (LINE * i + 1)
        out.append(_text(MARGIN, y, line, TITLE, "#333333", bold=i == 0))
    for (source, target), points in zip(drawing.edges, placed.routes):
        out.append(
            f'<path class="edge" data-from="{source}" data-to="{target}" d="{_path(points)}" '
            f'fill="none" stroke="{EDGE}" stroke-width="1.2" marker-end="url(#arrow)"/>'
        )
    for node in drawing.nodes:
        out.append(_node(node, placed.boxes[node.id]))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _kind(node: Node) -> str:
    return "target" if node.target else "offpath" if node.off_path else node.kind


def _size(node: Node) -> tuple[float, float]:
    """The box that holds the label (a constant's text has a small box of its own)."""
    size = SMALL if node.kind == "constant" else SIZE
    pad_x, pad_y = (2.0, 1.0) if node.kind == "constant" else PAD
    if node.kind == "variable":
        pad_x += 6  # the rounded ends
    width = max(len(line) for line in node.lines) * size * CHAR + 2 * pad_x
    return round(width, 1), round(len(node.lines) * size * LINE + 2 * pad_y, 1)


def _node(node: Node, box) -> str:
    kind = _kind(node)
    out = [f'<g class="node {kind}" id="{node.id}">']
    if node.kind == "constant":
        colour, size = "#333333", SMALL
    else:
        fill, stroke, thick, dash, colour = STYLE[kind]
        radius = box.height / 2 if node.kind == "variable" else 5
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" '
            f'height="{box.height:.1f}" rx="{radius:.1f}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="{thick}"{dashes}/>'
        )
        size = SIZE
    lines = len(node.lines)
    first = box.center - (lines * LINE * size) / 2
    for i, line in enumerate(node.lines):
        y = first + size * (LINE * i + 1.0)
        red = line.startswith("adjoint") and not node.off_path
        out.append(
            _text(
                box.x + box.width / 2,
                y,
                line,
                size,
                ADJOINT if red else colour,
                bold=i == 0 and node.kind != "constant",
                middle=True,
            )
        )
    out.append("</g>")
    return "".join(out)


def _text(x: float, y: float, text: str, size: float, colour: str, *, bold=False, middle=False):
    weight = ' font-weight="bold"' if bold else ""
    anchor = ' text-anchor="middle"' if middle else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" fill="{colour}"{weight}{anchor} '
        f'xml:space="preserve">{escape(text)}</text>'
    )


def _path(points: list[tuple[float, float]]) -> str:
    """A smooth path through ``points``: level where two points are level, else an S-curve
    that leaves and arrives horizontally."""
    (x, y), *rest = points
    parts = [f"M{x:.1f},{y:.1f}"]
    for nx, ny in rest:
        if abs(ny - y) < 0.05:
            parts.append(f"L{nx:.1f},{ny:.1f}")
        else:
            mid = (x + nx) / 2
            parts.append(f"C{mid:.1f},{y:.1f} {mid:.1f},{ny:.1f} {nx:.1f},{ny:.1f}")
        x, y = nx, ny
    return " ".join(parts)
