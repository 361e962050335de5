"""The tape against textbook answers, sympy and finite differences."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcalc import F, Tape, TapeError, Variable, constant, reduce_sum, stop_gradient
from gradcalc.core.ops import REGISTRY


def test_seed_geron_example_gradients_are_36_and_10() -> None:
    w1, w2 = Variable(5.0), Variable(3.0)
    with Tape() as tape:
        z = 3 * w1**2 + 2 * w1 * w2
    g1, g2 = tape.gradient(z, [w1, w2])
    # d/dw1 = 6 w1 + 2 w2, d/dw2 = 2 w1, worked by hand
    assert (float(g1), float(g2)) == (36.0, 10.0)
    assert float(z) == 105.0


@pytest.mark.parametrize(("x0", "expected"), [(5.0, 75.0), (7.0, 147.0)])
def test_seed_cube_slope_is_3x_squared(x0: float, expected: float) -> None:
    x = constant(x0)
    with Tape() as tape:
        tape.watch(x)
        y = x**3
    assert float(tape.gradient(y, x)) == expected


def test_seed_chain_rule_with_persistent_tape_and_intermediate() -> None:
    x = constant(3.0)
    with Tape(persistent=True) as tape:
        tape.watch(x)
        y = x**2
        z = y**2
    assert float(tape.gradient(z, x)) == 108.0  # 4 x^3
    assert float(tape.gradient(y, x)) == 6.0  # 2 x
    assert float(tape.gradient(z, y)) == 18.0  # 2 y, y = 9


def test_non_persistent_tape_refuses_a_second_gradient() -> None:
    x = Variable(3.0)
    with Tape() as tape:
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(TapeError, match=r"only be called once.*persistent=True"):
        tape.gradient(y, x)


def test_constant_is_not_watched_unless_asked() -> None:
    x = constant(2.0)
    with Tape() as tape:
        y = x * x
    assert tape.records == []
    assert tape.gradient(y, x) is None


def test_unconnected_source_gives_none_or_zero() -> None:
    x, u = Variable(2.0), Variable([1.0, 2.0])
    with Tape(persistent=True) as tape:
        y = x * x
    assert tape.gradient(y, [x, u])[1] is None
    zero = tape.gradient(y, [x, u], unconnected="zero")[1]
    np.testing.assert_array_equal(zero.value, [0.0, 0.0])
    with pytest.raises(ValueError, match="'none' or 'zero'"):
        tape.gradient(y, u, unconnected="nan")


def test_sources_keep_their_structure() -> None:
    a, b = Variable(1.0), Variable(2.0)
    with Tape(persistent=True) as tape:
        y = a * b
    assert isinstance(tape.gradient(y, (a, b)), tuple)
    assert list(tape.gradient(y, {"b": b, "a": a})) == ["b", "a"]
    assert float(tape.gradient(y, {"b": b, "a": a})["a"]) == 2.0


def test_variables_are_not_watched_when_the_tape_says_so() -> None:
    x = Variable(2.0)
    with Tape(watch_accessed_variables=False) as tape:
        y = x * x
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize(("order", "expected"), [(1, 75.0), (2, 30.0), (3, 6.0), (4, 0.0)])
def test_nested_tapes_give_higher_derivatives_of_x_cubed(order: int, expected: float) -> None:
    x = Variable(5.0)
    tapes = [Tape() for _ in range(order)]
    for tape in tapes:
        tape.__enter__()
    y = x**3
    for tape in reversed(tapes):
        tape.__exit__(None, None, None)
        y = tape.gradient(y, x, unconnected="zero")
    assert float(y) == expected


def test_mixed_second_derivatives_match_sympy() -> None:
    xs, ys = sp.symbols("x y", real=True)
    expr = sp.sin(xs * ys) * sp.exp(xs) + sp.log(1 + ys**2) * xs**3
    point = {xs: sp.Rational(7, 10), ys: sp.Rational(-13, 10)}
    x, y = Variable(0.7), Variable(-1.3)
    with Tape(persistent=True) as outer:
        with Tape() as inner:
            f = F.sin(x * y) * F.exp(x) + F.log(1 + y**2) * x**3
        gx, gy = inner.gradient(f, [x, y])
    hessian = [[float(h) for h in outer.gradient(g, [x, y])] for g in (gx, gy)]
    expected = [[float(sp.diff(expr, a, b).evalf(subs=point)) for b in (xs, ys)] for a in (xs, ys)]
    np.testing.assert_allclose(hessian, expected, rtol=1e-12)


@pytest.mark.slow
def test_a_chain_of_100000_ops_differentiates_without_recursion() -> None:
    x = Variable(0.5)
    with Tape() as tape:
        y = x
        for _ in range(100_000):
            y = y * 1.0000001
    assert len(tape.records) == 100_000
    assert float(tape.gradient(y, x)) == pytest.approx(1.0000001**100_000, rel=1e-9)


def test_vectorised_evaluation_agrees_with_scalar_evaluation_point_by_point() -> None:
    rng = np.random.default_rng(7)
    xs, ys = rng.uniform(0.1, 3, 100_000), rng.uniform(-2, 2, 100_000)

    def gradient(xv, yv):
        x, y = Variable(xv), Variable(yv)
        with Tape() as tape:
            f = F.sin(x) * F.exp(-(x**2) / 2) + F.log(1 + y**2) * F.tanh(x * y) + x**y
        return [g.value for g in tape.gradient(f, [x, y])]

    batch = gradient(xs, ys)
    for i in rng.choice(len(xs), 200, replace=False):
        scalar = gradient(xs[i], ys[i])
        assert batch[0][i] == scalar[0] and batch[1][i] == scalar[1]


def test_gradient_of_a_broadcast_scalar_parameter_sums_over_points() -> None:
    data = constant(np.arange(1.0, 5.0))
    a = Variable(2.0)
    with Tape(persistent=True) as outer:
        with Tape() as inner:
            loss = reduce_sum((a * data - 1) ** 2)
        da = inner.gradient(loss, a)
    d2a = outer.gradient(da, a)
    # loss = sum (a d - 1)^2: d/da = sum 2 d (a d - 1), d2/da2 = sum 2 d^2
    d = np.arange(1.0, 5.0)
    assert da.shape == () and float(da) == pytest.approx(np.sum(2 * d * (2 * d - 1)))
    assert float(d2a) == pytest.approx(np.sum(2 * d**2))


def test_jacobian_of_polar_to_cartesian_has_determinant_r() -> None:
    r, t = Variable(2.0), Variable(0.5)
    with Tape(persistent=True) as tape:
        x, y = r * F.cos(t), r * F.sin(t)
    jac = np.array([[float(d) for d in tape.jacobian(f, [r, t])] for f in (x, y)])
    expected = [[np.cos(0.5), -2 * np.sin(0.5)], [np.sin(0.5), 2 * np.cos(0.5)]]
    np.testing.assert_allclose(jac, expected, rtol=1e-15)
    assert np.linalg.det(jac) == pytest.approx(2.0)


def test_jacobian_of_elementwise_square_is_diagonal() -> None:
    x = Variable([1.0, 2.0, 3.0])
    with Tape() as tape:
        y = x**2
    np.testing.assert_array_equal(tape.jacobian(y, x).value, np.diag([2.0, 4.0, 6.0]))


def test_stop_gradient_and_stop_recording() -> None:
    x = Variable(3.0)
    with Tape(persistent=True) as tape:
        y = x * stop_gradient(x)
        with tape.stop_recording():
            z = y * 10
        w = y * 2
    assert float(tape.gradient(y, x)) == 3.0
    assert tape.gradient(z, x) is None
    assert float(tape.gradient(w, x)) == 6.0


def test_stop_recording_outside_the_with_block_is_refused() -> None:
    # TensorFlow raises when stop_recording is used on a tape that is not recording
    x = Variable(3.0)
    tape = Tape()
    with pytest.raises(TapeError, match="inside its with block"), tape.stop_recording():
        pass
    with tape:
        y = x * x
    with pytest.raises(TapeError, match="inside its with block"), tape.stop_recording():
        pass
    assert float(tape.gradient(y, x)) == 6.0


def test_records_show_ops_inputs_values_and_adjoints() -> None:
    x = constant(3.0)
    with Tape() as tape:
        tape.watch(x)
        y = x**2
        z = y**2
    tape.gradient(z, x)
    rows = [
        (r.index, r.op.name, r.input_ids[0], float(r.value), float(r.adjoint)) for r in tape.records
    ]
    assert rows == [(1, "pow", x.id, 9.0, 18.0), (2, "pow", y.id, 81.0, 1.0)]
    assert float(tape.adjoint(x)) == 108.0


def test_watch_rejects_non_tensors() -> None:
    with Tape() as tape, pytest.raises(TypeError, match=r"gradcalc\.constant"):
        tape.watch(3.0)


def test_truth_value_of_one_element_follows_its_value_and_of_more_is_an_error() -> None:
    assert bool(Variable(1.0) * 2) and not bool(Variable([0.0]) * 2)
    with pytest.raises(TypeError, match=r"shape \(2,\) is ambiguous"):
        bool(Variable([1.0, 2.0]) * 2)


def test_unwatched_inputs_get_no_gradient_as_in_tensorflow() -> None:
    x, c = Variable(3.0), constant(4.0)
    with Tape() as tape:
        y = x * c
    assert float(tape.gradient(y, [x, c])[0]) == 4.0
    assert Tape().watched == []
    with Tape(persistent=True) as tape:
        y = x * c
    assert tape.gradient(y, c) is None


def test_a_misspelt_unconnected_option_is_refused_even_when_all_are_connected() -> None:
    x = Variable(1.0)
    with Tape() as tape:
        y = x * x
    with pytest.raises(ValueError, match="'none' or 'zero'"):
        tape.gradient(y, x, unconnected="zeros")


def test_unary_plus_is_the_identity() -> None:
    x = Variable(2.0)
    with Tape() as tape:
        y = +x * 3
    assert float(tape.gradient(y, x)) == 3.0


def test_reset_forgets_records_and_allows_a_new_gradient() -> None:
    x = Variable(2.0)
    with Tape() as tape:
        y = x * x
    tape.gradient(y, x)
    tape.reset()
    assert tape.records == [] and tape.watched == []
    with tape:
        z = x * x * x
    assert float(tape.gradient(z, x)) == 12.0


# --- a first derivative on arrays (ops' array_grads) makes the tensor pass's numbers ---

ARRAY_RULED = [op for op in REGISTRY.values() if op.array_grads is not None]
SPECIALS = np.array([0.0, -0.0, 1.0, -1.0, 1e-300, -1e300, np.inf, -np.inf, np.nan, 0.5])


def _inputs(op, rng) -> list[list[np.ndarray]]:
    """Input sets: random values of several shapes (broadcasting ones for two inputs), and
    every pair of special values."""
    shapes = [[()] * op.arity, [(5,)] * op.arity, [(4, 1), (3,)][: op.arity]]
    sets = [[rng.normal(0, 3, s) for s in shape] for shape in shapes]
    specials = np.array(np.meshgrid(*[SPECIALS] * op.arity)).reshape(op.arity, -1)
    return [*sets, list(specials)]


@pytest.mark.parametrize("op", ARRAY_RULED, ids=[op.name for op in ARRAY_RULED])
def test_array_rules_make_the_tensor_rules_numbers_bit_for_bit(op) -> None:
    rng = np.random.default_rng(7)
    with np.errstate(all="ignore"):
        for xs in _inputs(op, rng):
            ans = op.forward(*xs)
            g = rng.normal(0, 2, np.shape(ans))
            for k, (rule, array_rule) in enumerate(zip(op.grads, op.array_grads, strict=True)):
                expected = rule(constant(g), constant(ans), *map(constant, xs)).value
                got = np.asarray(array_rule(g, ans, *xs))
                assert got.dtype == np.float64 and got.shape == expected.shape, (op.name, k)
                assert np.array_equal(got, expected, equal_nan=True), (op.name, k, xs)


def test_only_ops_whose_array_rules_are_tested_have_them() -> None:
    assert {op.name for op in ARRAY_RULED} >= {"add", "mul", "sin"}  # the common ones
    assert all(len(op.array_grads) == op.arity for op in ARRAY_RULED)


EXPRESSIONS = [
    "x*sin(y) + y*sin(x)",
    "3*x^2 + 2*x*y - y/x",
    "exp(-x^2/2)*log(1 + y^2) - sqrt(x^2 + y^2)",
    "tanh(x*y) + sigmoid(x - y) + abs(x) * max(x, y)",
    "atan2(y, x) + cos(x)^3 - (x - y)/(1 + exp(y))",
    "relu(x)*softplus(y) + x^y + log(x)",  # undefined for x < 0: NaN where the tensor pass has it
]


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_a_first_derivative_on_arrays_equals_the_tensor_pass_bit_for_bit(text) -> None:
    from gradcalc.engine.evaluate.evaluate import evaluate
    from gradcalc.engine.run.api import compile_expression

    graph = compile_expression(text)
    rng = np.random.default_rng(11)
    point = {"x": rng.normal(0, 2, 200), "y": rng.normal(0, 2, 200)}
    point["x"][:3] = [0.0, -1.0, np.inf]
    arrays = evaluate(graph, point)
    with Tape():  # a recording tape takes the backward pass on tensors, for higher orders
        tensors = evaluate(graph, point)
    for name in ("x", "y"):
        a, b = arrays.gradients[0][name], tensors.gradients[0][name]
        assert np.array_equal(a, b, equal_nan=True), name
    rows_a, rows_b = list(arrays.rows[0]), list(tensors.rows[0])
    assert len(rows_a) == len(rows_b) > 3
    for ra, rb in zip(rows_a, rows_b):
        assert (ra.adjoint is None) == (rb.adjoint is None)
        if ra.adjoint is not None:
            assert np.array_equal(ra.adjoint, rb.adjoint, equal_nan=True), ra.formula


# --- TensorFlow's semantics (issue 39) ------------------------------------------------------


def test_several_targets_give_the_gradient_of_their_sum_in_any_structure() -> None:
    x = Variable(2.0)
    with Tape(persistent=True) as tape:
        y0, y1 = x**2, 1 / x
    by_hand = 2 * 2.0 - 1 / 2.0**2  # d(x² + 1/x)/dx
    assert float(tape.gradient({"y0": y0, "y1": y1}, x)) == by_hand
    assert float(tape.gradient([y0, [y1, y0]], x)) == by_hand + 4.0
    assert float(tape.gradient([y0, y1], x, output_gradients=[2.0, None])) == 8.0 - 0.25


def test_a_source_that_is_its_own_target_gets_ones_even_unread() -> None:
    v0, v1, c = Variable(2.0), Variable([1.0, 2.0]), constant(3.0)
    with Tape() as tape:
        r = v0
    grads = tape.gradient(r, [v0, v1, c])
    assert float(grads[0]) == 1.0 and grads[1:] == [None, None]
    for source in (v0, v1, c):
        with Tape() as tape:
            pass
        assert np.array_equal(tape.gradient(source, source).numpy(), np.ones(source.shape))


def test_comparisons_give_booleans_and_branches_record_only_the_path_taken() -> None:
    x, v0, v1 = constant([1.0, -1.0]), Variable(2.0), Variable(2.0)
    assert (x > 0.0).tolist() == [True, False] and (x <= constant(-1.0)).tolist() == [False, True]
    for point, expected in ((1.0, [1.0, None]), (-1.0, [None, 4.0])):
        with Tape() as tape:
            result = v0 if constant(point) > 0.0 else v1**2
        grads = tape.gradient(result, [v0, v1])
        assert [None if g is None else float(g) for g in grads] == expected
    y, steps = Variable(1.0), 0
    with Tape() as tape:
        z = y
        while z < 10.0:  # 1, 3, 9, 27: z = 27·y, three multiplications
            z, steps = z * 3, steps + 1
    assert steps == 3 and float(tape.gradient(z, y)) == 27.0


def test_reset_inside_the_block_keeps_recording() -> None:
    x, y = Variable(2.0), Variable(3.0)
    with Tape() as tape:
        y_sq = y * y
        tape.reset()
        z = x * x + y_sq
    assert [r.op.name for r in tape.records] == ["mul", "add"]
    grads = tape.gradient(z, {"x": x, "y": y})
    assert float(grads["x"]) == 4.0 and grads["y"] is None


def test_numpy_reads_a_tensor_as_an_array_and_the_tape_does_not_see_it() -> None:
    x = Variable([[1.0, 2.0], [3.0, 4.0]])
    with Tape() as tape:
        x2 = x**2
        y = np.mean(x2, axis=0)
    assert type(y) is np.ndarray and y.tolist() == [5.0, 10.0]
    assert np.asarray(x2, dtype=np.float32).dtype == np.float32
    assert [r.op.name for r in tape.records] == ["pow"]
    with pytest.raises(TypeError):
        np.sin(x)  # a ufunc on a tensor is refused, not silently unrecorded


def test_names_and_trainable_variables() -> None:
    x0 = Variable(3.0, name="x0")
    x1 = Variable(3.0, name="x1", trainable=False)
    x2 = Variable(2.0, name="x2") + 1.0  # a tensor, not a variable
    x3 = constant(3.0, name="x3")
    with Tape() as tape:
        y = x0**2 + x1**2 + x2**2
    grads = tape.gradient(y, [x0, x1, x2, x3])
    assert float(grads[0]) == 6.0 and grads[1:] == [None, None, None]
    assert [v.name for v in tape.watched_variables()] == ["x0"]
    assert (x3.name, x2.name) == ("x3", None)
    with Tape() as tape:
        tape.watch(x1)
        y = x1**2
    assert float(tape.gradient(y, x1)) == 6.0  # watched on request


def test_assign_is_not_recorded_and_earlier_records_keep_the_value_they_read() -> None:
    x0, x1 = Variable(3.0), Variable(0.0)
    with Tape() as tape:
        x1.assign_add(x0)
        y = x1**2
    assert float(y) == 9.0 and tape.gradient(y, x0) is None
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=3), rng.normal(size=3)
    v = Variable(a)
    with Tape(persistent=True) as tape:
        first = reduce_sum(v**3)
        v.assign(b)
        second = reduce_sum(v**3)
    np.testing.assert_allclose(tape.gradient(first, v).numpy(), 3 * a**2)
    np.testing.assert_allclose(tape.gradient([first, second], v).numpy(), 3 * a**2 + 3 * b**2)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        v.assign([1.0, 2.0])
    assert float(Variable(5.0).assign_sub(Variable(2.0))) == 3.0


def test_unconnected_gradients_take_tensorflows_enum_and_spelling() -> None:
    from gradcalc import UnconnectedGradients

    x, y = Variable([2.0, 2.0]), Variable(3.0)
    for how in (UnconnectedGradients.ZERO, "zero"):
        with Tape() as tape:
            z = y**2
        assert tape.gradient(z, x, unconnected_gradients=how).numpy().tolist() == [0.0, 0.0]


def test_batch_jacobian_is_the_diagonal_blocks_of_the_full_jacobian() -> None:
    rng = np.random.default_rng(5)
    x = constant(rng.normal(size=(7, 5)))
    w1, w2 = rng.normal(size=(5, 8)), rng.normal(size=(8, 6))
    with Tape(persistent=True) as tape:
        tape.watch(x)
        y = F.elu(F.elu(x @ w1) @ w2)
    j, jb = tape.jacobian(y, x).numpy(), tape.batch_jacobian(y, x).numpy()
    assert j.shape == (7, 6, 7, 5) and jb.shape == (7, 6, 5)
    np.testing.assert_allclose(jb, np.einsum("bybx->byx", j), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="same first axis"):
        tape.batch_jacobian(y, constant(np.ones((3, 5))))


@settings(max_examples=50, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(-3, 3)),
    st.lists(st.sampled_from(["sin", "exp", "tanh", "square"]), min_size=1, max_size=4),
)
def test_a_list_of_targets_gives_the_gradient_of_their_explicit_sum(values, names) -> None:
    functions = {"sin": F.sin, "exp": F.exp, "tanh": F.tanh, "square": lambda t: t * t}
    x = Variable(values)
    with Tape(persistent=True) as tape:
        targets = [functions[name](x) for name in names]
        total = targets[0]
        for t in targets[1:]:
            total = total + t
    np.testing.assert_allclose(
        tape.gradient(targets, x).numpy(), tape.gradient(total, x).numpy(), rtol=1e-13
    )


def test_each_gradient_walks_its_own_sub_tape_and_clears_the_last_adjoints() -> None:
    """After d(b)/dx, the records only a (not b) needs hold no adjoint from the earlier
    d(a)/dx; each call's values match the hand-worked derivatives."""
    from gradcalc import Tape, Variable

    x = Variable(2.0)
    with Tape(persistent=True) as tape:
        a = x * x * x  # records 1, 2
        b = x + 1  # record 3
    assert float(tape.gradient(a, x).value) == 12.0
    assert [rec.adjoint is not None for rec in tape.records] == [True, True, False]
    assert float(tape.gradient(b, x).value) == 1.0
    assert [rec.adjoint is not None for rec in tape.records] == [False, False, True]
    assert [rec.index for rec in tape.records if rec.adjoint is not None] == [3]
    assert [str(p) for p in tape.problems(b)] == []


def test_a_persistent_tape_records_a_gradient_taken_inside_its_block_as_tensorflow() -> None:
    # TensorFlow's behaviour: g = 2x is recorded, so z = g·y = 2x·x² = 2x³ and dz/dx = 6x² = 24
    x = Variable(2.0)
    with Tape(persistent=True) as tape:
        y = x * x
        g = tape.gradient(y, x)
        z = g * y
    assert float(g) == 4.0
    assert float(tape.gradient(z, x)) == 24.0
    assert float(tape.gradient(g, x)) == 2.0  # d(2x)/dx
    # the same Jacobian of a Jacobian on one tape: J = diag(3x²), d/dx sum(J) = 6x
    v = Variable([1.0, 2.0])
    with Tape(persistent=True) as tape:
        j = tape.jacobian(v**3, v)
        total = F.sum(j)
    assert tape.gradient(total, v).value.tolist() == [6.0, 12.0]
    # after the block nothing is recorded (a first derivative costs no records)
    recorded = len(tape.records)
    tape.gradient(total, v)
    tape.jacobian(j, v)
    assert len(tape.records) == recorded


def test_a_tape_that_is_not_persistent_does_not_record_its_own_gradient() -> None:
    x = Variable(2.0)
    with Tape() as tape:
        y = x * x
        g = tape.gradient(y, x)
        z = g * y  # g is a constant to the tape (TensorFlow's stops recording instead)
    assert (float(g), len(tape.records)) == (4.0, 2)
    assert tape.records[1].output is z and not tape.holds(g)
