"""Implicit differentiation: dy/dx on the curve F(x, y) = 0 (or the surface F(x, y, z) = 0).

The equation ``left = right`` is parsed by gradcalc's parser as ``F = left - right``; then
dy/dx = -F_x / F_y, simplified and verified against the tape's own ∂F/∂x and ∂F/∂y at random
points. At a point, the point must be on the curve; the value is the tape's.

>>> r = implicit("x^2 + y^2 = 25", "y")
>>> r.entries[0].label, r.entries[0].text, r.verification.status
('dy/dx', '-x/y', 'verified')
>>> at = implicit("x^2 + y^2 = 25", "y", at=["x=3,y=4"]).values
>>> at
{'dy/dx': -0.75}
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.apps.derive.diff import Entry, Verification, verify
from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.engine.evaluate.evaluate import source_names
from gradcalc.engine.evaluate.points import Points, parse_at
from gradcalc.engine.run.api import Options, gradient_at
from gradcalc.lang.graph import Graph, lower
from gradcalc.lang.parser import parse_equation
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, symbolic_gradient, time_limit
from gradcalc.symbolic.crosscheck.crosscheck import to_sympy as graph_to_sympy
from gradcalc.symbolic.crosscheck.simplify import simplest

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


def implicit(
    equation: str,
    dependent: str,
    wrt: Sequence[str] | None = None,
    at: Sequence[str] = (),
    budget: float = 5.0,
) -> ImplicitResult:
    """d(dependent)/d(each other variable) on the curve or surface ``equation``.

    Raises:
        InputError: not an equation, an unknown variable, a point not on the curve.
        UndefinedError: at the point, ∂F/∂(dependent) = 0 (a vertical tangent) or F is
            undefined.

    >>> implicit("x^3 + y^3 = 6x y", "y").entries[0].text
    '(x^2 - 2y)/(2x - y^2)'
    """
    graph = lower(parse_equation(equation))
    if dependent not in graph.variables:
        raise InputError(
            f"--implicit {dependent}: not a variable of the equation "
            f"({', '.join(graph.variables) or 'none'})"
        )
    others = [v for v in source_names(graph, wrt) if v != dependent]
    if not others:
        raise InputError(f"the equation has no variable besides {dependent} to differentiate by")
    deadline = time.monotonic() + budget
    d = "d" if len(graph.variables) == 2 else "∂"
    entries: list[Entry] = []
    notes: list[str] = []
    function = graph_to_sympy(graph)[graph.targets[0]]
    try:
        with time_limit(budget):
            gradient = symbolic_gradient(graph, 0, [*others, dependent])
    except CheckTimeout:
        notes.append(f"budget exceeded: sympy could not differentiate within {budget:g} s")
        gradient = None
    if gradient is not None:
        _determines(gradient[dependent], equation, dependent)
        for k, x in enumerate(others):
            raw = -gradient[x] / gradient[dependent]
            share = (deadline - time.monotonic()) / (len(others) - k)
            form = simplest(raw, share)
            if form.note:
                notes.append(form.note)
            entries.append(Entry(f"{d}{dependent}/{d}{x}", (x,), raw, form, dependent))
    check = (
        verify(
            graph,
            entries,
            lambda points: _tape_slopes(graph, dependent, others, points),
            max(deadline - time.monotonic(), 1.0),
        )
        if entries
        else Verification("unverified", 0, "there is no symbolic answer to verify")
    )
    values = _at_point(graph, equation, dependent, others, at, d) if at else None
    return ImplicitResult(
        equation, dependent, tuple(others), function, entries, check, values, notes
    )


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


def _tape_slopes(graph: Graph, dependent: str, others, points: Points):
    """-F_x / F_y from the tape at the points, and where it is defined."""
    run = gradient_at(graph, points, [*others, dependent], Options(check=False, strict=False))[0]
    shape = np.shape(points.arrays[graph.variables[0]])
    fy = np.broadcast_to(_column(run.gradient[dependent]), shape)
    with np.errstate(all="ignore"):
        values = [-np.broadcast_to(_column(run.gradient[x]), shape) / fy for x in others]
    defined = ~np.broadcast_to(run.undefined, shape) & np.all(np.isfinite(values), axis=0)
    return values, defined


def _column(value: np.ndarray | None) -> np.ndarray:
    return np.asarray(0.0 if value is None else value, dtype=float)


def _at_point(graph: Graph, equation: str, dependent: str, others, at, d) -> dict[str, float]:
    """The slopes at one point on the curve, from the tape."""
    points = parse_at(list(at))
    if points.count != 1:
        raise InputError("give one point (one --at) for the value of the derivative")
    missing = [v for v in graph.variables if v not in points.names]
    if missing:
        raise InputError(f"no value given for {missing[0]} (use --at {missing[0]}=...)")
    run = gradient_at(graph, points, [*others, dependent], Options(check=False))[0]
    residual = float(run.value)
    size = max(1.0, *(abs(float(row.value)) for row in run.tape))
    if abs(residual) > ON_CURVE * size:
        raise InputError(
            f"the point {points.label(0)} is not on the curve {equation}: "
            f"left - right = {residual:.10g} there"
        )
    fy = float(_column(run.gradient[dependent]))
    if fy == 0:
        raise UndefinedError(
            f"{d}{dependent}/{d}{others[0]} is undefined at {points.label(0)}: "
            f"∂F/∂{dependent} = 0 there (a vertical tangent, or a singular point)"
        )
    return {f"{d}{dependent}/{d}{x}": -float(_column(run.gradient[x])) / fy for x in others}
