"""Helpers for the lang tests: a text's tree, a tree's shape without columns, a refusal."""

from __future__ import annotations

import dataclasses

import pytest

from gradcalc.core.errors import InputError
from gradcalc.lang.parser import parse_program
from gradcalc.lang.syntax import (
    Node,
    children,
    postorder,
)


def expr(text: str, variables: tuple[str, ...] = ()) -> Node:
    """The tree of a text's last statement."""
    return parse_program(text, variables).statements[-1].expr


def shape(node: Node) -> tuple:
    """A tree as nested tuples, without columns (iterative, so it copes with deep trees)."""
    done: list[tuple] = []
    for item in postorder(node):
        count = len(children(item))
        operands = tuple(done[len(done) - count :])
        del done[len(done) - count :]
        fields = tuple(
            getattr(item, f.name)
            for f in dataclasses.fields(item)
            if f.name not in ("column", "args", "left", "right", "operand")
        )
        done.append((type(item).__name__, *fields, operands))
    return done[0]


def refusal(text: str, variables: tuple[str, ...] = ()) -> InputError:
    with pytest.raises(InputError) as caught:
        parse_program(text, variables)
    return caught.value
