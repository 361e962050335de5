"""The one cell policy, against Python's own arithmetic: an integer is read when and only when
float64 holds it exactly (Python's ``int(float(n)) == n``), a float when it is finite, at most
1e300 in magnitude, and not rounded to 0 from a value that is not 0; every other kind refused."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gradcalc.core.cells import (
    KINDS,
    MAX_MAGNITUDE,
    Place,
    given_values,
    out_of_range,
    python_number,
    real_column,
)
from gradcalc.core.errors import InputError

PLACE = Place("points file p.npz", "x", 11)


@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=20))
@example([2**53 + 1])
@example([-(2**53) - 1, 2**53])
@example([2**63 - 1])
def test_int64_is_read_when_exact_and_a_bad_row_when_not(values) -> None:
    column, bad = real_column(np.array(values, dtype=np.int64), PLACE)
    inexact = {k for k, v in enumerate(values) if int(float(v)) != v}
    assert set(bad) == inexact
    assert all(str(values[k]) in bad[k] and "cannot hold it exactly" in bad[k] for k in bad)
    exact = [k for k in range(len(values)) if k not in inexact]
    assert [Fraction(column[k]) for k in exact] == [Fraction(values[k]) for k in exact]


@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=20))
@example([2**53 + 1])
@example([2**64 - 1])
def test_uint64_likewise(values) -> None:
    column, bad = real_column(np.array(values, dtype=np.uint64), PLACE)
    assert set(bad) == {k for k, v in enumerate(values) if int(float(v)) != v}
    assert [column[k] for k in range(len(values)) if k not in bad] == [
        float(v) for k, v in enumerate(values) if k not in bad
    ]


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=20))
def test_floats_bad_rows_are_exactly_the_non_finite_and_out_of_range(values) -> None:
    column, bad = real_column(np.array(values, dtype=np.float64), PLACE)
    expected = {
        k for k, v in enumerate(values) if not (math.isfinite(v) and abs(v) <= MAX_MAGNITUDE)
    }
    assert set(bad) == expected
    good = [k for k in range(len(values)) if k not in expected]
    assert [column[k] for k in good] == [values[k] for k in good]


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_narrow_floats_are_read_exactly(dtype) -> None:
    array = np.array([0.1, 65504, -1.5e-5], dtype=dtype)
    column, bad = real_column(array, PLACE)
    assert bad == {}
    assert [Fraction(float(v)) for v in array] == [Fraction(v) for v in column]


def test_a_long_double_is_read_only_when_float64_holds_it() -> None:
    if np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("long double is float64 here")
    exact = np.array([0.5, 3.0], dtype=np.longdouble)
    assert real_column(exact, PLACE)[0].tolist() == [0.5, 3.0]
    third = np.array([1], dtype=np.longdouble) / 3
    bad = real_column(third, PLACE)[1]
    assert bad == {0: "the long double 0.33333333333333333334 (float64 cannot hold it exactly)"}
    tiny = np.array(["1e-400"], dtype=np.longdouble)
    assert real_column(tiny, PLACE)[1] == {0: out_of_range("1e-400")}


@pytest.mark.parametrize(
    ("array", "word"),
    [
        (np.array(["1"]), KINDS["U"]),
        (np.array([b"1"]), KINDS["S"]),
        (np.array(["2020-01-01"], dtype="datetime64[D]"), KINDS["M"]),
        (np.array([1], dtype="timedelta64[s]"), KINDS["m"]),
        (np.array([1 + 0j]), KINDS["c"]),
        (np.array([True]), KINDS["b"]),
        (np.zeros(1, dtype=[("a", float)]), KINDS["V"]),
    ],
)
def test_every_other_kind_is_refused_naming_the_place(array, word) -> None:
    with pytest.raises(InputError) as caught:
        real_column(array, PLACE)
    assert caught.value.message == f"points file p.npz, column x, row 11: {word}, not a real number"


def test_a_masked_element_is_a_missing_value() -> None:
    column, bad = real_column(np.ma.masked_array([1.0, 2.0, 3.0], [0, 1, 0]), PLACE)
    assert bad == {1: "the value is missing (masked)"} and column[[0, 2]].tolist() == [1.0, 3.0]


@given(st.integers())
def test_python_integers_follow_the_same_rule(n: int) -> None:
    fits = abs(n) <= MAX_MAGNITUDE and float(n) == n if abs(n) < 2**1024 else False
    if abs(n) > MAX_MAGNITUDE:
        assert python_number(n, PLACE)[1] == out_of_range(str(n)[:40] + "..." * (len(str(n)) > 40))
    elif fits and int(float(n)) == n:
        assert python_number(n, PLACE) == (float(n), None)
    else:
        assert "float64 cannot hold it exactly" in python_number(n, PLACE)[1]


@pytest.mark.parametrize(
    "value", ["1", 1 + 2j, {"a": 1}, object(), np.datetime64("2020-01-01"), True, Fraction(1)]
)
def test_the_apis_values_that_are_not_numbers_are_refused(value) -> None:
    with pytest.raises(
        InputError, match=r"^at, variable x, point 1: .*(not a real number|exactly.)$"
    ):
        given_values("x", [value, 1.0])


def test_the_apis_arrays_keep_their_shape_and_name_the_flat_point() -> None:
    values, bad = given_values("W", np.array([[1.0, 2.0], [np.inf, 4.0]]))
    assert values.shape == (2, 2) and bad == {2: "inf is not a finite number"}
