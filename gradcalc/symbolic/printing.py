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
"""

from __future__ import annotations

from typing import Any

from sympy import Number, NumberSymbol
from sympy.printing.str import StrPrinter

__all__ = ["REMEMBERED", "Printer"]

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

    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        if (order or self.order) is not None or not expr.is_Add:
            return list(super()._as_ordered_terms(expr, order=order))
        terms = {term.as_coeff_Mul()[1]: term for term in expr.args}
        signed = len(expr.args) == 2 and any(
            isinstance(term, Number | NumberSymbol) for term in expr.args
        )
        if len(terms) != len(expr.args) or signed:
            return list(expr.as_ordered_terms())
        skeleton = frozenset(terms)
        if skeleton not in self.orders:
            if len(self.orders) >= REMEMBERED:
                self.orders.clear()
            self.orders[skeleton] = _order_of(expr)
        known = self.orders[skeleton]
        if not known:
            return list(expr.as_ordered_terms())
        return [terms[part] for part in known]


def _order_of(expr: Any) -> tuple[Any, ...]:
    """The skeletons of ``expr``'s terms in sympy's order, or () when two terms tie on
    their powers (then their coefficients decide, and may differ in the next sum)."""
    terms, _ = expr.as_terms()
    key, _ = expr._parse_order(None)
    powers = [key(term)[:2] for term in terms]
    if len(set(powers)) != len(powers):
        return ()
    return tuple(term.as_coeff_Mul()[1] for term in expr.as_ordered_terms())
