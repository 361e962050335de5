"""The second-derivative test: eigenvalues of the Hessian and what they say about a point.

>>> import numpy as np
>>> classify(np.array([[2.0, 0.0], [0.0, 2.0]]), np.array([0.0, 0.0]))  # doctest: +ELLIPSIS
Classification(eigenvalues=[2.0, 2.0], critical=True, ..., verdict='local minimum')
>>> classify(np.array([[2.0, 0.0], [0.0, -2.0]]), np.array([0.0, 0.0])).verdict
'saddle point'
>>> classify(np.array([[2.0]]), np.array([1.0])).verdict
'not a critical point'

A gradient known exactly (the symbolic check's values) is a critical point only when it is
exactly 0; a float gradient is zero *to within rounding* when it is tiny beside what the
Hessian makes of the point's own rounding, and the classification says which:

>>> classify(np.array([[2e-12]]), np.array([1e-12]), exact=np.array([True])).verdict
'not a critical point'
>>> test = classify(np.array([[-1.0]]), np.array([6.1e-17]), scale=1.57)
>>> test.critical, test.within_rounding
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: An eigenvalue within this fraction of the largest one (or 1e-12) counts as zero. The
#: eigenvalues of a float Hessian are off by a few times 2.2e-16 of the largest (LAPACK's
#: eigvalsh is backward stable); this allows about 4,500 times that. 1e-9 called diag(2, 2e-10)
#: semidefinite and its test inconclusive, and ``minimize`` called diag(2e9, 2) singular. The
#: floor keeps a Hessian that is only rounding (``sin(x)^2 + cos(x)^2``) from having a sign.
EIGEN_RTOL = 1e-12
#: A float gradient within this of zero, relative to the Hessian's largest eigenvalue times the
#: point's magnitude, is zero to within rounding. Moving the point by its own rounding (2.2e-16
#: of it) moves the gradient by that product times 2.2e-16; this allows about 4,500 times as
#: much, for the rounding of the gradient's own evaluation (``sin(kx)`` at its maxima, k up to
#: 10^6: tests/engine/test_classify.py), and no more: 1e-9 called a gradient of 1.5e9 beside a
#: Hessian of 1.5e19 zero. There is no absolute floor: ``1e-12*x^2`` at 0.5 has gradient
#: 1e-12, which is not zero.
GRADIENT_RTOL = 1e-12


@dataclass(frozen=True)
class Classification:
    """What the Hessian says at one point.

    ``curvature`` is ``positive definite``, ``negative definite``, ``indefinite``, or
    ``positive semidefinite`` / ``negative semidefinite`` / ``zero``; ``verdict`` is
    ``local minimum``, ``local maximum``, ``saddle point``, ``inconclusive`` (a zero
    eigenvalue at a critical point) or ``not a critical point``. ``within_rounding`` is true
    when the point counts as critical although some gradient component, not known exactly,
    is a nonzero float (within :data:`GRADIENT_RTOL` of zero, relatively).
    """

    eigenvalues: list[float]
    critical: bool
    within_rounding: bool
    curvature: str
    verdict: str


def classify(
    hessian: np.ndarray,
    gradient: np.ndarray,
    scale: float = 1.0,
    exact: np.ndarray | None = None,
    tolerance: float | None = None,
    inertia: tuple[int, int] | None = None,
) -> Classification:
    """Classify a point from its (symmetric) Hessian and gradient.

    Args:
        hessian: the n-by-n Hessian at the point.
        gradient: the n gradient components there.
        scale: a typical magnitude of the point's coordinates (for the gradient tolerance).
        exact: per component, whether ``gradient`` holds the exact value (the nearest float of
            the symbolic check's exact value); those must be exactly 0 for a critical point.
        tolerance: how close to 0 a float component may be (default: :data:`GRADIENT_RTOL`
            times the largest eigenvalue times ``scale``), for a caller that found the point
            by a numeric search with a tolerance of its own.
        inertia: how many eigenvalues are positive and how many negative, where the exact
            Hessian decided it (then no tolerance: diag(2e-13, 2) is positive definite).

    A Hessian or gradient with NaN or infinite entries (the point is undefined) has no
    eigenvalues to speak of (LAPACK would not converge):

    >>> classify(np.array([[np.nan]]), np.array([0.0])).verdict
    'undefined'
    """
    if not (np.all(np.isfinite(hessian)) and np.all(np.isfinite(gradient))):
        n = len(hessian)
        return Classification([float("nan")] * n, False, False, "undefined", "undefined")
    eigenvalues = np.linalg.eigvalsh((hessian + hessian.T) / 2)
    largest = float(np.max(np.abs(eigenvalues))) if eigenvalues.size else 0.0
    zero = max(EIGEN_RTOL * largest, 1e-12)
    positive, negative = (
        (int(np.sum(eigenvalues > zero)), int(np.sum(eigenvalues < -zero)))
        if inertia is None
        else inertia
    )
    curvature = _curvature(positive, negative, eigenvalues.size)
    known = np.zeros(gradient.shape, bool) if exact is None else np.asarray(exact, bool)
    rounded = ~known & (gradient != 0)  # nonzero floats that may be rounding of a zero
    if tolerance is None:
        tolerance = GRADIENT_RTOL * largest * abs(scale)
    critical = bool(np.all(gradient[~rounded] == 0) and np.all(abs(gradient[rounded]) <= tolerance))
    within_rounding = critical and bool(rounded.any())
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
    eigen = [float(e) + 0.0 for e in eigenvalues]
    return Classification(eigen, critical, within_rounding, curvature, verdict)


def _curvature(positive: int, negative: int, n: int) -> str:
    """The Hessian's definiteness from how many of its n eigenvalues are positive and
    negative (the rest are zero).

    >>> _curvature(2, 0, 2), _curvature(1, 1, 2), _curvature(0, 1, 2), _curvature(0, 0, 2)
    ('positive definite', 'indefinite', 'negative semidefinite', 'zero')
    """
    if positive == n:
        return "positive definite"
    if negative == n:
        return "negative definite"
    if positive and negative:
        return "indefinite"
    if positive:
        return "positive semidefinite"
    return "negative semidefinite" if negative else "zero"
