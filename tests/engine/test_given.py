"""gradcalc.engine.evaluate.given: the points a Python caller gives, read by the same cell
policy as a file's (a NaN, an infinity, a string or a number out of range is refused, or
with ``strict=False`` makes its point undefined)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given as for_all
from hypothesis import strategies as st

from gradcalc.core.errors import InputError
from gradcalc.engine.evaluate.given import as_points, checked_points


@for_all(st.lists(st.floats(-1e300, 1e300, allow_nan=False), min_size=1, max_size=20))
def test_a_list_of_mappings_is_one_point_each_in_order(xs: list[float]) -> None:
    points = as_points([{"x": x, "y": -x} for x in xs])
    assert points.names == ("x", "y") and points.count == len(xs)
    assert np.array_equal(points.arrays["x"], np.array(xs)) and np.array_equal(
        points.arrays["y"], -np.array(xs)
    )


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "3", 1e301])
def test_a_bad_value_is_refused_naming_its_variable_and_point(bad) -> None:
    with pytest.raises(InputError, match=r"at, variable y, point 2"):
        checked_points([{"x": 1.0, "y": 2.0}, {"x": 1.0, "y": bad}])


def test_not_strict_a_bad_value_makes_only_its_point_undefined() -> None:
    points, warnings = checked_points([{"x": 1.0}, {"x": math.nan}, {"x": 3.0}], strict=False)
    assert points.bad is not None and points.bad.tolist() == [False, True, False]
    assert len(warnings) == 1 and "point 2" in warnings[0] and "undefined" in warnings[0]
    assert points.arrays["x"][0] == 1.0 and points.arrays["x"][2] == 3.0


def test_points_that_name_different_variables_are_refused() -> None:
    with pytest.raises(InputError, match="same variables"):
        as_points([{"x": 1}, {"y": 2}])


def test_texts_are_read_as_at_is() -> None:
    points = as_points(["x=pi/4"])
    assert points.count == 1 and points.arrays["x"] == pytest.approx(math.pi / 4)
    assert points.exact is not None and points.exact[0]["x"] == "pi/4"
