"""Arithmetic: the infix operators ``+ - * / **`` and unary minus.

Their symbols, precedences and tokens are the parser's operator table.

>>> from gradcalc.core.ops import REGISTRY
>>> REGISTRY["pow"].rule_name([True, False], nested=False)
'power rule'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from gradcalc.core.ops.domains import is_integer, kink, undefined
from gradcalc.core.ops.record import ANYWHERE, NONZERO, POSITIVE, DomainIssue, F, Op, named, through
from gradcalc.core.tensor import Tensor, is_constant


def _pow_domain(x: np.ndarray, y: np.ndarray) -> Iterable[DomainIssue]:
    yield undefined((x < 0) & ~is_integer(y), "a negative base needs an integer exponent")
    yield undefined((x == 0) & (y < 0), "0 to a negative power is undefined")
    yield kink(
        (x == 0) & (y > 0) & (y < 1),
        "a power between 0 and 1 has an infinite slope at base 0",
        arg=0,
    )
    yield kink((x <= 0), "the derivative with respect to the exponent needs a positive base", arg=1)


def _pow_propagates(position: int, constants: Sequence[np.ndarray | None]) -> bool:
    """x**c with a constant c > 0: inf**c = inf, nan**c = nan (but 2**-inf = 0, 1**nan = 1)."""
    exponent = constants[1]
    return position == 0 and exponent is not None and bool(np.all(exponent > 0))


def _base_rule(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """d(x^y)/dx = y x^(y-1); for a constant exponent 0, 1 or 2 without the power
    ``x^-1``, ``x^0`` or ``x^1``, whose own derivative (a nested tape's next order) would
    be 0 * x^-2 or 0 * x^-1: NaN at x = 0 although ``atan(x)`` is smooth there.

    >>> from gradcalc import Tape, Variable
    >>> x = Variable(0.0)
    >>> with Tape() as outer:
    ...     with Tape() as inner:
    ...         y = x**2
    ...     first = inner.gradient(y, x)
    >>> outer.gradient(first, x)
    Tensor(2.)
    """
    k = y.value.item() if y.value.size == 1 and is_constant(y) else None
    if k in (0.0, 1.0):
        return g * y
    return g * y * x if k == 2.0 else g * y * x ** (y - 1)


def _exponent_rule(g: Tensor, ans: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """d(x^y)/dy = x^y log(x); at base 0 (with y > 0) it is 0, as 0^y is 0 for every y > 0
    (log(0) is not taken: ``0 * -inf`` would be NaN). The point stays flagged as one the
    exponent's derivative needs a positive base for: with a varying base, x^y is defined
    only on one side of it (gradcalc's reading), so f's one-sided derivatives decide.

    >>> from gradcalc import Tape, Variable, constant
    >>> y = Variable(2.0)
    >>> with Tape() as tape:
    ...     z = constant(0.0) ** y
    >>> tape.gradient(z, y)
    Tensor(0.)
    """
    zero = x.value == 0
    result: Tensor = g * ans * F.log(x + Tensor(zero.astype(float)) if np.any(zero) else x)
    return result


def _product_rule(dependent: Sequence[bool], nested: bool) -> str:
    return "product rule" if all(dependent) else "constant multiple rule"


def _quotient_rule(dependent: Sequence[bool], nested: bool) -> str:
    return "quotient rule" if dependent[1] else "constant multiple rule"


#: The rule for a power whose base and exponent both depend on the source.
LOGARITHMIC = "logarithmic differentiation"


def _power_rule(dependent: Sequence[bool], nested: bool) -> str:
    if all(dependent):
        return LOGARITHMIC
    rule = "power rule" if dependent[0] else "exponential rule"
    return f"{rule} with the chain rule" if nested else rule


# ``1/inf`` is 0, so a NaN or infinity in a divisor can vanish: div propagates its first only
OPS = [
    Op("add", 2, np.add, (lambda g, ans, x, y: g, lambda g, ans, x, y: g),
       lambda sp, x, y: sp.Add(x, y), symbol="+", precedence=1, infix=("+",),
       dunders=("__add__", "__radd__"), sample=(ANYWHERE, ANYWHERE),
       propagates=through(0, 1), rule=named("sum rule"),
       array_grads=(lambda g, ans, x, y: g, lambda g, ans, x, y: g)),
    Op("sub", 2, np.subtract, (lambda g, ans, x, y: g, lambda g, ans, x, y: -g),
       lambda sp, x, y: x - y, symbol="-", precedence=1, infix=("-",),
       dunders=("__sub__", "__rsub__"), sample=(ANYWHERE, ANYWHERE),
       propagates=through(0, 1), rule=named("difference rule"),
       array_grads=(lambda g, ans, x, y: g, lambda g, ans, x, y: np.negative(g))),
    Op("mul", 2, np.multiply, (lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x),
       lambda sp, x, y: sp.Mul(x, y), symbol="*", precedence=2, infix=("*",),
       dunders=("__mul__", "__rmul__"), sample=(ANYWHERE, ANYWHERE),
       propagates=through(0, 1), rule=_product_rule,
       array_grads=(lambda g, ans, x, y: np.multiply(g, y),
                    lambda g, ans, x, y: np.multiply(g, x))),
    Op("div", 2, np.divide, (lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * ans / y),
       lambda sp, x, y: x / y, symbol="/", precedence=2, infix=("/",),
       dunders=("__truediv__", "__rtruediv__"),
       domain=lambda x, y: [undefined(y == 0, "division by zero")],
       sample=(ANYWHERE, NONZERO), propagates=through(0), rule=_quotient_rule,
       array_grads=(lambda g, ans, x, y: np.divide(g, y),
                    lambda g, ans, x, y: np.divide(np.multiply(np.negative(g), ans), y))),
    Op("neg", 1, np.negative, (lambda g, ans, x: -g,),
       lambda sp, x: -x, symbol="-", precedence=3, dunders=("__neg__",),
       propagates=through(0), rule=named("negation rule"),
       array_grads=(lambda g, ans, x: np.negative(g),)),
    Op("pow", 2, np.power,
       (_base_rule, _exponent_rule),
       lambda sp, x, y: sp.Pow(x, y), symbol="**", precedence=4, infix=("**", "^"),
       right_associative=True, dunders=("__pow__", "__rpow__"),
       domain=_pow_domain, sample=(POSITIVE, ANYWHERE), propagates=_pow_propagates,
       rule=_power_rule),
]  # fmt: skip
