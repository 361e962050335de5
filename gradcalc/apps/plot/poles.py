"""Poles between samples: a curve is broken where it goes through infinity, not joined.

``tan(x)`` sampled over -3..3 is 237.9 at one sample and -237.9 at the next, either side of
pi/2; joined, the plot draws a vertical line where there is none. Where consecutive values
change sign and f between them is larger than both (or undefined), there is a pole: a gap
is put there. A steep but continuous crossing (``1000x`` at 0) is between its neighbours
there and stays joined.

>>> import numpy as np
>>> from gradcalc.apps.plot.figures import Curve
>>> curve = Curve(np.array([1.0, 2.0, 3.0]), np.tan(np.array([1.0, 2.0, 3.0])))
>>> broken_at_poles(curve, np.tan).x.tolist()  # (a gap at 1.5, beside pi/2)
[1.0, 1.5, 2.0, 3.0]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gradcalc.apps.plot.figures import Curve

__all__ = ["broken_at_poles"]


#: Bisections of each sign change: 40 narrow it to 1e-12 of the sample spacing.
BISECTIONS = 40


def broken_at_poles(curve: Curve, values: Callable[[np.ndarray], np.ndarray]) -> Curve:
    """``curve`` with an infinite point half-way between two samples where f changes sign
    through a pole (``values``: f at some x, NaN where undefined): a break, told apart
    from a sample where f is undefined (NaN)."""
    a, b = curve.y[:-1], curve.y[1:]
    with np.errstate(invalid="ignore"):
        crossing = np.flatnonzero(np.isfinite(a) & np.isfinite(b) & (np.sign(a) * np.sign(b) < 0))
    if crossing.size == 0:
        return curve
    pole = _diverging(curve.x[crossing], curve.x[crossing + 1], a[crossing], values)
    at = crossing[pole] + 1
    middle = (curve.x[at - 1] + curve.x[at]) / 2
    return Curve(np.insert(curve.x, at, middle), np.insert(curve.y, at, np.inf))


def _diverging(left, right, f_left, values) -> np.ndarray:
    """Per sign change [left, right] (f = ``f_left`` at left): whether f grows without bound
    on bisecting it to where the sign changes (a pole), rather than going to 0 (a crossing:
    ``1000x`` at 0), or is undefined there."""
    left, right, f_left = (np.array(v, dtype=float) for v in (left, right, f_left))
    start = np.abs(f_left)
    pole = np.zeros(left.size, bool)
    with np.errstate(all="ignore"):
        for _ in range(BISECTIONS):
            middle = (left + right) / 2
            f_middle = np.asarray(values(middle), dtype=float)
            pole |= ~np.isfinite(f_middle)
            same = np.sign(f_middle) == np.sign(f_left)
            left, f_left = np.where(same, middle, left), np.where(same, f_middle, f_left)
            right = np.where(same, right, middle)
        ends = np.minimum(np.abs(f_left), np.abs(np.asarray(values(right), dtype=float)))
    return pole | (ends > start)
