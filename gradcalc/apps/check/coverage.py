"""Cover an unproven verdict: a pass that rests on sampling must have sampled the answer's
whole behaviour -- every piece of a piecewise difference (points on either side of every
switch, found by solving where the parts switch) and every magnitude from 10^-3 to 10^6
the domain allows, not only a box near the origin. A difference found there is a witness;
a piece no point could test leaves the verdict undecided, with the reason.

>>> import sympy as sp
>>> from gradcalc.engine.run.api import compile_expression
>>> from gradcalc.symbolic.decide.decision import Decision
>>> x = sp.Symbol("x", real=True)
>>> sampled = Decision("equivalent", "high precision", "no proof, but equal ...")
>>> answer = compile_expression("2*x + step(x - 1000)")
>>> decision, where = cover(sampled, answer, compile_expression("x^2"),
...                         (2 * x + sp.Heaviside(x - 1000, 0), 2 * x), [x], [])
>>> decision.verdict, decision.detail.startswith("differs at x=")
('not equivalent', True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from time import process_time
from typing import Any

import numpy as np

from gradcalc.apps.check.sampling import in_domain
from gradcalc.lang.graph import Graph
from gradcalc.symbolic.decide.decision import EQUIVALENT, UNDECIDED, Decision
from gradcalc.symbolic.decide.patience import patient
from gradcalc.symbolic.decide.pieces import (
    Pieces,
    branch_arguments,
    has_pieces,
    pieces_of,
    solved_switches,
)
from gradcalc.symbolic.decide.precision import Evaluator

__all__ = ["DECADES", "PROVEN", "cover", "magnitude_points", "scale_decades", "switch_points"]

EMPTY_SECONDS = 1.0  # for sympy to tell that a region of the answer's pieces is empty

DECADES = tuple(range(-3, 7))  # magnitudes 10^k sampled, where the domain allows
PROVEN = ("proof", "exact points", "exact", "domain")
SECONDS = 3.0  # CPU seconds for the tests at the extra points
FOLD_SECONDS = 2.0  # for sympy to split the difference into pieces and prove them
SOLVE_SECONDS = 1.0  # for sympy to solve where the parts switch
PER_PIECE = 16  # test points per piece at most
BASES = 6  # points of the other variables at which a switch is solved for one
OFFSETS = (1e-6, 1e-2, 0.5)  # relative distances from a switch, on either side
SEED = 20261205


def cover(
    decision: Decision,
    answer_graph: Graph,
    graph: Graph,
    sides: tuple[Any, Any],
    symbols: Sequence[Any],
    sample: Sequence[Mapping[str, Any]],
) -> tuple[Decision, str]:
    """The decision on (answer, truth) = ``sides`` once the answer's whole behaviour is
    covered, and where it was sampled (empty unless the pass rests on sampling).
    ``sample``: exact points of the domain already drawn (they count too)."""
    if decision.evidence in PROVEN or decision.ok is False:
        return decision, ""
    answer, truth = sides
    difference = answer - truth
    pieces = None
    if has_pieces(answer) or has_pieces(truth):
        pieces = pieces_of(difference, symbols, patient(FOLD_SECONDS))
        if pieces is not None and pieces.proven:
            detail = "sympy proves the difference is 0 " + (
                "once its piecewise parts are resolved"
                if pieces.total == 1
                else f"on each of its {pieces.total} pieces"
            )
            return Decision(EQUIVALENT, "proof", detail), ""
    points = _candidates((graph, answer_graph), sides, symbols, pieces, sample)
    finite = pieces is not None and pieces.open and not pieces.stairs
    regions = list(pieces.open) if finite and pieces else [(difference, True)]
    tested = _test(sides, symbols, regions, points)
    if isinstance(tested, Decision) or decision.ok is None:
        return tested if isinstance(tested, Decision) else decision, ""
    outside = [not mine and _outside_domain(c, graph) for mine, (_, c) in zip(tested, regions)]
    unused = [not mine and _empty(c) for mine, (_, c) in zip(tested, regions)]  # (no point)
    kept = [(t, r) for t, r, o, e in zip(tested, regions, outside, unused) if not (o or e)]
    reason = _gap(pieces, has_pieces(difference), [t for t, _ in kept], [r for _, r in kept])
    if reason:
        return Decision(UNDECIDED, "", f"no proof, and {reason}"), ""
    beyond = "".join(
        f"; {condition} lies outside f's domain (proved), so no answer is judged there"
        for (_, condition), o in zip(regions, outside)
        if o
    )
    if not kept:  # every other piece proved 0 (pieces.open holds the unproven ones)
        detail = f"sympy proves the difference is 0 on each piece of f's domain{beyond}"
        return Decision(EQUIVALENT, "proof", detail), ""
    where = _where([t for t, _ in kept], symbols, pieces)
    detail = f"{decision.detail}; and at {where}{beyond}"
    return Decision(EQUIVALENT, "high precision", detail), where


def _outside_domain(condition: Any, graph: Graph) -> bool:
    """Whether sympy proves f not real on the whole half-line ``condition`` (``x < 0``,
    ``x > 2``): f(c - t), or f(c + t), is not real for every t > 0. Such a piece of the
    difference needs no test: the derivative asked about does not exist there.

    >>> import sympy as sp
    >>> from gradcalc.engine.run.api import compile_expression
    >>> x = sp.Symbol("x", real=True)
    >>> ln, cube = compile_expression("ln(x)"), compile_expression("x^3")
    >>> _outside_domain(x < 0, ln), _outside_domain(x < 0, cube), _outside_domain(x > 0, ln)
    (True, False, False)
    """
    import sympy as sp

    from gradcalc.symbolic.crosscheck.crosscheck import to_sympy

    if not isinstance(condition, sp.core.relational.Relational) or condition.rel_op == "==":
        return False
    low, high = condition.lts, condition.gts  # low < high (or <=)
    if isinstance(low, sp.Symbol) and high.is_number:
        variable, edge, sign = low, high, -1
    elif isinstance(high, sp.Symbol) and low.is_number:
        variable, edge, sign = high, low, 1
    else:
        return False
    t = sp.Dummy("t", positive=True)
    try:
        function = to_sympy(graph)[graph.targets[0]]
        return function.subs(variable, edge + sign * t).is_real is False
    except (TypeError, ValueError, RecursionError):
        return False


def _gap(pieces: Pieces | None, piecewise: bool, tested, regions) -> str:
    """Why the tests do not cover the answer's behaviour (empty when they do)."""
    if piecewise and pieces is None:
        return "sympy could not split the difference into its pieces in time"
    if pieces is not None and pieces.stairs:
        return "floor/ceiling switch at infinitely many places: no finite set of tests covers them"
    for k, (_, condition) in enumerate(regions):
        if not tested[k]:
            where = "" if condition is True else f" where {_words(condition)}"
            return f"no test point could be evaluated{where}"
    return ""


def _empty(condition: Any) -> bool:
    """Does sympy prove that the region ``condition`` holds nowhere (a piece of the answer
    that is never used, as ``x^2 > 4`` inside ``-2 < x < 2``: no test is needed there)?

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> _empty(sp.And(x**2 > 4, x < 2, x > -2)), _empty(x > 2), _empty(True)
    (True, False, False)
    """
    import sympy as sp

    from gradcalc.core.budget import symbolic_limit
    from gradcalc.symbolic.decide.patience import FAILURES

    if condition is True:
        return False
    try:
        with symbolic_limit(patient(EMPTY_SECONDS)):
            return condition.as_set() == sp.S.EmptySet
    except (*FAILURES, NotImplementedError, AttributeError):
        return False  # (several variables: sympy's as_set does one)


def _words(condition: Any) -> str:
    """A region in gradcalc's notation, with "and" and "or" for sympy's & and |.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> _words(sp.Or(x**2 > 4, x < 0))
    '(x < 0) or (x^2 > 4)'
    """
    from gradcalc.symbolic.translate.notation import user_text

    return user_text(condition).replace(" & ", " and ").replace(" | ", " or ")


def _test(sides, symbols, regions, points) -> Decision | list[list[dict]]:
    """A witness where the two sides differ, else the agreeing points of each region."""
    answer, truth = sides
    evaluator = Evaluator(answer, truth, symbols, answer - truth)
    deadline = process_time() + SECONDS
    agreed: list[list[dict]] = []
    for _, condition in regions:
        inside = [p for p in points if _holds(condition, p, symbols)]
        mine: list[dict] = []
        for point in _spread(inside, symbols)[:PER_PIECE]:
            outcome = evaluator.compare(point, deadline, first=not mine)
            if isinstance(outcome, Decision):
                return outcome
            if outcome is not None:
                mine.append(point)
        agreed.append(mine)
    return agreed


def _holds(condition: Any, point: Mapping[str, Any], symbols) -> bool:
    if condition is True:
        return True
    value = condition.subs({s: point[str(s)] for s in symbols})
    return bool(value == True)  # noqa: E712 (sympy's true, not a Python bool)


def _spread(points: list[dict], symbols) -> list[dict]:
    """The points reordered so that the first ones span the magnitudes and the signs: one
    per decade of the largest coordinate in turn (the decades taken from both ends
    inwards), each decade's positive and negative points side by side.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> points = [{"x": sign * sp.Rational(10) ** k} for k in range(-3, 7) for sign in (1, -1)]
    >>> [str(p["x"]) for p in _spread(points, [x])][:4]
    ['1000000', '-1000000', '1/1000', '-1/1000']
    """
    bins: dict[tuple[int, bool], list[dict]] = {}
    for p in points:
        largest = max((float(p[str(s)]) for s in symbols), key=abs, default=0.0)
        decade = int(np.floor(np.log10(abs(largest)))) if largest else -99
        bins.setdefault((decade, largest < 0), []).append(p)
    order: list[dict] = []
    decades = sorted({decade for decade, _ in bins})
    ends = [decades[-1 - i // 2] if i % 2 == 0 else decades[i // 2] for i in range(len(decades))]
    rows = [bins[(d, sign)] for d in ends for sign in (False, True) if (d, sign) in bins]
    for depth in range(max((len(r) for r in rows), default=0)):
        order.extend(r[depth] for r in rows if depth < len(r))
    return order


def _candidates(graphs, sides, symbols, pieces, sample) -> list[dict]:
    """Magnitude points (to the scale of the sides' numbers), points around the switches
    and the branch points (:func:`~gradcalc.symbolic.decide.pieces.branch_arguments`: where
    sqrt((x + 10^9)^2) turns), and the sample, in both graphs' domains."""
    import sympy as sp

    names = [str(s) for s in symbols]
    rng = np.random.default_rng(SEED)
    arrays = magnitude_points(rng, names, DECADES + scale_decades(sides))
    turns = branch_arguments(*sides)  # (a radicand of both sides is solved once)
    near = switch_points([*(pieces.switches if pieces else ()), *turns], symbols, arrays)
    arrays = {n: np.concatenate([arrays[n], near[n]]) for n in names}
    inside = np.logical_and.reduce([in_domain(g, arrays) for g in graphs])
    count = len(arrays[names[0]]) if names else 0
    points = [
        {n: sp.Rational(repr(float(arrays[n][k]))) for n in names}
        for k in range(count)
        if inside[k]
    ]
    return points + list(sample)


def scale_decades(sides: Sequence[Any]) -> tuple[int, ...]:
    """The decades beyond DECADES that the sides' own numbers reach, to one past the
    largest (at most 10^15): an answer that agrees up to 10^6 may part where x meets a
    coefficient of 10^9.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> scale_decades([x + 10**9, x]), scale_decades([x + 5, x])
    ((7, 8, 9, 10), ())
    """
    numbers = [abs(float(n)) for side in sides for n in side.atoms() if n.is_Number]
    largest = max((n for n in numbers if np.isfinite(n)), default=0.0)
    top = min(int(np.ceil(np.log10(largest))) + 1, 15) if largest > 1 else 0
    return tuple(range(DECADES[-1] + 1, top + 1))


def magnitude_points(
    rng: np.random.Generator, names: Sequence[str], decades: Sequence[int] = DECADES
) -> dict[str, np.ndarray]:
    """Two points per decade of ``decades`` for each sign, each variable a decade of its
    own (shifted by three per variable), three significant digits.

    >>> p = magnitude_points(np.random.default_rng(0), ["x"])["x"]
    >>> float(np.abs(p).min()) < 0.01, float(np.abs(p).max()) > 10**6, bool((p < 0).any())
    (True, True, True)
    """
    n = 4 * len(decades)
    out = {}
    for j, name in enumerate(names):
        chosen = np.array([decades[(i // 4 + 3 * j) % len(decades)] for i in range(n)])
        sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        mantissa = np.round(rng.uniform(1, 10, n), 2)
        out[name] = sign * mantissa * 10.0**chosen
    return out


def switch_points(switches, symbols, bases: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Points on either side of every switch: each switch solved for each of its variables
    at BASES of the ``bases`` points, then moved by OFFSETS (relative) both ways.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> sorted(switch_points([x - 1000], [x], {"x": np.ones(1)})["x"])[:2]
    [np.float64(500.0), np.float64(990.0)]
    """
    import sympy as sp

    names = [str(s) for s in symbols]
    out: dict[str, list[float]] = {n: [] for n in names}
    for variable, solution in solved_switches(switches, symbols, patient(SOLVE_SECONDS)):
        others = [s for s in symbols if s != variable and s in solution.free_symbols]
        for k in range(BASES if others else 1):
            at = {s: sp.Rational(repr(float(bases[str(s)][k]))) for s in symbols}
            value = complex(sp.N(solution.subs({s: at[s] for s in others})))
            if value.imag != 0 or not np.isfinite(value.real):
                continue
            for step in (d * s for d in OFFSETS for s in (-1, 1)):
                moved = value.real + step * max(abs(value.real), 1e-3)
                for s in symbols:
                    out[str(s)].append(moved if s == variable else float(at[s]))
    return {n: np.array([float(f"{v:.12g}") for v in values]) for n, values in out.items()}


def _where(tested: list[list[dict]], symbols, pieces: Pieces | None) -> str:
    """Where the agreeing points lie: each variable's range, and the pieces.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> _where([[{"x": sp.Integer(-20)}, {"x": sp.Rational(1, 1000)}]], [x], None)
    '2 points, x from -20 to 0.001 (|x| down to 0.001)'
    """
    points = [p for region in tested for p in region]
    ranges = []
    for s in symbols:
        values = [float(p[str(s)]) for p in points]
        low, high = min(values), max(values)
        smallest = min(abs(v) for v in values)
        inner = f" (|{s}| down to {smallest:.2g})" if low < 0 < high else ""
        ranges.append(f"{s} from {low:.3g} to {high:.3g}{inner}")
    text = f"{len(points)} points, " + ", ".join(ranges)
    if pieces is not None:
        text += f", on each of the {len(tested)} pieces not proven, either side of each switch"
    return text
