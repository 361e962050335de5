"""Points to evaluate at: ``--at`` specs, parsed into arrays of values.

Every value goes through the same validated parser as expressions
(:func:`gradcalc.lang.parser.parse_constant`), so ``pi/4``, ``1/3`` and ``sqrt(2)`` work
and nothing else gets in.

>>> points = parse_at(["w1=5,w2=3"])
>>> points.names, float(points.arrays["w1"]), points.exact
(('w1', 'w2'), 5.0, [{'w1': '5', 'w2': '3'}])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gradcalc.core.cells import DATE, inexact_integer
from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.core.numbers import format_number
from gradcalc.lang.literals import DECIMAL, NAME, at_rows


@dataclass(eq=False)
class Points:
    """Values for some variables at one or many points.

    ``arrays`` maps each name to a 0-d array (one ``--at``) or a 1-d array (several
    points); ``exact`` holds, per point, each value's text when it was given exactly
    (``--at``), or is ``None`` (values read from a file). ``first_row`` is the file
    row number of the first point (for messages), 0 for ``--at``. ``ids`` holds, per
    point, the text of the file's ``--id`` column (``None`` without one). ``bad`` marks,
    per point, a value that was not a number (the API's ``strict=False``): those points are
    undefined, never computed as if they were. ``warnings`` say how values were read that
    could be meant otherwise (a file's cell ``1/2pi`` is (1/2)·pi): every result made at
    these points carries them.
    """

    names: tuple[str, ...]
    arrays: dict[str, np.ndarray]
    exact: list[dict[str, str]] | None
    first_row: int = 0
    ids: list[str] | None = None
    bad: np.ndarray | None = None
    warnings: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        """How many points."""
        first = next(iter(self.arrays.values()), None)
        return 1 if first is None or first.ndim == 0 else len(first)

    def label(self, k: int) -> str:
        """Point ``k`` written as ``x=1, y=2``: its exact text where known, else each value
        as short as it reads back (:func:`~gradcalc.core.numbers.format_number`, as tables
        and CSV write it).

        >>> Points(("x", "y"), {"x": np.array([1e300]), "y": np.array([0.1])}, None).label(0)
        'x=1e+300, y=0.1'
        """
        if self.exact is not None:
            return ", ".join(f"{n}={v}" for n, v in self.exact[k].items())
        values = {
            n: self.arrays[n] if self.arrays[n].ndim == 0 else self.arrays[n][k] for n in self.names
        }
        return ", ".join(f"{n}={format_number(v)}" for n, v in values.items())

    def parts(self, rows: int) -> list[Points]:
        """These points cut into parts of at most ``rows`` points each, in order (file row
        numbers, exact texts, ids and bad marks kept with their points).

        >>> many = Points(("x",), {"x": np.arange(5.0)}, None, first_row=2, ids=list("abcde"))
        >>> [(p.arrays["x"].tolist(), p.first_row, p.ids) for p in many.parts(2)]
        [([0.0, 1.0], 2, ['a', 'b']), ([2.0, 3.0], 4, ['c', 'd']), ([4.0], 6, ['e'])]
        """
        count = self.count
        if count <= rows or all(a.ndim == 0 for a in self.arrays.values()):
            return [self]
        return [self._part(start, min(start + rows, count)) for start in range(0, count, rows)]

    def _part(self, start: int, stop: int) -> Points:
        """Points ``start`` to ``stop`` (one value for all of them stays one)."""
        return Points(
            self.names,
            {n: a if a.ndim == 0 else a[start:stop] for n, a in self.arrays.items()},
            None if self.exact is None else self.exact[start:stop],
            self.first_row + start,
            None if self.ids is None else self.ids[start:stop],
            None if self.bad is None else self.bad[start:stop],
            self.warnings,
        )


def constant_value(text: str) -> float:
    """The float value of a constant expression, validated like any expression.

    >>> constant_value("pi/4") == 0.7853981633974483, constant_value("1/3")
    (True, 0.3333333333333333)

    Raises:
        InputError: for anything that is not a finite real constant.
    """
    if (inexact := inexact_integer(text)) is not None:  # a value, not an expression's literal
        raise InputError(inexact, text=text)
    if DATE.fullmatch(text):  # 2020-01-02 is not 2017
        raise InputError(f"{text.strip()!r} is not a number (a date?)", text=text)
    if DECIMAL.fullmatch(text) and (  # the parser's own range; 0 only when written as 0
        not text.lower().partition("e")[0].strip("-0.") or 1e-300 <= abs(float(text)) <= 1e300
    ):
        return float(text)  # a plain number: what the parser makes of it, sooner
    from gradcalc.engine.evaluate.evaluate import evaluate
    from gradcalc.lang.graph import lower
    from gradcalc.lang.parser import parse_constant
    from gradcalc.lang.syntax import Program, Statement

    node = parse_constant(text)
    graph = lower(Program(text, (Statement(None, node, 0),)))
    try:
        value = float(evaluate(graph, {}).values[0])
    except UndefinedError as error:  # pi/0 given as a value is bad input, not a result
        raise InputError(error.message, text=text) from None
    if not np.isfinite(value):
        raise InputError(f"the value {text!r} is not a finite real number", text=text)
    return value


def _value(name: str, text: str, what: str) -> float:
    """One value of a point; an error names the variable it was for (but for ``--at``, whose
    text shows it)."""
    try:
        return constant_value(text)
    except InputError as error:
        if what == "--at":
            raise
        raise InputError(f"{what} {name}: {error.message}", error.text, error.column) from None


def parse_at(specs: Sequence[str]) -> Points:
    """Parse one or more ``--at`` specs (``"x=1,y=pi/4"``); every spec names the same variables
    (the specs are split into pairs by :func:`gradcalc.lang.literals.at_rows`).

    Raises:
        InputError: for a malformed pair, a bad name, a repeated name, a bad value,
            or specs that name different variables.
    """
    return points_from_rows(at_rows(specs))


def points_from_rows(rows: Sequence[Mapping[str, str]], what: str = "--at") -> Points:
    """Points from rows of ``{name: value text}``: each value is read on its own as one
    constant (never spliced into a spec), so ``"1,e=5"`` is a bad value, not two pairs.

    >>> points_from_rows([{"x": "pi/2"}]).exact
    [{'x': 'pi/2'}]
    >>> points_from_rows([{"x": "1,e=5"}])
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: ...

    Raises:
        InputError: for a bad name, a bad value, or rows that name different variables.
    """
    for row in rows:
        for name in row:
            if not NAME.match(name):
                raise InputError(f"{what}: {name!r} is not a valid variable name")
        if set(row) != set(rows[0]):
            raise InputError(
                f"every {what} must name the same variables: "
                f"{', '.join(rows[0])} vs {', '.join(row)}"
            )
    names = tuple(rows[0]) if rows else ()
    values = {n: [_value(n, r[n].strip(), what) for r in rows] for n in names}
    shaped = {n: np.array(v[0] if len(rows) == 1 else v, dtype=float) for n, v in values.items()}
    exact = [{n: r[n].strip() for n in names} for r in rows] or [{}]  # (no values: one point)
    return Points(names, shaped, exact)
