"""TensorFlow's reductions and clip_by_norm against numpy, their gradients against finite
differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcalc import (
    Tape,
    Variable,
    clip_by_norm,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_sum,
)

REDUCTIONS = [
    (reduce_sum, np.sum),
    (reduce_mean, np.mean),
    (reduce_max, np.max),
    (reduce_min, np.min),
    (
        reduce_logsumexp,
        lambda x, axis, keepdims: np.log(np.sum(np.exp(x), axis, keepdims=keepdims)),
    ),
]

_arrays = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
    elements=st.floats(-50, 50),
)


def _numeric_gradient(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of the sum of f's elements, one element of x at a time."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (np.sum(f(up)) - np.sum(f(down))) / (2 * h)
    return grad


@settings(max_examples=40, deadline=None)
@given(_arrays, st.data())
@pytest.mark.parametrize(("ours", "truth"), REDUCTIONS)
def test_reductions_match_numpy_for_every_axis_and_keepdims(ours, truth, x, data) -> None:
    axes = data.draw(st.sampled_from([None, 0, -1, list(range(x.ndim))]))
    keepdims = data.draw(st.booleans())
    expected = truth(
        x, axis=None if axes is None else tuple(np.atleast_1d(axes)), keepdims=keepdims
    )
    got = ours(x, axis=axes, keepdims=keepdims).numpy()
    assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("ours", "truth"), REDUCTIONS)
def test_reduction_gradients_match_finite_differences(ours, truth) -> None:
    x0 = np.random.default_rng(7).normal(size=(3, 4))  # no ties: max and min are smooth here
    x = Variable(x0)
    with Tape() as tape:
        y = ours(x, axis=1, keepdims=True)
    numeric = _numeric_gradient(lambda a: truth(a, axis=1, keepdims=True), x0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), numeric, rtol=1e-6, atol=1e-8)


@settings(max_examples=60, deadline=None)
@given(_arrays, st.floats(0.1, 20))
def test_clip_by_norm_matches_tensorflows_formula(t, clip) -> None:
    norm = np.sqrt(np.sum(t * t))
    expected = t * clip / max(norm, clip)  # tf.clip_by_norm's documented formula
    np.testing.assert_allclose(clip_by_norm(t, clip).numpy(), expected, rtol=1e-12, atol=1e-300)


def test_clip_by_norm_along_axes_clips_each_row_alone() -> None:
    t = np.array([[3.0, 4.0], [0.3, 0.4]])
    got = clip_by_norm(t, 1.0, axes=[1]).numpy()
    np.testing.assert_allclose(got, [[0.6, 0.8], [0.3, 0.4]])


def test_clip_by_norm_gradient_matches_finite_differences() -> None:
    t0 = np.array([3.0, -4.0, 1.0])
    t = Variable(t0)
    with Tape() as tape:
        y = clip_by_norm(t, 2.0) * np.array([1.0, 2.0, 3.0])
    weights = np.array([1.0, 2.0, 3.0])
    numeric = _numeric_gradient(lambda a: a * 2.0 / max(np.linalg.norm(a), 2.0) * weights, t0)
    np.testing.assert_allclose(tape.gradient(y, t).numpy(), numeric, rtol=1e-6)
