"""High precision at points of the domain: both sides evaluated with mpmath at LOW and at
HIGH digits; a value counts only where the two precisions share AGREE_DIGITS digits (no
cancellation ate them), a point agrees when both sides share AGREE_DIGITS digits, and
differs when they part far above the evaluation's error.

>>> agreement([50.0] * ENOUGH, "the curve").verdict
'equivalent'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from time import process_time
from typing import Any

from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.symbolic.decide.decision import (
    EQUIVALENT,
    HOW,
    NOT_EQUIVALENT,
    Decision,
    apart,
    exact_witness,
    point_text,
    witness,
)
from gradcalc.symbolic.decide.patience import FAILURES, wall
from gradcalc.symbolic.decide.rational import rational_valued
from gradcalc.symbolic.translate.convert import exact_at
from gradcalc.symbolic.translate.numeric import lambdify

__all__ = [
    "AGREE_DIGITS",
    "DIGITS",
    "ENOUGH",
    "HIGH",
    "LONG",
    "LOW",
    "MAX_POINTS",
    "MAX_TRIED",
    "Evaluator",
    "agreement",
    "compare_at_points",
    "confirmed_gap",
    "difference_witness",
    "mp_function",
    "mp_real",
    "precise_at",
    "precise_value",
    "rows_at",
    "settled",
    "shared_digits",
    "two_precisions",
]

LOW, HIGH = 60, 120  # the two precisions (decimal digits) of the evaluation at points
DIGITS = 50  # digits sympy's evalf must know of a difference below 10^-AGREE_DIGITS
AGREE_DIGITS = 40  # digits two values must share for a point to count as agreement
ENOUGH = 12  # agreeing points an unproven, non-rational answer needs
MAX_POINTS = 16  # agreeing points sought at high precision at most
MAX_TRIED = 64  # points tried (where the evaluation loses its digits, the next is taken)
TINY_SECONDS = 0.25  # evalf's budget for confirming a difference (or one below 10^-AGREE_DIGITS)
EVALF_MAX_DIGITS = 400  # evalf's working precision at most (cancellation of ~350 digits)
LONG = 200  # operations from which an answer's difference is evaluated by itself first


def mp_function(symbols: Sequence[Any], expr: Any) -> Callable[..., Any]:
    """An mpmath function of ``symbols`` giving ``expr`` (or a list of them), each common
    subexpression evaluated once: an expanded third derivative of 90,000 characters
    repeats its square roots hundreds of times, and is 80 times faster at a point so.

    >>> import mpmath
    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> root = sp.sqrt(x**2 + 1)
    >>> mp_function([x], [root + 1 / root, root * x])(mpmath.mpf(3))
    [mpf('3.4785054261852175'), mpf('9.4868329805051381')]
    """

    return lambdify(symbols, expr, "mpmath", cse=True)


class Evaluator:
    """Both sides at exact points: exactly where both are rational-valued there, else with
    mpmath at LOW and at HIGH digits. A value counts only where the two precisions share
    AGREE_DIGITS digits (the evaluation did not lose them to cancellation)."""

    def __init__(self, answer, truth, symbols, difference):
        import sympy as sp

        self.answer, self.truth, self.difference = answer, truth, difference
        self.names = [str(s) for s in symbols]
        self.exact = rational_valued(answer) and rational_valued(truth)
        self.function = None
        if not self.exact and not (answer.has(sp.zoo, sp.nan) or truth.has(sp.zoo, sp.nan)):
            self.function = mp_function(symbols, [answer, truth])  # (no zoo in mpmath)

    def compare(self, point, deadline, first: bool) -> float | Decision | None:
        """The digits the two sides share at ``point`` (inf: equal exactly), a confirmed
        difference (a Decision), or None when the point cannot tell (not real there, the
        evaluation unstable, or out of time). ``first``: also look, with sympy's adaptive
        evalf, for a difference too small for the fixed precisions."""
        if process_time() >= deadline or not (self.exact or self.function):
            return None  # out of time, or a side undefined everywhere (zoo): no point can tell
        try:
            with time_limit(wall(deadline)):
                outcome = self._exactly(point) if self.exact else self._precisely(point)
        except FAILURES:
            return None
        if first and isinstance(outcome, tuple) and len(outcome) == 3:
            return self._tiny(point, *outcome[1:]) or outcome[0]
        return outcome[0] if isinstance(outcome, tuple) else outcome

    def _exactly(self, point) -> tuple | Decision:
        import sympy as sp

        subs = {sp.Symbol(name, real=True): value for name, value in point.items()}
        yours, correct = exact_at(self.answer, subs), exact_at(self.truth, subs)
        if not (yours.is_Rational and correct.is_Rational):
            raise ValueError("not rational at the point")
        if yours == correct:
            return (math.inf,)
        return exact_witness(point, yours, correct)

    def _precisely(self, point) -> tuple | Decision | None:
        import mpmath

        with mpmath.workdps(HIGH):  # (every mpf made here keeps HIGH digits)
            return self._at_two_precisions(point)

    def _at_two_precisions(self, point) -> tuple | Decision | None:
        """(shared digits, yours, correct) where they agree; a Decision where they differ."""
        values = two_precisions(self.function, self.names, point)
        if values is None:
            return None
        (a_low, c_low), (a, c) = values
        digits = settled(a_low, c_low, a, c)
        if digits is None:
            return None
        if digits < 0:  # a difference -- unless one side lost all its digits at both
            # precisions (1 - tanh(x)^2 -> 0): confirmed by evalf, or (a long difference
            # evalf cannot do in time) by both sides again at EVALF_MAX_DIGITS digits
            deeper = partial(_deeper_gap, self.function, self.names, point, (a, c))
            gap = confirmed_gap(self.difference, point, deeper)
            if gap is None:
                return None
            yours, correct = (
                _adaptive(side, point, v) for side, v in [(self.answer, a), (self.truth, c)]
            )
            return witness(point, *apart(yours, correct, gap), HOW)
        return digits, a, c

    def _tiny(self, point, a, c) -> Decision | None:
        """A difference below 10^-AGREE_DIGITS of the values (``1e-50*sin(x)`` added),
        found by evalf's adaptive precision; None when evalf cannot tell it from 0."""
        import mpmath

        gap = confirmed_gap(self.difference, point)
        if gap is None:
            return None
        with mpmath.workdps(HIGH):
            return witness(point, *apart(a, c, gap), HOW)


def _adaptive(expr: Any, point: Mapping[str, Any], fallback: Any) -> Any:
    """``expr`` at ``point`` by evalf's adaptive precision (for showing a side whose digits a
    fixed precision lost), or ``fallback`` when evalf cannot give DIGITS digits in time."""
    import sympy as sp

    subs = {sp.Symbol(name, real=True): value for name, value in point.items()}
    try:
        with time_limit(TINY_SECONDS):
            value = expr.evalf(DIGITS, subs=subs, strict=True, maxn=EVALF_MAX_DIGITS)
    except (sp.core.evalf.PrecisionExhausted, *FAILURES):
        return fallback
    return value if value.is_real and value.is_finite else fallback


def confirmed_gap(
    difference: Any, point: Mapping[str, Any], deeper: Callable[[], Any] | None = None
) -> Any | None:
    """The difference at ``point`` by sympy's adaptive-precision ``evalf`` (which raises
    the precision until DIGITS digits are right), or None when it is 0, not a finite real,
    or evalf finds it cannot know DIGITS digits. Fixed-precision evaluation can lose
    every digit of a side and return an exact 0 at any precision (``1 - tanh(x)^2`` at
    x = 147.5 is 4e-128); a difference is reported only when this second method confirms it.
    When evalf runs out of TINY_SECONDS (a difference of 100,000 characters), ``deeper()``
    decides instead (None: unconfirmed).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> truth = (1 - sp.tanh(x) ** 2) / 2
    >>> confirmed_gap(1 / (2 * sp.cosh(x) ** 2) - truth, {"x": sp.Rational(295, 2)}) is None
    True
    >>> confirmed_gap(1 / sp.cosh(x) ** 2 - truth, {"x": sp.Rational(295, 2)})
    1.52812131740150891471...e-128
    """
    import sympy as sp

    subs = {sp.Symbol(name, real=True): value for name, value in point.items()}
    try:
        with time_limit(TINY_SECONDS):
            gap = difference.evalf(DIGITS, subs=subs, strict=True, maxn=EVALF_MAX_DIGITS)
    except sp.core.evalf.PrecisionExhausted:
        return None  # cancellation beyond EVALF_MAX_DIGITS: this point cannot tell
    except FAILURES:
        return None if deeper is None else deeper()
    if gap == 0 or not (gap.is_real and gap.is_finite):
        return None
    return gap


def _deeper_gap(
    function: Any, names: Sequence[str], point: Mapping[str, Any], high: Sequence[Any]
) -> Any | None:
    """The difference of ``function``'s two values at ``point`` computed again with
    EVALF_MAX_DIGITS digits, when each value shares AGREE_DIGITS digits with its ``high``
    (HIGH-digit) counterpart -- neither lost its digits -- else None."""
    import mpmath

    try:
        with mpmath.workdps(EVALF_MAX_DIGITS):
            args = [mpmath.mpf(int(point[n].p)) / int(point[n].q) for n in names]
            values = [mp_real(v) for v in function(*args)]
            if any(v is None for v in values):
                return None
            if min(shared_digits(v, h) for v, h in zip(values, high)) < AGREE_DIGITS:
                return None
            gap = values[0] - values[-1] if len(values) > 1 else values[0]
            return gap if gap != 0 else None
    except FAILURES:
        return None


def difference_witness(difference, answer, symbols, points, deadline) -> Decision | None:
    """A witness from the difference itself, when sympy's own collection of like terms made
    it much shorter than the answer (a long answer with one coefficient changed): at a
    point where the difference, computed with LOW and with HIGH digits, is the same nonzero
    number to AGREE_DIGITS digits, the two sides differ -- a zero difference computes to
    about 10^-LOW and 10^-HIGH, which share no digits. The long sides themselves may lose
    their digits to cancellation (coefficients of 10^9, points of 10^4) and never settle."""
    import mpmath
    import sympy as sp

    size = sp.count_ops(answer)
    if size < LONG or sp.count_ops(difference) * 2 > size:
        return None  # (a short answer is evaluated whole: the witness shows both values)
    names = [str(s) for s in symbols]
    try:
        with time_limit(wall(deadline)):
            function = mp_function(symbols, [difference])
            for point in points[:MAX_POINTS]:
                if process_time() > deadline:
                    return None
                with mpmath.workdps(HIGH):
                    values = two_precisions(function, names, point)
                    if values is None or values[1][0] == 0:
                        continue
                    (low,), (high,) = values
                    deeper = partial(_deeper_gap, function, names, point, [high])
                    stable = shared_digits(low, high) >= AGREE_DIGITS
                    if stable and confirmed_gap(difference, point, deeper) is not None:
                        where = ", ".join(f"{n}={point_text(v)}" for n, v in point.items())
                        gap = f"yours − correct = {mpmath.nstr(high, 10)}"
                        detail = f"differs at {where}: {gap} (high-precision evaluation)"
                        return Decision(NOT_EQUIVALENT, "high precision", detail)
    except FAILURES:
        return None
    return None


def settled(a_low: Any, c_low: Any, a: Any, c: Any) -> float | None:
    """Both sides computed with LOW digits (``a_low``, ``c_low``) and with HIGH (``a``,
    ``c``): the digits they share when they agree to AGREE_DIGITS; -1 when they differ far
    above the evaluation's error (a real difference); None when the evaluation lost its
    digits or cannot tell. Call it inside ``mpmath.workdps(HIGH)``.

    >>> settled(1.0, 2.0, 1.0, 2.0)
    -1
    """
    stable = min(shared_digits(a_low, a), shared_digits(c_low, c))
    if stable < AGREE_DIGITS:
        return None
    shared = shared_digits(a, c)
    if shared >= AGREE_DIGITS:
        return min(shared, stable)
    return -1 if shared <= stable - 10 else None


def agreement(agreed: Sequence[float], where: str) -> Decision | None:
    """EQUIVALENT on high-precision evidence when ENOUGH points agreed (their shared
    digits in ``agreed``, inf where exactly equal), else None.

    >>> agreement([45.0] * 12, "the domain").detail
    'no proof, but equal to 45.0+ digits at 12 points of the domain'
    """
    if len(agreed) < ENOUGH:
        return None
    inexact = [digits for digits in agreed if digits != math.inf]
    how = f"to {min(inexact)}+ digits" if inexact else "exactly"
    detail = f"no proof, but equal {how} at {len(agreed)} points of {where}"
    return Decision(EQUIVALENT, "high precision", detail)


def precise_value(expr: Any, point: Mapping[str, Any]) -> float | None:
    """``expr`` at an exact point (name -> Rational), computed with mpmath at 60 and at 120
    digits and rounded to a float; None where it is not real there, or where the two
    precisions share fewer than AGREE_DIGITS digits.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> precise_value((1 - sp.cos(x)) / x**2, {"x": sp.Rational(1, 10**8)})  # float: 0
    0.5
    >>> precise_value(sp.exp(x) / (1 + sp.exp(x)) ** 2, {"x": sp.Integer(-800)})  # float: nan
    0.0
    """
    import sympy as sp

    names = sorted(point)
    function = mp_function([sp.Symbol(n, real=True) for n in names], [expr])
    return precise_at(function, names, point)


def precise_at(
    function: Callable[..., list[Any]],
    names: Sequence[str],
    point: Mapping[str, Any],
    digits: tuple[int, int] = (LOW, HIGH),
) -> float | None:
    """The first value of ``function`` (of the variables ``names``, from :func:`mp_function`)
    at ``point`` (name -> Rational), computed at both ``digits`` and rounded to a float; None
    where it is not real there, or where the two share fewer than AGREE_DIGITS digits.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> cancelling = mp_function([x], [(1 - sp.cos(x)) / x**2])
    >>> at = {"x": sp.Rational(1, 10**45)}  # 1 - cos(x) is 5e-91: 60 digits see 0
    >>> precise_at(cancelling, ["x"], at), precise_at(cancelling, ["x"], at, (200, 300))
    (None, 0.5)
    """
    import mpmath

    with mpmath.workdps(max(digits)):
        values = two_precisions(function, names, point, digits)
        if values is None or shared_digits(values[0][0], values[1][0]) < AGREE_DIGITS:
            return None
        return float(values[1][0])


def two_precisions(
    function, names, point, digits: tuple[int, int] = (LOW, HIGH)
) -> tuple[list, list] | None:
    """``function``'s values at ``point`` computed at each of ``digits`` (decimal digits);
    None when one of them is not a finite real number. Call it inside
    ``mpmath.workdps(max(digits))``."""
    import mpmath

    low, high = rows_at(
        function, lambda: [mpmath.mpf(int(point[n].p)) / int(point[n].q) for n in names], digits
    )
    if any(v is None for v in (*low, *high)):
        return None
    return low, high


def rows_at(function, arguments: Callable[[], list], digits: tuple[int, int]) -> tuple[list, list]:
    """``function``'s values computed at each of ``digits`` (decimal digits), each a finite
    real mpf or None; ``arguments()`` makes its mpf arguments at the working precision.

    >>> import mpmath
    >>> low, high = rows_at(lambda x: [mpmath.sqrt(x), mpmath.sqrt(-x)], lambda: [2], (20, 40))
    >>> mpmath.nstr(low[0], 15), mpmath.nstr(high[0], 30), low[1], high[1]
    ('1.4142135623731', '1.41421356237309504880168872421', None, None)
    """
    import mpmath

    rows = []
    for working in digits:
        with mpmath.workdps(working):
            rows.append([mp_real(v) for v in function(*arguments())])
    return rows[0], rows[1]


def mp_real(value) -> Any:
    """An mpmath result as a finite real mpf, or None."""
    import mpmath

    if isinstance(value, mpmath.mpc):
        if value.imag != 0:
            return None
        value = value.real
    value = mpmath.mpf(value)
    return value if mpmath.isfinite(value) else None


def shared_digits(u, v) -> float:
    """How many leading digits ``u`` and ``v`` share (inf when equal).

    >>> shared_digits(1.0, 1.0), shared_digits(1.0, 1.001)
    (inf, 3)
    """
    import mpmath

    u, v = mpmath.mpf(u), mpmath.mpf(v)
    if u == v:
        return math.inf
    scale = max(abs(u), abs(v))
    return int(mpmath.floor(mpmath.log10(scale / abs(u - v))))


def compare_at_points(
    answer: Any,
    truth: Any,
    symbols: Sequence[Any],
    difference: Any,
    points: Sequence[Mapping[str, Any]],
    deadline: float,
) -> Decision | tuple[list[float], int, str]:
    """Both sides at the caller's points, until MAX_POINTS agree or the CPU ``deadline``: a
    witness where they differ (a Decision), else the digits shared at each agreeing point,
    the number of points tested, and why no point could be (empty when they could)."""
    agreed: list[float] = []
    try:
        with time_limit(wall(deadline)):
            evaluate = Evaluator(answer, truth, symbols, difference)
    except FAILURES:  # (lambdify of a very long answer takes seconds)
        return agreed, 0, "; the two sides could not be made ready for high precision in time"
    tested = 0
    for point in points[:MAX_TRIED]:
        if process_time() > deadline or len(agreed) >= MAX_POINTS:
            break
        tested += 1
        outcome = evaluate.compare(point, deadline, first=not agreed)
        if isinstance(outcome, Decision):
            return outcome
        if outcome is not None:
            agreed.append(outcome)
    return agreed, tested, ""
