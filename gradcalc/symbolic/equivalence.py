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

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from time import monotonic, process_time
from typing import Any

from gradcalc.core.budget import CheckTimeout
from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.symbolic.convert import exact_at

EQUIVALENT = "equivalent"
NOT_EQUIVALENT = "not equivalent"
UNDECIDED = "could not decide"

LOW, HIGH = 60, 120  # the two precisions (decimal digits) of the evaluation at points
DIGITS = 50  # digits sympy's evalf must know of a difference below 10^-AGREE_DIGITS
AGREE_DIGITS = 40  # digits two values must share for a point to count as agreement
ENOUGH = 12  # agreeing points an unproven, non-rational answer needs
MAX_POINTS = 16  # agreeing points sought at high precision at most
MAX_TRIED = 64  # points tried (where the evaluation loses its digits, the next is taken)
RANDOM_POINTS = 6  # independent random integer points for a rational difference
SPREAD = 10**18  # integer points are drawn from [-SPREAD, SPREAD]
MAX_DEGREE = 10_000  # larger degree bounds are left to the other evidence
SECONDS = 3.0  # the default budget of one decision, in CPU seconds
SLACK = 5.0  # wall-clock seconds a piece of the decision may take per CPU second left
TINY_SECONDS = 0.25  # evalf's budget for confirming a difference (or one below 10^-AGREE_DIGITS)
EVALF_MAX_DIGITS = 400  # evalf's working precision at most (cancellation of ~350 digits)
QUICK_SECONDS = 0.5  # the quick proof's budget (exponentials, expanded)
LONG = 200  # operations from which an answer's difference is evaluated by itself first

_FAILURES = (CheckTimeout, TypeError, ValueError, ArithmeticError, RecursionError, MemoryError)


@dataclass(frozen=True)
class Decision:
    """One verdict: ``verdict`` (EQUIVALENT, NOT_EQUIVALENT or UNDECIDED), the
    ``evidence`` it rests on (``"proof"``, ``"exact points"``, ``"exact"``,
    ``"high precision"``; empty when undecided) and a one-line ``detail`` for people.

    >>> Decision(UNDECIDED, "", "no test point").ok is None
    True
    """

    verdict: str
    evidence: str
    detail: str

    @property
    def ok(self) -> bool | None:
        """True when equivalent, False when not, None when undecided."""
        return {EQUIVALENT: True, NOT_EQUIVALENT: False}.get(self.verdict)


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
        gap = _number_text(difference)
        return Decision(NOT_EQUIVALENT, "exact", f"yours − correct = {gap} everywhere")
    rational = _rational_decision(answer, truth, symbols, points, deadline)
    if rational is not None:
        return rational
    if _rewrites_to_zero(difference):
        return Decision(EQUIVALENT, "proof", "sympy proves the difference is 0")
    witness = _difference_witness(difference, answer, symbols, points, deadline)
    if witness is not None:
        return witness
    agreed: list[float] = []
    unevaluated = ""
    try:
        with time_limit(_wall(deadline)):
            evaluate = _Evaluator(answer, truth, symbols, difference)
    except _FAILURES:  # (lambdify of a very long answer takes seconds)
        points = []
        unevaluated = "; the two sides could not be made ready for high precision in time"
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
    if _simplifies_to_zero(difference, monotonic() + seconds):  # a budget of its own
        return Decision(EQUIVALENT, "proof", "sympy proves the difference is 0")
    agreeing = agreement(agreed, "the domain")
    if agreeing is not None:
        return agreeing
    reason = f"agrees at only {len(agreed)} of {tested} test points and sympy found no proof"
    if process_time() > deadline or unevaluated:
        reason += f" within {seconds:g} s of CPU{unevaluated}"
    return Decision(UNDECIDED, "", reason)


# --- exact points: rational functions ---------------------------------------------------


class _NotRational(Exception):
    """The expression is not a rational function of the indeterminates."""


def _rational_decision(answer, truth, symbols, points, deadline) -> Decision | None:
    """Schwartz-Zippel at random integer points when the difference of the two sides is a
    rational function (parts that are not may cancel in it: ``log(x)`` on both sides);
    None when it is not, or its degree is too large to evaluate cheaply."""
    import sympy as sp

    difference = answer - truth
    constants = difference.atoms(sp.NumberSymbol)
    if difference.has(sp.exp):  # e^2 is exp(2): a power of the constant e
        constants.add(sp.E)
    if len(constants) > 1:  # pi and e together: their algebraic independence is unknown
        return None
    indeterminates = [*symbols, *sorted(constants, key=str)]
    try:
        with time_limit(_wall(deadline)):
            degree = _degree(difference, indeterminates)[0]
            if degree > MAX_DEGREE:
                return None
            draw = random.SystemRandom()
            agreed = 0
            for _ in range(4 * RANDOM_POINTS):
                values = {s: Fraction(draw.randint(-SPREAD, SPREAD)) for s in indeterminates}
                try:
                    gap = _exact(difference, values)
                except ZeroDivisionError:  # a denominator vanishes there: draw again
                    continue
                if gap != 0:
                    return _rational_witness(answer, truth, difference, points)
                agreed += 1
                if agreed == RANDOM_POINTS:
                    break
    except (_NotRational, *_FAILURES):
        return None
    if agreed < RANDOM_POINTS:
        return None
    digits = math.floor(-agreed * math.log10(max(degree, 1) / (2 * SPREAD + 1)))
    detail = f"exact at {agreed} random points: a wrong answer passes with chance < 10^-{digits}"
    return Decision(EQUIVALENT, "exact points", detail)


def _rational_witness(answer, truth, difference, points) -> Decision:
    """Not equivalent (the difference is a nonzero rational function): the first of the
    caller's points where it is not 0, with both values when they are exact numbers (when
    both sides are rational functions, random decimals in [-3, 3] are tried next)."""
    import sympy as sp

    if _rational_valued(answer) and _rational_valued(truth):
        draw = random.Random(0)
        names = sorted(str(s) for s in difference.free_symbols)
        decimals = [
            {n: sp.Rational(draw.randint(-3000, 3000), 1000) for n in names} for _ in range(20)
        ]
        points = [*points, *decimals]
    for point in points:
        subs = {sp.Symbol(name, real=True): value for name, value in point.items()}
        gap = exact_at(difference, subs)
        if gap.is_zero is not False or gap.has(sp.zoo, sp.nan):
            continue
        yours, correct = exact_at(answer, subs), exact_at(truth, subs)
        if yours.is_Rational and correct.is_Rational:
            return _witness(point, _number_text(yours), _number_text(correct), "exact")
        where = ", ".join(f"{name}={_point_text(v)}" for name, v in point.items())
        shown = _number_text(gap) if gap.is_Rational else str(gap)
        return Decision(
            NOT_EQUIVALENT, "exact", f"differs at {where}: yours − correct = {shown} (exact)"
        )
    shown = str(difference) if len(str(difference)) <= 60 else "a rational function"
    return Decision(NOT_EQUIVALENT, "exact", f"yours − correct = {shown}, which is not 0")


def _degree(expr, indeterminates) -> tuple[int, int]:
    """Bounds on the degrees of numerator and denominator of ``expr`` written as one
    fraction of polynomials in ``indeterminates``, from its tree.

    Raises:
        _NotRational: ``expr`` uses anything else (a function, a fractional power).
    """
    import sympy as sp

    if expr in indeterminates:
        return 1, 0
    if expr.is_Rational:
        return 0, 0
    if isinstance(expr, sp.exp) and expr.args[0].is_Integer and sp.E in indeterminates:
        k = int(expr.args[0])
        return (k, 0) if k >= 0 else (0, -k)
    if expr.is_Add or expr.is_Mul:
        parts = [_degree(arg, indeterminates) for arg in expr.args]
        below = sum(d for _, d in parts)
        if expr.is_Mul:
            return sum(n for n, _ in parts), below
        return max(n - d for n, d in parts) + below, below
    if expr.is_Pow and expr.exp.is_Integer:
        n, d = _degree(expr.base, indeterminates)
        k = int(expr.exp)
        return (k * n, k * d) if k >= 0 else (-k * d, -k * n)
    raise _NotRational(str(expr.func))


def _exact(expr, values: Mapping[Any, Fraction]) -> Fraction:
    """``expr`` (a rational function, see :func:`_degree`) at the point, exactly."""
    import sympy as sp

    if expr in values:
        return values[expr]
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    if isinstance(expr, sp.exp):
        return values[sp.E] ** int(expr.args[0])
    if expr.is_Add:
        return sum((_exact(arg, values) for arg in expr.args), Fraction(0))
    if expr.is_Mul:
        return math.prod((_exact(arg, values) for arg in expr.args), start=Fraction(1))
    return _exact(expr.base, values) ** int(expr.exp)


# --- high precision at points of the domain ------------------------------------------


class _Evaluator:
    """Both sides at exact points: exactly where both are rational-valued there, else with
    mpmath at LOW and at HIGH digits. A value counts only where the two precisions share
    AGREE_DIGITS digits (the evaluation did not lose them to cancellation)."""

    def __init__(self, answer, truth, symbols, difference):
        import sympy as sp

        self.answer, self.truth, self.difference = answer, truth, difference
        self.names = [str(s) for s in symbols]
        self.exact = _rational_valued(answer) and _rational_valued(truth)
        self.function = None
        if not self.exact and not (answer.has(sp.zoo, sp.nan) or truth.has(sp.zoo, sp.nan)):
            self.function = sp.lambdify(symbols, [answer, truth], "mpmath")  # (no zoo in mpmath)

    def compare(self, point, deadline, first: bool) -> float | Decision | None:
        """The digits the two sides share at ``point`` (inf: equal exactly), a confirmed
        difference (a Decision), or None when the point cannot tell (not real there, the
        evaluation unstable, or out of time). ``first``: also look, with sympy's adaptive
        evalf, for a difference too small for the fixed precisions."""
        if process_time() >= deadline or not (self.exact or self.function):
            return None  # out of time, or a side undefined everywhere (zoo): no point can tell
        try:
            with time_limit(_wall(deadline)):
                outcome = self._exactly(point) if self.exact else self._precisely(point)
        except _FAILURES:
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
        return _witness(point, _number_text(yours), _number_text(correct), "exact")

    def _precisely(self, point) -> tuple | Decision | None:
        import mpmath

        with mpmath.workdps(HIGH):  # (every mpf made here keeps HIGH digits)
            return self._at_two_precisions(point)

    def _at_two_precisions(self, point) -> tuple | Decision | None:
        """(shared digits, yours, correct) where they agree; a Decision where they differ."""
        values = _two_precisions(self.function, self.names, point)
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
            return _witness(point, *_apart(yours, correct, gap), HOW)
        return digits, a, c

    def _tiny(self, point, a, c) -> Decision | None:
        """A difference below 10^-AGREE_DIGITS of the values (``1e-50*sin(x)`` added),
        found by evalf's adaptive precision; None when evalf cannot tell it from 0."""
        import mpmath

        gap = confirmed_gap(self.difference, point)
        if gap is None:
            return None
        with mpmath.workdps(HIGH):
            return _witness(point, *_apart(a, c, gap), HOW)


def _adaptive(expr: Any, point: Mapping[str, Any], fallback: Any) -> Any:
    """``expr`` at ``point`` by evalf's adaptive precision (for showing a side whose digits a
    fixed precision lost), or ``fallback`` when evalf cannot give DIGITS digits in time."""
    import sympy as sp

    subs = {sp.Symbol(name, real=True): value for name, value in point.items()}
    try:
        with time_limit(TINY_SECONDS):
            value = expr.evalf(DIGITS, subs=subs, strict=True, maxn=EVALF_MAX_DIGITS)
    except (sp.core.evalf.PrecisionExhausted, *_FAILURES):
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
    except _FAILURES:
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
            values = [_mp_real(v) for v in function(*args)]
            if any(v is None for v in values):
                return None
            if min(_shared(v, h) for v, h in zip(values, high)) < AGREE_DIGITS:
                return None
            gap = values[0] - values[-1] if len(values) > 1 else values[0]
            return gap if gap != 0 else None
    except _FAILURES:
        return None


def _difference_witness(difference, answer, symbols, points, deadline) -> Decision | None:
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
        with time_limit(_wall(deadline)):
            function = sp.lambdify(symbols, [difference], "mpmath")
            for point in points[:MAX_POINTS]:
                if process_time() > deadline:
                    return None
                with mpmath.workdps(HIGH):
                    values = _two_precisions(function, names, point)
                    if values is None or values[1][0] == 0:
                        continue
                    (low,), (high,) = values
                    deeper = partial(_deeper_gap, function, names, point, [high])
                    stable = _shared(low, high) >= AGREE_DIGITS
                    if stable and confirmed_gap(difference, point, deeper) is not None:
                        where = ", ".join(f"{n}={_point_text(v)}" for n, v in point.items())
                        gap = f"yours − correct = {mpmath.nstr(high, 10)}"
                        detail = f"differs at {where}: {gap} (high-precision evaluation)"
                        return Decision(NOT_EQUIVALENT, "high precision", detail)
    except _FAILURES:
        return None
    return None


HOW = "high-precision evaluation"


def settled(a_low: Any, c_low: Any, a: Any, c: Any) -> float | None:
    """Both sides computed with LOW digits (``a_low``, ``c_low``) and with HIGH (``a``,
    ``c``): the digits they share when they agree to AGREE_DIGITS; -1 when they differ far
    above the evaluation's error (a real difference); None when the evaluation lost its
    digits or cannot tell. Call it inside ``mpmath.workdps(HIGH)``.

    >>> settled(1.0, 2.0, 1.0, 2.0)
    -1
    """
    stable = min(_shared(a_low, a), _shared(c_low, c))
    if stable < AGREE_DIGITS:
        return None
    shared = _shared(a, c)
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
    import mpmath
    import sympy as sp

    names = sorted(point)
    function = sp.lambdify([sp.Symbol(n, real=True) for n in names], [expr], "mpmath")
    with mpmath.workdps(HIGH):
        values = _two_precisions(function, names, point)
        if values is None or _shared(values[0][0], values[1][0]) < AGREE_DIGITS:
            return None
        return float(values[1][0])


def _two_precisions(function, names, point) -> tuple[list, list] | None:
    """``function``'s values at ``point`` computed with LOW and with HIGH digits; None when
    one of them is not a finite real number. Call it inside ``mpmath.workdps(HIGH)``."""
    import mpmath

    values = []
    for digits in (LOW, HIGH):
        with mpmath.workdps(digits):
            args = [mpmath.mpf(int(point[n].p)) / int(point[n].q) for n in names]
            values.append([_mp_real(v) for v in function(*args)])
    if any(v is None for row in values for v in row):
        return None
    return values[0], values[1]


def _rational_valued(expr) -> bool:
    """True when ``expr`` is rational at rational points: integer powers and piecewise
    functions of rational functions (``x/abs(x)``, ``sign(x)``)."""
    import sympy as sp

    piecewise = (sp.Abs, sp.sign, sp.Heaviside, sp.floor, sp.ceiling, sp.Max, sp.Min)
    if expr.atoms(sp.NumberSymbol):
        return False
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Function) and not isinstance(node, piecewise):
            return False
        if node.is_Pow and not node.exp.is_Integer:
            return False
    return True


def _mp_real(value) -> Any:
    """An mpmath result as a finite real mpf, or None."""
    import mpmath

    if isinstance(value, mpmath.mpc):
        if value.imag != 0:
            return None
        value = value.real
    value = mpmath.mpf(value)
    return value if mpmath.isfinite(value) else None


def _shared(u, v) -> float:
    """How many leading digits ``u`` and ``v`` share (inf when equal).

    >>> _shared(1.0, 1.0), _shared(1.0, 1.001)
    (inf, 3)
    """
    import mpmath

    u, v = mpmath.mpf(u), mpmath.mpf(v)
    if u == v:
        return math.inf
    scale = max(abs(u), abs(v))
    return int(mpmath.floor(mpmath.log10(scale / abs(u - v))))


def _wall(deadline: float) -> float:
    """The wall-clock limit of a piece of work that may use the CPU seconds left before
    ``deadline`` (a :func:`time.process_time` value): SLACK times as much, more on a busy
    machine (see :func:`patient`)."""
    return patient(max(deadline - process_time(), 0.01) * SLACK)


def patient(seconds: float) -> float:
    """A wall-clock limit of ``seconds`` on an idle machine, stretched by the load per core
    beyond 2.5 (at load 16 on two cores a process gets an eighth of one), so that a busy
    machine slows a decision down rather than leaving it undecided.

    >>> patient(1.0) >= 1.0
    True
    """
    import os

    busy = os.getloadavg()[0] / (os.cpu_count() or 1) if hasattr(os, "getloadavg") else 0.0
    return seconds * max(1.0, 2 * busy / SLACK)


def _rewrites_to_zero(difference) -> bool:
    """A quick proof: the difference, with trigonometric and hyperbolic functions written
    as exponentials, expands to 0 (``sin(2x) - 2 sin(x) cos(x)`` in milliseconds, where
    ``simplify`` takes a tenth of a second)."""
    import sympy as sp

    try:
        with time_limit(QUICK_SECONDS):
            return bool(sp.expand(difference.rewrite(sp.exp)) == 0)
    except _FAILURES:
        return False


def _simplifies_to_zero(difference, deadline) -> bool:
    import sympy as sp

    if deadline <= monotonic():
        return False
    try:
        with time_limit(deadline - monotonic()):
            return bool(sp.simplify(difference) == 0)
    except _FAILURES:
        return False


# --- texts ----------------------------------------------------------------------------


def _witness(point: Mapping[str, Any], yours: str, correct: str, how: str) -> Decision:
    """NOT_EQUIVALENT, with the point and both values; ``how`` says how they were found."""
    where = ", ".join(f"{name}={_point_text(v)}" for name, v in point.items())
    detail = f"differs at {where or 'every point'}: yours {yours}, correct {correct} ({how})"
    return Decision(NOT_EQUIVALENT, "exact" if how == "exact" else "high precision", detail)


def _point_text(value: Any) -> str:
    """An exact rational as people write it: a decimal when it has a short one, else p/q.

    >>> import sympy as sp
    >>> [_point_text(sp.Rational(n, d)) for n, d in [(2111, 1000), (-1, 20), (1, 3), (7, 1)]]
    ['2.111', '-0.05', '1/3', '7']
    """
    p, q = int(value.p), int(value.q)
    places = next((k for k in range(1, 41) if 10**k % q == 0), None)
    if q == 1 or places is None:
        return str(value)
    digits = str(abs(p) * (10**places // q)).rjust(places + 1, "0")
    return f"{'-' if p < 0 else ''}{digits[:-places]}.{digits[-places:]}"


def _number_text(value: Any) -> str:
    """An exact rational, short: as :func:`_point_text` when that is short, else 12
    significant digits.

    >>> import sympy as sp
    >>> _number_text(sp.Rational(-67, 20)), _number_text(sp.Rational(1, 10**40))
    ('-3.35', '1.0e-40')
    """
    import mpmath

    text = _point_text(value)
    if len(text) <= 24:
        return text
    with mpmath.workdps(30):
        return mpmath.nstr(mpmath.mpf(int(value.p)) / int(value.q), 12)


def _apart(yours: Any, correct: Any, gap: Any) -> tuple[str, str]:
    """Two different numbers with enough digits (10 to 20) to show their difference to
    about 3 digits; when 20 are not enough, the second text also gives the difference.

    >>> _apart(1.00000000001, 1.0, 1e-11)
    ('1.00000000001', '1.0')
    >>> _apart(1, 1, 1e-30)
    ('1.0', '1.0, yours − correct = 1.0e-30')
    """
    import mpmath

    a, c, d = (mpmath.mpf(v) for v in (yours, correct, gap))
    scale = max(abs(a), abs(c))
    digits = max(10, int(mpmath.ceil(mpmath.log10(scale / abs(d)))) + 3)
    if digits > 20:
        return mpmath.nstr(a, 10), f"{mpmath.nstr(c, 10)}, yours − correct = {mpmath.nstr(d, 10)}"
    return mpmath.nstr(a, digits), mpmath.nstr(c, digits)
