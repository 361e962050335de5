"""custom_gradient: the user's backward function is the rule, recorded and shown like an op."""

from __future__ import annotations

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


def test_the_call_is_one_record_named_after_the_function() -> None:
    x = Variable(0.5)
    with Tape() as tape:
        log1pexp(x * 2)
    assert [r.op.name for r in tape.records] == ["mul", "log1pexp"]
    assert "log1pexp(#1)" in str(tape)


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
