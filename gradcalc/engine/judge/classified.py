"""What each point of a Hessian is: the second-derivative test, and where it is
inconclusive, the terms of lowest order.

The test reads the exact values where the check knows them. At a point given exactly
(``--at x=0``) where the gradient is exactly 0 and the Hessian singular, it cannot say what
the point is. The terms of lowest order of f − f(p) often can
(:func:`gradcalc.symbolic.decide.extremum.higher_order`): ``x^4`` is a local minimum at 0,
``x^3`` an inflection point, ``x^2 - y^4`` a saddle point. Variables the derivatives are not
taken in (``--wrt``) are held at their values.

>>> from gradcalc import hessian
>>> result = hessian("x^4 + y^4", at=["x=0,y=0"])
>>> result.tests[0].verdict, result.lowest_order[0].verdict
('inconclusive', 'local minimum')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.engine.judge.exact import agreed_exact, below_float64, exact_point, known_exactly

if TYPE_CHECKING:  # (a one-shot gradient imports none of these)
    from gradcalc.engine.evaluate.beyond import HessianResult
    from gradcalc.engine.evaluate.points import Points
    from gradcalc.engine.evaluate.results import GradResult, Options
    from gradcalc.lang.graph import Graph
    from gradcalc.symbolic.decide.extremum import HigherOrder

__all__ = ["POINT_LIMIT", "classified", "lowest_order_tests"]

#: The test is tried at this many points at most (each is a sympy expansion).
POINT_LIMIT = 16


def classified(
    graph: Graph, target: int, points: Points, result: HessianResult, options: Options
) -> None:
    """Sets ``result.tests``: the second-derivative test at each point, on the exact values
    where they are known; and with the check, where it is inconclusive, the terms of lowest
    order (``result.lowest_order``).

    >>> from gradcalc.engine.run.api import hessian  # (which calls this)
    >>> hessian("x^3 - y^2", at={"x": 0, "y": 0}).lowest_order[0].verdict
    'saddle point'
    """
    from gradcalc.engine.evaluate.classify import classify

    sources = result.sources
    coordinates = [np.broadcast_to(a, (points.count,)) for a in points.arrays.values()]
    known = np.array([known_exactly(result.check, s, points.count) for s in sources])
    tiny = np.array([below_float64(result.check, s, points.count) for s in sources])
    assert result.shown_matrix is not None  # (set by hessian_at)
    for k in range(points.count):
        h = result.shown_matrix.reshape(len(sources), len(sources), -1)[:, :, k]
        g = np.array([_shown_at(result, s, k) for s in sources])
        g[tiny[:, k]] = 5e-324  # exactly not 0 (exp(-800)), though its float is: no critical point
        _disputed(result, k, g, known[:, k])
        scale = max((abs(float(c[k])) for c in coordinates), default=1.0)
        signs = _exact_inertia(result, k) if known[:, k].all() else None
        result.tests.append(classify(h, g, scale, exact=known[:, k], inertia=signs))
    if options.check:
        result.lowest_order = lowest_order_tests(graph, target, points, result, known, options)


def _exact_inertia(result: HessianResult, k: int) -> tuple[int, int] | None:
    """The exact Hessian's counts of positive and negative eigenvalues at point ``k``, where
    the check knows every entry exactly (else None)."""
    names = result.sources
    rows = [[agreed_exact(result.check, f"{a},{b}") for b in names] for a in names]
    entries = [[column[k] if k < len(column) else None for column in row] for row in rows]
    if any(entry is None for row in entries for entry in row):
        return None
    from gradcalc.symbolic.decide.extremum import inertia

    return inertia(entries)


def _disputed(result: HessianResult, k: int, gradient: np.ndarray, known: np.ndarray) -> None:
    """Where the check disputes the tape's gradient at point ``k`` (its 0 at x = 0.57735...
    for x^3 - x, where the exact value is -2.2e-16), sympy's exact value in its place, known
    exactly (a nonzero one whose float is 0 as the smallest float): the test is of the
    function, not of the tape's rounding."""
    if result.check is None:
        return
    for i, source in enumerate(result.sources):
        partial = result.check.partials.get(source)
        if partial is None or partial.mismatch is None or not partial.exact_values:
            continue
        exact = partial.exact_values[k] if k < len(partial.exact_values) else None
        if exact is not None and bool(partial.mismatch.reshape(-1)[k]):
            number = float(partial.values.reshape(-1)[k])
            gradient[i] = 5e-324 if number == 0 and not exact.is_zero else number
            known[i] = np.isfinite(number)


def _shown_at(result: GradResult, source: str, k: int) -> float:
    """The shown (exact where known) gradient component ``source`` at point ``k``."""
    shown = result.shown.get(source)
    values = result.gradient[source] if shown is None else shown
    return 0.0 if values is None else float(np.asarray(values).reshape(-1)[k])


def lowest_order_tests(
    graph: Graph,
    target: int,
    points: Points,
    result: HessianResult,
    known: np.ndarray,
    options: Options,
) -> list[HigherOrder | None]:
    """Per point, the verdict of f's terms of lowest order (``target`` of ``graph``, in the
    variables ``result.sources``) where the second-derivative test ``result.tests[k]`` is
    inconclusive at an exact critical point (``known[:, k]``: each gradient entry known
    exactly); None elsewhere, and where those terms do not decide it within the check's
    time per point."""
    tests, sources = result.tests, result.sources
    out: list[HigherOrder | None] = [None] * len(tests)
    undecided = [
        k
        for k, test in enumerate(tests)
        if test.verdict == "inconclusive" and not test.within_rounding and known[:, k].all()
    ]
    if not undecided or len(undecided) > POINT_LIMIT:
        return out
    import sympy as sp

    from gradcalc.symbolic.crosscheck.crosscheck import target_expression
    from gradcalc.symbolic.decide.extremum import higher_order

    f = target_expression(graph, target)
    for k in undecided:
        point = exact_point(points, k)
        if point is None or not set(sources) <= set(point):
            continue
        held = {sp.Symbol(n, real=True): v for n, v in point.items() if n not in sources}
        symbols = [sp.Symbol(s, real=True) for s in sources]
        at: dict[Any, Any] = {s: point[s.name] for s in symbols}
        f_here = f.subs(held, simultaneous=True)
        out[k] = higher_order(f_here, symbols, at, options.check_timeout)
    return out
