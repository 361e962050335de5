"""Odd roots of negative numbers: the reading a student may mean.

gradcalc reads ``x^(2/3)`` as the principal power, undefined for x < 0 (as numpy and sympy
do); many calculus texts read it as the real cube root squared, 4 at x = -8. An answer that
is undefined at a point only under the first reading, and right there under the second, is
neither right nor wrong until the reading is said: ``check`` calls it undecided and says how
to write the real root (``cbrt(x)^2``), instead of a ✗ that rests on a convention.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> real_root_reading(1 / (3 * x ** sp.Rational(2, 3)))
1/(3*Abs(x)**(2/3)*sign(x)**2)
>>> real_root_reading(x ** sp.Rational(1, 2)) is None  # an even root has no real reading
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gradcalc.core.budget import CheckTimeout
from gradcalc.core.budget import symbolic_limit as time_limit

__all__ = ["agrees_as_real_root", "has_odd_root", "real_root_reading"]

DIGITS = 40  # digits to which the two are compared
SECONDS = 1.0


def real_root_reading(expr: Any) -> Any | None:
    """``expr`` with each power to p/q, q odd (q > 1), taken as the real q-th root of the
    p-th power: sign(b)^p·|b|^(p/q). None when it has no such power.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> real_root_reading(x ** sp.Rational(1, 3)).subs(x, -8)
    -2
    """
    import sympy as sp

    if not has_odd_root(expr):
        return None
    return expr.replace(_odd_root, lambda e: sp.sign(e.base) ** e.exp.p * sp.Abs(e.base) ** e.exp)


def has_odd_root(expr: Any) -> bool:
    """Has ``expr`` a power to p/q, q odd (q > 1): real for a negative base in a textbook
    (the real root), not in gradcalc's reading (the principal power)?

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> has_odd_root(x ** sp.Rational(2, 3)), has_odd_root(sp.sqrt(x))
    (True, False)
    """
    import sympy as sp

    return expr.has(sp.Pow) and any(_odd_root(e) for e in sp.preorder_traversal(expr))


def _odd_root(e: Any) -> bool:
    return bool(e.is_Pow and e.exp.is_Rational and e.exp.q > 1 and e.exp.q % 2 == 1)


def agrees_as_real_root(answer: Any, truth: Any, point: Mapping[Any, Any]) -> bool:
    """Whether ``answer``, read with real odd roots, is a finite real number equal to
    ``truth`` at ``point`` (symbol -> exact value), to 40 digits.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> truth = sp.sign(x) / (3 * sp.Abs(x) ** sp.Rational(2, 3)) * sp.sign(x)
    >>> agrees_as_real_root(1 / (3 * x ** sp.Rational(2, 3)), truth, {x: -8})
    True
    >>> agrees_as_real_root(x ** sp.Rational(2, 3) / 3, truth, {x: -8})
    False
    """
    real = real_root_reading(answer)
    if real is None:
        return False
    try:
        with time_limit(SECONDS):
            mine = complex(real.xreplace(dict(point)).evalf(DIGITS))
            correct = complex(truth.xreplace(dict(point)).evalf(DIGITS))
    except (CheckTimeout, TypeError, ValueError, ArithmeticError, RecursionError):
        return False
    if mine.imag != 0 or correct.imag != 0 or not abs(mine.real) < float("inf"):
        return False
    return abs(mine.real - correct.real) <= 1e-30 * (1 + abs(correct.real))
