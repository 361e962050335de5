"""Points where float64 rounded past a singularity: undefined, not a failed check.

At ``1/(x - 0.1 - 0.2 + 0.3)`` and x = 0 the tape divides by 5.6e-17 (float64's 0.1 + 0.2 is
not 0.3) and gets -3.2e32; at ``x/sin(pi*y)`` and y = 1 it divides by sin(float pi) =
1.2e-16. The check's exact arithmetic finds no derivative there. That is an undefined point
(exit 3), said as such, and taken out of the check's comparison -- not a disagreement
(exit 1) about numbers that mean nothing.

>>> from gradcalc import grad
>>> result = grad("1/(x - 0.1 - 0.2 + 0.3)", at={"x": 0}, strict=False)
>>> bool(result.undefined), result.check.status
(True, 'skipped')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.core.ops import UNDEFINED
from gradcalc.engine.evaluate.singular import Singularity
from gradcalc.engine.judge.exact import exact_point

if TYPE_CHECKING:
    from gradcalc.engine.evaluate.points import Points
    from gradcalc.lang.graph import Graph
    from gradcalc.symbolic.crosscheck.crosscheck import CheckReport

__all__ = ["ROUNDED_PAST", "rounded_past", "taken_out", "value_undefined"]

#: Why such a point is undefined, in the words every command uses.
ROUNDED_PAST = (
    "sympy finds it undefined there in exact arithmetic: float64 rounded past the "
    "singularity, so the tape's numbers there mean nothing"
)


def rounded_past(report: CheckReport | None, count: int) -> np.ndarray:
    """Per point (flat): where the check found a derivative undefined in exact arithmetic
    (not finite) that the tape computed as a number."""
    out = np.zeros(count, bool)
    if report is None:
        return out
    for partial in report.partials.values():
        if partial.mismatch is not None:
            out |= _flat(partial.mismatch & ~np.isfinite(partial.values), count)
    return out


def taken_out(report: CheckReport, where: np.ndarray, target: str) -> Singularity:
    """Takes the points ``where`` (flat) out of ``report``'s comparison -- it agrees, or with
    nothing left compared, is skipped -- and says what they are: a singularity."""
    from gradcalc.symbolic.crosscheck.crosscheck import NOTHING_COMPARED

    names = [
        partial.source
        for partial in report.partials.values()
        if partial.mismatch is not None
        and _flat(partial.mismatch & ~np.isfinite(partial.values), where.size)[where].any()
    ]
    for partial in report.partials.values():
        if partial.mismatch is not None:
            partial.mismatch = _cleared(partial.mismatch, where)
    if report.mismatch is not None:
        report.mismatch = _cleared(report.mismatch, where)
    report.points = max(report.points - int(where.sum()), 0)
    if report.worst is not None and where[report.worst[1] % where.size]:
        report.worst = None  # (a point taken out: the largest difference is said instead)
    still = report.mismatch is not None and bool(np.any(report.mismatch))
    if report.status == "disagree" and not still:
        report.status, report.worst = ("agree", None) if report.points else ("skipped", None)
        report.note = "" if report.points else NOTHING_COMPARED
    derivatives = f"∂{target}/∂{names[0]}" if len(names) == 1 else f"∇{target}"
    return Singularity(UNDEFINED, derivatives, 0, "", ROUNDED_PAST, np.flatnonzero(where))


def value_undefined(graph: Graph, target: int, points: Points, where: np.ndarray) -> np.ndarray:
    """Per point (flat) of ``where``: whether f itself is undefined there in exact arithmetic
    (``1/(x - 0.1 - 0.2 + 0.3)`` at 0, not only its derivative); False where the exact value
    would be too large to build."""
    import sympy as sp

    from gradcalc.symbolic.crosscheck.crosscheck import target_expression
    from gradcalc.symbolic.translate.convert import ExactTooLarge, exact_at

    out = np.zeros(where.size, bool)
    f = target_expression(graph, target)
    for k in np.flatnonzero(where):
        point = exact_point(points, int(k))
        if point is None:
            continue
        try:
            value = exact_at(f, {sp.Symbol(n, real=True): v for n, v in point.items()})
        except ExactTooLarge:
            continue
        out[k] = value.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or value.is_finite is False
    return out


def _flat(mask: Any, count: int) -> np.ndarray:
    """A per-point mask (in the points' shape, or one for all) as ``count`` flags."""
    flags = np.asarray(mask, dtype=bool)
    return flags.reshape(-1) if flags.size == count else np.broadcast_to(flags, (count,))


def _cleared(mask: np.ndarray, where: np.ndarray) -> np.ndarray:
    """``mask`` (in the points' shape) with the flat points ``where`` set to False."""
    flat = np.array(_flat(mask, where.size))
    flat[where] = False
    return flat.reshape(np.shape(mask)) if np.size(mask) == where.size else flat
