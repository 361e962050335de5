"""Kinks decided on the whole expression: the one-sided derivatives of f at an exact point,
as limits of f's own difference quotients (f(x ± h) - f(x)) / ±h computed by sympy's
adaptive-precision evalf at h = 10^-20 and 10^-30 -- never the limits of a part alone.
``relu(x)^2`` at 0 has both 0 (differentiable), ``abs(sin(x))`` at pi has -1 and 1 (not),
``step(x)`` at 0 has 0 and none (a jump). :func:`at_switch` says whether a piecewise part
switches at a point in exact arithmetic (``sin(pi)`` is 0 there, not 1.2e-16).

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> one_sided(sp.Max(x, 0) ** 2, {"x": sp.Integer(0)}, ["x"])
{'x': (0.0, 0.0)}
>>> one_sided(sp.Abs(sp.sin(x)), {"x": sp.pi}, ["x"])
{'x': (-1.0, 1.0)}
>>> one_sided(sp.Heaviside(x, 0), {"x": sp.Integer(0)}, ["x"])
{'x': (0.0, None)}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.symbolic.decide.defined import finite_real
from gradcalc.symbolic.decide.patience import FAILURES
from gradcalc.symbolic.decide.pieces import switch_arguments

__all__ = ["DIGITS", "STEPS", "at_switch", "derivative_sides", "first_sides", "one_sided"]

STEPS = (20, 30)  # h = 10^-k (times the point's size when above 1)
DIGITS = 30  # significant digits of each quotient
AGREE = 1e-8  # the two quotients must agree this well (relative, or absolute near 0)
ZERO = 1e-12  # a limit smaller than this is 0 (|x|^1.5 at 0: h^0.5 is 10^-15 at h=10^-30)
SECONDS = 2.0  # for all the quotients of one point


def at_switch(expr: Any, point: Mapping[str, Any], among: Sequence[str] | None = None) -> bool:
    """Does a piecewise part of ``expr`` switch exactly at ``point`` (name -> exact sympy
    value): an abs/sign/step/max/min argument (or tie) exactly 0, a floor's an integer?
    With ``among``, only a part whose argument has one of those variables counts.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> f = sp.Abs(sp.sin(x))
    >>> at_switch(f, {"x": sp.pi}), at_switch(f, {"x": sp.Integer(3)})
    (True, False)
    >>> at_switch(f, {"x": sp.pi, "y": sp.Integer(1)}, among=["y"])
    False
    """
    import sympy as sp

    subs = {sp.Symbol(n, real=True): v for n, v in point.items()}
    wanted = None if among is None else {sp.Symbol(n, real=True) for n in among}
    stairs = {a.args[0] for a in expr.atoms(sp.floor, sp.ceiling)}
    try:
        with time_limit(SECONDS):
            for g in switch_arguments(expr):
                if wanted is not None and not g.free_symbols & wanted:
                    continue
                value = g.xreplace(subs)
                if g in stairs:
                    value = value - sp.floor(value)  # an integer: where floor switches
                if value.is_zero or (_tiny(value) and sp.simplify(value) == 0):
                    return True
    except FAILURES:
        return False
    return False


def _tiny(value: Any) -> bool:
    """Is a constant numerically 0 to 25 digits (worth a proof that it is 0)?"""
    if not value.is_number:
        return False
    approximation = value.evalf(30)
    return bool(approximation.is_real and abs(approximation) < 1e-25)


def one_sided(
    expr: Any, point: Mapping[str, Any], variables: Sequence[str]
) -> dict[str, tuple[float | None, float | None]]:
    """Each variable's (left, right) derivative of ``expr`` at ``point`` (name -> exact
    sympy value), the others held fixed; ``None`` where the quotients do not settle (an
    infinite slope, a jump) or cannot be computed in time (see :func:`first_sides`)."""
    sides = first_sides(expr, point, variables)
    return {name: (None, None) for name in variables} if sides is None else sides


def first_sides(
    expr: Any, point: Mapping[str, Any], variables: Sequence[str]
) -> dict[str, tuple[float | None, float | None]] | None:
    """:func:`one_sided`, but ``None`` when sympy could not compute them (out of time, an
    error): nothing is known then, not even that a side has no limit.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> first_sides(sp.Abs(x) * x, {"x": sp.Integer(0)}, ["x"])
    {'x': (0.0, 0.0)}
    """
    import sympy as sp

    subs = {sp.Symbol(n, real=True): v for n, v in point.items()}
    out: dict[str, tuple[float | None, float | None]] = {}
    try:
        with time_limit(SECONDS):
            base = expr.xreplace(subs)
            for name in variables:
                symbol = sp.Symbol(name, real=True)
                size = _size(point[name])
                sides = tuple(_side(expr, subs, base, symbol, sign * size) for sign in (-1, 1))
                out[name] = (sides[0], sides[1])
    except FAILURES:
        return None
    return out


def _size(value: Any) -> int:
    """The scale of the steps beside a coordinate: its integer part, at least 1."""
    import sympy as sp

    return max(1, abs(int(sp.floor(sp.Abs(value)))))


def _side(expr: Any, subs: Mapping[Any, Any], base: Any, symbol: Any, scale: int) -> float | None:
    """The limit of (f(x + h) - f(x)) / h for h = scale * 10^-k, k in STEPS; None when the
    quotients differ (no limit) or are not finite reals."""
    import sympy as sp

    quotients = []
    for k in STEPS:
        h = sp.Integer(scale) / sp.Integer(10) ** k
        moved = expr.xreplace({**subs, symbol: subs[symbol] + h})
        if finite_real(moved) is False:  # f is not real beside the point (acosh(cos(x)) at 0,
            return None  # where evalf rounds cos(10^-20) to 1 and acosh to 0)
        value = ((moved - base) / h).evalf(DIGITS)
        if not (value.is_real and value.is_finite):
            return None
        quotients.append(float(value))
    settled = _settled(*quotients)
    return (
        settled if settled is not None else _exact_side(expr, subs, base, symbol, scale, quotients)
    )


def _exact_side(expr, subs, base, symbol, scale: int, quotients: list[float]) -> float | None:
    """sympy's exact limit of the difference quotient on the side of ``scale``'s sign, where
    the quotients approach it too slowly to settle (|x|^(4/3) at 0: h^(1/3) is 2e-7 at
    h = 10^-20): taken only when finite and real and the finer quotient is the nearer one.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> f, at = sp.Abs(x) ** sp.Rational(4, 3), {x: sp.Integer(0)}
    >>> _exact_side(f, at, sp.Integer(0), x, 1, [2.15e-7, 1e-10])
    0.0
    """
    import sympy as sp

    h = sp.Symbol("h", positive=True)
    moved = expr.xreplace({**subs, symbol: subs[symbol] + scale * h})
    return _exact_limit((moved - base) / (scale * h), h, quotients)


def _exact_limit(moved: Any, h: Any, estimates: list[float]) -> float | None:
    """sympy's limit of ``moved`` as ``h`` -> 0+, where the ``estimates`` at h = 10^-20 and
    10^-30 did not settle: taken only when finite and real and the finer estimate is the
    nearer one; None otherwise.

    >>> import sympy as sp
    >>> h = sp.Symbol("h", positive=True)
    >>> _exact_limit(h ** sp.Rational(1, 3), h, [2.15e-7, 1e-10])
    0.0
    """
    import sympy as sp

    try:
        limit = sp.limit(moved, h, 0, "+")
    except (NotImplementedError, ValueError, TypeError, ArithmeticError, AttributeError):
        return None  # (sympy's limit of several functions' MRV sets is not implemented)
    if not (limit.is_real and limit.is_finite):
        return None
    value = float(limit)
    coarse, fine = (abs(q - value) for q in estimates)
    return value + 0.0 if fine < coarse else None


def derivative_sides(
    expr: Any, point: Mapping[str, Any], path: Sequence[str], prior: float | None = None
) -> tuple[float | None, float | None] | None:
    """(left, right) of the derivative of ``expr`` by ``path[0]``, then ``path[1]``, ...
    (order ``len(path)`` >= 2) at ``point``, the sides taken along ``path[-1]``: the limits
    of sympy's derivative at the point ± h, h = 10^-20 and 10^-30. By the mean value theorem
    these are the one-sided derivatives once the derivative of one order less exists at
    the point (the caller's to know) and is continuous there along ``path[-1]``: with its
    value ``prior``, a side where its own limit is not ``prior`` (a jump) has no derivative
    (``None``). ``None`` in all: undecided, because sympy ran out of time or a part whose
    argument has a variable of ``path`` switches beside the point too (there sympy's
    derivative is a convention: ``Heaviside(0) = 1/2``) -- but for a mixed derivative
    across a line of switches, decided on that line (:func:`_mixed_across`).

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> origin = {"x": sp.Integer(0), "y": sp.Integer(1)}
    >>> derivative_sides(sp.Max(x, 0) ** 2, origin, ["x", "x"])
    (0.0, 2.0)
    >>> derivative_sides(sp.Max(x, 0) ** 2 * y**2, origin, ["y", "y"], prior=0.0)
    (0.0, 0.0)
    >>> derivative_sides(sp.Max(x, 0) * y, origin, ["x", "y"]) is None
    True
    """
    import sympy as sp

    symbols = [sp.Symbol(n, real=True) for n in path]
    last, subs = symbols[-1], {sp.Symbol(n, real=True): v for n, v in point.items()}
    size = _size(point[path[-1]])
    try:
        with time_limit(SECONDS):
            for k in STEPS:
                for sign in (-1, 1):
                    beside = {**point, path[-1]: point[path[-1]] + sp.Integer(sign * size) / 10**k}
                    if at_switch(expr, beside, among=path):
                        return _mixed_across(expr, subs, symbols, prior)
            lower = sp.diff(expr, *symbols[:-1])
            derivative = sp.diff(lower, last)
            sides = [_limit(derivative, subs, last, sign * size) for sign in (-1, 1)]
            if prior is not None:
                for i, sign in enumerate((-1, 1)):
                    limit = _limit(lower, subs, last, sign * size)
                    if limit is None or _settled(limit, prior) is None:
                        sides[i] = None  # the lower derivative jumps: an infinite quotient
    except FAILURES:
        return None
    return sides[0], sides[1]


def _mixed_across(
    expr: Any, subs: Mapping[Any, Any], path: Sequence[Any], prior: float | None
) -> tuple[float, float] | None:
    """∂/∂b of ∂f/∂a at the point (``path`` = (a, b)) where a part switches all along the
    line through it in b's direction (``abs(x)^3 + x*y`` at x = 0): on that line ∂f/∂a is
    the common limit of sympy's ∂f/∂a from either side in a (by the mean value theorem, f
    being continuous across it: no step, sign or floor of a, or one whose jump a factor
    cancels, as in sign(x)·|x|^(7/3), whose limits from both sides are f on the line), a
    function of b, whose derivative at the point is the answer, as (value, value). None
    when the two limits differ, are not finite, do not give ``prior`` at the point, or
    sympy cannot take them.

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> _mixed_across(sp.Abs(x) ** 3 + x * y, {x: sp.Integer(0), y: sp.Integer(1)}, [x, y], 1.0)
    (1.0, 1.0)
    >>> _mixed_across(sp.Heaviside(x) * x * y, {x: sp.Integer(0), y: sp.Integer(1)}, [x, y], 0.0)
    """
    import sympy as sp

    if len(path) != 2 or path[0] == path[1]:
        return None
    a, b = path
    held = {s: v for s, v in subs.items() if s not in (a, b)}
    jumps = expr.atoms(sp.Heaviside, sp.sign, sp.floor, sp.ceiling, sp.Piecewise)
    if any(a in jump.free_symbols for jump in jumps) and not _continuous_across(
        expr.xreplace(held), a, subs[a]
    ):
        return None
    along = sp.diff(expr, a).xreplace(held)
    left, right = (sp.limit(along, a, subs[a], side) for side in ("-", "+"))
    if left.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or sp.simplify(left - right) != 0:
        return None
    line = {s: v for s, v in subs.items() if s is not a}
    if at_switch(right, {str(b): subs[b]}):
        return None  # ∂f/∂a on the line switches at the point itself: not decided here
    value = sp.diff(right, b).xreplace(line).evalf(DIGITS)
    start = right.xreplace(line).evalf(DIGITS)
    if not (value.is_real and value.is_finite and start.is_real and start.is_finite):
        return None
    if prior is not None and _settled(float(start), prior) is None:
        return None
    return float(value), float(value)


def _continuous_across(expr: Any, a: Any, at: Any) -> bool:
    """Are ``expr``'s limits as ``a`` -> ``at`` from both sides ``expr`` at ``a = at``
    (functions of the other variables, proven equal by sympy)?

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> _continuous_across(y * sp.sign(x) * sp.Abs(x) ** sp.Rational(7, 3), x, 0)
    True
    >>> _continuous_across(y * sp.sign(x), x, 0)
    False
    """
    import sympy as sp

    there = expr.xreplace({a: at})
    return all(sp.simplify(sp.limit(expr, a, at, side) - there) == 0 for side in "+-")


def _limit(expr: Any, subs: Mapping[Any, Any], symbol: Any, scale: int) -> float | None:
    """The limit of ``expr`` at the point from one side, from its values at
    h = scale * 10^-k -- or, where they approach it too slowly to settle (the second
    derivative of |x|^(7/3), (28/9)·|x|^(1/3), is 2e-7 at 10^-20), sympy's exact limit."""
    import sympy as sp

    values = []
    for k in STEPS:
        moved = expr.xreplace({**subs, symbol: subs[symbol] + sp.Integer(scale) / 10**k})
        value = moved.evalf(DIGITS)
        if not (value.is_real and value.is_finite):
            return None
        values.append(float(value))
    settled = _settled(*values)
    if settled is not None:
        return settled
    h = sp.Symbol("h", positive=True)
    return _exact_limit(expr.xreplace({**subs, symbol: subs[symbol] + scale * h}), h, values)


def _settled(coarse: float, fine: float) -> float | None:
    """The limit shown by the estimates at the two steps (the finer, exact to float64
    rounding: the step's error is about 10^-30 of the curvature), 0 below ZERO; None when
    they differ.

    >>> _settled(2.0 + 1e-20, 2.0), _settled(1e-10, 1e-15), _settled(1e20, 1e30)
    (2.0, 0.0, None)
    """
    if abs(coarse - fine) > AGREE * max(abs(coarse), abs(fine), 1.0):
        return None
    return 0.0 if abs(fine) < ZERO else fine + 0.0
