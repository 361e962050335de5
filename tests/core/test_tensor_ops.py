"""The tensor ops (``matmul``, ``dot``, ``norm``, the reductions, ``softmax``, ``transpose``,
indexing) and broadcasting, tested like the scalar ops: each rule against central finite
differences of the numpy forward and against sympy's derivative of the op's counterpart run on
object arrays of symbols, at first and second order (nested tapes), over random shapes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcalc import F, Tape, Variable, constant
from gradcalc.core.errors import ShapeError
from gradcalc.core.ops import REGISTRY, Op

HYPOTHESIS = settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))

Case = tuple[list[np.ndarray], dict[str, Any]]


def _values(data: st.DataObject, *shapes: tuple[int, ...], low: float = -2.0) -> list[np.ndarray]:
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    return [rng.uniform(low, 2.0, size=shape) for shape in shapes]


def _shape(data: st.DataObject, min_dims: int = 0) -> tuple[int, ...]:
    """Up to 3 axes, at most 9 elements (sympy's Max of many symbols is slow)."""
    return data.draw(
        st.one_of(
            hnp.array_shapes(min_dims=min_dims, max_dims=2, min_side=1, max_side=3),
            hnp.array_shapes(min_dims=3, max_dims=3, min_side=1, max_side=2),
        )
    )


def _axis(data: st.DataObject, ndim: int, optional: bool = True) -> dict[str, Any]:
    choices = [None] if optional else []
    choices += list(range(-ndim, ndim))
    axis = data.draw(st.sampled_from(choices), label="axis")
    return {} if axis is None else {"axis": axis}


def matmul_case(data: st.DataObject) -> Case:
    m, n, k = (data.draw(st.integers(1, 3)) for _ in range(3))
    kind = data.draw(st.sampled_from(["vv", "mv", "vm", "mm", "batch"]))
    shapes = {
        "vv": [(n,), (n,)],
        "mv": [(m, n), (n,)],
        "vm": [(n,), (n, k)],
        "mm": [(m, n), (n, k)],
        "batch": [(2, 1, m, n), (3, n, k)],  # batch axes broadcast
    }[kind]
    return _values(data, *shapes), {}


def dot_case(data: st.DataObject) -> Case:
    n = data.draw(st.integers(1, 4))
    rows = data.draw(st.sampled_from([(), (2,)]))
    return _values(data, (*rows, n), (n,)), {}


def reduction_case(data: st.DataObject) -> Case:
    shape = _shape(data)
    return _values(data, shape), _axis(data, len(shape))


def softmax_case(data: st.DataObject) -> Case:
    shape = _shape(data, min_dims=1)
    return _values(data, shape), _axis(data, len(shape))


def transpose_case(data: st.DataObject) -> Case:
    shape = _shape(data)
    axes = data.draw(st.sampled_from([None, tuple(data.draw(st.permutations(range(len(shape)))))]))
    return _values(data, shape), {} if axes is None else {"axes": axes}


def index_case(data: st.DataObject) -> Case:
    """Integers, one per leading axis (``x[1, -2]``), or an array of integers on the first
    axis with repeats (``x[[0, 0, 2]]``: an entry taken twice gets both adjoints)."""
    shape = _shape(data, min_dims=1)
    if data.draw(st.booleans()):
        n = shape[0]
        taken = data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=5))
        return _values(data, shape), {"index": (np.array(taken),)}
    count = data.draw(st.integers(1, len(shape)))
    index = tuple(data.draw(st.integers(-n, n - 1)) for n in shape[:count])
    return _values(data, shape), {"index": index}


CASES: dict[str, Callable[[st.DataObject], Case]] = {
    "matmul": matmul_case,
    "dot": dot_case,
    "norm": reduction_case,
    "sum": reduction_case,
    "mean": reduction_case,
    "amax": reduction_case,
    "amin": reduction_case,
    "logsumexp": reduction_case,
    "softmax": softmax_case,
    "transpose": transpose_case,
    "index": index_case,
}


def test_every_tensor_op_a_user_can_reach_is_tested_here() -> None:
    reachable = {
        op.name for op in REGISTRY.values() if not op.elementwise and (op.names or op.symbol)
    }
    assert reachable | {"index"} == set(CASES)


def _cotangent(out_shape: tuple[int, ...], seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size=out_shape)


def _loss_value(op: Op, inputs: list[np.ndarray], params: dict, cotangent: np.ndarray) -> float:
    return float(np.sum(op.forward(*inputs, **params) * cotangent))


def tape_vjp(op: Op, inputs: list[np.ndarray], params: dict, cotangent: np.ndarray) -> list:
    xs = [Variable(v) for v in inputs]
    with Tape() as tape:
        loss = F.sum(op(*xs, **params) * cotangent)
    return [g.value for g in tape.gradient(loss, xs, unconnected="zero")]


def tape_hvp(op: Op, inputs: list[np.ndarray], params: dict, cotangent, directions) -> list:
    """Hessian-vector products of sum(op(x) * cotangent) along ``directions``, nested tapes."""
    xs = [Variable(v) for v in inputs]
    with Tape() as outer:
        with Tape() as inner:
            loss = F.sum(op(*xs, **params) * cotangent)
        grads = inner.gradient(loss, xs, unconnected="zero")
        along = sum(F.sum(g * d) for g, d in zip(grads, directions))
    return [h.value for h in outer.gradient(along, xs, unconnected="zero")]


def central_gradient(f: Callable[[list[np.ndarray]], float], inputs: list[np.ndarray]) -> list:
    out = []
    for k, x in enumerate(inputs):
        grad = np.zeros_like(x)
        for index in np.ndindex(*x.shape):
            h = 1e-6 * max(1.0, abs(x[index]))
            up = [v.copy() for v in inputs]
            down = [v.copy() for v in inputs]
            up[k][index] += h
            down[k][index] -= h
            grad[index] = (f(up) - f(down)) / (2 * h)
        out.append(grad)
    return out


def symbolic_derivatives(op: Op, inputs, params, cotangent, directions=None) -> list:
    """sympy's gradient of sum(op(x) * cotangent) at the inputs (with ``directions``: its
    Hessian-vector product), from the op's counterpart on object arrays of symbols."""
    symbols = [
        np.array([sp.Symbol(f"a{k}_{i}", real=True) for i in range(x.size)], dtype=object).reshape(
            x.shape
        )
        for k, x in enumerate(inputs)
    ]
    out = op.symbolic(sp, *symbols, **params)
    weights = np.vectorize(sp.Rational, otypes=[object])(cotangent)
    loss = sp.Add(*np.asarray(out * weights, dtype=object).ravel())
    flat = [s for array in symbols for s in array.ravel()]
    subs = {s: sp.Rational(v) for s, v in zip(flat, np.concatenate([x.ravel() for x in inputs]))}
    if directions is not None:
        ds = np.concatenate([d.ravel() for d in directions])
        loss = sp.Add(*(sp.diff(loss, s) * sp.Rational(d) for s, d in zip(flat, ds)))
    values = np.array([float(sp.diff(loss, s).evalf(30, subs=subs)) for s in flat])
    return np.split(values, np.cumsum([x.size for x in inputs])[:-1])


OPS = pytest.mark.parametrize("name", list(CASES))


def draw_case(name: str, data: st.DataObject) -> tuple[Op, list[np.ndarray], dict, np.ndarray]:
    """The op, random inputs and parameters for it, and a random adjoint of its result."""
    op = REGISTRY[name]
    inputs, params = CASES[name](data)
    return op, inputs, params, _cotangent(np.shape(op.forward(*inputs, **params)))


@OPS
@HYPOTHESIS
@given(data=st.data())
def test_first_order_rule_matches_sympy_and_finite_differences(name: str, data) -> None:
    op, inputs, params, cotangent = draw_case(name, data)
    grads = tape_vjp(op, inputs, params, cotangent)
    assert [g.shape for g in grads] == [x.shape for x in inputs]
    numeric = central_gradient(lambda xs: _loss_value(op, xs, params, cotangent), inputs)
    exact = symbolic_derivatives(op, inputs, params, cotangent)
    for grad, fd, truth in zip(grads, numeric, exact):
        np.testing.assert_allclose(grad.ravel(), truth, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


@OPS
@HYPOTHESIS
@given(data=st.data())
def test_second_order_rule_matches_sympy_and_finite_differences(name: str, data) -> None:
    op, inputs, params, cotangent = draw_case(name, data)
    directions = [_cotangent(x.shape, seed=2 + k) for k, x in enumerate(inputs)]
    hvp = tape_hvp(op, inputs, params, cotangent, directions)
    h = 1e-5
    up = tape_vjp(op, [x + h * d for x, d in zip(inputs, directions)], params, cotangent)
    down = tape_vjp(op, [x - h * d for x, d in zip(inputs, directions)], params, cotangent)
    exact = symbolic_derivatives(op, inputs, params, cotangent, directions)
    for product, u, d, truth in zip(hvp, up, down, exact):
        np.testing.assert_allclose(product.ravel(), truth, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(product, (u - d) / (2 * h), rtol=1e-4, atol=1e-5)


@OPS
@HYPOTHESIS
@given(data=st.data())
def test_forward_matches_the_sympy_counterpart(name: str, data) -> None:
    op = REGISTRY[name]
    inputs, params = CASES[name](data)
    exact = op.symbolic(
        sp, *(np.vectorize(sp.Rational, otypes=[object])(x) for x in inputs), **params
    )
    value = op.forward(*inputs, **params)
    as_float = np.vectorize(lambda e: float(sp.N(e, 30)), otypes=[float])
    np.testing.assert_allclose(
        value, as_float(np.asarray(exact, dtype=object)), rtol=1e-13, atol=1e-15
    )


# --- broadcasting of the elementwise ops ------------------------------------------------------

BINARY = [op for op in REGISTRY.values() if op.elementwise and op.arity == 2]


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.name)
@HYPOTHESIS
@given(data=st.data())
def test_binary_ops_broadcast_and_their_gradients_sum_back(op: Op, data) -> None:
    """x of one shape, y of another (numpy broadcasting): each gradient has its source's
    shape and equals the finite differences of sum(op(x, y) * C)."""
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    intervals = op.sample or [[None]] * 2
    inputs = []
    for shape, options in zip(shapes.input_shapes, intervals):
        interval = options[rng.integers(len(options))]
        lo, hi = (-2.0, 2.0) if interval is None else (interval.lo, interval.hi)
        inputs.append(rng.uniform(lo, hi, size=shape))
    cotangent = _cotangent(shapes.result_shape)
    grads = tape_vjp(op, inputs, {}, cotangent)
    assert [g.shape for g in grads] == [x.shape for x in inputs]
    numeric = central_gradient(lambda xs: _loss_value(op, xs, {}, cotangent), inputs)
    for grad, fd in zip(grads, numeric):
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


# --- awkward values ---------------------------------------------------------------------------


def test_logsumexp_and_softmax_do_not_overflow() -> None:
    x = Variable([1000.0, 1000.0, -1000.0])
    with Tape() as tape:
        y = F.logsumexp(x)
    assert y.value == pytest.approx(1000 + np.log(2), rel=1e-15)
    np.testing.assert_allclose(tape.gradient(y, x).value, [0.5, 0.5, 0.0])
    np.testing.assert_allclose(F.softmax(x).value, [0.5, 0.5, 0.0])
    assert F.logsumexp(constant([-np.inf, -np.inf])).value == -np.inf


def test_ties_of_amax_split_the_gradient_and_are_reported_as_corners() -> None:
    x = Variable([[3.0, 3.0, 1.0], [0.0, 2.0, 1.0]])
    with Tape() as tape:
        y = F.amax(x, axis=1)
    np.testing.assert_allclose(tape.gradient(y, x).value, [[0.5, 0.5, 0.0], [0.0, 1.0, 0.0]])
    (problem,) = tape.problems()
    assert problem.kind == "not differentiable" and "tie" in problem.reason
    assert problem.mask.tolist() == [True, False]


def test_norm_at_zero_is_a_corner_not_a_silent_nan() -> None:
    x = Variable([0.0, 0.0])
    with Tape() as tape:
        y = F.norm(x)
    tape.gradient(y, x)
    kinds = {p.kind for p in tape.problems()}
    assert "not differentiable" in kinds


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda: constant(np.ones((2, 3))) @ constant(np.ones((2, 3))), "inner sizes equal"),
        (lambda: constant(1.0) @ constant(2.0), "matmul cannot take shapes () and ()"),
        (lambda: F.sum(constant(np.ones((2, 3))), axis=2), "axis=2"),
        (lambda: F.softmax(constant(1.0)), "softmax cannot take shape ()"),
        (lambda: constant([1.0, 2.0])[5], "index within"),
        (lambda: constant([1.0, 2.0]) + constant([1.0, 2.0, 3.0]), "broadcast together"),
        (lambda: F.dot(constant([1.0, 2.0]), constant([1.0, 2.0, 3.0])), "vectors of one length"),
    ],
)
def test_shapes_an_op_cannot_take_are_one_clear_error(make, fragment: str) -> None:
    with pytest.raises(ShapeError) as caught:
        make()
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ValueError)


# --- the tape on tensors ----------------------------------------------------------------------


def test_jacobian_of_a_tensor_has_the_output_shape_then_the_input_shape() -> None:
    rng = np.random.default_rng(3)
    w = Variable(rng.normal(size=(3, 2)))
    x = constant(rng.normal(size=(4, 3)))
    with Tape() as tape:
        y = F.softmax(x @ w)
    jac = tape.jacobian(y, w).value
    assert jac.shape == (4, 2, 3, 2)
    for index in np.ndindex(4, 2):

        def element(ws: list[np.ndarray], index=index) -> float:
            return float(REGISTRY["softmax"].forward(x.value @ ws[0])[index])

        numeric = central_gradient(element, [w.value])[0]
        np.testing.assert_allclose(jac[index], numeric, rtol=1e-5, atol=1e-7)


def test_records_keep_shapes_and_gradients_come_back_in_the_sources_shapes() -> None:
    x = constant(np.ones((5, 3)))
    w, b = Variable(np.full((3, 2), 0.5)), Variable(np.zeros(2))
    with Tape() as tape:
        y = x @ w + b
        loss = F.mean(y**2)
    assert [rec.shape for rec in tape.records] == [(5, 2), (5, 2), (5, 2), ()]
    gw, gb = tape.gradient(loss, [w, b])
    assert gw.shape == (3, 2) and gb.shape == (2,)
    # y = 1.5 everywhere: d mean(y^2)/dy = 2*1.5/10 per element
    np.testing.assert_allclose(gb.value, [5 * 0.3, 5 * 0.3])
    np.testing.assert_allclose(gw.value, np.full((3, 2), 5 * 0.3))


def test_scalars_stay_zero_dimensional() -> None:
    x = Variable(2.0)
    with Tape() as tape:
        y = F.sum(x**2) + F.mean(x)
    grad = tape.gradient(y, x)
    assert y.shape == () and grad.shape == () and float(grad) == 5.0


def test_counterparts_work_on_object_arrays_of_symbols() -> None:
    """Small tensors expanded into scalar symbols run through the registry's counterparts."""
    W = np.array([[sp.Symbol(f"W_{i}_{j}") for j in range(2)] for i in range(2)], dtype=object)
    x = np.array([sp.Symbol("x0"), sp.Symbol("x1")], dtype=object)
    y = REGISTRY["matmul"].symbolic(sp, x, W)
    loss = REGISTRY["sum"].symbolic(sp, REGISTRY["tanh"].symbolic(sp, y))
    assert sp.diff(loss, W[0, 1]) == sp.diff(
        sp.tanh(x[0] * W[0, 0] + x[1] * W[1, 0]) + sp.tanh(x[0] * W[0, 1] + x[1] * W[1, 1]),
        W[0, 1],
    )


# --- a model: the MLP of the benchmark, against hand-written backpropagation -----------------


def mlp_loss(x, y_onehot, w1, b1, w2, b2):
    """Mean softmax cross-entropy of a ReLU MLP, written with gradcalc's functions."""
    h = F.relu(x @ w1 + b1)
    z = h @ w2 + b2
    return F.mean(F.logsumexp(z, axis=1) - F.sum(z * y_onehot, axis=1))


def numpy_backprop(x, y_onehot, w1, b1, w2, b2):
    """The textbook backward pass in plain numpy: independent of gradcalc's tape and rules."""
    a = x @ w1 + b1
    h = np.maximum(a, 0.0)
    z = h @ w2 + b2
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    dz = (p - y_onehot) / len(x)
    dh = dz @ w2.T
    da = dh * (a > 0)
    return [x.T @ da, da.sum(axis=0), h.T @ dz, dz.sum(axis=0)]


@pytest.mark.parametrize(("rows", "inputs", "hidden", "classes"), [(7, 5, 4, 3), (30, 16, 8, 10)])
def test_mlp_gradient_matches_handwritten_backprop(rows, inputs, hidden, classes) -> None:
    rng = np.random.default_rng(rows)
    x = rng.normal(size=(rows, inputs))
    y = np.eye(classes)[rng.integers(classes, size=rows)]
    params = [
        rng.normal(size=(inputs, hidden)) / np.sqrt(inputs),
        rng.normal(size=hidden) * 0.1,
        rng.normal(size=(hidden, classes)) / np.sqrt(hidden),
        rng.normal(size=classes) * 0.1,
    ]
    variables = [Variable(p) for p in params]
    with Tape() as tape:
        loss = mlp_loss(constant(x), constant(y), *variables)
    grads = tape.gradient(loss, variables)
    for grad, truth, p in zip(grads, numpy_backprop(x, y, *params), params):
        assert grad.shape == p.shape
        np.testing.assert_allclose(grad.value, truth, rtol=1e-10, atol=1e-13)


def test_a_program_in_text_runs_the_same_ops() -> None:
    """The parser's tensor syntax lowers to the same registry ops as the Python API."""
    from gradcalc.engine.evaluate.evaluate import run_graph
    from gradcalc.lang.graph import lower
    from gradcalc.lang.parser import parse_program

    rng = np.random.default_rng(5)
    values = {"X": rng.normal(size=(4, 3)), "W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    text = "z = X @ W + b; loss = mean(logsumexp(z, axis=1) - z[0, 1]) + norm(transpose(W)[1])"
    graph = lower(parse_program(text))
    leaves = {name: Variable(value) for name, value in values.items()}
    with Tape() as tape:
        loss = run_graph(graph, leaves)[graph.targets[0]]
    grads = tape.gradient(loss, [leaves[n] for n in ("X", "W", "b")])
    X, W, b = (Variable(values[n]) for n in ("X", "W", "b"))
    with Tape() as direct:
        z = X @ W + b
        expected = F.mean(F.logsumexp(z, axis=1) - z[0, 1]) + F.norm(F.transpose(W)[1])
    assert float(loss) == float(expected)
    for got, want in zip(grads, direct.gradient(expected, [X, W, b])):
        np.testing.assert_array_equal(got.value, want.value)


def test_entries_taken_twice_get_both_adjoints_in_gradients_and_jacobians() -> None:
    """By hand: sum(c * a[[0, 0, 2]]) = (c0 + c1)·a0 + c2·a2; the Jacobian of a[[0, 0, 2]]
    has a 1 in column 0 of rows 0 and 1; sum(A[[1, 1, 0], [2, 2, 0]]) = 2·A12 + A00."""
    a = Variable([1.0, 2.0, 3.0])
    with Tape(persistent=True) as tape:
        taken = a[[0, 0, 2]]
        total = F.sum(taken * constant([10.0, 100.0, 1000.0]))
    np.testing.assert_array_equal(tape.gradient(total, a).value, [110.0, 0.0, 1000.0])
    np.testing.assert_array_equal(tape.jacobian(taken, a).value, [[1, 0, 0], [1, 0, 0], [0, 0, 1]])
    matrix = Variable(np.arange(6.0).reshape(2, 3))
    with Tape() as tape:
        total = F.sum(matrix[[1, 1, 0], [2, 2, 0]])
    np.testing.assert_array_equal(tape.gradient(total, matrix).value, [[1, 0, 0], [0, 0, 2]])


def test_len_and_iteration_go_along_the_first_axis_and_are_recorded() -> None:
    v = Variable([1.0, -2.0, 3.0])
    with Tape(persistent=True) as tape:
        total = sum(t * t for t in v)
    assert len(v) == 3
    assert [r.op.name for r in tape.records].count("index") == 3  # each element recorded
    np.testing.assert_array_equal(tape.gradient(total, v).value, 2 * v.value)  # d/dv sum v²
    matrix = Variable(np.arange(6.0).reshape(3, 2))
    with Tape() as tape:
        rows = list(matrix)
        weighted = sum(k * F.sum(row) for k, row in enumerate(rows))
    assert (len(matrix), [r.shape for r in rows]) == (3, [(2,), (2,), (2,)])
    np.testing.assert_array_equal(rows[1].value, [2.0, 3.0])
    # d/dM of sum_k k * sum(M[k]): row k gets k, by hand
    np.testing.assert_array_equal(tape.gradient(weighted, matrix).value, [[0, 0], [1, 1], [2, 2]])
    a, b = constant([5.0, 6.0])  # unpacking, as numpy's
    assert (float(a), float(b)) == (5.0, 6.0)


def test_a_zero_dimensional_tensor_has_no_length_and_is_not_iterable() -> None:
    x = Variable(1.0)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(x)
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(x)
    assert len(constant(np.zeros((0, 4)))) == 0 and list(constant(np.zeros((0, 4)))) == []
