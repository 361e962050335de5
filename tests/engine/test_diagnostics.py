"""Gradient diagnostics on built cases whose health is known by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from gradcalc import grad
from gradcalc.engine.evaluate.diagnostics import diagnose, local_slopes
from gradcalc.engine.evaluate.findings import Thresholds


def cli_json(cli, *args: str) -> dict:
    result = cli.invoke([*args, "--format", "json", "--no-check"])
    return json.loads(result.stdout)


def kinds(out: dict) -> list[str]:
    return [f["kind"] for f in out["diagnostics"]["findings"]]


def test_a_deep_chain_of_sigmoids_vanishes_and_blames_the_sigmoids(cli) -> None:
    expr = "x"
    for _ in range(30):
        expr = f"sigmoid({expr})"
    out = cli_json(cli, "grad", expr, "--at", "x=0.5")
    # each sigmoid has slope s(1-s) <= 1/4, so the gradient is below 4^-30 ~ 8.7e-19
    assert out["gradient"]["x"] < 0.25**30
    assert kinds(out) == ["vanishing"]
    assert "across 30 chained sigmoid records" in out["diagnostics"]["findings"][0]["message"]
    assert out["diagnostics"]["healthy"] is False


def test_exp_50x_explodes_and_blames_exp(cli) -> None:
    out = cli_json(cli, "grad", "exp(50*x)", "--at", "x=1")
    assert out["gradient"]["x"] == pytest.approx(50 * math.exp(50))
    (finding,) = out["diagnostics"]["findings"]
    assert finding["kind"] == "exploding"
    assert "exp(#1) (tape #2)" in finding["message"] and "5.2e+21" in finding["message"]


def test_a_saturated_tanh_is_named_with_its_input_and_slope(cli) -> None:
    out = cli_json(cli, "grad", "tanh(w*x) + x", "--at", "w=1,x=10")
    (finding,) = out["diagnostics"]["findings"]
    slope = 1 - math.tanh(10) ** 2  # 8.2e-9
    assert finding["kind"] == "saturated" and finding["record"] == 2
    assert f"slope {slope:.2g}" in finding["message"] and "input 10" in finding["message"]
    assert finding["message"].endswith("no other path carries enough gradient to w")
    assert out["gradient"]["x"] == pytest.approx(1 + slope)  # x's sum is fine; w's is not
    assert out["gradient"]["w"] == pytest.approx(10 * slope)


def test_a_dead_relu_is_saturated_and_an_exact_zero_is_not_called_vanishing(cli) -> None:
    out = cli_json(cli, "grad", "relu(x - 3)", "--at", "x=1")
    assert out["gradient"]["x"] == 0.0
    assert kinds(out) == ["saturated"]


def test_sigmoids_side_by_side_are_no_chain_and_their_slopes_are_not_multiplied(cli) -> None:
    """sigmoid(x + a) + sigmoid(x + b) + sigmoid(x + c): the adjoint passes one sigmoid on
    each path, so it shrinks by one slope s(1 - s) per path (by hand, each about 1e-9), never
    by their product (about 2e-27); the culprit is the record of the smallest slope, with
    its input to 4 digits (20.5, not 20)."""
    out = cli_json(cli, "grad", "sigmoid(x+20) + sigmoid(x+20.5) + sigmoid(x+21)", "--at", "x=0")
    slopes = {a: math.exp(-a) / (1 + math.exp(-a)) ** 2 for a in (20, 20.5, 21)}
    assert out["gradient"]["x"] == pytest.approx(sum(slopes.values()), rel=1e-12)
    vanishing = out["diagnostics"]["findings"][0]["message"]
    assert "chained" not in vanishing and "in all" not in vanishing
    assert f"its slope there is {slopes[21]:.2g} (input 21)" in vanishing
    messages = [f["message"] for f in out["diagnostics"]["findings"][1:]]
    assert any("input 20.5," in m for m in messages), messages


@pytest.mark.parametrize(
    ("expression", "at", "blocked"),
    [
        ("relu(x) - relu(-x)", "x=1", ""),  # f = x: the gradient 1 flows through relu(x)
        ("relu(w*x + b)", "w=0.5,x=1,b=-2", "w, x, b"),  # w·x + b = -1.5: nothing reaches them
        ("relu(x - 3) + 0*y", "x=1,y=2", "x"),
        ("relu(x - 3) + y", "x=1,y=2", "x"),  # ∂f/∂y = 1 flows, but not to x, behind the unit
        ("relu(w*x + b) + c", "w=0.5,x=1,b=-2,c=1", "w, x, b"),  # c is not behind the unit
        ("relu(w*x + b) + x", "w=0.5,x=1,b=-2", "w, b"),  # x has another path; w and b none
        ("relu(x - 5) + x", "x=1", ""),
    ],
)
def test_a_relu_that_is_off_is_a_fault_where_a_variable_behind_it_gets_no_gradient(
    cli, expression, at, blocked
) -> None:
    """A relu with a negative input is off (slope exactly 0): named so, never "saturated".
    The variables behind it (by hand) get their gradient from other paths or not at all: where
    each gets some, the finding is settled and f healthy; where one gets 0 (its gradient, by
    hand), it is the fault, naming those variables -- a term elsewhere (+ c) changes nothing."""
    out = cli_json(cli, "grad", expression, "--at", at)
    diagnostics = out["diagnostics"]
    found = diagnostics["findings"] + diagnostics.get("settled", [])
    assert [f["kind"] for f in found] == ["saturated"]
    message = found[0]["message"]
    assert "is off: input" in message and "slope 0," in message
    assert diagnostics["healthy"] is (not blocked)
    assert bool(diagnostics["findings"]) is bool(blocked)
    if blocked:
        assert message.endswith(f"no other path carries enough gradient to {blocked}")
        assert all(out["gradient"][name] == 0 for name in blocked.split(", "))


@pytest.mark.parametrize(
    ("expression", "at", "settled"),
    [
        ("tanh(10*x) + x", "x=1", True),  # ∂f/∂x = 10 sech²(10) + 1: the direct path carries 1
        ("sigmoid(20*x) + x", "x=1", True),
        ("tanh(10*x)", "x=1", False),  # every bit of ∂f/∂x passes the unit: 10 sech²(10)
        ("tanh(w*x + b) + x", "w=10,x=1,b=0", False),  # w and b: only through the unit
        ("tanh(10*x) + 1e-9*x", "x=1", False),  # the other path carries 1e-9: vanishing
    ],
)
def test_a_saturated_unit_is_settled_as_an_off_one_where_other_paths_carry_the_gradient(
    cli, expression, at, settled
) -> None:
    """A saturated sigmoid or tanh is judged as a relu that is off: by what other paths carry
    the variables behind it (by hand above), never by the gradient of the variables alone."""
    out = cli_json(cli, "grad", expression, "--at", at)
    diagnostics = out["diagnostics"]
    saturated = [
        f
        for f in diagnostics["findings"] + diagnostics.get("settled", [])
        if f["kind"] == "saturated"
    ]
    assert len(saturated) == 1 and "is saturated: input" in saturated[0]["message"]
    assert (saturated[0] in diagnostics.get("settled", [])) is settled
    assert diagnostics["healthy"] is settled


def test_a_unit_before_the_variable_differentiated_by_is_no_finding(cli) -> None:
    """With --wrt y, ∂z/∂y = w = 2 (by hand) never uses tanh's slope: y's own computation is
    no path of the gradient asked for."""
    out = cli_json(cli, "grad", "y = tanh(100*x); z = y*w", "--at", "x=1,w=2", "--wrt", "y")
    assert out["gradient"] == {"y": 2.0}
    assert out["diagnostics"] == {"healthy": True, "findings": []}


@pytest.mark.parametrize(
    ("expression", "at", "name", "slope"),
    [
        ("x*y", "x=1e-12,y=1e-9", "x", 1e-9),  # ∂(x·y)/∂x = y
        ("x*y", "x=1e-12,y=1e-9", "y", 1e-12),
        ("x*y", "x=1e12,y=1e9", "x", 1e9),  # exploding: the same rule
        ("x*y*z", "x=1e-9,y=1,z=1e-9", "x", 1e-9),  # x·y by x is 1; #1·z by #1 is 1e-9
    ],
)
def test_the_culprits_slope_is_by_the_input_on_the_variables_path(
    cli, expression, at, name, slope
) -> None:
    out = cli_json(cli, "grad", expression, "--at", at)
    (finding,) = [f for f in out["diagnostics"]["findings"] if f"∂f/∂{name} " in f["message"]]
    assert f"its slope there is {slope:.2g}" in finding["message"]


def test_a_zero_gradient_at_a_minimum_is_healthy(cli) -> None:
    out = cli_json(cli, "grad", "x^2 + (y - 1)^2", "--at", "x=0,y=1")
    assert out["diagnostics"] == {"healthy": True, "findings": []}


def test_the_culprit_lies_on_the_path_of_the_vanishing_component(cli) -> None:
    out = cli_json(cli, "grad", "x^2 + tanh(y)", "--at", "x=3,y=12")
    (vanishing,) = [f for f in out["diagnostics"]["findings"] if f["kind"] == "vanishing"]
    assert "∂f/∂y" in vanishing["message"] and "tanh(y)" in vanishing["message"]


def test_a_kink_is_reported_even_with_subgradient(cli) -> None:
    out = cli_json(cli, "grad", "abs(x) + relu(y)", "--at", "x=0,y=0", "--subgradient")
    found = [(f["kind"], f["record"]) for f in out["diagnostics"]["findings"]]
    assert ("kink", 1) in found and ("kink", 2) in found


def test_nan_is_reported_at_the_first_record_that_produced_it(cli) -> None:
    out = cli_json(cli, "grad", "sqrt(x - 2) * y", "--at", "x=1,y=1")
    first = out["diagnostics"]["findings"][0]
    assert first["kind"] == "non-finite" and first["record"] == 2
    assert "sqrt(x - 2) is undefined" in first["message"]


def test_healthy_gradients_have_no_findings_and_thresholds_are_options(cli) -> None:
    out = cli_json(cli, "grad", "x^2 + y", "--at", "x=3,y=1")
    assert out["diagnostics"] == {"healthy": True, "findings": []}
    strict = cli_json(cli, "grad", "x^2 + y", "--at", "x=3,y=1", "--exploding", "5")
    assert kinds(strict) == ["exploding"]  # d/dx = 6 > 5
    loose = cli_json(cli, "grad", "tanh(x)", "--at", "x=10", "--saturation", "1e-12")
    assert kinds(loose) == ["vanishing"]  # slope 8e-9: not below 1e-12, but below 1e-8


def test_diagnose_prints_a_plain_words_report(cli) -> None:
    healthy = cli.invoke(["grad", "x^2", "--at", "x=1", "--diagnose"]).stdout
    assert "Healthy at x=1" in healthy
    sick = cli.invoke(["grad", "sigmoid(40*x)", "--at", "x=1"]).stdout
    assert "Not healthy at x=1" in sick and "saturated" in sick


def test_local_slopes_are_the_registry_rules_at_the_point() -> None:
    result = grad("x * y", at={"x": 3.0, "y": 5.0}, check=False)
    assert [float(s) for s in local_slopes(result.tape[0])] == [5.0, 3.0]


def test_findings_have_one_mask_entry_per_point() -> None:
    import numpy as np

    result = grad("tanh(x)", at={"x": np.array([0.0, 20.0, 1.0])}, check=False)
    (finding,) = [f for f in diagnose(result, Thresholds()) if f.kind == "saturated"]
    assert finding.mask.tolist() == [False, True, False]


@pytest.mark.parametrize("text", ["dot(x, 3)", "norm(x)", "sum(x)", "logsumexp(x)", "mean(x)"])
def test_a_tensor_ops_slope_at_one_point_is_its_derivative(text) -> None:
    """A tensor op's rule kept an axis of length 1 at a 0-d point (dot(x, 2) was exit 70 in
    every command that diagnoses; found by the fuzzer). One op, so the slope of its one
    record is the expression's central difference."""
    from gradcalc.engine.evaluate.diagnostics import local_slopes

    x, h = 0.7, 1e-6
    (row,) = grad(text, at={"x": x}, check=False).tape
    value = [float(grad(text, at={"x": v}, check=False).value) for v in (x + h, x - h)]
    assert float(local_slopes(row)[0]) == pytest.approx((value[0] - value[1]) / (2 * h), rel=1e-6)


@pytest.mark.parametrize("points", [1, 70_000])
def test_among_many_gradient_components_the_vanishing_and_exploding_ones_are_named(points):
    """The components are compared many at a time (one at a time for many points): the
    findings still name each component that vanishes or explodes, in order."""
    import numpy as np

    n = 300
    text = " + ".join(
        f"{'1e-9*' if k == 40 else '1e9*' if k in (7, 250) else ''}x{k}" for k in range(n)
    )
    at = {f"x{k}": np.full(points, 1.0) if points > 1 else 1.0 for k in range(n)}
    result = grad(text, at=at, check=False)
    found = [(f.kind, f.source) for f in diagnose(result) if f.kind in ("vanishing", "exploding")]
    assert found == [("vanishing", "x40"), ("exploding", "x7"), ("exploding", "x250")]


@pytest.mark.parametrize("points", [1, 300])  # one point on the tape; 300 replayed
def test_a_slope_no_variable_differentiated_by_reaches_is_no_finding(points) -> None:
    # tanh(100x) is saturated at x = 1 and abs(z) at a kink at z = 0, but by y the gradient
    # is tanh(100x) + abs(z): neither slope enters it. By x, the saturation is a finding
    # (and the kink, in z alone, still is not)
    expr = "tanh(100*x)*y + abs(z)*y"
    at = {"x": np.full(points, 1.0), "y": np.full(points, 2.0), "z": np.zeros(points)}
    by_y = grad(expr, at=at, wrt=["y"], check=False)
    assert [f.kind for f in by_y.diagnostics] == []
    assert np.allclose(by_y.gradient["y"], np.tanh(100.0))
    by_x = grad(expr, at=at, wrt=["x"], check=False)
    assert [f.kind for f in by_x.diagnostics] == ["vanishing", "saturated"]
    by_z = grad(expr, at=at, wrt=["z"], check=False, strict=False)  # by z, the kink stops it
    assert by_z.undefined.all()


def test_an_exploding_gradient_near_the_largest_double_is_told_without_numpy_warnings() -> None:
    # the ops' factors multiply past the largest double: the message says so, quietly
    import warnings

    x = np.array([709.7, 709.75])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = grad("exp(x)*sin(x) + exp(x/2)", at={"x": x}, check=False)
    assert [f.kind for f in result.diagnostics] == ["exploding"]
    assert np.allclose(
        result.gradient["x"], np.exp(x) * (np.sin(x) + np.cos(x)) + np.exp(x / 2) / 2
    )


def test_a_vanishing_gradient_evalf_cannot_write_is_bounded_not_written_0e(cli) -> None:
    # d/dx tanh(exp(x)) at e^2 is about 1.9e-1402 (mpmath, here): evalf at its default
    # precision wrote 0.e-121, shown as "∂f/∂x = 0.e-121"
    import mpmath

    mpmath.mp.dps = 1500
    truth = mpmath.diff(lambda x: mpmath.tanh(mpmath.exp(x)), mpmath.e**2)
    mpmath.mp.dps = 15
    assert 0 < truth < mpmath.mpf("1e-121")
    result = cli("grad", "tanh(exp(x))", "--at", "x=e^2", "--no-tape")
    said = " ".join(result.stdout.split())
    assert "∂f/∂x, not 0 but below 1e-121, is below 1e-08" in said, said
    assert "0.e-" not in said
