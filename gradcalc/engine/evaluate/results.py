"""The typed result of the public API (:mod:`gradcalc.engine.run.api`) and the options that
shape it: a gradient with its evidence. The Hessian, higher derivatives, directional
derivative and Jacobian built on it are in :mod:`gradcalc.engine.evaluate.beyond` (a plain
gradient does not pay for making their classes).

>>> options = Options(check=False)
>>> options.check, options.strict
(False, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from gradcalc.core.naming import derivative_label, function_head
from gradcalc.core.numbers import format_number
from gradcalc.engine.evaluate import display
from gradcalc.engine.evaluate.evaluate import TapeRow
from gradcalc.engine.evaluate.findings import Finding, Thresholds
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.evaluate.singular import Singularity

if TYPE_CHECKING:  # (annotations: a result without the check never loads sympy)
    from gradcalc.symbolic.crosscheck.crosscheck import CheckReport


@dataclass(eq=False)
class GradResult:
    """The gradient of one target at one or many points, with its evidence.

    Attributes:
        expression: the text as typed.
        target: the target's name (statement name, or the expression's text).
        sources: the names differentiated with respect to, in order.
        points: the points (``points.count`` of them).
        value: the target's value (a 0-d array for one point).
        gradient: per source, the tape's derivative (``None``: the target does not
            depend on it -- it is independent).
        tape: the recorded operations, as rows with values and adjoints (for a replayed
            batch, recorded on a full tape when first read: see :class:`Options`).
        singularities: where and why the value or gradient is undefined (with
            ``subgradient``, kinks are not listed: they become warnings).
        undefined: per point, whether the gradient is undefined there.
        value_undefined: per point, whether the value itself is undefined there.
        first_reason: per point (flat), the index in ``singularities`` of the first one
            that concerns it, or -1.
        check: the comparison with sympy (``None`` with ``check=False``).
        warnings: plain-text notes for the user.
        diagnostics: NaN/infinity, vanishing or exploding components, saturated
            activations and kinks (see :mod:`gradcalc.engine.evaluate.diagnostics`).
        read_as: the expression as gradcalc read it (``e^2x`` is ``e^2·x``); where that is
            likely not what was meant, ``warnings`` start with both readings.
        read_warnings: those first warnings, about how the text was read (a table shows
            them beside ``read_as``).
        shown: the gradient to show: the tape's, except where the symbolic check found the
            exact value at a point (and agreed): there its nearest float (``cos(pi/2)`` is
            0, not 6.1e-17; see :mod:`gradcalc.engine.judge.exact`).
        exact: per source, the exact value's text per point (flat) where it is known and
            short (any length with ``exact``), else ``None``; empty without exact values.
        shown_value: ``value`` likewise exact where the points were given exactly.
        exact_value: the value's exact text per point (flat) where it is known and short
            (any length with ``exact``), else ``None``; empty without exact values.
        tangent: at a single point, the tangent line (one variable) or plane (two), as
            ``tangent line: y = 8 + 12(x - 2)``; ``None`` elsewhere or when not asked for
            (:attr:`Options.tangent`; see :mod:`gradcalc.engine.judge.tangent`).
        higher: the derivatives of order 2 or more a Hessian or ``order`` computed, by the
            check's label (``x,y``, ``d2``), where a kink of a part changed them: there f's
            common one-sided value replaces the tape's convention (empty elsewhere).
    """

    expression: str
    target: str
    sources: tuple[str, ...]
    points: Points
    value: np.ndarray
    gradient: dict[str, np.ndarray | None]
    tape: Sequence[TapeRow]
    singularities: list[Singularity]
    undefined: np.ndarray
    value_undefined: np.ndarray
    first_reason: np.ndarray
    check: CheckReport | None
    warnings: list[str] = field(default_factory=list)
    diagnostics: list[Finding] = field(default_factory=list)
    read_as: str = ""
    read_warnings: list[str] = field(default_factory=list)
    shown: dict[str, np.ndarray | None] = field(default_factory=dict)
    exact: dict[str, list[str | None]] = field(default_factory=dict)
    shown_value: np.ndarray | None = None
    exact_value: list[str | None] = field(default_factory=list)
    tangent: str | None = None
    higher: dict[str, np.ndarray] = field(default_factory=dict)

    def reason(self, k: int) -> str | None:
        """Why the gradient is undefined at point ``k`` (``None`` where it is defined)."""
        i = int(self.first_reason[k])
        if i < 0:
            return None
        singular = self.singularities[i]
        if singular.derivative:  # a derivative of higher order
            return f"{singular.summary()}: {singular.reason}"
        kind = "cannot be computed in float64" if singular.underflow else singular.kind
        return f"{singular.expression}: {kind}: {singular.reason}"

    def __repr__(self) -> str:
        """A few lines -- how the text was read, where, the value, the gradient, the check --
        in place of every field (a dataclass's repr dumps the tape: kilobytes).

        >>> from gradcalc import grad
        >>> grad("x^2*y", at={"x": 2, "y": [3, 4]})
        GradResult: f(x, y) = x^2·y at 2 points, the first x=2, y=3
          f = [12, 16]
          ∂f/∂x = [12, 16], ∂f/∂y = [4, 4]
          check: agree
        """
        return "\n  ".join(self._summary())

    def _summary(self) -> list[str]:
        """The lines of :meth:`__repr__` (a kind of result adds its own); where the value or
        the gradient is undefined, nan, and the first such point's reason."""
        head, body = function_head(self.read_as or self.expression, self.points.names)
        value = self.value if self.shown_value is None else self.shown_value
        gradient = {n: self.shown.get(n, self.gradient[n]) for n in self.sources}
        partials = ", ".join(
            f"{derivative_label(self.target, [name])} = "
            + ("0 (independent)" if part is None else numbers(part, self.undefined))
            for name, part in gradient.items()
        )
        lines = [
            f"{type(self).__name__}: {head + ' = ' if head else ''}{body} at {where(self)}",
            f"{self.target} = {numbers(value, self.value_undefined)}",
            partials,
        ]
        if self.undefined.any():
            k = int(np.flatnonzero(self.undefined)[0])
            lines.append(f"undefined at {self.points.label(k)}: {self.reason(k)}")
        return [*lines, f"check: {'not made' if self.check is None else self.check.status}"]

    def _repr_html_(self) -> str | None:
        """In a notebook: the tables the command line prints, as HTML (see
        :mod:`gradcalc.engine.evaluate.display`)."""
        return display.show("text/html", self)

    def _repr_latex_(self) -> str | None:
        """In a notebook (for LaTeX export): sympy's derivatives."""
        return display.show("text/latex", self)


def where(result: GradResult) -> str:
    """The point of a result (``x=1, y=2``), or how many and the first.

    >>> from gradcalc import grad
    >>> where(grad("x*y", at={"x": [1, 2], "y": 3}, check=False))
    '2 points, the first x=1, y=3'
    """
    count, first = int(np.size(result.value)), result.points.label(0)
    return first if count == 1 else f"{count} points, the first {first}"


def numbers(values: object, undefined: np.ndarray | bool = False) -> str:
    """A number or an array on one line, each number as tables write it (nan where
    ``undefined``), a long array cut.

    >>> numbers(np.float64(0.5)), numbers(np.arange(10.0)), numbers(np.eye(2))
    ('0.5', '[0, 1, 2, ..., 7, 8, 9]', '[[1, 0], [0, 1]]')
    >>> numbers(np.array([1.0, 2.0]), np.array([False, True]))
    '[1, nan]'
    """
    array = np.where(undefined, np.nan, np.asarray(values, dtype=float))
    if array.ndim == 0:
        return format_number(array)
    text = np.array2string(
        array, separator=", ", threshold=8, edgeitems=3, formatter={"float_kind": format_number}
    )
    return " ".join(text.split())


@dataclass(frozen=True)
class Options:
    """How to compute and check (see :func:`~gradcalc.engine.run.api.grad` for each)."""

    check: bool = True
    subgradient: bool = False
    check_timeout: float = 5.0
    exact: bool = False
    strict: bool = True
    thresholds: Thresholds = field(default_factory=Thresholds)
    tape: bool | None = None
    #: make the tangent line at a single point (:attr:`GradResult.tangent`): asked for by
    #: what shows it -- :func:`~gradcalc.engine.run.api.grad` and the table of one point
    tangent: bool = False
