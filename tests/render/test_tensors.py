"""How a tensor result is shown: summaries in tables, every array in full in JSON."""

from __future__ import annotations

import json

import numpy as np
from rich.console import Console

from gradcalc.engine.run.api import compile_expression
from gradcalc.engine.tensors.tensorgrad import tensor_gradient
from gradcalc.render.views.tensors import TensorView, shape_text


def result_of(bias: float):
    rng = np.random.default_rng(0)
    values = {"X": rng.standard_normal((5, 2)), "W": rng.standard_normal((2, 3)),
              "b": np.array([0.0, bias, 0.0])}  # fmt: skip
    return tensor_gradient(compile_expression("loss = sum(relu(X@W + b))", list(values)), values)


def text(parts: list) -> str:
    console = Console(width=120, record=True)
    for part in parts:
        console.print(part)
    return console.export_text()


def test_json_holds_every_array_in_full_and_the_report() -> None:
    result = result_of(-100.0)
    (record,) = TensorView().records(result, tape=True)
    record = json.loads(json.dumps(record))  # plain JSON
    assert np.array_equal(record["gradient"]["W"], result.gradient["W"])
    (pre,) = [row for row in record["tape"] if row["formula"] == "#1 + b"]
    assert np.array_equal(pre["value"], result.values["X"] @ result.values["W"] + [0, -100, 0])
    assert pre["shape"] == [5, 3] and len(pre["adjoint"]) == 5
    (unit,) = record["layers"]["units"]
    assert (unit["layer"], unit["unit"], unit["kind"]) == (1, 1, "dead")
    assert record["gradient_summary"]["W"]["shape"] == [2, 3]


def test_tables_summarise_and_name_the_dead_unit() -> None:
    shown = text(TensorView().tables(result_of(-100.0), None, True, False))
    assert "5×3" in shown and "gradient of loss" in shown and "dead/sat." in shown
    assert "unit 1 of layer 1 (relu) is dead on 100% of 5 rows" in shown
    healthy = text(TensorView().tables(result_of(0.0), None, False, False))
    assert "every layer is healthy" in healthy and "tape" not in healthy.split("layers")[0]


def test_shapes_read_as_people_write_them() -> None:
    assert (shape_text((300, 8)), shape_text((8,)), shape_text(())) == ("300×8", "8", "scalar")
