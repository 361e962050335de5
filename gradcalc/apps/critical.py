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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.core.errors import InputError
from gradcalc.core.ops import NOT_DIFFERENTIABLE, REGISTRY
from gradcalc.engine.api import Options, compile_expression, hessian_at
from gradcalc.engine.classify import Classification, classify
from gradcalc.engine.higher import check_variables
from gradcalc.engine.points import Points, constant_value
from gradcalc.lang.graph import Graph
from gradcalc.lang.literals import split_top_level
from gradcalc.symbolic.crosscheck import CheckTimeout, symbolic_gradient, time_limit, to_sympy
from gradcalc.symbolic.notation import user_text

#: The region searched numerically when none is given: every variable in [-5, 5].
DEFAULT_RANGE = (-5.0, 5.0)
#: Starting points of the numeric search.
STARTS = 256
#: Levenberg-Marquardt iterations from each start.
ITERATIONS = 80
#: |∇f| below this (relative to the Hessian's scale) counts as zero.
GRADIENT_TOLERANCE = 1e-9
SEED = 20261201


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
        if self.exact is not None:
            return ", ".join(f"{n} = {user_text(v)}" for n, v in self.exact.items())
        return ", ".join(f"{n} = {v:.10g}" for n, v in self.point.items())


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
    exact = _exact_solutions(graph, variables, budget, notes, continua)
    if exact is not None:
        points = [p for p in exact if everywhere or _inside(p[0], bounds)]
        if len(points) < len(exact):
            notes.append(f"{len(exact) - len(points)} exact critical point(s) outside the region")
        method = "exact"
    else:
        search_deadline = time.process_time() + budget  # CPU time: the same search under load
        found_points = _numeric_search(graph, variables, bounds, search_deadline, notes)
        found_points, continua = _continua(graph, variables, found_points, bounds)
        points = _recognized(graph, variables, found_points, budget)
        method = "numeric"
        notes.append(
            f"numeric search: Levenberg-Marquardt on |∇f|² from {STARTS} starting points in the "
            "region; points it did not reach may be missing"
        )
    found = _classified(graph, variables, points, deadline)
    corners = _not_differentiable(graph)
    if corners:
        notes.append(
            f"f is not differentiable everywhere ({', '.join(corners)}): a point where ∇f does "
            "not exist can be a critical point too, and is not listed (only ∇f = 0 is solved)"
        )
    if method == "exact" and len(found) < len(points):
        notes.append(
            f"{len(points) - len(found)} solution(s) of ∇f = 0 left out: f or ∇f is undefined there"
        )
    return CriticalResult(expression, variables, bounds, method, found, notes, continua)


def _not_differentiable(graph: Graph) -> list[str]:
    """The ops of ``f`` with corners or jumps (their domain rule says so at 0)."""
    found: list[str] = []
    for node in graph.nodes:
        op = REGISTRY.get(node.op) if node.kind == "op" else None
        if op is None or node.op in found or not (op.arity == 1 or op.variadic):
            continue
        issues = op.issues(*[np.zeros(1)] * op.arity)
        if any(issue.kind == NOT_DIFFERENTIABLE for issue in issues):
            found.append(node.op)
    return found


def _inside(point: Mapping[str, float], bounds: Mapping[str, tuple[float, float]]) -> bool:
    return all(bounds[n][0] <= v <= bounds[n][1] for n, v in point.items())


# --- exact: sympy solves a rational system -----------------------------------------------------


def _exact_solutions(graph: Graph, variables, budget: float, notes: list[str], continua: list):
    """[(float point, exact point)] when ∇f is rational and sympy solves it within the budget
    (a solution that leaves variables free is a continuum: described in ``continua``);
    None otherwise (then the search is numeric)."""
    import sympy as sp

    symbols = [sp.Symbol(v, real=True) for v in variables]
    try:
        with time_limit(budget):
            gradient = symbolic_gradient(graph, 0, list(variables))
            components = [sp.together(gradient[v]) for v in variables]
            if not all(c.is_rational_function(*symbols) for c in components):
                notes.append(
                    "∇f is not a rational function: sympy's solution would not be known complete"
                )
                return None
            numerators = [sp.numer(c) for c in components]
            solutions = sp.solve(numerators, symbols, dict=True)
            points = []
            for solution in solutions:
                if set(solution) != set(symbols) or any(
                    not value.is_number for value in solution.values()
                ):
                    where = ", ".join(f"{k} = {user_text(v)}" for k, v in solution.items())
                    continua.append(f"a continuum of critical points where {where} (exact)")
                    continue
                if not all(value.is_real for value in solution.values()):
                    continue
                exact = {v: solution[s] for v, s in zip(variables, symbols)}
                points.append(({v: float(e) for v, e in exact.items()}, exact))
            return sorted(points, key=lambda p: tuple(p[0].values()))
    except CheckTimeout:
        notes.append(f"sympy could not solve ∇f = 0 within {budget:g} s (raise --check-timeout)")
    except (NotImplementedError, ValueError, TypeError, RecursionError, AttributeError) as failure:
        notes.append(f"sympy could not solve ∇f = 0 ({type(failure).__name__})")
    return None


# --- numeric: Levenberg-Marquardt on |∇f|² from many starts -------------------------------------


def _recognized(graph: Graph, variables, points: list[dict[str, float]], budget: float):
    """[(point, exact point or None)]: a numeric point whose coordinates are simple multiples
    of pi or rationals (``-pi/2``, ``1/3``) is exact when sympy proves ∇f = 0 there."""
    import sympy as sp

    symbols = [sp.Symbol(v, real=True) for v in variables]
    out = []
    try:
        with time_limit(budget):
            gradient = symbolic_gradient(graph, 0, list(variables))
            for point in points:
                guess = {
                    v: sp.nsimplify(point[v], [sp.pi, sp.sqrt(2), sp.sqrt(3)], tolerance=1e-12)
                    for v in variables
                }
                close = all(
                    guess[v].is_real and abs(float(guess[v]) - point[v]) <= 1e-9 for v in variables
                )
                at = {s: guess[v] for s, v in zip(symbols, variables)}
                proved = close and all(sp.simplify(gradient[v].subs(at)) == 0 for v in variables)
                out.append((point, guess if proved else None))
    except (CheckTimeout, TypeError, ValueError, RecursionError, AttributeError):
        out += [(point, None) for point in points[len(out) :]]
    return out


def _numeric_search(graph: Graph, variables, bounds, deadline: float, notes: list[str]):
    """Converged, deduplicated points of the region where the tape's gradient vanishes
    (the iterations stop at ``deadline``, in CPU seconds, with a note).

    Levenberg-Marquardt on |∇f|², every start at once: a step ``(H² + λI) d = H g`` is kept
    when it lowers |∇f|² (then λ shrinks tenfold, towards Newton's step), else λ grows.
    """
    rng = np.random.default_rng(SEED)
    n = len(variables)
    low = np.array([bounds[v][0] for v in variables])
    high = np.array([bounds[v][1] for v in variables])
    width = (high - low)[:, None]
    x = low[:, None] + width * rng.random((n, STARTS))
    g, h, _ = _gradient_and_hessian(graph, variables, x)
    alive = np.all(np.isfinite(g), axis=0) & np.all(np.isfinite(h), axis=(0, 1))
    x, g, h = x[:, alive], g[:, alive], h[:, :, alive]
    if x.shape[1] == 0:
        return []
    typical = max(float(np.max(np.abs(g))), np.finfo(float).tiny)  # |∇f| in the region
    x, g, h, converged = _descend(graph, variables, x, width, deadline, notes)
    small_gradient = np.all(np.abs(g) <= GRADIENT_TOLERANCE * typical, axis=0)
    inside = np.all((x >= low[:, None]) & (x <= high[:, None]), axis=0)
    kept: list[np.ndarray] = []
    for column in x[:, small_gradient & converged & inside].T:
        column = np.where(np.abs(column) < 1e-12 * max(1.0, np.max(np.abs(column))), 0.0, column)
        if not any(np.allclose(column, other, rtol=1e-6, atol=1e-8) for other in kept):
            kept.append(column)
    kept.sort(key=tuple)
    return [dict(zip(variables, (float(c) + 0.0 for c in column))) for column in kept]


def _descend(graph: Graph, variables, x: np.ndarray, width, deadline: float, notes: list[str]):
    """Levenberg-Marquardt on |∇f|² from every column of ``x`` at once: a step
    ``(H² + λI) d = H g`` is kept when it lowers |∇f|² (then λ shrinks tenfold, towards
    Newton's step), else λ grows. The points reached, ∇f and H there, and where Newton's
    step is tiny (converged: far out on exp(-x^2) the gradient is tiny, the step is not)."""
    g, h, _ = _gradient_and_hessian(graph, variables, x)
    size = np.sum(g * g, axis=0)
    damping = 1e-3 * _trace(h)
    for iteration in range(ITERATIONS):
        if time.process_time() > deadline:
            notes.append(
                f"the numeric search ran out of time after {iteration} of {ITERATIONS} "
                "iterations (raise --check-timeout): points may be missing"
            )
            break
        trial = x - np.clip(_step(h, g, damping), -width, width)
        g_new, h_new, _ = _gradient_and_hessian(graph, variables, trial)
        size_new = np.sum(g_new * g_new, axis=0)
        better = np.isfinite(size_new) & np.all(np.isfinite(h_new), axis=(0, 1))
        better &= size_new < size
        x = np.where(better, trial, x)
        g = np.where(better, g_new, g)
        h = np.where(better, h_new, h)
        size = np.where(better, size_new, size)
        damping = np.where(better, damping / 10, damping * 10)
    newton = _step(h, g, np.zeros(x.shape[1]))
    return x, g, h, np.all(np.abs(newton) <= 1e-7 * (1 + np.abs(x)), axis=0)


# --- continua: critical points that are not isolated -------------------------------------------


def _continua(graph: Graph, variables, points: list[dict[str, float]], bounds):
    """The isolated points, and descriptions of the continua the others lie on
    (``max(x, y) + x^2`` is critical on the half-line x = -1/2, y < -1/2: a search finds
    many points there, each with a singular Hessian).

    Two points with a singular Hessian are joined when the search, started half-way
    between them, lands next to the half-way point (∇f ≈ 0 between them); a group of
    three or more joined points is a continuum: a line (described by its equation, with
    the span of the points found) or a curve."""
    if len(points) < 3:
        return points, []
    x = np.array([[p[v] for v in variables] for p in points]).T
    _, h, _ = _gradient_and_hessian(graph, variables, x)
    eigenvalues = np.abs(np.linalg.eigvalsh(np.moveaxis(h, 2, 0)))
    scale = np.maximum(1.0, eigenvalues.max(axis=1))
    null = np.sum(eigenvalues <= 1e-6 * scale[:, None], axis=1)  # directions with H ≈ 0
    singular = np.flatnonzero(null > 0)
    if len(singular) < 3:
        return points, []
    groups = _joined(graph, variables, x[:, singular], bounds)
    described: list[str] = []
    members: set[int] = set()
    for group in groups:
        if len(group) >= 3:
            flat = int(np.median(null[singular[group]]))
            described.append(_describe(x[:, singular[group]], variables, flat))
            members.update(int(k) for k in singular[group])
    return [p for k, p in enumerate(points) if k not in members], described


def _joined(graph: Graph, variables, x: np.ndarray, bounds) -> list[list[int]]:
    """Groups of the columns of ``x``: the edges of their minimum spanning tree along which
    ∇f ≈ 0 (the search started a quarter, half and three quarters along the edge stays
    next to where it started) join them."""
    a, b, length = _spanning_tree(x)
    fractions = (0.25, 0.5, 0.75)
    starts = np.concatenate([x[:, a] + t * (x[:, b] - x[:, a]) for t in fractions], axis=1)
    width = np.array([[hi - lo] for lo, hi in (bounds[v] for v in variables)])
    deadline = time.process_time() + 2.0
    landed, _, _, converged = _descend(graph, variables, starts, width, deadline, [])
    stayed = converged & (np.linalg.norm(landed - starts, axis=0) <= 0.1 * np.tile(length, 3))
    joined = stayed.reshape(len(fractions), -1).all(axis=0)
    parent = list(range(x.shape[1]))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(a[joined], b[joined]):
        parent[root(int(i))] = root(int(j))
    groups: dict[int, list[int]] = {}
    for i in range(x.shape[1]):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _spanning_tree(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges (from, to, length) of the minimum spanning tree of the columns of ``x``
    (Prim's algorithm on the full distance matrix)."""
    k = x.shape[1]
    distance = np.linalg.norm(x[:, :, None] - x[:, None, :], axis=0)
    inside = np.zeros(k, dtype=bool)
    inside[0] = True
    best, nearest = distance[0].copy(), np.zeros(k, dtype=int)
    edges = []
    for _ in range(k - 1):
        j = int(np.argmin(np.where(inside, np.inf, best)))
        edges.append((int(nearest[j]), j, float(best[j])))
        inside[j] = True
        closer = distance[j] < best
        best, nearest = np.where(closer, distance[j], best), np.where(closer, j, nearest)
    a, b, length = zip(*edges)
    return np.array(a), np.array(b), np.array(length)


def _describe(x: np.ndarray, variables, flat: int) -> str:
    """``a continuum of critical points along x = -1/2 (y from -4.98 to -0.51 in the points
    found), numeric``; along a curve, or a region where ∇f = 0 (``flat``: the directions in
    which the Hessian vanishes there, all of them in a region)."""
    centre = x.mean(axis=1)
    _, spread, basis = np.linalg.svd((x - centre[:, None]).T, full_matrices=True)
    count = x.shape[1]
    line = len(variables) == 1 or spread[1] <= 1e-6 * spread[0]
    if not line:
        ends = ", ".join(_point_text(x[:, k], variables) for k in (0, count - 1))
        shape = "a region where ∇f = 0" if flat == len(variables) else "a curve (not a line)"
        return (
            f"a continuum of critical points: {shape}, numeric: {count} points found on it, "
            f"e.g. {ends}"
        )
    direction = basis[0]
    t = direction @ (x - centre[:, None])
    lo, hi = x[:, int(np.argmin(t))], x[:, int(np.argmax(t))]
    if len(variables) == 1:
        where = f"{variables[0]} from {lo[0]:.4g} to {hi[0]:.4g} (in the points found)"
    else:
        span = _span(lo, hi, direction, variables)
        where = f"{_line_equation(basis[1:], centre, variables)} ({span})"
    return f"a continuum of critical points along {where}, numeric: {count} points found on it"


def _line_equation(normals: np.ndarray, centre: np.ndarray, variables) -> str:
    """The line through ``centre`` as equations ``a·x + b·y = c`` (one per normal),
    coefficients as small fractions where they are (to 1e-9)."""
    from fractions import Fraction

    equations = []
    for normal in normals:
        normal = normal / normal[np.argmax(np.abs(normal))]
        terms = []
        for coefficient, name in zip(normal, variables):
            if abs(coefficient) < 1e-9:
                continue
            c = Fraction(float(coefficient)).limit_denominator(1000)
            if abs(float(c) - coefficient) > 1e-9:
                terms.append(f"{coefficient:.6g}·{name}")
            else:
                terms.append(name if c == 1 else f"-{name}" if c == -1 else f"{c}·{name}")
        value = float(normal @ centre)
        c = Fraction(value).limit_denominator(1000)
        shown = str(c) if abs(float(c) - value) <= 1e-7 else f"{value:.6g}"
        equations.append(" + ".join(terms).replace("+ -", "- ") + f" = {shown}")
    return ", ".join(equations)


def _span(lo: np.ndarray, hi: np.ndarray, direction: np.ndarray, variables) -> str:
    """The points' extent along the line, in the variable that changes most."""
    k = int(np.argmax(np.abs(direction)))
    a, b = sorted((lo[k], hi[k]))
    return f"{variables[k]} from {a:.4g} to {b:.4g} in the points found"


def _point_text(column: np.ndarray, variables) -> str:
    return "(" + ", ".join(f"{v:.4g}" for v in column) + ")"


def _trace(h: np.ndarray) -> np.ndarray:
    """trace(H²) per point, at least the smallest positive float."""
    return np.einsum("ijk,jik->k", h, h) + np.finfo(float).tiny


def _step(h: np.ndarray, g: np.ndarray, damping: np.ndarray) -> np.ndarray:
    """The Levenberg-Marquardt step on |g|² per point: (H² + λI) d = H g (λ at least
    1e-14 of trace(H²), so a singular H gives a finite step)."""
    n = h.shape[0]
    hh = np.einsum("ijk,jlk->kil", h, h)
    lam = np.maximum(damping, 1e-14 * _trace(h))
    hg = np.einsum("ijk,jk->ki", h, g)
    with np.errstate(all="ignore"):
        return np.linalg.solve(hh + lam[:, None, None] * np.eye(n), hg[..., None])[..., 0].T


def _gradient_and_hessian(graph: Graph, variables, x: np.ndarray):
    """The tape's gradient (n, k) and Hessian (n, n, k) at k points (columns of ``x``), and
    the values (k); NaN where undefined."""
    points = Points(tuple(variables), {v: x[i] for i, v in enumerate(variables)}, None)
    run = hessian_at(graph, points, list(variables), Options(check=False, strict=False))
    k = x.shape[1]
    gradient = np.array(
        [np.broadcast_to(0.0 if (g := run.gradient[v]) is None else g, (k,)) for v in variables],
        dtype=float,
    )
    hessian = np.broadcast_to(run.matrix, (len(variables), len(variables), k)).astype(float)
    gradient[:, np.broadcast_to(run.undefined, (k,))] = np.nan
    value = np.broadcast_to(run.value, (k,)).astype(float)
    value = np.where(np.broadcast_to(run.value_undefined, (k,)), np.nan, value)
    return gradient, hessian, value


# --- each point: value, Hessian, the test -----------------------------------------------------


def _classified(graph: Graph, variables, points, deadline: float) -> list[CriticalPoint]:
    """Each point with its value and second-derivative test; points where the tape finds f
    or ∇f undefined, or ∇f not zero, are left out."""
    if not points:
        return []
    x = np.array([[p[v] for p, _ in points] for v in variables], dtype=float)
    g, h, values = _gradient_and_hessian(graph, variables, x)
    exact_hessians = _exact_hessians(graph, variables, points, deadline)
    found = []
    for k, (point, exact) in enumerate(points):
        exact_hessian = exact_hessians[k]
        hessian = exact_hessian if exact_hessian is not None else h[:, :, k]
        scale = max(1.0, float(np.max(np.abs(x[:, k]))))
        if not (np.all(np.isfinite(g[:, k])) and np.isfinite(values[k])):
            continue  # f or its gradient is undefined here
        tolerance = 1e-6 * max(1.0, float(np.max(np.abs(h[:, :, k]))) * scale)
        if not np.all(np.abs(g[:, k]) <= tolerance):
            continue  # the tape does not confirm ∇f = 0 here
        gradient = np.zeros(len(variables)) if exact is not None else g[:, k]
        known = np.full(len(variables), exact is not None)  # sympy solved ∇f = 0 exactly
        two = len(variables) == 2
        found.append(
            CriticalPoint(
                point,
                exact,
                float(values[k]),
                hessian,
                classify(hessian, gradient, scale, exact=known, tolerance=tolerance),
                float(hessian[0, 0] * hessian[1, 1] - hessian[0, 1] ** 2) if two else None,
            )
        )
    return found


def _exact_hessians(graph: Graph, variables, points, deadline: float) -> list[np.ndarray | None]:
    """The exact Hessian (as floats) at each exact point; None past the budget or for
    numeric points."""
    import sympy as sp

    out: list[np.ndarray | None] = [None] * len(points)
    if all(exact is None for _, exact in points):
        return out
    symbols = [sp.Symbol(v, real=True) for v in variables]
    f = to_sympy(graph)[graph.targets[0]]
    try:
        with time_limit(max(deadline - time.monotonic(), 1.0)):
            matrix = sp.hessian(f, symbols)
            for k, (_, exact) in enumerate(points):
                if exact is not None:
                    at = matrix.subs({s: exact[v] for s, v in zip(symbols, variables)})
                    out[k] = np.array(at.evalf(30).tolist(), dtype=float)
    except (CheckTimeout, TypeError, ValueError):
        pass  # the tape's Hessian is used
    return out
