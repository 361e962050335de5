"""The numeric search for critical points: Levenberg-Marquardt steps on |∇f|² from many
starting points of a region at once, on the tape's gradient and Hessian; the converged points,
deduplicated.

>>> from time import process_time
>>> from gradcalc.engine.run.api import compile_expression
>>> graph = compile_expression("(x - 1)^2 + cos(y)")
>>> bounds = {"x": (-2.0, 2.0), "y": (1.0, 5.0)}
>>> [{k: round(v, 9) for k, v in p.items()}
...  for p in numeric_search(graph, ("x", "y"), bounds, process_time() + 5, [])]
[{'x': 1.0, 'y': 3.141592654}]
"""

from __future__ import annotations

import time

import numpy as np

from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.run.api import Options, hessian_at
from gradcalc.lang.graph import Graph

__all__ = [
    "GRADIENT_TOLERANCE",
    "ITERATIONS",
    "SEED",
    "STARTS",
    "descend",
    "distinct",
    "gradient_and_hessian",
    "numeric_search",
]

#: Starting points of the numeric search.
STARTS = 256
#: Levenberg-Marquardt iterations from each start.
ITERATIONS = 80
#: |∇f| below this (relative to the Hessian's scale) counts as zero.
GRADIENT_TOLERANCE = 1e-9
SEED = 20261201


def numeric_search(graph: Graph, variables, bounds, deadline: float, notes: list[str]):
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
    g, h, _ = gradient_and_hessian(graph, variables, x)
    alive = np.all(np.isfinite(g), axis=0) & np.all(np.isfinite(h), axis=(0, 1))
    x, g, h = x[:, alive], g[:, alive], h[:, :, alive]
    if x.shape[1] == 0:
        return []
    typical = max(float(np.max(np.abs(g))), np.finfo(float).tiny)  # |∇f| in the region
    x, g, h, converged = descend(graph, variables, x, width, deadline, notes)
    small_gradient = np.all(np.abs(g) <= GRADIENT_TOLERANCE * typical, axis=0)
    inside = np.all((x >= low[:, None]) & (x <= high[:, None]), axis=0)
    columns = [
        np.where(np.abs(column) < 1e-12 * max(1.0, np.max(np.abs(column))), 0.0, column)
        for column in x[:, small_gradient & converged & inside].T
    ]
    kept = [dict(zip(variables, (float(c) + 0.0 for c in column))) for column in columns]
    return sorted(distinct(kept, rtol=1e-6, atol=1e-8), key=lambda p: tuple(p.values()))


def distinct(points: list[dict[str, float]], rtol: float, atol: float) -> list[dict[str, float]]:
    """``points`` without the ones close to an earlier one (``numpy.allclose``).

    >>> distinct([{"x": 1.0}, {"x": 1.0 + 1e-9}, {"x": 2.0}], rtol=1e-6, atol=1e-8)
    [{'x': 1.0}, {'x': 2.0}]
    """
    kept: list[dict[str, float]] = []
    for point in points:
        here = list(point.values())
        if not any(np.allclose(here, list(other.values()), rtol, atol) for other in kept):
            kept.append(point)
    return kept


def descend(graph: Graph, variables, x: np.ndarray, width, deadline: float, notes: list[str]):
    """Levenberg-Marquardt on |∇f|² from every column of ``x`` at once: a step
    ``(H² + λI) d = H g`` is kept when it lowers |∇f|² (then λ shrinks tenfold, towards
    Newton's step), else λ grows. The points reached, ∇f and H there, and where Newton's
    step is tiny (converged: far out on exp(-x^2) the gradient is tiny, the step is not)."""
    g, h, _ = gradient_and_hessian(graph, variables, x)
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
        g_new, h_new, _ = gradient_and_hessian(graph, variables, trial)
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


def _trace(h: np.ndarray) -> np.ndarray:
    """trace(H²) per point, at least the smallest positive float."""
    return np.einsum("ijk,jik->k", h, h) + np.finfo(float).tiny


def _step(h: np.ndarray, g: np.ndarray, damping: np.ndarray) -> np.ndarray:
    """The Levenberg-Marquardt step on |g|² per point, (H² + λI) d = H g, in H's eigenbasis:
    ``h_i / (h_i² + λ)`` along each eigenvector, so a flat direction (sin(x)^4's h = 1e-8
    beside a y^2 term's 2) takes its own Newton step once λ has shrunk, and a singular one
    (h_i = 0) none. NaN where H or g is not finite."""
    finite = np.all(np.isfinite(h), axis=(0, 1)) & np.all(np.isfinite(g), axis=0)
    h = np.where(finite, h, 0.0)
    w, v = np.linalg.eigh(np.moveaxis(h + np.swapaxes(h, 0, 1), 2, 0) / 2)
    lam = np.maximum(damping, np.finfo(float).tiny)[:, None]
    along = np.einsum("kji,jk->ki", v, np.where(finite, g, 0.0)) * (w / (w * w + lam))
    step = np.einsum("kij,kj->ik", v, along)
    return np.where(finite, step, np.nan)


def gradient_and_hessian(graph: Graph, variables, x: np.ndarray):
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
