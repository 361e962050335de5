"""apps.optimize.descent.LineSearch, gd without a learning rate: on quadratics, whose minimum
numpy's linear solver gives independently (generated, with condition numbers up to 100,
coefficients and offsets up to 10^9, terms free of some variables), on textbook cases, and
where it must not claim a minimum (no minimum, a kink, badly scaled)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc.apps.optimize.descent import (
    ARMIJO_C,
    LineSearch,
    Objective,
)
from gradcalc.apps.optimize.minimize import minimize
from gradcalc.engine.run.api import compile_expression

NAMES = ("x", "y", "z", "w")


def quadratic(a: np.ndarray, b: np.ndarray, offset: float) -> str:
    """The text of 1/2 x'Ax - b'x + offset in the variables NAMES, written out term by term."""
    n = len(b)
    pairs = itertools.combinations(range(n), 2)
    terms = [f"({float(a[i, i]) / 2!r})*{NAMES[i]}^2" for i in range(n)]
    terms += [f"({float(a[i, j])!r})*{NAMES[i]}*{NAMES[j]}" for i, j in pairs]
    terms += [f"({-float(b[i])!r})*{NAMES[i]}" for i in range(n)]
    return " + ".join([*terms, repr(float(offset))])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    condition=st.sampled_from([1.0, 3.0, 10.0, 100.0]),
    scale=st.sampled_from([1e-3, 1.0, 1e3]),
    offset=st.sampled_from([0.0, 1.0, -7.5, 1e9, -1e9]),
)
def test_gd_finds_a_generated_quadratics_minimum(n, seed, condition, scale, offset) -> None:
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))  # a random rotation
    eigenvalues = scale * np.geomspace(1.0, condition, n)
    a = q @ np.diag(eigenvalues) @ q.T
    a = (a + a.T) / 2
    b = rng.uniform(-1e3, 1e3, n) * scale
    truth = np.linalg.solve(a, b)
    m = minimize(quadratic(a, b, offset), dict.fromkeys(NAMES[:n], 0.0), tol=1e-9 * scale)
    assert m.converged, m.reason
    assert m.lr is None and m.rule == "line search"
    found = np.array([m.point[v] for v in NAMES[:n]])
    # |gradient| <= tol bounds the distance by tol / the smallest eigenvalue, plus rounding
    bound = 1e-9 * scale / eigenvalues[0] + 1e-12 * max(1.0, float(np.max(np.abs(truth))))
    assert np.max(np.abs(found - truth)) <= 2 * bound


@pytest.mark.parametrize(
    ("expression", "start", "minimum"),
    [
        ("(x-1)^2 + (y+2)^2", {"x": 0, "y": 0}, {"x": 1, "y": -2}),  # the defaults of fixed gd fail
        ("(x-3)^2 + 2(y+1)^2", {"x": 0, "y": 0}, {"x": 3, "y": -1}),
        ("1e9*(x-1)^2 + (y-3)^2", {"x": 0, "y": 0}, {"x": 1, "y": 3}),  # coefficient 10^9
        ("0.01*(x-1)^2 - 1e9", {"x": 0}, {"x": 1}),  # values flat to rounding near the minimum
        ("x^4 - 3x^2 + y^2", {"x": 0.1, "y": 1}, {"x": math.sqrt(1.5), "y": 0}),
        ("cosh(x) + cosh(y-2)", {"x": 10, "y": -10}, {"x": 0, "y": 2}),
        ("sqrt(x^2 + 1)", {"x": 3}, {"x": 0}),
        ("log(x)^2", {"x": 5}, {"x": 1}),
    ],
)
def test_gd_reaches_textbook_minima(expression, start, minimum) -> None:
    m = minimize(expression, start)
    assert m.converged and m.found == "minimum", m.reason
    for name, value in minimum.items():
        assert m.point[name] == pytest.approx(value, abs=1e-9)
    assert m.steps < 100


def test_every_step_lowers_the_value_on_rosenbrock() -> None:
    m = minimize("(1-x)^2 + 100(y-x^2)^2", {"x": -1.2, "y": 1}, every=1, steps=2000)
    values = [s.value for s in m.path]
    assert all(later < earlier for earlier, later in itertools.pairwise(values))
    assert not m.converged  # gd is slow along the curved valley, and says what to try
    assert m.reason.endswith("raise --steps, or try --method bfgs")


def test_each_taken_step_meets_armijos_condition() -> None:
    objective = Objective(compile_expression("(x-2)^4 + exp(y) - y"))
    search, x = LineSearch(), np.array([0.0, 3.0])
    value, gradient = objective(x)
    for k in range(30):
        moved = search(objective, x, value, gradient, k)
        assert moved is not None
        new_x, new_value, _ = moved
        assert np.allclose(new_x, x - search.length * gradient, rtol=0, atol=0)
        assert value - new_value >= ARMIJO_C * search.length * float(gradient @ gradient)
        x, value, gradient = moved


@pytest.mark.parametrize(
    ("expression", "start"),
    [("x", {"x": 0}), ("-x^2", {"x": 1}), ("1e30 + x", {"x": 0})],
)
def test_no_minimum_is_called_out(expression, start) -> None:
    m = minimize(expression, start)
    assert not m.converged and m.value == -math.inf
    assert m.reason.startswith("diverged: value became -inf")
    assert m.reason.endswith("the expression may have no minimum")


@pytest.mark.parametrize(
    ("expression", "start"),
    [("sqrt(abs(x-1))", {"x": 0}), ("max(x, -x/2)", {"x": 1})],
)
def test_a_kink_stalls_and_is_not_called_a_minimum(expression, start) -> None:
    m = minimize(expression, start)
    assert not m.converged and m.found == ""
    assert m.reason.startswith("stalled: no step along the gradient lowers the value")
    assert "a larger --tol accepts this point" in m.reason


def test_fixed_rates_are_reported_and_the_line_search_is_not_a_rate() -> None:
    assert minimize("x^2", {"x": 1}).lr is None
    assert minimize("x^2", {"x": 1}, lr=0.25).lr == 0.25
    assert minimize("x^2", {"x": 1}, method="adam").lr == 0.01
    assert minimize("x^2", {"x": 1}, method="momentum", steps=3).rule == "lr 0.001"
