"""TensorFlow's guides "Introduction to gradients and automatic differentiation" (autodiff)
and "Advanced automatic differentiation" (advanced_autodiff), snippet by snippet, translated
one-to-one: ``tf.GradientTape`` -> ``Tape``, ``tf.Variable`` -> ``Variable``, ``tf.constant``
-> ``constant``, ``tf.reduce_*`` -> ``reduce_*``, ``tf.nn.*`` / ``tf.math.*`` -> ``F.*``.
Keras layers become ``x @ w + b`` with seeded random weights (``Dense``); plotting is left
out. Each result is compared with the value the guide states (in its comments) or with an
independent numpy computation. A deliberate difference is marked as such.
"""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc import (
    F,
    Tape,
    UnconnectedGradients,
    Variable,
    clip_by_norm,
    constant,
    custom_gradient,
    reduce_max,
    reduce_mean,
    reduce_sum,
    stop_gradient,
)

RNG = np.random.default_rng(2020)


class Dense:
    """``tf.keras.layers.Dense(units, activation)``: ``activation(x @ kernel + bias)``."""

    def __init__(self, ins: int, units: int, activation=None):
        self.kernel = Variable(RNG.normal(size=(ins, units)) / np.sqrt(ins), name="kernel")
        self.bias = Variable(np.zeros(units), name="bias")
        self.activation = activation

    def __call__(self, x):
        y = x @ self.kernel + self.bias
        return y if self.activation is None else self.activation(y)

    @property
    def trainable_variables(self):
        return [self.kernel, self.bias]


# --- autodiff: Gradient tapes -----------------------------------------------------------------


def test_gradient_tapes_scalar() -> None:
    x = Variable(3.0)
    with Tape() as tape:
        y = x**2
    dy_dx = tape.gradient(y, x)
    assert dy_dx.numpy() == 6.0  # dy = 2x * dx


def test_gradient_tapes_any_tensor_and_dict_sources() -> None:
    from gradcalc import float32, zeros  # (the guide's tf.zeros and tf.float32)

    w = Variable(RNG.normal(size=(3, 2)), name="w")
    b = Variable(zeros(2, dtype=float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with Tape(persistent=True) as tape:
        y = x @ w + b
        loss = reduce_mean(y**2)
    [dl_dw, dl_db] = tape.gradient(loss, [w, b])
    assert w.shape == dl_dw.shape == (3, 2)
    y_np = np.array(x) @ w.numpy() + b.numpy()  # loss = mean(y²): dloss/dy = y (2 elements)
    np.testing.assert_allclose(dl_dw.numpy(), np.array(x).T @ y_np)
    np.testing.assert_allclose(dl_db.numpy(), y_np[0])
    grad = tape.gradient(loss, {"w": w, "b": b})
    np.testing.assert_allclose(grad["b"].numpy(), y_np[0])


def test_gradients_with_respect_to_a_model() -> None:
    layer = Dense(3, 2, activation=F.relu)
    x = constant([[1.0, 2.0, 3.0]])
    with Tape() as tape:
        y = layer(x)
        loss = reduce_mean(y**2)
    grad = tape.gradient(loss, layer.trainable_variables)
    shapes = [(var.name, g.shape) for var, g in zip(layer.trainable_variables, grad)]
    assert shapes == [("kernel", (3, 2)), ("bias", (2,))]


# --- autodiff: Controlling what the tape watches ----------------------------------------------


def test_what_the_tape_watches() -> None:
    x0 = Variable(3.0, name="x0")  # a trainable variable
    x1 = Variable(3.0, name="x1", trainable=False)  # not trainable
    x2 = Variable(2.0, name="x2") + 1.0  # not a Variable: a variable + tensor is a tensor
    x3 = constant(3.0, name="x3")  # not a variable
    with Tape() as tape:
        y = (x0**2) + (x1**2) + (x2**2)
    grad = tape.gradient(y, [x0, x1, x2, x3])
    assert float(grad[0]) == 6.0 and grad[1:] == [None, None, None]
    assert [var.name for var in tape.watched_variables()] == ["x0"]  # TF: ['x0:0']


def test_watch_a_tensor() -> None:
    x = constant(3.0)
    with Tape() as tape:
        tape.watch(x)
        y = x**2
    assert tape.gradient(y, x).numpy() == 6.0  # dy = 2x * dx


def test_watch_accessed_variables_false() -> None:
    x0, x1 = Variable(0.0), Variable(10.0)
    with Tape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = F.sin(x0)
        y1 = F.softplus(x1)
        y = y0 + y1
        ys = reduce_sum(y)
    grad = tape.gradient(ys, {"x0": x0, "x1": x1})
    assert grad["x0"] is None
    assert grad["x1"].numpy() == pytest.approx(1 / (1 + np.exp(-10.0)), rel=1e-15)  # sigmoid


# --- autodiff: Intermediate results -----------------------------------------------------------


def test_intermediate_results() -> None:
    x = constant(3.0)
    with Tape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, y).numpy() == 18.0  # dz_dy = 2 * y and y = x ** 2 = 9


def test_persistent_tape() -> None:
    x = constant([1, 3.0])
    with Tape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, x).numpy().tolist() == [4.0, 108.0]  # 4 * x**3
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 6.0]  # 2 * x
    del tape


# --- autodiff: Gradients of non-scalar targets ------------------------------------------------


def test_several_targets_are_summed() -> None:
    x = Variable(2.0)
    with Tape(persistent=True) as tape:
        y0 = x**2
        y1 = 1 / x
    assert (tape.gradient(y0, x).numpy(), tape.gradient(y1, x).numpy()) == (4.0, -0.25)
    x = Variable(2.0)
    with Tape() as tape:
        y0 = x**2
        y1 = 1 / x
    assert tape.gradient({"y0": y0, "y1": y1}, x).numpy() == 3.75


def test_a_non_scalar_target_is_summed() -> None:
    x = Variable(2.0)
    with Tape() as tape:
        y = x * [3.0, 4.0]
    assert tape.gradient(y, x).numpy() == 7.0


def test_elementwise_gradient_of_the_sum() -> None:
    x = constant(np.linspace(-10.0, 10.0, 200 + 1))
    with Tape() as tape:
        tape.watch(x)
        y = F.sigmoid(x)
    dy_dx = tape.gradient(y, x)
    s = 1 / (1 + np.exp(-x.numpy()))  # σ'(x) = σ(x)·σ(-x) (1 - σ(x) would cancel)
    np.testing.assert_allclose(dy_dx.numpy(), s / (1 + np.exp(x.numpy())), rtol=1e-12, atol=1e-18)


# --- autodiff: Control flow -------------------------------------------------------------------


def test_control_flow() -> None:
    x = constant(1.0)
    v0, v1 = Variable(2.0), Variable(2.0)
    with Tape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:  # noqa: SIM108 (the guide's if statement)
            result = v0
        else:
            result = v1**2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    assert (dv0.numpy(), dv1) == (1.0, None)
    assert tape.gradient(result, x) is None


# --- autodiff: Cases where gradient returns None ----------------------------------------------


def test_unconnected_target() -> None:
    x, y = Variable(2.0), Variable(3.0)
    with Tape() as tape:
        z = y * y
    assert tape.gradient(z, x) is None


def test_replaced_a_variable_with_a_tensor() -> None:
    x = Variable(2.0)
    seen = []
    for _epoch in range(2):
        with Tape() as tape:
            y = x + 1
        g = tape.gradient(y, x)
        seen.append((type(x).__name__, None if g is None else float(g)))
        x = x + 1  # This should be `x.assign_add(1)`
    assert seen == [("Variable", 1.0), ("Tensor", None)]


def test_did_calculations_outside_of_gradcalc() -> None:
    x = Variable([[1.0, 2.0], [3.0, 4.0]])
    with Tape() as tape:
        x2 = x**2
        y = np.mean(x2, axis=0)  # this step is calculated with numpy
        y = reduce_mean(y, axis=0)  # the numpy array becomes a constant
    assert tape.gradient(y, x) is None


def test_integers_are_numbers_here() -> None:
    """On purpose: TensorFlow gives None for an integer tensor; gradcalc's are float64."""
    x = constant(10)
    with Tape() as g:
        g.watch(x)
        y = x * x
    assert g.gradient(y, x).numpy() == 20.0


def test_a_string_source_is_an_error() -> None:
    """On purpose: a string names no tensor, so it is an error rather than None."""
    x = Variable(1.0)
    with Tape() as tape:
        y = x * x
    with pytest.raises(TypeError, match="must be a tensor, got str"):
        tape.gradient(y, "x")


def test_took_gradients_through_a_stateful_object() -> None:
    x0, x1 = Variable(3.0), Variable(0.0)
    with Tape() as tape:
        x1.assign_add(x0)  # update x1 = x1 + x0
        y = x1**2  # the tape starts recording from x1
    assert tape.gradient(y, x0) is None  # this doesn't work: dy/dx0 = 2*(x1 + x0)


def test_zeros_instead_of_none() -> None:
    x, y = Variable([2.0, 2.0]), Variable(3.0)
    with Tape() as tape:
        z = y**2
    zeros = tape.gradient(z, x, unconnected_gradients=UnconnectedGradients.ZERO)
    assert zeros.numpy().tolist() == [0.0, 0.0]


# --- advanced_autodiff: Controlling gradient recording ----------------------------------------


def test_stop_recording() -> None:
    x, y = Variable(2.0), Variable(3.0)
    with Tape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    assert (grad["x"].numpy(), grad["y"]) == (4.0, None)  # 2*x => 4


def test_reset() -> None:
    x, y = Variable(2.0), Variable(3.0)
    reset = True
    with Tape() as t:
        y_sq = y * y
        if reset:
            t.reset()  # throw out all the tape recorded so far
        z = x * x + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    assert (grad["x"].numpy(), grad["y"]) == (4.0, None)  # 2*x => 4


def test_stop_gradient() -> None:
    x, y = Variable(2.0), Variable(3.0)
    with Tape() as t:
        y_sq = y**2
        z = x**2 + stop_gradient(y_sq)
    grad = t.gradient(z, {"x": x, "y": y})
    assert (grad["x"].numpy(), grad["y"]) == (4.0, None)


# --- advanced_autodiff: Custom gradients ------------------------------------------------------


def test_custom_gradient_clips_the_intermediate_gradient() -> None:
    @custom_gradient
    def clip_gradients(y):  # an identity operation, clipped during the gradient pass
        def backward(dy):
            return clip_by_norm(dy, 0.5)

        return y, backward

    v = Variable(2.0)
    with Tape() as t:
        output = clip_gradients(v * v)
    assert t.gradient(output, v).numpy() == 2.0  # calls "backward", which clips 4 to 2


# --- advanced_autodiff: Multiple tapes and higher-order gradients -----------------------------


def test_multiple_tapes() -> None:
    x0, x1 = constant(0.0), constant(0.0)
    with Tape() as tape0, Tape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)
        y0 = F.sin(x0)
        y1 = F.sigmoid(x1)
        y = y0 + y1
        ys = reduce_sum(y)
    assert tape0.gradient(ys, x0).numpy() == 1.0  # cos(x) => 1.0
    assert tape1.gradient(ys, x1).numpy() == 0.25  # sigmoid(x1)*(1-sigmoid(x1)) => 0.25


def test_higher_order_gradients() -> None:
    x = Variable(1.0)
    with Tape() as t2:
        with Tape() as t1:
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    assert (dy_dx.numpy(), d2y_dx2.numpy()) == (3.0, 6.0)  # 3 * x**2, 6 * x


def test_input_gradient_regularization() -> None:
    x = constant(RNG.normal(size=(7, 5)))
    layer = Dense(5, 10, activation=F.relu)
    with Tape() as t2:
        with Tape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            out = reduce_sum(layer(x) ** 2)
        g1 = t1.gradient(out, x)  # 1. the input gradient
        g1_mag = F.norm(g1)  # 2. its magnitude
    dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)  # 3. its gradient
    assert [var.shape for var in dg1_mag] == [(5, 10), (10,)]
    # numpy by hand: out = Σ relu(xW+b)², g1 = 2·(relu(xW+b)·step(xW+b)) Wᵀ
    w, b = layer.kernel.numpy(), layer.bias.numpy()

    def magnitude(w_: np.ndarray) -> float:
        h = x.numpy() @ w_ + b
        return float(np.linalg.norm((2 * np.maximum(h, 0) * (h > 0)) @ w_.T))

    k = (0, 0)
    step = np.zeros_like(w)
    step[k] = 1e-6
    numeric = (magnitude(w + step) - magnitude(w - step)) / 2e-6
    assert dg1_mag[0].numpy()[k] == pytest.approx(numeric, rel=1e-5)


# --- advanced_autodiff: Jacobians -------------------------------------------------------------


def test_jacobian_scalar_source() -> None:
    x = constant(np.linspace(-10.0, 10.0, 200 + 1))
    delta = Variable(0.0)
    with Tape() as tape:
        y = F.sigmoid(x + delta)
    dy_dx = tape.jacobian(y, delta)
    assert y.shape == dy_dx.shape == (201,)
    s = 1 / (1 + np.exp(-x.numpy()))  # σ'(x) = σ(x)·σ(-x) (1 - σ(x) would cancel)
    np.testing.assert_allclose(dy_dx.numpy(), s / (1 + np.exp(x.numpy())), rtol=1e-12, atol=1e-18)


def test_jacobian_tensor_source() -> None:
    x = constant(RNG.normal(size=(7, 5)))
    layer = Dense(5, 10, activation=F.relu)
    with Tape(persistent=True) as tape:
        y = layer(x)
    assert y.shape == (7, 10) and layer.kernel.shape == (5, 10)
    j = tape.jacobian(y, layer.kernel)
    assert j.shape == (7, 10, 5, 10)
    g = tape.gradient(y, layer.kernel)
    j_sum = reduce_sum(j, axis=[0, 1])
    delta = reduce_max(abs(g - j_sum)).numpy()
    assert delta < 1e-12  # the guide asks < 1e-3 in float32


def test_hessian_and_a_newton_step() -> None:
    x = constant(RNG.normal(size=(7, 5)))
    layer1, layer2 = Dense(5, 8, activation=F.relu), Dense(8, 6, activation=F.relu)
    with Tape() as t2:
        with Tape() as t1:
            h = layer2(layer1(x))
            loss = reduce_mean(h**2)
        g = t1.gradient(loss, layer1.kernel)
    hess = t2.jacobian(g, layer1.kernel)
    assert layer1.kernel.shape == (5, 8) and hess.shape == (5, 8, 5, 8)
    n_params = int(np.prod(layer1.kernel.shape))
    g_vec, h_mat = g.numpy().reshape(n_params, 1), hess.numpy().reshape(n_params, n_params)
    np.testing.assert_allclose(h_mat, h_mat.T, atol=1e-12)  # symmetric
    update = np.linalg.solve(h_mat + np.eye(n_params) * 1e-3, g_vec)
    before = layer1.kernel.numpy().copy()
    layer1.kernel.assign_sub(update.reshape(layer1.kernel.shape))
    np.testing.assert_allclose(layer1.kernel.numpy(), before - update.reshape(5, 8))


def test_batch_jacobian() -> None:
    x = constant(RNG.normal(size=(7, 5)))
    layer1, layer2 = Dense(5, 8, activation=F.elu), Dense(8, 6, activation=F.elu)
    with Tape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer2(layer1(x))
    assert y.shape == (7, 6)
    j = tape.jacobian(y, x)
    assert j.shape == (7, 6, 7, 5)
    off_diagonal = j.numpy()[:, 0, :, 0] * (1 - np.eye(7))
    assert not off_diagonal.any()  # every (batch, batch) slice is diagonal
    j_sum = reduce_sum(j, axis=2)
    j_select = np.einsum("bxby->bxy", j.numpy())
    assert j_sum.shape == j_select.shape == (7, 6, 5)
    jb = tape.batch_jacobian(y, x)
    assert jb.shape == (7, 6, 5)
    assert reduce_max(abs(jb - j_sum)).numpy() < 1e-12


def test_jacobians_take_tensorflows_pfor_options_and_give_the_same_numbers() -> None:
    # experimental_use_pfor and parallel_iterations choose how TensorFlow computes the
    # Jacobian, not what it is: the numbers are those of y = x² (diagonal 2x) either way
    x = Variable([[1.0, 2.0], [3.0, 4.0]])
    with Tape(persistent=True) as tape:
        y = x**2
    j = tape.jacobian(y, x, experimental_use_pfor=False, parallel_iterations=2).numpy()
    eye = np.eye(2)
    np.testing.assert_array_equal(j, np.einsum("ij,ik,jl->ijkl", 2 * x.numpy(), eye, eye))
    jb = tape.batch_jacobian(y, x, experimental_use_pfor=False).numpy()
    np.testing.assert_array_equal(jb, [np.diag([2.0, 4.0]), np.diag([6.0, 8.0])])


def test_a_float_dtype_is_taken_and_computed_in_float64() -> None:
    from gradcalc import float16, float32, ones, zeros

    x = Variable(0.1, dtype=float32)  # float64 all the same: 0.1 is not rounded to float32
    assert x.numpy().dtype == np.float64 and float(x) == 0.1
    with Tape() as tape:
        y = x * constant(3.0, dtype=np.float16) + reduce_sum(ones((2, 2), dtype="float64"))
    assert float(tape.gradient(y, x)) == 3.0 and float(y) == 0.1 * 3.0 + 4.0
    assert zeros(3, dtype=float16).numpy().tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("dtype", [np.int32, "int64", np.complex128, bool, "bfloat16", "str"])
def test_a_dtype_other_than_a_float_is_refused_in_one_line(dtype) -> None:
    from gradcalc import zeros

    for make in (lambda: Variable(1.0, dtype=dtype), lambda: constant(1.0, dtype=dtype),
                 lambda: zeros(2, dtype=dtype)):  # fmt: skip
        one_line = r"^dtype=\S+ is not taken: gradcalc computes in float64 [^\n]*$"
        with pytest.raises(TypeError, match=one_line):
            make()


def test_batch_jacobian_does_not_check_independence() -> None:
    x = constant(RNG.normal(size=(7, 5)))
    layer1, layer2 = Dense(5, 8, activation=F.elu), Dense(8, 6, activation=F.elu)

    def batch_norm(h):  # normalises across the batch: the rows are no longer independent
        mean = reduce_mean(h, axis=0, keepdims=True)
        return (h - mean) / F.sqrt(reduce_mean((h - mean) ** 2, axis=0, keepdims=True) + 1e-3)

    with Tape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer2(batch_norm(layer1(x)))
    j = tape.jacobian(y, x)
    assert j.shape == (7, 6, 7, 5)
    assert (j.numpy()[:, 0, :, 0] * (1 - np.eye(7))).any()  # these slices are not diagonal
    assert tape.batch_jacobian(y, x).shape == (7, 6, 5)  # still runs
