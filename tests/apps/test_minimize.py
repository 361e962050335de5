"""gradcalc.apps.optimize.minimize: minimizing on the tape's gradient -- known minima, stopping
reasons,
errors, and the JSON and CSV shapes the CLI prints."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import sys

import numpy as np
import pytest
import sympy as sp

from gradcalc.apps.optimize.minimize import (
    PROGRESS_EVERY,
    SCIPY_MISSING,
    Minimum,
    minimize,
    path_rows,
    to_json,
)
from gradcalc.core.errors import InputError, UndefinedError

ROSENBROCK = "(1-x)**2 + 100*(y-x**2)**2"
ROSENBROCK_START = ["x=-1.2,y=1"]
QUADRATIC = "(x-3)^2 + 2*(y+1)^2"  # minimum 0 at exactly (3, -1)
CONVERGED = re.compile(r"gradient norm \S+ ≤ tol 1e-10")
TOP_KEYS = {
    "point",
    "value",
    "gradient_norm",
    "steps",
    "reason",
    "converged",
    "method",
    "found",
    "lr",
    "path",
}
ROW_KEYS = {"step", "point", "value", "gradient_norm"}


def distance(m: Minimum, x: float, y: float) -> float:
    return math.hypot(m.point["x"] - x, m.point["y"] - y)


def needs_scipy() -> None:
    pytest.importorskip("scipy.optimize", reason="bfgs needs scipy (pip install scipy)")


@pytest.fixture(scope="module")
def rosenbrock_adam() -> Minimum:
    return minimize(ROSENBROCK, ROSENBROCK_START, method="adam", steps=20_000)


# --- known minima ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "lr"), [("gd", 0.1), ("momentum", 0.05), ("adam", 0.1), ("bfgs", None)]
)
def test_every_method_finds_the_quadratics_exact_minimum(method: str, lr: float | None) -> None:
    if method == "bfgs":
        needs_scipy()
    m = minimize(QUADRATIC, ["x=0,y=0"], method=method, lr=lr)
    assert m.converged, m.reason
    assert CONVERGED.fullmatch(m.reason), m.reason
    assert m.method == method
    assert abs(m.point["x"] - 3) <= 1e-6 and abs(m.point["y"] + 1) <= 1e-6
    assert m.value <= 1e-12 and m.gradient_norm <= 1e-10
    assert 0 < m.steps < 10_000


@pytest.mark.slow
def test_adam_reaches_rosenbrocks_minimum(rosenbrock_adam: Minimum) -> None:
    m = rosenbrock_adam
    assert m.converged, m.reason
    assert m.steps <= 20_000
    assert distance(m, 1, 1) <= 1e-3


def test_bfgs_reaches_rosenbrocks_minimum() -> None:
    needs_scipy()
    m = minimize(ROSENBROCK, ROSENBROCK_START, method="bfgs")
    assert m.converged, m.reason
    assert CONVERGED.fullmatch(m.reason), m.reason
    assert distance(m, 1, 1) <= 1e-6
    assert m.steps < 100
    assert [s.step for s in m.path] == list(range(m.steps + 1))  # a short run: every iteration


def test_momentum_reaches_rosenbrocks_minimum() -> None:
    m = minimize(ROSENBROCK, ROSENBROCK_START, method="momentum")
    assert m.converged, m.reason
    assert distance(m, 1, 1) <= 1e-6


@pytest.mark.slow
def test_gd_on_rosenbrock_descends_monotonically_but_slowly() -> None:
    m = minimize(ROSENBROCK, ROSENBROCK_START, lr=1e-3)  # 10000 steps: not enough to converge
    values = [s.value for s in m.path]
    assert all(later < earlier for earlier, later in itertools.pairwise(values))
    assert values[0] == pytest.approx(24.2)
    assert m.value < 1e-4 and distance(m, 1, 1) < 0.02
    assert not m.converged and m.steps == 10_000


def test_the_first_row_carries_the_tapes_gradient_at_the_start(rosenbrock_adam) -> None:
    first = rosenbrock_adam.path[0]
    # d/dx = -2(1-x) - 400x(y-x^2) = -215.6, d/dy = 200(y-x^2) = -88 at (-1.2, 1)
    assert first.step == 0 and first.point == {"x": -1.2, "y": 1.0}
    assert first.gradient_norm == pytest.approx(math.hypot(215.6, 88.0), rel=1e-12)


def test_a_mapping_start_gives_the_same_run_as_a_spec() -> None:
    a = minimize(QUADRATIC, {"x": 0, "y": 0}, lr=0.1)
    b = minimize(QUADRATIC, ["x=0,y=0"], lr=0.1)
    assert a == b


# --- stopping reasons --------------------------------------------------------------------


def test_running_out_of_steps_says_so_and_how_to_fix_it() -> None:
    m = minimize("(x-3)^2", ["x=0"], lr=1e-3, steps=5)
    assert not m.converged and m.steps == 5
    assert m.gradient_norm == pytest.approx(6 * 0.998**5)  # gd with lr 1e-3 on slope -6
    assert m.reason == "reached 5 steps (gradient norm 5.9): raise --steps or --lr"


def test_a_value_that_keeps_going_up_and_down_asks_for_a_lower_learning_rate() -> None:
    m = minimize("abs(x)", ["x=1"], lr=0.3, steps=20)  # ends bouncing between 0.1 and -0.2
    assert not m.converged
    assert re.fullmatch(
        r"reached 20 steps \(gradient norm 1\) with the value going up in \d+ of them: lower --lr",
        m.reason,
    ), m.reason


def test_a_big_learning_rate_diverges_and_stops_without_using_up_the_steps() -> None:
    m = minimize("x^2", ["x=1"], lr=10, steps=10_000)  # x -> -19x overflows by step ~120
    assert not m.converged
    assert m.steps < 200
    assert m.value == math.inf
    assert m.reason.startswith(f"diverged: value became inf at step {m.steps} (")
    assert m.reason.endswith("— lower --lr")
    assert to_json(m)["value"] is None
    json.dumps(to_json(m), allow_nan=False)


def test_leaving_the_domain_names_the_subexpression_and_why() -> None:
    m = minimize("log(x) + x^2", ["x=2"], lr=1.0)
    assert not m.converged
    assert math.isnan(m.value)
    assert m.reason == (
        f"diverged: value became NaN at step {m.steps} "
        "(ln(x): ln is undefined for negative numbers) — lower --lr"
    )


def test_an_unbounded_expression_is_called_out() -> None:
    m = minimize("-x^2", ["x=2"], lr=1e-3, steps=100)
    assert not m.converged
    assert "gradient norm growing" in m.reason and "may have no minimum" in m.reason


@pytest.mark.parametrize("seed", range(6))
def test_a_function_without_a_minimum_is_never_called_converged(seed: int) -> None:
    """exp(a·x) + exp(b·y) (a, b > 0 random), and exp(a·x + b·y): their gradient is never 0
    (exp > 0, by hand), so a tiny gradient far out is no minimum; with c > 0 the quadratic
    c·(x - p)^2 + c·(y - q)^2 stays converged at its minimum (p, q)."""
    rng = random.Random(seed)
    a, b = rng.uniform(0.2, 3), rng.uniform(0.2, 3)
    for text in (f"exp({a}*x) + exp({b}*y)", f"exp({a}*x + {-b}*y)"):
        m = minimize(text, ["x=0,y=0"])
        assert not m.converged and m.found == "", (text, m.reason)
        assert "f keeps decreasing in the direction of descent" in m.reason
        assert "no minimum found" in m.reason
    c, p, q = rng.uniform(1e-3, 1e3), rng.uniform(-100, 100), rng.uniform(-100, 100)
    bowl = minimize(f"{c}*(x - {p})^2 + {c}*(y - {q})^2", ["x=0,y=0"], method="bfgs")
    assert bowl.converged and bowl.found == "minimum", bowl.reason
    assert bowl.point["x"] == pytest.approx(p, abs=1e-6) and bowl.point["y"] == pytest.approx(
        q, abs=1e-6
    )


def test_exp_stops_on_a_tiny_gradient_without_a_minimum(cli) -> None:
    done = cli("minimize", "exp(x)", "--from", "x=0", "--format", "json")
    answer = json.loads(done.stdout)
    assert done.exit_code == 1 and answer["converged"] is False and answer["found"] is None
    assert "no minimum found" in answer["reason"]


def test_an_undefined_start_is_an_error_that_says_why() -> None:
    with pytest.raises(UndefinedError) as caught:
        minimize("log(x)", ["x=-1"])
    assert caught.value.message == (
        "cannot start from x=-1: the value is NaN (ln(x): ln is undefined for negative numbers)"
    )


def test_a_statement_the_target_does_not_use_is_not_blamed() -> None:
    with pytest.raises(UndefinedError) as caught:
        minimize("a = log(x); f = 1/x", ["x=0"])  # log(0) is -inf too, but f does not use a
    assert caught.value.message == "cannot start from x=0: the value is inf (1/x: division by zero)"


def test_an_infinite_slope_at_the_start_is_an_error() -> None:
    with pytest.raises(UndefinedError, match=r"the gradient is inf \(sqrt\(x\): .*infinite slope"):
        minimize("sqrt(x)", ["x=0"])


# --- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "start", "options", "message"),
    [
        ("x^2 + y", ["x=1"], {}, "no start value for y: add y=... to --from"),
        ("x^2", ["x=1,y=2"], {}, "--from y: the expression has no variable y"),
        ("x^2 + y", ["x=1,yy=2"], {}, "did you mean 'y'?"),
        ("x^2", ["x=1"], {"method": "newton"}, "--method newton: choose one of gd, momentum"),
        ("x^2", ["x=1"], {"lr": 0.0}, "--lr must be a positive number"),
        ("x^2", ["x=1"], {"steps": 0}, "--steps must be a positive whole number"),
        ("x^2", ["x=1"], {"tol": -1.0}, "--tol must be a number ≥ 0"),
        ("x^2", ["x=1"], {"every": 0}, "--every must be a positive whole number"),
        ("x^2, y^2", ["x=1,y=1"], {}, "minimize takes one expression; this has 2"),
        ("x^2", ["x=1", "x=2"], {}, "--from takes one point"),
        ("x^2", ["x"], {}, "--from expects name=value pairs"),
        ("x^2", {"x": math.inf}, {}, "the start must be finite"),
    ],
)
def test_bad_input_is_an_input_error(expression, start, options, message) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        minimize(expression, start, **options)


def test_bfgs_without_scipy_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)  # makes `import scipy...` fail
    monkeypatch.setitem(sys.modules, "scipy.optimize", None)
    with pytest.raises(InputError, match=re.escape(SCIPY_MISSING)):
        minimize("x^2", ["x=1"], method="bfgs")
    assert minimize("x^2", ["x=1"], lr=0.5).converged  # the other methods do not need it


# --- path, progress, JSON and CSV --------------------------------------------------------


def test_the_default_path_has_about_fifty_evenly_spaced_rows(rosenbrock_adam) -> None:
    steps = [s.step for s in rosenbrock_adam.path]
    assert 50 <= len(steps) <= 101
    assert steps[0] == 0 and steps[-1] == rosenbrock_adam.steps
    gaps = {b - a for a, b in itertools.pairwise(steps[:-1])}
    assert len(gaps) == 1  # evenly spaced, but for the last row


def test_every_records_multiples_of_k_and_the_last_step() -> None:
    m = minimize(QUADRATIC, ["x=0,y=0"], lr=0.1, every=25)
    steps = [s.step for s in m.path]
    assert steps == [*range(0, m.steps, 25), m.steps]


def test_progress_is_called_regularly_and_at_the_end() -> None:
    calls: list[int] = []
    m = minimize("(x-3)^2", ["x=0"], lr=1e-3, steps=250, progress=calls.append)
    assert calls == [0, PROGRESS_EVERY, 2 * PROGRESS_EVERY, 250] == [0, 100, 200, m.steps]


def test_to_json_has_exactly_the_documented_keys_and_dumps() -> None:
    m = minimize(QUADRATIC, ["x=0,y=0"], method="momentum", lr=0.05)
    data = to_json(m)
    assert set(data) == TOP_KEYS
    assert all(set(row) == ROW_KEYS for row in data["path"])
    assert set(data["point"]) == {"x", "y"}
    assert data["method"] == "momentum" and data["converged"] is True
    assert data["lr"] == 0.05
    assert json.loads(json.dumps(data, allow_nan=False)) == data


def test_path_rows_include_the_first_and_last_step() -> None:
    m = minimize(QUADRATIC, ["x=0,y=0"], lr=0.1)
    header, rows = path_rows(m)
    assert header == ["step", "x", "y", "value", "gradient_norm"]
    assert rows[0] == [0, 0.0, 0.0, 11.0, pytest.approx(math.hypot(6, 4))]
    assert rows[-1][0] == m.steps
    assert rows[-1][1:] == [m.point["x"], m.point["y"], m.value, m.gradient_norm]
    assert all(len(row) == len(header) for row in rows)


# --- the second-order test at the end: random quadratics, truth from numpy's eigenvalues ---


def _quadratic(rng: np.random.Generator, n: int, signs: list[float]) -> tuple[str, np.ndarray]:
    """0.5 x'Ax + b'x with A's eigenvalues of the given signs (random sizes and axes), as
    text, and its stationary point -A^-1 b."""
    q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    a = q @ np.diag([s * 10 ** rng.uniform(-1, 1) for s in signs]) @ q.T
    a = np.round((a + a.T) / 2, 3)
    b = np.round(rng.normal(size=n), 3)
    names = [f"x{i}" for i in range(n)]
    terms = [f"({float(a[i, j] / 2)!r})*{names[i]}*{names[j]}" for i in range(n) for j in range(n)]
    terms += [f"({float(b[i])!r})*{names[i]}" for i in range(n)]
    return " + ".join(terms), -np.linalg.solve(a, b)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("method", ["gd", "momentum", "adam", "bfgs"])
def test_started_at_a_maximum_or_saddle_it_never_converges(seed: int, method: str) -> None:
    rng = np.random.default_rng(seed)
    n = 1 + seed % 3
    signs = [-1.0] * n if seed % 2 == 0 else [(-1.0) ** k for k in range(max(n, 2))]
    text, stationary = _quadratic(rng, len(signs), signs)
    a_eigen = np.sign(signs)
    start = {f"x{i}": float(v) for i, v in enumerate(stationary)}
    m = minimize(text, start, method=method, lr=1e-3, steps=50, tol=1e-6)
    expected = "maximum" if (a_eigen < 0).all() else "saddle"  # (the start's rounding
    assert m.found == expected and m.converged is False, m.reason  # leaves |g| < tol)


@pytest.mark.parametrize("seed", range(6))
def test_a_random_bowl_converges_to_a_minimum(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    text, stationary = _quadratic(rng, 2, [1.0, 1.0])
    m = minimize(text, {"x0": 0.0, "x1": 0.0}, method="bfgs", tol=1e-8)
    assert m.converged and m.found == "minimum"
    assert np.allclose([m.point["x0"], m.point["x1"]], stationary, atol=1e-6)


def test_a_singular_hessian_is_degenerate_and_says_so() -> None:
    # x^4 + y^2 at 0: a minimum no line through it can prove (see symbolic/decide/extremum)
    m = minimize("x^4 + y^2", {"x": 0.0, "y": 0.0})
    assert m.found == "degenerate" and "singular" in m.reason and not m.converged


@pytest.mark.parametrize(
    ("expression", "start", "found", "converged"),
    [
        ("x^4", {"x": 0.0}, "minimum", True),
        ("x^3", {"x": 0.0}, "inflection", False),  # x^3 < 0 for x < 0: no minimum
        ("x^3 + y^2", {"x": 0.0, "y": 1.0}, "saddle", False),
        ("-(x^4) - y^4", {"x": 0.0, "y": 0.0}, "maximum", False),
    ],
)
def test_where_the_hessian_is_singular_the_terms_of_lowest_order_decide(
    expression, start, found, converged
) -> None:
    # the truth: f around the stopping point at 50 digits (a minimum is below every
    # neighbour; the others have a lower one)
    m = minimize(expression, start)
    assert (m.found, m.converged) == (found, converged)
    names = list(start)
    f = sp.sympify(expression.replace("^", "**"))
    at = {sp.Symbol(n): m.point[n] for n in names}
    around = [
        f.subs({sp.Symbol(n): m.point[n] + 1e-3 * c for n, c in zip(names, direction)})
        for direction in ([1, 0], [-1, 0], [0, 1], [0, -1])[: 2 * len(names)]
    ]
    assert all(v > f.subs(at) for v in around) is (found == "minimum")
