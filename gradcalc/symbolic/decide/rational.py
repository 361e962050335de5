"""Exact points: when the difference of two sides is a rational function (of the variables,
and of ``pi`` or ``e`` as an indeterminate), evaluate it with exact rational arithmetic at
random integer points; by Schwartz-Zippel a nonzero difference of degree d vanishes at a
random point of S^n with probability at most d/|S|.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> from time import process_time
>>> rational_decision((x + 1) ** 2, x**2 + 2 * x + 1, [x], [], process_time() + 3).evidence
'exact points'
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.symbolic.decide.decision import (
    EQUIVALENT,
    NOT_EQUIVALENT,
    Decision,
    exact_witness,
    number_text,
    point_text,
)
from gradcalc.symbolic.decide.patience import FAILURES, wall
from gradcalc.symbolic.translate.convert import exact_at

__all__ = [
    "MAX_DEGREE",
    "RANDOM_POINTS",
    "SPREAD",
    "NotRational",
    "degree_bounds",
    "exact",
    "rational_decision",
    "rational_valued",
]

RANDOM_POINTS = 6  # independent random integer points for a rational difference
SPREAD = 10**18  # integer points are drawn from [-SPREAD, SPREAD]
MAX_DEGREE = 10_000  # larger degree bounds are left to the other evidence


class NotRational(Exception):
    """The expression is not a rational function of the indeterminates."""


def rational_decision(answer, truth, symbols, points, deadline) -> Decision | None:
    """Schwartz-Zippel at random integer points when the difference of the two sides is a
    rational function (parts that are not may cancel in it: ``log(x)`` on both sides);
    None when it is not, or its degree is too large to evaluate cheaply."""
    import sympy as sp

    difference = answer - truth
    constants = difference.atoms(sp.NumberSymbol)
    if difference.has(sp.exp):  # e^2 is exp(2): a power of the constant e
        constants.add(sp.E)
    if len(constants) > 1:  # pi and e together: their algebraic independence is unknown
        return None
    indeterminates = [*symbols, *sorted(constants, key=str)]
    try:
        with time_limit(wall(deadline)):
            degree = degree_bounds(difference, indeterminates)[0]
            if degree > MAX_DEGREE:
                return None
            draw = random.SystemRandom()
            agreed = 0
            for _ in range(4 * RANDOM_POINTS):
                values = {s: Fraction(draw.randint(-SPREAD, SPREAD)) for s in indeterminates}
                try:
                    gap = exact(difference, values)
                except ZeroDivisionError:  # a denominator vanishes there: draw again
                    continue
                if gap != 0:
                    return _rational_witness(answer, truth, difference, points)
                agreed += 1
                if agreed == RANDOM_POINTS:
                    break
    except (NotRational, *FAILURES):
        return None
    if agreed < RANDOM_POINTS:
        return None
    digits = math.floor(-agreed * math.log10(max(degree, 1) / (2 * SPREAD + 1)))
    detail = f"exact at {agreed} random points: a wrong answer passes with chance < 10^-{digits}"
    return Decision(EQUIVALENT, "exact points", detail)


def _rational_witness(answer, truth, difference, points) -> Decision:
    """Not equivalent (the difference is a nonzero rational function): the first of the
    caller's points where it is not 0, with both values when they are exact numbers (when
    both sides are rational functions, random decimals in [-3, 3] are tried next)."""
    import sympy as sp

    if rational_valued(answer) and rational_valued(truth):
        draw = random.Random(0)
        names = sorted(str(s) for s in difference.free_symbols)
        decimals = [
            {n: sp.Rational(draw.randint(-3000, 3000), 1000) for n in names} for _ in range(20)
        ]
        points = [*points, *decimals]
    for point in points:
        subs = {sp.Symbol(name, real=True): value for name, value in point.items()}
        gap = exact_at(difference, subs)
        if gap.is_zero is not False or gap.has(sp.zoo, sp.nan):
            continue
        yours, correct = exact_at(answer, subs), exact_at(truth, subs)
        if yours.is_Rational and correct.is_Rational:
            return exact_witness(point, yours, correct)
        where = ", ".join(f"{name}={point_text(v)}" for name, v in point.items())
        shown = number_text(gap) if gap.is_Rational else str(gap)
        return Decision(
            NOT_EQUIVALENT, "exact", f"differs at {where}: yours − correct = {shown} (exact)"
        )
    shown = str(difference) if len(str(difference)) <= 60 else "a rational function"
    return Decision(NOT_EQUIVALENT, "exact", f"yours − correct = {shown}, which is not 0")


def degree_bounds(expr, indeterminates) -> tuple[int, int]:
    """Bounds on the degrees of numerator and denominator of ``expr`` written as one
    fraction of polynomials in ``indeterminates``, from its tree.

    Raises:
        NotRational: ``expr`` uses anything else (a function, a fractional power).
    """
    import sympy as sp

    if expr in indeterminates:
        return 1, 0
    if expr.is_Rational:
        return 0, 0
    if isinstance(expr, sp.exp) and expr.args[0].is_Integer and sp.E in indeterminates:
        k = int(expr.args[0])
        return (k, 0) if k >= 0 else (0, -k)
    if expr.is_Add or expr.is_Mul:
        parts = [degree_bounds(arg, indeterminates) for arg in expr.args]
        below = sum(d for _, d in parts)
        if expr.is_Mul:
            return sum(n for n, _ in parts), below
        return max(n - d for n, d in parts) + below, below
    if expr.is_Pow and expr.exp.is_Integer:
        n, d = degree_bounds(expr.base, indeterminates)
        k = int(expr.exp)
        return (k * n, k * d) if k >= 0 else (-k * d, -k * n)
    raise NotRational(str(expr.func))


def exact(expr, values: Mapping[Any, Fraction]) -> Fraction:
    """``expr`` (a rational function, see :func:`degree_bounds`) at the point, exactly."""
    import sympy as sp

    if expr in values:
        return values[expr]
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    if isinstance(expr, sp.exp):
        return values[sp.E] ** int(expr.args[0])
    if expr.is_Add:
        return sum((exact(arg, values) for arg in expr.args), Fraction(0))
    if expr.is_Mul:
        return math.prod((exact(arg, values) for arg in expr.args), start=Fraction(1))
    return exact(expr.base, values) ** int(expr.exp)


def rational_valued(expr) -> bool:
    """True when ``expr`` is rational at rational points: integer powers and piecewise
    functions of rational functions (``x/abs(x)``, ``sign(x)``)."""
    import sympy as sp

    piecewise = (sp.Abs, sp.sign, sp.Heaviside, sp.floor, sp.ceiling, sp.Max, sp.Min)
    if expr.atoms(sp.NumberSymbol):
        return False
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Function) and not isinstance(node, piecewise):
            return False
        if node.is_Pow and not node.exp.is_Integer:
            return False
    return True
