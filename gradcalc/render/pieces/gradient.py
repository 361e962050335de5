"""Turn results into what users read: rich tables, JSON-ready dicts, CSV rows, plain lines.

Pure functions: nothing here prints.

>>> format_number(36.0), format_number(0.1 + 0.2), format_number(float("nan"))
('36', '0.30000000000000004', 'nan')
>>> format_number(2 / 3, digits=4)
'0.6667'
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from gradcalc.core.naming import function_head
from gradcalc.core.numbers import format_number
from gradcalc.engine.run.api import GradResult

_INTEGRAL = re.compile(r"\.0(?=,|\]$)")
CHECK_MARK = {"agree": "✓", "disagree": "✗", "skipped": "?"}
MAX_TABLE_ROWS = 1000


def at_point(array: np.ndarray | None, k: int) -> Any:
    """The value at point ``k`` of an array over the points (a 0-d array is every point's)."""
    if array is None:
        return None
    return array if array.ndim == 0 else array.reshape(-1)[k]


def json_number(value: Any) -> float | None:
    """A float for JSON; ``None`` (null) for missing and non-finite values."""
    if value is None:
        return None
    x = float(value) + 0.0  # no -0.0
    return x if math.isfinite(x) else None


def point_values(result: GradResult, k: int) -> dict[str, float]:
    """The variables' values at point ``k``."""
    return {n: float(at_point(result.points.arrays[n], k)) for n in result.points.names}


def check_json(result: GradResult, k: int, undefined: str | None) -> dict[str, Any]:
    """The check's verdict at point ``k``: never "agree" where nothing was compared."""
    if result.check is None:
        return {"status": "off", "agree": None, "max_difference": None}
    status, agree = result.check.status, None
    if undefined:  # no derivative here to compare: never "agree"
        status = "undefined"
    elif status != "skipped":
        agree = not bool(at_point(result.check.mismatch, k))
    return {"status": status, "agree": agree, "max_difference": result.check.max_difference}


def to_json(result: GradResult, k: int, tape: bool = True) -> dict[str, Any]:
    """The JSON object for point ``k`` (plain types only; non-finite numbers become null)."""
    undefined = result.reason(k)
    gradient = {  # (at an undefined point no component is a number, an independent one too)
        name: None if undefined else 0.0 if g is None else json_number(at_point(g, k))
        for name, g in result.gradient.items()
    }
    check: dict[str, Any] = {"status": "off", "agree": None, "max_difference": None}
    symbolic: dict[str, str] = {}
    if result.check is not None:  # (its module is loaded by the check: --no-check never is)
        from gradcalc.symbolic.crosscheck.crosscheck import RTOL

        check = check_json(result, k, undefined)
        check |= {
            "method": result.check.method or None,
            "rtol": RTOL if result.check.method else None,
            "points": result.check.points,
            "meaning": result.check.meaning(),
        }
        symbolic = dict(result.check.derivative_texts)
    obj: dict[str, Any] = {
        "expression": result.expression,
        "read_as": result.read_as,
        "target": result.target,
        "point": point_values(result, k),
        "value": None
        if at_point(result.value_undefined, k)
        else json_number(at_point(result.value, k)),
        "exact_value": result.exact_value[k] if k < len(result.exact_value) else None,
        "gradient": gradient,
        "exact": exact_json(result, k, undefined is None),
        "independent": [n for n, g in result.gradient.items() if g is None],
        "symbolic": symbolic,
        "check": check,
        "undefined": undefined,
        "warnings": list(result.warnings),
        "diagnostics": diagnostics_json(result, k),
    }
    if tape:
        obj["tape"] = [
            {
                "id": row.index,
                "op": row.op,
                "formula": row.formula,
                "inputs": [operand.name for operand in row.inputs],
                "value": json_number(at_point(row.value, k)),
                "adjoint": json_number(at_point(row.adjoint, k)),
            }
            for row in result.tape
        ]
    return obj


def exact_json(result: GradResult, k: int, defined: bool = True) -> dict[str, str]:
    """Each gradient component's exact value as text at point ``k``, where it is known.

    >>> from gradcalc import grad
    >>> exact_json(grad("sin(x)*y", at=["x=pi/3,y=2"]), 0)
    {'x': '1', 'y': 'sqrt(3)/2'}
    """
    if not defined:
        return {}
    found = {name: texts[k] for name, texts in result.exact.items() if k < len(texts)}
    return {name: text for name, text in found.items() if text is not None}


def latex_derivatives(result: GradResult) -> dict[str, str]:
    """sympy's derivatives as LaTeX, by check label (empty without the symbolic check).

    >>> from gradcalc import grad
    >>> latex_derivatives(grad("x^2*y", at={"x": 1, "y": 2}))
    {'x': '2 x y', 'y': 'x^{2}'}
    """
    from gradcalc.symbolic.translate.notation import user_latex

    if result.check is None:
        return {}
    return {label: user_latex(p.derivative) for label, p in result.check.partials.items()}


def latex_block(result: GradResult) -> str:
    """One LaTeX line per derivative: ``\\frac{\\partial f}{\\partial x} = ...``."""
    lines = []
    for label, tex in latex_derivatives(result).items():
        if label in result.gradient:
            lines.append(f"\\frac{{\\partial {result.target}}}{{\\partial {label}}} = {tex}")
    return "\n".join(lines)


def diagnostics_json(result: GradResult, k: int) -> dict[str, Any]:
    """The findings that concern point ``k``, and whether there are none."""
    here = [f for f in result.diagnostics if at_point(f.mask, k)]
    found: dict[str, Any] = {"healthy": not any(not f.settled for f in here)}
    for key, settled in (("findings", False), ("settled", True)):
        found[key] = [
            {"kind": f.kind, "message": f.message, "record": f.record}
            for f in here
            if f.settled == settled
        ]
    if not found["settled"]:  # (a kink where f's one-sided derivatives agree)
        del found["settled"]
    return found


def csv_header(results: list[GradResult]) -> list[str]:
    """Point columns, then ``value`` and ``d/d<name>`` per source (prefixed with the
    target's name when there are several targets: ``f1``, ``d f1/dr``)."""
    header = list(results[0].points.names)
    for result in results:
        if len(results) == 1:
            header += ["value", *(f"d/d{n}" for n in result.sources)]
        else:
            header += [result.target, *(f"d{result.target}/d{n}" for n in result.sources)]
    return header


def format_numbers(values: np.ndarray, digits: int | None = None) -> list[str]:
    """:func:`format_number` for a whole 1-d array, at C speed where it can.

    >>> format_numbers(np.array([36.0, 0.1, float("inf"), -2e20]))
    ['36', '0.1', 'inf', '-2e+20']
    """
    floats = (values + 0.0).tolist()  # + 0.0 turns -0.0 into 0.0
    if digits is not None:
        return [format_number(v, digits) for v in floats]
    if not floats:
        return []
    # repr of a whole list runs in C; then drop the ".0" of integral values in one pass
    return _INTEGRAL.sub("", repr(floats))[1:-1].split(", ")


def texts(
    values: Any, count: int, digits: int | None, blank: np.ndarray | None = None, filler: str = ""
) -> list[str]:
    """``count`` values (an array, a 0-d array or ``None`` for 0) as text; ``filler`` where
    ``blank`` is set."""
    column = np.zeros(count) if values is None else np.broadcast_to(values, (count,))
    texts = format_numbers(column, digits)
    if blank is not None and blank.any():
        for k in np.flatnonzero(blank):
            texts[k] = filler
    return texts


def _target_columns(
    result: GradResult, digits: int | None, filler: str = "", value: bool = True
) -> list[list[str]]:
    """The value column (unless ``value`` is false) and one column per source, as text
    (``filler`` where undefined)."""
    n = result.points.count
    bad = result.first_reason >= 0
    columns = []
    if value:
        undefined = result.value_undefined.reshape(-1)
        values = result.value if result.shown_value is None else result.shown_value
        columns.append(texts(values.reshape(-1), n, digits, undefined, filler))
    for g in (result.shown or result.gradient).values():  # exact where the check knows it
        columns.append(texts(None if g is None else g.reshape(-1), n, digits, bad, filler))
    return columns


def csv_rows(results: list[GradResult], digits: int | None = None) -> Iterator[list[str]]:
    """One row per point: its coordinates (in full: ``--digits`` rounds what was computed,
    never which point it was), then each target's value and gradient."""
    first = results[0]
    n = first.points.count
    columns = [texts(first.points.arrays[name].reshape(-1), n, None) for name in first.points.names]
    for result in results:
        columns += _target_columns(result, digits)
    return (list(row) for row in zip(*columns))


def plain_lines(results: list[GradResult], digits: int | None = None) -> Iterator[str]:
    """The gradient components separated by spaces: one line per point (and per target,
    when there are several); ``nan`` where undefined."""
    per_target = [list(zip(*_target_columns(r, digits, "nan", value=False))) for r in results]
    for k in range(results[0].points.count):
        for rows in per_target:
            yield " ".join(rows[k])


# --- rich tables ----------------------------------------------------------------------


def new_table(title: str | None = None) -> Any:
    """A rich table whose cells wrap instead of being cut with an ellipsis: a number must
    never be shown shortened."""
    from rich.table import Table

    class FoldingTable(Table):
        def add_column(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("overflow", "fold")
            super().add_column(*args, **kwargs)

    return FoldingTable(title=title, title_justify="left", title_style="bold")


def check_mark(check: Any, partial: Any) -> str:
    """✓, ✗ or ? for one checked quantity (or for the whole check when ``partial`` is None)."""
    if partial is not None:
        if np.all(np.isnan(partial.values)):
            return "–"  # not checked here (e.g. a conventional subgradient)
        if np.any(partial.mismatch):
            return CHECK_MARK["disagree"]
        return CHECK_MARK["skipped" if check.status == "skipped" else "agree"]
    return CHECK_MARK[check.status]


def headline(result: GradResult, digits: int | None) -> Any:
    """``read as: f(x, y) = <canonical text>`` (and its warnings, :func:`reading`) and
    ``at x = 1, y = 2:  f = <value>``, with the exact value beside it where the check found
    one that the number does not already say. The value is the tape's, the number its last
    row shows, as the table's ``tape`` column shows the tape's gradient beside the exact one
    (CSV and plain lines give the exact value's nearest float instead).

    >>> from gradcalc import grad
    >>> print(headline(grad("x^2", at=["x=pi/2"]), None).plain)
    read as: f(x) = x^2
    at x = pi/2:  f = 2.4674011002723395  (exact: pi^2/4)
    >>> print(headline(grad("x^2", at=["x=1/2"]), None).plain)  # 0.25 says it all
    read as: f(x) = x^2
    at x = 1/2:  f = 0.25
    >>> print(headline(grad("cos(x)", at=["x=pi/2"]), None).plain)  # float64's cos(pi/2)
    read as: f(x) = cos(x)
    at x = pi/2:  f = 6.123233995736766e-17  (exact: 0)
    """

    text = reading(result)
    point = ", ".join(f"{n} = {v}" for n, v in (result.points.exact or [{}])[0].items())
    text.append(f"\nat {point}:  " if point else "\n")
    text.append(f"{result.target} = ")
    shown = format_number(result.value, digits)
    text.append(shown, style="bold cyan")
    exact = result.exact_value[0] if result.exact_value else None
    if exact is not None and not _same_number(exact, shown):
        text.append(f"  (exact: {exact})", style="dim")
    return text


def _same_number(exact: str, shown: str) -> bool:
    """Whether an exact value's text (sympy's: ``3/4``, ``pi/2``) is the number shown
    (``0.75``): then it adds nothing.

    >>> _same_number("3/4", "0.75"), _same_number("1/3", "0.3333333333333333")
    (True, False)
    >>> _same_number("pi/2", "1.5707963267948966"), _same_number("-7", "-7")
    (False, True)
    """
    try:
        return Fraction(exact) == Fraction(shown)
    except (ValueError, ZeroDivisionError):
        return False


def read_as_line(result: GradResult) -> Any:
    """``read as: f(x, y) = e^2·x`` -- how the text was read, before any number is shown
    (a program is shown whole: ``read as: y = x^2; z = y^2``).

    >>> from gradcalc import grad
    >>> read_as_line(grad("e^2x", at={"x": 1}, check=False)).plain
    'read as: f(x) = e^2·x'
    """
    return named_reading(result.read_as or result.expression, result.points.names)


def reading(result: GradResult) -> Any:
    """The ``read as:`` line and, under it, each warning about how the text was read: the
    top of a table.

    >>> from gradcalc import grad
    >>> print(reading(grad("e^2x", at={"x": 1}, check=False)).plain)
    read as: f(x) = e^2·x
    warning: e^2x is read as e^2·x; if you mean e^(2·x), write e^(2x)
    """
    text = read_as_line(result)
    for warning in result.read_warnings:
        text.append(f"\nwarning: {warning}")
    return text


def named_reading(reading: str, names: Sequence[str]) -> Any:
    """``read as: f(x) = e^2·x`` for one expression, ``g(x) = ...`` for a named function;
    a program of several statements is shown whole (the rule of every ``read as:`` line,
    :func:`gradcalc.core.naming.function_head`, styled).

    >>> named_reading("e^2·x", ["x"]).plain, named_reading("y = 2·x", ["x"]).plain
    ('read as: f(x) = e^2·x', 'read as: y(x) = 2·x')
    """
    head, body = function_head(reading, names)
    return read_as_text(body, head)


def read_as_text(reading: str, name: str = "") -> Any:
    """``read as: <name> = <reading>`` as rich text (``minimize`` and ``fit`` print it too).

    >>> read_as_text("(1/2)·x", "f").plain
    'read as: f = (1/2)·x'
    """
    from rich.text import Text

    text = Text("read as: ", style="dim")
    if name:
        text.append(f"{name} = ", style="bold")
    text.append(reading)
    return text


def gradient_tables(result: GradResult, digits: int | None, show_tape: bool) -> list[Any]:
    """Renderables for a single point: headline, gradient table, tape table."""

    table = new_table()
    table.add_column(f"∂{result.target}/∂", style="bold")
    # numbers are never folded (2.6173012392492645 over e-16 reads as 2.6), nor a short
    # exact value (2 over exp(-36)/sqrt(pi) reads as 2): the formula column wraps instead
    table.add_column("tape", justify="right", style="cyan", no_wrap=True)
    check = result.check
    if check is not None and check.partials:
        from gradcalc.symbolic.crosscheck.crosscheck import SHORT_EXACT  # (the check ran)

        short = all(
            len((p.exact or [None])[0] or "") <= SHORT_EXACT for p in check.partials.values()
        )
        table.add_column("symbolic (sympy)")
        table.add_column("exact", justify="right", no_wrap=short)
    if check is not None:
        table.add_column("check", justify="center")
    for name, g in result.gradient.items():
        cells = [name, format_number(0.0 if g is None else g, digits)]
        if g is None:
            cells[1] = f"(independent) {cells[1]}"
        if check is not None and check.partials:
            partial = check.partials[name]
            exact = partial.exact[0] if partial.exact else None
            shown = exact or format_number(partial.values, digits)
            kink = partial.kinks is not None and bool(at_point(partial.kinks, 0))
            if (partial.limits or kink) and not exact:  # 0/0 or a kink: a limit, not exact
                shown = f"limit {shown}"
            cells += [check.derivative_texts[name], "—" if shown == "nan" else shown]
        if check is not None:
            cells.append(check_mark(check, check.partials.get(name)))
        table.add_row(*cells)
    if check is not None and any(p.rounded or p.residue for p in check.partials.values()):
        # a ✓ beside two numbers that differ (the point typed is not a float64 number) says why
        table.caption, table.caption_justify = f"check: the tape {check.meaning()}", "left"
    parts: list[Any] = [headline(result, digits), table]
    if show_tape:
        parts.append(tape_table(result, digits))
    return parts


def tape_table(result: GradResult, digits: int | None) -> Any:
    """The tape: inputs first, then each record with its value and adjoint ∂target/∂record."""
    inputs = [
        (name, result.points.arrays[name], result.gradient.get(name))
        for name in result.points.names
    ]
    return records_table(f"Tape (adjoint = ∂{result.target}/∂row)", inputs, result.tape, digits)


def records_table(
    title: str, inputs: Sequence[tuple[str, Any, Any]], rows: Sequence[Any], digits: int | None
) -> Any:
    """A tape as ``gradcalc grad`` shows it: the ``inputs`` (name, value, adjoint) first, then
    each row (a :class:`~gradcalc.engine.evaluate.evaluate.TapeRow`) with its value and adjoint."""
    table = new_table(title)
    for header, justify in (("#", "right"), ("op", "left"), ("computes", "left")):
        table.add_column(header, justify=justify)
    table.add_column("value", justify="right", style="cyan", no_wrap=True)
    table.add_column("adjoint", justify="right", style="magenta", no_wrap=True)
    for name, value, adjoint in inputs:
        shown = format_number(adjoint, digits) if adjoint is not None else ""
        table.add_row("", "input", name, format_number(value, digits), shown)
    for row in rows:
        formula = row.statement
        table.add_row(
            str(row.index),
            row.op,
            formula,
            format_number(row.value, digits),
            format_number(row.adjoint, digits),
        )
    return table


def points_table(result: GradResult, digits: int | None, diagnose: bool = False) -> Any:
    """Many points: one row each (capped at MAX_TABLE_ROWS); a diagnostics column when any
    point has findings (or always, with ``diagnose``)."""

    # numbers never fold (123.456 over 56 reads as 123.4): a table they leave no room in is
    # stacked (render.output.formats.fitted)
    table = new_table(f"{result.target}")
    for name in result.points.names:
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("value", justify="right", style="cyan", no_wrap=True)
    for name in result.sources:
        table.add_column(f"∂/∂{name}", justify="right", style="cyan", no_wrap=True)
    if result.check is not None:
        table.add_column("check", justify="center")
    health = diagnose or bool(result.diagnostics)
    if health:
        table.add_column("diagnostics")
    for k, cells in enumerate(csv_rows([result], digits)):
        if k == MAX_TABLE_ROWS:
            break
        reason = result.reason(k)
        if reason:
            width = len(result.points.names)
            cells = cells[: width + 1] + ["undefined"] * (len(cells) - width - 1)
            cells[width] = cells[width] or "undefined"
        if result.check is not None:
            mismatch = result.check.mismatch
            status = result.check.status
            mark = (
                CHECK_MARK["disagree"]
                if mismatch is not None and bool(at_point(mismatch, k))
                else CHECK_MARK[status]
            )
            cells.append("" if reason else mark)
        if health:
            kinds = dict.fromkeys(f.label for f in result.diagnostics if at_point(f.mask, k))
            cells.append(", ".join(kinds) or "healthy")
        table.add_row(*cells)
    if result.check is not None and result.check.method:
        table.caption = f"check: the tape {result.check.meaning()}"
        table.caption_justify = "left"
    return table
