"""The Python API's ``at``: every documented form gives the same points, and anything else is a
one-line InputError naming what is wrong (never a TypeError from deep inside numpy)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import gradcalc
from gradcalc.core.errors import InputError

X, Y = sp.symbols("x y")
EXPR = "x**3*y - sin(x*y)"
TRUTH = X**3 * Y - sp.sin(X * Y)
POINTS = [(1.5, -2.0), (0.25, 3.0), (-4.0, 0.5)]


def _sympy_gradient(x: float, y: float) -> list[float]:
    subs = {X: sp.Rational(str(x)), Y: sp.Rational(str(y))}
    return [float(sp.diff(TRUTH, s).evalf(30, subs=subs)) for s in (X, Y)]


@pytest.mark.parametrize(
    "at",
    [
        [{"x": x, "y": y} for x, y in POINTS],
        {"x": np.array([p[0] for p in POINTS]), "y": np.array([p[1] for p in POINTS])},
        [f"x={x},y={y}" for x, y in POINTS],
    ],
    ids=["list of mappings", "mapping of arrays", "--at texts"],
)
def test_every_form_of_at_gives_sympys_gradient(at) -> None:
    result = gradcalc.grad(EXPR, at=at, check=False)
    expected = np.array([_sympy_gradient(x, y) for x, y in POINTS])
    got = np.column_stack([result.gradient["x"], result.gradient["y"]])
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("at", "message"),
    [
        ([{"x": 1, "y": 2}, {"x": 1}], "every point in the list must name the same variables"),
        ({"x": "one", "y": 2}, "at, variable x, point 1: text, not a real number"),
        ([{"x": [1, [2]], "y": 2}], "at, variable x, point 2: a list, not a real number"),
        ([1, 2], "give one mapping of values, a list of mappings, or --at style texts"),
    ],
)
def test_a_malformed_at_is_a_one_line_input_error(at, message: str) -> None:
    with pytest.raises(InputError) as caught:
        gradcalc.grad(EXPR, at=at, check=False)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unchecked_calls_compile_a_text_once(monkeypatch) -> None:
    """``grad(..., check=False)`` in a loop parses and records once; checked calls compile
    afresh (the check keeps a timeout on its graph)."""
    from gradcalc.engine.run import api

    compiled = []
    compile_expression = api.compile_expression
    monkeypatch.setattr(
        api, "compile_expression", lambda *a: compiled.append(a) or compile_expression(*a)
    )
    text = "x**3*y - sin(x*y) + 0.125"  # a text no other test compiles
    at = {"x": np.linspace(-1.0, 1.0, 500), "y": np.linspace(2.0, 3.0, 500)}
    first = gradcalc.grad(text, at=at, check=False)
    second = gradcalc.grad(text, at={"x": at["y"], "y": at["x"]}, check=False)
    assert len(compiled) == 1
    x, y = at["x"], at["y"]
    np.testing.assert_allclose(first.gradient["x"], 3 * x**2 * y - y * np.cos(x * y), rtol=1e-13)
    np.testing.assert_allclose(second.gradient["y"], y**3 - y * np.cos(x * y), rtol=1e-13)
    gradcalc.grad(text, at={"x": 0.5, "y": 2.0})
    gradcalc.grad(text, at={"x": 0.5, "y": 2.0})
    assert len(compiled) == 3


@pytest.mark.parametrize("size", [1e-300, 1e-160, 1.0, 1e150])
def test_a_tiny_or_huge_direction_is_a_direction(size: float) -> None:
    """(1e-300, 1e-300) was refused as 'not a non-zero vector': its norm underflowed."""
    from gradcalc.engine.evaluate.points import parse_at
    from gradcalc.engine.run.api import compile_expression, directional_at

    graph = compile_expression("x^2 + y^2")
    result = directional_at(graph, parse_at(["x=1,y=2"]), [size, size])
    assert abs(float(result.directional) - 6 / 2**0.5) < 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_jacobian_of_many_generated_targets_against_sympy(seed: int) -> None:
    """Each target differentiated over its own sub-tape (one reverse pass each): generated
    targets sharing subexpressions and variables, against sympy's derivatives in exact
    arithmetic."""
    import random

    from gradcalc.engine.run.api import jacobian

    rng = random.Random(seed)
    names = ["x", "y", "z"]
    pieces = ["sin(x)", "x*y", "exp(z/3)", "y^2", "cos(x*z)", "log(1 + y^2)", "z"]
    targets = [
        " + ".join(f"{rng.randint(-5, 5)}*{rng.choice(pieces)}" for _ in range(rng.randint(1, 4)))
        for _ in range(rng.randint(5, 40))
    ]
    point = {n: sp.Rational(rng.randint(-20, 20), 8) for n in names}
    result = jacobian(", ".join(targets), at={n: float(v) for n, v in point.items()}, check=False)
    symbols = {n: sp.Symbol(n, real=True) for n in names}
    for row, text in zip(result.matrix, targets):
        f = sp.sympify(text.replace("^", "**"), locals=symbols)
        at = {symbols[k]: v for k, v in point.items()}
        truth = [float(sp.diff(f, symbols[n]).subs(at)) for n in result.rows[0].gradient]
        got = np.asarray(row, dtype=float).reshape(-1)
        assert np.allclose(got, truth, rtol=1e-12, atol=1e-12), text
