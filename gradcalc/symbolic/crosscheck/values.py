"""sympy's values as the check uses them: the tolerance rule (when the tape's number agrees
with sympy's), sympy's value to 50 digits where it is not exact, an exact value's float and text.

The rule, one for every comparison of the tape with sympy (gradients, Hessians, orders,
directions, tensors):

- Where sympy's value is exact or computed to 50 digits (the *truth*), the tape agrees when
  ``|tape - truth| <= rtol·|truth|``: relative to the truth, with no absolute tolerance that
  lets a relatively large error pass. The tape's -6.6e-24 for d/dx (sqrt(x+1) - sqrt(x)) at
  x = 1e15, where the truth is -7.9e-24, is 16% off and fails: float64 lost its digits to
  cancellation there.
- Two slacks, each for what float64 cannot hold: where the truth is exactly 0, the tape's
  rounding residue up to :data:`ZERO_ATOL` (the tape's cos(pi/2) is 6.1e-17), or of larger
  terms (:func:`.confirm.zero_residues`); where the truth is below
  float64's smallest normal number (:data:`TINY`, 2.2e-308: subnormals carry fewer digits), a
  difference up to that number.
- A point typed that float64 cannot hold (``pi/2``, ``0.1``) reaches the tape rounded; where
  the tape parts from the exact value at the point typed but agrees, by the same rule, with
  the derivative at the float64 point it was given (to 50 digits), it agrees: the difference
  is the point's rounding (:func:`.confirm.rounded_points`; the meaning says so).
- Where sympy's value is itself a float64 (its derivative evaluated in floats at many points:
  evidence, not a proof), a point agrees within ``rtol`` of the larger of the two plus
  :data:`ZERO_ATOL`; a point outside that is evaluated again at high precision and then
  judged by the rule above. So is a sample of the points inside it
  (:func:`sample_at_high_precision`): where float64 cancels, sympy's floats cancel as the
  tape's do, and the two agree on the same wrong number.

>>> agrees(np.array([-6.617e-24, 6.1e-17, 0.5]), np.array([-7.906e-24, 0.0, 0.5])).tolist()
[False, True, True]
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gradcalc.lang.graph import lower
from gradcalc.lang.literals import DECIMAL
from gradcalc.lang.parser import parse_constant
from gradcalc.lang.syntax import Program, Statement
from gradcalc.symbolic.translate.convert import to_sympy
from gradcalc.symbolic.translate.notation import user_text

__all__ = [
    "DIGITS",
    "RTOL",
    "SAMPLE",
    "SAMPLE_SHARE",
    "SHORT_EXACT",
    "TINY",
    "ZERO_ATOL",
    "agrees",
    "at_high_precision",
    "at_nearest_floats",
    "exact_value",
    "high_precision",
    "mismatch",
    "off_by",
    "precise_values",
    "real_value",
    "relative_error",
    "sample_at_high_precision",
    "sample_points",
    "short_text",
    "tape_column",
]

RTOL = 1e-7
#: The slack where the truth is exactly 0: the tape's rounding residue (cos(pi/2) = 6.1e-17).
ZERO_ATOL = 1e-12
#: float64's smallest normal number: below it a float has fewer than 16 digits to be right in.
TINY = float(np.finfo(float).tiny)
#: The digits of sympy's value where the exact one is out of reach.
DIGITS = 50
SHORT_EXACT = 32  # exact values longer than this are shown as decimals unless --exact
#: Points of a chunk where the tape agrees with sympy's derivative in floats that are
#: evaluated again to DIGITS digits: float64 sympy cancels as the tape does.
SAMPLE = 16
#: The share of the check's time (``--check-timeout``) that the sample may take, per request.
SAMPLE_SHARE = 0.2


def relative_error(tape: Any, truth: Any) -> np.ndarray:
    """How far ``tape`` is from ``truth`` beyond the slack (:data:`ZERO_ATOL` where the truth
    is 0, else :data:`TINY`), relative to ``|truth|``: 0 within the slack, infinite where
    the truth is 0 and the tape beyond it, NaN where either is NaN.

    >>> relative_error(np.array([1.1, 1e-13, 3e-308]), np.array([1.0, 0.0, 1e-308])).tolist()
    [0.10000000000000009, 0.0, 0.0]
    """
    tape, truth = np.asarray(tape, dtype=float), np.asarray(truth, dtype=float)
    with np.errstate(all="ignore"):
        slack = np.where(truth == 0, ZERO_ATOL, TINY)
        beyond = np.maximum(np.abs(tape - truth) - slack, 0.0)
        error = np.where(beyond == 0, 0.0, beyond / np.abs(truth))
    return np.where(np.isnan(tape) | np.isnan(truth), np.nan, error)


def agrees(tape: Any, truth: Any, rtol: float = RTOL, confirmed: Any = True) -> np.ndarray:
    """Per point: whether the tape agrees with ``truth``. ``confirmed`` (per point, or one
    for all) says where the truth is exact or high-precision; elsewhere it is a float64
    evaluation of sympy's derivative, judged within ``rtol`` of the larger plus ZERO_ATOL.

    >>> agrees(np.array([1e-13, 1.0 + 1e-9]), np.array([2e-13, 1.0])).tolist()
    [False, True]
    >>> agrees(np.array([1e-13, 1.0]), np.array([2e-13, 1.0]), confirmed=False).tolist()
    [True, True]
    """
    if confirmed is True:
        return relative_error(tape, truth) <= rtol
    tape, truth = np.asarray(tape, dtype=float), np.asarray(truth, dtype=float)
    with np.errstate(all="ignore"):
        scale = np.maximum(np.abs(truth), np.abs(tape))
        loose = np.abs(tape - truth) <= rtol * scale + ZERO_ATOL
    if confirmed is False:  # (a float64 check of many points: the strict pass is not read)
        return loose
    return np.where(confirmed, relative_error(tape, truth) <= rtol, loose)


def high_precision(expr: Any, substitution: Mapping[Any, Any]) -> float:
    """``expr`` at a point (symbol -> exact sympy number) by sympy's adaptive ``evalf`` to
    :data:`DIGITS` digits, as a float: where the exact value would be too large to build
    (``(1 + x)^(1/x)`` at x = 1e-10 is a power of 10^10). Raises ``ValueError`` where evalf
    cannot give those digits or the value is not a real number.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> high_precision(sp.diff((1 + x) ** (1 / x), x), {x: sp.Rational(1, 10**10)})
    -1.3591409139803468
    """
    import sympy as sp

    from gradcalc.symbolic.decide.precision import EVALF_MAX_DIGITS

    try:
        value = expr.evalf(DIGITS, subs=dict(substitution), strict=True, maxn=EVALF_MAX_DIGITS)
    except sp.core.evalf.PrecisionExhausted as failure:
        raise ValueError(f"{DIGITS} digits of the value are out of evalf's reach") from failure
    if not (value.is_number and value.is_real and value.is_finite):
        raise ValueError("the value at the point is not a finite real number")
    return float(value)


def at_nearest_floats(
    expr: Any, exact: Mapping[Any, Any], floats: Mapping[Any, float]
) -> float | None:
    """``expr`` to :data:`DIGITS` digits at the float64 point the tape was given (``floats``,
    symbol -> float), where that is not the ``exact`` point typed (``pi/2`` and
    ``1.5707963267948966`` are not float64 numbers); None where it is, or evalf cannot.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> typed = 1.5707963267948966  # (as a decimal: cos is 1.9e-17, not the float's 6.1e-17)
    >>> at_nearest_floats(sp.cos(x), {x: sp.Rational(str(typed))}, {x: typed})
    6.123233995736766e-17
    >>> at_nearest_floats(sp.cos(x), {x: sp.Rational(1, 2)}, {x: 0.5}) is None
    True
    """
    import sympy as sp

    nearest = {s: sp.Rational(float(floats[s])) for s in exact}
    if all(nearest[s] == exact[s] for s in exact):
        return None
    try:
        return high_precision(expr, nearest)
    except (ValueError, TypeError, ArithmeticError):
        return None


def precise_values(forms: Sequence[Any], symbols: Sequence[Any], point: Sequence[float]) -> list:
    """``forms`` (sympy expressions of ``symbols``) at ``point`` (floats, taken as the exact
    rationals they are) with mpmath at 60 and at 120 digits -- at 400 and 800 where those
    share fewer than 15 digits (cancellation) -- as floats. A 0 there tells nothing (every
    digit may be lost), so 0 is found exactly instead: where the form at the point's exact
    rationals is sympy's 0 (``Heaviside(-3)``, ``x - x``). ``None`` where a value is not a
    finite real, or the precisions never share 15 digits and it is not exactly 0. What
    float64 cannot evaluate (``exp(1000)/(exp(1000) + exp(1000))`` is inf/inf) mpmath can.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> s = 1 / (1 + 2 * sp.exp(-x))  # 1 - s is 8.9e-309 at 710: 60 digits see 0
    >>> forms = [sp.exp(x) / (2 * sp.exp(x)), s * (1 - s), sp.sqrt(-x), sp.Heaviside(-x)]
    >>> precise_values(forms, [x], [710.0])
    [0.5, 8.95257245135026e-309, None, 0.0]
    """
    import sympy as sp

    from gradcalc.symbolic.decide.precision import EVALF_MAX_DIGITS, HIGH, LOW, mp_function

    function = mp_function(list(symbols), list(forms))
    found: list[float | None] = [None] * len(forms)
    for digits in ((LOW, HIGH), (EVALF_MAX_DIGITS, 2 * EVALF_MAX_DIGITS)):
        values = _at_two_precisions(function, point, digits)
        found = [old if old is not None else new for old, new in zip(found, values)]
        if all(value is not None for value in found):
            return found
    exact = {symbol: sp.Rational(float(value)) for symbol, value in zip(symbols, point)}
    return [
        0.0 if value is None and forms[k].xreplace(exact) == 0 else value
        for k, value in enumerate(found)
    ]


def _at_two_precisions(function: Any, point: Sequence[float], digits: tuple[int, int]) -> list:
    """``function``'s values at ``point`` where the two precisions share 15 digits and are
    not 0: a fixed precision can lose every digit and give an exact 0 at both (1 - s for
    s = 1 - 1e-309), so a 0 tells nothing."""
    import mpmath

    from gradcalc.symbolic.decide.precision import rows_at, shared_digits

    exact = [mpmath.mpf(float(value)) for value in point]  # (a float's exact value: any digits)
    rows = rows_at(function, lambda: exact, digits)
    with mpmath.workdps(max(digits)):
        return [
            None if not (low and high) or shared_digits(low, high) < 15 else float(high)
            for low, high in zip(*rows)
        ]


def off_by(label: str, tape: float, truth: float, how: str, rtol: float = RTOL) -> str:
    """Why a component failed, in words: the tape's number, the true one (``how``: "exact",
    "high-precision"), how far apart, and the likely cause.

    >>> print(off_by("∂f/∂x", -6.617444900424222e-24, -7.905694150420942e-24, "exact"))
    the tape and sympy disagree: ∂f/∂x: the tape's -6.617444900424222e-24 is 16% off the
    exact value -7.905694150420942e-24 (the check allows rtol 1e-7). The exact value is the
    derivative: float64 lost the tape's digits here (cancellation: ...), or gradcalc has a bug
    >>> off_by("∂f/∂x", -2250.5, -1.359, "exact").split(": ")[2].split(" (the")[0]
    "the tape's -2250.5 is off the exact value -1.359 by 1.7e+03 times its size"
    >>> off_by("∂f/∂x", 2e-9, 0.0, "exact").split(": ")[2].split(". ")[0]
    "the tape's 2e-9 is not the exact value 0 (the check allows 1e-12 of rounding)"
    >>> off_by("∂f/∂x", 0.0, 3e-200, "exact").split("; ")[1]
    'or underflow: a part below 1e-308 became 0, as x^2 at x = 1e-200'
    """
    from gradcalc.core.numbers import format_number

    error = float(relative_error(tape, truth))
    value = f"the {how} value {format_number(truth)}"
    if truth == 0:
        apart = f"is not {value} (the check allows {ZERO_ATOL:.0e} of rounding)"
    elif error < 0.01:
        apart = f"is {error:.2g} (relative) off {value} (the check allows rtol {rtol:.0e})"
    elif error < 10:
        apart = f"is {error:.0%} off {value} (the check allows rtol {rtol:.0e})"
    else:
        apart = f"is off {value} by {error:.2g} times its size (the check allows rtol {rtol:.0e})"
    underflow = "; or underflow: a part below 1e-308 became 0, as x^2 at x = 1e-200"
    cause = (
        "(cancellation: subtracting nearly equal numbers, as sqrt(x + 1) - sqrt(x) at large "
        f"x{underflow if tape == 0 and truth != 0 else ''}; or an ill-conditioned point)"
    )
    return (
        f"the tape and sympy disagree: {label}: the tape's {format_number(tape)} {apart}. "
        f"The {how} value is the derivative: float64 lost the tape's digits here {cause}, or "
        "gradcalc has a bug"
    ).replace("e-0", "e-")


def real_value(exact: Any) -> float:
    """An exact sympy number as a float (NaN if not real, or out of reach): a rational's
    nearest float, anything else through 30 digits evalf vouches for (``1 - tanh(200)^2``
    cancels 174), or 0 where evalf's last digits bound it below every float.

    >>> import sympy as sp
    >>> real_value(sp.Rational(1, 3)), real_value(sp.sqrt(2)), real_value(sp.I)
    (0.3333333333333333, 1.4142135623730951, nan)
    >>> real_value(-sp.Integer(10) ** 400)
    -inf
    >>> [real_value(1 - sp.tanh(sp.Integer(x)) ** 2) for x in (200, 10**10)]
    [7.660678386856023e-174, 0.0]
    >>> real_value(1 + sp.sinh(16) * (1 - sp.tanh(sp.cosh(16)) ** 2))  # (a part below 1e-800)
    1.0
    """
    import mpmath
    import sympy as sp

    from gradcalc.symbolic.decide.precision import EVALF_MAX_DIGITS

    if exact.is_Rational:
        try:
            return int(exact.p) / int(exact.q)
        except OverflowError:
            return math.inf if exact.p > 0 else -math.inf
    try:
        number = complex(exact.evalf(30, strict=True, maxn=EVALF_MAX_DIGITS))
    except sp.core.evalf.PrecisionExhausted:  # no digit known of a part (1 - tanh(cosh(16))^2):
        bound = exact.evalf(EVALF_MAX_DIGITS, maxn=EVALF_MAX_DIGITS)  # its magnitude bounds it
        if bound.is_Float and abs(mpmath.mpf(bound._mpf_)) < mpmath.mpf("5e-325"):
            return 0.0
        half = exact.evalf(EVALF_MAX_DIGITS // 2, maxn=EVALF_MAX_DIGITS // 2)  # (the rest: the
        same = bound.is_Float and half.is_Float and abs(bound - half) <= 1e-25 * abs(bound)
        return float(bound) if same else np.nan  # value where two precisions agree on it)
    return number.real if number.imag == 0 else np.nan


def short_text(exact: Any, long_text: bool) -> str | None:
    """An exact value's text when it is at most :data:`SHORT_EXACT` characters (any length
    with ``long_text``); a long rational is not printed to find out.

    >>> import sympy as sp
    >>> short_text(sp.pi**2 / 4, False), short_text(sp.Integer(7) ** 99, False)
    ('pi^2/4', None)
    """
    if not long_text and exact.is_Rational:
        bits = int(exact.p).bit_length() + int(exact.q).bit_length()
        if bits > 4 * SHORT_EXACT:  # more than SHORT_EXACT digits in all
            return None
    elif not long_text and _more_nodes(exact, 2 * SHORT_EXACT):  # -x: 3 nodes, 2 characters
        return None
    text = user_text(exact)
    return text if long_text or len(text) <= SHORT_EXACT else None


def _more_nodes(expr: Any, limit: int) -> bool:
    """Whether the expression tree has more than ``limit`` nodes (counted up to the limit).

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> _more_nodes(sp.sin(x) + 1, 3), _more_nodes(sp.sin(x) + 1, 4)
    (True, False)
    """
    stack, count = [expr], 0
    while stack:
        count += 1
        if count > limit:
            return True
        stack.extend(stack.pop().args)
    return False


def exact_value(text: str, beyond_float: bool = False) -> Any:
    """The exact sympy value of a constant (``pi/4``), past float64 with ``beyond_float``.

    >>> exact_value("pi/4"), exact_value("-1e-3"), exact_value("2e^4913", beyond_float=True)
    (pi/4, -1/1000, 2*exp(4913))
    """
    import sympy as sp

    if DECIMAL.fullmatch(text):  # a plain number: its exact rational value
        return sp.Rational(text)
    graph = lower(Program(text, (Statement(None, parse_constant(text, beyond_float), 0),)))
    return to_sympy(graph)[graph.targets[0]]


def tape_column(tape: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    """The tape's values of a component (``None``: an unconnected source, 0) in ``shape``."""
    return np.zeros(shape) if tape is None else np.asarray(tape)


def mismatch(tape: np.ndarray, truth: np.ndarray, skip: np.ndarray, confirmed) -> np.ndarray:
    """Where the tape and sympy's values part by more than the tolerance rule allows
    (:func:`~gradcalc.symbolic.crosscheck.tolerance.agrees`; ``confirmed``: where sympy's
    values are exact or high-precision)."""
    return ~agrees(tape, truth, RTOL, confirmed) & ~skip


def sample_points(candidates: np.ndarray, scores: Sequence[Any], count: int = SAMPLE) -> list[int]:
    """Up to ``count`` flat indices of the ``candidates`` (a mask), chosen the same way every
    time and spread over them, most telling first: the first, the last, where each score is
    largest in size (among the candidates, finite), then evenly spaced ones.

    >>> mask = np.array([False, True, True, True, True, True, True, False])
    >>> sample_points(mask, [np.array([0, 1, 9, 2, 3, 4, 5, 99.0])], count=5)
    [1, 6, 2, 3, 5]
    >>> sample_points(mask, [], count=10)
    [1, 2, 3, 4, 5, 6]
    """
    where = np.flatnonzero(np.asarray(candidates, dtype=bool).reshape(-1))
    if where.size <= count:
        return where.tolist()
    chosen = dict.fromkeys([int(where[0]), int(where[-1])])
    for score in scores:
        size = np.abs(np.asarray(score, dtype=float).reshape(-1)[where])
        if np.isfinite(size).any():
            chosen[int(where[np.argmax(np.where(np.isfinite(size), size, -1.0))])] = None
    chosen = dict.fromkeys(list(chosen)[:count])
    free = np.setdiff1d(where, list(chosen))  # (sorted; more of them than the places left)
    for i in np.linspace(0, free.size - 1, count - len(chosen)).round().astype(int):
        chosen[int(free[i])] = None
    return list(chosen)


def at_high_precision(
    forms: Mapping[str, Any], points: Sequence[Mapping[Any, Any]], seconds: float
) -> tuple[list[dict[str, float]], bool]:
    """``forms`` ({label: sympy expression}) to :data:`DIGITS` digits (:func:`high_precision`)
    at each of ``points`` (symbol -> exact sympy number) in turn, within ``seconds`` of the
    request's symbolic budget: per point finished, ``{label: value}`` (a label left out where
    evalf cannot give a finite real), and whether the time ran out before the last point.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> forms = {"x": sp.diff(sp.sqrt(x + 1) - sp.sqrt(x), x), "y": sp.log(x)}
    >>> at_high_precision(forms, [{x: sp.Integer(10**15)}, {x: sp.Integer(-1)}], 5.0)
    ([{'x': -7.905694150420942e-24, 'y': 34.538776394910684}, {}], False)
    """
    from gradcalc.core.budget import CheckTimeout, symbolic_limit

    found: list[dict[str, float]] = []
    try:
        with symbolic_limit(seconds):
            for point in points:
                values = {}
                for label, form in forms.items():
                    try:
                        values[label] = high_precision(form, point)
                    except (ValueError, TypeError, ArithmeticError, MemoryError, RecursionError):
                        continue  # (that label stays as it was at this point)
                found.append(values)
    except CheckTimeout:
        return found, True
    return found, False


def sample_at_high_precision(
    partials, forms, tape_values, where, account: dict
) -> tuple[int, bool]:
    """Where the tape agrees with sympy's derivative evaluated in floats (many points), that
    is no evidence where float64 cancels: sympy's floats cancel as the tape's do
    (``sqrt(x+1) - sqrt(x)`` at 1e15: the same wrong number twice). A sample of those points
    (:func:`sample_points`: scored by the target's value and the tape's largest component)
    is evaluated again to :data:`DIGITS` digits at the float64 point the tape was given, and
    kept in the partials as confirmed, to be judged by the rule of exact values.

    ``where`` is the check's :class:`~gradcalc.symbolic.crosscheck.crosscheck.CheckInput`;
    ``account`` (kept with the graph) what the sample spent in this request: all chunks
    together take at most :data:`SAMPLE_SHARE` of ``where.timeout``. Returns how many points
    are now confirmed in every label (sampled, or confirmed before), and whether the time
    ran out first."""
    import sympy as sp

    from gradcalc.core.budget import MIN_PIECE, current

    if account.get("request") is not current():  # (a new request: nothing spent yet)
        account.update(request=current(), spent=0.0)
    seconds = max(SAMPLE_SHARE * where.timeout - account["spent"], 0.0)  # (timeout 0: none)
    spent = where.timeout > 0 and seconds < MIN_PIECE
    shape = where.skip.shape
    columns = {sp.Symbol(n, real=True): _flat(where.point[n], shape) for n in where.point}
    chosen = [] if spent else sample_points(*_candidates(partials, tape_values, where, columns))
    points = [{s: sp.Rational(float(c[k])) for s, c in columns.items()} for k in chosen]
    start = time.monotonic()
    try:
        found, cut = at_high_precision(forms, points, seconds)
    finally:
        account["spent"] += time.monotonic() - start
    every = ~np.broadcast_to(where.skip, shape).reshape(-1)
    for source, partial in partials.items():
        values = np.array(np.broadcast_to(partial.values, shape), dtype=float)
        confirmed = np.array(np.broadcast_to(partial.confirmed, shape), dtype=bool)
        for k, truths in zip(chosen, found):
            if source in truths:
                values.reshape(-1)[k], confirmed.reshape(-1)[k] = truths[source], True
        partial.values, partial.confirmed = values, confirmed
        every = every & confirmed.reshape(-1)
    return int(np.count_nonzero(every)), cut or spent


def _flat(array: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``array`` as floats, broadcast to ``shape`` and flattened (a view where it can be)."""
    return np.broadcast_to(np.asarray(array, dtype=float), shape).reshape(-1)


def _candidates(partials: Any, tape_values: Any, where: Any, columns: Mapping[Any, Any]) -> tuple:
    """The points a sample is drawn from -- compared, at finite coordinates, not confirmed,
    and agreeing in floats in every label -- and its scores: the target's value (where
    known) and the tape's largest component."""
    shape = where.skip.shape
    candidates = ~np.broadcast_to(where.skip, shape).reshape(-1)
    largest = np.zeros(candidates.shape)
    for source, partial in partials.items():
        tape = _flat(tape_column(tape_values[source], shape), shape)
        confirmed = np.broadcast_to(partial.confirmed, shape).reshape(-1)
        agreeing = agrees(tape, _flat(partial.values, shape), RTOL, False)
        candidates = candidates & ~confirmed & agreeing
        largest = np.fmax(largest, np.abs(tape))
    for column in columns.values():
        candidates = candidates & np.isfinite(column)
    scores = [largest] if where.value is None else [_flat(where.value, shape), largest]
    return candidates, scores
