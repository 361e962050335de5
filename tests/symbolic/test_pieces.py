"""symbolic.pieces: the pieces of a piecewise difference, against the pieces known by hand,
and on random piecewise sums checked against the difference's values (numpy) at points
inside each open piece."""

from __future__ import annotations

import random

import sympy as sp

from gradcalc.symbolic.decide import pieces

x, y = sp.symbols("x y", real=True)


def test_a_step_has_one_open_piece_above_its_switch() -> None:
    found = pieces.pieces_of(sp.Heaviside(x - 5, 0), [x], 2.0)
    assert found is not None and found.total == 2 and len(found.open) == 1
    expression, condition = found.open[0]
    assert expression == 1 and condition.subs(x, 6) == sp.true and condition.subs(x, 4) == sp.false


def test_a_tie_on_a_line_is_a_null_set() -> None:
    assert pieces._generic((x >= y) & (x - y < 0)) == sp.false
    assert pieces._generic(sp.Eq(x, 0)) == sp.false


def test_equal_sides_written_with_different_parts_are_proven() -> None:
    difference = 2 * sp.Max(x - 3, 0) - (x - 3 + sp.Abs(x - 3))
    found = pieces.pieces_of(difference, [x], 2.0)
    assert found is not None and found.proven


def test_floor_is_a_staircase() -> None:
    found = pieces.pieces_of(sp.floor(x / 1000), [x], 2.0)
    assert found is not None and found.stairs and not found.proven


def test_random_piecewise_differences_open_exactly_where_they_are_not_zero() -> None:
    """Sums of ±relu(x - a) and ±step(x - a): the open pieces are where the numpy value of
    the difference is not 0, at a grid of points between and beyond the switches."""
    rng = random.Random(7)
    for _ in range(12):
        terms = []
        for _ in range(rng.randint(1, 3)):
            a = sp.Rational(rng.randint(-50, 50), rng.choice([1, 10, 1000]))
            part = sp.Max(x - a, 0) if rng.random() < 0.5 else sp.Heaviside(x - a, 0)
            terms.append(rng.choice([-1, 1, 2]) * part)
        difference = sp.Add(*terms)
        found = pieces.pieces_of(difference, [x], 3.0)
        assert found is not None
        value = sp.lambdify(x, difference, "mpmath")
        for k in range(-600, 600, 7):
            at = sp.Rational(k, 10) + sp.Rational(1, 997)  # never on a switch
            inside = [e for e, c in found.open if c.subs(x, at) == sp.true]
            assert len(inside) <= 1
            if value(at) != 0:
                assert inside and abs(float(inside[0].subs(x, at)) - value(at)) < 1e-9


def test_switches_of_max_are_the_ties_and_solve_for_each_variable() -> None:
    assert {abs(g) for g in pieces.switch_arguments(sp.Max(x, y, 0))} == {
        abs(x),
        abs(y),
        abs(x - y),
    }
    solved = pieces.solved_switches([x * y - 1000], [x, y], 2.0)
    assert (x, 1000 / y) in solved and (y, 1000 / x) in solved
