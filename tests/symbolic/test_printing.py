"""symbolic.translate.printing: the remembering printer gives ``str(expr)``, sympy's own text, for
every
expression of a stream -- sums of one skeleton with many coefficients (the remembered
order), ties that coefficients decide, and the signed two-term sums sympy orders by sign --
and its precedence is sympy's for every part of such expressions."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.printing import str as sympy_str
from sympy.printing.precedence import precedence

from gradcalc.symbolic.translate.printing import Printer, fast_precedence

X, Y, Z = sp.symbols("x y z", real=True)
FACTORS = [
    X,
    Y,
    X**2,
    Y**3,
    X * Z,
    sp.exp(X),
    sp.exp(-X / 2),
    sp.sin(Y),
    sp.cos(X * Y),
    sp.sqrt(X),
    sp.sqrt(1 + X**2),
    sp.log(1 + Y**2),
    sp.tanh(X - Y),
    sp.pi,
    sp.sqrt(2),
    sp.E,
    1 / (1 + X**2),
    1 / X,
    Y**-3,
    X / (X + Y) ** 2,
    sp.exp(X) / sp.sin(Y),
    sp.Abs(X - 1),
    sp.atan2(Y, X),
    sp.Float("2.5") * X,
]
COEFFICIENTS = st.one_of(
    st.integers(-(10**9), 10**9).filter(bool),
    st.builds(sp.Rational, st.integers(-50, 50).filter(bool), st.integers(1, 12)),
)
#: a skeleton: terms, each a product of up to three factors (indices into FACTORS)
SKELETONS = st.lists(
    st.lists(st.integers(0, len(FACTORS) - 1), min_size=0, max_size=3), min_size=1, max_size=6
)


def build(skeleton: list[list[int]], coefficients: list) -> sp.Expr:
    return sp.Add(
        *(c * sp.Mul(*(FACTORS[i] for i in term)) for term, c in zip(skeleton, coefficients))
    )


@settings(max_examples=100, deadline=None)
@given(SKELETONS, st.data())
def test_a_stream_of_one_skeleton_prints_as_sympy_does(skeleton, data) -> None:
    printer = Printer()
    for _ in range(4):  # the same skeleton, new coefficients: the remembered order is reused
        coefficients = data.draw(
            st.lists(COEFFICIENTS, min_size=len(skeleton), max_size=len(skeleton))
        )
        expr = build(skeleton, coefficients)
        assert printer.doprint(expr) == str(expr)
        nested = sp.exp(expr) * X + sp.sin(expr + Y)  # sums inside functions and powers
        assert printer.doprint(nested) == str(nested)


def test_terms_that_tie_on_their_powers_are_ordered_by_sympy_each_time() -> None:
    # x and sqrt(2)*x have the same powers: the coefficients decide (1 < 1.41 < 3)
    printer = Printer()
    for expr in (X + sp.sqrt(2) * X, 3 * X + sp.sqrt(2) * X, -5 * X + sp.sqrt(2) * X):
        assert printer.doprint(expr) == str(expr)
    assert str(X + sp.sqrt(2) * X) != str(3 * X + sp.sqrt(2) * X).replace("3*", "")


def test_two_term_sums_ordered_by_sign_are_asked_each_time() -> None:
    printer = Printer()
    texts = [printer.doprint(e) for e in (1 - 2 * X, -1 + 2 * X, 3 + 5 * X, sp.pi - X)]
    assert texts == ["1 - 2*x", "2*x - 1", "5*x + 3", "pi - x"]


@settings(max_examples=100, deadline=None)
@given(SKELETONS, st.data())
def test_the_fast_precedence_is_sympys_for_every_part(skeleton, data) -> None:
    coefficients = data.draw(st.lists(COEFFICIENTS, min_size=len(skeleton), max_size=len(skeleton)))
    expr = build(skeleton, coefficients)
    for whole in (expr, -expr, expr * X, sp.sin(expr) / expr, sp.zoo * X, -sp.oo * X):
        for part in sp.preorder_traversal(whole):
            assert fast_precedence(part) == precedence(part), part


def test_sympys_own_precedence_is_back_after_printing_even_after_an_error() -> None:
    printer = Printer()
    assert printer.doprint(-3 * X / 2 + Y) == "-3*x/2 + y"
    assert sympy_str.precedence is precedence

    class Unprintable(sp.Symbol):
        def _sympystr(self, printer):
            raise RuntimeError("no text")

    with pytest.raises(RuntimeError, match="no text"):
        printer.doprint(X + Unprintable("u"))
    assert sympy_str.precedence is precedence
