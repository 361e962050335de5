"""The one reading step: the graph, the reading and the warnings of one text."""

from __future__ import annotations

from gradcalc.lang.intake import read, read_all
from gradcalc.lang.parser import parse_program


def test_the_graph_and_the_reading_agree_with_the_parser() -> None:
    reading = read("y = x^2; z = 1/2y")
    assert reading.graph.variables == parse_program("y = x^2; z = 1/2y").free_variables
    assert reading.heading() == "read as: y = x^2; z = (1/2)·y"
    assert reading.warnings[0].startswith("1/2y is read as (1/2)·y")


def test_an_equation_reads_as_left_equals_right() -> None:
    assert read("x^2 + y^2 = 25", equation=True).heading() == "read as: x^2 + y^2 = 25"


def test_warnings_of_several_readings_are_each_given_once() -> None:
    assert len(read_all([read("e^2x"), read("e^2x + 1")])) == 1
