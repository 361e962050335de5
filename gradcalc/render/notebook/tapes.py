"""How a tape made in Python shows itself: ``print(tape)`` and ``repr(tape)`` give the tape
table ``gradcalc grad`` prints (the watched tensors as inputs, then each record with what it
computes, its value and its adjoint from the latest ``gradient`` call), and a notebook shows
the same table as HTML. Tensors with more than one element are summarised (shape, mean, min,
max, adjoint norm), as ``gradcalc grad`` does for tensor values. Importing this module
installs both on :class:`~gradcalc.core.tape.Tape` (``gradcalc.Tape`` imports it).

>>> from gradcalc import Tape, Variable
>>> w1, w2 = Variable(5.0, name="w1"), Variable(3.0, name="w2")
>>> with Tape() as tape:
...     z = 3 * w1**2 + 2 * w1 * w2
>>> _ = tape.gradient(z, [w1, w2])
>>> print(tape)
Tape (adjoint = ∂target/∂row)
┏━━━┳━━━━━━━┳━━━━━━━━━━┳━━━━━━━┳━━━━━━━━━┓
┃ # ┃ op    ┃ computes ┃ value ┃ adjoint ┃
┡━━━╇━━━━━━━╇━━━━━━━━━━╇━━━━━━━╇━━━━━━━━━┩
│   │ input │ w1       │     5 │      36 │
│   │ input │ w2       │     3 │      10 │
│ 1 │ pow   │ w1^2     │    25 │       3 │
│ 2 │ mul   │ 3·#1     │    75 │       1 │
│ 3 │ mul   │ 2·w1     │    10 │       3 │
│ 4 │ mul   │ #3·w2    │    30 │       1 │
│ 5 │ add   │ #2 + #4  │   105 │       1 │
└───┴───────┴──────────┴───────┴─────────┘
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.core.numbers import format_number
from gradcalc.core.tape import Tape
from gradcalc.core.tensor import Tensor
from gradcalc.engine.evaluate.evaluate import RowInput, TapeRow, formula
from gradcalc.render.notebook.html import drawn, to_html
from gradcalc.render.pieces.gradient import records_table
from gradcalc.render.views.tensors import summary_table

#: The columns a tape is drawn in (``print(tape)``): wide enough for its table.
WIDTH = 100


def tape_parts(tape: Tape) -> list[Any]:
    """The tape's table: records of single numbers as ``gradcalc grad`` shows a point, or,
    once a value has more elements, summarised as ``gradcalc grad`` shows tensors."""
    made: dict[int, RowInput] = {}  # by tensor id
    inputs = []
    for k, tensor in enumerate(tape.watched, 1):
        made[tensor.id] = RowInput("variable", tensor.name or f"in{k}")
        inputs.append((made[tensor.id].name, tensor.value, tape.adjoint(tensor)))
    rows = []
    for rec in tape.records:
        given = tuple(made.get(t.id) or RowInput("constant", _constant(t)) for t in rec.inputs)
        made[rec.output.id] = RowInput("record", f"#{rec.index}", record=rec.index)
        written = formula(rec.op, [operand.name for operand in given])
        row = TapeRow(rec.index, None, rec.op.name, written, given, None, rec.value, rec.adjoint)
        rows.append(row)
    title = "Tape (adjoint = ∂target/∂row)" if tape.adjoints() else "Tape (no gradient yet)"
    if all(np.size(value) == 1 for _, value, _ in inputs) and all(r.value.size == 1 for r in rows):
        return [records_table(title, inputs, rows, None)]
    return [summary_table(f"{title}, values summarised", inputs, rows, None)]


def _constant(tensor: Tensor) -> str:
    """An input the tape does not hold: its name, its number, or ``[…]``."""
    if tensor.name is not None:
        return tensor.name
    return format_number(tensor.value) if tensor.value.size == 1 else "[…]"


def tape_text(tape: Tape) -> str:
    """``print(tape)``: the table as the terminal shows it (no colour)."""
    return "\n".join(drawn(part, WIDTH) for part in tape_parts(tape))


def tape_html(tape: Tape) -> str:
    """The table in a notebook.

    >>> from gradcalc import Tape, Variable
    >>> x = Variable(2.0, name="x")
    >>> with Tape() as tape:
    ...     y = x * x
    >>> "<td>x·x</td>" in tape._repr_html_()
    True
    """
    return to_html(tape_parts(tape))


Tape.renderers.update({"text/plain": tape_text, "text/html": tape_html})
