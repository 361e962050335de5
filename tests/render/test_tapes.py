"""print(tape) shows the records as `gradcalc grad` shows its tape."""

from __future__ import annotations

import re

import numpy as np

from gradcalc import Tape, Variable, constant, grad, reduce_sum
from gradcalc.render.notebook.html import drawn
from gradcalc.render.pieces.gradient import tape_table


def _body(text: str) -> list[str]:
    """The table's rows, without its title and frame."""
    return [line for line in text.splitlines() if line.startswith("│")]


def test_a_python_tape_prints_the_rows_the_cli_prints_for_the_same_expression() -> None:
    w1, w2 = Variable(5.0, name="w1"), Variable(3.0, name="w2")
    with Tape() as tape:
        z = 3 * w1**2 + 2 * w1 * w2
    tape.gradient(z, [w1, w2])
    cli = drawn(tape_table(grad("3*w1**2 + 2*w1*w2", at={"w1": 5, "w2": 3}), None), 100)
    assert _body(str(tape)) == _body(cli)
    assert repr(tape) == str(tape)


def test_before_any_gradient_the_adjoints_are_dashes_and_constants_show_their_value() -> None:
    x = constant(2.0, name="x")
    with Tape() as tape:
        tape.watch(x)
        x * 4
    text = str(tape)
    assert "no gradient yet" in text
    assert re.search(r"│ 1 │ mul\s+│ x·4\s+│\s+8 │\s+— │", text)


def test_tensors_are_summarised_with_their_shapes_and_adjoint_norms() -> None:
    x = Variable(np.array([[3.0, 4.0], [0.0, 0.0]]), name="x")
    with Tape() as tape:
        y = reduce_sum(x**2, axis=1)
    tape.gradient(y, x)
    rows = _body(str(tape))
    assert re.match(r"│\s+│ input x\s+│ 2×2\s+│\s+1\.75 │\s+0 │\s+4 │\s+10 │", rows[0])
    assert "2×2" in rows[1] and re.search(r"│\s+1\.414 │$", rows[2])  # ‖ones(2)‖ = √2


def test_the_notebook_shows_the_same_table_as_html() -> None:
    x = Variable(2.0, name="x")
    with Tape() as tape:
        y = x * x
    tape.gradient(y, x)
    page = tape._repr_html_()
    assert page.startswith('<div class="gradcalc"><table>')
    assert "<td>x·x</td>" in page and '<td style="text-align:right">4</td>' in page
