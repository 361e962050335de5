"""The Hessian's signs at a point the search found, where its eigenvalues are too small for
the test's absolute floor: far out on ``exp(-x^2)*sin(x)`` the Hessian at x = 6.36 is
-3.4e-17, beside f = 2.1e-19, and the test said "inconclusive".

The point is known to about the Newton step H⁻¹∇f there (at least float64's spacing of its
coordinates). Where every eigenvalue keeps its sign -- none 0 -- at the point and at the
point ± :data:`BOX` times that step along each axis, that is the inertia; where a sign
changes in that box (x³ near its inflection point, x⁴ - a search stopped short of 0 is
inside the box whose size its own step sets) nothing is decided here. Numeric evidence at
2n + 1 points, not a proof: the verdict's note says so.

>>> from gradcalc.engine.run.api import compile_expression
>>> def signs(text, x):
...     graph, point = compile_expression(text), np.array([x])
...     g, h, _ = gradient_and_hessian(graph, ("x",), point.reshape(1, 1))
...     return steady_inertia(graph, ("x",), point, g[:, 0], h[:, :, 0])
>>> signs("exp(-x^2)*sin(x)", 6.361620392398), signs("x^3", 1e-7)
((0, 1), None)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gradcalc.apps.critical.critical_search import gradient_and_hessian
from gradcalc.lang.graph import Graph

__all__ = ["BOX", "steady_inertia", "steady_note"]

#: How many times the point's uncertainty (its Newton step) the box around it spans.
BOX = 1000.0
EPS = float(np.finfo(float).eps)


def steady_inertia(
    graph: Graph,
    variables: Sequence[str],
    point: np.ndarray,
    gradient: np.ndarray,
    hessian: np.ndarray,
) -> tuple[int, int] | None:
    """(positive, negative) eigenvalues of the tape's Hessian where they are the same, and
    none is 0, at ``point`` (where the tape's ``gradient`` and ``hessian`` are known) and at
    ``point`` ± BOX times its Newton step along each axis; None where a sign changes or an
    eigenvalue is 0 or not finite there."""
    n = len(variables)
    if not (np.all(np.isfinite(gradient)) and np.all(np.isfinite(hessian))):
        return None
    step = np.linalg.lstsq(hessian, gradient, rcond=None)[0]
    spacing = EPS * max(float(np.max(np.abs(point))), float(np.finfo(float).tiny))
    radius = BOX * max(float(np.max(np.abs(step))), spacing)
    offsets = np.concatenate([radius * np.eye(n), -radius * np.eye(n)], 1)
    _, around, _ = gradient_and_hessian(graph, variables, point.reshape(n, 1) + offsets)
    signs = set()
    for matrix in [hessian, *np.moveaxis(around, 2, 0)]:
        if not np.all(np.isfinite(matrix)):
            return None
        eigenvalues = np.linalg.eigvalsh((matrix + matrix.T) / 2)
        if np.any(eigenvalues == 0):
            return None
        signs.add((int(np.sum(eigenvalues > 0)), int(np.sum(eigenvalues < 0))))
    return signs.pop() if len(signs) == 1 else None


def steady_note(coordinates: str, verdict: str, smallest: float) -> str:
    """The note on a verdict :func:`steady_inertia` decided.

    >>> steady_note("x = 6.36", "local maximum", -3.4e-17)[:68]
    "x = 6.36: local maximum: the Hessian's eigenvalues (the smallest -3."
    """
    return (
        f"{coordinates}: {verdict}: the Hessian's eigenvalues (the smallest {smallest:.2g}) are "
        "below the test's floor of 1e-12, but keep their signs at the point and "
        f"{BOX:.0f} times its uncertainty away along each axis (numeric evidence, not a proof)"
    )
