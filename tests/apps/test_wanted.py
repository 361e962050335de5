"""apps.check.wanted: the derivatives an answer must give, named and in order."""

from __future__ import annotations

import pytest

from gradcalc.apps.check.wanted import Target, components
from gradcalc.core.errors import InputError
from gradcalc.engine.run.api import compile_expression


@pytest.mark.parametrize(
    ("expression", "target", "labels"),
    [
        ("x*y", Target("", None), ["∂f/∂x", "∂f/∂y"]),
        ("x*y", Target("", ["y"]), ["∂f/∂y"]),
        ("x^5", Target("", None, 3), ["d³f/dx³"]),
        ("x*y", Target("", None, 2), ["∂²f/∂x∂x", "∂²f/∂x∂y", "∂²f/∂y∂x", "∂²f/∂y∂y"]),
        ("g(y, x) = x*y", Target("", None), ["∂g/∂y", "∂g/∂x"]),  # the head's order
        (
            "F(r, t) = r*t, r+t, r",
            Target("", None),
            [f"∂F{i}/∂{v}" for i in (1, 2, 3) for v in "rt"],
        ),
    ],
)
def test_each_question_asks_for_its_components_in_order(expression, target, labels) -> None:
    wanted = components(compile_expression(expression), target)
    assert [c.label for c in wanted] == labels


def test_a_jacobian_row_differentiates_its_own_output() -> None:
    wanted = components(compile_expression("a*b, a - b"), Target("", None))
    assert [(c.output, c.variables) for c in wanted] == [
        (0, ("a",)),
        (0, ("b",)),
        (1, ("a",)),
        (1, ("b",)),
    ]


@pytest.mark.parametrize(
    ("expression", "order", "message"),
    [
        ("x*y, x", 2, "--order 2 checks one function; this one has 2 outputs (f1, f2)"),
        ("x*y*z", 3, "--order 3 takes one variable (--wrt x)"),
    ],
)
def test_questions_without_one_answer_are_refused(expression, order, message) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        components(compile_expression(expression), Target("", None, order))
