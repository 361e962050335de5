"""apps.check.sampling: test points lie in the expression's domain (known in closed form here),
the given points come first, and a small domain still gets enough points."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.apps.check import sampling
from gradcalc.core.errors import InputError
from gradcalc.engine.run.api import compile_expression


@pytest.mark.parametrize(
    ("expression", "inside"),
    [
        ("log(x) + sqrt(y)", lambda x, y: (x > 0) & (y >= 0)),
        ("asin(x*y)", lambda x, y: np.abs(x * y) <= 1),
        ("1/(x - y)", lambda x, y: x != y),
    ],
)
def test_every_point_is_in_the_domain(expression, inside) -> None:
    sample = sampling.domain_points(compile_expression(expression), [])
    x, y = sample.points.arrays["x"], sample.points.arrays["y"]
    assert sample.count == len(x) == len(y) and sample.count >= sampling.SAMPLES
    assert inside(x, y).all()
    assert sample.tried >= sample.count


def test_a_small_domain_gets_points_near_the_few_found() -> None:
    sample = sampling.domain_points(compile_expression("sqrt(0.001 - (x - 1)^2)"), [])
    x = sample.points.arrays["x"]
    assert sample.count >= sampling.SAMPLES  # the pool alone holds very few
    assert (np.abs(x - 1) <= np.sqrt(0.001)).all()


def test_the_given_points_come_first_and_the_draw_is_repeatable() -> None:
    graph = compile_expression("x*y")
    first = sampling.domain_points(graph, ["x=0.5,y=2"])
    assert (first.points.arrays["x"][0], first.points.arrays["y"][0]) == (0.5, 2.0)
    again = sampling.domain_points(graph, ["x=0.5,y=2"])
    assert np.array_equal(first.points.arrays["x"], again.points.arrays["x"])


def test_a_given_point_must_name_every_variable() -> None:
    with pytest.raises(InputError, match="--at must give every variable"):
        sampling.domain_points(compile_expression("x*y"), ["x=1"])


def _narrow(seed: int) -> tuple[str, float, float]:
    """A function defined on a narrow interval away from 0 (closed form: its ends), c up to
    10^6 either side, with a term defined everywhere and a second variable's term."""
    import random

    rng = random.Random(seed)
    c = rng.choice([-1, 1]) * rng.randint(10, 10**6) + rng.choice([0, 0.5, 0.25])
    w = rng.choice([1, 2, 0.5])
    kind = seed % 3
    if kind == 0:
        return f"asin((x - {c})/{w}) + sin(x)", c - w, c + w
    if kind == 1:
        return f"sqrt({w}^2 - (x - {c})^2) * cos(x)", c - w, c + w
    return f"log(x - {c}) + sqrt({c + w} - x) + x^2", c, c + w


@pytest.mark.parametrize("seed", range(8))
def test_a_narrow_domain_far_from_0_gets_points_inside_it(seed: int) -> None:
    expression, low, high = _narrow(seed)
    sample = sampling.domain_points(compile_expression(expression), [])
    x = sample.points.arrays["x"]
    assert sample.count >= sampling.SAMPLES, expression
    assert ((x >= low) & (x <= high)).all(), expression
    assert sample.domain is not None and len(sample.domain) == 1
    assert sample.domain[0] == pytest.approx((low, high))


def test_a_narrow_domain_in_one_of_two_variables_gets_points_too() -> None:
    # asin(x - 5000) * y: x in [4999, 5001], y anything
    sample = sampling.domain_points(compile_expression("asin(x - 5000) * exp(y)"), [])
    x = sample.points.arrays["x"]
    assert sample.count >= sampling.SAMPLES and ((x >= 4999) & (x <= 5001)).all()
    assert len(set(sample.points.arrays["y"].tolist())) > 1


@pytest.mark.parametrize(
    ("expression", "intervals"),
    [
        ("asin(x - 1000)", [(999, 1001)]),
        ("asin(1 + x^2)", [(0, 0)]),
        ("acosh(x/4)", [(4, np.inf)]),
        ("1/x", [(-np.inf, 0), (0, np.inf)]),
        ("x^3 + 1", None),
    ],
)
def test_the_real_domain_by_sympy(expression, intervals) -> None:
    import sympy as sp

    from gradcalc.symbolic.crosscheck.crosscheck import to_sympy

    graph = compile_expression(expression)
    found = sampling.real_domain([to_sympy(graph)[graph.targets[0]]], sp.Symbol("x", real=True))
    assert (None if found is None else list(found)) == intervals


def test_two_narrow_domains_far_from_0_get_points_in_both() -> None:
    # x in [999, 1001] and y in [-2001, -1999] (closed form), independently
    sample = sampling.domain_points(compile_expression("asin(x - 1000) + acos(y + 2000)"), [])
    x, y = sample.points.arrays["x"], sample.points.arrays["y"]
    assert sample.count >= sampling.SAMPLES
    assert ((x >= 999) & (x <= 1001) & (y >= -2001) & (y <= -1999)).all()


def test_a_domain_sympy_finds_empty_or_a_point_is_named_so() -> None:
    empty = sampling.domain_points(compile_expression("log(-x^2 - 1)"), [])
    assert empty.count == 0 and empty.domain == ()
    assert sampling.scarcity(empty, 0) == (
        "f is defined nowhere over the reals (by sympy): nothing to test at"
    )
    point = sampling.domain_points(compile_expression("acosh(x) + acos(x)"), [])
    assert point.domain == ((1.0, 1.0),)  # acosh needs x >= 1, acos x <= 1
    assert sampling.scarcity(point, 0).startswith("the domain is tiny: f is defined only at x = 1")
