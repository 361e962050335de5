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

if TYPE_CHECKING:
    from gradcalc.symbolic.crosscheck.crosscheck import CheckReport

__all__ = ["rounded_past", "taken_out"]


def rounded_past(report: CheckReport | None, count: int) -> np.ndarray:
    """Per point (flat): where the check found a derivative undefined in exact arithmetic
    (not finite) that the tape computed as a number."""
    out = np.zeros(count, bool)
    if report is None:
        return out
    for partial in report.partials.values():
        if partial.mismatch is not None:
            bad = partial.mismatch & ~np.isfinite(partial.values)
            out |= np.broadcast_to(bad, np.shape(partial.mismatch)).reshape(-1)[:count]
    return out


def taken_out(report: CheckReport, where: np.ndarray, target: str) -> Singularity:
    """Takes the points ``where`` (flat) out of ``report``'s comparison -- it agrees, or with
    nothing left compared, is skipped -- and says what they are: a singularity."""
    from gradcalc.symbolic.crosscheck.crosscheck import NOTHING_COMPARED

    names = [
        partial.source
        for partial in report.partials.values()
        if partial.mismatch is not None
        and _any_at(partial.mismatch & ~np.isfinite(partial.values), where)
    ]
    for partial in report.partials.values():
        if partial.mismatch is not None:
            partial.mismatch = _cleared(partial.mismatch, where)
    if report.mismatch is not None:
        report.mismatch = _cleared(report.mismatch, where)
    report.points = max(report.points - int(where.sum()), 0)
    still = report.mismatch is not None and bool(np.any(report.mismatch))
    if report.status == "disagree" and not still:
        report.status, report.worst = ("agree", None) if report.points else ("skipped", None)
        report.note = "" if report.points else NOTHING_COMPARED
    derivatives = f"∂{target}/∂{names[0]}" if len(names) == 1 else f"∇{target}"
    reason = (
        "sympy finds it undefined there in exact arithmetic: float64 rounded past the "
        "singularity, so the tape's numbers there mean nothing"
    )
    return Singularity(UNDEFINED, derivatives, 0, "", reason, np.flatnonzero(where))


def _any_at(mask: Any, where: np.ndarray) -> bool:
    return bool(np.any(np.broadcast_to(mask, np.shape(mask)).reshape(-1)[: where.size][where]))


def _cleared(mask: np.ndarray, where: np.ndarray) -> np.ndarray:
    """``mask`` (in the points' shape) with the flat points ``where`` set to False."""
    flat = np.array(mask, dtype=bool).reshape(-1)
    flat[: where.size][where[: flat.size]] = False
    return flat.reshape(np.shape(mask))
