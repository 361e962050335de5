"""Implicit differentiation: dy/dx on the curve F(x, y) = 0 (or the surface F(x, y, z) = 0).

The equation ``left = right`` is parsed by gradcalc's parser as ``F = left - right``; then
dy/dx = -F_x / F_y, simplified and verified against the tape's own ∂F/∂x and ∂F/∂y at random
points. The second derivative (``order=2``, one variable to differentiate by) is
d²y/dx² = d/dx(y') + d/dy(y')·y', verified against the tape's Hessian of F:
-(F_xx + 2 F_xy y' + F_yy y'^2) / F_y. At a point, the point must be on the curve; the value
is the tape's.

>>> r = implicit("x^2 + y^2 = 25", "y")
>>> r.entries[0].label, r.entries[0].text, r.verification.status
('dy/dx', '-x/y', 'verified')
>>> at = implicit("x^2 + y^2 = 25", "y", at=["x=3,y=4"]).values
>>> at
{'dy/dx': -0.75}
>>> implicit("x^2 + y^2 = 25", "y", order=2).entries[0].text
'-x^2/y^3 - 1/y'
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.apps.derive.diff import Entry, Verification, verify
from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.engine.evaluate.beyond import HessianResult
from gradcalc.engine.evaluate.evaluate import source_names
from gradcalc.engine.evaluate.names import require_values
from gradcalc.engine.evaluate.points import Points, parse_at
from gradcalc.engine.evaluate.results import GradResult
from gradcalc.engine.run.api import Options, gradient_at, hessian_at
from gradcalc.lang.graph import Graph, lower
from gradcalc.lang.parser import parse_equation
from gradcalc.lang.slips import name_warnings
from gradcalc.symbolic.crosscheck.crosscheck import (
    CheckTimeout,
    exact_value,
    symbolic_gradient,
    time_limit,
)
from gradcalc.symbolic.crosscheck.crosscheck import to_sympy as graph_to_sympy
from gradcalc.symbolic.crosscheck.simplify import simplest
from gradcalc.symbolic.translate.notation import user_text

#: |F| at a given point must be below this (relative to the size of F's terms) to be on it.
ON_CURVE = 1e-9


@dataclass
class ImplicitResult:
    """dy/dx (one entry per independent variable) on ``F = 0``; ``values`` at the point."""

    equation: str
    dependent: str
    independent: tuple[str, ...]
    function: Any
    entries: list[Entry]
    verification: Verification
    values: dict[str, float] | None = None
    notes: list[str] = field(default_factory=list)
    exact: dict[str, str] = field(default_factory=dict)  # values, when the point is exact


def implicit(
    equation: str,
    dependent: str,
    wrt: Sequence[str] | None = None,
    at: Sequence[str] = (),
    budget: float = 5.0,
    order: int = 1,
) -> ImplicitResult:
    """d(dependent)/d(each other variable) on the curve or surface ``equation``; with
    ``order=2``, the second derivative by the one other variable (or the one of ``wrt``).

    Raises:
        InputError: not an equation, an unknown variable, a point not on the curve, an
            order above 2, or order 2 with several variables to differentiate by.
        UndefinedError: at the point, ∂F/∂(dependent) = 0 (a vertical tangent) or F is
            undefined.

    >>> implicit("x^3 + y^3 = 6x y", "y").entries[0].text
    '(x^2 - 2y)/(2x - y^2)'
    """
    graph = lower(parse_equation(equation))
    others = _others(graph, dependent, wrt)
    _offered(order, others)
    deadline = time.monotonic() + budget
    notes: list[str] = []
    function = graph_to_sympy(graph)[graph.targets[0]]
    try:
        with time_limit(budget):
            gradient = symbolic_gradient(graph, 0, [*others, dependent])
    except CheckTimeout:
        notes.append(f"budget exceeded: sympy could not differentiate within {budget:g} s")
        gradient = None
    entries: list[Entry] = []
    if gradient is not None:
        _determines(gradient[dependent], equation, dependent)
        question = (equation, function, dependent, order, len(graph.variables) == 2)
        entries = _derivatives(gradient, others, question, deadline, notes)
    check = (
        verify(
            graph,
            entries,
            lambda points: _tape_slopes(graph, dependent, others, points, order),
            max(deadline - time.monotonic(), 1.0),
        )
        if entries
        else Verification("unverified", 0, "there is no symbolic answer to verify")
    )
    values = _at_point(graph, equation, dependent, others, at, order) if at else None
    exact = _exact_at(function, entries, at) if values is not None else {}
    return ImplicitResult(
        equation, dependent, tuple(others), function, entries, check, values, notes, exact
    )


def _others(graph: Graph, dependent: str, wrt: Sequence[str] | None) -> list[str]:
    """The variables to differentiate by: all but ``dependent`` (or those of ``wrt``)."""
    if dependent not in graph.variables:
        slips = [w for w in name_warnings(graph.variables) if dependent in w.split(" ")[0]]
        raise InputError(
            f"--implicit {dependent}: not a variable of the equation "
            f"({', '.join(graph.variables) or 'none'})" + "".join(f"; {w}" for w in slips)
        )
    others = [v for v in source_names(graph, wrt) if v != dependent]
    if not others:
        raise InputError(f"the equation has no variable besides {dependent} to differentiate by")
    return others


def _derivatives(gradient, others, question, deadline: float, notes: list[str]) -> list[Entry]:
    """-F_x/F_y for each variable x (order 2: its derivative along the curve), simplified
    within the time left; a note for each budget run out and each form on the curve."""
    equation, function, dependent, order, curve = question
    d = "d" if curve else "∂"
    entries = []
    for k, x in enumerate(others):
        raw = -gradient[x] / gradient[dependent]
        if order == 2:
            raw = _second(raw, x, dependent)
        form = simplest(raw, (deadline - time.monotonic()) / (len(others) - k))
        if form.note:
            notes.append(form.note)
        if order == 2 and (reduced := _on_curve(form.expr, function)) is not None:
            notes.append(
                f"on the curve, d²{dependent}/d{x}² = {user_text(reduced)} (the numerator "
                f"reduced by the equation: equal wherever {equation} holds)"
            )
        label = f"{d}{dependent}/{d}{x}" if order == 1 else f"{d}²{dependent}/{d}{x}²"
        entries.append(Entry(label, (x,) * order, raw, form, dependent))
    return entries


def _exact_at(function: Any, entries: list[Entry], at: Sequence[str]) -> dict[str, str]:
    """Each derivative's exact value at the point, when its coordinates are exact and sympy
    proves the point on the curve (F = 0 there, exactly); else none.

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> form = simplest(-x / y, 1.0)
    >>> _exact_at(x**2 + y**2 - 25, [Entry("dy/dx", ("x",), -x / y, form)], ["x=3,y=4"])
    {'dy/dx': '-3/4'}
    >>> _exact_at(x**2 + y**2 - 25, [Entry("dy/dx", ("x",), -x / y, form)], ["x=3,y=4.0001"])
    {}
    """
    import sympy as sp

    from gradcalc.symbolic.translate.derivative import symbol

    points = parse_at(list(at))
    if points.exact is None:
        return {}
    try:
        with time_limit(1.0):
            point = {symbol(n): exact_value(t) for n, t in points.exact[0].items()}
            if sp.simplify(function.xreplace(point)) != 0:
                return {}
            values = {e.label: sp.simplify(e.expr.xreplace(point)) for e in entries}
    except (CheckTimeout, InputError, TypeError, ValueError, RecursionError):
        return {}
    return {label: user_text(v) for label, v in values.items() if len(user_text(v)) <= 32}


def _determines(slope: Any, equation: str, dependent: str) -> None:
    """Raise :class:`UndefinedError` where ∂F/∂(dependent) is 0 everywhere: the equation
    does not determine ``dependent`` (``x + y = x + y``), and -F_x/F_y is 0/0, not a number.

    >>> _determines(0, "x + y = x + y", "y")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradcalc.core.errors.UndefinedError: ∂F/∂y is 0 everywhere on x + y = x + y ...
    """
    if slope == 0:
        raise UndefinedError(
            f"∂F/∂{dependent} is 0 everywhere on {equation} (F = left - right): the equation "
            f"does not determine {dependent}, so its derivative is undefined"
        )


def _offered(order: int, others: Sequence[str]) -> None:
    """Refuse what is not offered: an order above 2, or d² with several variables.

    >>> _offered(3, ["x"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradcalc.core.errors.InputError: --implicit gives dy/dx and d²y/dx² (--order 1 or 2), ...
    """
    if order > 2:
        raise InputError(
            f"--implicit gives dy/dx and d²y/dx² (--order 1 or 2), not --order {order}"
        )
    if order == 2 and len(others) > 1:
        raise InputError(
            f"--order 2 with --implicit differentiates by one variable; this equation has "
            f"{', '.join(others)}: choose one with --wrt"
        )


def _second(slope: Any, x: str, dependent: str) -> Any:
    """d/dx of the slope y'(x, y) along the curve: ∂y'/∂x + ∂y'/∂y · y'."""
    from gradcalc.symbolic.translate.derivative import derivative, symbol

    return derivative(slope, symbol(x)) + derivative(slope, symbol(dependent)) * slope


def _on_curve(expr: Any, function: Any) -> Any | None:
    """``expr`` with its numerator reduced modulo the curve's polynomial F, when that is
    shorter: N = q·F + r, so N/D = r/D wherever F = 0 (polynomial F and N only).

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> _on_curve(-(x**2 + y**2) / y**3, x**2 + y**2 - 25)
    -25/y**3
    """
    import sympy as sp

    names = sorted(function.free_symbols, key=str)
    numerator, denominator = sp.fraction(sp.together(expr))
    if not (numerator.is_polynomial(*names) and function.is_polynomial(*names)):
        return None
    try:
        with time_limit(1.0):
            _, rest = sp.reduced(sp.expand(numerator), [sp.expand(function)], *names)
            reduced = sp.factor(rest) / sp.factor(denominator)
    except (CheckTimeout, sp.PolynomialError, ValueError):
        return None
    return reduced if sp.count_ops(reduced) < sp.count_ops(expr) else None


def _tape_slopes(graph: Graph, dependent: str, others, points: Points, order: int = 1):
    """-F_x / F_y (order 2: -(F_xx + 2 F_xy y' + F_yy y'^2) / F_y) from the tape at the
    points, and where it is defined."""
    options = Options(check=False, strict=False)
    sources = [*others, dependent]
    run: GradResult = (
        gradient_at(graph, points, sources, options)[0]
        if order == 1
        else hessian_at(graph, points, sources, options)
    )
    shape = np.shape(points.arrays[graph.variables[0]])
    fy = np.broadcast_to(_column(run.gradient[dependent]), shape)
    with np.errstate(all="ignore"):
        values = [-np.broadcast_to(_column(run.gradient[x]), shape) / fy for x in others]
        if isinstance(run, HessianResult):
            h = [
                [np.broadcast_to(_column(run.matrix[i, j]), shape) for j in (0, 1)] for i in (0, 1)
            ]
            slope = values[0]
            values = [-(h[0][0] + 2 * h[0][1] * slope + h[1][1] * slope**2) / fy]
    defined = ~np.broadcast_to(run.undefined, shape) & np.all(np.isfinite(values), axis=0)
    return values, defined


def _column(value: np.ndarray | None) -> np.ndarray:
    return np.asarray(0.0 if value is None else value, dtype=float)


def _at_point(graph: Graph, equation: str, dependent: str, others, at, order) -> dict[str, float]:
    """The derivatives at one point on the curve, from the tape."""
    points = parse_at(list(at))
    if points.count != 1:
        raise InputError("give one point (one --at) for the value of the derivative")
    require_values(graph, points.names)
    run = gradient_at(graph, points, [*others, dependent], Options(check=False))[0]
    residual = float(run.value)
    size = max(1.0, *(abs(float(row.value)) for row in run.tape))
    if abs(residual) > ON_CURVE * size:
        raise InputError(
            f"the point {points.label(0)} is not on the curve {equation}: "
            f"left - right = {residual:.10g} there"
        )
    d = "d" if len(graph.variables) == 2 else "∂"
    power = "" if order == 1 else "²"
    if float(_column(run.gradient[dependent])) == 0:
        raise UndefinedError(
            f"{d}{power}{dependent}/{d}{others[0]}{power} is undefined at {points.label(0)}: "
            f"∂F/∂{dependent} = 0 there (a vertical tangent, or a singular point)"
        )
    values, _ = _tape_slopes(graph, dependent, others, points, order)
    return {
        f"{d}{power}{dependent}/{d}{x}{power}": float(np.ravel(v)[0])
        for x, v in zip(others, values)
    }
