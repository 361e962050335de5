"""Critical points that are not isolated: points of a numeric search that lie on a line, a
curve or a region where ∇f = 0 (``max(x, y) + x^2`` is critical on a half-line), joined
when the search started between them stays put, and described in words.

>>> import numpy as np
>>> x = np.array([[-0.5, -0.5, -0.5], [-1.0, -2.0, -3.0]])
>>> print(describe(x, ("x", "y"), 1))  # doctest: +NORMALIZE_WHITESPACE
a continuum of critical points along x = -1/2 (y from -3 to -1 in the points found),
numeric: 3 points found on it
"""

from __future__ import annotations

import time

import numpy as np

from gradcalc.apps.critical.critical_search import descend, gradient_and_hessian
from gradcalc.lang.graph import Graph

__all__ = ["LEVEL_RTOL", "TINY", "continua_of", "describe"]

#: How closely (relative to f's size, at least 1) f must agree along a continuum of critical
#: points, on which it is constant.
LEVEL_RTOL = 1e-9
#: Joined points spread over less than this part of the region are one point, found many
#: times (a flat minimum such as cos(x) + x^2/2's stops the search anywhere within 1e-8).
TINY = 1e-6


def continua_of(graph: Graph, variables, points: list[dict[str, float]], bounds):
    """The isolated points, descriptions of the continua the others lie on, and per point
    (spread, copies): how many points found it stands for and how closely they agree
    ((0.0, 1), or a flat point's)
    (``max(x, y) + x^2`` is critical on the half-line x = -1/2, y < -1/2: a search finds
    many points there, each with a singular Hessian).

    Two points with a singular Hessian are joined when the search, started half-way
    between them, lands next to the half-way point (∇f ≈ 0 between them); a group of
    three or more joined points is a continuum: a line (described by its equation, with
    the span of the points found) or a curve -- unless f differs along an edge (it is
    constant on a continuum), or the group spans less than :data:`TINY` of the region (one
    flat point, kept once: two or more points of a flat minimum found that close at the
    same level are joined without a search)."""
    if len(points) < 2:
        return points, [], [(0.0, 1)] * len(points)
    x = np.array([[p[v] for v in variables] for p in points]).T
    _, h, values = gradient_and_hessian(graph, variables, x)
    eigenvalues = np.abs(np.linalg.eigvalsh(np.moveaxis(h, 2, 0)))
    scale = np.maximum(1.0, eigenvalues.max(axis=1))
    null = np.sum(eigenvalues <= 1e-6 * scale[:, None], axis=1)  # directions with H ≈ 0
    singular = np.flatnonzero(null > 0)
    if len(singular) < 2:
        return points, [], [(0.0, 1)] * len(points)
    width = max(hi - lo for lo, hi in (bounds[v] for v in variables))
    groups = _joined(graph, variables, (x[:, singular], values[singular]), bounds, TINY * width)
    described: list[str] = []
    members: set[int] = set()
    flats = [(0.0, 1)] * len(points)
    for group in groups:
        found = x[:, singular[group]]
        if len(group) > 1 and np.max(np.ptp(found, axis=1)) <= TINY * width:
            centre = np.linalg.norm(found - found.mean(axis=1, keepdims=True), axis=0)
            stays = int(singular[group][np.argmin(centre)])  # the copy nearest their centre
            members.update(int(k) for k in singular[group] if k != stays)
            flats[stays] = (float(np.max(np.ptp(found, axis=1))), len(group))
            continue
        if len(group) < 3:
            continue
        flat = int(np.median(null[singular[group]]))
        described.append(describe(found, variables, flat))
        members.update(int(k) for k in singular[group])
    kept = [k for k in range(len(points)) if k not in members]
    return [points[k] for k in kept], described, [flats[k] for k in kept]


def _joined(graph: Graph, variables, found: tuple[np.ndarray, np.ndarray], bounds, near: float):
    """Groups of the columns of ``x`` (``found`` = x and f there): the edges of their
    minimum spanning tree along which ∇f ≈ 0 (the search started a quarter, half and three
    quarters along the edge stays next to where it started, at f's level) join them, and
    so do edges no longer than ``near`` with f the same at both ends (a flat point's copies,
    between which the searches need not settle)."""
    x, f = found
    a, b, length = _spanning_tree(x)
    fractions = (0.25, 0.5, 0.75)
    starts = np.concatenate([x[:, a] + t * (x[:, b] - x[:, a]) for t in fractions], axis=1)
    width = np.array([[hi - lo] for lo, hi in (bounds[v] for v in variables)])
    deadline = time.process_time() + 2.0
    landed, _, _, converged = descend(graph, variables, starts, width, deadline, [])
    stayed = converged & (np.linalg.norm(landed - starts, axis=0) <= 0.1 * np.tile(length, 3))
    level = _level(graph, variables, f, (a, b), landed)
    joined = stayed.reshape(len(fractions), -1).all(axis=0) & level
    joined |= (length <= near) & (np.abs(f[b] - f[a]) <= _level_tolerance(f, a, b))
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


def _level(graph: Graph, variables, f: np.ndarray, edges, landed: np.ndarray) -> np.ndarray:
    """Per edge (``edges`` = its ends, indices of ``f``, f at the points found; ``landed``:
    where the searches started a quarter, half and three quarters along it stopped, for
    edge after edge), whether f is the same there as at its ends -- as it is on a connected
    set where ∇f = 0. Two degenerate minima of sin(x)^4 + y^2, at 0 and π, are not joined
    through the saddle at π/2 between them."""
    from gradcalc.engine.evaluate.evaluate import evaluate

    run = evaluate(graph, {v: landed[i] for i, v in enumerate(variables)}, wrt=[])
    a, b = edges
    along = np.broadcast_to(np.asarray(run.values[0], dtype=float), (landed.shape[1],))
    along = along.reshape(3, len(a))
    apart = np.maximum(np.abs(f[b] - f[a]), np.max(np.abs(along - f[a]), axis=0))
    return apart <= _level_tolerance(f, a, b)


def _level_tolerance(f: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far f may differ along the edges from ``a`` to ``b`` (indices of ``f``) on a set
    where it is constant: :data:`LEVEL_RTOL` of its size there, at least 1."""
    return LEVEL_RTOL * np.maximum(1.0, np.maximum(np.abs(f[a]), np.abs(f[b])))


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


def describe(x: np.ndarray, variables, flat: int) -> str:
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
