"""core.problems: each problem names its record and op, and a NaN or infinity is reported once,
where it arises, not again at every record it flows through."""

from __future__ import annotations

from gradcalc import F, Tape, Variable
from gradcalc.core.problems import find_problems


def test_problems_name_the_record_and_op() -> None:
    x = Variable([-1.0, 0.0, 4.0])
    with Tape() as tape:
        y = F.sqrt(x) + F.exp(x * 1000)
    tape.gradient(y, x)
    found = [(p.record.index, p.record.op.name, p.kind, p.mask.tolist()) for p in tape.problems()]
    assert (1, "sqrt", "undefined", [True, False, False]) in found
    assert (1, "sqrt", "not differentiable", [False, True, False]) in found
    assert (3, "exp", "non-finite value", [False, False, True]) in found


def test_overflow_is_reported_as_a_non_finite_value() -> None:
    x = Variable(1e200)
    with Tape() as tape:
        y = x**2
    tape.gradient(y, x)
    assert [(p.record.index, p.kind) for p in tape.problems()] == [(1, "non-finite value")]


def test_an_infinite_adjoint_is_blamed_on_the_record_that_causes_it() -> None:
    x = Variable(1e-200)
    with Tape() as tape:
        y = x * x  # underflows to 0: a finite value
        z = F.sqrt(y)  # sqrt has an infinite slope at 0, so y's adjoint is infinite
    tape.gradient(z, x)
    assert [(p.record.index, p.kind) for p in tape.problems()] == [(2, "not differentiable")]


def test_an_infinite_adjoint_with_no_other_cause_is_reported() -> None:
    x = Variable(1.0)
    with Tape() as tape:
        u = x * 1e-300
        f = 1e200 * (1e200 * u)  # every value finite; d f / d u = 1e400 overflows
    tape.gradient(f, x)
    found = [(p.record.index, p.kind, p.reason) for p in tape.problems()]
    assert found == [(1, "non-finite adjoint", "overflow to infinity")]


def test_a_non_finite_value_is_reported_once_where_it_arises() -> None:
    x = Variable([-1.0, 1.0, 800.0])
    with Tape() as tape:
        y = F.exp(x) + F.log(x)
        z = y * 2
    tape.gradient(z, x)
    found = [(p.record.op.name, p.kind, p.reason, p.mask.tolist()) for p in tape.problems()]
    assert found == [
        ("exp", "non-finite value", "overflow to infinity", [False, False, True]),
        ("log", "undefined", "ln is undefined for negative numbers", [True, False, False]),
    ]


def test_an_issue_of_an_input_nobody_differentiates_is_not_reported() -> None:
    """(-2)^y has no derivative in the exponent y; with y a constant that is no problem."""
    base, exponent = Variable(-2.0), Variable(3.0)
    with Tape() as tape:
        base**exponent
    both = [(p.kind, p.reason) for p in find_problems(tape.records, {base.id, exponent.id})]
    assert both == [
        ("not differentiable", "the derivative with respect to the exponent needs a positive base")
    ]
    assert find_problems(tape.records, {base.id}) == []


def test_finite_each_says_what_checking_each_array_alone_says() -> None:
    """The small arrays are checked together; a NaN or infinity among thousands of them, and
    in a large one, is still told apart."""
    import numpy as np

    from gradcalc.core.problems import finite_each

    rng = np.random.default_rng(5)
    arrays = [rng.normal(size=rng.integers(0, 4)) for _ in range(3000)] + [rng.normal(size=500)]
    arrays[1234] = np.array([1.0, np.nan])
    arrays[2000] = np.array(-np.inf)
    arrays[-1] = np.append(arrays[-1], np.inf)
    alone = [bool(np.isfinite(a).all()) for a in arrays]
    assert finite_each([*arrays, None]) == [*alone, True]
    assert alone.count(False) == 3
    assert finite_each(arrays[:1000]) == [True] * 1000


def test_a_problem_among_thousands_of_healthy_records_is_found() -> None:
    xs = [Variable(float(k)) for k in range(1, 2001)]
    with Tape() as tape:
        total = xs[0]
        for k, x in enumerate(xs[1:], 1):
            total = total + (F.log(x - 1800.0) if k == 1700 else x * 2.0)
    tape.gradient(total, xs)
    found = [(p.record.op.name, p.kind, p.reason) for p in tape.problems()]
    assert found == [("log", "undefined", "ln is undefined for negative numbers")]
