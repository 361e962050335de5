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
