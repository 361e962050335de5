"""What a critical point is when the second-derivative test cannot say: the lowest-order terms.

At a critical point p where the Hessian is singular, f(p + h) − f(p) is written out exactly
(sympy) and its terms of lowest total order k looked at, a form H(h) of degree k:

- k odd: H(−h) = −H(h), so f − f(p) takes both signs next to p: a saddle point (of one
  variable, an inflection point: ``x^3`` at 0).
- k even and H takes both signs (two exact directions show it): a saddle point.
- k even and H positive (negative) in every direction: a strict local minimum (maximum) --
  the classical test of the first non-vanishing form. Proven where H is a sum of even powers
  with coefficients of one sign that holds every variable's own power (``x^4 + 3x^2y^2 +
  y^4``), and, in two variables, where H(1, s) has no real root.
- Otherwise H is semidefinite: along a line where it is 0 the terms of f − f(p) are
  followed further, and a sign there opposite to H's (or of odd order) is a saddle point
  (``x^2 − y^4``). A sign that agrees proves nothing -- f can be a minimum on every line
  through p and not a minimum (Peano's ``(y − x^2)(y − 2x^2)``) --, so that stays
  inconclusive, as does anything sympy cannot expand within the time given.

>>> import sympy as sp
>>> x, y = sp.symbols("x y", real=True)
>>> higher_order(x**4 + y**4, [x, y], {x: 0, y: 0}).verdict
'local minimum'
>>> higher_order(x**2 - y**4, [x, y], {x: 0, y: 0}).verdict
'saddle point'
>>> higher_order(x**2 + y**4, [x, y], {x: 0, y: 0}) is None  # (a minimum, not proven here)
True
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gradcalc.core.budget import symbolic_limit as time_limit
from gradcalc.symbolic.decide.patience import FAILURES
from gradcalc.symbolic.translate.notation import user_text

__all__ = ["MAX_ORDER", "HigherOrder", "higher_order", "inertia"]

#: Terms of f − f(p) are looked for up to this total order.
MAX_ORDER = 8
#: The directions whose exact values of H show it takes both signs: each coordinate in these.
STEPS = (-2, -1, 0, 1, 2)
SECONDS = 2.0


@dataclass(frozen=True)
class HigherOrder:
    """A verdict from the lowest-order terms: ``verdict`` (``local minimum``, ``local
    maximum``, ``saddle point`` or ``inflection point``) and ``reason``, one line saying why."""

    verdict: str
    reason: str


def higher_order(
    f: Any, symbols: Sequence[Any], point: Mapping[Any, Any], seconds: float = SECONDS
) -> HigherOrder | None:
    """The verdict at the exact critical point ``point`` (symbol -> sympy number) of ``f``
    from the terms of f − f(p) of lowest order, or None when they do not decide it (or sympy
    cannot find them within ``seconds``).

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> print(higher_order(x**3 - 3*x*y**2, [x, y], {x: 0, y: 0}).reason)
    f − f(p) begins with x^3 - 3x*y^2, of odd order 3, which changes sign with the direction
    >>> higher_order(x**3, [x], {x: 0}).verdict
    'inflection point'
    >>> print(higher_order(sp.cos(x) + x**2 / 2, [x], {x: 0}).reason)
    f − f(p) begins with x^4/24 (order 4), positive in every direction
    """
    import sympy as sp

    t = sp.Symbol("t", positive=True)
    try:
        with time_limit(seconds):
            shifted = f.subs({s: point[s] + s for s in symbols}, simultaneous=True)
            g = shifted - f.subs(point)
            order, form = _lowest(sp, g, symbols, t)
            if form is None:
                return None
            return _judged(sp, g, symbols, t, order, form)
    except FAILURES:
        return None
    except (NotImplementedError, AttributeError, sp.PolynomialError):
        return None


def _lowest(sp: Any, g: Any, symbols: Sequence[Any], t: Any) -> tuple[int, Any]:
    """The lowest total order k ≥ 2 of g's terms and their form H (a polynomial in the
    symbols); (0, None) when g has none up to :data:`MAX_ORDER`."""
    order, form = _first_term(sp, _in_powers(sp, g, {s: t * s for s in symbols}, t), t)
    if order < 2 or not form.is_polynomial(*symbols) or form.has(t):
        return 0, None
    return order, form


def _in_powers(sp: Any, g: Any, scaled: Mapping[Any, Any], t: Any) -> Any:
    """``g`` with its symbols ``scaled`` (each a multiple of t), in powers of t: expanded,
    or its series to :data:`MAX_ORDER` where it is no polynomial in t."""
    along = sp.expand(g.subs(scaled, simultaneous=True))
    return along if along.is_polynomial(t) else sp.series(along, t, 0, MAX_ORDER + 1).removeO()


def _first_term(sp: Any, along: Any, t: Any) -> tuple[int, Any]:
    """The lowest power k ≥ 1 of t (to :data:`MAX_ORDER`) with a coefficient that is not 0
    in ``along``, and that coefficient; (0, 0) when there is none."""
    for k in range(1, MAX_ORDER + 1):
        coefficient = sp.expand(along.coeff(t, k))
        if coefficient != 0:
            return k, coefficient
    return 0, sp.Integer(0)


def _judged(sp: Any, g: Any, symbols: Sequence[Any], t: Any, order: int, form: Any):
    """The verdict from the form of lowest ``order`` (see the module's docstring)."""
    shown = f"f − f(p) begins with {user_text(form)}"
    if order % 2:
        verdict = "inflection point" if len(symbols) == 1 else "saddle point"
        why = f"{shown}, of odd order {order}, which changes sign with the direction"
        return HigherOrder(verdict, why)
    signs = {_sign(form.subs(dict(zip(symbols, u)))) for u in _directions(len(symbols))}
    if {1, -1} <= signs:
        return HigherOrder("saddle point", f"{shown} (order {order}), which takes both signs")
    sign = 1 if 1 in signs else -1
    if _definite(sp, form * sign, symbols):
        kind = "local minimum" if sign > 0 else "local maximum"
        word = "positive" if sign > 0 else "negative"
        return HigherOrder(kind, f"{shown} (order {order}), {word} in every direction")
    return _along_zero(sp, g, form, symbols, t, sign, shown)


def _directions(n: int) -> list[tuple[int, ...]]:
    """Exact directions with coordinates in :data:`STEPS` (0 left out), simplest first.

    >>> _directions(2)[:4]
    [(0, 1), (1, 0), (-1, 0), (0, -1)]
    """
    every = [u for u in itertools.product(STEPS, repeat=n) if any(u)]
    return sorted(every, key=lambda u: (sum(map(abs, u)), [-c for c in u][::-1]))


def _sign(value: Any) -> int:
    return 1 if value > 0 else -1 if value < 0 else 0


def _definite(sp: Any, form: Any, symbols: Sequence[Any]) -> bool:
    """Is ``form`` positive except at 0: a sum of even powers with positive coefficients
    holding each variable's own power, or (two variables) with no real zero of form(1, s)
    and form(0, 1) > 0."""
    poly = sp.Poly(form, *symbols)
    terms = poly.terms()
    degree = poly.total_degree()
    if all(c > 0 and all(e % 2 == 0 for e in m) for m, c in terms):
        own = {i for m, _ in terms for i, e in enumerate(m) if e == degree}
        if own == set(range(len(symbols))):
            return True
    if len(symbols) != 2:
        return False
    s = sp.Symbol("s", real=True)
    line = sp.Poly(form.subs({symbols[0]: 1, symbols[1]: s}, simultaneous=True), s)
    corner = form.subs({symbols[0]: 0, symbols[1]: 1}, simultaneous=True)
    return bool(corner > 0) and not sp.real_roots(line)


def _along_zero(sp, g, form, symbols, t, sign, shown) -> HigherOrder | None:
    """Where the semidefinite ``form`` is 0 in an exact direction, the first terms of g along
    it: of odd order, or of the opposite sign, they make p a saddle point."""
    for u in _directions(len(symbols)):
        if form.subs(dict(zip(symbols, u))) != 0:
            continue
        k, c = _first_term(sp, _in_powers(sp, g, dict(zip(symbols, (t * c for c in u))), t), t)
        if k and (k % 2 or _sign(c) == -sign):
            direction = ", ".join(str(v) for v in u)
            return HigherOrder(
                "saddle point",
                f"{shown}, which is 0 in the direction ({direction}), where "
                f"f(p + t·({direction})) − f(p) begins with {user_text(c * t**k)}",
            )
    return None


def inertia(matrix: Any) -> tuple[int, int] | None:
    """How many eigenvalues of an exact symmetric matrix (rows of sympy numbers) are
    positive and how many negative, exactly: by Descartes' rule of signs on its
    characteristic polynomial, which is exact there because all its roots are real. None
    where a coefficient's sign is not known.

    >>> import sympy as sp
    >>> inertia([[sp.Rational(2, 10**13), 0], [0, 2]])  # float64 eigenvalues: 2e-13 and 2
    (2, 0)
    >>> inertia([[1, 2], [2, 1]]), inertia([[0, 0], [0, -3]])
    ((1, 1), (0, 1))
    """
    import sympy as sp

    m = sp.Matrix(matrix)
    if not m.is_square or m != m.T:
        return None
    lam = sp.Symbol("lambda")
    coefficients = sp.Poly(m.charpoly(lam).as_expr(), lam).all_coeffs()  # (highest first)
    degree = len(coefficients) - 1
    found = [_sign_of(sp, c) for c in coefficients]
    signs = [s for s in found if s is not None]
    if len(signs) < len(found):
        return None
    mirrored = [s * (-1) ** (degree - k) for k, s in enumerate(signs)]  # p(-lambda)
    return _changes(signs), _changes(mirrored)


def _sign_of(sp: Any, value: Any) -> int | None:
    if value.is_zero:
        return 0
    if value.is_positive:
        return 1
    return -1 if value.is_negative else None


def _changes(signs: Sequence[int]) -> int:
    """Sign changes along ``signs``, zeros left out."""
    nonzero = [s for s in signs if s]
    return sum(1 for a, b in itertools.pairwise(nonzero) if a != b)
