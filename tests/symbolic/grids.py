"""Exact test points for the symbolic tests, and the variables they are in."""

from __future__ import annotations

import sympy as sp

X, Y, Z = sp.symbols("x y z", real=True)


def grid(*pairs: tuple[str, list]) -> list[dict]:
    """Exact points: one dict per value of the first name (others paired by position)."""
    names = [name for name, _ in pairs]
    columns = [[sp.Rational(v) for v in values] for _, values in pairs]
    return [dict(zip(names, row)) for row in zip(*columns)]
