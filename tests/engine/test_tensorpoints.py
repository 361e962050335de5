"""Tensor values of ``--at``: bracket literals, seeded initialisers, the size cap."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradcalc.core.errors import InputError
from gradcalc.engine.tensors.tensorpoints import MAX_ELEMENTS, parse_tensor_at, tensor_value
from gradcalc.lang.literals import has_tensors


def value(text: str, seed: int = 0) -> np.ndarray:
    return tensor_value(text, np.random.default_rng(seed))


def test_bracket_literals_keep_their_shape_and_read_each_element_as_a_constant() -> None:
    assert value("[[1, 2], [3, 4]]").tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert value("[pi/4, -1e-3, atan2(1, 1)]").tolist() == [math.pi / 4, -1e-3, math.pi / 4]
    assert value("[[[1], [2]]]").shape == (1, 2, 1)
    assert value(" [ 5 ] ").shape == (1,)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[[1, 2], [3]]", "ragged"),
        ("[1, [2]]", "ragged"),
        ("[]", "empty"),
        ("[1,,2]", "empty"),
        ("[1, 2", "unbalanced"),
        ("[1, 2]]", "one bracketed list"),
        ("[a, 1]", "variable 'a'"),
        ("[1, 'x']", "not allowed"),
        ("[1/0]", "undefined"),
        ("[" * 100 + "1" + "]" * 100, "nested deeper"),
    ],
)
def test_a_bad_literal_is_one_clear_input_error(text: str, says: str) -> None:
    with pytest.raises(InputError, match=says):
        value(text)


def test_initialisers_are_seeded_and_follow_their_definitions() -> None:
    first = parse_tensor_at(["A=randn(300,200),B=glorot(300,200)"], seed=7).values
    again = parse_tensor_at(["A=randn(300,200),B=glorot(300,200)"], seed=7).values
    other = parse_tensor_at(["A=randn(300,200)"], seed=8).values
    assert np.array_equal(first["A"], again["A"]) and np.array_equal(first["B"], again["B"])
    assert not np.array_equal(first["A"], other["A"])
    # independent truth: the same generator, drawn in the same order
    rng = np.random.default_rng(7)
    assert np.array_equal(first["A"], rng.standard_normal((300, 200)))
    limit = math.sqrt(6 / 500)
    assert np.abs(first["B"]).max() <= limit and np.abs(first["B"]).max() > 0.99 * limit
    assert abs(first["A"].mean()) < 0.02 and abs(first["A"].std() - 1) < 0.02
    assert value("zeros(3)").tolist() == [0.0] * 3
    assert value("ones(2,1)").tolist() == [[1.0], [1.0]]


@pytest.mark.parametrize(
    "text", ["randn(0,2)", "zeros(2.5)", "ones()", "glorot(3)", "glorot(1,2,3)", "randn(-1)"]
)
def test_bad_sizes_are_refused(text: str) -> None:
    with pytest.raises(InputError, match="sizes"):
        value(text)


@pytest.mark.parametrize("text", ["randn(1000000000)", "zeros(100000,100000)", "ones(4000,2501)"])
def test_a_value_beyond_the_cap_is_an_input_error_before_any_allocation(text: str) -> None:
    with pytest.raises(InputError, match=f"limit is {MAX_ELEMENTS:,}"):
        value(text)


def test_the_cap_is_exact() -> None:
    assert value(f"zeros({MAX_ELEMENTS})").size == MAX_ELEMENTS


def test_a_point_names_each_value_and_says_how_it_was_given() -> None:
    point = parse_tensor_at(["W=[[1,2],[3,4]], b = zeros(2), c=pi"])
    assert point.names == ("W", "b", "c")
    assert point.given == {"W": "[[1,2],[3,4]]", "b": "zeros(2)", "c": "pi"}
    assert point.values["c"].shape == ()


@pytest.mark.parametrize(
    ("specs", "says"),
    [
        (["W=[1],W=[2]"], "given twice"),
        (["W=[1]", "W=[2]"], "one point"),
        (["1W=[1]"], "not a valid variable name"),
        (["W"], "name=value"),
        (["W=@w.npy"], "only on the command line under the operator's gradcalc --file"),
        (["W=@"], "@ names a file"),
        (["W=[1,2],b=[[1],[2,3]]"], "--at b: ragged"),
    ],
)
def test_bad_points_are_refused(specs: list[str], says: str) -> None:
    with pytest.raises(InputError, match=says):
        parse_tensor_at(specs)


def test_files_go_through_the_loader_and_are_capped_too() -> None:
    point = parse_tensor_at(["W=@w.npy"], load=lambda path: np.full((2, 2), len(path)))
    assert point.values["W"].tolist() == [[5.0, 5.0], [5.0, 5.0]]
    with pytest.raises(InputError, match="limit"):
        parse_tensor_at(["W=@w.npy"], load=lambda path: np.broadcast_to(0.0, (MAX_ELEMENTS + 1,)))


def test_tensor_specs_are_told_from_scalar_ones() -> None:
    assert has_tensors(["x=1,W=[[1,2],[3,4]]"]) and has_tensors(["W=randn(2)"])
    assert has_tensors(["W=@w.csv"])
    assert not has_tensors(["x=1,y=atan2(1, 2)"]) and not has_tensors(["x=sin(1)"])
