"""The one JSON encoder, against Python's own reading of the values: whatever nest of numpy
scalars, arrays, floats and fractions goes in, json.loads gives back the same numbers, with
null exactly where a number was not finite."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gradcalc.render.output.encoding import dumps

floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
leaves = st.one_of(
    floats,
    st.integers(min_value=-(2**63), max_value=2**63 - 1).map(np.int64),
    floats.map(np.float64),
    st.floats(allow_nan=True, allow_infinity=True, width=32).map(np.float32),
    st.lists(floats, max_size=5).map(lambda v: np.array(v, dtype=float)),
    st.fractions(max_denominator=1000),
    st.booleans().map(np.bool_),
)
nests = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


def expected(value):
    """What JSON should hold, computed without the encoder: numbers as Python reads them."""
    if isinstance(value, np.ndarray):
        return [expected(float(v)) for v in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(float(value)) else None
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value)
    if isinstance(value, dict):
        return {k: expected(v) for k, v in value.items()}
    return [expected(v) for v in value]


@given(nests)
def test_round_trip_keeps_every_number_and_nulls_only_the_non_finite(value) -> None:
    text = dumps(value)
    assert json.loads(text, parse_constant=not_json) == expected(value)  # (a key may be "NaN")


def not_json(constant: str) -> None:
    """``NaN``/``Infinity`` written as a number: JavaScript's, not JSON."""
    raise AssertionError(f"{constant} is not JSON")


def test_int64_that_json_cannot_write_itself() -> None:
    # json.dumps(np.int64(2)) raises TypeError: the taylor exit 70 of issue 35
    assert json.loads(dumps({"powers": [np.int64(1), np.int64(0)]})) == {"powers": [1, 0]}


def test_unknown_object_is_an_error_not_a_guess() -> None:
    import pytest

    with pytest.raises(TypeError, match="no JSON form for object"):
        dumps(object())


def test_non_ascii_kept_when_asked() -> None:
    assert dumps({"d": "∂f/∂x"}, ascii_only=False) == '{"d": "∂f/∂x"}'
    assert json.loads(dumps({"d": "∂f/∂x"})) == {"d": "∂f/∂x"}
