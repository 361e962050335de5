"""Kinks of the whole expression: where a piecewise part switches (flagged by the tape, or --
in exact arithmetic -- at a point float64 rounds past, ``abs(sin(x))`` at pi), whether f is
differentiable there is decided from f's own one-sided derivatives
(:func:`gradcalc.symbolic.decide.kinks.one_sided`), not from the part's: ``relu(x)^2`` at 0 is
differentiable with derivative 0 (the tape's value is replaced by the limit), ``abs(sin(x))``
at pi is not (-1 from the left, 1 from the right: exit 3). Where derivatives of higher order
were computed (a Hessian, ``--order N``), each must exist there too, decided the same way
from f's own one-sided derivatives of that order (:func:`higher_limits`, which ``taylor``
uses as well): ``max(x, 0)^2`` at 0 has f' = 0 but no f'' (0 from the left, 2 from the
right), wherever the tape's convention at the corner says 0.5.

>>> from gradcalc.engine.run.api import grad, hessian
>>> float(grad("relu(x)^2 + x", at={"x": 0.0}).gradient["x"])
1.0
>>> second = hessian("max(x, 0)^2", at={"x": 0.0}, strict=False)
>>> print(second.singularities[0].describe(second.points, "f"))  # doctest: +NORMALIZE_WHITESPACE
∂²f/∂x² of max(x, 0)^2 does not exist at x=0: 0 from the left, 2 from the right
(a piecewise part switches there)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.core.naming import derivative_label
from gradcalc.core.numbers import format_number
from gradcalc.core.ops import NOT_DIFFERENTIABLE
from gradcalc.core.problems import Problem
from gradcalc.engine.evaluate.findings import Finding
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.evaluate.singular import Singularity, side_text
from gradcalc.engine.judge.exact import exact_point
from gradcalc.lang.graph import Graph

if TYPE_CHECKING:  # the check's report: sympy is imported only when a check runs
    from gradcalc.symbolic.crosscheck.crosscheck import CheckReport

__all__ = [
    "MAX_POINTS",
    "PIECEWISE",
    "HigherDerivative",
    "Missing",
    "Settled",
    "checked_at_kinks",
    "higher_limits",
    "settle",
    "settled_findings",
]

MAX_POINTS = 20  # points at most whose kinks are decided exactly (sympy, a few ms each)
SECONDS = 5.0  # of sympy for one target's kinks, within the request's symbolic budget
PIECEWISE = frozenset({"abs", "relu", "max", "min", "step", "sign", "floor", "ceiling"})
SWITCH = "a piecewise part switches here in exact arithmetic (float64 rounds past it)"
AGREE = 1e-12  # two one-sided limits of a higher derivative this close (relative) are one


@dataclass(eq=False)
class HigherDerivative:
    """A derivative of order 2 or more a nested-tape run computed: its label in the check
    (``x,y``, ``d2``), its written name (``∂²f/∂x∂y``), the variables it differentiates by
    in turn (``("x", "y")``: by x, then by y) and the tape's values over the points."""

    label: str
    name: str
    path: tuple[str, ...]
    values: Any


@dataclass(frozen=True)
class Missing:
    """A derivative of order 2 or more that does not exist at a point: ``sides`` are its
    (left, right) values there (``None`` where there is no limit), or ``None`` when whether
    it exists could not be decided."""

    path: tuple[str, ...]
    sides: tuple[float | None, float | None] | None

    def singularity(self, expression: str, points: np.ndarray, target: str = "f") -> Singularity:
        """The :class:`Singularity` saying so at ``points`` (flat indices).

        >>> gone = Missing(("x", "x"), (-2.0, 2.0)).singularity("x*abs(x)", np.array([0]))
        >>> gone.derivative, gone.reason
        ('∂²f/∂x²', '-2 from the left, 2 from the right (a piecewise part switches there)')
        """
        if self.sides is None:
            reason = (
                "a piecewise part switches beside the point too, where sympy's derivative is a "
                "convention (or sympy ran out of time)"
            )
        else:
            along = f" (along {self.path[-1]})" if len(set(self.path)) > 1 else ""
            left, right = (side_text(side) for side in self.sides)
            reason = (
                f"{left} from the left, {right} from the right{along} (a piecewise part "
                "switches there)"
            )
        name = derivative_label(target, self.path)
        return Singularity(
            NOT_DIFFERENTIABLE,
            expression,
            0,
            "",
            reason,
            points,
            derivative=name,
            undecided=self.sides is None,
        )


def higher_limits(
    expr: Any, point: Mapping[str, Any], paths: Sequence[tuple[str, ...]], first: Mapping[str, Any]
) -> tuple[dict[tuple[str, ...], float], Missing | None]:
    """The derivatives of ``expr`` along ``paths`` (each of order 2 or more) at ``point``
    (name -> exact sympy value), where f's first derivatives exist with the values
    ``first``: each the common value of its one-sided limits
    (:func:`gradcalc.symbolic.decide.kinks.derivative_sides`), lower orders first; with
    the first that does not exist (or is undecided), where they stop.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> f = sp.Max(x, 0) ** 2 + sp.Min(x, 0) ** 2  # x^2
    >>> higher_limits(f, {"x": sp.Integer(0)}, [("x", "x"), ("x", "x", "x")], {"x": 0.0})
    ({('x',): 0.0, ('x', 'x'): 2.0, ('x', 'x', 'x'): 0.0}, None)
    >>> higher_limits(x * sp.Abs(x), {"x": sp.Integer(0)}, [("x", "x")], {"x": 0.0})[1]
    Missing(path=('x', 'x'), sides=(-2.0, 2.0))
    """
    from gradcalc.symbolic.decide.kinks import derivative_sides

    known: dict[tuple[str, ...], float] = {(n,): float(v) for n, v in first.items()}
    for path in sorted(dict.fromkeys(paths), key=len):
        prior = known.get(path[:-1])
        if prior is None:  # (by a statement's name: not a variable of f's expression)
            return known, Missing(path, None)
        sides = derivative_sides(expr, point, path, prior)
        left, right = (None, None) if sides is None else sides
        if left is None or right is None:
            return known, Missing(path, sides)
        if abs(left - right) > AGREE * max(abs(left), abs(right), 1.0):
            return known, Missing(path, sides)
        known[path] = right
    return known, None


@dataclass(eq=False)
class Settled:
    """The problems and singularities left once the differentiable kinks are removed, the
    gradient with their limits put in, and kinks found in exact arithmetic (with masks)."""

    problems: list[Problem]
    found: list[Singularity]
    gradient: dict[str, Any]
    exact_kinks: list[tuple[Singularity, np.ndarray]] = field(default_factory=list)
    decided: set[int] = field(default_factory=set)  # points whose kink was differentiable
    notes: list[str] = field(default_factory=list)
    #: the higher derivatives (by label) with their limits put in at the decided points
    higher: dict[str, Any] = field(default_factory=dict)


def settle(
    graph: Graph,
    target: int,
    sources: Sequence[str],
    gradient: Mapping[str, Any],
    points: Points,
    pairs: tuple[list[Problem], list[Singularity]],
    exact_switches: bool,
    higher: Sequence[HigherDerivative] = (),
) -> Settled:
    """Decide each kink of target ``target`` on the whole expression at up to MAX_POINTS
    points (``pairs``: the tape's problems and their singularities, in step); with
    ``exact_switches`` (when sympy checks the result anyway), also look for piecewise parts
    switching exactly at a point where float64 rounds past them. Where f is differentiable,
    each of the ``higher`` derivatives must exist too (else a singularity says which does
    not, among ``exact_kinks``), and gets its common one-sided value."""
    problems, found = pairs
    count = int(np.prod(np.shape(next(iter(points.arrays.values()), 0))))
    kinks = any(s.kind == NOT_DIFFERENTIABLE for s in found)
    if not 0 < count <= MAX_POINTS or not (kinks or (exact_switches and _piecewise(graph))):
        return Settled(list(problems), list(found), dict(gradient))
    from gradcalc.core.budget import CheckTimeout, symbolic_limit
    from gradcalc.core.errors import GradcalcError

    try:  # sympy's part, within the request's symbolic budget
        with symbolic_limit(SECONDS, ("kinks", id(graph), target)):
            out = Settled(list(problems), list(found), dict(gradient))
            return _settled(out, graph, target, (sources, higher), points, count, exact_switches)
    except (GradcalcError, CheckTimeout, ValueError, TypeError, ArithmeticError, RecursionError):
        # sympy cannot state or decide f here (a dot of scalars, a constant past 4,000
        # digits, Heaviside of a complex number, out of time): the tape's kinks stand
        return Settled(list(problems), list(found), dict(gradient))


def _settled(
    out: Settled,
    graph: Graph,
    target: int,
    asked: tuple[Sequence[str], Sequence[HigherDerivative]],
    points: Points,
    count: int,
    exact_switches: bool,
) -> Settled:
    """:func:`settle`'s work once sympy is needed, on ``out`` (the tape's problems and
    singularities, not yet settled) for the ``asked`` sources and higher derivatives; it
    may raise what sympy raises, leaving the tape's problems and singularities as they
    were."""
    from gradcalc.symbolic.crosscheck.crosscheck import target_expression

    sources, higher = asked
    expr = target_expression(graph, target)
    variables = [s for s in sources if s in graph.variable_nodes]
    exact = [exact_point(points, k) for k in range(count)]
    judge = _Higher(graph.text, graph.target_names[target], higher, count)
    kept_problems, kept_found = [], []
    flagged = np.zeros(count, dtype=bool)
    for problem, singular in zip(out.problems, out.found):
        if singular.kind == NOT_DIFFERENTIABLE and not singular.underflow:  # (no kink of f:
            # a part underflowed to 0, as x^2 at 3e-200 under sqrt)
            mask = _flat(problem.mask, count)
            mask = _removable(expr, exact, (variables, judge), mask, singular, out)
            if not mask.any():
                continue
            problem, singular = _restricted(problem, singular, mask)
        flagged |= _flat(problem.mask, count)
        kept_problems.append(problem)
        kept_found.append(singular)
    out.problems, out.found = _outside_decided(kept_problems, kept_found, out.decided, count)
    if exact_switches and _piecewise(graph):
        out.exact_kinks += _switches(graph, expr, exact, (variables, judge), flagged)
    if out.decided:
        out.notes.append(_common_values(out, points, graph.target_names[target], higher))
    return out


def _restricted(
    problem: Problem, singular: Singularity, mask: np.ndarray
) -> tuple[Problem, Singularity]:
    """``problem`` and ``singular`` at the points of ``mask`` (flat) only: copies."""
    count = mask.size
    shaped = mask.reshape(np.shape(problem.mask)) if np.size(problem.mask) == count else mask
    return replace(problem, mask=shaped), replace(singular, points=np.flatnonzero(mask))


def _outside_decided(
    problems: list[Problem], found: list[Singularity], decided: set[int], count: int
) -> tuple[list[Problem], list[Singularity]]:
    """The problems without those of a backward pass's records (``inside``: ``1/cbrt(x)^2``
    in the Hessian of ``cbrt(x)^8``) at the ``decided`` points, where f is differentiable and
    every derivative asked has its exact one-sided value instead of the tape's."""
    if not decided:
        return problems, found
    at = np.zeros(count, dtype=bool)
    at[list(decided)] = True
    kept: tuple[list[Problem], list[Singularity]] = ([], [])
    for problem, singular in zip(problems, found):
        if singular.inside:
            mask = _flat(problem.mask, count) & ~at
            if not mask.any():
                continue
            problem, singular = _restricted(problem, singular, mask)
        kept[0].append(problem)
        kept[1].append(singular)
    return kept


def _common_values(
    out: Settled, points: Points, target: str, higher: Sequence[HigherDerivative]
) -> str:
    """The note on the points where f is differentiable although a part has a kink, with
    the common values of its one-sided derivatives (at the first such point)."""
    ks = sorted(out.decided)
    first = ks[0]

    def value(column: Any) -> str:
        return format_number(np.asarray(column, dtype=float).reshape(-1)[first])

    values = [f"∂{target}/∂{n} = {value(g)}" for n, g in out.gradient.items() if g is not None]
    values += [f"{h.name} = {value(out.higher[h.label])}" for h in higher if h.label in out.higher]
    there = f" (at {points.label(first)})" if len(ks) > 1 and points.names else ""
    return (
        f"at {_where(points, ks)} a part of f has a corner or the edge of its domain, but "
        f"f's one-sided derivatives agree there: f is differentiable, with their common "
        f"value{'s' if len(values) > 1 else ''}{there}: {', '.join(values)}"
    )


@dataclass(eq=False)
class _Higher:
    """The higher derivatives asked for, judged at a point where f is differentiable."""

    expression: str
    target: str
    asked: Sequence[HigherDerivative]
    count: int

    def missing(
        self, expr: Any, point: Mapping[str, Any], sides: Mapping[str, Any], k: int, out: Settled
    ) -> Singularity | None:
        """The singularity of the first higher derivative that does not exist at point
        ``k`` (f's first derivatives there: the common values of ``sides``); ``None`` when
        all do, and then each gets its common one-sided value in ``out.higher``."""
        if not self.asked:
            return None
        first = {name: left for name, (left, _) in sides.items()}
        known, missing = higher_limits(expr, point, [h.path for h in self.asked], first)
        if missing is not None:
            return missing.singularity(self.expression, np.array([k]), self.target)
        for h in self.asked:
            column = out.higher.get(h.label, h.values)
            out.higher[h.label] = _put(column, k, known[h.path], self.count)
        return None


def _flat(mask: Any, count: int) -> np.ndarray:
    """A problem's mask as one flag per point (a copy)."""
    flags = np.asarray(mask, dtype=bool)
    flat = flags.reshape(-1) if flags.size == count else np.broadcast_to(flags, (count,))
    return np.array(flat, dtype=bool)


def _where(points: Points, ks: Sequence[int]) -> str:
    first = points.label(ks[0]) if points.names else "the point"
    return first + (f" (and {len(ks) - 1} more points)" if len(ks) > 1 else "")


def _piecewise(graph: Graph) -> bool:
    return any(node.op in PIECEWISE for node in graph.nodes)


def _removable(
    expr: Any,
    exact: list[dict[str, Any] | None],
    asked: tuple[list[str], _Higher],
    mask: np.ndarray,
    singular: Singularity,
    out: Settled,
) -> np.ndarray:
    """The points of ``mask`` where f is NOT differentiable; at the others (equal one-sided
    derivatives) the gradient gets their common value -- unless a higher derivative asked
    for does not exist there: then its singularity joins ``out.exact_kinks`` instead.
    ``singular.one_sided`` gets the slopes of the first point left."""
    from gradcalc.symbolic.decide.kinks import one_sided

    variables, higher = asked
    left: np.ndarray = mask.copy()
    first = True
    for k in map(int, np.flatnonzero(left)):
        point = exact[k]
        if point is None:
            continue
        sides = one_sided(expr, point, variables)
        if all(a is not None and a == b for a, b in sides.values()):
            left[k] = False
            missing = higher.missing(expr, point, sides, k, out)
            if missing is not None:
                out.exact_kinks.append((missing, _only(k, len(left))))
                continue
            out.decided.add(k)
            for name, (slope, _) in sides.items():
                out.gradient[name] = _put(out.gradient.get(name), k, float(slope or 0.0), len(left))
        elif first and not singular.inside:  # (f's slopes say nothing of its derivative's)
            singular.one_sided = {n: lr for n, lr in sides.items() if lr[0] != lr[1]}
            first = False
    return left


def _switches(
    graph: Graph,
    expr: Any,
    exact: list[dict[str, Any] | None],
    asked: tuple[list[str], _Higher],
    flagged: np.ndarray,
) -> list[tuple[Singularity, np.ndarray]]:
    """Kinks the tape could not see: points where a piecewise part switches exactly and the
    one-sided derivatives differ, or a higher derivative asked for does not exist (a
    Singularity each, with its mask)."""
    from gradcalc.symbolic.decide.kinks import at_switch, one_sided

    variables, higher = asked
    found = []
    for k, point in enumerate(exact):
        if point is None or flagged[k] or not at_switch(expr, point):
            continue
        sides = one_sided(expr, point, variables)
        if all(a is not None and a == b for a, b in sides.values()):
            # differentiable: the tape's values stand (the check judges them), if they exist
            missing = higher.missing(expr, point, sides, k, Settled([], [], {}))
            if missing is not None:
                found.append((missing, _only(k, len(exact))))
            continue
        differing = {n: lr for n, lr in sides.items() if lr[0] != lr[1]}
        singular = Singularity(
            NOT_DIFFERENTIABLE, graph.text, 0, "", SWITCH, np.array([k]), differing
        )
        found.append((singular, _only(k, len(exact))))
    return found


def _only(k: int, count: int) -> np.ndarray:
    """A mask of ``count`` points with point ``k`` alone set."""
    mask = np.zeros(count, dtype=bool)
    mask[k] = True
    return mask


def _put(column: Any, k: int, value: float, count: int) -> np.ndarray:
    """``column`` (None: 0) with entry ``k`` set to ``value``, in the points' shape."""
    base = np.zeros(()) if column is None else np.asarray(column, dtype=float)
    out = np.array(np.broadcast_to(base, (count,) if count > 1 else np.shape(base)), dtype=float)
    if out.ndim == 0:
        return np.array(value)
    out.reshape(-1)[k] = value
    return out


def settled_findings(findings: list[Finding], decided: np.ndarray) -> list[Finding]:
    """The diagnostic findings with those at the ``decided`` points (a kink whose one-sided
    derivatives of the whole f agree) marked settled: f is differentiable there, so the
    kink is no fault. A kinked record's "saturated" finding there is dropped: its slope
    at the corner is a convention, not a sign of a dead unit.

    >>> kink = Finding("kink", "relu(x) (tape #1) is at a kink", 1, np.array([True, True]))
    >>> [(f.label, f.mask.tolist()) for f in settled_findings([kink], np.array([True, False]))]
    [('kink', [False, True]), ('kink (settled)', [True, False])]
    """
    if not decided.any():
        return findings
    kinked = {f.record for f in findings if f.kind == "kink"}
    out = []
    for finding in findings:
        if finding.kind not in ("kink", "saturated") or finding.record not in kinked:
            out.append(finding)
            continue
        mask = np.broadcast_to(finding.mask, decided.shape)
        if (mask & ~decided).any():
            out.append(replace(finding, mask=mask & ~decided))
        if finding.kind == "kink" and (mask & decided).any():
            out.append(replace(finding, mask=mask & decided, settled=True))
    return out


def checked_at_kinks(report: CheckReport, decided: np.ndarray, columns: Mapping[str, Any]) -> None:
    """Put into ``report`` (the symbolic check, which skipped the ``decided`` points) each
    derivative's value there: f's common one-sided derivative, which ``columns`` holds by
    the check's label (sympy's form is no use at a kink: ``x**y*log(x)`` at x = 0). A check
    that compared nothing else agrees on them alone, saying so in its meaning."""
    from gradcalc.symbolic.crosscheck.crosscheck import NOTHING_COMPARED, ONE_SIDED

    if not report.partials or not decided.any():
        return
    flat = decided.reshape(-1)
    for label, column in columns.items():
        partial = report.partials.get(label)
        if partial is None:
            continue
        values = np.array(partial.values, dtype=float).reshape(decided.shape)
        slopes = np.broadcast_to(0.0 if column is None else column, decided.shape)
        values.reshape(-1)[flat] = slopes.reshape(-1)[flat]
        partial.values, partial.kinks = values, decided
    report.kinks = int(np.count_nonzero(decided))
    report.points += report.kinks
    if report.status == "skipped" and report.note == NOTHING_COMPARED:
        report.status, report.method, report.note = "agree", ONE_SIDED, ""
