"""Nested targets and sources: flattened in order and rebuilt, whatever the nesting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradcalc.core.nesting import (
    UnconnectedGradients,
    batch_seeds,
    flatten,
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


def test_batch_seeds_pick_one_element_of_every_row() -> None:
    found = np.stack(list(batch_seeds((3, 2, 2))))
    assert found.shape == (4, 3, 2, 2)
    assert np.array_equal(found.sum(axis=0), np.ones((3, 2, 2)))  # each element once
    assert all(np.array_equal(s[0], s[2]) for s in found)  # the same element in every row
