"""Before a disagreement counts: a tape value that parts from sympy's is looked at again.

- Where sympy's derivative was evaluated in floats (many points), the derivative is
  evaluated again to 40+ digits (:func:`confirm_mismatches`): float64 sympy is no truth.
- Where the point typed is not a float64 number (``pi/2``), the derivative at the float64
  point the tape was given (:func:`rounded_points`): agreeing there, the tape agrees.
- Where the truth is exactly 0, the tape's value is the rounding residue of the terms it
  summed (:func:`zero_residues`): ∂/∂x of 2000·x·y² − 12000·x·y + 54005·x/3 at x = −1/3,
  y = 3 is 18000 − 36000 + 18001.67 minus 1.67, exactly 0, and float64's sum of those terms is
  −2.4e-12. A residue within :data:`RESIDUE_ULPS` units in the last place of the largest term
  agrees; the fixed slack of :data:`~.values.ZERO_ATOL` (1e-12) is for sums of terms near 1.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> largest_term(2000 * x**2 - 12000 * x + sp.Rational(54005, 3), {x: sp.Integer(3)})
36000.0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gradcalc.symbolic.crosscheck.values import (
    agrees,
    at_nearest_floats,
    exact_value,
    mismatch,
    tape_column,
)
from gradcalc.symbolic.decide.removable import limit_at

__all__ = [
    "CONFIRM",
    "RESIDUE_ULPS",
    "confirm_mismatches",
    "largest_term",
    "residue_how",
    "rounded_points",
    "zero_residues",
]

CONFIRM = 16  # mismatching points recomputed to 40+ digits before a disagreement counts
#: How many units in the last place of the derivative's largest term a tape value may be off
#: an exact 0: float64's rounding of a sum of a handful of terms and their products.
RESIDUE_ULPS = 16
EPS = float(np.finfo(float).eps)
#: The subexpressions :func:`largest_term` looks at before it settles for the largest so far.
MAX_NODES = 5000


def confirm_mismatches(graph, partials, derivatives, tape_values, where) -> None:
    """Where the tape parts from sympy's derivative evaluated in floats by more than RTOL of
    it, evaluate the derivative again to 40+ digits
    (:func:`~gradcalc.symbolic.decide.precision.precise_at`), at up to CONFIRM points (those
    outside the float rule first): a disagreement is never one with float rounding (sympy's
    ``exp(x)/(exp(x) + 1)`` for softplus is inf/inf at x = 800, the tape's sigmoid is 1), and
    a point confirmed is judged by the rule of exact values (:mod:`.values`)."""
    import sympy as sp

    from gradcalc.symbolic.decide.precision import mp_function, precise_at

    shape = where.skip.shape
    columns = {v: np.broadcast_to(where.point[v], shape).reshape(-1) for v in graph.variables}
    names = sorted(graph.variables)
    symbols = [sp.Symbol(n, real=True) for n in names]
    for source, partial in partials.items():
        tape = tape_column(tape_values[source], shape)
        values = np.array(partial.values, dtype=float)
        flat, confirmed = values.reshape(-1), np.array(partial.confirmed, bool).reshape(-1)
        loose = mismatch(tape, values, where.skip, False).reshape(-1)
        strict = mismatch(tape, values, where.skip, True).reshape(-1)
        order = np.concatenate([np.flatnonzero(loose), np.flatnonzero(strict & ~loose)])
        function = None  # sympy's derivative for mpmath, made once a point needs it
        for k in order[:CONFIRM]:
            point = {v: sp.Rational(float(column[k])) for v, column in columns.items()}
            function = function or mp_function(symbols, [derivatives[source]])
            try:
                precise = precise_at(function, names, point)
            except ZeroDivisionError:  # mpmath's 0/0: sympy's form, not the derivative
                limit = limit_at(derivatives[source], point)
                precise = None if limit is None else limit.value
                if limit is not None:
                    partial.limits.append(limit)
            if precise is not None or loose[k]:  # (unconfirmed within the float rule: kept)
                flat[k], confirmed[k] = (np.nan if precise is None else precise), True
        partial.values, partial.confirmed = values, confirmed.reshape(shape)


def rounded_points(partials, derivatives, tape_values, where: Any) -> None:
    """Where the tape parts from the exact value at a point float64 cannot hold (``pi/2``,
    ``1.5707963267948966``), the derivative to 50 digits at the float64 point the tape was
    given: where the tape agrees with that, the difference is the point's rounding, not the
    tape's (kept in ``Partial.rounded``; the exact value stays the one shown). ``where``:
    the check's :class:`~gradcalc.symbolic.crosscheck.crosscheck.CheckInput`."""

    assert where.exact_point is not None  # (the exact path)
    shape = where.skip.shape
    for source, partial in partials.items():
        tape = np.broadcast_to(tape_column(tape_values[source], shape), shape).reshape(-1)
        bad = mismatch(tape, partial.values, where.skip, True).reshape(-1)
        for k in np.flatnonzero(bad & ~np.isnan(partial.values.reshape(-1))):
            exact = _at(where, int(k))
            floats = {s: np.broadcast_to(where.point[s.name], shape).reshape(-1)[k] for s in exact}
            there = at_nearest_floats(derivatives[source], exact, floats)
            if there is not None and agrees(tape[k], there):
                partial.rounded[int(k)] = there


def zero_residues(partials, derivatives, tape_values, where) -> None:
    """Where the truth is exactly 0 (exact, or confirmed to 40+ digits) and the tape's value
    is beyond the fixed slack, the largest term of sympy's derivative at the point: a tape
    value within :data:`RESIDUE_ULPS` of its last place is float64's rounding of those terms
    (kept in ``Partial.residue``, flat point -> that allowance). At up to CONFIRM points per
    source. ``where``: the check's :class:`~gradcalc.symbolic.crosscheck.crosscheck.CheckInput`.
    """
    shape = where.skip.shape
    for source, partial in partials.items():
        tape = np.broadcast_to(tape_column(tape_values[source], shape), shape).reshape(-1)
        truth = np.broadcast_to(np.asarray(partial.values, dtype=float), shape).reshape(-1)
        confirmed = np.broadcast_to(np.asarray(partial.confirmed, bool), shape).reshape(-1)
        bad = mismatch(tape, truth, where.skip, True).reshape(-1) & (truth == 0) & confirmed
        bad[list(partial.rounded)] = False
        for k in np.flatnonzero(bad)[:CONFIRM]:
            slack = RESIDUE_ULPS * EPS * largest_term(derivatives[source], _at(where, int(k)))
            if abs(float(tape[k])) <= slack:
                partial.residue[int(k)] = slack


def residue_how(count: int, slack: float) -> str:
    """The words of the check's meaning for ``count`` points whose exact 0 the tape missed
    by float64's rounding of the derivative's terms, each within ``slack`` or less.

    >>> residue_how(1, 1.3e-10).split(": ")[1]
    '1.3e-10, 16 units in the last place of the largest'
    """
    return (
        f"at {count} the exact value is 0 and the tape's is within float64's rounding of "
        f"the derivative's terms: {slack:.2g}, {RESIDUE_ULPS} units in the last place of the "
        "largest"
    )


def largest_term(expr: Any, substitution: Mapping[Any, Any]) -> float:
    """The largest absolute value any subexpression of ``expr`` takes at the point
    ``substitution`` (symbol -> exact value), evaluated to 30 digits bottom-up: the scale of
    the numbers a float64 evaluation of ``expr`` adds and multiplies. 0.0 where sympy cannot
    evaluate a piece (then no residue is allowed beyond the fixed slack).
    """
    values: dict[Any, Any] = {}
    largest = 0.0
    stack: list[tuple[Any, bool]] = [(expr, False)]
    try:
        while stack and len(values) < MAX_NODES:
            node, ready = stack.pop()
            if node in values:
                continue
            if node.args and not ready:
                stack.append((node, True))
                stack.extend((arg, False) for arg in node.args if arg not in values)
                continue
            value = substitution.get(node, node)
            if node.args:
                value = node.func(*(values[arg] for arg in node.args))
            values[node] = value = value.evalf(30) if hasattr(value, "evalf") else value
            if getattr(value, "is_number", False) and value.is_finite:
                largest = max(largest, float(abs(complex(value))))
    except (TypeError, ValueError, ArithmeticError, AttributeError, RecursionError):
        return 0.0
    return largest


def _at(where, k: int) -> dict:
    """Point ``k`` of the check: exact where it was typed exactly, else its float's value."""
    import sympy as sp

    if where.exact_point is not None:
        return {sp.Symbol(n, real=True): exact_value(t) for n, t in where.exact_point[k].items()}
    shape = where.skip.shape
    return {
        sp.Symbol(n, real=True): sp.Rational(float(np.broadcast_to(c, shape).reshape(-1)[k]))
        for n, c in where.point.items()
    }
