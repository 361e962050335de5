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

from gradcalc.engine.judge.exact import agreed_exact, exact_point

if TYPE_CHECKING:  # (a one-shot gradient imports none of these)
    from gradcalc.engine.evaluate.beyond import HessianResult
    from gradcalc.engine.evaluate.points import Points
    from gradcalc.engine.evaluate.results import Options
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
    known = np.zeros((len(sources), points.count), dtype=bool)
    assert result.shown_matrix is not None  # (set by hessian_at)
    for k in range(points.count):
        h = result.shown_matrix.reshape(len(sources), len(sources), -1)[:, :, k]
        g = _tested_gradient(result, k, known[:, k])
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


def _tested_gradient(result: HessianResult, k: int, known: np.ndarray) -> np.ndarray:
    """The gradient the test reads at point ``k``: sympy's exact value's float where the check
    knows it -- agreed, or disputing the tape's (its 0 at x = 0.57735... for x^3 - x, where
    the exact value is -2.2e-16): the test is of the function, not of the tape's rounding --
    and then ``known`` is set; a nonzero one whose float is 0 (``exp(-800)``) is the smallest
    float, exactly not 0; elsewhere the shown value."""
    gradient = np.zeros(len(result.sources))
    for i, source in enumerate(result.sources):
        partial = None if result.check is None else result.check.partials.get(source)
        exact = partial.exact_values[k] if partial and k < len(partial.exact_values) else None
        if exact is not None and partial is not None:
            number = float(partial.values.reshape(-1)[k])
            if np.isfinite(number):
                gradient[i] = 5e-324 if number == 0 and not exact.is_zero else number
                known[i] = True
                continue
        shown = result.shown.get(source)
        values = result.gradient[source] if shown is None else shown
        gradient[i] = 0.0 if values is None else float(np.asarray(values).reshape(-1)[k])
    return gradient


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
