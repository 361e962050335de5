"""symbolic.decide.rational: rational functions decided at exact random points (Schwartz-Zippel),
and a difference found there shown at a point, exactly."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from gradcalc.symbolic.decide.decision import (
    EQUIVALENT,
    NOT_EQUIVALENT,
)
from gradcalc.symbolic.decide.equivalence import decide
from gradcalc.symbolic.decide.rational import NotRational, degree_bounds
from tests.symbolic.grids import X, Y, Z, grid


@pytest.mark.parametrize(
    ("answer", "truth"),
    [
        ((X + 1) ** 3, X**3 + 3 * X**2 + 3 * X + 1),
        ((X**2 + X) / X + Y, X + 1 + Y),
        ((X**2 - Y**2) / (X - Y), X + Y),
        (sp.pi * (X + 1) ** 2, sp.pi * X**2 + 2 * sp.pi * X + sp.pi),
        (sp.exp(2) * (X + Z) ** 2, sp.E**2 * X**2 + 2 * sp.E**2 * X * Z + sp.E**2 * Z**2),
        ((123456789 * X + 987654321 * Y) ** 3, sp.expand((123456789 * X + 987654321 * Y) ** 3)),
    ],
)
def test_rational_functions_in_other_forms_are_equivalent_at_exact_points(answer, truth) -> None:
    decision = decide(answer, truth, [X, Y, Z], [])
    assert decision.verdict == EQUIVALENT and decision.evidence == "exact points"
    bound = int(decision.detail.rsplit("10^-", 1)[1])
    assert bound >= 90  # the Schwartz-Zippel bound the verdict states


@pytest.mark.parametrize(
    "difference",
    [
        sp.Rational(1, 10**40) * X**7,  # far below what float64 could see
        math.prod(X - k for k in range(-40, 41)),  # zero at every small integer
        sp.pi * X * Y - 3 * X * Y,  # pi is not 3 (pi is an indeterminate here)
        1 / (X**2 + 1) - 1 / (X**2 + 1 + sp.Rational(1, 10**30)),
    ],
)
def test_rational_functions_that_differ_are_not_equivalent(difference) -> None:
    truth = (X + Y) ** 3 / (1 + X**2)
    small_integers = grid(("x", list(range(-40, 41))), ("y", [1] * 81))
    decision = decide(truth + difference, truth, [X, Y], small_integers)
    assert decision.verdict == NOT_EQUIVALENT and decision.evidence == "exact"
    assert decision.detail.startswith("differs at x=")


def test_degree_bounds_numerator_and_denominator() -> None:
    assert degree_bounds(X**3 * Y + 1 / X, [X, Y]) == (5, 1)
    assert degree_bounds((X + 1) ** -2, [X]) == (0, 2)
    with pytest.raises(NotRational):
        degree_bounds(sp.sin(X), [X])


def test_pi_and_e_together_are_left_to_the_other_evidence() -> None:
    # their algebraic independence is an open problem: no Schwartz-Zippel claim
    decision = decide(sp.pi * sp.E * X, sp.E * sp.pi * X + 0 * X, [X], [])
    assert decision.verdict == EQUIVALENT and decision.evidence == "proof"
    decision = decide(sp.pi * sp.E * X**2, (sp.pi + sp.E) * X**2, [X], grid(("x", [1, 2])))
    assert decision.verdict == NOT_EQUIVALENT and decision.evidence == "high precision"
