"""symbolic.decide.removable: a 0/0 form's limit at a point, checked against sympy's own ``limit``
(an independent method: series and Gruntz's algorithm, not evaluation near the point)."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc.symbolic.decide.removable import limit_at

X, Y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
HALF = sp.Rational(1, 2)


@pytest.mark.parametrize(
    ("form", "at"),
    [
        (sp.sin(X) / X, 0),
        ((1 - sp.cos(X)) / X**2, 0),
        ((sp.exp(3 * X) - 1) / X, 0),
        (sp.E * (X - HALF) ** sp.E / (X - HALF), HALF),  # sympy's d/dx (x - 1/2)^e
        ((X**2 - 4) / (X - 2), 2),
        (sp.log(1 + X) / X * 10**9, 0),  # a large coefficient
    ],
)
def test_the_limit_of_a_removable_form_is_sympys_limit(form, at) -> None:
    point = sp.Rational(at)
    assert form.subs(X, point) is sp.nan  # 0/0 as written
    expected = float(sp.limit(form, X, point, dir="+"))
    found = limit_at(form, {"x": point})
    assert found is not None
    assert found.value == pytest.approx(expected, rel=1e-12, abs=1e-30)


def test_a_limit_on_one_side_only_is_called_one_sided() -> None:
    # (x - 1/2)^e is not real for x < 1/2: only the right-hand side exists
    form = sp.E * (X - HALF) ** sp.E / (X - HALF)
    assert limit_at(form, {"x": HALF}).one_sided
    assert not limit_at(sp.sin(X) / X, {"x": sp.Integer(0)}).one_sided


@pytest.mark.parametrize(
    "form",
    [
        sp.Abs(X) / X,  # -1 from the left, 1 from the right
        X * Y / (X**2 + Y**2),  # 1/2 along x = y, -1/2 along x = -y
        sp.sin(1 / X) * X / X,  # oscillates: no value settles
        1 / X**2 * X,  # 1/x: grows without bound
    ],
)
def test_no_limit_is_no_value(form) -> None:
    assert limit_at(form, {"x": sp.Integer(0), "y": sp.Integer(0)}) is None
