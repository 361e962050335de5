"""The results beyond the gradient, each built on :class:`GradResult`: the Hessian with the
second-derivative test, derivatives of higher order, the directional derivative, and the
Jacobian of several targets. Their own module, so that a plain gradient does not pay for
making these classes (a dataclass costs about half a millisecond to make).

>>> from gradcalc.engine.run.api import hessian
>>> isinstance(hessian("x*y", at={"x": 1, "y": 2}), HessianResult)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from gradcalc.core.naming import derivative_label
from gradcalc.core.numbers import format_number
from gradcalc.engine.evaluate import display
from gradcalc.engine.evaluate.results import GradResult, numbers, where

if TYPE_CHECKING:  # (annotations: the classification is made where a Hessian is)
    from gradcalc.engine.evaluate.classify import Classification
    from gradcalc.symbolic.decide.extremum import HigherOrder


@dataclass(kw_only=True, repr=False)  # (GradResult's short repr, with the lines of its own)
class HessianResult(GradResult):
    """A :class:`GradResult` with the Hessian and the second-derivative test per point.

    ``matrix`` is shaped ``(n, n) + points shape``; ``tests[k]`` classifies point ``k``.
    ``shown_matrix`` is ``matrix`` exact where the check knows the exact value (see
    :attr:`GradResult.shown`), ``exact_matrix`` the exact texts per entry and point.
    ``lowest_order[k]`` decides point ``k`` where its test is inconclusive and the terms of
    lowest order can (:mod:`gradcalc.engine.judge.classified`; None elsewhere).
    """

    matrix: np.ndarray
    tests: list[Classification]
    shown_matrix: np.ndarray | None = None
    exact_matrix: list[list[list[str | None]]] = field(default_factory=list)
    lowest_order: list[HigherOrder | None] = field(default_factory=list)

    def verdict(self, k: int) -> str:
        """What point ``k`` is: the second-derivative test's verdict, or where it is
        inconclusive, that of the terms of lowest order when they decide it.

        >>> from gradcalc.engine.run.api import hessian
        >>> hessian("x^3", at={"x": 0}).verdict(0)
        'inflection point'
        """
        decided = self.lowest_order[k] if k < len(self.lowest_order) else None
        return self.tests[k].verdict if decided is None else decided.verdict

    def _summary(self) -> list[str]:
        """The gradient's lines, then the Hessian and its test (at the first point).

        >>> from gradcalc.engine.run.api import hessian
        >>> hessian("x^2 + x*y + y^2", at={"x": 0, "y": 0})
        HessianResult: f(x, y) = x^2 + x·y + y^2 at x=0, y=0
          f = 0
          ∂f/∂x = 0, ∂f/∂y = 0
          Hessian = [[2, 1], [1, 2]]: local minimum (positive definite)
          check: agree
        """
        *lines, check = super()._summary()
        matrix = self.matrix if self.shown_matrix is None else self.shown_matrix
        test = f"{self.verdict(0)} ({self.tests[0].curvature})"
        if np.asarray(self.undefined).flat[0]:
            test = "undefined"  # (no test of a matrix that is not there)
        return [*lines, f"Hessian{_first(matrix, self.undefined)}: {test}", check]


@dataclass(kw_only=True, repr=False)
class DerivativeResult(GradResult):
    """A :class:`GradResult` for one source with its derivatives of order 1..``order``."""

    order: int
    orders: list[np.ndarray]
    shown_orders: list[np.ndarray] = field(default_factory=list)  # exact where known

    @property
    def derivative(self) -> np.ndarray:
        """The derivative of the requested order."""
        return self.orders[-1]

    def _summary(self) -> list[str]:
        """The gradient's lines, then the derivative of the order asked for."""
        *lines, check = super()._summary()
        label = derivative_label(self.target, [self.sources[0]] * self.order)
        shown = (self.shown_orders or self.orders)[-1]
        return [*lines, f"{label} = {numbers(shown, self.undefined)}", check]


@dataclass(kw_only=True, repr=False)
class DirectionalResult(GradResult):
    """A :class:`GradResult` with the derivative along ``direction`` (unit length unless
    asked otherwise)."""

    direction: dict[str, float]
    directional: np.ndarray

    def _summary(self) -> list[str]:
        """The gradient's lines, then the derivative along the direction."""
        *lines, check = super()._summary()
        along = ", ".join(f"{n}={format_number(v)}" for n, v in self.direction.items())
        return [
            *lines,
            f"derivative along {along} = {numbers(self.directional, self.undefined)}",
            check,
        ]


@dataclass
class JacobianResult:
    """The Jacobian of several targets: ``matrix[i, j]`` = d target_i / d source_j (over the
    points), ``determinant`` when square; ``rows`` are the targets' gradient results.

    ``shown_matrix`` and ``determinant`` are exact where the check knows the exact values
    (see :attr:`GradResult.shown`); ``exact_determinant`` holds the determinant's exact
    text per point where every entry is known exactly, and ``symbolic_determinant`` sympy's
    simplified determinant (``r`` for the polar map), when it was found within the budget.
    """

    rows: list[GradResult]
    matrix: np.ndarray
    determinant: np.ndarray | None
    shown_matrix: np.ndarray | None = None
    exact_determinant: list[str | None] = field(default_factory=list)
    symbolic_determinant: str | None = None

    @property
    def targets(self) -> list[str]:
        """The targets' names."""
        return [row.target for row in self.rows]

    @property
    def undefined(self) -> np.ndarray:
        """Per point, whether any target is undefined there (a bad value given with
        ``strict=False``, or a singularity): its row of the matrix is not an answer."""
        undefined: np.ndarray = np.logical_or.reduce([np.asarray(r.undefined) for r in self.rows])
        return undefined

    def __repr__(self) -> str:
        """A few lines: how the text was read, where, the matrix (at the first point) and
        the determinant, in place of every row's fields (kilobytes).

        >>> from gradcalc.engine.run.api import jacobian
        >>> jacobian("r*cos(t), r*sin(t)", at={"r": 2, "t": 0})
        JacobianResult: r·cos(t), r·sin(t) at r=2, t=0
          ∂(f1, f2)/∂(r, t) = [[1, 0], [0, 2]]
          determinant = 2
        """
        first, sources = self.rows[0], ", ".join(self.rows[0].sources)
        matrix = self.matrix if self.shown_matrix is None else self.shown_matrix
        lines = [
            f"{type(self).__name__}: {first.read_as or first.expression} at {where(first)}",
            f"∂({', '.join(self.targets)})/∂({sources}){_first(matrix, self._undefined_rows())}",
        ]
        if self.determinant is not None:
            lines.append(f"determinant = {numbers(self.determinant, self.undefined)}")
        return "\n  ".join(lines)

    def _undefined_rows(self) -> np.ndarray:
        """Per target and point, whether that target is undefined there, shaped to mask
        ``matrix`` (``(m, 1) + points shape``)."""
        return np.expand_dims(np.stack([np.asarray(r.undefined) for r in self.rows]), 1)

    def _repr_html_(self) -> str | None:
        """In a notebook: the tables the command line prints, as HTML."""
        return display.show("text/html", self)


def _first(matrix: np.ndarray, undefined: np.ndarray | bool = False) -> str:
    """`` = [[...]]``: a matrix, or its first point's of several (``matrix`` is shaped
    ``(m, n) + points shape``), nan where ``undefined`` (broadcast to it).

    >>> _first(np.eye(2)), _first(np.zeros((1, 1, 3)))
    (' = [[1, 0], [0, 1]]', ' at the first point = [[0]]')
    >>> _first(np.eye(2), np.array([[True], [False]]))
    ' = [[nan, nan], [0, 1]]'
    """
    matrix = np.where(undefined, np.nan, np.asarray(matrix, dtype=float))
    if matrix.ndim == 2:
        return f" = {numbers(matrix)}"
    return f" at the first point = {numbers(matrix.reshape(*matrix.shape[:2], -1)[..., 0])}"
