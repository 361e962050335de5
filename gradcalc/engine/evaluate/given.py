"""The points a Python caller gives (``at=``): a mapping of names to numbers or arrays, a
list of such mappings, ``--at`` style texts, or :class:`Points` -- each value through the
cell policy of :mod:`gradcalc.core.cells`, as a points file's are.

>>> as_points({"x": [1, 2]}).arrays["x"]
array([1., 2.])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gradcalc.core.cells import given_values
from gradcalc.core.errors import InputError
from gradcalc.core.numbers import format_number
from gradcalc.engine.evaluate.points import Points, parse_at


def as_points(
    at: Mapping[str, object] | Sequence[object] | str | Points | None,
) -> Points:
    """``at`` as :class:`Points`: a mapping of names to numbers or arrays, a list of such
    mappings (one point each, all naming the same variables), ``--at`` style texts, or
    :class:`~gradcalc.engine.evaluate.points.Points` (returned as is); ``None``: no variables.

    >>> as_points([{"x": 1, "y": 2}, {"x": 3, "y": 4}]).arrays["x"]
    array([1., 3.])
    >>> as_points({"x": 2}).names, as_points(["x=pi/4"]).count
    (('x',), 1)
    >>> as_points([{"x": 1}, 2])
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: at: give one mapping of values, a list of mappings, or ...
    """
    if isinstance(at, Points):
        return at
    if at is None:
        return Points((), {}, [{}])
    if isinstance(at, str):
        at = [at]
    items = list(at) if not isinstance(at, Mapping) else []
    if isinstance(at, Mapping) or (items and all(isinstance(i, Mapping) for i in items)):
        return checked_points(at if isinstance(at, Mapping) else items)[0]
    texts = [item for item in items if isinstance(item, str)]
    if len(texts) != len(items):
        raise InputError(
            "at: give one mapping of values, a list of mappings, or --at style texts "
            "such as ['x=1,y=2']"
        )
    return parse_at(texts)


def checked_points(at: Any, strict: bool = True) -> tuple[Points, list[str]]:
    """:func:`as_points`, and why each bad point is bad (a missing, NaN, infinite or
    out-of-range value: :mod:`gradcalc.core.cells`): with ``strict`` the first one is an
    error; else those points are NaN and marked ``bad`` (the results call them undefined).
    """
    items = list(at) if isinstance(at, list | tuple) else []
    if not isinstance(at, Mapping) and not (items and all(isinstance(i, Mapping) for i in items)):
        return as_points(at), []
    if isinstance(at, Mapping):
        given = {str(k): given_values(str(k), v) for k, v in at.items()}
    else:
        names = list(items[0])
        if any(list(item) != names for item in items):
            raise InputError("at: every point in the list must name the same variables")
        given = {n: given_values(n, [item[n] for item in items]) for n in names}
    bad = [
        (k, f"at, variable {n}, point {k + 1}: {why}")
        for n, g in given.items()
        for k, why in g[1].items()
    ]
    if bad and strict:
        raise InputError(min(bad)[1])
    arrays = {n: a for n, (a, _) in given.items()}
    if not bad:
        scalar = all(a.ndim == 0 for a in arrays.values())
        exact = [{k: format_number(a) for k, a in arrays.items()}] if scalar else None
        return Points(tuple(arrays), arrays, exact), []
    masks = []
    for array, why in given.values():
        mask = np.zeros(array.shape, dtype=bool)
        mask.reshape(-1)[list(why)] = True
        array[mask] = np.nan
        masks.append(mask)
    shape = np.broadcast_shapes(*(m.shape for m in masks))
    union = np.logical_or.reduce([np.broadcast_to(m, shape) for m in masks])
    warnings = [f"{why}: the point is undefined" for _, why in sorted(bad)]
    return Points(tuple(arrays), arrays, None, bad=union), warnings
