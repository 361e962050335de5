"""engine.judge.disagreement: a failed check names the component by its derivative's name
(``--order``'s too), the tape's number beside sympy's, and where."""

from __future__ import annotations

import mpmath
import pytest


@pytest.mark.parametrize(("order", "name"), [(1, "∂f/∂x"), (2, "df/dx")])
def test_an_orders_disagreement_is_named_as_a_derivative(cli, order: int, name: str) -> None:
    # sqrt(x + 1) - sqrt(x) at 1e15: float64 cancels, and the tape's first derivative is
    # 16% off (mpmath at 40 digits, here); --order's labels d1, d2 were printed as they were
    mpmath.mp.dps = 40
    truth = mpmath.diff(lambda x: mpmath.sqrt(x + 1) - mpmath.sqrt(x), mpmath.mpf(10) ** 15)
    mpmath.mp.dps = 15
    args = ["grad", "sqrt(x+1)-sqrt(x)", "--at", "x=1e15", "--order", str(order)]
    result = cli(*args, "--format", "plain")
    assert result.exit_code == 1
    said = result.stderr.split("disagree: ")[1]
    assert said.startswith(f"{name}: the tape's "), said
    shown = float(said.split("exact value ")[1].split(" ")[0])
    assert abs(shown / float(truth) - 1) < 1e-12
