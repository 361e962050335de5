"""Symbolic derivatives with sympy, for cross-checking the tape.

sympy is imported lazily (it is the slowest import of the stack).

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> derivative(sp.floor(x) + x**2, x)
2*x
"""

from __future__ import annotations

from typing import Any


def symbol(name: str) -> Any:
    """The sympy symbol of a gradcalc variable (every variable is real).

    >>> symbol("x").is_real
    True
    """
    import sympy as sp

    return sp.Symbol(name, real=True)


def _steps(sp: Any) -> tuple:
    """The piecewise-constant functions: their derivative is 0 off their jumps."""
    return (sp.floor, sp.ceiling, sp.sign, sp.Heaviside)


def derivative(expr: Any, variable: Any, order: int = 1) -> Any:
    """``d^order expr / d variable^order``, with the derivative of a step function set to 0.

    sympy leaves ``Derivative(floor(x), x)`` unevaluated (inside a ``Subs`` for
    ``floor(x^2)``); away from the jumps (which the registry's domain rules report
    separately) it is 0, as is ``DiracDelta``.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> derivative(sp.sin(x), x, 2), derivative(sp.ceiling(x**2), x)
    (-sin(x), 0)
    >>> derivative(sp.sign(sp.acos(sp.tanh(sp.Abs(x)) / 2)), x)
    0
    """
    import sympy as sp

    result = expr
    for _ in range(order):
        result = sp.diff(result, variable)
        result = result.replace(
            lambda e: isinstance(e, sp.Derivative) and e.expr.func in _steps(sp),
            lambda e: sp.S.Zero,
        )
        result = result.replace(sp.DiracDelta, lambda *args: sp.S.Zero)
        result = result.replace(lambda e: isinstance(e, sp.Subs), lambda e: e.doit())
    return result
