"""Points of the numeric search where float64 underflows: settled at 50 digits, or left out.

Far out on ``exp(-x^2)*sin(x)`` the gradient is below 1e-154, so its square -- what the
search makes small -- is 0 in float64, and beyond |x| = 27 the gradient and the Hessian are 0
themselves. The search stops anywhere there: a run of such points looks like a continuum of
critical points, and a true one there is located only roughly. Where the tape's gradient
and Hessian are below :data:`FLOOR` in some direction, Newton's method on sympy's gradient
at 50 digits decides: a point it settles at (within 1e-3 of where the search stopped) is a
critical point, moved there; one it leaves, or where the gradient is not 0 and the Hessian
is, is no critical point. Points not that small are not looked at.

>>> from gradcalc.engine.run.api import compile_expression
>>> graph = compile_expression("exp(-x^2)*sin(x)")
>>> [p and round(p["x"], 12) for p in settled(graph, ("x",), [{"x": 30.0}, {"x": 18.876}], 9)]
[None, 18.876038337986]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.apps.critical.critical_search import gradient_and_hessian
from gradcalc.lang.graph import Graph

__all__ = ["DIGITS", "FLOOR", "settled"]

#: A direction where the tape's gradient entry and Hessian row are all below this (the
#: square root of float64's smallest normal number) is looked at again at DIGITS digits.
FLOOR = 1e-150
DIGITS = 50
#: Newton's steps at DIGITS digits from each point looked at.
STEPS = 100


def settled(graph: Graph, variables, points: list[dict[str, float]], seconds: float):
    """Each point, or where Newton's method at 50 digits settles next to it (points looked
    at, see the module's docstring), or None where there is no critical point next to it.
    Points sympy cannot evaluate within ``seconds`` stay as they are."""
    if not points:
        return []
    x = np.array([[p[v] for v in variables] for p in points]).T
    g, h, _ = gradient_and_hessian(graph, variables, x)
    flat = (np.abs(g) <= FLOOR) & np.all(np.abs(h) <= FLOOR, axis=1)
    out: list[dict[str, float] | None] = list(points)
    looked = np.flatnonzero(flat.any(axis=0))
    if len(looked) == 0:
        return out
    import mpmath
    import sympy as sp

    from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, symbolic_gradient, time_limit

    symbols = [sp.Symbol(v, real=True) for v in variables]
    try:
        with time_limit(seconds), mpmath.workdps(DIGITS):
            gradient = symbolic_gradient(graph, 0, list(variables))
            first = [gradient[v] for v in variables]
            second = [[sp.diff(c, s) for s in symbols] for c in first]
            evaluate = _evaluator(sp, symbols, first, second)
            for k in looked:
                found = _newton(evaluate, [mpmath.mpf(repr(float(c))) for c in x[:, k]])
                out[k] = None if found is None else dict(zip(variables, found))
    except (CheckTimeout, TypeError, ValueError, ArithmeticError, AttributeError, NameError):
        pass  # (what was not looked at stays)
    return out


def _evaluator(sp: Any, symbols, first, second):
    """(gradient, Hessian) at a point of mpmath numbers, as mpmath matrices."""
    import mpmath

    g = sp.lambdify(symbols, first, "mpmath")
    h = sp.lambdify(symbols, second, "mpmath")
    return lambda at: (mpmath.matrix(g(*at)), mpmath.matrix(h(*at)))


def _newton(evaluate, start: list[Any]) -> list[float] | None:
    """Where Newton's method on the gradient settles within 1e-3 (relative) of ``start``
    (as floats: steps below float64's resolution; at a degenerate point, as cos(x) + x^2/2's
    0, they shrink only by a third), ``start`` itself where the gradient is 0 there, or None."""
    import mpmath

    at = list(start)
    for _ in range(STEPS):
        g, h = evaluate(at)
        if all(entry == 0 for entry in g):
            return [float(c) for c in at]
        if mpmath.det(h) == 0:
            return None  # (the gradient is not 0 and does not vanish nearby along H's kernel)
        step = mpmath.lu_solve(h, g)
        at = [c - d for c, d in zip(at, step)]
        if any(abs(c - s) > 1e-3 * (1 + abs(s)) for c, s in zip(at, start)):
            return None
        if all(abs(d) <= 2**-56 * (1 + abs(c)) for d, c in zip(step, at)):  # (float64's)
            return [float(c) for c in at]
    return None
