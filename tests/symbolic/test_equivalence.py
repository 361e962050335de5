"""symbolic.decide.equivalence: verdicts on pairs of sympy expressions whose relation is known by
construction (the same function in another form, or a known nonzero difference)."""

from __future__ import annotations

import sympy as sp

from gradcalc.symbolic.decide.decision import (
    EQUIVALENT,
    NOT_EQUIVALENT,
)
from gradcalc.symbolic.decide.equivalence import decide
from tests.symbolic.grids import X


def test_the_issues_constant_difference_is_rejected_exactly() -> None:
    decision = decide(sp.Integer(-79279675), sp.Integer(-79279674), [X], [])
    assert decision.verdict == NOT_EQUIVALENT and decision.evidence == "exact"
    assert decision.detail == "yours − correct = -1 everywhere"


def test_a_proof_needs_no_points() -> None:
    decision = decide(sp.sin(2 * X), 2 * sp.sin(X) * sp.cos(X), [X], [])
    assert (decision.verdict, decision.evidence) == (EQUIVALENT, "proof")


def test_a_sum_of_exponentials_is_proved_without_points() -> None:
    decision = decide(sp.cosh(X) ** 2 - sp.sinh(X) ** 2, sp.Integer(1), [X], [])
    assert (decision.verdict, decision.evidence) == (EQUIVALENT, "proof")
