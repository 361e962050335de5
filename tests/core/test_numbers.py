"""The one number formatter: exact without ``digits`` (the text reads back as the same float),
rounded to ``digits`` significant digits with them, never ``-0``."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from gradcalc.core.numbers import format_number

finite = st.floats(allow_nan=False, allow_infinity=False)


@given(finite)
def test_without_digits_the_text_is_the_float(x: float) -> None:
    text = format_number(x)
    assert float(text) == x and text != "-0" and not text.endswith(".0")


@given(finite, st.integers(1, 17))
def test_with_digits_the_text_is_the_float_rounded(x: float, digits: int) -> None:
    text = format_number(x, digits)
    value = float(text)
    if x == int(x) and abs(x) < max(10**6, 10**digits):
        assert value == x  # a whole number shows every digit: 100, not 1e+02
    else:
        assert value == float(f"{x:.{digits - 1}e}")  # Python's own rounding, independently
        assert len(text.split("e")[0].replace("-", "").replace(".", "").lstrip("0")) <= digits
    assert text != "-0"


def test_missing_and_non_finite_values() -> None:
    assert format_number(None) == "—"
    assert [format_number(v, 3) for v in (math.inf, -math.inf, math.nan)] == ["inf", "-inf", "nan"]
    assert format_number(-0.0) == format_number(-0.0, 2) == "0"
