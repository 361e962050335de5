"""Where answers are compared: test points from an expression's domain -- the given points
first, then random decimals of several kinds (fixed seed), kept where the expression is
defined; when few are, more drawn from the real domain sympy finds (``asin(x - 1000)``:
[999, 1001], which no random size hits), and near those found.

>>> from gradcalc.engine.run.api import compile_expression
>>> sample = domain_points(compile_expression("acosh(x/4)"), [])
>>> bool((sample.points.arrays["x"] >= 4).all()), sample.count >= 64
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gradcalc.core.errors import InputError
from gradcalc.engine.evaluate.evaluate import evaluate
from gradcalc.engine.evaluate.points import Points, parse_at
from gradcalc.lang.graph import Graph

__all__ = [
    "KEEP",
    "POOL",
    "SAMPLES",
    "SEED",
    "Sample",
    "domain_points",
    "in_domain",
    "real_domain",
    "scarcity",
]

POOL = 2048  # random candidate points per check
SAMPLES = 64  # fewer candidates than this inside the domain: draw more near them
KEEP = 512  # test points kept from the domain
SEED = 20261129
BASES = 4  # with several variables: the points whose other coordinates stay put
DOMAIN_SECONDS = 2.0  # for sympy to say where the expression is defined


@dataclass(frozen=True)
class Sample:
    """The test points, how many there are, and how many random points were tried;
    ``domain``: where sympy finds a function of one variable defined (intervals, a point
    as ``(a, a)``), when the random points alone found few and sympy could say."""

    points: Points
    count: int
    tried: int
    domain: tuple[tuple[float, float], ...] | None = None


def domain_points(graph: Graph, at: Sequence[str]) -> Sample:
    """Test points from the expression's domain: the ``at`` points first, then random
    decimals (fixed seed) of several kinds -- in [-3, 3], in (0, 3], and of magnitudes from
    0.01 to 10^4 -- kept where the expression is defined (the registry's domain rules on
    the tape). When few are, more are drawn close to those that are, so that a small
    domain (``acosh(x/4)``: x >= 4) still gets enough points; when fewer than SAMPLES are
    found, points are drawn from the real domain sympy finds, one variable at a time."""
    given = parse_at(list(at)) if at else None
    missing = [v for v in graph.variables if given is not None and v not in given.arrays]
    if missing:  # (found by fuzzing: the given point would make one column longer)
        raise InputError(
            f"--at must give every variable of the expression: add {missing[0]}=... "
            f"(it has {', '.join(graph.variables)})"
        )
    if not graph.variables:
        return Sample(Points((), {}, None), 1, 1)
    rng = np.random.default_rng(SEED)
    names = graph.variables
    pool = {name: _candidates(rng, POOL) for name in names}
    inside = in_domain(graph, pool)
    domain = None
    if inside.sum() < SAMPLES:  # few: draw where sympy says the expression is defined
        drawn, domain = _from_real_domain(graph, rng, pool, inside)
        pool = {name: np.concatenate([pool[name], drawn[name]]) for name in names}
        inside = in_domain(graph, pool)
    if 0 < inside.sum() < SAMPLES:  # a small domain: look around the points inside it
        centres = {name: values[inside] for name, values in pool.items()}
        near = {name: _near(rng, values, POOL) for name, values in centres.items()}
        pool = {name: np.concatenate([pool[name][inside], near[name]]) for name in names}
        inside = in_domain(graph, pool)
    tried = len(pool[names[0]])
    arrays = {name: values[inside][:KEEP] for name, values in pool.items()}
    if given is not None:
        arrays = {
            name: np.concatenate([np.atleast_1d(given.arrays[name]), values])
            for name, values in arrays.items()
        }
    return Sample(Points(tuple(names), arrays, None), len(arrays[names[0]]), tried, domain)


def _candidates(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` random decimals, by turns in [-3, 3], in (0, 3], of either sign with a
    magnitude from 0.01 to 1000, and positive from 0.01 to 10^4 (4 significant digits)."""
    kind = np.arange(n) % 4
    small = np.where(kind == 0, rng.uniform(-3, 3, n), rng.uniform(0.05, 3, n))
    sign = np.where((kind == 2) & (rng.uniform(size=n) < 0.5), -1.0, 1.0)
    magnitude = 10.0 ** np.where(kind == 2, rng.uniform(-2, 3, n), rng.uniform(-2, 4, n))
    return np.where(kind < 2, np.round(small, 3), _significant(sign * magnitude, 4))


def _near(rng: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    """``n`` decimals close to the ``centres`` (relative steps from 10^-1 to 10^-4)."""
    picks = centres[rng.integers(0, len(centres), n)]
    step = 10.0 ** rng.uniform(-4, -1, n) * np.maximum(np.abs(picks), 1e-3)
    return _significant(picks + rng.normal(size=n) * step, 7)


def _significant(values: np.ndarray, digits: int) -> np.ndarray:
    """``values`` rounded to ``digits`` significant decimal digits."""
    return np.array([float(f"{v:.{digits}g}") for v in values])


def in_domain(graph: Graph, pool: Mapping[str, np.ndarray]) -> np.ndarray:
    """Where the expression is defined and finite at the pool's points.

    >>> from gradcalc.engine.run.api import compile_expression
    >>> in_domain(compile_expression("log(x)"), {"x": np.array([-1.0, 2.0])}).tolist()
    [False, True]
    """
    run = evaluate(graph, pool, wrt=[])
    count = len(next(iter(pool.values())))
    inside = np.isfinite(np.broadcast_to(run.values[0], (count,)))
    for problem in run.problems[0]:
        if problem.kind == "undefined":
            inside = inside & ~np.broadcast_to(problem.mask, (count,))
    return inside


def _from_real_domain(
    graph: Graph, rng: np.random.Generator, pool: Mapping[str, np.ndarray], inside: np.ndarray
) -> tuple[dict[str, np.ndarray], tuple[tuple[float, float], ...] | None]:
    """Points drawn from where sympy finds the expression defined: each variable from its
    own domain (the others left symbolic: ``asin(x - 1000) + acos(y + 2000)``), and one
    whose domain depends on the others (``asin(x*y - 1000)``) with those kept at a few of
    these points. Also, for a function of one variable, its domain's intervals. Nothing
    where sympy cannot say (in time)."""
    from gradcalc.symbolic.crosscheck.crosscheck import time_limit
    from gradcalc.symbolic.decide.patience import FAILURES, patient
    from gradcalc.symbolic.translate.convert import converted

    names, n = graph.variables, POOL // 4
    parts: list[dict[str, np.ndarray]] = []
    alone: dict[str, tuple | None] = {}
    try:
        with time_limit(patient(DOMAIN_SECONDS)):
            targets = [converted(graph)[t] for t in graph.targets]
            alone = {name: _domain_in(_alone(targets, name), name, {}) for name in names}
            start = {
                name: _in_intervals(rng, found, n)
                if found
                else rng.choice(pool[name][inside] if inside.any() else pool[name], n)
                for name, found in alone.items()
            }
            if any(alone.values()):
                parts.append(start)
            for name in [name for name in names if alone[name] is None and len(names) > 1]:
                for row in range(BASES):
                    fixed = {other: start[other][row] for other in names if other != name}
                    found = _domain_in(targets, name, fixed)
                    if found:
                        values = _in_intervals(rng, found, n // BASES)
                        more = {o: np.full(len(values), v) for o, v in fixed.items()}
                        parts.append({**more, name: values})
    except (*FAILURES, NotImplementedError):
        pass  # out of time (or sympy failed building it): the points drawn so far
    drawn = {name: np.concatenate([*(part[name] for part in parts), np.zeros(0)]) for name in names}
    return drawn, alone.get(names[0]) if len(names) == 1 else None


def _alone(exprs: Sequence, name: str) -> list:
    """The largest parts of ``exprs`` in the variable ``name`` alone: where they are
    defined bounds where the whole is, whatever the other variables are.

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> sorted(_alone([sp.asin(x - 1000) + sp.acos(y + 2000) + sp.log(x * y)], "x"), key=str)
    [asin(x - 1000), x]
    """
    from gradcalc.symbolic.translate.derivative import symbol

    variable = symbol(name)
    parts = []
    for expr in exprs:
        if expr.free_symbols == {variable}:
            parts.append(expr)
        elif variable in expr.free_symbols:
            parts += _alone(expr.args, name)
    return parts


def _domain_in(targets: Sequence, name: str, fixed: Mapping[str, float]):
    """:func:`real_domain` in ``name`` with the variables in ``fixed`` at those values (the
    rest symbolic); None when sympy cannot say."""
    from sympy.polys.polyerrors import BasePolynomialError

    from gradcalc.core.budget import CheckTimeout
    from gradcalc.symbolic.decide.patience import FAILURES
    from gradcalc.symbolic.translate.derivative import symbol

    at = {symbol(other): _exact(value) for other, value in fixed.items()}
    try:
        found = real_domain([t.subs(at) for t in targets], symbol(name))
    except (*FAILURES, NotImplementedError, BasePolynomialError) as failed:
        if isinstance(failed, CheckTimeout):
            raise
        return None  # sympy cannot say (asin(x*y - 1000) in x, y symbolic)
    return found


def _exact(value: float):
    """A float's exact rational, as sympy holds a point."""
    import sympy as sp

    return sp.Rational(repr(float(value)))


def real_domain(exprs: Sequence, variable) -> tuple[tuple[float, float], ...] | None:
    """Where sympy finds every one of ``exprs`` (sympy expressions in ``variable`` alone)
    defined and continuous over the reals, as intervals ``(start, end)`` (a single point as
    ``(a, a)``; infinite ends as ``inf``); None when sympy cannot say or says all reals.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> real_domain([sp.asin(x - 1000) + sp.sin(x)], x), real_domain([sp.asin(1 + x**2)], x)
    (((999.0, 1001.0),), ((0.0, 0.0),))
    """
    import sympy as sp
    from sympy.calculus.util import continuous_domain

    domain = sp.S.Reals
    for expr in exprs:
        domain = domain.intersect(continuous_domain(expr, variable, sp.S.Reals))
    if domain == sp.S.Reals:
        return None
    return tuple(_intervals(domain))


def _intervals(domain) -> list[tuple[float, float]]:
    """A sympy set's intervals and points, as floats (a complement: the set it is taken
    from; the points left out are the domain rules' business)."""
    import sympy as sp

    if domain is sp.S.EmptySet:
        return []
    if isinstance(domain, sp.Interval):
        return [(float(domain.start), float(domain.end))]
    if isinstance(domain, sp.FiniteSet):
        return [(float(v), float(v)) for v in domain.args if v.is_real][:64]
    if isinstance(domain, sp.Union):
        return [part for arg in domain.args for part in _intervals(arg)][:64]
    if isinstance(domain, sp.Complement):
        return _intervals(domain.args[0])
    raise ValueError(f"no intervals in {domain}")


def _in_intervals(
    rng: np.random.Generator, intervals: Sequence[tuple[float, float]], n: int
) -> np.ndarray:
    """``n`` decimals in ``intervals`` (a point: itself; a bounded interval: uniform,
    with 4 digits beyond its width; an infinite one: sizes from 0.001 to 10^4 from its
    end), for :func:`in_domain` to keep those truly inside."""
    each = max(8, n // max(len(intervals), 1))
    out = []
    for start, end in intervals:
        if start == end:
            out.append(np.array([start]))
        elif np.isfinite(start) and np.isfinite(end):
            places = int(3 - np.floor(np.log10(end - start)))  # (negative: to tens, ...)
            out.append(np.round(rng.uniform(start, end, each), places))
        elif np.isfinite(start) or np.isfinite(end):
            end_at, side = (start, 1.0) if np.isfinite(start) else (end, -1.0)
            sizes = _significant(10.0 ** rng.uniform(-3, 4, each), 4)
            out.append(end_at + side * sizes)
    values = np.concatenate([*out, np.zeros(0)])
    return rng.choice(values, n) if len(values) else values


def scarcity(sample: Sample, found: int, name: str = "f") -> str:
    """Why a check found only ``found`` points where both sides are defined: a domain
    sympy shows to be points only, too few random points where sympy could not say, or
    the sides' own domains within the test points.

    >>> point = Sample(Points(("x",), {}, None), 1, 2048, ((0.0, 0.0),))
    >>> for part in scarcity(point, 0).split("; "):
    ...     print(part)
    the domain is tiny: f is defined only at x = 0 (by sympy)
    both are defined at 0 of 2048 points tried
    """
    tried = f"{found} of {sample.tried} points tried"
    if sample.domain == ():
        return f"{name} is defined nowhere over the reals (by sympy): nothing to test at"
    if sample.domain is not None and all(a == b for a, b in sample.domain):
        where = " or ".join(f"{sample.points.names[0]} = {a:g}" for a, _ in sample.domain)
        return (
            f"the domain is tiny: {name} is defined only at {where} (by sympy); "
            f"both are defined at {tried}"
        )
    if sample.count < SAMPLES and sample.domain is None:
        return (
            f"too few test points: both are defined at only {tried} (random, sizes 0.01 to "
            f"10^4, either sign), and sympy could not say where {name} is defined"
        )
    return f"both are defined at only {found} of the {sample.count} test points in {name}'s domain"
