"""Nested targets and sources: flattened in order and rebuilt, whatever the nesting."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from gradcalc import F, ShapeError, Tape, Variable
from gradcalc.core.nesting import (
    UnconnectedGradients,
    batch_seeds,
    flatten,
    jacobian_seeds,
    rebuild,
    seeds,
    tensors_of,
    unconnected_mode,
)
from gradcalc.core.tensor import Tensor

_structures = st.recursive(
    st.integers(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


def _leaves_by_hand(item: object) -> list[object]:
    """An independent walk: the leaves in order, by explicit recursion over each kind."""
    if isinstance(item, dict):
        return [leaf for value in item.values() for leaf in _leaves_by_hand(value)]
    if isinstance(item, (list, tuple)):
        return [leaf for value in item for leaf in _leaves_by_hand(value)]
    return [item]


@given(_structures)
def test_flatten_gives_the_leaves_in_order_and_rebuild_restores_the_structure(tree) -> None:
    assert flatten(tree) == _leaves_by_hand(tree)
    assert rebuild(tree, flatten(tree)) == tree
    doubled = rebuild(tree, [2 * leaf for leaf in flatten(tree)])
    assert flatten(doubled) == [2 * leaf for leaf in _leaves_by_hand(tree)]


def test_unconnected_takes_the_enum_or_its_strings_and_refuses_others() -> None:
    assert unconnected_mode(UnconnectedGradients.ZERO, None) == "zero"
    assert unconnected_mode("none", "zero") == "zero"  # the other name wins when given
    with pytest.raises(ValueError, match="'none' or 'zero'"):
        unconnected_mode("zeros", None)


def test_a_string_target_or_source_is_a_clear_type_error() -> None:
    with pytest.raises(TypeError, match=r"source must be a tensor, got str 'x'"):
        tensors_of([Tensor(1.0), "x"], "source")


def test_seeds_are_ones_or_the_output_gradients_given_per_target() -> None:
    a, b = Tensor([1.0, 2.0]), Tensor(3.0)
    assert [s.value.tolist() for s in seeds([a, b], [a, b], None)] == [[1.0, 1.0], 1.0]
    given_ = seeds({"a": a, "b": b}, [a, b], {"a": [2.0, 3.0], "b": None})
    assert [s.value.tolist() for s in given_] == [[2.0, 3.0], 1.0]
    assert seeds(a, [a], [5.0, 6.0])[0].value.tolist() == [5.0, 6.0]  # one target: one value
    with pytest.raises(ValueError, match="the targets' structure"):
        seeds([a, b], [a, b], [1.0])


@pytest.mark.parametrize(
    ("target", "seed", "shapes"),
    [
        ([1.0, 2.0], np.ones((2, 2)), r"\(2, 2\) for a target of shape \(2,\)"),  # was doubled
        (1.0, np.ones(3), r"\(3,\) for a target of shape \(\)"),  # was tripled
        ([1.0, 2.0], np.ones(3), r"\(3,\) for a target of shape \(2,\)"),  # was numpy's error
        ([1.0, 2.0], 2.0, r"\(\) for a target of shape \(2,\)"),
    ],
)
def test_output_gradients_of_another_shape_than_the_target_are_a_shape_error(
    target, seed, shapes
) -> None:
    x = Variable(target)
    with Tape() as tape:
        y = x * x
    with pytest.raises(ShapeError, match=rf"output_gradients has shape {shapes}"):
        tape.gradient(y, x, output_gradients=seed)


def test_output_gradients_in_the_targets_shape_scale_each_element() -> None:
    x, w = Variable([1.0, 2.0]), Variable(3.0)
    with Tape(persistent=True) as tape:
        y, z = x * x, w * w
    # d/dx of 2·x0² + 3·x1², by hand; a plain number for a 0-d target
    assert tape.gradient(y, x, output_gradients=[2.0, 3.0]).value.tolist() == [4.0, 12.0]
    assert float(tape.gradient(z, w, output_gradients=0.5)) == 3.0
    with pytest.raises(ShapeError, match=r"shape \(1,\) for a target of shape \(\)"):
        tape.gradient([y, z], [x, w], output_gradients=[None, [1.0]])


def test_batch_seeds_pick_one_element_of_every_row() -> None:
    found = np.stack(list(batch_seeds((3, 2, 2))))
    assert found.shape == (4, 3, 2, 2)
    assert np.array_equal(found.sum(axis=0), np.ones((3, 2, 2)))  # each element once
    assert all(np.array_equal(s[0], s[2]) for s in found)  # the same element in every row


def test_jacobian_seeds_pick_each_element_once_and_an_empty_target_gets_one() -> None:
    found = np.stack(list(jacobian_seeds((2, 3))))
    assert np.array_equal(found.reshape(6, 6), np.eye(6))
    assert [seed.shape for seed in jacobian_seeds((0, 3))] == [(0, 3)]


def test_a_jacobian_taken_while_an_outer_tape_records_is_recorded_by_it() -> None:
    x = Variable([1.0, 2.0])
    with Tape() as outer:
        with Tape() as inner:
            y = x**3
        j = inner.jacobian(y, x)
        s = F.sum(j)
    assert j.value.tolist() == [[3.0, 0.0], [0.0, 12.0]]  # diag(3x²), by hand
    assert outer.gradient(s, x).value.tolist() == [6.0, 12.0]  # d/dx sum(3x²) = 6x


def test_the_jacobian_of_a_jacobian_and_of_a_gradient_are_sympys_second_derivatives() -> None:
    a, b = sp.symbols("a b")
    point = {a: 0.7, b: -1.3}
    f = [a**2 * b, sp.sin(a) + b**3]
    exact = np.array(
        [[[float(sp.diff(fi, u, v).subs(point)) for v in (a, b)] for u in (a, b)] for fi in f]
    )
    x = Variable([0.7, -1.3])
    first, second = Tensor([1.0, 0.0]), Tensor([0.0, 1.0])  # (a vector from two numbers)
    with Tape() as t2:
        with Tape() as t1:
            y = first * (x[0] ** 2 * x[1]) + second * (F.sin(x[0]) + x[1] ** 3)
        j = t1.jacobian(y, x)
    np.testing.assert_allclose(t2.jacobian(j, x).value, exact, rtol=1e-14, atol=1e-14)
    # TensorFlow's Hessian pattern: t2.jacobian(t1.gradient(...)), for the first component
    with Tape() as t2:
        with Tape() as t1:
            scalar = x[0] ** 2 * x[1]
        g = t1.gradient(scalar, x)
    np.testing.assert_allclose(t2.jacobian(g, x).value, exact[0], rtol=1e-14)
    # two Jacobians inside a third tape: the Hessian itself is recorded
    with Tape() as t3:
        with Tape() as t2:
            with Tape() as t1:
                y = x**3
            j = t1.jacobian(y, x)
        h = t2.jacobian(j, x)
        total = F.sum(h)
    assert t3.gradient(total, x).value.tolist() == [6.0, 6.0]  # sum of 6x: d/dx = 6


def test_a_batch_jacobian_inside_an_outer_tape_is_differentiated_row_by_row() -> None:
    # each row (x0, x1) -> (x0², x0·x1): J = [[2x0, 0], [x1, x0]], by hand, and its derivative
    # H[o, i, j] = dJ[o, i]/dx_j: J00 -> (2, 0), J01 -> (0, 0), J10 -> (0, 1), J11 -> (1, 0)
    x = Variable([[1.0, 2.0], [3.0, -4.0], [0.5, 0.25]])
    with Tape() as outer:
        with Tape() as inner:
            y = x[:, :1] * x
        j = inner.batch_jacobian(y, x)
    x0, x1 = x.value[:, 0], x.value[:, 1]
    zero = np.zeros_like(x0)
    expected_j = np.stack([np.stack([2 * x0, zero], -1), np.stack([x1, x0], -1)], 1)
    np.testing.assert_array_equal(j.value, expected_j)
    h = np.array([[[2.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]]])
    np.testing.assert_array_equal(
        outer.batch_jacobian(j, x).value, np.broadcast_to(h, (3, *h.shape))
    )


def test_the_jacobian_of_an_empty_target_is_empty() -> None:
    x, w, other = Variable(np.zeros((0, 3))), Variable(2.0), Variable([1.0, 2.0])
    with Tape(persistent=True) as tape:
        y = x * w
    assert tape.jacobian(y, x).value.shape == (0, 3, 0, 3)
    assert tape.jacobian(y, w).value.shape == (0, 3)
    assert tape.jacobian(y, other) is None  # unconnected, as for any target
    assert tape.jacobian(y, other, unconnected="zero").value.shape == (0, 3, 2)
    rows = Variable(np.ones((2, 3)))
    with Tape() as tape:
        y = (rows * 2)[:, :0]  # rows without elements
    assert tape.batch_jacobian(y, rows).value.shape == (2, 0, 3)
