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
