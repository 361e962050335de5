"""Points where f is defined but f' does not exist (gradcalc.apps.check.corners), against
hand-worked truth: |c·(x - r1)(x - r2)| has corners at its simple roots r1, r2 (the slope
±c·(r1 - r2) changes sign there), c·cbrt(x - a)^2 a cusp at a (infinite slopes)."""

from __future__ import annotations

import random

import pytest
import sympy as sp

from gradcalc.apps.check.corners import corners, interior, nondifferentiable
from gradcalc.engine.run.api import compile_expression
from gradcalc.symbolic.crosscheck.crosscheck import target_expression

x = sp.Symbol("x", real=True)


def read(text: str):
    return target_expression(compile_expression(text), 0)


@pytest.mark.parametrize("seed", range(8))
def test_the_roots_of_an_absolute_quadratic_are_its_corners(seed: int) -> None:
    rng = random.Random(seed)
    r1, r2 = rng.sample(range(-9, 10), 2)
    c, b = rng.randint(1, 10**9), rng.randint(-(10**9), 10**9)
    f = read(f"{c}*abs((x - {r1})*(x - {r2})) + {b}*x")
    found = corners(f, ["x"], None)
    assert found is not None
    assert sorted(corner.point["x"] for corner in found) == sorted([r1, r2])
    for corner in found:
        r, other = corner.point["x"], r1 + r2 - corner.point["x"]
        slope = c * (r - other)  # of c·(x - r1)(x - r2) at the root r, by hand
        assert corner.sides == (float(b - abs(slope)), float(b + abs(slope)))  # |slope|·|x - r|
        assert corner.interior


@pytest.mark.parametrize("seed", range(4))
def test_a_real_cube_root_squared_has_a_cusp(seed: int) -> None:
    rng = random.Random(seed)
    a, c = rng.randint(-9, 9), rng.randint(1, 10**9)
    (corner,) = corners(read(f"{c}*cbrt(x - {a})^2"), ["x"], None)
    assert corner.point == {"x": a} and corner.sides == (None, None) and corner.interior


def test_what_cannot_be_listed_is_none() -> None:
    assert corners(sp.Abs(sp.sin(x)), ["x"], None) is None  # a corner at every k·pi
    assert corners(sp.floor(x), ["x"], {"x": (0.0, 3.0)}) is None
    assert [c.point["x"] for c in corners(sp.Abs(sp.sin(x)), ["x"], {"x": (1.0, 7.0)})] == [
        sp.pi,
        2 * sp.pi,
    ]


def test_a_differentiable_switch_and_an_end_of_the_domain() -> None:
    assert corners(sp.Max(x, 0) ** 2, ["x"], None) == []  # f' is 0 from both sides
    (end,) = corners(sp.sqrt(x), ["x"], None)
    assert end.point == {"x": 0} and not end.interior
    assert not interior(sp.log(x), {"x": sp.Integer(0)})
    assert nondifferentiable(sp.sqrt(x), ["x"]) and not nondifferentiable(x**2 + 1, ["x"])
