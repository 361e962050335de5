"""How a tensor program's gradient is shown: the loss, each gradient summarised (shape, mean,
min, max, norm), the tape with each record's shape, and the layer report; JSON gives every
array in full.

>>> from gradcalc.engine.run.api import compile_expression
>>> from gradcalc.engine.tensors.tensorgrad import tensor_gradient
>>> result = tensor_gradient(compile_expression("sum(W*W)", ["W"]), {"W": np.ones((2, 3))})
>>> TensorView().records(result, tape=False)[0]["gradient"]["W"]
[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from gradcalc.core.numbers import format_number
from gradcalc.engine.tensors.layers import LayerReport
from gradcalc.engine.tensors.tensorgrad import Summary, TensorResult
from gradcalc.render.pieces.gradient import new_table, read_as_text


class TensorView:
    """``gradcalc grad`` with tensor values: one result (one point)."""

    def tables(self, result: TensorResult, digits: int | None, tape: bool, several: bool) -> list:
        """The renderables of the ``table`` format."""
        parts: list[Any] = [read_as_text(result.read_as), inputs_table(result)]
        parts += [f"{result.target} = {format_number(result.value, digits)}", ""]
        parts.append(gradient_table(result, digits))
        if tape:
            parts += ["", tape_table(result, digits)]
        parts += ["", *report_parts(result.layers, digits)]
        if result.check is not None:
            parts += ["", str(result.check)]
        return [*parts, ""]

    def records(self, result: TensorResult, tape: bool) -> list[dict[str, Any]]:
        """The JSON object, every array in full."""
        record: dict[str, Any] = {
            "expression": result.graph.text,
            "read_as": result.read_as,
            "target": result.target,
            "value": float(result.value),
            "inputs": {
                name: {"given": result.given.get(name), "shape": list(value.shape)}
                for name, value in result.values.items()
            },
            "gradient": {s: None if g is None else g.tolist() for s, g in result.gradient.items()},
            "gradient_summary": {
                s: None if g is None else _summary_json(g) for s, g in result.gradient.items()
            },
            "layers": report_json(result.layers),
            "warnings": result.warnings,
            "diagnostics": diagnostics_json(result),
        }
        if tape:
            record["tape"] = [
                {
                    "index": row.index,
                    "op": row.op,
                    "formula": row.formula,
                    "label": row.label,
                    "shape": list(row.value.shape),
                    "value": row.value.tolist(),
                    "adjoint": None if row.adjoint is None else row.adjoint.tolist(),
                }
                for row in result.tape
                if row.node is not None
            ]
        if result.check is not None:
            record["check"] = result.check.json()
        return [record]


def _summary_json(array: np.ndarray) -> dict[str, Any]:
    summary = asdict(Summary.of(array))
    summary["shape"] = list(summary["shape"])
    return summary


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as people write it.

    >>> shape_text((300, 8)), shape_text(())
    ('300×8', 'scalar')
    """
    return "×".join(map(str, shape)) if shape else "scalar"


def inputs_table(result: TensorResult) -> Any:
    """Each variable: how it was given and its shape."""
    table = new_table("values")
    for column in ("name", "given as", "shape"):
        table.add_column(column)
    for name, value in result.values.items():
        table.add_row(name, result.given.get(name, ""), shape_text(value.shape))
    return table


def gradient_table(result: TensorResult, digits: int | None) -> Any:
    """Each source's gradient in five numbers."""
    table = new_table(f"gradient of {result.target}")
    table.add_column("source")
    table.add_column("shape")
    for column in ("mean", "min", "max", "norm"):
        table.add_column(column, justify="right")
    for source, grad in result.gradient.items():
        if grad is None:
            table.add_row(source, "", "independent", "", "", "")
            continue
        s = Summary.of(grad)
        numbers = [_short(x, digits) for x in (s.mean, s.min, s.max, s.norm)]
        table.add_row(source, shape_text(s.shape), *numbers)
    return table


def tape_table(result: TensorResult, digits: int | None) -> Any:
    """The tape: each record's shape, its value and adjoint summarised."""
    rows = [row for row in result.tape if row.node is not None]
    title = "tape (values and adjoints summarised; --format json has them in full)"
    return summary_table(title, [], rows, digits)


def summary_table(
    title: str, inputs: Sequence[tuple[str, Any, Any]], rows: Sequence[Any], digits: int | None
) -> Any:
    """The ``inputs`` (name, value, adjoint), then tape rows
    (:class:`~gradcalc.engine.evaluate.evaluate.TapeRow`), with their shapes, each value in three
    numbers (mean, min, max) and each adjoint in its norm."""
    table = new_table(title)
    for column in ("#", "operation", "shape", "mean", "min", "max", "adjoint norm"):
        table.add_column(column, justify="left" if column in ("operation", "shape") else "right")
    lines = [("", f"input {name}", np.asarray(v), a) for name, v, a in inputs]
    for row in rows:
        formula = row.statement
        lines.append((str(row.index), formula, row.value, row.adjoint))
    for index, formula, value, adjoint in lines:
        s = Summary.of(value)
        norm = "—" if adjoint is None else _short(Summary.of(adjoint).norm, digits)
        numbers = [_short(x, digits) for x in (s.mean, s.min, s.max)]
        table.add_row(index, formula, shape_text(value.shape), *numbers, norm)
    return table


def report_parts(report: LayerReport, digits: int | None) -> list[Any]:
    """The layer table and the findings in words (or that every layer is healthy)."""
    from rich.text import Text

    if not report.layers:
        return [Text("layers: none found (a layer is A @ W + b and an activation)", style="dim")]
    rows = max(layer.rows for layer in report.layers)
    table = new_table(f"layers ({rows:,} rows)")
    for column in ("layer", "activation", "units", "grad norm", "÷ next", "gradient", "dead/sat."):
        table.add_column(column, justify="left" if column in ("layer", "activation") else "right")
    for layer in report.layers:
        table.add_row(
            f"{layer.index}: {layer.weight}" + (f", {layer.bias}" if layer.bias else ""),
            layer.activation or "none",
            f"{layer.units:,}",
            "—" if layer.gradient_norm is None else _short(layer.gradient_norm, digits),
            "—" if layer.ratio is None else _short(layer.ratio, digits),
            layer.verdict,
            f"{layer.dead}/{layer.saturated}",
        )
    lines = report.lines()
    if not lines:
        return [table, Text("every layer is healthy: no dead or saturated unit", style="green")]
    return [table, Text("\n".join(lines), style="yellow")]


def diagnostics_json(result: TensorResult) -> dict[str, Any]:
    """``{"healthy", "findings"}`` as every gradient's JSON has them: a gradient with NaN or
    infinite entries, then the layer report's findings (a layer's vanishing or exploding
    gradient, a dead or saturated unit), each ``{"kind", "message", "record"}``."""
    findings: list[dict[str, Any]] = [
        {"kind": "non-finite", "message": f"∂{result.target}/∂{s} has {bad:,} NaN or infinite "
         f"entries of {g.size:,}", "record": None}
        for s, g in result.gradient.items()
        if g is not None and (bad := int(np.size(g) - np.count_nonzero(np.isfinite(g))))
    ]  # fmt: skip
    report = result.layers
    sentences = report.lines()  # (the layers' first, then the units')
    bad_layers = [layer for layer in report.layers if layer.verdict != "ok"]
    findings += [
        {"kind": layer.verdict, "message": said, "record": layer.out_record}
        for layer, said in zip(bad_layers, sentences)
    ]
    findings += [
        {"kind": unit.kind, "message": unit.sentence, "record": None} for unit in report.units
    ]
    return {"healthy": not findings, "findings": findings}


def report_json(report: LayerReport) -> dict[str, Any]:
    """The layer report as JSON: the layers, the unit findings, the thresholds used."""
    return {
        "layers": [asdict(layer) for layer in report.layers],
        "units": [asdict(unit) for unit in report.units],
        "thresholds": asdict(report.thresholds),
        "healthy": report.healthy,
    }


def _short(value: float, digits: int | None) -> str:
    """A summary number: 4 significant digits unless asked otherwise.

    >>> _short(0.000123456, None), _short(-6.25125, None), _short(2.0, None)
    ('0.0001235', '-6.251', '2')
    """
    return format_number(value, digits or 4)
