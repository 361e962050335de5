"""custom_gradient: the user's backward function is the rule, recorded and shown like an op."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradcalc import F, Tape, Variable, constant, custom_gradient


@custom_gradient
def log1pexp(x):
    e = F.exp(x)

    def backward(dy):
        return dy * (1 - 1 / (1 + e))

    return F.log(1 + e), backward


def test_a_stable_gradient_replaces_the_one_that_overflows() -> None:
    x = constant(100.0)
    with Tape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(y) == pytest.approx(100.0)  # log(1 + e^100), by hand
    assert float(tape.gradient(y, x)) == 1.0  # sigmoid(100) is 1 to double precision
    plain = constant(100.0)
    with Tape() as tape:
        tape.watch(plain)
        naive = F.log(1 + F.exp(plain * 8))  # e^800 overflows: the plain rule gives NaN
    assert np.isnan(float(tape.gradient(naive, plain)))


def test_the_result_is_one_record_named_after_the_function_the_inside_is_marked() -> None:
    x = Variable(0.5)
    with Tape() as tape:
        y = log1pexp(x * 2)
    # the operations inside are recorded (as TensorFlow's tapes do), marked as inside it
    assert [(r.op.name, r.inside) for r in tape.records] == [
        ("mul", None),
        ("exp", "log1pexp"),
        ("add", "log1pexp"),
        ("log", "log1pexp"),
        ("log1pexp", None),
    ]
    assert tape.records[-1].output is y  # the result's producer: the call's own record
    assert "log1pexp(#1)" in str(tape)
    # d/dx log(1 + e^(2x)) = 2 sigmoid(2x), by hand: only through backward
    assert float(tape.gradient(y, x)) == pytest.approx(2 / (1 + math.exp(-1.0)), rel=1e-15)
    assert [r.index for r in tape.records if r.adjoint is not None] == [1, 5]


def test_several_arguments_and_a_none_gradient() -> None:
    @custom_gradient
    def scaled(a, b):
        return a * b, lambda dy: (dy * 10, None)

    a, b = Variable(2.0), Variable(3.0)
    with Tape() as tape:
        y = scaled(a, b)
    assert float(y) == 6.0
    ga, gb = tape.gradient(y, [a, b])
    assert (float(ga), float(gb)) == (10.0, 0.0)


def test_a_backward_written_with_ops_is_differentiated_by_an_outer_tape() -> None:
    @custom_gradient
    def cube(x):
        return x**3, lambda dy: dy * 3 * x**2

    x = Variable(2.0)
    with Tape() as outer:
        with Tape() as inner:
            y = cube(x)
        d1 = inner.gradient(y, x)
    assert (float(d1), float(outer.gradient(d1, x))) == (12.0, 12.0)  # 3x², 6x at 2


def test_mistakes_are_named() -> None:
    @custom_gradient
    def no_backward(x):
        return x

    @custom_gradient
    def two_for_one(x):
        return x, lambda dy: (dy, dy)

    hidden = Variable(1.0, name="w")

    @custom_gradient
    def reads_w(x):
        return x * hidden, lambda dy: dy

    x = Variable(1.0)
    with pytest.raises(TypeError, match=r"no_backward must return \(result, backward\)"):
        no_backward(x)
    with Tape() as tape:
        y = two_for_one(x)
    with pytest.raises(TypeError, match=r"two_for_one gave 2 gradient\(s\) for 1 argument"):
        tape.gradient(y, x)
    with pytest.raises(TypeError, match=r"reads the variable.* w without taking"):
        reads_w(x)


def _sigmoid_slope(x: float) -> float:
    """d/dx sigmoid(x) = sigmoid(x) (1 - sigmoid(x)), by hand."""
    s = 1 / (1 + math.exp(-x))
    return s * (1 - s)


def test_a_backward_using_what_the_function_computed_has_a_second_derivative() -> None:
    # TensorFlow's guide: log1pexp's backward uses e = exp(x) from inside the function;
    # d²/dx² log(1 + e^x) = sigmoid'(x) = 0.2350037 at 0.5
    x = constant(0.5)
    with Tape() as outer:
        outer.watch(x)
        with Tape() as inner:
            inner.watch(x)
            y = log1pexp(x)
        first = inner.gradient(y, x)
    assert float(first) == pytest.approx(1 / (1 + math.exp(-0.5)), rel=1e-15)
    second = outer.gradient(first, x)
    assert float(second) == pytest.approx(_sigmoid_slope(0.5), rel=1e-12)
    assert float(second) == pytest.approx(0.2350037, abs=1e-7)
    # a third order through two nested backward passes: sigmoid'' = s'(1 - 2s)
    v = Variable(0.5)
    with Tape() as t3:
        with Tape() as t2:
            with Tape() as t1:
                y = log1pexp(v)
            d1 = t1.gradient(y, v)
        d2 = t2.gradient(d1, v)
    s = 1 / (1 + math.exp(-0.5))
    assert float(t3.gradient(d2, v)) == pytest.approx(_sigmoid_slope(0.5) * (1 - 2 * s), rel=1e-12)


@custom_gradient
def softplus(x):
    sig = 1 - 1 / (1 + F.exp(x))  # exp overflows for large x; sig is still right (1)
    return x + F.log(1 + F.exp(-x)), lambda dy: dy * sig


def test_what_overflows_inside_the_function_is_no_problem_of_its_result() -> None:
    x = Variable(1000.0)
    with Tape() as tape:
        y = softplus(x)
    assert (float(y), float(tape.gradient(y, x))) == (1000.0, 1.0)  # x + log(1 + e^-x), by hand
    assert np.isinf(tape.records[0].value)  # exp(1000), recorded inside
    assert (tape.problems(), tape.problems(y)) == ([], [])
    # once a gradient goes through it (a second derivative), it is a problem of that one
    with Tape() as outer:
        with Tape() as inner:
            y = softplus(x)
        first = inner.gradient(y, x)
    assert np.isnan(float(outer.gradient(first, x)))  # inf/inf: the backward's formula
    assert [str(p) for p in outer.problems()] == [
        "record #1 (exp): non-finite value: overflow to infinity"
    ]
    assert [str(p) for p in outer.problems(first)] == [
        "record #1 (exp): non-finite value: overflow to infinity"
    ]


def test_a_persistent_tape_takes_the_second_derivative_of_its_own_custom_call() -> None:
    x = Variable(0.5)
    with Tape(persistent=True) as tape:
        y = log1pexp(x)
        first = tape.gradient(y, x)
    assert float(tape.gradient(first, x)) == pytest.approx(_sigmoid_slope(0.5), rel=1e-12)


def test_several_results_as_tensorflows_one_adjoint_per_result() -> None:
    seen = []

    @custom_gradient
    def two(a):
        def backward(dy1, dy2):
            seen.append((dy1.numpy().tolist(), dy2.numpy().tolist()))
            return dy1 * 2 + dy2 * F.cos(a)

        return (a * 2, F.sin(a)), backward

    v = Variable([0.5, -1.0])
    with Tape(persistent=True) as tape:
        y1, y2 = two(v)
        loss = F.sum(y1 * y1) + F.sum(y2)
    # each result its own tensor, shaped as returned
    np.testing.assert_array_equal(y1.numpy(), [1.0, -2.0])
    np.testing.assert_array_equal(y2.numpy(), np.sin([0.5, -1.0]))
    # by hand: d/dv [sum((2v)^2) + sum(sin v)] = 8v + cos v; backward got 2*y1 and ones
    got = tape.gradient(loss, v).numpy()
    np.testing.assert_allclose(got, 8 * np.array([0.5, -1.0]) + np.cos([0.5, -1.0]), rtol=1e-15)
    assert seen[-1] == ([2.0, -4.0], [1.0, 1.0])
    # a result the target does not use gets zeros as its adjoint, as in TensorFlow
    np.testing.assert_allclose(tape.gradient(y2, v).numpy(), np.cos([0.5, -1.0]), rtol=1e-15)
    assert seen[-1] == ([0.0, 0.0], [1.0, 1.0])

    # central finite differences of the same loss agree
    def f(p):
        return np.sum((2 * p) ** 2) + np.sum(np.sin(p))

    h, p = 1e-6, np.array([0.5, -1.0])
    fd = [(f(p + h * e) - f(p - h * e)) / (2 * h) for e in np.eye(2)]
    np.testing.assert_allclose(got, fd, rtol=1e-8)


def test_a_single_scalar_result_in_a_tuple_is_a_tuple_of_one() -> None:
    @custom_gradient
    def square(a):
        return (a * a,), lambda dy: dy * 2 * a

    x = Variable(3.0)
    with Tape() as tape:
        (y,) = square(x)
    assert y.shape == () and float(y) == 9.0 and float(tape.gradient(y, x)) == 6.0


def test_a_gradient_of_the_wrong_shape_is_a_shape_error_naming_the_function() -> None:
    from gradcalc import ShapeError

    @custom_gradient
    def doubled(a):
        return a * 2, lambda dy: constant([1.0, 2.0, 3.0])

    v = Variable([1.0, 2.0])
    with Tape() as tape:
        y = doubled(v)
    with pytest.raises(ShapeError, match=r"backward function of doubled .* shape \(3,\) .* \(2,\)"):
        tape.gradient(y, v)


@pytest.mark.parametrize("bad, reason", [(np.nan, "NaN"), (np.inf, "infinity")])
def test_a_nan_from_backward_is_a_problem_of_its_record(bad, reason) -> None:
    @custom_gradient
    def broken(a):
        return a * 2, lambda dy: dy * bad

    for make in (lambda x: broken(x), lambda x: broken(x * x) + 1):
        x = Variable(1.0)
        with Tape() as tape:
            y = make(x)
        assert not np.isfinite(float(tape.gradient(y, x)))
        problems = tape.problems()
        # the record of broken, and only it: the mul before it is not blamed
        assert [(p.record.op.name, p.kind) for p in problems] == [("broken", "non-finite adjoint")]
        assert f"backward function of broken gave {reason}" in str(problems[0])
        assert [p.record.op.name for p in tape.problems(y)] == ["broken"]


def test_a_finite_backward_is_no_problem() -> None:
    x = Variable(100.0)
    with Tape() as tape:
        y = log1pexp(x)
    tape.gradient(y, x)
    assert tape.problems() == []
