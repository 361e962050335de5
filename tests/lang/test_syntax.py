"""The syntax tree: traversal order, operands, and the free variables of a program."""

from __future__ import annotations

from gradcalc.lang.syntax import (
    Binary,
    Call,
    Const,
    Name,
    Neg,
    Program,
    Statement,
    children,
    postorder,
)
from gradcalc.lang.unparsing import unparse
from tests.lang.trees import expr


def test_postorder_visits_children_left_to_right_before_parents() -> None:
    order = [unparse(node) for node in postorder(expr("f1 - Max(a, b*c)"))]
    assert order == ["f1", "a", "b", "c", "b*c", "max(a, b*c)", "f1 - max(a, b*c)"]


def test_children_and_free_variables_of_hand_built_trees() -> None:
    x, y = Name("x", 0), Name("y", 4)
    product = Binary("mul", x, Neg(y, 3), 2)
    assert children(product) == (x, Neg(y, 3))
    assert children(Call("sin", (x,), 0)) == (x,)
    assert children(Const("pi", 0)) == ()
    program = Program(
        "a = x*-y; a + z",
        (
            Statement("a", product, 0),
            Statement(None, Binary("add", Name("a", 10), Name("z", 14), 12), 10),
        ),
    )
    assert program.free_variables == ("x", "y", "z")  # a is assigned before it is read
