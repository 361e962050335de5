"""The one reading step: a typed text becomes its parsed graph, how it was read, and the
warnings where it was likely meant otherwise.

Every command reads its expression (and an answer, a model, an equation) here, so each shows
the same ``read as:`` line and the same warnings (:mod:`gradcalc.lang.reading`,
:mod:`gradcalc.lang.slips`).

>>> reading = read("e^2x")
>>> reading.read_as, reading.graph.variables
('e^2·x', ('x',))
>>> print(*reading.lines(), sep="\\n")
read as: f(x) = e^2·x
warning: e^2x is read as e^2·x; if you mean e^(2·x), write e^(2x)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gradcalc.core.collector import paused
from gradcalc.core.naming import function_head
from gradcalc.lang.graph import Graph, lower
from gradcalc.lang.parser import parse_equation, parse_program
from gradcalc.lang.reading import ambiguities, equation_read_as, value_warnings
from gradcalc.lang.syntax import Program

__all__ = ["Reading", "read", "read_all", "reading_line"]


@dataclass(frozen=True)
class Reading:
    """A text as gradcalc read it.

    Attributes:
        text: the text as typed.
        program: its syntax tree.
        graph: its op graph (an equation's: left minus right).
        read_as: the reading notation (``e^2·x``; an equation as ``left = right``).
        warnings: one sentence per likely misreading, each saying what to write instead.
        name: what the reading is called in its heading: ``f`` (``f(x) = ...``), another
            name (``y = ...``: a fitted column), or "" for a bare ``read as: ...`` (an
            equation).
    """

    text: str
    program: Program
    graph: Graph
    read_as: str
    warnings: tuple[str, ...]
    name: str = "f"

    def heading(self) -> str:
        """The ``read as:`` line: ``read as: f(x, y) = x·y``, ``read as: y(x) = 2·x`` for a
        function given a name, a program of several statements or an equation as read.

        >>> read("y = 2x").heading(), read("x^2 + y^2 = 1", equation=True).heading()
        ('read as: y(x) = 2·x', 'read as: x^2 + y^2 = 1')
        """
        return reading_line(self.read_as, self.graph.variables, self.name)

    @property
    def function(self) -> str:
        """The name its heading gives the function (``g`` of ``read as: g(x) = x^3``), or ""
        where the heading names none (a program of several statements, an equation).

        >>> read("x*y").function, read("F(r, t) = r, t").function, read("y = x; y^2").function
        ('f', 'F', '')
        """
        head = function_head(self.read_as, self.graph.variables, self.name)[0]
        return head.partition("(")[0]

    def lines(self) -> list[str]:
        """The heading, then ``warning: ...`` for each warning: what a human format shows
        first."""
        return [self.heading(), *(f"warning: {w}" for w in self.warnings)]


def reading_line(read_as: str, variables: Sequence[str], name: str = "f") -> str:
    """The ``read as:`` line of a reading, named by
    :func:`gradcalc.core.naming.function_head`.

    >>> reading_line("x·y", ["x", "y"]), reading_line("y = x^2; z = y^2", ["x"])
    ('read as: f(x, y) = x·y', 'read as: y = x^2; z = y^2')
    >>> reading_line("g = x^3", ["x"]), reading_line("a·x + b", ["x"], "y")
    ('read as: g(x) = x^3', 'read as: y = a·x + b')
    """
    head, body = function_head(read_as, variables, name)
    return f"read as: {head} = {body}" if head else f"read as: {body}"


def read(
    text: str,
    given: Sequence[str] = (),
    *,
    of: Iterable[str] | None = None,
    equation: bool = False,
    values: Iterable[str] = (),
) -> Reading:
    """Read ``text`` (``equation``: ``left = right``); ``given`` are the names the user gives
    values for (variables even when unused; no name warning for them), ``of`` the program's
    statements to differentiate, ``values`` the value texts typed with it (a point's, the
    numbers to check), warned about as the text is (also in :attr:`Graph.ambiguities`).

    >>> [w.split(";")[0] for w in read("2xy").warnings]
    ['xy is read as one name, a variable']
    >>> read("2xy", given=["xy"]).warnings
    ()
    >>> read("x^2", values=["1/2pi"]).warnings
    ('1/2pi is read as (1/2)·pi; if you mean 1/(2·pi), write 1/(2pi)',)
    """
    with paused():  # (tokens, syntax and graph nodes: no cycles for the collector to find)
        program = parse_equation(text) if equation else parse_program(text, given)
        graph = lower(program, of=of, extra_variables=given)
    graph.values = tuple(values)
    shown = equation_read_as(program) if equation else graph.read_as  # (kept in the graph)
    found = (
        ambiguities(program, given) + value_warnings(graph.values)
        if equation
        else graph.ambiguities
    )
    return Reading(text, program, graph, shown, tuple(found), "" if equation else "f")


def read_all(readings: Iterable[Reading]) -> tuple[str, ...]:
    """The warnings of several readings (an expression and its answers), each once.

    >>> read_all([read("x/2y"), read("x/2y + 1")])
    ('x/2y is read as (x/2)·y; if you mean x/(2·y), write x/(2y)',)
    """
    return tuple(dict.fromkeys(w for reading in readings for w in reading.warnings))
