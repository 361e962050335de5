"""`gradcalc check --critical`: a set of critical points judged point by point and as a
set, against functions built with known critical points (checked by sympy's solve), with
the wrong answers a student makes: a point missing, an extra one, a coordinate off by one
or of the wrong sign, a point listed twice, a decimal for an irrational point."""

from __future__ import annotations

import json
import random

import pytest
import sympy as sp

from gradcalc.apps.check.check_critical import check_critical
from gradcalc.core.errors import ExitCode, InputError

x, y = sp.symbols("x y", real=True)


def built(seed: int) -> tuple[str, list[tuple[int, int]]]:
    """f with f_x = a (x - p1)...(x - pk), f_y = b (y - q1)...: its critical points are
    the pairs (p, q), as sympy's solve confirms."""
    rng = random.Random(seed)
    xs, ys = (
        rng.sample(range(-7, 8), rng.randint(1, 3)),
        rng.sample(range(-7, 8), rng.randint(1, 2)),
    )
    fx = rng.choice([1, 2, -1, -3]) * sp.Mul(*(x - p for p in xs))
    fy = rng.choice([1, 4, -1, -2]) * sp.Mul(*(y - q for q in ys))
    f = sp.expand(sp.integrate(fx, x) + sp.integrate(fy, y))
    points = sorted((p, q) for p in xs for q in ys)
    solved = sp.solve([sp.diff(f, x), sp.diff(f, y)], [x, y], dict=True)
    assert sorted((int(s[x]), int(s[y])) for s in solved) == points
    return sp.sstr(f).replace("**", "^"), points


def as_set(points) -> str:
    return "{" + ", ".join(f"({p}, {q})" for p, q in points) + "}"


def oks(expression: str, answer: str) -> list:
    return [v.ok for v in check_critical(expression, answer)]


@pytest.mark.parametrize("seed", range(12))
def test_right_sets_pass_and_every_kind_of_wrong_set_fails(seed: int) -> None:
    f, points = built(seed)
    assert all(oks(f, as_set(reversed(points)))), f  # any order
    if len(points) > 1:
        assert False in oks(f, as_set(points[1:])), f  # one missing
    not_critical = (max(p for p, _ in points) + 1, points[0][1])
    assert False in oks(f, as_set([*points, not_critical])), f  # an extra point
    p, q = points[0]
    for changed in [(p, q + 1), (p + 1, q), (-p, q), (q, p)]:
        if changed not in points:
            assert False in oks(f, as_set([changed, *points[1:]])), (f, changed)
    assert False in oks(f, as_set([*points, points[0]])), f  # listed twice


def test_the_textbook_example_each_point_with_its_verdict() -> None:
    verdicts = check_critical("x^3 - 3x + y^2", "{(1,0), (-1,0)}")
    assert [(v.component, v.verdict) for v in verdicts] == [
        ("point 1", "correct"),
        ("point 2", "correct"),
    ]
    assert "local minimum" in verdicts[0].detail and "saddle point" in verdicts[1].detail
    missing = check_critical("x^3 - 3x + y^2", "{(1, 0)}")[-1]
    assert (missing.component, missing.correct, missing.ok) == ("missing", "(-1, 0)", False)
    wrong = check_critical("x^3 - 3x + y^2", "{(1, 0), (-1, 0), (2, 0)}")[-1]
    assert wrong.ok is False and "∇f = (9, 0)" in wrong.detail


def test_irrational_points_exactly_and_a_decimal_is_undecided_with_the_exact_point() -> None:
    assert all(oks("x^3 - x + y^2", "{(sqrt(3)/3, 0), (-1/sqrt(3), 0)}"))
    decimal = check_critical("x^3 - x + y^2", "{(0.57735, 0), (-sqrt(3)/3, 0)}")[0]
    assert decimal.ok is None and "sqrt(3)/3" in decimal.detail


def test_no_critical_points_is_the_empty_set() -> None:
    (verdict,) = check_critical("x + y^2", "{}")
    assert verdict.ok is True
    assert False in oks("x^2 + y^2", "{}")


@pytest.mark.parametrize("none", ["{}", "none", "{ }"])
def test_the_empty_set_on_the_command_line_is_judged_not_a_crash(cli, none: str) -> None:
    result = cli("check", "x", "--critical", "--answer", none, "--format", "json")
    assert result.exit_code == ExitCode.OK, result.output
    (verdict,) = json.loads(result.stdout)["verdicts"]
    assert verdict["ok"] is True and verdict["basis"] == "proven"  # sympy solved 1 = 0
    result = cli("check", "x^2", "--critical", "--answer", none)
    assert result.exit_code == ExitCode.CHECK_FAILED and "missing" in result.stdout


def test_a_critical_point_outside_the_region_asked_about_is_wrong() -> None:
    # x^3 - 3x has critical points -1 and 1 (f' = 3x^2 - 3); only 1 lies in [0, 3]
    verdicts = check_critical("x^3 - 3x", "{1, -1}", "x=0..3")
    assert [v.ok for v in verdicts] == [True, False]
    assert "outside the region x=0..3" in verdicts[1].detail
    # sin has critical points pi/2 + k pi; 3 pi/2 > 3
    assert [v.ok for v in check_critical("sin(x)", "{pi/2, 3pi/2}", "x=0..3")] == [True, False]
    assert [v.ok for v in check_critical("sin(x)", "{pi/2, 3pi/2}", "x=0..5")] == [True, True]
    # a point on the region's edge is inside it
    assert [v.ok for v in check_critical("x^3 - 3x", "{1}", "x=1..3")] == [True]


def test_a_decimal_near_a_critical_point_is_undecided_and_not_also_missing() -> None:
    # x^4 - 4x^2: f' = 4x(x^2 - 2), critical points 0 and ±sqrt(2)
    verdicts = check_critical("x^4 - 4x^2", "{0, 1.41421, -1.41421}")
    assert [(v.component, v.ok) for v in verdicts] == [
        ("point 1", True),
        ("point 2", None),
        ("point 3", None),
    ]
    assert "sqrt(2)" in verdicts[1].correct and "-sqrt(2)" in verdicts[2].correct
    left_out = check_critical("x^4 - 4x^2", "{0, 1.41421}")  # -sqrt(2) is still missing
    assert [v.component for v in left_out] == ["point 1", "point 2", "missing"]


def test_an_exact_point_near_a_critical_point_is_wrong_not_undecided() -> None:
    # f' = 2x - 1000000007: the critical point is 1000000007/2; the integer 500000003,
    # written exactly, is not it (f' = -1 there), however close it is relatively
    verdicts = check_critical("x^2 - 1000000007x", "{500000003}")
    assert [(v.component, v.ok) for v in verdicts] == [("point 1", False), ("missing", False)]
    assert "not a critical point" in verdicts[0].detail
    # so is a fraction written exactly, a hair from the point
    near = check_critical("x^2 - 3x", "{3/2 + 1/10^7}")
    assert [v.ok for v in near] == [False, False]


def test_a_continuum_cannot_be_listed() -> None:
    verdicts = check_critical("(x - y)^2", "{(0, 0)}")
    assert verdicts[0].ok is True  # (0, 0) is critical
    assert verdicts[-1].ok is None and "x = y" in verdicts[-1].detail
    verdicts = check_critical("max(x, y) + x^2", "{(-1/2, -1)}")
    assert verdicts[0].ok is True and verdicts[-1].ok is None
    assert "x = -1/2" in verdicts[-1].detail


def test_a_numeric_search_cannot_prove_a_point_missing() -> None:
    verdicts = check_critical("sin(x) + cos(y)", "{(pi/2, 0)}")
    assert verdicts[0].ok is True
    assert verdicts[-1].component == "not listed" and verdicts[-1].ok is None
    inside = check_critical("sin(x) + cos(y)", "{(pi/2, 0)}", "x=0..3,y=-1..1")
    assert [v.ok for v in inside] == [True]


def test_a_point_with_the_wrong_number_of_coordinates_is_an_input_error() -> None:
    with pytest.raises(InputError, match="has 3 coordinates; f has 2 variables"):
        check_critical("x^2 + y^2", "{(0, 0, 0)}")


def test_the_command_line(cli) -> None:
    result = cli("check", "x^3-3x+y^2", "--critical", "--answer", "{(1,0), (-1,0)}")
    assert result.exit_code == ExitCode.OK, result.output
    assert "Checking your critical points of f" in result.stdout
    result = cli("check", "x^3-3x+y^2", "--critical", "--answer", "{(1,0)}", "--format", "json")
    assert result.exit_code == ExitCode.CHECK_FAILED
    verdicts = json.loads(result.stdout)["verdicts"]
    assert [v["ok"] for v in verdicts] == [True, False]
    assert verdicts[0]["yours_read_as"] == "(1, 0)"
    refused = cli("check", "x^2", "--critical", "--implicit", "y", "--answer", "{}")
    assert refused.exit_code == ExitCode.USAGE


def test_a_repeated_point_is_found_however_it_is_written_among_many() -> None:
    """Points are compared exactly only within their 9-digit bucket: the repeat of (pi, 0)
    written 2*pi/2 is still found, among 300 other points."""
    from gradcalc.apps.check.check_critical import check_critical

    others = ", ".join(f"({k}, 1)" for k in range(3, 303))
    verdicts = check_critical("sin(x)*y", f"{{(pi, 0), {others}, (2*pi/2, 0)}}")
    last = next(v for v in verdicts if v.component == "point 302")
    assert last.verdict == "wrong" and "the same point as point 1" in last.detail
    assert verdicts[0].verdict == "correct"


def _one_sided(f, point: dict) -> dict:
    """Textbook truth: each variable's one-sided derivatives of f at ``point`` by sympy's
    ``limit`` of the difference quotient (h -> 0+); None where the limit is infinite."""
    h = sp.Symbol("h", positive=True)
    at = {sp.Symbol(n, real=True): v for n, v in point.items()}
    out = {}
    for s in at:
        sides = []
        for k in (-1, 1):
            q = sp.limit((f.subs({**at, s: at[s] + k * h}) - f.subs(at)) / (k * h), h, 0, "+")
            sides.append(None if q.has(sp.oo, -sp.oo, sp.zoo) else q)
        out[str(s)] = sides
    return out


@pytest.mark.parametrize(
    ("text", "answer", "f", "point"),
    [
        ("abs(x)", "0", sp.Abs(x), {"x": 0}),
        ("abs(x)+abs(y)", "(0,0)", sp.Abs(x) + sp.Abs(y), {"x": 0, "y": 0}),
        ("sqrt(x^2+y^2)", "(0,0)", sp.sqrt(x**2 + y**2), {"x": 0, "y": 0}),
        ("cbrt(x)^2", "0", sp.Abs(x) ** sp.Rational(2, 3), {"x": 0}),  # the real cube root
    ],
)
def test_where_the_derivative_does_not_exist_it_is_said_in_words(text, answer, f, point) -> None:
    """A critical point as calculus textbooks define it: where ∇f = 0 or ∇f does not exist
    (f defined on both sides). At a corner or cusp (sympy's one-sided limits differ, or are
    infinite) the point is right, with the one-sided values, never "∇f = 0" nor zoo/nan."""
    truth = _one_sided(f, point)
    assert any(left is None or left != right for left, right in truth.values())
    (verdict,) = [v for v in check_critical(text, answer) if v.component == "point 1"]
    assert verdict.verdict == "correct", verdict
    assert verdict.detail.startswith("a critical point: ")
    assert "as calculus textbooks do (f' = 0 or f' does not exist there)" in verdict.detail
    for name, (left, right) in truth.items():
        if left != right or left is None:
            words = [("none" if v is None else f"{float(v):.10g}") for v in (left, right)]
            assert f"∂f/∂{name} does not exist there ({words[0]}" in verdict.detail
            assert f"{words[1]}" in verdict.detail.split(f"∂f/∂{name}")[1]
    assert not any(bad in verdict.detail for bad in ("zoo", "nan", "∇f = 0 there"))


def test_the_cusp_of_a_principal_power_is_an_end_of_its_domain() -> None:
    """gradcalc reads x^(2/3) as undefined for x < 0 (the principal power), so 0 is an end
    of its domain there, where textbooks differ: undecided, with the real root to write."""
    (verdict,) = [v for v in check_critical("x^(2/3)", "0") if v.component == "point 1"]
    assert verdict.verdict == "could not decide", verdict
    assert "an end of f's domain" in verdict.detail and "cbrt(x)^2" in verdict.detail


@pytest.mark.parametrize("seed", range(6))
def test_a_corner_left_out_is_missing_and_listed_it_is_right(seed: int) -> None:
    """Generated c·|x - a| + b·(x - d)^2 (c, b up to 10^9, c ≠ 0): f' = 2b(x - d) ± c, so
    the corner a is a critical point (one-sided derivatives 2b(a - d) ∓ c differ, by hand)
    and so is d + c/(2b) or d - c/(2b) where f' = 0 on its side; the answer without a has
    a missing (a), and with it every point is right."""
    import random

    rng = random.Random(seed)
    a, d = rng.randint(-4, 4), rng.randint(-4, 4)
    c, b = rng.randint(1, 10**9), rng.randint(1, 10**9)
    text = f"{c}*abs(x - {a}) + {b}*(x - {d})^2"
    left, right = 2 * b * (a - d) - c, 2 * b * (a - d) + c  # the one-sided slopes at a
    stationary = [
        sp.Rational(d) + k * sp.Rational(c, 2 * b)
        for k in (1, -1)  # f' = 2b(x - d) - c on x < a (k = 1), + c on x > a (k = -1)
        if (sp.Rational(d) + k * sp.Rational(c, 2 * b) - a) * k < 0
    ]
    assert left != right
    listed = ", ".join(str(p) for p in stationary)
    without = check_critical(text, "{" + listed + "}")
    missing = [v for v in without if v.component == "missing"]
    assert [v.correct for v in missing] == [f"({a})"], [(v.component, v.detail) for v in without]
    assert f"({left} from the left, {right} from the right)" in missing[0].detail
    complete = check_critical(text, "{" + ", ".join([str(a), *map(str, stationary)]) + "}")
    assert all(v.verdict == "correct" for v in complete), [
        (v.component, v.detail) for v in complete
    ]


def test_a_corner_where_the_one_sided_derivatives_agree_is_a_critical_point() -> None:
    """relu(x)^2 at 0: both one-sided derivatives are 0 (sympy's limits), so ∇f = 0."""
    truth = _one_sided(sp.Max(x, 0) ** 2, {"x": 0})
    assert truth == {"x": [0, 0]}
    (verdict,) = [v for v in check_critical("relu(x)^2", "0") if v.component == "point 1"]
    assert verdict.verdict == "correct" and "one-sided" in verdict.detail


def test_no_points_for_a_function_with_a_corner_misses_the_corner(cli) -> None:
    """abs(x) has no point where ∇f = 0, but 0 is a critical point where f' does not exist
    (one-sided -1 and 1): "{}" leaves it out."""
    done = cli("check", "abs(x)", "--critical", "--answer", "{}", "--format", "plain")
    assert done.exit_code == 1, done.stdout
    assert done.stdout.startswith("missing\twrong\t(0) is a critical point too")
    assert "(-1 from the left, 1 from the right)" in done.stdout


def test_in_several_variables_corners_are_said_not_searched() -> None:
    verdicts = check_critical("abs(x) + y^2", "(0, 0)")
    assert [v.verdict for v in verdicts] == ["correct", "could not decide"]
    assert "does not search" in verdicts[1].detail


def test_a_point_where_f_is_undefined_is_not_critical() -> None:
    (verdict,) = check_critical("1/x", "0")[:1]
    assert verdict.verdict == "wrong" and "undefined" in verdict.detail
