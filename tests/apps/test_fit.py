"""gradcalc.apps.optimize.fit: least squares with the tape's Jacobian and a numpy
Levenberg–Marquardt.

The example files are generated (and checked here against their generator) with numpy:

* docs/examples/line.csv: ``x = 0, 0.5, ..., 9.5`` (20 rows),
  ``y = 0.5*x + 2 + np.random.default_rng(4).normal(0, 0.1, 20)``;
* docs/examples/decay.csv: ``t = 0, 0.25, ..., 6`` (25 rows),
  ``y = 5*exp(-0.7*t) + 1 + np.random.default_rng(5).normal(0, 0.05, 25)``;

x and t written with ``{:g}``, y with 6 decimals.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pytest

import gradcalc.apps.optimize.fit as fit_module
from gradcalc.apps.optimize.fit import fit, read_data, to_json
from gradcalc.core.errors import InputError, UndefinedError

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
KEYS = ["params", "stderr", "rss", "r2", "n", "steps", "reason", "converged", "warnings"]


def _line_data() -> dict[str, np.ndarray]:
    return read_data(EXAMPLES / "line.csv")


def _decay_data() -> dict[str, np.ndarray]:
    return read_data(EXAMPLES / "decay.csv")


def _decay(p: np.ndarray, t: np.ndarray) -> np.ndarray:
    return p[0] * np.exp(-p[1] * t) + p[2]


# --- the example files -------------------------------------------------------------------


def test_example_files_are_what_the_docstring_says() -> None:
    line, decay = _line_data(), _decay_data()
    x = np.arange(20) * 0.5
    noise = np.random.default_rng(4).normal(0, 0.1, 20)
    np.testing.assert_array_equal(line["x"], x)
    np.testing.assert_allclose(line["y"], 0.5 * x + 2 + noise, rtol=0, atol=5e-7)
    t = np.arange(25) * 0.25
    noise = np.random.default_rng(5).normal(0, 0.05, 25)
    np.testing.assert_array_equal(decay["t"], t)
    np.testing.assert_allclose(decay["y"], 5 * np.exp(-0.7 * t) + 1 + noise, rtol=0, atol=5e-7)


# --- the line: against numpy's linear least squares ----------------------------------------


def test_line_recovers_the_generating_parameters_within_three_standard_errors() -> None:
    result = fit("a*x + b", _line_data(), ["a", "b"])
    assert result.converged, result.reason
    assert result.warnings == []
    for name, truth in {"a": 0.5, "b": 2.0}.items():
        assert abs(result.params[name] - truth) < 3 * result.stderr[name]
    assert result.n == 20


def test_line_agrees_with_numpy_lstsq() -> None:
    data = _line_data()
    x, y = data["x"], data["y"]
    design = np.column_stack([x, np.ones_like(x)])
    beta, rss, _, _ = np.linalg.lstsq(design, y, rcond=None)
    n, p = design.shape
    stderr = np.sqrt(np.diag(np.linalg.inv(design.T @ design)) * rss[0] / (n - p))
    r2 = 1 - rss[0] / np.sum((y - y.mean()) ** 2)

    result = fit("a*x + b", data, ["a", "b"])

    np.testing.assert_allclose([result.params["a"], result.params["b"]], beta, rtol=1e-8)
    np.testing.assert_allclose([result.stderr["a"], result.stderr["b"]], stderr, rtol=1e-8)
    assert result.rss == pytest.approx(rss[0], rel=1e-8)
    assert result.r2 == pytest.approx(r2, rel=1e-8)
    np.testing.assert_allclose(result.fitted, design @ beta, rtol=1e-8)


def test_exact_line_recovers_the_parameters_to_rounding() -> None:
    x = np.linspace(-3, 7, 15)
    result = fit("a*x + b", {"x": x, "y": 0.5 * x + 2}, "a,b", init=["a=-4,b=10"])
    assert result.converged, result.reason
    assert result.params["a"] == pytest.approx(0.5, abs=1e-10)
    assert result.params["b"] == pytest.approx(2.0, abs=1e-10)
    assert result.rss < 1e-20
    assert result.r2 == pytest.approx(1.0, abs=1e-15)


def test_parameter_order_and_other_names_follow_the_caller() -> None:
    data = {"u": np.array([1.0, 2, 3, 4]), "v": np.array([3.0, 5, 7, 9])}
    result = fit("m*u + q", data, ["q", "m"], y="v")
    assert list(result.params) == ["q", "m"]
    assert result.params["m"] == pytest.approx(2.0, abs=1e-10)
    assert result.params["q"] == pytest.approx(1.0, abs=1e-10)


# --- the nonlinear decay -----------------------------------------------------------------


@pytest.mark.parametrize("init", [{"A": 1, "k": 1, "c": 0}, None], ids=["A=1,k=1,c=0", "default"])
def test_decay_converges_near_the_generating_parameters(init: dict[str, float] | None) -> None:
    result = fit("A*exp(-k*t) + c", _decay_data(), ["A", "k", "c"], init=init)
    assert result.converged, result.reason
    assert result.warnings == []
    for name, truth in {"A": 5.0, "k": 0.7, "c": 1.0}.items():
        assert abs(result.params[name] - truth) < 3 * result.stderr[name]
    assert 0.99 < result.r2 < 1


def test_decay_from_both_starts_reaches_the_same_minimum() -> None:
    data = _decay_data()
    a = fit("A*exp(-k*t) + c", data, "A,k,c", init="A=1,k=1,c=0")
    b = fit("A*exp(-k*t) + c", data, "A,k,c")
    np.testing.assert_allclose(list(a.params.values()), list(b.params.values()), rtol=1e-9)


def test_decay_solution_is_a_stationary_point_of_the_rss_by_central_differences() -> None:
    data = _decay_data()
    t, y = data["t"], data["y"]
    result = fit("A*exp(-k*t) + c", data, ["A", "k", "c"])
    best = np.array(list(result.params.values()))

    def rss(p: np.ndarray) -> float:
        return float(np.sum((_decay(p, t) - y) ** 2))

    def gradient(p: np.ndarray) -> np.ndarray:
        h = 1e-6 * np.maximum(1.0, np.abs(p))
        return np.array([(rss(p + e) - rss(p - e)) / (2 * e[i]) for i, e in enumerate(np.diag(h))])

    assert result.rss == pytest.approx(rss(best), rel=1e-12)
    assert np.max(np.abs(gradient(best))) < 1e-7
    # the check has power: one standard error away, the gradient is far from zero
    shifted = best + np.array(list(result.stderr.values()))
    assert np.max(np.abs(gradient(shifted))) > 1e-2


def test_decay_standard_errors_agree_with_a_finite_difference_jacobian() -> None:
    data = _decay_data()
    t = data["t"]
    result = fit("A*exp(-k*t) + c", data, ["A", "k", "c"])
    best = np.array(list(result.params.values()))
    h = 1e-6
    jacobian = np.column_stack(
        [(_decay(best + e, t) - _decay(best - e, t)) / (2 * h) for e in np.eye(3) * h]
    )
    covariance = np.linalg.inv(jacobian.T @ jacobian) * result.rss / (t.size - 3)
    np.testing.assert_allclose(
        list(result.stderr.values()), np.sqrt(np.diag(covariance)), rtol=1e-6
    )


def test_the_jacobian_comes_from_one_tape_evaluation_per_step(monkeypatch) -> None:
    calls: list[int] = []
    real = fit_module.evaluate

    def counting(graph, point, wrt):
        calls.append(next(iter(point.values())).size)
        return real(graph, point, wrt)

    monkeypatch.setattr(fit_module, "evaluate", counting)
    result = fit("A*exp(-k*t) + c", _decay_data(), ["A", "k", "c"])
    assert len(calls) <= result.steps + 2  # the start, one per step, the final Gauss–Newton step
    assert set(calls) == {25}  # every evaluation covers all rows at once


def test_the_final_gauss_newton_step_settles_the_last_digits() -> None:
    # damped steps stop about tol short of the mean 2 here (the RSS cannot tell the rest apart)
    assert fit("c", {"y": np.array([1.0, 2.0, 3.0])}, ["c"]).params == {"c": 2.0}
    y = np.random.default_rng(0).normal(3.0, 1.0, 50)
    result = fit("c", {"y": y}, ["c"])
    assert abs(result.params["c"] - y.mean()) <= 4 * np.finfo(float).eps * abs(y.mean())


# --- results and warnings ----------------------------------------------------------------


def test_too_few_points_warn_and_give_nan_standard_errors() -> None:
    result = fit("a*x + b", {"x": np.array([1.0, 2.0]), "y": np.array([3.0, 5.0])}, ["a", "b"])
    assert result.params["a"] == pytest.approx(2.0, abs=1e-10)
    assert all(math.isnan(v) for v in result.stderr.values())
    assert any("degrees of freedom" in w for w in result.warnings)
    assert to_json(result)["stderr"] == {"a": None, "b": None}


def test_parameters_the_data_cannot_separate_are_reported_singular() -> None:
    data = {"x": np.array([1.0, 2, 3, 4]), "y": np.array([2.0, 4.1, 5.9, 8.0])}
    result = fit("a*b*x", data, ["a", "b"])
    assert result.params["a"] * result.params["b"] == pytest.approx(2.0, rel=1e-2)
    assert all(math.isnan(v) for v in result.stderr.values())
    assert any("singular" in w and "a and b separately" in w for w in result.warnings)


def test_constant_y_gives_nan_r2_with_a_warning() -> None:
    result = fit("a*x + b", {"x": np.array([1.0, 2, 3]), "y": np.full(3, 4.0)}, ["a", "b"])
    assert math.isnan(result.r2)
    assert any("R²" in w for w in result.warnings)


def test_running_out_of_steps_is_not_convergence() -> None:
    result = fit("A*exp(-k*t) + c", _decay_data(), ["A", "k", "c"], max_steps=2)
    assert (result.converged, result.steps) == (False, 2)
    assert "max_steps=2" in result.reason
    assert any("did not converge" in w for w in result.warnings)


def test_predict_evaluates_the_fitted_model() -> None:
    data = _line_data()
    result = fit("a*x + b", data, ["a", "b"])
    np.testing.assert_allclose(result.predict(data["x"]), result.fitted, rtol=1e-14)
    expected = result.params["a"] * 100 + result.params["b"]
    assert result.predict({"x": np.array(100.0)}) == pytest.approx(expected)
    two = fit("a*u + b*v", {"u": np.ones(3), "v": np.arange(3.0), "y": np.arange(3.0)}, "a,b")
    with pytest.raises(InputError, match="give a value for each by name"):
        two.predict(np.ones(2))


def test_to_json_has_exactly_the_documented_keys_and_serialises() -> None:
    data = {"x": np.array([1.0, 2.0]), "y": np.array([1.0, 1.0])}
    for result in (fit("a*x + b", _line_data(), "a,b"), fit("a*x + b", data, "a,b")):
        payload = to_json(result)
        assert list(payload) == KEYS
        json.dumps(payload, allow_nan=False)
    assert payload["r2"] is None  # y constant: NaN becomes null


# --- errors ------------------------------------------------------------------------------


def test_a_name_that_is_neither_parameter_nor_column_lists_the_columns() -> None:
    with pytest.raises(InputError, match=r"z in the model .*columns: x, y"):
        fit("a*z + b", _line_data(), ["a", "b"])


def test_a_parameter_that_is_a_column_is_refused() -> None:
    with pytest.raises(InputError, match="parameter x is also a column"):
        fit("a*x + b", _line_data(), ["a", "x"])


def test_a_parameter_missing_from_the_model_is_refused() -> None:
    with pytest.raises(InputError, match="parameter c does not appear in the model"):
        fit("a*x + b", _line_data(), ["a", "b", "c"])


def test_a_missing_y_column_lists_the_columns() -> None:
    with pytest.raises(InputError, match=r"no column 'z' to fit.*columns: x, y"):
        fit("a*x + b", _line_data(), ["a", "b"], y="z")


def test_a_model_undefined_at_the_data_names_the_subexpression_and_point() -> None:
    data = {"x": np.array([1.0, -2.0, 3.0]), "y": np.array([1.0, 2.0, 3.0])}
    with pytest.raises(UndefinedError, match=r"ln\(x\) is undefined at x=-2.*negative"):
        fit("a*log(x) + b", data, ["a", "b"])


def test_a_model_undefined_at_the_initial_parameters_suggests_init() -> None:
    data = {"x": np.array([1.0, 2.0, 3.0]), "y": np.array([1.0, 2.0, 3.0])}
    with pytest.raises(UndefinedError, match=r"sqrt\(k\).*--init \(now k=-1\)"):
        fit("sqrt(k)*x", data, ["k"], init={"k": -1})
    assert fit("sqrt(k)*x", data, ["k"]).params["k"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("init", "message"),
    [
        (["q=1"], "--init q: not a parameter"),
        (["a"], "--init expects name=value pairs"),
        (["a=1,a=2"], "a is given twice"),
        ({"a": math.inf}, "finite"),
    ],
)
def test_bad_initial_values_are_refused(init: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        fit("a*x + b", _line_data(), ["a", "b"], init=init)


def test_init_specs_may_be_split_and_use_constants() -> None:
    x = np.array([0.0, 1.0, 2.0])
    result = fit("a*x + b", {"x": x, "y": x}, ["a", "b"], init=["a=pi/4", "b=-1"], max_steps=0)
    assert result.params == {"a": math.pi / 4, "b": -1.0}


def test_bad_data_is_refused() -> None:
    with pytest.raises(InputError, match="equal length"):
        fit("a*x", {"x": np.ones(3), "y": np.ones(4)}, ["a"])
    with pytest.raises(InputError, match="not finite"):
        fit("a*x", {"x": np.array([1.0, np.nan]), "y": np.ones(2)}, ["a"])
    with pytest.raises(InputError, match="one expression"):
        fit("a*x, a", {"x": np.ones(3), "y": np.ones(3)}, ["a"])


def test_columns_shadow_constants_and_unused_columns_need_not_be_valid_model_names() -> None:
    x = np.array([1.0, 2.0, 3.0])
    data = {"x": x, "e": np.array([2.0, 0.0, 1.0]), "is": x, "log": x, "y": 2 * x + 1}
    result = fit("a*x + b + 0*e", data, ["a", "b"])
    assert result.inputs == ("x", "e")
    assert result.params["b"] == pytest.approx(1.0, abs=1e-10)


# --- reading data ------------------------------------------------------------------------


def test_read_data_reports_bad_cells_like_points_files() -> None:
    with pytest.raises(InputError, match="row 3, column y: 'oops' is not a number"):
        read_data(io.StringIO("x,y\n1,2\n2,oops\n"))
    with pytest.raises(InputError, match="cannot read data file"):
        read_data(EXAMPLES / "no-such-file.csv")


def test_read_data_concatenates_every_chunk() -> None:
    rows = 70_000  # more than one chunk of gradcalc.io.files.CHUNK_ROWS
    text = "x,y\n" + "".join(f"{i},{2 * i}\n" for i in range(rows))
    data = read_data(io.StringIO(text))
    np.testing.assert_array_equal(data["x"], np.arange(rows))
    np.testing.assert_array_equal(data["y"], 2 * np.arange(rows))


# --- badly scaled linear least squares against the exact optimum (mpmath, 80 digits) ------


def _exact_rss(columns: list[np.ndarray], y: np.ndarray, params=None) -> float:
    """The least-squares optimum's RSS (normal equations in 80-digit arithmetic), or the RSS
    of ``params`` computed the same way."""
    import mpmath

    with mpmath.workdps(80):
        m = mpmath.matrix([[mpmath.mpf(float(c[i])) for c in columns] for i in range(len(y))])
        target = mpmath.matrix([mpmath.mpf(float(v)) for v in y])
        p = (
            mpmath.lu_solve(m.T * m, m.T * target)
            if params is None
            else mpmath.matrix([mpmath.mpf(v) for v in params])
        )
        residual = m * p - target
        return float(sum(v**2 for v in residual))


@pytest.mark.parametrize("seed", range(10))
def test_badly_scaled_polynomials_reach_the_exact_optimum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    centre = 10 ** rng.uniform(0, 6)  # the data sit near x = centre, from 1 to 10^6
    x = centre + rng.uniform(-50, 50, 20) * max(1.0, centre / 10**4)
    y = 3e-4 * x**2 - 2 * x + 7 + rng.normal(size=20)
    result = fit("a*x^2 + b*x + c", {"x": x, "y": y}, ["a", "b", "c"])
    optimum = _exact_rss([x**2, x, np.ones_like(x)], y)
    reached = _exact_rss([x**2, x, np.ones_like(x)], y, [result.params[k] for k in "abc"])
    assert result.converged, result.reason
    assert not any("singular" in w for w in result.warnings), result.warnings
    assert reached <= optimum * (1 + 1e-9), (centre, reached / optimum)


@pytest.mark.parametrize("seed", range(4))
def test_columns_of_different_sizes_are_identifiable(seed: int) -> None:
    rng = np.random.default_rng(50 + seed)
    x, z = rng.uniform(1, 2, 30) * 10**6, rng.uniform(1, 2, 30)
    y = 2e-6 * x - 3 * z + 0.5 + rng.normal(size=30) * 0.01
    result = fit("a*x + b*z + c", {"x": x, "z": z, "y": y}, ["a", "b", "c"])
    columns = [x, z, np.ones_like(x)]
    assert result.converged and not result.warnings
    reached = _exact_rss(columns, y, [result.params[k] for k in "abc"])
    assert reached <= _exact_rss(columns, y) * (1 + 1e-9)


def test_a_truly_rank_deficient_problem_still_warns() -> None:
    x = np.linspace(1, 10**6, 20)
    result = fit("a*x + b*(2*x) + c", {"x": x, "y": 3 * x + 1}, ["a", "b", "c"])
    assert any("do not determine a and b" in w for w in result.warnings), result.warnings


@pytest.mark.parametrize(
    ("xs", "ys"),
    [([1.0], [3.0]), ([2.0], [-1.0])],
)
def test_fewer_rows_than_parameters_say_the_data_do_not_determine_them(xs, ys) -> None:
    # one point for a line: every a, b with a*x + b = y fits it exactly
    result = fit("a*x + b", {"x": np.array(xs), "y": np.array(ys)}, ["a", "b"])
    a, b = result.params["a"], result.params["b"]
    assert a * xs[0] + b == pytest.approx(ys[0])
    assert any("do not determine a and b separately" in w for w in result.warnings)
    assert all(math.isnan(e) for e in result.stderr.values())
