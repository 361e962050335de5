"""Decide whether two real expressions are the same function, and say on what evidence.

A verdict never rests on float agreement. The evidence, strongest first:

- **proof**: the difference is 0 in sympy's canonical form, or a constant, or
  ``simplify`` reduces it to 0 within the time budget.
- **exact points**: when both sides are rational functions (sums, products, quotients
  and integer powers of the variables, with rational coefficients; ``pi`` or ``e`` may
  appear, as an indeterminate: each is transcendental), the two sides are evaluated with
  exact rational arithmetic at random integer points drawn from a set S of
  2·10^18 + 1 integers. A nonzero difference, written as one fraction, has a numerator of
  degree at most d (bounded from the expression tree), and a nonzero polynomial of degree
  d vanishes at a random point of S^n with probability at most d/|S| (Schwartz-Zippel).
  With several independent points the chance of calling a wrong answer equivalent is
  below 10^-90; the verdict states the bound. A difference found there is exact.
- **high precision**: everything else is evaluated at the caller's points (which it takes
  where both sides are defined) with mpmath at 60 and at 120 digits; a value counts only
  where the two precisions share 40+ digits (no cancellation ate them). A point agrees
  when both sides share AGREE_DIGITS (40) digits -- far more than float64 (about 16) could
  fake -- and differs when they part far above the evaluation's error. At the first
  agreeing point sympy's adaptive-precision ``evalf`` also looks for a difference below
  that (``1e-50*sin(x)`` added). Where both sides are rational-valued (``x/abs(x)``),
  points are compared exactly.

Otherwise the verdict is "could not decide", with the reason.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> decide(sp.Integer(-79279675), sp.Integer(-79279674), [x], []).detail
'yours − correct = -1 everywhere'
>>> decision = decide(2 * x * (x + 1), 2 * x**2 + 2 * x, [x], [])
>>> decision.verdict, decision.evidence
('equivalent', 'exact points')
>>> decide(sp.sin(2 * x), 2 * sp.sin(x) * sp.cos(x), [x], []).evidence
'proof'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from time import monotonic, process_time
from typing import Any

from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.symbolic.decide.decision import (
    EQUIVALENT,
    NOT_EQUIVALENT,
    UNDECIDED,
    Decision,
    number_text,
)
from gradcalc.symbolic.decide.patience import FAILURES
from gradcalc.symbolic.decide.precision import agreement, compare_at_points, difference_witness
from gradcalc.symbolic.decide.rational import rational_decision

__all__ = [
    "EQUIVALENT",
    "NOT_EQUIVALENT",
    "UNDECIDED",
    "Decision",
    "decide",
    "rewrites_to_zero",
    "simplifies_to_zero",
]

SECONDS = 3.0  # the default budget of one decision, in CPU seconds
QUICK_SECONDS = 0.5  # the quick proof's budget (exponentials, expanded)


def decide(
    answer: Any,
    truth: Any,
    symbols: Sequence[Any],
    points: Sequence[Mapping[str, Any]],
    seconds: float = SECONDS,
) -> Decision:
    """Is ``answer`` the same function as ``truth`` (sympy expressions in ``symbols``)?

    ``points`` are exact points (name -> sympy Rational) where both sides are defined
    over the reals, best first: witnesses are taken from them, and they carry the
    high-precision evidence. ``seconds`` bounds the work at points (CPU seconds), and then
    sympy's ``simplify`` (wall-clock seconds).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> half = [{"x": sp.Rational(1, 2)}]
    >>> decide(sp.exp(x) * (10**9 + 1), sp.exp(x) * 10**9, [x], half).detail
    'differs at x=0.5: yours 1648721272.349, correct 1648721270.7 (high-precision evaluation)'
    """
    deadline = process_time() + seconds  # CPU seconds: a busy machine is no reason to give up
    difference = answer - truth
    if difference == 0:
        return Decision(EQUIVALENT, "proof", "sympy proves the difference is 0")
    if difference.is_Rational:
        gap = number_text(difference)
        return Decision(NOT_EQUIVALENT, "exact", f"yours − correct = {gap} everywhere")
    rational = rational_decision(answer, truth, symbols, points, deadline)
    if rational is not None:
        return rational
    if rewrites_to_zero(difference):
        return Decision(EQUIVALENT, "proof", "sympy proves the difference is 0")
    found = difference_witness(difference, answer, symbols, points, deadline)
    if found is not None:
        return found
    outcome = compare_at_points(answer, truth, symbols, difference, points, deadline)
    if isinstance(outcome, Decision):
        return outcome
    agreed, tested, unevaluated = outcome
    if simplifies_to_zero(difference, monotonic() + seconds):  # a budget of its own
        return Decision(EQUIVALENT, "proof", "sympy proves the difference is 0")
    agreeing = agreement(agreed, "the domain")
    if agreeing is not None:
        return agreeing
    reason = f"agrees at only {len(agreed)} of {tested} test points and sympy found no proof"
    if process_time() > deadline or unevaluated:
        reason += f" within {seconds:g} s of CPU{unevaluated}"
    return Decision(UNDECIDED, "", reason)


def rewrites_to_zero(difference) -> bool:
    """A quick proof: the difference, with trigonometric and hyperbolic functions written
    as exponentials, expands to 0 (``sin(2x) - 2 sin(x) cos(x)`` in milliseconds, where
    ``simplify`` takes a tenth of a second)."""
    import sympy as sp

    try:
        with time_limit(QUICK_SECONDS):
            return bool(sp.expand(difference.rewrite(sp.exp)) == 0)
    except FAILURES:
        return False


def simplifies_to_zero(difference, deadline) -> bool:
    import sympy as sp

    if deadline <= monotonic():
        return False
    try:
        with time_limit(deadline - monotonic()):
            return bool(sp.simplify(difference) == 0)
    except FAILURES:
        return False
