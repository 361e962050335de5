"""sympy's ``str`` of many expressions of one shape, faster, to the same text.

Most of the time sympy spends printing a sum goes into ordering its terms
(``as_ordered_terms``): every term is taken apart into a coefficient and the powers of
its factors, and the terms are sorted by those powers. In a stream of jobs the sums
differ from job to job in their coefficients only (``13*x/5 + 9*y/10``, then
``4*x + 7*y/3``), and the order does not depend on them: sympy sorts by the powers, and
the coefficients only break ties between terms with the same powers. :class:`Printer`
remembers the order by the sum's *skeleton* -- its terms with their rational coefficients
taken off -- and reuses it for every sum of that skeleton. Where the coefficients could
decide the order it asks sympy every time: when two terms tie on their powers
(``x + sqrt(2)*x``: ``sqrt(2)`` counts as a coefficient), and for the two-term sums
``a + b*x`` that sympy orders by the signs of ``a`` and ``b`` (``1 - 2*x``).

>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> printer = Printer()
>>> [printer.doprint(e) for e in (13 * x / 5 + 9 * y / 10, 4 * x + 7 * y / 3)]
['13*x/5 + 9*y/10', '4*x + 7*y/3']
>>> printer.doprint(1 - 2 * x), str(1 - 2 * x)
('1 - 2*x', '1 - 2*x')

The other half of the time went into sympy's ``precedence``, which the printer asks of
every term and factor to decide its parentheses: for a product it builds the product's
negative (``could_extract_minus_sign``). :func:`fast_precedence` gives the same number
without building anything -- a product's precedence is read off its first factor, any
other kind's is remembered by its type where sympy's does not depend on the instance --
and :meth:`Printer.doprint` has sympy's string printer use it while it prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sympy import Function, Integer, Mul, Number, NumberSymbol, Rational
from sympy.printing import str as sympy_str
from sympy.printing.precedence import (
    PRECEDENCE,
    PRECEDENCE_FUNCTIONS,
    PRECEDENCE_VALUES,
    precedence,
)
from sympy.printing.str import StrPrinter

__all__ = ["REMEMBERED", "Printer", "fast_precedence"]

#: The skeletons whose order is remembered at most (then they are forgotten together).
REMEMBERED = 4096


class Printer(StrPrinter):
    """``str(expr)`` (sympy's default order of terms), with the order of each sum's terms
    remembered by the sum's skeleton."""

    def __init__(self) -> None:
        super().__init__({"order": None})
        #: by skeleton (the frozenset of the terms without their coefficients), those
        #: skeletons in sympy's order; () where the coefficients may decide it
        self.orders: dict[frozenset, tuple[Any, ...]] = {}
        #: sympy's order of the sums whose coefficients may decide it, by the sum itself
        #: (``y**2 + 1`` comes back in every job of its shape)
        self.sums: dict[Any, tuple[Any, ...]] = {}

    def doprint(self, expr: Any) -> str:
        """sympy's text of ``expr``, its string printer deciding parentheses by
        :func:`fast_precedence` (put back after, whatever happens: another thread printing
        meanwhile gets the same numbers either way)."""
        sympy_str.precedence = fast_precedence
        try:
            return str(super().doprint(expr))
        finally:
            sympy_str.precedence = precedence

    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        if (order or self.order) is not None or not expr.is_Add:
            return list(super()._as_ordered_terms(expr, order=order))
        terms = {term.as_coeff_Mul()[1]: term for term in expr.args}
        signed = len(expr.args) == 2 and any(
            isinstance(term, Number | NumberSymbol) for term in expr.args
        )
        if len(terms) != len(expr.args) or signed:
            return self._asked(expr)
        known = _remembered(self.orders, frozenset(terms), lambda: _order_of(expr))
        if not known:
            return self._asked(expr)
        return [terms[part] for part in known]

    def _asked(self, expr: Any) -> list[Any]:
        """sympy's order of this very sum's terms, remembered by the sum."""
        return list(_remembered(self.sums, expr, lambda: tuple(expr.as_ordered_terms())))


def _remembered(memo: dict, key: Any, make: Callable[[], Any]) -> Any:
    """``memo[key]``, made by ``make()`` the first time (the memo emptied first when it
    holds :data:`REMEMBERED` entries)."""
    if key not in memo:
        if len(memo) >= REMEMBERED:
            memo.clear()
        memo[key] = make()
    return memo[key]


def _order_of(expr: Any) -> tuple[Any, ...]:
    """The skeletons of ``expr``'s terms in sympy's order, or () when two terms tie on
    their powers (then their coefficients decide, and may differ in the next sum)."""
    terms, _ = expr.as_terms()
    key, _ = expr._parse_order(None)
    powers = [key(term)[:2] for term in terms]
    if len(set(powers)) != len(powers):
        return ()
    return tuple(term.as_coeff_Mul()[1] for term in expr.as_ordered_terms())


_ADD, _MUL, _ATOM = PRECEDENCE["Add"], PRECEDENCE["Mul"], PRECEDENCE["Atom"]
#: sympy's precedence by type, for the types where it does not depend on the instance
_BY_TYPE: dict[type, int] = {}


def fast_precedence(item: Any) -> int:
    """sympy's ``precedence(item)`` (how tightly the string printer binds it), the same
    number, without building ``-item`` for a product.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> [fast_precedence(e) for e in (-3 * x, 3 * x, x + 1, x**2, sp.sin(x), x)]
    [40, 50, 40, 60, 70, 1000]
    """
    kind = type(item)
    known = _BY_TYPE.get(kind)
    if known is not None:
        return known
    if kind is Mul:
        return _product_precedence(item)
    if isinstance(item, Rational) and not hasattr(kind, "precedence"):
        # sympy's precedence_Integer and precedence_Rational
        return _ADD if item.p < 0 else _ATOM if isinstance(item, Integer) else _MUL
    value = int(precedence(item))
    if _same_for_every(kind):
        _BY_TYPE[kind] = value
    return value


def _product_precedence(product: Any) -> int:
    """sympy's ``precedence_Mul``: a Mul's like a sum's (a sign to take out) when its first
    factor is a negative number. sympy asks ``could_extract_minus_sign``, which builds
    ``-product`` to compare (only ``zoo*x`` equals its negative); with a rational first
    factor the answer is its sign, with no number first it is no."""
    args = product.args
    if any(isinstance(a, Function) and getattr(a, "precedence", _MUL) < _MUL for a in args):
        return _MUL
    first = args[0]
    if first.is_Rational:
        return _ADD if first.p < 0 else _MUL
    if not first.is_Number:
        return _MUL
    return int(precedence(product))  # a float or an infinity first: as sympy decides


def _same_for_every(kind: type) -> bool:
    """Whether sympy's precedence is one number for every instance of ``kind``: no
    ``precedence`` attribute, and a fixed value met before any per-instance rule on the way
    up its classes (as ``precedence`` looks)."""
    if hasattr(kind, "precedence"):
        return False
    for base in kind.__mro__:
        if base.__name__ in PRECEDENCE_FUNCTIONS:
            return False
        if base.__name__ in PRECEDENCE_VALUES:
            return True
    return True
