"""The second-derivative test: eigenvalues of the Hessian and what they say about a point.

>>> import numpy as np
>>> classify(np.array([[2.0, 0.0], [0.0, 2.0]]), np.array([0.0, 0.0]))  # doctest: +ELLIPSIS
Classification(eigenvalues=[2.0, 2.0], critical=True, ..., verdict='local minimum')
>>> classify(np.array([[2.0, 0.0], [0.0, -2.0]]), np.array([0.0, 0.0])).verdict
'saddle point'
>>> classify(np.array([[2.0]]), np.array([1.0])).verdict
'not a critical point'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: An eigenvalue within this fraction of the largest one (or 1e-12) counts as zero.
EIGEN_RTOL = 1e-9
#: A gradient within this of zero, relative to the scale of the Hessian and the point, is zero.
GRADIENT_RTOL = 1e-9


@dataclass(frozen=True)
class Classification:
    """What the Hessian says at one point.

    ``curvature`` is ``positive definite``, ``negative definite``, ``indefinite``, or
    ``positive semidefinite`` / ``negative semidefinite`` / ``zero``; ``verdict`` is
    ``local minimum``, ``local maximum``, ``saddle point``, ``inconclusive`` (a zero
    eigenvalue at a critical point) or ``not a critical point``.
    """

    eigenvalues: list[float]
    critical: bool
    curvature: str
    verdict: str


def classify(hessian: np.ndarray, gradient: np.ndarray, scale: float = 1.0) -> Classification:
    """Classify a point from its (symmetric) Hessian and gradient.

    Args:
        hessian: the n-by-n Hessian at the point.
        gradient: the n gradient components there.
        scale: a typical magnitude of the point's coordinates (for the gradient tolerance).

    A Hessian or gradient with NaN or infinite entries (the point is undefined) has no
    eigenvalues to speak of (LAPACK would not converge):

    >>> classify(np.array([[np.nan]]), np.array([0.0])).verdict
    'undefined'
    """
    if not (np.all(np.isfinite(hessian)) and np.all(np.isfinite(gradient))):
        n = len(hessian)
        return Classification([float("nan")] * n, False, "undefined", "undefined")
    eigenvalues = np.linalg.eigvalsh((hessian + hessian.T) / 2)
    largest = float(np.max(np.abs(eigenvalues))) if eigenvalues.size else 0.0
    zero = max(EIGEN_RTOL * largest, 1e-12)
    positive = int(np.sum(eigenvalues > zero))
    negative = int(np.sum(eigenvalues < -zero))
    n = eigenvalues.size
    if positive == n:
        curvature = "positive definite"
    elif negative == n:
        curvature = "negative definite"
    elif positive and negative:
        curvature = "indefinite"
    elif positive:
        curvature = "positive semidefinite"
    elif negative:
        curvature = "negative semidefinite"
    else:
        curvature = "zero"
    tolerance = GRADIENT_RTOL * max(1.0, largest * scale)
    critical = bool(np.all(np.abs(gradient) <= tolerance))
    if not critical:
        verdict = "not a critical point"
    elif curvature == "positive definite":
        verdict = "local minimum"
    elif curvature == "negative definite":
        verdict = "local maximum"
    elif curvature == "indefinite":
        verdict = "saddle point"
    else:
        verdict = "inconclusive"
    return Classification([float(e) + 0.0 for e in eigenvalues], critical, curvature, verdict)
