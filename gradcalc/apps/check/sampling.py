"""Where answers are compared: test points from an expression's domain -- the given points
first, then random decimals of several kinds (fixed seed), kept where the expression is
defined, with more drawn near them when the domain is small.

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

__all__ = ["KEEP", "POOL", "SAMPLES", "SEED", "Sample", "domain_points", "in_domain"]

POOL = 2048  # random candidate points per check
SAMPLES = 64  # fewer candidates than this inside the domain: draw more near them
KEEP = 512  # test points kept from the domain
SEED = 20261129


@dataclass(frozen=True)
class Sample:
    """The test points, how many there are, and how many random points were tried."""

    points: Points
    count: int
    tried: int


def domain_points(graph: Graph, at: Sequence[str]) -> Sample:
    """Test points from the expression's domain: the ``at`` points first, then random
    decimals (fixed seed) of several kinds -- in [-3, 3], in (0, 3], and of magnitudes from
    0.01 to 10^4 -- kept where the expression is defined (the registry's domain rules on
    the tape). When few are, more are drawn close to those that are, so that a small
    domain (``acosh(x/4)``: x >= 4) still gets enough points."""
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
    return Sample(Points(tuple(names), arrays, None), len(arrays[names[0]]), tried)


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
