"""engine.evaluate: the tape's rows carry structure (which record, variable or constant each
input is); the names shown are derived from it."""

from __future__ import annotations

from gradcalc.engine.api import compile_expression
from gradcalc.engine.evaluate import evaluate


def rows_of(expression: str, **point: float):
    graph = compile_expression(expression, list(point))
    return evaluate(graph, point).rows[0]


def test_each_input_says_what_it_is() -> None:
    rows = rows_of("y = x^2; y*2 + x", x=3.0)
    square, double, total = rows
    assert [(i.kind, i.name) for i in square.inputs] == [("variable", "x"), ("constant", "2")]
    assert square.label == "y" and square.formula == "x ** 2"
    # y is record 1, shown by its statement name
    assert [(i.kind, i.record, i.name) for i in double.inputs] == [
        ("record", 1, "y"),
        ("constant", None, "2"),
    ]
    assert [(i.kind, i.record) for i in total.inputs] == [("record", 2), ("variable", None)]
    assert total.formula == "#2 + x" and total.label is None


def test_a_folded_constant_subexpression_is_a_constant_input() -> None:
    (row,) = rows_of("x * (2*pi)", x=1.0)
    operand = row.inputs[1]
    assert operand.is_constant and operand.record is None
    assert float(operand.name) == float(f"{2 * 3.141592653589793:.6g}")


def test_a_reassigned_name_refers_to_its_latest_record() -> None:
    first, second, third = rows_of("c = x + 1; c = c * x; c^2", x=2.0)
    assert second.inputs[0].record == first.index
    assert third.inputs[0].record == second.index
    assert (first.label, second.label) == ("c", "c")


def test_a_tensor_op_is_refused_on_a_batch_of_points_not_mixed_across_them() -> None:
    """In the engine an array is many points; ``sum`` would add the points together."""
    import numpy as np
    import pytest

    from gradcalc.core.errors import InputError

    graph = compile_expression("sum(x^2)")
    assert not graph.elementwise and compile_expression("x^2").elementwise
    assert float(evaluate(graph, {"x": 3.0}).values[0]) == 9.0
    with pytest.raises(InputError, match="sum combines the elements of a tensor"):
        evaluate(graph, {"x": np.array([1.0, 2.0])})
