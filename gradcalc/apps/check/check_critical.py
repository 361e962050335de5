"""Judge a set of critical points: ``gradcalc check EXPR --critical --answer "{(1,0), (-1,0)}"``.

Each of your points is judged on its own: ∇f is evaluated there exactly (sympy), so a point is
a critical point only when every component is proved 0, and not one when a component is
proved (or evaluated to 40+ digits) nonzero. Then the set is compared with gradcalc's own
critical points: when sympy solved ∇f = 0 the list is complete and a point you left out is
*missing*; when the search was numeric, a point you left out can only be reported as
undecided. A decimal close to an irrational critical point is undecided, with the exact
point to write; a point written exactly (``500000003``, ``3/2 + 1/10^7``) where ∇f ≠ 0 is
wrong, however close it is to one. Your coordinates go through gradcalc's parser
(``sqrt(3)/3``, ``pi/2``).

A critical point is meant as calculus textbooks define it: a point of f's domain where
∇f = 0 or where ∇f does not exist (``abs(x)`` at 0). The second kind is decided from f's
one-sided derivatives and, for one variable, found by :mod:`gradcalc.apps.check.corners`
(so leaving one out is *missing* too); in several variables they are not searched, and a
function that can have them gets an undecided line saying so. An end of f's domain
(``sqrt(x)`` at 0) is undecided: textbooks differ on it.

>>> [(v.component, v.verdict) for v in check_critical("x^3 - 3x + y^2", "{(1, 0)}")]
[('point 1', 'correct'), ('missing', 'wrong')]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from gradcalc.apps.check.corners import corners, interior, nondifferentiable
from gradcalc.apps.check.numbers import is_zero, written_exactly
from gradcalc.apps.check.verdicts import Verdict, Verdicts
from gradcalc.apps.critical.critical import CriticalPoint, critical_points
from gradcalc.core.errors import InputError
from gradcalc.core.numbers import counted
from gradcalc.engine.evaluate.singular import side_text
from gradcalc.engine.run.api import compile_expression
from gradcalc.lang.answers import points_of
from gradcalc.symbolic.crosscheck.crosscheck import (
    exact_value,
    symbolic_gradient,
    target_expression,
    time_limit,
)
from gradcalc.symbolic.decide.defined import finite_real
from gradcalc.symbolic.decide.realroots import has_odd_root
from gradcalc.symbolic.translate.notation import user_text

NEAR = 1e-4  # a decimal within this of an exact critical point is "close to it"
#: Said of a point where f is defined but ∇f does not exist.
TEXTBOOKS = "counted as calculus textbooks do (f' = 0 or f' does not exist there)"


def check_critical(
    expression: str,
    answer: str,
    region: str | Mapping[str, tuple[float, float]] | None = None,
    budget: float = 5.0,
) -> Verdicts:
    """One verdict per point of ``answer`` (a set of points, coordinates in the order of the
    expression's variables), then one per critical point it leaves out.

    Raises:
        InputError: a point with the wrong number of coordinates, an unreadable coordinate.
    """
    result = critical_points(expression, region, budget, everywhere=region is None)
    names = result.variables
    graph = compile_expression(expression)
    yours = [_exact_point(point, names) for point in points_of(answer)]
    with time_limit(budget * 2):
        gradient = symbolic_gradient(graph, 0, list(names))
    f = target_expression(graph, 0)
    verdicts: list[Verdict] = []
    matched: set[int] = set()
    seen: dict[tuple[str, ...], list[int]] = {}  # points by their coordinates to 9 digits
    for k, (texts, exact) in enumerate(yours):
        shown = f"({', '.join(texts)})"
        bucket = seen.setdefault(_rounded(exact, names), [])
        earlier = [j for j in bucket if _same_point(exact, yours[j][1], names)]
        bucket.append(k)
        if earlier:
            detail = f"the same point as point {earlier[0] + 1}: a set lists each point once"
            verdicts.append(Verdict(f"point {k + 1}", shown, "", "wrong", detail))
            continue
        found = [j for j, p in enumerate(result.points) if _matches(exact, p, names)]
        matched.update(found)
        truth = _coordinates(result.points[found[0]]) if found else "—"
        label = f"point {k + 1}"
        judged = _judge_point(label, shown, truth, exact, (f, gradient), names, result)
        if region is not None and judged.ok is not False:
            judged = _outside(judged, exact, result.region) or judged
        if judged.ok is None:  # close to a critical point: undecided, not also missing
            matched.update(j for j, p in enumerate(result.points) if _within(exact, p, names, NEAR))
        verdicts.append(judged)
    left_out = [p for j, p in enumerate(result.points) if j not in matched]
    if result.method == "exact":
        verdicts += [_missing(point) for point in left_out]
    elif left_out:
        verdicts.append(_not_listed(left_out, result.region))
    box = result.region if region is not None else None
    verdicts += _corners_left_out(f, names, box, yours)
    if not verdicts:
        verdicts.append(_no_points(result))
    for note in result.continua:
        verdicts.append(
            Verdict("continuum", "", "", "could not decide", f"{note}: a list cannot hold them")
        )
    return Verdicts(verdicts, expression, question="critical points of f")


def _no_points(result: Any) -> Verdict:
    """The verdict on an empty answer (and no critical point found): right when sympy's
    solution is complete, else undecided."""
    how = "sympy solved ∇f = 0" if result.method == "exact" else "the numeric search"
    verdict = "correct" if result.method == "exact" and not result.continua else None
    evidence = "proof" if verdict else ""
    return Verdict(
        "no points",
        "{}",
        "{}",
        verdict or "could not decide",
        f"{how} found no critical point",
        evidence=evidence,
    )


def _exact_point(texts: tuple[str, ...], names: tuple[str, ...]) -> tuple[tuple[str, ...], dict]:
    """The point's coordinates read by gradcalc's parser, as exact sympy numbers."""
    if len(texts) != len(names):
        raise InputError(
            f"the point ({', '.join(texts)}) has {counted(len(texts), 'coordinate')}; "
            f"f has {counted(len(names), 'variable')} ({', '.join(names)}), in that order"
        )
    exact = {}
    for name, text in zip(names, texts):
        try:
            exact[name] = exact_value(text)
        except InputError as error:
            raise InputError(f"the coordinate {text!r}: {error.message}") from None
    return texts, exact


def _judge_point(label, shown, truth, exact, functions, names, result) -> Verdict:
    """Is ∇f = 0 at the point? Proved, disproved, or close to a critical point; where ∇f
    may not exist (``functions``: f and sympy's ∇f), decided on f itself."""
    import sympy as sp

    from gradcalc.symbolic.decide.kinks import at_switch

    f, gradient = functions
    subs = {sp.Symbol(n, real=True): exact[n] for n in names}
    at_point = [gradient[n].xreplace(subs) for n in names]
    if any(finite_real(v) is False for v in at_point) or at_switch(f, exact):
        return _without_formula(Verdict(label, shown, truth, "could not decide", ""), f, exact)
    zero = [is_zero(v) for v in at_point]
    if all(z is True for z in zero):
        point = _point_at(exact, result, names)
        detail = "∇f = 0 there, exactly" + (f" ({point.test.verdict})" if point else "")
        return Verdict(label, shown, truth, "correct", detail, evidence="proof")
    if any(z is False for z in zero):
        # a decimal may be a critical point rounded; a point written exactly is what it says
        near = None if written_exactly(shown) else _near(exact, result, names)
        if near is not None:
            detail = (
                f"close to the critical point {_coordinates(near)} but not equal to it "
                "(∇f ≠ 0 at yours): write it exactly"
            )
            return Verdict(label, shown, _coordinates(near), "could not decide", detail)
        values = ", ".join(_value_text(gradient[n].xreplace(subs)) for n in names)
        detail = f"not a critical point: ∇f = ({values}) there"
        return Verdict(label, shown, truth, "wrong", detail, evidence="exact")
    detail = "sympy could neither prove nor disprove ∇f = 0 there"
    return Verdict(label, shown, truth, "could not decide", detail)


def _without_formula(verdict: Verdict, f: Any, exact: dict) -> Verdict:
    """The verdict on a point where sympy's form of ∇f says nothing (a part of f switches,
    or the form is not a number there): from f's value and its one-sided derivatives.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> blank = Verdict("point 1", "(0)", "—", "could not decide", "")
    >>> _without_formula(blank, sp.Abs(x), {"x": sp.Integer(0)}).detail[:66]
    'a critical point: ∂f/∂x does not exist there (-1 from the left, 1 '
    >>> _without_formula(blank, sp.Max(x, 0) ** 2, {"x": sp.Integer(0)}).verdict
    'correct'
    """
    import sympy as sp

    from gradcalc.symbolic.decide.kinks import first_sides

    subs = {sp.Symbol(n, real=True): v for n, v in exact.items()}
    if finite_real(f.xreplace(subs)) is False:
        detail = "not a critical point: f itself is undefined there"
        return replace(verdict, verdict="wrong", detail=detail, evidence="exact")
    sides = first_sides(f, exact, list(exact))
    if sides is None:
        detail = "∇f has no value there and sympy could not compute f's one-sided derivatives"
        return replace(verdict, detail=detail)
    missing = {n: lr for n, lr in sides.items() if lr[0] is None or lr[0] != lr[1]}
    if missing:
        said = "; ".join(
            f"∂f/∂{n} does not exist there ({side_text(left)} from the left, "
            f"{side_text(right)} from the right)"
            for n, (left, right) in missing.items()
        )
        if not interior(f, exact):
            detail = f"an end of f's domain: {said}; textbooks differ on whether it counts"
            if has_odd_root(f):
                detail += " (gradcalc reads x^(p/q) as undefined for x < 0: cbrt(x)^2 is real)"
            return replace(verdict, detail=detail)
        detail = f"a critical point: {said}; {TEXTBOOKS}"
        return replace(verdict, verdict="correct", detail=detail, evidence="limit")
    slopes = ", ".join(side_text(left) for left, _ in sides.values())
    if all(left == 0 for left, _ in sides.values()):
        detail = "∇f = 0 there: f's one-sided derivatives are all 0 (a part of f switches there)"
        return replace(verdict, verdict="correct", detail=detail, evidence="limit")
    detail = f"not a critical point: ∇f = ({slopes}) there, f's one-sided derivatives agreeing"
    return replace(verdict, verdict="wrong", detail=detail, evidence="limit")


def _corners_left_out(
    f: Any, names: tuple[str, ...], region: Mapping[str, tuple[float, float]] | None, yours: list
) -> list[Verdict]:
    """The points where ∇f does not exist that the answer leaves out (one variable), or a
    line saying they could not all be found (several variables, or sympy could not list
    them); nothing when f is differentiable wherever it is defined."""
    if not nondifferentiable(f, names):
        return []
    found = corners(f, names, region)
    if found is None:
        how = (
            "in several variables gradcalc does not search for them"
            if len(names) > 1
            else "sympy could not list them all"
        )
        detail = (
            f"f may have points where ∇f does not exist, critical points as textbooks count "
            f"them; {how}: compare your answer with f's corners yourself"
        )
        return [Verdict("where ∇f does not exist", "", "", "could not decide", detail)]
    left_out = []
    for corner in found:
        if not corner.interior or any(_same_point(corner.point, e, names) for _, e in yours):
            continue
        where = f"({user_text(corner.point[names[0]])})"
        left, right = (side_text(side) for side in corner.sides)
        detail = (
            f"{where} is a critical point too: f' does not exist there ({left} from the left, "
            f"{right} from the right); {TEXTBOOKS}"
        )
        left_out.append(Verdict("missing", "", where, "wrong", detail, evidence="exact"))
    return left_out


def _outside(
    verdict: Verdict, exact: dict, region: Mapping[str, tuple[float, float]]
) -> Verdict | None:
    """Your point lies outside the region the question asks about (``--in``): not one of its
    critical points, whatever ∇f is there. None when it lies inside; undecided on the edge
    (within 1e-12, where float64 bounds cannot tell).

    >>> import sympy as sp
    >>> v = Verdict("point 1", "(-1)", "—", "correct", "∇f = 0 there, exactly")
    >>> _outside(v, {"x": sp.Integer(-1)}, {"x": (0.0, 3.0)}).verdict
    'wrong'
    >>> _outside(v, {"x": sp.Integer(1)}, {"x": (0.0, 3.0)}) is None
    True
    """
    box = ", ".join(f"{n}={lo:g}..{hi:g}" for n, (lo, hi) in region.items())
    edge = False
    for name, (lo, hi) in region.items():
        value = float(exact[name])
        slack = 1e-12 * (1 + max(abs(lo), abs(hi)))
        if value < lo - slack or value > hi + slack:
            detail = f"outside the region {box} the question asks about ({name} = {value:.6g})"
            return replace(verdict, verdict="wrong", detail=detail, evidence="exact")
        edge = edge or not lo <= value <= hi
    if edge:
        detail = f"on the edge of the region {box}, closer than float64 bounds can tell"
        return replace(verdict, verdict="could not decide", detail=detail, evidence="")
    return None


def _missing(point: CriticalPoint) -> Verdict:
    """A critical point of sympy's complete solution that the answer leaves out."""
    where = _coordinates(point)
    detail = f"{where} is a critical point too ({point.test.verdict}); sympy solved ∇f = 0"
    return Verdict("missing", "", where, "wrong", detail, evidence="exact")


def _not_listed(points: list[CriticalPoint], region: Mapping[str, tuple[float, float]]) -> Verdict:
    """Critical points a numeric search found that the answer leaves out: undecided, since
    the search is not known complete (nor is the question's region)."""
    shown = ", ".join(_coordinates(p) for p in points[:3]) + (", …" if len(points) > 3 else "")
    box = ", ".join(f"{n}={lo:g}..{hi:g}" for n, (lo, hi) in region.items())
    detail = (
        f"a numeric search in {box} (sympy could not solve ∇f = 0) found "
        f"{counted(len(points), 'critical point')} you did not list: {shown}; "
        "give --in for the region your exercise asks about"
    )
    return Verdict("not listed", "", shown, "could not decide", detail)


def _rounded(exact: dict, names) -> tuple[str, ...]:
    """The point's coordinates to 9 significant digits: equal points share it (so each point
    is compared exactly only with the few earlier ones that share it, not with all of them:
    a list of 5,000 points took 29 s, quadratically).

    >>> import sympy as sp
    >>> _rounded({"x": sp.pi / 2}, ["x"]) == _rounded({"x": sp.asin(1)}, ["x"])
    True
    """
    out = []
    for n in names:
        try:
            out.append(f"{complex(exact[n].evalf(15)).real:.9g}")
        except (TypeError, ValueError):
            out.append(str(exact[n]))
    return tuple(out)


def _same_point(a: dict, b: dict, names) -> bool:
    return all(is_zero(a[n] - b[n]) is True for n in names)


def _matches(exact: dict, point: CriticalPoint, names) -> bool:
    """Your point is this critical point: exactly equal, or (numeric points) within 1e-9."""
    if point.exact is not None:
        return _same_point(exact, point.exact, names)
    return _within(exact, point, names, 1e-9)


def _within(exact: dict, point: CriticalPoint, names, tolerance: float) -> bool:
    return all(
        abs(float(exact[n]) - point.point[n]) <= tolerance * (1 + abs(point.point[n]))
        for n in names
    )


def _point_at(exact: dict, result, names) -> CriticalPoint | None:
    return next((p for p in result.points if _matches(exact, p, names)), None)


def _near(exact: dict, result, names) -> CriticalPoint | None:
    for point in result.points:
        if _within(exact, point, names, NEAR):
            return point
    return None


def _coordinates(point: CriticalPoint) -> str:
    if point.exact is not None:
        return f"({', '.join(user_text(v) for v in point.exact.values())})"
    return f"≈ ({', '.join(f'{v:.10g}' for v in point.point.values())})"


def _value_text(value: Any) -> str:
    text = user_text(value)
    return text if len(text) <= 24 else f"{complex(value.evalf(12)).real:.10g}"
