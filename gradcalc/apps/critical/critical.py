"""Critical points of a function and the second-derivative test at each.

Where the gradient is a system of rational functions, sympy solves ∇f = 0 exactly (within a
time budget): the solution set is then complete. Otherwise -- or when sympy runs out of
time -- a numeric search on the tape runs Levenberg-Marquardt steps on |∇f|² from many starting
points of the region at once, and the points it converges to are deduplicated and labelled
numeric (a search can miss points; it says so). Each point gets its value, its Hessian (exact
when the point is), the second-derivative test and a verdict; the tape's gradient must vanish
there, or the point is not reported.

>>> result = critical_points("x^3 - 3x + y^2")
>>> result.method
'exact'
>>> [(p.coordinates, p.test.verdict) for p in result.points]
[('x = -1, y = 0', 'saddle point'), ('x = 1, y = 0', 'local minimum')]
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import floor, pi
from typing import Any

import numpy as np

from gradcalc.apps.critical.continua import continua_of
from gradcalc.apps.critical.critical_search import (
    STARTS,
    distinct,
    gradient_and_hessian,
    numeric_search,
)
from gradcalc.apps.critical.solved import exact_solutions
from gradcalc.apps.critical.steady import steady_inertia, steady_note
from gradcalc.apps.critical.underflow import settled
from gradcalc.core.errors import InputError
from gradcalc.core.ops import NOT_DIFFERENTIABLE, REGISTRY
from gradcalc.engine.evaluate.classify import Classification, classify
from gradcalc.engine.evaluate.evaluate import evaluate, rows_of
from gradcalc.engine.evaluate.higher import check_variables
from gradcalc.engine.evaluate.points import constant_value
from gradcalc.engine.run.api import compile_expression
from gradcalc.lang.graph import Graph
from gradcalc.lang.literals import split_top_level
from gradcalc.symbolic.crosscheck.crosscheck import (
    CheckTimeout,
    symbolic_gradient,
    time_limit,
)
from gradcalc.symbolic.decide.extremum import higher_order, inertia
from gradcalc.symbolic.translate.convert import converted
from gradcalc.symbolic.translate.notation import coordinate_text

#: The region searched numerically when none is given: every variable in [-5, 5].
DEFAULT_RANGE = (-5.0, 5.0)
#: Seconds at most for the lowest-order terms at one point the Hessian leaves undecided.
SETTLE_SECONDS = 2.0


@dataclass
class CriticalPoint:
    """One point where ∇f = 0.

    ``exact`` maps each variable to its sympy value (``None`` for a numeric point);
    ``hessian`` is the Hessian there (exact entries made float when the point is exact);
    ``discriminant`` is fxx·fyy − fxy² for two variables.
    """

    point: dict[str, float]
    exact: dict[str, Any] | None
    value: float
    hessian: np.ndarray
    test: Classification
    discriminant: float | None = None

    @property
    def coordinates(self) -> str:
        """``x = 1, y = 0`` (exact values in the user's notation when known)."""
        return coordinates(self.point, self.exact)


def coordinates(point: Mapping[str, float], exact: Mapping[str, Any] | None) -> str:
    """``x = 1, y = 0``: the exact values in the user's notation when known.

    >>> coordinates({"x": 0.5, "y": 2.0000000001}, None)
    'x = 0.5, y = 2'

    A root sympy writes as ``CRootOf`` (no radicals) gets its value beside it:

    >>> import sympy as sp
    >>> root = sp.CRootOf(sp.Symbol("x") ** 5 - sp.Symbol("x") - 1, 0)
    >>> coordinates({"x": float(root)}, {"x": root})
    'x = CRootOf(x^5 - x - 1, 0) ≈ 1.167303978'
    """
    if exact is not None:
        return ", ".join(f"{n} = {_exact_text(n, v, point[n])}" for n, v in exact.items())
    return ", ".join(f"{n} = {v:.10g}" for n, v in point.items())


def _exact_text(name: str, value: Any, number: float) -> str:
    """An exact coordinate as written (:func:`coordinate_text`), with its value beside a root
    of a polynomial that has no radicals."""
    import sympy as sp  # (loaded: the value is sympy's)

    close = f" ≈ {number:.10g}" if value.has(sp.CRootOf) else ""
    return coordinate_text(name, value) + close


@dataclass
class CriticalResult:
    """All critical points found, how (``exact`` or ``numeric``), in which region."""

    expression: str
    variables: tuple[str, ...]
    region: dict[str, tuple[float, float]]
    method: str
    points: list[CriticalPoint]
    notes: list[str] = field(default_factory=list)
    continua: list[str] = field(default_factory=list)  # continua of critical points, described


def parse_region(spec: str | None, variables: Sequence[str]) -> dict[str, tuple[float, float]]:
    """``x=-5..5,y=0..pi`` as bounds per variable (missing ones: [-5, 5]).

    >>> parse_region("x=-1..2", ["x", "y"])
    {'x': (-1.0, 2.0), 'y': (-5.0, 5.0)}
    """
    region = dict.fromkeys(variables, DEFAULT_RANGE)
    given: dict[str, str] = {}
    for part in split_top_level(spec) if spec else []:
        name, equals, bounds = part.strip().partition("=")
        low, dots, high = bounds.partition("..")
        if not (equals and dots):
            raise InputError(f"--in {part.strip()!r}: write name=low..high, e.g. x=-5..5")
        if name.strip() not in region:
            raise InputError(
                f"--in {name.strip()}: not a variable of the expression "
                f"({', '.join(variables) or 'none'})"
            )
        if name.strip() in given:
            raise InputError(
                f"--in gives {name.strip()} twice ({given[name.strip()]} and {part.strip()}): "
                "one range per variable"
            )
        given[name.strip()] = part.strip()
        lo, hi = constant_value(low.strip()), constant_value(high.strip())
        if not lo < hi:
            raise InputError(f"--in {part.strip()!r}: the low end must be below the high end")
        region[name.strip()] = (lo, hi)
    return region


def critical_points(
    expression: str,
    region: str | Mapping[str, tuple[float, float]] | None = None,
    budget: float = 5.0,
    everywhere: bool = False,
) -> CriticalResult:
    """The critical points of ``expression`` (one target) in ``region``.

    Args:
        expression: the function.
        region: ``"x=-5..5,y=-5..5"`` or bounds per variable. Exact solutions outside it are
            left out (unless ``everywhere``); the numeric search starts inside it.
        budget: seconds for sympy's exact solution, and as many for the numeric search.

    Raises:
        InputError: a bad expression or region, several targets, no variables.

    >>> r = critical_points("x^4 + y^4 - 4x y")
    >>> for p in r.points:
    ...     print(p.coordinates, p.test.verdict, p.discriminant)
    x = -1, y = -1 local minimum 128.0
    x = 0, y = 0 saddle point -16.0
    x = 1, y = 1 local minimum 128.0
    """
    graph = compile_expression(expression)
    if len(graph.targets) != 1:
        raise InputError("critical points are of one function: give one expression")
    variables = tuple(graph.variables)
    if not variables:
        raise InputError(f"{expression!r} has no variables")
    check_variables(graph, variables, "a critical point")
    bounds = dict(region) if isinstance(region, Mapping) else parse_region(region, variables)
    notes: list[str] = []
    deadline = time.monotonic() + budget
    continua: list[str] = []
    exact = exact_solutions(graph, variables, budget, notes, continua)
    if exact is not None:
        points = [p for p in exact if everywhere or _inside(p[0], bounds)]
        if len(points) < len(exact):
            notes.append(f"{len(exact) - len(points)} exact critical point(s) outside the region")
        method = "exact"
    else:
        points, continua = _numeric_points(graph, variables, bounds, budget, notes)
        method = "numeric"
    found = _classified(graph, variables, points, deadline, notes)
    notes += _settled(graph, variables, found, deadline)
    corners = _not_differentiable(graph)
    if corners:
        notes.append(
            f"f may not be differentiable everywhere ({', '.join(corners)}): a point where ∇f does "
            "not exist can be a critical point too, and is not listed (only ∇f = 0 is solved)"
        )
    if method == "exact" and len(found) < len(points):
        notes.append(
            f"{len(points) - len(found)} solution(s) of ∇f = 0 left out: f or ∇f is undefined there"
        )
    return CriticalResult(expression, variables, bounds, method, found, notes, continua)


def _numeric_points(graph: Graph, variables, bounds, budget: float, notes: list[str]):
    """The numeric search's points, each exact where sympy proves it, and the continua the
    others lie on."""
    deadline = time.process_time() + budget  # CPU time: the same search under load
    searched = numeric_search(graph, variables, bounds, deadline, notes)
    kept = settled(graph, variables, searched, budget)
    if None in kept:
        notes.append(
            f"{kept.count(None)} point(s) the search stopped at left out: ∇f is 0 there only "
            "in float64, which underflows (at 50 digits no critical point is next to them)"
        )
    # (Newton's method at 50 digits settles copies of a point on the same floats)
    points = distinct([p for p in kept if p is not None], rtol=1e-12, atol=1e-12)
    found, continua, flats = continua_of(graph, variables, points, bounds)
    recognized = _recognized(graph, variables, zip(found, [s for s, _ in flats]), budget)
    for (point, exact), (spread, copies) in zip(recognized, flats):
        if copies > 1:
            notes.append(
                f"{coordinates(point, exact)}: one flat critical point, found {copies} times by "
                f"the search within {spread:.1e} of each other at the same f"
                + (": sympy proves ∇f = 0 at the exact point" if exact else "")
            )
    notes.append(
        f"numeric search: Levenberg-Marquardt on |∇f|² from {STARTS} starting points in the "
        "region; points it did not reach may be missing"
    )
    return recognized, continua


def _not_differentiable(graph: Graph) -> list[str]:
    """The ops of ``f`` on a variable with corners or jumps (their domain rule says so at 0), and a
    power of a variable to a constant, positive non-integer exponent (``x^(2/3)``: an
    infinite slope or the edge of its domain at base 0)."""
    found: list[str] = []
    varying: set[int] = set()  # the nodes that depend on a variable (not sqrt(3))
    for node in graph.nodes:
        if node.kind == "var" or varying.intersection(node.inputs):
            varying.add(node.index)
        op = REGISTRY.get(node.op) if node.index in varying and node.kind == "op" else None
        if op is None or node.op in found or not (op.arity == 1 or op.variadic):
            continue
        issues = op.issues(*[np.zeros(1)] * op.arity)
        if any(issue.kind == NOT_DIFFERENTIABLE for issue in issues):
            found.append(node.op)
    if any(node.op == "pow" for node in graph.nodes):
        rows = evaluate(graph, {v: 1.0 for v in graph.variables}).rows[0]
        for row in rows_of(rows, {"pow"}):
            (base, exponent), y = row.inputs, np.asarray(row.input_values[1])
            fractional = y.size == 1 and float(y) > 0 and not float(y).is_integer()
            if exponent.is_constant and not base.is_constant and fractional:
                return [*found, "a fractional power"]
    return found


def _inside(point: Mapping[str, float], bounds: Mapping[str, tuple[float, float]]) -> bool:
    return all(bounds[n][0] <= v <= bounds[n][1] for n, v in point.items())


# --- numeric points recognised as exact -------------------------------------------------------


def _recognized(graph: Graph, variables, located, budget: float):
    """[(point, exact point or None)] of the (point, spread) pairs ``located``: a numeric
    point whose coordinates are simple multiples of pi or rationals (``-pi/2``, ``1/3``), to
    1e-9 or to the spread of a flat point's copies, is exact when sympy proves ∇f = 0 there."""
    import sympy as sp

    symbols = [sp.Symbol(v, real=True) for v in variables]
    out: list = []
    located = list(located)
    try:
        with time_limit(budget):
            gradient = symbolic_gradient(graph, 0, list(variables))
            for point, spread in located:
                guess = {v: _guess(point[v], spread) for v in variables}
                close = all(
                    guess[v].is_real and abs(float(guess[v]) - point[v]) <= max(1e-9, spread)
                    for v in variables
                )
                at = {s: guess[v] for s, v in zip(symbols, variables)}
                proved = close and all(sp.simplify(gradient[v].subs(at)) == 0 for v in variables)
                if proved:  # the float nearest the exact point, where the tape is read
                    point = {v: float(guess[v]) for v in variables}
                out.append((point, guess if proved else None))
    except (CheckTimeout, TypeError, ValueError, RecursionError, AttributeError):
        out += [(point, None) for point, _ in located[len(out) :]]
    return out


def _guess(value: float, spread: float):
    """The exact number ``value`` may be: sympy's ``nsimplify`` to 1e-12 (``-pi/2``,
    ``sqrt(2)/2``), or for a flat point located only to ``spread`` the simplest rational or
    rational multiple of pi within it (0 for cos(x) + x^2/2's -7.5e-9 located to 6.8e-8).

    >>> _guess(-7.5e-9, 6.8e-8), _guess(3.14159, 1e-4), _guess(0.5, 0.0)
    (0, pi, 1/2)
    """
    import sympy as sp

    if spread == 0:
        return sp.nsimplify(value, [sp.pi, sp.sqrt(2), sp.sqrt(3)], tolerance=1e-12)
    rational = _simplest_between(Fraction(value - spread), Fraction(value + spread))
    turns = _simplest_between(Fraction((value - spread) / pi), Fraction((value + spread) / pi))
    height = [max(abs(q.numerator), q.denominator) for q in (rational, turns)]
    if height[1] < height[0]:
        return sp.Rational(turns.numerator, turns.denominator) * sp.pi
    return sp.Rational(rational.numerator, rational.denominator)


def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational with the smallest denominator in [lo, hi] (by continued fractions).

    >>> _simplest_between(Fraction(3, 10), Fraction(4, 10))
    Fraction(1, 3)
    """
    if lo <= 0 <= hi:
        return Fraction(0)
    if hi < 0:
        return -_simplest_between(-hi, -lo)
    whole = floor(lo)
    if whole == lo or whole + 1 <= hi:
        return Fraction(whole if whole == lo else whole + 1)
    return whole + 1 / _simplest_between(1 / (hi - whole), 1 / (lo - whole))


# --- each point: value, Hessian, the test -----------------------------------------------------


def _classified(
    graph: Graph, variables, points, deadline: float, notes: list[str]
) -> list[CriticalPoint]:
    """Each point with its value and second-derivative test; points where the tape finds f
    or ∇f undefined, or ∇f not zero, are left out. A numeric point whose eigenvalues are all
    below the test's floor gets their signs where they hold steady around it
    (:mod:`.steady`), with a note."""
    if not points:
        return []
    x = np.array([[p[v] for p, _ in points] for v in variables], dtype=float)
    g, h, values = gradient_and_hessian(graph, variables, x)
    exact_values = _exact_values(graph, variables, points, deadline)
    found = []
    for k, (point, exact) in enumerate(points):
        exactly = exact_values[k]
        hessian = exactly[1] if exactly is not None else h[:, :, k]
        scale = max(1.0, float(np.max(np.abs(x[:, k]))))
        if not (np.all(np.isfinite(g[:, k])) and np.isfinite(values[k])):
            continue  # f or its gradient is undefined here
        tolerance = 1e-6 * max(1.0, float(np.max(np.abs(h[:, :, k]))) * scale)
        if not np.all(np.abs(g[:, k]) <= tolerance):
            continue  # the tape does not confirm ∇f = 0 here
        gradient = np.zeros(len(variables)) if exact is not None else g[:, k]
        known = np.full(len(variables), exact is not None)  # sympy solved ∇f = 0 exactly
        signs = exactly[2] if exactly is not None else None
        test = classify(hessian, gradient, scale, known, tolerance, signs)
        if exact is None and test.critical and test.verdict == "inconclusive":
            signs = steady_inertia(graph, variables, x[:, k], g[:, k], hessian)
            if signs is not None:
                test = classify(hessian, gradient, scale, known, tolerance, signs)
                smallest = min(test.eigenvalues, key=abs)
                notes.append(steady_note(coordinates(point, None), test.verdict, smallest))
        two = len(variables) == 2
        value = exactly[0] if exactly is not None else float(values[k])
        determinant = float(hessian[0, 0] * hessian[1, 1] - hessian[0, 1] ** 2) if two else None
        found.append(CriticalPoint(point, exact, value, hessian, test, determinant))
    return found


def _settled(graph: Graph, variables, found: list[CriticalPoint], deadline: float) -> list[str]:
    """Exact points the second-derivative test leaves inconclusive, decided where the lowest
    -order terms of f there can (:func:`~gradcalc.symbolic.decide.extremum.higher_order`):
    their verdict replaced, and a note each saying why."""
    import sympy as sp

    open_points = [p for p in found if p.exact is not None and p.test.verdict == "inconclusive"]
    if not open_points:
        return []
    symbols = [sp.Symbol(v, real=True) for v in variables]
    f = converted(graph)[graph.targets[0]]
    notes = []
    for point in open_points:
        assert point.exact is not None
        seconds = max(min(deadline - time.monotonic(), SETTLE_SECONDS), 0.5)
        at = {s: point.exact[v] for s, v in zip(symbols, variables)}
        higher = higher_order(f, symbols, at, seconds)
        if higher is not None:
            point.test = replace(point.test, verdict=higher.verdict)
            notes.append(
                f"{point.coordinates}: {higher.verdict}, by the terms of lowest order (the "
                f"Hessian is singular: the second-derivative test is inconclusive): {higher.reason}"
            )
    return notes


def _exact_values(graph: Graph, variables, points, deadline: float) -> list:
    """(f, the Hessian, its eigenvalues' signs) at each exact point: exact and then rounded
    to floats (f(-pi) = 0 for sin(x)^4, where the tape gives 1e-58 at the float nearest -pi),
    the signs counted exactly (:func:`~gradcalc.symbolic.decide.extremum.inertia`); None past
    the budget or for numeric points."""
    import sympy as sp

    out: list[tuple[float, np.ndarray, tuple[int, int] | None] | None] = [None] * len(points)
    if all(exact is None for _, exact in points):
        return out
    symbols = [sp.Symbol(v, real=True) for v in variables]
    f = converted(graph)[graph.targets[0]]
    try:
        with time_limit(max(deadline - time.monotonic(), 1.0)):
            matrix = sp.hessian(f, symbols)
            for k, (_, exact) in enumerate(points):
                if exact is not None:
                    at = {s: exact[v] for s, v in zip(symbols, variables)}
                    value, here = float(f.subs(at).evalf(30)), matrix.subs(at)
                    floats = np.array(here.evalf(30).tolist(), dtype=float)
                    out[k] = (value, floats, inertia(here.tolist()))
    except (CheckTimeout, TypeError, ValueError):
        pass  # the tape's Hessian is used
    return out
