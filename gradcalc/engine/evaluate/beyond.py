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

from gradcalc.engine.evaluate import display
from gradcalc.engine.evaluate.results import GradResult

if TYPE_CHECKING:  # (annotations: the classification is made where a Hessian is)
    from gradcalc.engine.evaluate.classify import Classification


@dataclass(kw_only=True)
class HessianResult(GradResult):
    """A :class:`GradResult` with the Hessian and the second-derivative test per point.

    ``matrix`` is shaped ``(n, n) + points shape``; ``tests[k]`` classifies point ``k``.
    ``shown_matrix`` is ``matrix`` exact where the check knows the exact value (see
    :attr:`GradResult.shown`), ``exact_matrix`` the exact texts per entry and point.
    """

    matrix: np.ndarray
    tests: list[Classification]
    shown_matrix: np.ndarray | None = None
    exact_matrix: list[list[list[str | None]]] = field(default_factory=list)


@dataclass(kw_only=True)
class DerivativeResult(GradResult):
    """A :class:`GradResult` for one source with its derivatives of order 1..``order``."""

    order: int
    orders: list[np.ndarray]
    shown_orders: list[np.ndarray] = field(default_factory=list)  # exact where known

    @property
    def derivative(self) -> np.ndarray:
        """The derivative of the requested order."""
        return self.orders[-1]


@dataclass(kw_only=True)
class DirectionalResult(GradResult):
    """A :class:`GradResult` with the derivative along ``direction`` (unit length unless
    asked otherwise)."""

    direction: dict[str, float]
    directional: np.ndarray


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

    def _repr_html_(self) -> str | None:
        """In a notebook: the tables the command line prints, as HTML."""
        return display.show("text/html", self)
