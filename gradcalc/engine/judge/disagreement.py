"""Why the check failed, in words: the component farthest off, by its derivative's name
(``∂f/∂x``, ``d²f/dx²`` for ``--order``), the tape's number beside sympy's, and where.

>>> from gradcalc.engine.run.api import grad
>>> result = grad("sqrt(x + 1) - sqrt(x)", at=["x=1e15"], strict=False)
>>> disagreement(result.check).split(": ")[1]
'∂f/∂x'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from gradcalc.core.naming import derivative_label

if TYPE_CHECKING:
    from gradcalc.engine.evaluate.points import Points
    from gradcalc.symbolic.crosscheck.crosscheck import CheckReport

__all__ = ["disagreement"]


def disagreement(report: CheckReport, name: str = "f", points: Points | None = None) -> str:
    """Why the check failed, in words: the component farthest off, the tape's number beside
    sympy's exact (or 50-digit) one, and the likely cause; where, by its coordinates
    (``points``). (A singularity float64 rounded past is no disagreement: see
    :mod:`gradcalc.engine.judge.rounded`.)"""
    from gradcalc.symbolic.crosscheck.values import off_by

    if report.worst is not None:
        label, k, tape, truth = report.worst
        partial = report.partials[label]
        exact = k < len(partial.exact_values) and partial.exact_values[k] is not None
        shape = () if report.mismatch is None else report.mismatch.shape
        confirmed = np.broadcast_to(partial.confirmed, shape).reshape(-1)[k]
        how = "exact" if exact else "high-precision" if confirmed else "float64"
        where = f" at point {k + 1}" if report.points > 1 else ""
        if points is not None and points.names and points.count > 1:
            where = f" at {points.label(k)}"  # (k counts in its chunk: the point's own values)
        variables = points.names if points is not None else ()
        return off_by(_derivative_name(name, label, variables) + where, tape, truth, how)
    return (
        "the tape and sympy's derivative disagree (largest difference "
        f"{report.max_difference:.3g}): a bug, or a point where float64 cannot resolve the "
        "expression (e.g. tan of a huge argument)"
    )


def _derivative_name(name: str, label: str, variables: Sequence[str] = ()) -> str:
    """A check's label as a derivative's name: ``x`` is ∂f/∂x, ``x,y`` ∂²f/∂x∂y, ``d2`` (the
    second derivative of ``--order``) d²f/dx² in the one variable x (else as it is).

    >>> _derivative_name("f", "x"), _derivative_name("g", "x,y"), _derivative_name("f", "d2")
    ('∂f/∂x', '∂²g/∂x∂y', 'd2')
    >>> _derivative_name("f", "d2", ["x"])
    'd²f/dx²'
    """
    parts = label.split(",")
    order = label[1:] if len(parts) == 1 and label[:1] == "d" and label[1:].isdigit() else ""
    if order and len(variables) == 1:
        return derivative_label(name, [variables[0]] * int(order), ordinary=True)
    return (
        label
        if order or not all(p.isidentifier() for p in parts)
        else derivative_label(name, parts)
    )
