"""Kinks of the whole expression: where a piecewise part switches (flagged by the tape, or --
in exact arithmetic -- at a point float64 rounds past, ``abs(sin(x))`` at pi), whether f is
differentiable there is decided from f's own one-sided derivatives
(:func:`gradcalc.symbolic.decide.kinks.one_sided`), not from the part's: ``relu(x)^2`` at 0 is
differentiable with derivative 0 (the tape's value is replaced by the limit), ``abs(sin(x))``
at pi is not (-1 from the left, 1 from the right: exit 3).

>>> from gradcalc.engine.run.api import grad
>>> float(grad("relu(x)^2 + x", at={"x": 0.0}).gradient["x"])
1.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.core.ops import NOT_DIFFERENTIABLE
from gradcalc.core.problems import Problem
from gradcalc.engine.evaluate.findings import Finding
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.evaluate.singular import Singularity
from gradcalc.lang.graph import Graph

if TYPE_CHECKING:  # the check's report: sympy is imported only when a check runs
    from gradcalc.symbolic.crosscheck.crosscheck import CheckReport

__all__ = ["MAX_POINTS", "PIECEWISE", "Settled", "checked_at_kinks", "settle", "settled_findings"]

MAX_POINTS = 20  # points at most whose kinks are decided exactly (sympy, a few ms each)
SECONDS = 5.0  # of sympy for one target's kinks, within the request's symbolic budget
PIECEWISE = frozenset({"abs", "relu", "max", "min", "step", "sign", "floor", "ceiling"})
SWITCH = "a piecewise part switches here in exact arithmetic (float64 rounds past it)"


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


def settle(
    graph: Graph,
    target: int,
    sources: Sequence[str],
    gradient: Mapping[str, Any],
    points: Points,
    pairs: tuple[list[Problem], list[Singularity]],
    exact_switches: bool,
) -> Settled:
    """Decide each kink of target ``target`` on the whole expression at up to MAX_POINTS
    points (``pairs``: the tape's problems and their singularities, in step); with
    ``exact_switches`` (when sympy checks the result anyway), also look for piecewise parts
    switching exactly at a point where float64 rounds past them."""
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
            return _settled(out, graph, target, sources, points, count, exact_switches)
    except (GradcalcError, CheckTimeout, ValueError, TypeError, ArithmeticError, RecursionError):
        # sympy cannot state or decide f here (a dot of scalars, a constant past 4,000
        # digits, Heaviside of a complex number, out of time): the tape's kinks stand
        return Settled(list(problems), list(found), dict(gradient))


def _settled(
    out: Settled,
    graph: Graph,
    target: int,
    sources: Sequence[str],
    points: Points,
    count: int,
    exact_switches: bool,
) -> Settled:
    """:func:`settle`'s work once sympy is needed, on ``out`` (the tape's problems and
    singularities, not yet settled); it may raise what sympy raises, leaving the tape's
    problems and singularities as they were."""
    from gradcalc.symbolic.crosscheck.crosscheck import target_expression

    expr = target_expression(graph, target)
    variables = [s for s in sources if s in graph.variable_nodes]
    exact = [_exact_point(points, k) for k in range(count)]
    kept_problems, kept_found = [], []
    flagged = np.zeros(count, dtype=bool)
    for problem, singular in zip(out.problems, out.found):
        if singular.kind == NOT_DIFFERENTIABLE:
            mask = _flat(problem.mask, count)
            mask = _removable(expr, exact, variables, mask, singular, out)
            if not mask.any():
                continue
            shaped = (
                mask.reshape(np.shape(problem.mask)) if np.size(problem.mask) == count else mask
            )
            problem = replace(problem, mask=shaped)
            singular = replace(singular, points=np.flatnonzero(mask))  # (a copy: see above)
        flagged |= _flat(problem.mask, count)
        kept_problems.append(problem)
        kept_found.append(singular)
    out.problems, out.found = kept_problems, kept_found
    if exact_switches and _piecewise(graph):
        out.exact_kinks = _switches(graph, expr, exact, variables, flagged)
    if out.decided:
        out.notes.append(
            f"at {_where(points, sorted(out.decided))} a part of f has a corner or the edge "
            "of its domain, but f's one-sided derivatives agree there: f is differentiable, "
            "with their common value"
        )
    return out


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


def _exact_point(points: Points, k: int) -> dict[str, Any] | None:
    """Point ``k`` in exact sympy values: as typed (``pi``) when given so, else the float's;
    ``None`` when a value is not finite (a NaN or infinite point has no exact kink)."""
    import sympy as sp

    from gradcalc.symbolic.crosscheck.crosscheck import exact_value

    texts = points.exact[k] if points.exact is not None else {}
    out = {}
    for name, values in points.arrays.items():
        text = texts.get(name)
        value = float(np.asarray(values).reshape(-1)[k] if np.ndim(values) else values)
        if not math.isfinite(value):
            return None
        out[name] = exact_value(text) if text else sp.Rational(repr(value))
    return out


def _removable(
    expr: Any,
    exact: list[dict[str, Any] | None],
    variables: list[str],
    mask: np.ndarray,
    singular: Singularity,
    out: Settled,
) -> np.ndarray:
    """The points of ``mask`` where f is NOT differentiable; at the others (equal one-sided
    derivatives) the gradient gets their common value. ``singular.one_sided`` gets the
    slopes of the first point left."""
    from gradcalc.symbolic.decide.kinks import one_sided

    left: np.ndarray = mask.copy()
    first = True
    for k in map(int, np.flatnonzero(left)):
        point = exact[k]
        if point is None:
            continue
        sides = one_sided(expr, point, variables)
        if all(a is not None and a == b for a, b in sides.values()):
            left[k] = False
            out.decided.add(k)
            for name, (slope, _) in sides.items():
                out.gradient[name] = _put(out.gradient.get(name), k, float(slope or 0.0), len(left))
        elif first:
            singular.one_sided = {n: lr for n, lr in sides.items() if lr[0] != lr[1]}
            first = False
    return left


def _switches(
    graph: Graph,
    expr: Any,
    exact: list[dict[str, Any] | None],
    variables: list[str],
    flagged: np.ndarray,
) -> list[tuple[Singularity, np.ndarray]]:
    """Kinks the tape could not see: points where a piecewise part switches exactly and the
    one-sided derivatives differ (a Singularity each, with its mask)."""
    from gradcalc.symbolic.decide.kinks import at_switch, one_sided

    found = []
    for k, point in enumerate(exact):
        if point is None or flagged[k] or not at_switch(expr, point):
            continue
        sides = one_sided(expr, point, variables)
        if all(a is not None and a == b for a, b in sides.values()):
            continue  # differentiable: the tape's value stands, and the check judges it
        differing = {n: lr for n, lr in sides.items() if lr[0] != lr[1]}
        singular = Singularity(
            NOT_DIFFERENTIABLE, graph.text, 0, "", SWITCH, np.array([k]), differing
        )
        mask = np.zeros(len(exact), dtype=bool)
        mask[k] = True
        found.append((singular, mask))
    return found


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


def checked_at_kinks(
    report: CheckReport, decided: np.ndarray, gradient: Mapping[str, Any], labels: Mapping[str, str]
) -> None:
    """Put into ``report`` (the symbolic check, which skipped the ``decided`` points) each
    derivative's value there: f's common one-sided derivative, which ``gradient`` holds
    (sympy's form is no use at a kink: ``x**y*log(x)`` at x = 0). A check that compared
    nothing else agrees on them alone, saying so in its meaning."""
    from gradcalc.symbolic.crosscheck.crosscheck import NOTHING_COMPARED, ONE_SIDED

    if not report.partials or not decided.any():
        return
    flat = decided.reshape(-1)
    for source, column in gradient.items():
        partial = report.partials.get(labels.get(source, source))
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
