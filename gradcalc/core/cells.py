"""The one cell policy: what a number from data may be, and the one-line error when it is not.

Every value that enters gradcalc as data -- a column of a ``.npy``, ``.npz``, Parquet or
Arrow file, a tensor file, the Python API's arrays and numbers -- is checked here, so the
readers cannot disagree. Text (CSV cells, ``--at``, a job's values) goes through the
expression parser, whose range is the same (:data:`MAX_MAGNITUDE`, :func:`out_of_range`).

The policy:

- **real numbers only**: integers that float64 holds exactly (any of magnitude up to
  2^53, larger ones only when exact), floats of any width whose value float64 holds exactly
  (float16, float32, float64; a long double only when it has no more digits than float64);
- **refused, naming the place and the first row**: text, bytes, dates and times, time spans,
  decimals, Python objects, complex numbers, records, lists, booleans -- a column of another
  kind is never read as numbers;
- **bad rows**, refused unless the caller skips them (``--skip-bad-rows``, or the API's
  ``strict=False``): a missing value (a null, a masked element), NaN, an infinity, a number
  out of range (above 1e300 in magnitude, or one that rounds to 0 and is not 0), and a
  number float64 cannot hold exactly (an integer past 2^53, a long double's extra digits).

>>> values, bad = real_column(np.array([1, 2**53]), Place("points file p.npz", "x"))
>>> values.tolist(), bad
([1.0, 9007199254740992.0], {})
>>> bad = real_column(np.array([1.0, np.nan, 1e301]), Place("points file p.npz", "x"))[1]
>>> bad[1], bad[2][:32]
('nan is not a finite number', 'number out of range: 1e+301 (use')
>>> real_column(np.array(["2020-01-01"]), Place("points file p.npz", "d"))
Traceback (most recent call last):
gradcalc.core.errors.InputError: points file p.npz, column d, row 1: text, not a real number
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from gradcalc.core.errors import InputError

#: The largest magnitude of a number (the expression parser's, :mod:`gradcalc.lang.lexer`).
MAX_MAGNITUDE = 1e300
MAX_MAGNITUDE_TEXT = "1e300"
#: A date written as digits (2020-01-02, 1/3/2024, 3.1.2024): never read as arithmetic.
DATE = re.compile(r"\s*[0-9]+([-/.])[0-9]+\1[0-9]+\s*")
#: Sixteen digits in a row: an integer that float64 may not hold exactly.
LONG_INTEGER = re.compile(r"[0-9]{16}")
#: Every integer up to this magnitude is exact in float64.
EXACT_INTEGER = 2**53

#: What a column of each numpy kind holds, in words (the kinds that are never numbers).
KINDS = {
    "U": "text",
    "S": "bytes",
    "O": "Python objects",
    "M": "a date or time",
    "m": "a time span",
    "c": "a complex number",
    "b": "a boolean (true/false)",
    "V": "a record",
}


def out_of_range(shown: str) -> str:
    """The one message for a number out of range, wherever it came from.

    >>> out_of_range("1e-400")
    'number out of range: 1e-400 (use magnitudes up to 1e300 that do not round to 0; a fixed limit)'
    """
    return (
        f"number out of range: {shown} "
        f"(use magnitudes up to {MAX_MAGNITUDE_TEXT} that do not round to 0; a fixed limit)"
    )


def inexact_integer(text: str) -> str | None:
    """Why an integer written as ``text`` is refused (float64 cannot hold it exactly; a
    decimal fraction such as ``0.1`` is read as its nearest float64, as ever), else ``None``.

    >>> inexact_integer("9007199254740993"), inexact_integer("9007199254740992")
    ('the integer 9007199254740993 (float64 cannot hold it exactly)', None)
    """
    digits = text.strip().lstrip("+-")
    if len(digits) <= 15 or not (digits.isascii() and digits.isdigit()):
        return None
    if len(digits) > 400 or int(float(digits)) == int(digits):
        return None  # (beyond the range: out_of_range says so)
    return inexact(f"the integer {short(text.strip())}")


def short(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters (``...`` where cut): a message quotes no more.

    >>> short("x" * 50, 5)
    'xxxxx...'
    """
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass(frozen=True)
class Place:
    """Where a column's values came from: ``source`` (``points file p.npz``, ``at``), the
    ``column`` (or variable), and the number of its first element's row (``unit``: ``row``,
    or ``point`` for the API's points). A table read flat (a tensor file) has a ``width``:
    its element ``k`` is in row ``k // width``, column ``k % width`` (counted from 1)."""

    source: str
    column: str
    first_row: int = 1
    unit: str = "row"
    width: int = 0
    label: str = "column"

    def row(self, k: int) -> str:
        """The place of element ``k`` (0-based) in words.

        >>> Place("points file p.parquet", "x", 101).row(2)
        'points file p.parquet, column x, row 103'
        >>> Place("tensor file w.npy", "", width=3).row(4)
        'tensor file w.npy, row 2, column 2'
        """
        if self.width:
            return f"{self.source}, row {k // self.width + 1}, column {k % self.width + 1}"
        return f"{self.source}, {self.label} {short(self.column)}, {self.unit} {self.first_row + k}"


def names_a_file(text: str) -> InputError:
    """The refusal of a value that names a file where no file may be read (a job, a repl
    line, a command line without the operator's ``gradcalc --file``).

    >>> print(names_a_file("@/etc/passwd"))
    @/etc/passwd: a value names a file only on the command line under the operator's ...
    """
    return InputError(
        f"{short(text)}: a value names a file only on the command line under the "
        "operator's gradcalc --file (gradcalc --file grad ... --at W=@w.npy); never "
        "in a repl line or a job"
    )


def refuse(place: Place, k: int, what: str) -> NoReturn:
    """Raise the one-line error for element ``k``, which is ``what`` (``text``, ...).

    >>> refuse(Place("points file p.arrow", "d"), 0, "a decimal")
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: points file p.arrow, column d, row 1: a decimal, not a real ...
    """
    raise InputError(f"{place.row(k)}: {what}, not a real number")


def inexact(what: str) -> str:
    """Why a number float64 cannot hold exactly is a bad row (``what``: the integer ...)."""
    return f"{what} (float64 cannot hold it exactly)"


def check_kind(dtype: np.dtype, place: Place) -> None:
    """Refuse a column whose numpy type is not real numbers (a file's Python objects too).

    >>> check_kind(np.dtype("datetime64[D]"), Place("points file p.npy", "d"))
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: points file p.npy, column d, row 1: a date or time, not ...
    """
    if dtype.kind not in "iuf" or dtype.hasobject:
        refuse(place, 0, KINDS.get(dtype.kind, str(dtype)))


def real_column(
    values: Any, place: Place, missing: str = "masked"
) -> tuple[np.ndarray, dict[int, str]]:
    """A column (a numpy array, masked or not, of one dimension) as float64, and why each
    bad row is bad (missing -- ``missing`` says how: masked, null --, not finite, out of
    range; see the module's policy).

    Raises:
        InputError: for a column of a kind that is not real numbers, naming ``place``.
    """
    if np.ma.isMaskedArray(values):
        mask = np.ma.getmaskarray(values)
        column, bad = real_column(np.ma.getdata(values), place)
        for k in np.flatnonzero(mask).tolist():
            bad[k] = f"the value is missing ({missing})"
        return column, dict(sorted(bad.items()))
    array = np.asarray(values)
    kind = array.dtype.kind
    if kind == "O":
        return _objects(array, place)
    check_kind(array.dtype, place)
    column = array.astype(np.float64)
    bad = _bad_rows(array, column)
    bad.update(_inexact(array, column))
    return column, dict(sorted(bad.items()))


def checked_columns(
    data: Mapping[str, Any],
    names: Sequence[str],
    what: str,
    start: int = 0,
    missing: str = "masked",
) -> tuple[dict[str, np.ndarray], dict[int, str]]:
    """The columns ``names`` of one chunk of a table (``data``: numpy arrays, masked where a
    value is missing) through :func:`real_column`, as float64, and why each bad row is bad,
    in the words every table's reader uses (``column x, row 3: ...``, its first bad column;
    ``start``: the chunk's first row, 0-based). What to do with a bad row (refuse it, skip
    it, mark its point undefined) is the caller's.

    >>> arrays, bad = checked_columns({"x": np.array([1.0, np.inf]), "y": [2, 3]}, "xy", "f")
    >>> arrays["y"], bad
    (array([2., 3.]), {1: 'column x, row 2: inf is not a finite number'})
    >>> checked_columns({"x": np.array([True])}, ["x"], "f", start=4)
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: f, column x, row 5: a boolean (true/false), not a real number

    Raises:
        InputError: a column of a kind that is not real numbers, naming it and its first row.
    """
    arrays: dict[str, np.ndarray] = {}
    reasons: dict[int, str] = {}
    for name in names:
        arrays[name], bad = real_column(data[name], Place(what, name, start + 1), missing)
        for k, why in bad.items():
            reasons.setdefault(k, f"column {name}, row {start + k + 1}: {why}")
    return arrays, dict(sorted(reasons.items()))


def _inexact(array: np.ndarray, column: np.ndarray) -> dict[int, str]:
    """Why each element of ``array`` that ``column`` (its float64) does not hold exactly is
    bad: an integer past 2^53, a long double with more digits (out of range aside)."""
    if array.dtype.kind in "iu":
        big = np.flatnonzero(np.abs(column) >= EXACT_INTEGER)  # (2^53 + 1 rounds to 2^53)
        return {  # (rare: only those past 2^53 are compared one by one)
            k: inexact(f"the integer {int(array[k])}")
            for k in big.tolist()
            if int(column[k]) != int(array[k])
        }
    if array.dtype.itemsize <= 8:
        return {}
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        same = (column.astype(array.dtype) == array) | ~np.isfinite(array)
        same |= ~np.isfinite(column) | ((column == 0) & (array != 0))  # (out of range)
    return {k: inexact(f"the long double {array[k]!s}") for k in np.flatnonzero(~same).tolist()}


def _bad_rows(array: np.ndarray, column: np.ndarray) -> dict[int, str]:
    """Why each row of ``column`` (float64 of ``array``) is bad: not finite, out of range."""
    with np.errstate(invalid="ignore"):
        fine = np.abs(column) <= MAX_MAGNITUDE
        if array.dtype.kind == "f":
            fine &= (column != 0) | (array == 0)  # a long double's 1e-400 rounds to 0
    bad: dict[int, str] = {}
    for k in np.flatnonzero(~fine).tolist():
        given = array[k]
        if np.isfinite(given):
            bad[k] = out_of_range(str(given))
        else:
            bad[k] = f"{float(given)} is not a finite number"
    return bad


def _objects(array: np.ndarray, place: Place) -> tuple[np.ndarray, dict[int, str]]:
    """A column of Python objects (the API's lists): each must be a real number (a list of
    plain floats, or of integers up to 2^53, is converted at once)."""
    items = array.tolist()
    if all(type(i) is float for i in items) or all(
        type(i) is int and -EXACT_INTEGER <= i <= EXACT_INTEGER for i in items
    ):
        column = np.array(items, dtype=np.float64).reshape(array.shape)
        return column, _bad_rows(column, column)
    column = np.zeros(array.shape)
    bad: dict[int, str] = {}
    for k, item in enumerate(items):
        value, why = python_number(item, place, k)
        column[k] = value
        if why is not None:
            bad[k] = why
    return column, bad


def python_number(item: object, place: Place, k: int = 0) -> tuple[float, str | None]:
    """A Python or numpy scalar as float64, and why it is a bad row (``None``: it is fine);
    ``None`` (a missing value) is a bad row too.

    >>> python_number(10**400, Place("at", "x"), 0)[1][:64]
    'number out of range: 1000000000000000000000000000000000000000...'
    >>> python_number(2**53 + 1, Place("at", "x"), 0)
    (nan, 'the integer 9007199254740993 (float64 cannot hold it exactly)')
    >>> python_number(True, Place("at", "x"), 0)
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: at, column x, row 1: a boolean (true/false), not a real number
    """
    if item is None:
        return math.nan, "the value is missing"
    if isinstance(item, bool | np.bool_):
        refuse(place, k, KINDS["b"])
    if isinstance(item, int):
        if abs(item) > EXACT_INTEGER:
            if item.bit_length() > 1024 or abs(item) > MAX_MAGNITUDE:
                return math.nan, out_of_range(short(str(item)))
            if int(float(item)) != item:
                return math.nan, inexact(f"the integer {short(str(item))}")
        return float(item), None
    if isinstance(item, float | np.generic):
        here = dataclasses.replace(place, first_row=place.first_row + k)
        column, bad = real_column(np.asarray(item).reshape(1), here)
        return (math.nan, bad[0]) if bad else (float(column[0]), None)
    refuse(place, k, _word(item))


def _word(item: object) -> str:
    """What a value that is not a number is, in words."""
    if isinstance(item, str):
        return "text"
    if isinstance(item, complex):
        return KINDS["c"]
    if type(item).__name__ == "Decimal":
        return "a decimal"
    if isinstance(item, list | tuple | dict):
        return f"a {type(item).__name__}"
    return f"a {type(item).__module__}.{type(item).__qualname__}"


def given_values(name: str, value: object) -> tuple[np.ndarray, dict[int, str]]:
    """The Python API's value(s) of the variable ``name`` (a number, a list, a numpy array,
    masked or not) as float64 of the same shape, and why each bad point (counted flat) is bad.

    >>> given_values("x", [1, 2.5])
    (array([1. , 2.5]), {})
    >>> given_values("x", np.array([1.0, np.inf]))[1]
    {1: 'inf is not a finite number'}
    >>> given_values("x", [1 + 2j])
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: at, variable x, point 1: a complex number, not a real number

    Raises:
        InputError: a value that is not real numbers (naming the variable and the point), or
            a ragged list.
    """
    place = Place("at", name, unit="point", label="variable")
    if value is None or isinstance(value, int | float | np.generic | str | complex):
        number, why = python_number(value, place)
        return np.array(number), {} if why is None else {0: why}
    try:  # (a list as objects: numpy would round 2**53 + 1 and read True as 1.0)
        array = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
    except (TypeError, ValueError):
        raise InputError(
            f"at: the value of {name} is not a number or an array of numbers"
        ) from None
    shape = np.shape(array)
    column, bad = real_column(
        np.ma.ravel(array) if np.ma.isMaskedArray(array) else np.ravel(array), place
    )
    return column.reshape(shape), bad


def in_range(value: float, text: str) -> bool:
    """Whether a decimal ``text`` read as ``value`` is within the cell policy's range (at
    most 1e300 in magnitude, and 0 only when written as 0).

    >>> in_range(float("1e-400"), "1e-400"), in_range(0.0, "-0.000"), in_range(1e301, "1e301")
    (False, True, False)
    """
    if value == 0:
        return not text.lower().partition("e")[0].strip(" \t+-0.")
    return abs(value) <= MAX_MAGNITUDE


def table_in_range(table: np.ndarray, text: str) -> bool:
    """Whether every number of ``table`` (parsed from ``text``) is in the policy's range.

    >>> table_in_range(np.array([[0.0, 1.0]]), "0,1"), table_in_range(np.array([[0.0]]), "1e-400")
    (True, False)
    """
    if not np.all(np.abs(table) <= MAX_MAGNITUDE):  # (NaN fails too)
        return False
    if LONG_INTEGER.search(text) and np.any(np.abs(table) >= EXACT_INTEGER):
        return False  # 9007199254740993: the careful path refuses an inexact integer
    zeros = np.flatnonzero(table == 0)
    if not zeros.size:
        return True
    cells = text.replace("\n", ",").split(",")
    return all(in_range(0.0, cells[k]) for k in zeros.tolist())
