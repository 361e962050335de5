"""A wrong answer shown wrong where the student asked: at the ``--at`` point, when it differs
there, rather than at a point of the sampled domain they never mentioned.

``check "x^2" --answer "x + 3" --at x=3`` asks about x = 3, where x + 3 is 6 and so is 2x:
right there, wrong elsewhere. The witness stays elsewhere then, and the verdict says the
answer agrees at the point asked about; where it differs at that point, the witness is that
point, with both exact values.

>>> import sympy as sp
>>> from gradcalc.apps.check.verdicts import Verdict
>>> x = sp.Symbol("x", real=True)
>>> wrong = Verdict("df/dx", "x + 3", "2x", "not equivalent", "differs at x=-1.675: ...")
>>> at_asked(wrong, x + 3, 2 * x, ["x=3"]).detail
'differs at x=-1.675: ... (at x=3, where you asked, yours is right: 6)'
>>> at_asked(wrong, x + 3, 2 * x, ["x=5"]).detail
'differs at x=5, where you asked: yours 8, correct 10 (exact)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from gradcalc.apps.check.numbers import is_zero
from gradcalc.apps.check.verdicts import Verdict
from gradcalc.engine.evaluate.points import parse_at
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, time_limit
from gradcalc.symbolic.crosscheck.values import exact_value
from gradcalc.symbolic.decide.defined import finite_real
from gradcalc.symbolic.translate.derivative import symbol
from gradcalc.symbolic.translate.notation import user_text

__all__ = ["at_asked"]

SECONDS = 1.0  # for sympy's exact values at the points asked about


def at_asked(verdict: Verdict, answer: Any, truth: Any, at: Sequence[str]) -> Verdict:
    """``verdict``, a fail, witnessed at the first point of ``at`` where ``answer`` and
    ``truth`` (sympy) differ exactly, or told that the answer is right at those points;
    anything else as it is."""
    if verdict.ok is not False or not at:
        return verdict
    agree = []
    for row in (row for spec in at for row in parse_at([spec]).exact or []):
        where = ", ".join(f"{n}={text}" for n, text in row.items())
        try:
            with time_limit(SECONDS):
                values = {symbol(n): exact_value(text) for n, text in row.items()}
                yours, correct = (side.subs(values, simultaneous=True) for side in (answer, truth))
                if finite_real(yours) is not True or finite_real(correct) is not True:
                    continue
                apart = is_zero(yours - correct)
        except (CheckTimeout, TypeError, ValueError, ArithmeticError):
            continue
        if apart is False:
            detail = (
                f"differs at {where}, where you asked: yours {user_text(yours)}, "
                f"correct {user_text(correct)} (exact)"
            )
            return replace(verdict, detail=detail, evidence="exact")
        if apart is True:
            agree.append(f"at {where}, where you asked, yours is right: {user_text(correct)}")
    if not agree:
        return verdict
    return replace(verdict, detail=f"{verdict.detail} ({'; '.join(agree)})")
