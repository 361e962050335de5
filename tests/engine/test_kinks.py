"""engine.kinks: at a switching point, f's differentiability is decided from the whole
expression. Generated material: random piecewise compositions at their switch, against
one-sided difference quotients computed independently with mpmath at 50 digits."""

from __future__ import annotations

import random

import mpmath
import pytest

from gradcalc.core.errors import UndefinedError
from gradcalc.engine.run.api import grad

#: (gradcalc text, mpmath function) of a piecewise part of u = x - a, 0 at the switch.
PARTS = [
    ("relu({u})", lambda u: max(u, 0)),
    ("abs({u})", abs),
    ("max({u}, 0)", lambda u: max(u, 0)),
    ("min({u}, 0)", lambda u: min(u, 0)),
    ("step({u})*({u})", lambda u: u if u > 0 else 0 * u),
    ("({u})*abs({u})", lambda u: u * abs(u)),
]
#: smooth factors (text, mpmath function of x)
FACTORS = [
    ("1", lambda x: mpmath.mpf(1)),
    ("sin(x) + 2", lambda x: mpmath.sin(x) + 2),
    ("exp(x)", mpmath.exp),
    ("x^2 + 1", lambda x: x**2 + 1),
]
SWITCHES = ["0", "0.5", "-1.25", "2", "3.75"]


def _truth(f, a: str) -> tuple[mpmath.mpf | None, mpmath.mpf | None]:
    """One-sided derivatives by difference quotients at h = 10^-25 and 10^-30 (50 digits);
    None where they do not settle."""
    with mpmath.workdps(50):
        x0 = mpmath.mpf(a)
        sides = []
        for sign in (-1, 1):
            q = [
                (f(x0 + sign * mpmath.mpf(10) ** -k) - f(x0)) / (sign * mpmath.mpf(10) ** -k)
                for k in (25, 30)
            ]
            settled = abs(q[0] - q[1]) <= 1e-8 * max(1, abs(q[1]))
            sides.append(q[1] if settled else None)
        return sides[0], sides[1]


@pytest.mark.parametrize("seed", range(30))
def test_random_compositions_at_their_switch(seed: int) -> None:
    rng = random.Random(seed)
    a = rng.choice(SWITCHES)
    (part, p), (factor, g) = rng.choice(PARTS), rng.choice(FACTORS)
    power = rng.choice([1, 1, 1, 2, 3])
    u = f"x - ({a})"
    text = f"({part.format(u=u)})^{power}*({factor})"

    def f(x):
        return p(x - mpmath.mpf(a)) ** power * g(x)

    left, right = _truth(f, a)
    if left is not None and right is not None and abs(left - right) < 1e-12:
        result = grad(text, at=[f"x={a}"])
        assert float(result.gradient["x"]) == pytest.approx(float(right), rel=1e-9, abs=1e-12), text
    else:
        with pytest.raises(UndefinedError) as raised:
            grad(text, at=[f"x={a}"])
        message = str(raised.value)
        if left is not None:
            assert f"{float(left):.6g}"[:5] in message, (text, message)


@pytest.mark.parametrize(
    ("text", "at", "expected"),
    [
        ("relu(x)^2", "x=0", {"x": 0.0}),
        ("max(x,0)^3", "x=0", {"x": 0.0}),
        ("step(x)*x^3", "x=0", {"x": 0.0}),
        ("x^y", "x=0,y=2", {"x": 0.0, "y": 0.0}),
        ("relu(x) - relu(-x)", "x=0", {"x": 1.0}),  # = x: the tape's convention gives 0
    ],
)
def test_the_issue_examples_are_differentiable(text, at, expected) -> None:
    result = grad(text, at=[at])
    assert {n: float(v) for n, v in result.gradient.items()} == expected


def test_abs_sin_at_pi_is_a_corner_float64_rounds_past() -> None:
    with pytest.raises(UndefinedError, match="-1 from the left, 1 from the right"):
        grad("abs(sin(x))", at=["x=pi"])


def test_a_jump_is_not_differentiable_whatever_the_slopes() -> None:
    with pytest.raises(UndefinedError, match=r"none .* from the right"):
        grad("step(x)", at=["x=0"])


def _sympy_sides(text: str, point: dict[str, int]) -> dict[str, list]:
    """Textbook truth: each variable's one-sided limits of f's difference quotient by sympy's
    ``limit`` (symbolic, not the quotients at fixed steps that gradcalc evaluates), over
    h = 1/n, n -> oo (a positive integer n lets sympy see that 0^(2 - h) is 0)."""
    import sympy as sp

    symbols = {name: sp.Symbol(name, real=True) for name in point}
    n = sp.Symbol("n", integer=True, positive=True)
    h = 1 / n
    f = sp.sympify(text, locals={"relu": lambda u: sp.Max(u, 0), "max": sp.Max, **symbols})
    at = {symbols[n]: v for n, v in point.items()}
    out = {}
    for name, s in symbols.items():
        base = f.subs(at)
        out[name] = [
            sp.limit((f.subs({**at, s: point[name] + sign * h}) - base) / (sign * h), n, sp.oo)
            for sign in (-1, 1)
        ]
    return out


@pytest.mark.parametrize(
    ("text", "at"),
    [("x^y", "x=0,y=2"), ("relu(x)^2", "x=0"), ("max(x,0)^3", "x=0")],
)
def test_a_settled_kink_reads_alike_in_table_plain_and_json(cli, text, at) -> None:
    """At a kink where f's one-sided derivatives agree, every format says f is
    differentiable, with the true derivative, a passed check and no unhealthy finding."""
    import json

    point = {k: int(v) for k, v in (pair.split("=") for pair in at.split(","))}
    sides = _sympy_sides(text.replace("^", "**"), point)
    assert all(left == right for left, right in sides.values())  # differentiable
    truth = {name: float(left) for name, (left, _) in sides.items()}

    shown = {f: cli("grad", text, "--at", at, "--format", f) for f in ("table", "plain", "json")}
    assert {f: r.exit_code for f, r in shown.items()} == dict.fromkeys(shown, 0)
    out = json.loads(shown["json"].stdout)
    assert out["gradient"] == truth and out["undefined"] is None
    assert out["check"]["status"] == "agree" and out["check"]["agree"] is True
    assert "one-sided" in out["check"]["meaning"]
    assert out["diagnostics"]["healthy"] is True and out["diagnostics"]["findings"] == []
    assert [f["kind"] for f in out["diagnostics"]["settled"]] == ["kink"]
    assert [float(v) for v in shown["plain"].stdout.split()] == list(truth.values())
    table = shown["table"].stdout
    assert "Not healthy" not in table and "Healthy at" in table and "kink (settled)" in table
    rows = [line for line in table.splitlines() if line.startswith("│ ") and "limit" in line]
    assert len(rows) == len(truth) and all("✓" in row and "–" not in row for row in rows)


def test_an_unsettled_kink_beside_a_settled_point_stays_unhealthy(cli, tmp_path) -> None:
    """relu(x) at -1 is saturated (a dead unit, not a kink): settling the kink at 0 leaves
    that finding, and the diagnostics column tells the points apart."""
    import json

    data = tmp_path / "points.csv"
    data.write_text("x\n0\n-1\n2\n")
    result = cli("grad", "relu(x)^2", "--points", str(data), "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    kinds = {d["kind"]: d["points"] for d in out["diagnostics"]}
    assert kinds == {"saturated": 1, "kink (settled)": 1}
    assert out["gradient"]["x"] == [0.0, 0.0, 4.0] and out["agree"] == [True, True, True]
    table = cli("grad", "relu(x)^2", "--points", str(data)).stdout
    assert "kink (settled)" in table and "saturated" in table


@pytest.mark.parametrize(
    ("args", "code"),
    [  # found by fuzz/fuzz_cli.py (seed 44): sympy's own errors while deciding a kink
        (("hessian", "Heaviside((e + sec(pi))^acosh(abs(0)*(x/e)))", "--at", "x=0.5"), 3),
        (("grad", "--jobs", "-"), 0),  # (a stream shares sympy's shapes between jobs)
    ],
)
def test_sympy_failing_on_a_kink_leaves_the_tapes_verdict(cli, args, code) -> None:
    # Heaviside of a complex number raises in sympy; (1e-9)^(1e-9) is past 4,000 exact digits.
    # Neither is an internal error: the point is undefined (acosh(0)) or answered
    job = '{"expr": "tanh((1e-9)^(1e-9)) + max(0.1, 0.5/y) + x", "at": {"x": 1, "y": 0.5}}'
    done = cli.invoke([*args, "--check-timeout", "1"], input=job + "\n")
    assert done.exit_code == code, done.output
    assert "internal error" not in done.output


# --- derivatives of order 2 and more at a kink --------------------------------------------


def _second_sides(text: str, point: dict[str, int], by: str) -> list:
    """Textbook truth of f'' by ``by`` at ``point``: sympy's ``limit`` (h -> 0+) of the
    one-sided difference quotients of f' (f' off the point is sympy's derivative; f' at the
    point is the limit of f's own quotient, which must agree from both sides)."""
    first = _first_sides(text, point, by)
    assert first[0] == first[1], "f' must exist at the point"
    return _sides_of(text, point, by, first[0])


def _first_sides(text: str, point: dict[str, int], by: str) -> list:
    """f's one-sided derivatives by ``by`` at ``point`` (sympy's ``limit``)."""
    return _sides_of(text, point, by, None)


def _sides_of(text: str, point: dict[str, int], by: str, first) -> list:
    """The one-sided limits of f's difference quotient (``first`` None) or of f''s, whose
    value at the point is ``first``."""
    import sympy as sp

    symbols = {name: sp.Symbol(name, real=True) for name in point}
    h = sp.Symbol("h", positive=True)
    relu = lambda u: sp.Max(u, 0)  # noqa: E731
    f = sp.sympify(text, locals={"max": sp.Max, "abs": sp.Abs, "relu": relu, **symbols})
    at = {symbols[n]: v for n, v in point.items()}
    s = symbols[by]
    g, base = (f, f.subs(at)) if first is None else (sp.diff(f, s), first)
    return [
        sp.limit((g.subs({**at, s: point[by] + k * h}) - base) / (k * h), h, 0, "+")
        for k in (-1, 1)
    ]


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("hessian", ("max(x,0)^2", "--at", "x=0")),
        ("hessian", ("relu(x)^2", "--at", "x=0", "--format", "plain")),
        ("grad", ("max(x,0)^2", "--at", "x=0", "--order", "2")),
        ("check", ("max(x,0)^2", "--at", "x=0", "--order", "2", "--expect", "1/2")),
        ("hessian", ("x*abs(x)", "--at", "x=0", "--format", "plain")),
        ("check", ("x*abs(x)", "--at", "x=0", "--order", "2", "--expect", "0")),
        ("check", ("x*abs(x)", "--at", "x=0", "--order", "2", "--expect", "2")),
        ("taylor", ("x*abs(x)", "--at", "x=0", "--order", "2")),
        ("hessian", ("max(x,0)^2*y^2 + y", "--at", "x=0,y=1")),
        ("hessian", ("abs(x)*x + y^2", "--at", "x=0,y=1")),
        ("taylor", ("max(x,0)^2*y^2 + y", "--at", "x=0,y=1", "--order", "2")),
    ],
)
def test_a_second_derivative_that_does_not_exist_is_said_so_by_every_command(
    cli, command, args
) -> None:
    """The one-sided second derivatives by x differ (sympy's limits): every command exits 3
    saying the derivative does not exist, with both values, and prints no verdict or value."""
    text, point = args[0], dict(p.split("=") for p in args[2].split(","))
    left, right = _second_sides(text.replace("^", "**"), {k: int(v) for k, v in point.items()}, "x")
    assert left != right
    done = cli(command, *args)
    assert done.exit_code == 3, done.output
    assert "∂²f/∂x² of" in done.stderr and "does not exist at" in done.stderr
    assert f"{float(left):.10g} from the left, {float(right):.10g} from the right" in done.stderr
    assert "✓" not in done.stdout and "0.5" not in done.stdout and "correct" not in done.stdout


def test_equal_one_sided_second_derivatives_replace_the_tapes_convention(cli) -> None:
    """max(x,0)^2 + min(x,0)^2 is x^2: f'' = 2 at 0 (sympy's limits from both sides), where
    the tape's rule at the ties gives 1; the Hessian, --order and taylor all say 2."""
    left, right = _second_sides("Max(x,0)**2 + Min(x,0)**2", {"x": 0}, "x")
    assert left == right == 2
    done = cli("hessian", "max(x,0)^2 + min(x,0)^2", "--at", "x=0", "--format", "plain")
    assert (done.exit_code, done.stdout.split()) == (0, ["2"]), done.output
    assert "∂²f/∂x² = 2" in done.stderr
    done = cli(
        "grad", "max(x,0)^2 + min(x,0)^2", "--at", "x=0", "--order", "3", "--format", "plain"
    )
    assert (done.exit_code, done.stdout.split()) == (0, ["0"]), done.output
    assert "d²f/dx² = 2, d³f/dx³ = 0" in done.stderr
    done = cli("taylor", "max(x,0)^2 + min(x,0)^2", "--at", "x=0", "--order", "3")
    assert done.exit_code == 0 and "P3(x) = x^2\n" in done.stdout, done.output


@pytest.mark.parametrize("seed", range(8))
def test_generated_second_derivatives_at_and_off_the_kink(seed: int) -> None:
    """c*max(x - a, 0)^2 or c*x*abs(x - a), plus k*y^2 (independent of x), c up to 10^9:
    at x = a, ∂²f/∂x² does not exist (sympy's one-sided limits differ; for x*abs(x - a),
    a != 0, not even ∂f/∂x), and the Hessian says so with both values; off it, the Hessian
    is sympy's second derivative."""
    import sympy as sp

    from gradcalc.engine.run.api import hessian

    rng = random.Random(seed)
    c, a, k = rng.randint(1, 10**9), rng.randint(-3, 3), rng.randint(-50, 50)
    shape = rng.choice(["{c}*max(x - ({a}), 0)^2", "{c}*x*abs(x - ({a}))"])
    text = shape.format(c=c, a=a) + f" + ({k})*y^2"
    y0 = rng.randint(-5, 5)
    truth_text = text.replace("^", "**")
    first = _first_sides(truth_text, {"x": a, "y": y0}, "x")
    with pytest.raises(UndefinedError) as raised:
        hessian(text, at=[f"x={a},y={y0}"])
    message = str(raised.value)
    if first[0] != first[1]:
        left, right = first
        assert "is not differentiable" in message and "one-sided: ∂f/∂x = " in message
    else:
        left, right = _second_sides(truth_text, {"x": a, "y": y0}, "x")
        assert "∂²f/∂x²" in message and "does not exist" in message, message
    assert left != right
    assert f"{float(left):.10g} from the left, {float(right):.10g} from the right" in message
    xs, ys = sp.symbols("x y", real=True)
    f = sp.sympify(truth_text, locals={"max": sp.Max, "abs": sp.Abs, "x": xs, "y": ys})
    for off in (a - rng.randint(1, 4), a + rng.randint(1, 4)):
        result = hessian(text, at=[f"x={off},y={y0}"])
        want = [
            [float(sp.diff(f, p, q).subs({xs: off, ys: y0})) for q in (xs, ys)] for p in (xs, ys)
        ]
        got = result.shown_matrix.reshape(-1).tolist()
        assert got == pytest.approx([v for row in want for v in row], rel=1e-12), text


def test_the_note_on_a_settled_kink_ends_with_the_common_values(cli) -> None:
    """relu(x)^2 at 0 (and x^y at x = 0, y = 2): the note says f is differentiable, with the
    values of its one-sided derivatives (sympy's limits), in the table, plain and JSON."""
    import json

    for text, at in (("relu(x)^2", "x=0"), ("x^y", "x=0,y=2"), ("abs(x)^2", "x=0")):
        point = {k: int(v) for k, v in (pair.split("=") for pair in at.split(","))}
        sides = _sympy_sides(text.replace("^", "**").replace("abs", "Abs"), point)
        values = ", ".join(f"∂f/∂{n} = {int(left)}" for n, (left, _) in sides.items())
        plain = cli("grad", text, "--at", at, "--format", "plain")
        assert plain.stderr.rstrip().endswith(
            f"with their common value{'s' if len(sides) > 1 else ''}: {values}"
        ), plain.stderr
        warnings = json.loads(cli("grad", text, "--at", at, "--format", "json").stdout)["warnings"]
        assert any(w.endswith(values) for w in warnings), warnings


@pytest.mark.parametrize("seed", range(6))
def test_a_mixed_derivative_across_a_line_of_switches_is_decided(seed: int) -> None:
    """c*abs(x - a)^3 + b*x*y + d*y^2 or c*max(x - a, 0)^3*y^2 + b*x*y (coefficients up to
    10^9) at x = a: a part switches all along the line x = a, yet ∂f/∂x is continuous across
    it, so the Hessian exists; by hand [[0, b], [b, 2d]] and [[0, b], [b, 0]] there."""
    from gradcalc.engine.run.api import hessian

    rng = random.Random(seed)
    a, y0 = rng.randint(-3, 3), rng.randint(-5, 5)
    c, b, d = (rng.randint(1, 10**9) * rng.choice((-1, 1)) for _ in range(3))
    if seed % 2:
        text, want = f"{c}*abs(x - ({a}))^3 + ({b})*x*y + ({d})*y^2", [0, b, b, 2 * d]
    else:
        text, want = f"{c}*max(x - ({a}), 0)^3*y^2 + ({b})*x*y", [0, b, b, 0]
    result = hessian(text, at=[f"x={a},y={y0}"])
    assert result.shown_matrix.reshape(-1).tolist() == [float(v) for v in want], text


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("hessian", ("x^(3/2)", "--at", "x=0")),
        ("hessian", ("x^(3/2) + y^2", "--at", "x=0,y=1")),
        ("taylor", ("x^(5/2)", "--at", "x=0", "--order", "3")),
        ("grad", ("x^(5/2)", "--at", "x=0", "--order", "3")),
    ],
)
def test_a_part_of_the_derivative_is_named_without_fs_own_slopes(cli, command, args) -> None:
    """x^(n/2)'s derivative of order n/2 + 1/2 holds x^0.5, whose slope at 0 is infinite
    (sympy: (x^(3/2))'' = 3/(4 sqrt(x)) has no finite limit from the right). The refusal
    names that part in the reading's notation and leaves out f's own one-sided slopes (its
    first derivative's, 0 from the right, which say nothing of the failing derivative)."""
    import sympy as sp

    x = sp.Symbol("x", positive=True)
    power = sp.Rational(args[0][3]) / 2
    order = 2 if command == "hessian" else int(args[-1])
    assert sp.limit(sp.diff(x**power, x, order), x, 0, "+") == sp.oo
    done = cli(command, *args)
    assert done.exit_code == 3, done.output
    assert "x^0.5 (inside the derivative) is not differentiable at x=0" in done.stderr
    assert "one-sided" not in done.stderr and "**" not in done.stderr


@pytest.mark.parametrize("k", range(3, 10))
def test_powers_of_a_cube_root_have_the_textbook_hessian_at_zero(k: int) -> None:
    # cbrt(x)^k·y^2 + x·y is x^(k/3)·y^2 + x·y: d²/dx² x^(k/3) = (k/3)(k/3 - 1)·x^(k/3 - 2)
    # exists at 0 exactly when k/3 is an integer or k/3 >= 2 (then it is 0, or 2 for k = 6);
    # the mixed (2y)(k/3)·x^(k/3 - 1) exists when k >= 3. The slowly settling x^(1/3) of
    # k = 7 (2e-7 at 10^-20) is decided by sympy's limit, not called missing.
    from fractions import Fraction

    from gradcalc.engine.run.api import hessian

    text = f"cbrt(x)^{k}*y^2 + x*y"
    p = Fraction(k, 3)
    exists = p.denominator == 1 or p >= 2
    if not exists:
        with pytest.raises(UndefinedError, match="undefined at x=0, y=1"):
            hessian(text, at=["x=0,y=1"])
        return
    result = hessian(text, at=["x=0,y=1"])
    xx = 2.0 if k == 6 else 0.0  # (k = 3, 9: x, x^3)
    xy = 2 * (1 if k == 3 else 0) + 1.0  # the mixed part of x^(k/3)·y^2, and x·y's 1
    assert result.matrix.reshape(2, 2).tolist() == [[xx, xy], [xy, 2.0 * (k == 0)]]
