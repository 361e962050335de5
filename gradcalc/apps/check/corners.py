"""Critical points where the derivative does not exist: ``abs(x)`` at 0, the cusp of
``x^(2/3)`` at 0. Calculus textbooks count them (a critical number is a number of f's
domain where f' = 0 or f' does not exist); ``gradcalc critical`` solves ∇f = 0 only, so
``check --critical`` finds these itself, for a function of one variable: the candidates are
where a piecewise part switches (an abs, max, min, step or floor argument is 0) and where
the denominator of sympy's f' is 0, each solved over the reals; a candidate counts where f
is defined on both sides and its one-sided derivatives differ or are infinite. An end of
f's domain (``sqrt(x)`` at 0) is told apart: textbooks differ on it.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> [(c.point["x"], c.interior) for c in corners(sp.Abs(x - 1) + x**2, ["x"], None)]
[(1, True)]
>>> corners(sp.Abs(x) + sp.Abs(sp.Symbol("y", real=True)), ["x", "y"], None) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.symbolic.decide.defined import finite_real
from gradcalc.symbolic.decide.kinks import first_sides
from gradcalc.symbolic.decide.patience import FAILURES
from gradcalc.symbolic.decide.pieces import switch_arguments

SECONDS = 4.0  # to solve for the candidates and decide each
MAX_CANDIDATES = 50  # more than this: not all decided, so None


@dataclass(frozen=True)
class Corner:
    """A point where f is defined but f' does not exist: its exact coordinates, f's
    one-sided derivatives there (None: infinite or no limit), and whether f is defined on
    both sides (an interior point) or only on one (an end of its domain)."""

    point: dict[str, Any]
    sides: tuple[float | None, float | None]
    interior: bool


def nondifferentiable(f: Any, names: Sequence[str]) -> bool:
    """Can f have a point where ∇f does not exist: a piecewise part, or a power whose
    exponent is not a whole number (a root, a cusp)?

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> nondifferentiable(x ** sp.Rational(2, 3), ["x"]), nondifferentiable(x**3, ["x"])
    (True, False)
    """
    import sympy as sp

    if switch_arguments(f):
        return True
    return any(not p.exp.is_integer for p in f.atoms(sp.Pow) if p.base.free_symbols)


def corners(
    f: Any, names: Sequence[str], region: Mapping[str, tuple[float, float]] | None
) -> list[Corner] | None:
    """Every point (of ``region``, when given) where f is defined but f' does not exist,
    for f of one variable; None when they cannot all be found: several variables, a set
    sympy cannot solve or cannot list (``abs(sin(x))`` has infinitely many), or no time.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> [c.point["x"] for c in corners(sp.Abs(x**2 - 4), ["x"], {"x": (0.0, 3.0)})]
    [2]
    >>> corners(x ** sp.Rational(2, 3), ["x"], None)[0].interior  # x^(2/3): undefined for x < 0
    False
    """
    import sympy as sp

    if len(names) != 1 or f.atoms(sp.floor, sp.ceiling):
        return None  # (a floor switches wherever its argument is an integer)
    x = sp.Symbol(names[0], real=True)
    domain = sp.S.Reals if region is None else sp.Interval(*region[names[0]])
    try:
        with time_limit(SECONDS):
            derivative = sp.together(sp.diff(f, x))
            candidates: set[Any] = set()
            for g in [*switch_arguments(f), sp.denom(derivative)]:
                solved = sp.solveset(g, x, domain)
                if solved == sp.S.EmptySet:
                    continue
                if not isinstance(solved, sp.FiniteSet):
                    return None
                candidates |= set(solved)
            if len(candidates) > MAX_CANDIDATES:
                return None
            found = [_corner(f, names[0], c) for c in sorted(candidates, key=sp.default_sort_key)]
    except FAILURES:
        return None
    if any(c is False for c in found):
        return None  # a candidate that could not be decided
    return [c for c in found if isinstance(c, Corner)]


def _corner(f: Any, name: str, at: Any) -> Corner | bool | None:
    """The candidate ``at`` as a :class:`Corner`; None where it is not one (f undefined
    there, or differentiable); False where sympy could not tell."""
    import sympy as sp

    x = sp.Symbol(name, real=True)
    if not at.is_real or finite_real(f.xreplace({x: at})) is not True:
        return None
    sides = first_sides(f, {name: at}, [name])
    if sides is None:
        return False
    left, right = sides[name]
    if left is not None and left == right:
        return None
    return Corner({name: at}, (left, right), interior(f, {name: at}))


def interior(f: Any, point: Mapping[str, Any]) -> bool:
    """Is f defined on both sides of ``point`` along every variable (10^-20 away), not at
    an end of its domain?

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> interior(sp.Abs(x), {"x": sp.Integer(0)}), interior(sp.sqrt(x), {"x": sp.Integer(0)})
    (True, False)
    """
    import sympy as sp

    h = sp.Integer(1) / 10**20
    subs = {sp.Symbol(n, real=True): v for n, v in point.items()}
    return all(
        finite_real(f.xreplace({**subs, symbol: value + sign * h})) is True
        for symbol, value in subs.items()
        for sign in (-1, 1)
    )
