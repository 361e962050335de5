"""engine.evaluate.evaluate: the tape's rows carry structure (which record, variable or constant
each
input is); the names shown are derived from it."""

from __future__ import annotations

import pytest

from gradcalc.engine.evaluate.evaluate import evaluate
from gradcalc.engine.run.api import compile_expression


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


@pytest.mark.parametrize(
    "text", ["ln(x)", "x^2", "x^-1", "x·y", "x/y", "x - y", "x + y", "-x", "asin(x)", "atan2(x, y)"]
)
def test_a_rows_reading_is_the_read_as_lines_writing_of_its_operation(text: str) -> None:
    """A one-operation expression's record is written as the read-as line writes the
    expression (``ln``, ``^``, ``·``); ``formula`` keeps the canonical text JSON gives."""
    graph = compile_expression(text, ["x", "y"])
    (row,) = evaluate(graph, {"x": 0.5, "y": 2.0}).rows[0]
    assert row.reading == graph.read_as == text
    assert "ln" not in row.formula and "^" not in row.formula and "·" not in row.formula


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
    with pytest.raises(InputError, match="sum combines the elements of a tensor") as refused:
        evaluate(graph, {"x": np.array([1.0, 2.0])})
    # the way to a tensor value, from the command line and from Python
    assert "gradcalc grad --at" in str(refused.value) and "on a Tape" in str(refused.value)


def _plain(rows):
    """Rows as plain values (numpy arrays compared as floats)."""
    return [
        (
            r.index,
            r.node,
            r.op,
            r.formula,
            r.inputs,
            r.label,
            r.value.tolist(),
            None if r.adjoint is None else r.adjoint.tolist(),
            [v.tolist() for v in r.input_values],
        )
        for r in rows
    ]


def test_rows_made_when_read_are_the_rows_made_after_each_targets_backward_pass() -> None:
    """evaluate makes a target's rows only when they are read, after every target's backward
    pass: they still carry that target's adjoints, as rows made at once did."""
    import numpy as np

    from gradcalc.core.tape import Tape
    from gradcalc.engine.evaluate.evaluate import make_leaves, run_graph, source_tensors, tape_rows

    graph = compile_expression("a = x*y; b = sin(a) + x^2; c = a - b", ["x", "y"])
    graph = compile_expression(graph.text, ["x", "y"], ["a", "b", "c"])
    point = {"x": np.array([0.5, 2.0]), "y": np.array([3.0, -1.0])}
    run = evaluate(graph, point)
    assert not any(rows.recorded for rows in run.rows)
    leaves, _ = make_leaves(graph, point)
    with Tape(persistent=True) as tape:
        tape.watch(list(leaves.values()))
        tensors = run_graph(graph, leaves)
    eager = []
    for target in graph.targets:
        tape.gradient(tensors[target], source_tensors(graph, tensors, graph.variables))
        eager.append(tape_rows(graph, tape, tensors))
    lazy = [_plain(rows) for rows in run.rows]
    assert lazy == [_plain(rows) for rows in eager]
    assert lazy[0] != lazy[1] != lazy[2]  # (the adjoints differ from target to target)


def test_rows_of_an_op_leave_the_rows_unmade_when_no_record_has_it() -> None:
    from gradcalc.engine.evaluate.evaluate import rows_of as having

    rows = rows_of("abs(x) * sin(x)", x=1.0)
    assert having(rows, {"log", "sqrt"}) == [] and not rows.recorded
    assert [r.formula for r in having(rows, {"abs", "log"})] == ["abs(x)"] and rows.recorded
    assert [r.op for r in having(list(rows), {"sin"})] == ["sin"]
