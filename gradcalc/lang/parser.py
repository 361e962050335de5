"""Parse gradcalc's expression language into a small immutable IR, without Python's parser.

The text is untrusted: nothing here hands it to ``eval``, ``ast`` or sympy's parsers. A
hand-written, fully iterative shunting-yard parser (explicit stacks, no Python recursion
anywhere) turns it into the nodes below, each carrying the 0-based column of its token in the
original text, so every :class:`~gradcalc.core.errors.InputError` can put a caret under it.

Grammar, informally (``^`` and ``**`` are the same operator)::

    program    := statement (( ';' | newline ) statement)*     blank statements are ignored
    statement  := NAME '=' expression                          assignment; reassignment is fine
                | NAME '(' NAME (',' NAME)* ')' '=' expression  a function head: the whole
                                                                  program, its variables in order
                | expression (',' expression)*                 the last statement only
    expression := sum, with Python's precedence:  + -  <  * / @  <  unary - +  <  ** ^
                  (powers are right-associative and take a signed right operand: 2^-1)
    operand    := (NUMBER | NAME | CONSTANT | FUNCTION '(' arguments ')' | '(' expression ')')
                  ('[' INTEGER (',' INTEGER)* ']')*                indexing: v[0], X[1, -1]
    arguments  := expression (',' expression)* (',' KEYWORD '=' INTEGER)*    sum(X, axis=0)

* Numbers are decimal: ``12``, ``1.5``, ``.5``, ``2.``, ``1e-3``, ``2E+5``. ``2e`` is ``2*e``.
* Names are ``[A-Za-z][A-Za-z0-9_]*`` without ``__``; ``pi``, ``e`` and ``E`` are constants
  unless listed in ``variables`` or assigned earlier; names of
  :data:`~gradcalc.core.ops.FUNCTION_NAMES`
  must be called. ``and or not if else is in`` are refused so that Python-looking text does
  not silently become a product of variables.
* Implicit multiplication: a number, variable, constant or ``)`` followed by a name,
  constant or ``(`` multiplies (``2x``, ``2 sin(x)``, ``(x+1)(x-1)``, ``x y``); it binds
  like ``*``, so ``1/2x`` is ``(1/2)*x``. Any other adjacent operands are an error.
* ``log(x, b)`` is the logarithm to base ``b``; variadic functions fold left:
  ``Max(a, b, c)`` is ``max(max(a, b), c)``.
* Tensors: ``X @ W`` is the matrix product (it binds like ``*``); the reductions take their
  axis as a keyword with a whole number, ``sum(X, axis=0)``, ``softmax(z, axis=-1)`` (only
  the keywords an op declares; ``sum(X, 0)`` is refused, it reads like a second operand);
  ``max`` and ``min`` with one argument or an axis are the reductions ``amax``/``amin``;
  ``v[0]`` and ``X[1, -1]`` index with whole numbers (negative ones count from the end).

Limits, all checked before anything else sees the tree:

* :data:`MAX_LENGTH` characters of text; only ASCII letters, digits, ``_``, space, tab,
  ``+ - * / ^ @ ( ) [ ] . , = ;`` and newlines (``\\n`` or ``\\r\\n``) are allowed.
* :data:`MAX_DEPTH` levels of nesting: parentheses (calls included), and within them unary
  signs and chained powers; counted while tokenising, so ``((((...`` fails at once.
* :data:`MAX_NAME_LENGTH` characters per name; :data:`MAX_INTEGER_DIGITS` digits before a
  decimal point; a literal above :data:`MAX_CONSTANT` or rounding to zero is refused.
* Every subexpression without variables is folded to a float as it is built, with the
  registry's forward functions (plain float arithmetic for ``+ - *``): one above
  :data:`MAX_CONSTANT` in magnitude is refused (unless the op is undefined there, like
  ``1/0``, which the evaluator reports), and so is a power whose constant exponent exceeds
  :data:`MAX_EXPONENT` in magnitude. Assigned constants count: ``a = 9^9; a^a`` is refused.
  These are reported once the whole text has parsed, so syntax errors come first.

>>> from gradcalc.lang.unparsing import unparse
>>> program = parse_program("r = sqrt(x^2 + y^2); 2r")
>>> [statement.target for statement in program.statements], program.free_variables
(['r', None], ('x', 'y'))
>>> unparse(program.statements[-1].expr)
'2*r'
>>> parse_program("2 3")
Traceback (most recent call last):
...
gradcalc.core.errors.InputError: missing operator before '3': put * (or another operator) ...
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from gradcalc.core.errors import InputError
from gradcalc.core.ops import FUNCTION_NAMES, REGISTRY, UNDEFINED
from gradcalc.lang.expression import ExpressionParser
from gradcalc.lang.lexer import (
    MAX_CONSTANT,
    MAX_CONSTANT_TEXT,
    MAX_EXPONENT,
    Lexer,
    Token,
    TokenStatement,
    check_characters,
    checked_variables,
)
from gradcalc.lang.literals import CONSTANTS
from gradcalc.lang.slips import called_slip, leibniz_notation, unnamed_variables, variable_like
from gradcalc.lang.spelling import closest_function, other_spelling
from gradcalc.lang.syntax import Binary, Call, Name, Node, Program, Statement, postorder
from gradcalc.lang.unparsing import preview

__all__ = ["ProgramParser", "parse_constant", "parse_equation", "parse_program"]


# --- public entry points -----------------------------------------------------------------


def parse_program(text: str, variables: Iterable[str] = (), beyond_float: bool = False) -> Program:
    """Parse a program: assignments, then one or more comma-separated output expressions.

    ``variables`` are names that are variables even if they would be constants (``e``);
    ``beyond_float`` lifts the bounds of constant subexpressions (for a number sympy judges
    exactly, never computed in float64: ``867e^4913``); a literal keeps its own.

    >>> from gradcalc.lang.unparsing import unparse
    >>> program = parse_program("a = 2x\\nb = a^2; b, -b")
    >>> [(s.target, unparse(s.expr)) for s in program.statements]
    [('a', '2*x'), ('b', 'a**2'), (None, 'b'), (None, '-b')]
    >>> parse_program("e*x", variables=["e"]).free_variables
    ('e', 'x')
    """
    check_characters(text)
    parser = ProgramParser(text, checked_variables(variables), beyond_float)
    with np.errstate(all="ignore"):  # constants are folded with numpy; overflow is checked
        return parser.program()


def parse_equation(text: str) -> Program:
    """Parse an equation ``left = right`` as the program ``left - right`` (its zero set is
    the curve or surface); ``variables`` work as in :func:`parse_program`.

    >>> from gradcalc.lang.unparsing import unparse
    >>> unparse(parse_equation("x^2 + y^2 = 25").statements[0].expr)
    'x**2 + y**2 - 25'
    >>> parse_equation("x + y")
    Traceback (most recent call last):
    ...
    gradcalc.core.errors.InputError: not an equation: write left = right, e.g. x^2 + y^2 = 25
    """
    check_characters(text)
    parser = ProgramParser(text, frozenset())
    statements = Lexer(text).run()
    parser.plain = _plain_names(statements)
    tokens, equals = statements[0] if len(statements) == 1 else ([], None)
    if equals is None:
        raise InputError("not an equation: write left = right, e.g. x^2 + y^2 = 25", text, 0)
    sides = []
    for part, column in ((tokens[:equals], 0), (tokens[equals + 1 :], tokens[equals][2])):
        if not part:
            raise InputError("an equation needs an expression on each side of '='", text, column)
        with np.errstate(all="ignore"):
            outputs = ExpressionParser(parser, part, 0).parse()
        if len(outputs) > 1:
            raise InputError("an equation has one expression on each side", text, column)
        sides.append(outputs[0][0])
    if parser.violation is not None:
        raise parser.violation
    column = tokens[equals][2]
    return Program(text, (Statement(None, Binary("sub", sides[0], sides[1], column), 0),))


def parse_constant(text: str, beyond_float: bool = False) -> Node:
    """Parse a point value: one expression of numbers, ``pi``, ``e`` and functions only
    (past float64 with ``beyond_float``: see :func:`parse_program`).

    >>> from gradcalc.lang.unparsing import unparse
    >>> unparse(parse_constant("pi/4"))
    'pi/4'
    >>> parse_constant("-1e-3")
    Neg(operand=Num(value=0.001, text='1e-3', column=1), column=0)
    >>> parse_constant("x + 1")
    Traceback (most recent call last):
    ...
    gradcalc.core.errors.InputError: a value cannot contain the variable 'x': use numbers, pi, e ...
    >>> unparse(parse_constant("-867*e^4913", beyond_float=True))
    '-867*E**4913'
    """
    statements = parse_program(text, beyond_float=beyond_float).statements
    if statements[0].target is not None:
        raise InputError(
            "expected a single value such as pi/4, not an assignment", text, statements[0].column
        )
    if len(statements) > 1:
        raise InputError(
            "expected a single value such as pi/4, not a list", text, statements[1].column
        )
    for node in postorder(statements[0].expr):
        if isinstance(node, Name):
            raise InputError(
                f"a value cannot contain the variable {node.name!r}: "
                "use numbers, pi, e and functions only",
                text,
                node.column,
            )
    return statements[0].expr


#: ``log2``, ``log_2``, ``log_b``: a logarithm to a base, as students write it.
_LOG_BASE = re.compile(r"log(?:_?(\d+)|_([a-z]))")


class ProgramParser:
    """Parses statement after statement; knows which names are variables and which of them
    hold constants, and folds constant subtrees as they are built (see :meth:`fold`)."""

    def __init__(self, text: str, variables: frozenset[str], beyond_float: bool = False):
        self.text = text
        self.beyond_float = beyond_float  # constants unbounded (see parse_program)
        self.known = set(variables)  # names that are variables: given ones and assigned ones
        self.constants: dict[str, float] = {}  # assigned names whose value is a constant
        self.violation: InputError | None = None  # the first constant out of bounds
        self.plain: frozenset[str] = frozenset()  # names used as operands, not called

    def error(self, message: str, column: int) -> InputError:
        return InputError(message, self.text, column)

    def program(self) -> Program:
        statements = Lexer(self.text).run()
        if not statements:
            raise self.error("empty program: write an expression such as x^2 + y", 0)
        self.plain = _plain_names(statements)
        head = _function_head(self, statements)
        parsed: list[Statement] = []
        if head is not None:
            parsed = self._head_statements(head)
        for index, statement in enumerate(statements if head is None else []):
            parsed += self._statement(statement, last=index == len(statements) - 1)
        if self.violation is not None:  # bounds are reported only once the syntax is sound
            raise self.violation
        if head is None:
            return Program(self.text, tuple(parsed))
        program = Program(self.text, tuple(parsed), head.parameters, head.name_token[1])
        head.check_variables(self, program.free_variables)
        return program

    def _statement(self, statement: TokenStatement, last: bool) -> list[Statement]:
        tokens, equals = statement
        self._derivative_notation(tokens)
        if equals is None:
            outputs = ExpressionParser(self, tokens, 0).parse()
            if not last:
                raise self.error(
                    "only the last statement may be a bare expression: "
                    "assign this one (name = ...) or remove it",
                    tokens[0][2],
                )
            return [Statement(None, node, tokens[first][2]) for node, _, first in outputs]
        target, column = self._target(tokens, equals)
        if equals + 1 == len(tokens):
            raise self.error("'=' needs an expression after it", tokens[equals][2])
        outputs = ExpressionParser(self, tokens, equals + 1).parse()
        if len(outputs) > 1:
            raise self.error(
                "an assignment takes one expression: put further outputs in the last statement",
                tokens[outputs[1][2] - 1][2],
            )
        node, value, _ = outputs[0]
        self.known.add(target)
        if value is None:
            self.constants.pop(target, None)
        else:
            self.constants[target] = value
        return [Statement(target, node, column)]

    def _head_statements(self, head: _Head) -> list[Statement]:
        """The body of ``f(x, y) = body``: one expression is the function ``f`` (named so
        in the answer: ∂f/∂x); a list (``f(r, t) = r*cos(t), r*sin(t)``) is its outputs."""
        name, column = head.name_token[1], head.name_token[2]
        self._target([head.name_token, head.body[0]], 1)  # (not a function's or pi's name)
        if len(head.body) == 1:
            raise self.error("'=' needs an expression after it", head.body[0][2])
        self._derivative_notation(head.body[1:])
        outputs = ExpressionParser(self, head.body, 1).parse()
        if len(outputs) == 1:
            return [Statement(name, outputs[0][0], column)]
        return [Statement(None, node, head.body[first][2]) for node, _, first in outputs]

    def _derivative_notation(self, tokens: list[Token]) -> None:
        """Refuse ``d/dx x^2`` and ``d/dx(x^2)``: a derivative asked for in Leibniz's
        notation (:func:`~gradcalc.lang.slips.leibniz_notation`)."""
        message = leibniz_notation(self.text, tokens)
        if message:
            raise self.error(message, tokens[0][2])

    def _target(self, tokens: list[Token], equals: int) -> tuple[str, int]:
        if equals == 0:
            raise self.error("'=' needs a variable name before it", tokens[0][2])
        kind, name, column = tokens[0]
        if equals != 1 or kind != "name":
            raise self.error(
                "only a single name can be assigned: write name = expression, or a function "
                "f(x, y) = expression (an equation such as x^2 + y^2 = 25 is for gradcalc "
                "diff --implicit y)",
                tokens[equals][2],
            )
        if name in FUNCTION_NAMES:
            raise self.error(
                f"cannot assign to {name!r}: it is a function; choose another name", column
            )
        if name == "pi":
            raise self.error("cannot assign to 'pi': it is a constant; choose another name", column)
        return name, column

    def is_variable(self, name: str) -> bool:
        return name in self.known or (name not in FUNCTION_NAMES and name not in CONSTANTS)

    def check_spelling(self, name: str, column: int) -> None:
        """Refuse an unknown name called like a function, unless it reads as a variable
        times a group: a name given or assigned, used elsewhere as an operand (``k(x+1) +
        k``), or a variable by its look (``k(x+1)``, ``w1(...)``: :func:`variable_like`).
        The refusal names the function meant: another book's (``arcsec``, ``tg``), a
        misspelled one (``sni``), else the list of them.

        >>> for text in ("arcsec(x)", "k(x+1)", "root(x) + root", "rate(1+x)"):
        ...     try:
        ...         print(len(parse_program(text).free_variables))
        ...     except InputError as refused:
        ...         print(str(refused).splitlines()[0])
        unknown function 'arcsec': arcsec(x) is acos(1/x): write acos(1/x) (to multiply, ...
        2
        2
        unknown function 'rate': gradcalc ops lists the functions (to multiply, write rate*(...))
        """
        if name in self.known or name in self.plain:
            return
        base = _LOG_BASE.fullmatch(name)
        if base is not None and base[1] != "10":
            b = base[1] or base[2]
            raise self.error(
                f"unknown function {name!r}: the logarithm to base {b} is log(x, {b})"
                + (" (ln(x) is the natural one)" if b == "e" else ""),
                column,
            )
        product = f" (to multiply, write {name}*(...))"
        after = self.text[:column].rstrip()[-1:]
        argument = _argument(self.text, column + len(name))
        other = other_spelling(name, argument, after)
        if other is not None:
            raise self.error(f"unknown function {name!r}: {other}{product}", column)
        slip = called_slip(name, argument)
        if slip is not None:  # sin2(x), xsin(x)
            raise self.error(f"unknown function {name!r}: {slip}{product}", column)
        guess = closest_function(name)
        if guess is not None:
            raise self.error(
                f"unknown function {name!r} — did you mean {guess!r}?{product}", column
            )
        if not variable_like(name):
            raise self.error(
                f"unknown function {name!r}: gradcalc ops lists the functions{product}", column
            )

    def fold(
        self, node: Call | Binary, op_name: str, args: tuple[float | None, ...]
    ) -> float | None:
        """The value of a new node from its operands' values (None: not a constant).

        Records (for :meth:`program` to raise) the first power with a constant exponent
        above MAX_EXPONENT, and the first constant above MAX_CONSTANT in magnitude -- unless
        the op is undefined there (``1/0``): that is NaN, for the evaluator to report.
        With ``beyond_float`` neither is a violation, and a constant past float64 is None.
        """
        if self.violation is not None:
            return None
        if (
            op_name == "pow"
            and not self.beyond_float
            and args[1] is not None
            and abs(args[1]) > MAX_EXPONENT
        ):
            self.violation = self.error(
                f"exponent too large: {preview(node)} (limit {MAX_EXPONENT} in magnitude, fixed)",
                node.column,
            )
            return None
        if None in args:  # (most nodes: an operand is no constant)
            return None
        op = REGISTRY[op_name]
        if not op.elementwise:  # a tensor op needs tensors: not folded
            return None
        inputs = [np.float64(arg) for arg in args]
        arithmetic = _ARITHMETIC.get(op_name)  # the same IEEE doubles as numpy's, much faster
        value = arithmetic(*args) if arithmetic else float(op.forward(*inputs))
        if abs(value) > MAX_CONSTANT:  # infinities included; NaN is not
            if any(issue.kind == UNDEFINED for issue in op.issues(*inputs)):
                return math.nan
            if self.beyond_float:
                return None  # (its value past float64 is sympy's to know, not folding's)
            self.violation = self.error(
                f"constant too large: {preview(node)} "
                f"(limit {MAX_CONSTANT_TEXT} in magnitude, fixed)",
                node.column,
            )
            return None
        return value


_ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}


def _plain_names(statements: Sequence[TokenStatement]) -> frozenset[str]:
    """The names used as operands somewhere, not right before ``(``: variables for sure."""
    plain: set[str] = set()
    for tokens, _ in statements:
        following = [*tokens[1:], ("end", "", 0)]
        plain.update(t[1] for t, n in zip(tokens, following) if t[0] == "name" and n[0] != "(")
    return frozenset(plain)


def _argument(text: str, start: int, limit: int = 24) -> str:
    """The text inside the parentheses that open at or after ``start`` (``x`` when it is
    long, spans lines or is not closed), for a message that writes the call anew.

    >>> _argument("2 arcsec(3x + 1)^2", 8), _argument("root(x", 4)
    ('3x + 1', 'x')
    """
    opened = text.find("(", start)
    depth = 0
    for end in range(opened, len(text)):
        depth += (text[end] == "(") - (text[end] == ")")
        if depth == 0:
            inside = text[opened + 1 : end].strip()
            return inside if 0 < len(inside) <= limit and "\n" not in inside else "x"
    return "x"


class _Head(NamedTuple):
    """``f(x, y) = body``: the function's name token, its parameters, the body's tokens
    (``=`` first) and the text of the head, for messages."""

    name_token: Token
    parameters: tuple[str, ...]
    body: list[Token]
    text: str

    def check_variables(self, parser: ProgramParser, free: Sequence[str]) -> None:
        """Refuse a body that uses a variable the head does not name."""
        others = [name for name in free if name not in self.parameters]
        if others:  # (kx, a product typed as one name: its fix first)
            message = unnamed_variables(self.text, self.parameters, others)
            raise parser.error(message, self.name_token[2])


def _function_head(parser: ProgramParser, statements: list[TokenStatement]) -> _Head | None:
    """The head of ``f(x, y) = ...`` (students write functions so), or ``None`` when the
    text does not start so. A head is one statement, names its variables once each, and
    those are all the body may use.

    >>> head = _function_head(ProgramParser("g(y, x) = x*y", frozenset()),
    ...                       Lexer("g(y, x) = x*y").run())
    >>> head.name_token[1], head.parameters, head.text
    ('g', ('y', 'x'), 'g(y, x)')
    """
    tokens, equals = statements[0]
    if not (equals and equals >= 3 and [t[0] for t in tokens[:2]] == ["name", "("]):
        return None
    if tokens[equals - 1][0] != ")":
        return None
    inside = tokens[2 : equals - 1]
    names = inside[::2]
    if not inside or any(t[0] != "name" for t in names) or any(t[0] != "," for t in inside[1::2]):
        column = next((t[2] for t in inside if t[0] not in ("name", ",")), tokens[1][2])
        raise parser.error(
            f"a function head names its variables: write {tokens[0][1]}(x, y) = ...", column
        )
    if len(inside) % 2 == 0:
        raise parser.error("a name is missing after ','", inside[-1][2])
    parameters = tuple(t[1] for t in names)
    text = parser.text[tokens[0][2] : tokens[equals - 1][2] + 1]
    if len(text) > 60:  # (messages name a long head by its name)
        text = f"{tokens[0][1]}(...)"
    seen: set[str] = set()
    for token in names:
        if token[1] in seen:
            raise parser.error(f"{token[1]} is named twice in {text}", token[2])
        seen.add(token[1])
        if token[1] in FUNCTION_NAMES or token[1] in CONSTANTS:
            raise parser.error(
                f"{token[1]!r} is a built-in name and cannot be a variable of {text}", token[2]
            )
    if len(statements) > 1:
        raise parser.error(
            f"{text} = ... defines the whole function: write it alone, or write a program "
            "with plain names (r = ...; f = ...)",
            statements[1][0][0][2],
        )
    return _Head(tokens[0], parameters, tokens[equals:], text)
