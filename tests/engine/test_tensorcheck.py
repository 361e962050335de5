"""The check of a tensor gradient: sympy for small tensors, random directions beyond; a
wrong gradient is caught by both, and a kink is never judged."""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest

from gradcalc.engine.run.api import compile_expression
from gradcalc.engine.tensors.tensorcheck import SYMBOLIC_RTOL, check_tensor
from gradcalc.engine.tensors.tensorgrad import tensor_gradient

NETWORK = "h = tanh(X@W1 + b1); p = sigmoid(h@W2 + b2); loss = mean((p - y)^2)"


def network(rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    values = {
        "X": rng.standard_normal((rows, 3)),
        "y": rng.random((rows, 1)),
        "W1": rng.standard_normal((3, 4)),
        "b1": rng.standard_normal(4),
        "W2": rng.standard_normal((4, 1)),
        "b2": rng.standard_normal(1),
    }
    graph = compile_expression(NETWORK, list(values))
    return tensor_gradient(graph, values, ["W1", "b1", "W2", "b2"])


def spoil(result, name: str, relative: float) -> None:
    result.gradient = {**result.gradient, name: result.gradient[name] * (1 + relative)}


def test_small_tensors_are_checked_element_by_element_with_sympy() -> None:
    result = network(rows=2)
    check = check_tensor(result, seconds=60)
    assert (check.method, check.status) == ("symbolic", "agree")
    assert check.error <= SYMBOLIC_RTOL and "21 source elements" in check.detail
    spoil(result, "b1", 1e-7)
    assert check_tensor(result, seconds=60).status == "disagree"


def test_larger_ones_along_random_directions_labelled_as_such() -> None:
    result = network(rows=200)
    check = check_tensor(result)
    assert (check.method, check.status) == ("directional", "agree")
    assert "central differences along 5 random directions" in str(check)
    assert "not symbolic: the tape holds" in str(check)
    spoil(result, "W2", 1e-3)
    assert check_tensor(result).status == "disagree"


def test_a_point_on_a_kink_is_not_judged() -> None:
    graph = compile_expression("sum(relu(X@W))", ["X", "W"])
    result = tensor_gradient(graph, {"X": np.array([[1.0, -1.0]]), "W": np.ones((2, 2))})
    assert result.at_kink
    check = check_tensor(result)
    assert check.status == "skipped"
    # nothing was compared, so there is no error figure (it read 0.0e+00)
    assert check.error is None and check.json()["error"] is None
    assert str(check).startswith("check: skipped — the point lies on a kink")
    assert "relative error" not in str(check)


def test_a_relu_network_near_its_kinks_is_never_called_wrong() -> None:
    rng = np.random.default_rng(4)
    for _ in range(5):
        values = {
            "X": rng.standard_normal((300, 3)),
            "W": rng.standard_normal((3, 6)),
            "v": rng.standard_normal((6, 1)),
        }
        graph = compile_expression("loss = mean((relu(X@W)@v)^2)", list(values))
        assert check_tensor(tensor_gradient(graph, values)).status in ("agree", "skipped")


# -- sympy's side evaluated where float64 overflows (exp(1000)): never a disagreement of its
# own making. Truth: the gradient of each program by hand, in mpmath at 50 digits.


def _softmax(x):
    top = max(x)
    weights = [mpmath.exp(v - top) for v in x]
    return [w / mpmath.fsum(weights) for w in weights]


def _truths(x):
    """Each program's gradient at ``x`` (mpmath numbers, 50 digits), by hand."""
    s = _softmax(x)
    n = len(x)
    mean = mpmath.fsum(si * xi for si, xi in zip(s, x))
    return {
        "logsumexp(x)": s,
        "softmax(x)[0]": [s[0] * ((1 if j == 0 else 0) - s[j]) for j in range(n)],
        "sum(softmax(x)*x)": [s[j] * (1 + x[j] - mean) for j in range(n)],
        "logsumexp(x) - x[0]": [s[j] - (1 if j == 0 else 0) for j in range(n)],
    }


def _close(tape, truth, rtol: float) -> bool:
    """The documented rule, independently: within rtol of the truth, 1e-12 where it is 0,
    float64's smallest normal number where it is below that."""
    slack = 1e-12 if truth == 0 else 2.2250738585072014e-308
    return bool(abs(mpmath.mpf(float(tape)) - truth) <= rtol * abs(truth) + slack)


def _points():
    """The tester's points, and seeded ones where exp overflows or underflows float64."""
    yield from ([1000.0, 1000.0], [1000.0, 999.0, 998.0], [-1000.0, -1000.0, -999.0])
    yield [710.0, 0.0, 0.0]
    rng = np.random.default_rng(3)
    for _ in range(6):
        size = int(rng.integers(2, 5))
        centre = float(rng.choice([-1, 1]) * rng.integers(709, 10**4))
        yield [centre + float(rng.integers(-3, 4)) for _ in range(size)]


def test_where_float64_overflows_the_symbolic_check_still_decides() -> None:
    with mpmath.workdps(50):
        for x in _points():
            truths = _truths([mpmath.mpf(v) for v in x])
            for expression, truth in truths.items():
                result = tensor_gradient(compile_expression(expression, ["x"]), {"x": np.array(x)})
                check = check_tensor(result, seconds=60)
                right = all(
                    _close(t, e, SYMBOLIC_RTOL) for t, e in zip(result.gradient["x"], truth)
                )
                assert check.status == ("agree" if right else "disagree"), (expression, x, check)
                assert check.method == "symbolic" or check.status != "disagree", check


def test_a_wrong_gradient_where_float64_overflows_is_still_caught() -> None:
    result = tensor_gradient(compile_expression("logsumexp(x)", ["x"]), {"x": np.array([1e3, 1e3])})
    assert check_tensor(result, seconds=60).status == "agree"
    spoil(result, "x", 1e-6)
    check = check_tensor(result, seconds=60)
    assert (check.method, check.status) == ("symbolic", "disagree")
    assert check.error == pytest.approx(1e-6, rel=1e-3)


@pytest.mark.parametrize(
    ("expression", "values", "zero"),
    [
        ("sum(relu(x))", {"x": np.array([2.0, -3.0, 0.5])}, 1),  # relu' = 0 at -3
        ("sum(W@x)", {"W": np.array([[1.0, 0.0], [-1.0, 0.0]]), "x": np.array([1.0, 2.0])}, 1),
        ("sum(x^2) - x[0]^2", {"x": np.array([0.0, 4.0])}, 0),  # cancels to 0 exactly
    ],
)
def test_a_wrong_gradient_where_the_derivative_is_exactly_zero_is_caught_by_sympy(
    expression, values, zero
) -> None:
    sources = ["x"]
    result = tensor_gradient(compile_expression(expression, list(values)), values, sources)
    assert result.gradient["x"][zero] == 0.0 and check_tensor(result, seconds=60).status == "agree"
    result.gradient = {"x": result.gradient["x"] + np.eye(result.gradient["x"].size)[zero] * 1e-6}
    check = check_tensor(result, seconds=60)
    assert (check.method, check.status, check.error) == ("symbolic", "disagree", float("inf"))


def test_the_command_line_says_agree_and_writes_no_overflow_note(cli) -> None:
    result = cli("grad", "logsumexp(x)", "--at", "x=[1000,1000]", "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["check"]["status"] == "agree" and out["check"]["error"] is not None
    assert "overflow" not in result.stderr
