"""Output formats as a registry: ``--format NAME`` writes what a result's view gives.

A *view* shows one kind of result (a gradient, a Hessian, a fit, the verdicts of a check,
...) through methods that give its data; a *format* names the methods it needs and writes
from them:

========  =============================  ==================================================
format    needs from the view            writes
========  =============================  ==================================================
table     ``tables``                     rich tables and text, for people
json      ``records``                    one JSON object (several: a JSON array)
csv       ``csv_header``, ``csv_rows``   a header row, then one row per point or item
plain     ``plain``                      bare lines for scripts (numbers, tab-separated)
========  =============================  ==================================================

and ``markdown``, ``latex``, ``dot``, ``mermaid``, ``svg``: a whole document the view writes (the
method of that name). A command offers, in ``--format`` and its ``--help``, exactly the
formats its view has what they need (:func:`supported`). Adding a format is one class here,
registered with :func:`register`.

>>> class Numbers:
...     def csv_header(self, data): return ["n"]
...     def csv_rows(self, data, digits): return [[str(n)] for n in data]
...     def plain(self, data, digits): return [" ".join(map(str, data))]
>>> supported(Numbers)
('csv', 'plain')
>>> import sys
>>> sink = Sink(sys.stdout)
>>> FORMATS["csv"].write(Numbers(), [1, 2], sink); FORMATS["csv"].close(sink)
n
1
2
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, TextIO

from gradcalc.core.collector import paused
from gradcalc.core.errors import InputError


@dataclass(eq=False)
class Sink:
    """Where a format writes, and what the command asked for: significant ``digits``, the
    ``tape`` shown or not, ``many`` points (several chunks, a JSON array), ``extra`` fields
    for every JSON object (where the view gives none of that name), a rich ``console`` for
    tables."""

    out: TextIO
    console: Any = None
    digits: int | None = None
    tape: bool = True
    many: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    started: bool = False  # something was written (a CSV header, a JSON array's "[")
    array: bool = False  # a JSON array was opened
    chunks: list[Any] = field(default_factory=list)  # compact JSON: each chunk's columns
    joined: Any = None  # compact JSON: the view's function that joins the chunks
    each: int = -1  # compact JSON of per-point objects: how many are written (-1: not open)


class OutputFormat:
    """One output format: its name, the view methods it needs, how it writes."""

    name: ClassVar[str]
    needs: ClassVar[tuple[str, ...]]
    #: whether it prints through the sink's rich ``console`` (the others need no console)
    rich: ClassVar[bool] = False

    def write(self, view: Any, data: Any, sink: Sink) -> None:
        """Write one chunk of results (a command may give several: a file of points)."""
        raise NotImplementedError

    def close(self, sink: Sink) -> None:
        """Finish after the last chunk."""


#: Every format, by name, in the order ``--help`` lists them.
FORMATS: dict[str, OutputFormat] = {}


def register(kind: type[OutputFormat]) -> type[OutputFormat]:
    """Add a format to :data:`FORMATS` (a class decorator)."""
    FORMATS[kind.name] = kind()
    return kind


def supported(view: type) -> tuple[str, ...]:
    """The names of the formats ``view`` (a view class) has everything for."""
    return tuple(
        name
        for name, kind in FORMATS.items()
        if all(callable(getattr(view, method, None)) for method in kind.needs)
    )


def choose(view: Any, name: str) -> OutputFormat:
    """The format ``name`` for ``view``; an input error naming the choices if it has none.

    >>> choose(object(), "csv")
    Traceback (most recent call last):
    ...
    gradcalc.core.errors.InputError: no --format csv here (the choices: none)
    """
    choices = supported(type(view))
    if name not in choices:
        raise InputError(f"no --format {name} here (the choices: {', '.join(choices) or 'none'})")
    return FORMATS[name]


@register
class Table(OutputFormat):
    """Rich tables and text, folded to the terminal's width."""

    name, needs = "table", ("tables",)
    rich = True

    def write(self, view: Any, data: Any, sink: Sink) -> None:
        for part in view.tables(data, sink.digits, sink.tape, sink.many):
            # markup off: [2x, 0] is a matrix row, not rich markup
            sink.console.print(fitted(part, sink.console), markup=False)


#: Below this many columns, a table too wide for the terminal is stacked (:func:`fitted`).
NARROW = 50


def fitted(part: Any, console: Any) -> Any:
    """``part``, or, for a table too wide for a narrow terminal, its rows stacked as
    ``header: value`` lines (one-character columns would be unreadable).

    >>> from rich.console import Console
    >>> from rich.table import Table
    >>> table = Table("variable", "derivative at the point", title="Gradient")
    >>> table.add_row("w1", "6*w1 + 2*w2 = 36")
    >>> Console(width=30).print(fitted(table, Console(width=30)))
    Gradient
    <BLANKLINE>
    variable: w1
    derivative at the point: 6*w1
    + 2*w2 = 36
    >>> fitted(table, Console(width=80)) is table
    True
    """
    from rich.console import Group
    from rich.measure import Measurement
    from rich.table import Table as RichTable

    if isinstance(part, Group):  # (a reading above a table of many points)
        return Group(*(fitted(each, console) for each in part.renderables))
    if not isinstance(part, RichTable):
        return part
    if _least_width(part) > console.width:  # (numbers that must not fold leave no room)
        return stacked(part)
    if console.width >= NARROW:
        return part
    unbounded = console.options.update_width(100_000)  # the table's own width, not clamped
    if Measurement.get(console, unbounded, part).maximum <= console.width:
        return part
    return stacked(part)


#: The least width a column that wraps is given before a table is stacked instead.
LEAST_WRAPPED = 8


def _least_width(table: Any) -> int:
    """The width ``table`` needs at least: its unfolded (``no_wrap``) columns whole, every
    other one :data:`LEAST_WRAPPED` characters (or its widest cell, if less), and borders."""
    widths = []
    for column in table.columns:
        cells = [_text(cell) for cell in column.cells]
        widest = max((len(line) for cell in cells for line in cell.splitlines()), default=0)
        widths.append(widest if column.no_wrap else min(widest, LEAST_WRAPPED))
    return sum(widths) + 3 * len(widths) + 1


def stacked(table: Any) -> Any:
    """A rich table as text: its title, then each row as ``header: value`` lines (just the
    value under an empty header; nothing for an empty cell), a blank line between rows, and
    its caption last."""
    from rich.text import Text

    headers = [_text(column.header) for column in table.columns]
    columns = [[_text(cell) for cell in column.cells] for column in table.columns]
    rows = [
        "\n".join(
            f"{header}: {cell}" if header else cell for header, cell in zip(headers, row) if cell
        )
        for row in zip(*columns)
    ]
    caption = [_text(table.caption)] * bool(table.caption)
    return Text("\n\n".join([_text(table.title)] * bool(table.title) + rows + caption))


def _text(cell: Any) -> str:
    """A cell's text without its styles."""
    return cell.plain if hasattr(cell, "plain") else str(cell)


@register
class Json(OutputFormat):
    """One JSON object, or a JSON array of them written as they come (one per line). Many
    points, where the view has ``columns`` (and ``joined``): one compact object, what is the
    same for every point once and the per-point values in columns
    (:mod:`gradcalc.render.output.compact`), written after the last chunk; where it names
    the fields it ``shared`` by every point instead: one object with those once, then
    ``"per_point"``, each point's own fields written as they come, and ``"rows"``."""

    name, needs = "json", ("records",)

    def write(self, view: Any, data: Any, sink: Sink) -> None:
        with paused():  # (plain dicts and lists: no cycles for the collector to find)
            if sink.many and callable(getattr(view, "columns", None)):
                sink.chunks.append(view.columns(data))
                sink.joined = view.joined
                return
            self._write(view, data, sink)

    def _write(self, view: Any, data: Any, sink: Sink) -> None:
        from gradcalc.render.output.encoding import dumps  # (a table, the default, never needs it)

        ascii_only = getattr(view, "ascii_json", True)
        objects = view.records(data, sink.tape)
        if sink.extra:
            objects = [  # (a field the view gives is the view's)
                obj | {key: value for key, value in sink.extra.items() if key not in obj}
                for obj in objects
            ]
        if not sink.many and not sink.started and len(objects) == 1:
            sink.out.write(dumps(objects[0], ascii_only) + "\n")
            sink.started = True
            return
        shared = getattr(view, "shared", ())
        if sink.many and shared:
            self._each(objects, shared, sink, ascii_only)
            return
        for obj in objects:
            text = dumps(obj, ascii_only)
            sink.out.write(("," if sink.array else "[") + text + "\n")
            sink.array = sink.started = True

    @staticmethod
    def _each(objects: list[Any], shared: tuple[str, ...], sink: Sink, ascii_only: bool) -> None:
        """Per-point objects without the fields every point shares (written once, first)."""
        from gradcalc.render.output.encoding import dumps

        common = set(shared) | set(sink.extra)
        if sink.each < 0:
            head = {k: objects[0][k] for k in shared if k in objects[0]} | sink.extra
            sink.out.write(dumps(head, ascii_only)[:-1] + ", " * bool(head) + '"per_point": [\n')
            sink.each, sink.started = 0, True
        for obj in objects:
            text = dumps({k: v for k, v in obj.items() if k not in common}, ascii_only)
            sink.out.write(("," if sink.each else "") + text + "\n")
            sink.each += 1

    def close(self, sink: Sink) -> None:
        from gradcalc.render.output.encoding import dumps

        if sink.each >= 0:
            sink.out.write(f'], "rows": {sink.each}}}\n')
        if sink.chunks:
            with paused():
                sink.out.write(dumps({**sink.joined(sink.chunks), **sink.extra}) + "\n")
        if sink.array:
            sink.out.write("]\n")


@register
class Csv(OutputFormat):
    """A header row, then the rows of every chunk."""

    name, needs = "csv", ("csv_header", "csv_rows")

    def write(self, view: Any, data: Any, sink: Sink) -> None:
        import csv  # (here: a table, the default, never needs it)

        from gradcalc.core.naming import unique_header
        from gradcalc.io.carried import csv_rows  # (the data's text guarded)

        out = csv.writer(sink.out, lineterminator="\n")
        if not sink.started:
            out.writerows(csv_rows([unique_header(view.csv_header(data))]))
            sink.started = True
        out.writerows(csv_rows(view.csv_rows(data, sink.digits)))


@register
class Plain(OutputFormat):
    """Bare lines for scripts: numbers separated by spaces, or tab-separated fields."""

    name, needs = "plain", ("plain",)

    def write(self, view: Any, data: Any, sink: Sink) -> None:
        sink.out.write("".join(f"{line}\n" for line in view.plain(data, sink.digits)))


class _Document(OutputFormat):
    """A whole document that the view writes itself, by its method of the format's name."""

    def write(self, view: Any, data: Any, sink: Sink) -> None:
        sink.out.write(getattr(view, self.name)(data, sink.digits) + "\n")


@register
class Markdown(_Document):
    """Markdown (``gradcalc explain``: for homework)."""

    name, needs = "markdown", ("markdown",)


@register
class Latex(_Document):
    """LaTeX (``gradcalc explain``: for homework)."""

    name, needs = "latex", ("latex",)


@register
class Dot(_Document):
    """Graphviz DOT text (``gradcalc graph``)."""

    name, needs = "dot", ("dot",)


@register
class Mermaid(_Document):
    """Mermaid text (``gradcalc graph``)."""

    name, needs = "mermaid", ("mermaid",)


@register
class Svg(_Document):
    """An SVG picture (``gradcalc graph``: drawn with gradcalc's own layout)."""

    name, needs = "svg", ("svg",)
