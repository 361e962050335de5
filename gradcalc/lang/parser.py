"""Parse gradcalc's expression language into a small immutable IR, without Python's parser.

The text is untrusted: nothing here hands it to ``eval``, ``ast`` or sympy's parsers. A
hand-written, fully iterative shunting-yard parser (explicit stacks, no Python recursion
anywhere) turns it into the nodes below, each carrying the 0-based column of its token in the
original text, so every :class:`~gradcalc.core.errors.InputError` can put a caret under it.

Grammar, informally (``^`` and ``**`` are the same operator)::

    program    := statement (( ';' | newline ) statement)*     blank statements are ignored
    statement  := NAME '=' expression                          assignment; reassignment is fine
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

import difflib
import math
import operator
import re
import string
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple, TypeGuard

import numpy as np

from gradcalc.core.errors import InputError
from gradcalc.core.ops import FUNCTION_NAMES, OPERATORS, REGISTRY, UNDEFINED, Op
from gradcalc.lang.literals import CONSTANT_VALUES, CONSTANTS

__all__ = [
    "CONSTANTS",
    "MAX_CONSTANT",
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_INTEGER_DIGITS",
    "MAX_LENGTH",
    "MAX_NAME_LENGTH",
    "Binary",
    "Call",
    "Const",
    "Name",
    "Neg",
    "Node",
    "Num",
    "Program",
    "Statement",
    "children",
    "parse_constant",
    "parse_program",
    "postorder",
    "unparse",
]

#: Longest accepted text, in characters.
MAX_LENGTH = 1_000_000
#: Deepest nesting of parentheses, calls, unary signs and chained powers.
MAX_DEPTH = 200
#: Longest accepted name.
MAX_NAME_LENGTH = 64
#: Most digits before a number's decimal point.
MAX_INTEGER_DIGITS = 30
#: Largest magnitude of a constant exponent.
MAX_EXPONENT = 1000
#: Largest magnitude of a number or constant subexpression.
MAX_CONSTANT = 1e300

_MAX_CONSTANT_TEXT = "1e300"
_PYTHON_OPERATOR_WORDS = frozenset({"and", "or", "not", "if", "else", "is", "in"})


# --- the IR ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Num:
    """A decimal literal exactly as typed; ``value`` is ``float(text)``."""

    value: float
    text: str
    column: int


@dataclass(frozen=True, slots=True)
class Const:
    """The constant ``pi`` or ``E``."""

    name: str
    column: int


@dataclass(frozen=True, slots=True)
class Name:
    """A variable, or a name assigned by an earlier statement."""

    name: str
    column: int


@dataclass(frozen=True, slots=True)
class Call:
    """A registry op applied to arguments; ``op`` is the registry key (``"abs"`` for ``Abs``).

    ``params`` are the op's keyword parameters as written (``(("axis", 0),)``), and for
    indexing ``v[1, 2]`` (op ``index``) the whole-number index ``(("index", (1, 2)),)``.
    """

    op: str
    args: tuple[Node, ...]
    column: int
    params: tuple[tuple[str, int | tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class Binary:
    """``left op right`` with ``op`` in add, sub, mul, div, pow; ``column`` is the operator's."""

    op: str
    left: Node
    right: Node
    column: int


@dataclass(frozen=True, slots=True)
class Neg:
    """Unary minus (unary plus is dropped)."""

    operand: Node
    column: int


Node = Num | Const | Name | Call | Binary | Neg


@dataclass(frozen=True, slots=True)
class Statement:
    """``target = expr``, or a bare output expression (``target`` is ``None``)."""

    target: str | None
    expr: Node
    column: int


@dataclass(frozen=True, slots=True)
class Program:
    """The parsed text: its statements in order."""

    text: str
    statements: tuple[Statement, ...]

    @property
    def free_variables(self) -> tuple[str, ...]:
        """Names read before being assigned, in order of first appearance.

        >>> parse_program("c = c + b; d = c*a; d + b").free_variables
        ('c', 'b', 'a')
        """
        assigned: set[str] = set()
        free: dict[str, None] = {}
        for statement in self.statements:
            for node in postorder(statement.expr):
                if isinstance(node, Name) and node.name not in assigned:
                    free.setdefault(node.name)
            if statement.target is not None:
                assigned.add(statement.target)
        return tuple(free)


def children(node: Node) -> tuple[Node, ...]:
    """The operands of a node, left to right (none for leaves).

    >>> children(parse_constant("1 + 2"))
    (Num(value=1.0, text='1', column=0), Num(value=2.0, text='2', column=4))
    """
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, Neg):
        return (node.operand,)
    return ()


def postorder(root: Node) -> Iterator[Node]:
    """Every node of the tree, children (left to right) before their parent; iterative.

    >>> [type(node).__name__ for node in postorder(parse_constant("1 + 2*pi"))]
    ['Num', 'Num', 'Const', 'Binary', 'Binary']
    """
    reverse_order: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        reverse_order.append(node)
        stack.extend(children(node))
    return reversed(reverse_order)


# --- public entry points -----------------------------------------------------------------


def parse_program(text: str, variables: Iterable[str] = ()) -> Program:
    """Parse a program: assignments, then one or more comma-separated output expressions.

    ``variables`` are names that are variables even if they would be constants (``e``).

    >>> program = parse_program("a = 2x\\nb = a^2; b, -b")
    >>> [(s.target, unparse(s.expr)) for s in program.statements]
    [('a', '2*x'), ('b', 'a**2'), (None, 'b'), (None, '-b')]
    >>> parse_program("e*x", variables=["e"]).free_variables
    ('e', 'x')
    """
    _check_characters(text)
    parser = _Parser(text, _checked_variables(variables))
    with np.errstate(all="ignore"):  # constants are folded with numpy; overflow is checked
        return parser.program()


def parse_equation(text: str) -> Program:
    """Parse an equation ``left = right`` as the program ``left - right`` (its zero set is
    the curve or surface); ``variables`` work as in :func:`parse_program`.

    >>> unparse(parse_equation("x^2 + y^2 = 25").statements[0].expr)
    'x**2 + y**2 - 25'
    >>> parse_equation("x + y")
    Traceback (most recent call last):
    ...
    gradcalc.core.errors.InputError: not an equation: write left = right, e.g. x^2 + y^2 = 25
    """
    _check_characters(text)
    parser = _Parser(text, frozenset())
    statements = _Lexer(text).run()
    tokens, equals = statements[0] if len(statements) == 1 else ([], None)
    if equals is None:
        raise InputError("not an equation: write left = right, e.g. x^2 + y^2 = 25", text, 0)
    sides = []
    for part, column in ((tokens[:equals], 0), (tokens[equals + 1 :], tokens[equals][2])):
        if not part:
            raise InputError("an equation needs an expression on each side of '='", text, column)
        with np.errstate(all="ignore"):
            outputs = _ExpressionParser(parser, part, 0).parse()
        if len(outputs) > 1:
            raise InputError("an equation has one expression on each side", text, column)
        sides.append(outputs[0][0])
    if parser.violation is not None:
        raise parser.violation
    column = tokens[equals][2]
    return Program(text, (Statement(None, Binary("sub", sides[0], sides[1], column), 0),))


def parse_constant(text: str) -> Node:
    """Parse a point value: one expression of numbers, ``pi``, ``e`` and functions only.

    >>> unparse(parse_constant("pi/4"))
    'pi/4'
    >>> parse_constant("-1e-3")
    Neg(operand=Num(value=0.001, text='1e-3', column=1), column=0)
    >>> parse_constant("x + 1")
    Traceback (most recent call last):
    ...
    gradcalc.core.errors.InputError: a value cannot contain the variable 'x': use numbers, pi, e ...
    """
    statements = parse_program(text).statements
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


# --- unparsing ---------------------------------------------------------------------------

# the operator table comes from the registry's infix ops; "neg" is unary minus, "mul" also
# implicit multiplication
_PRECEDENCE = {op.name: op.precedence for op in REGISTRY.values() if op.precedence}
_ATOM = max(_PRECEDENCE.values()) + 1
_LOOSEST = min(_PRECEDENCE.values())
_SYMBOLS = {  # the loosest operators are written with spaces around them: x*y + z
    op.name: f" {op.symbol} " if op.precedence == _LOOSEST else op.symbol
    for op in OPERATORS.values()
    if op.symbol
}
_PRODUCTS = ("mul", "div", "matmul")  # one precedence: read left to right
_READING = {"add": " + ", "sub": " - ", "mul": "·", "div": "/", "pow": "^", "matmul": " @ "}


def unparse(node: Node, reading: bool = False) -> str:
    """Canonical text for a tree: ``**`` for powers, explicit ``*``, only the parentheses needed.

    It parses back to the same tree (with the same ``variables``), up to columns. With
    ``reading``, the notation shown to people as "read as": ``^``, ``·``, ``e``, and
    parentheses that make the grouping of ``/`` plain (``(1/2)·x``, ``(x^1)/2``).

    >>> unparse(parse_program("2x^2 - (y - z)(y + z)").statements[0].expr)
    '2*x**2 - (y - z)*(y + z)'
    >>> unparse(parse_constant("(-2)^-3^2"))
    '(-2)**-3**2'
    >>> [unparse(parse_program(t).statements[0].expr, reading=True) for t in ("e^2x", "1/2x")]
    ['e^2·x', '(1/2)·x']
    """
    return "".join(_pieces(node, reading))


def _pieces(root: Node, reading: bool = False) -> Iterator[str]:
    """The text of a tree, piece by piece, left to right (linear time, no recursion)."""
    stack: list[Node | str] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        else:
            stack.extend(reversed(_layout(item, reading)))


def _layout(node: Node, reading: bool) -> list[Node | str]:
    """One node's text with its operands left as nodes, parenthesised where they must be."""
    if isinstance(node, Num):
        return [node.text]
    if isinstance(node, Const):
        return ["e" if reading and node.name == "E" else node.name]
    if isinstance(node, Name):
        return [node.name]
    if isinstance(node, Call) and node.op == "index":
        subscript = ", ".join(str(i) for i in np.atleast_1d(node.params[0][1]))
        grouped = not isinstance(node.args[0], (Num, Const, Name, Call))
        return [*_grouped(node.args[0], grouped), f"[{subscript}]"]
    if isinstance(node, Call):
        pieces: list[Node | str] = [f"{node.op}("]
        for position, arg in enumerate(node.args):
            pieces += [", ", arg] if position else [arg]
        pieces += [f", {key}={value}" for key, value in node.params]
        return [*pieces, ")"]
    if isinstance(node, Neg):  # reading: -(x^2), the grouping made plain
        operand = _precedence(node.operand)
        grouped = operand < _PRECEDENCE["neg"] or (reading and operand == _PRECEDENCE["pow"])
        return ["-", *_grouped(node.operand, grouped)]
    own = _PRECEDENCE[node.op]
    left, right = _precedence(node.left), _precedence(node.right)
    if REGISTRY[node.op].right_associative:  # a power; its right operand may carry a sign
        left_needs, right_needs = left <= own, right < _PRECEDENCE["neg"]
    else:
        left_needs, right_needs = left < own, right <= own
    if reading and node.op in ("mul", "div"):  # (1/2)·x, (x^1)/2: the grouping made plain
        left_needs = left_needs or is_binary(node.left, "div")
        left_needs = left_needs or (node.op == "div" and _ends_in_power(node.left))
    if reading and node.op in _PRODUCTS and isinstance(node.left, Binary):  # (a·X) @ W
        left_needs = left_needs or (
            node.left.op in _PRODUCTS
            and node.left.op != node.op
            and ("matmul" in (node.op, node.left.op))
        )
    symbols = _READING if reading else _SYMBOLS
    return [
        *_grouped(node.left, left_needs),
        symbols[node.op],
        *_grouped(node.right, right_needs),
    ]


def is_binary(node: object, op: str) -> TypeGuard[Binary]:
    """Whether ``node`` is the binary operation ``op``.

    >>> is_binary(parse_program("x*y").statements[0].expr, "mul")
    True
    """
    return isinstance(node, Binary) and node.op == op


def _ends_in_power(node: Node) -> bool:
    """Whether the last factor of a product is a power (``2·x^3``)."""
    while is_binary(node, "mul"):
        node = node.right
    return is_binary(node, "pow")


def _precedence(node: Node) -> int:
    if isinstance(node, Binary):
        return _PRECEDENCE[node.op]
    return _PRECEDENCE["neg"] if isinstance(node, Neg) else _ATOM


def _grouped(node: Node, parenthesise: bool) -> list[Node | str]:
    return ["(", node, ")"] if parenthesise else [node]


def _preview(node: Node, limit: int = 60) -> str:
    """``unparse(node)`` cut to ``limit`` characters, without unparsing all of a huge tree."""
    pieces, length = [], 0
    for piece in _pieces(node):
        pieces.append(piece)
        length += len(piece)
        if length > limit:
            return "".join(pieces)[:limit] + "..."
    return "".join(pieces)


def _shorten(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


# --- characters ----------------------------------------------------------------------------

#: The few math characters students paste, each read as the ASCII it stands for (an
#: explicit allow-list: every other character outside ASCII is refused).
UNICODE_SYMBOLS = {"×": "*", "·": "*", "−": "-", "²": "^2", "³": "^3", "π": "pi"}
_DISALLOWED = re.compile(r"[^A-Za-z0-9_ \t+\-*/^@().,=;\[\]\n\r×·−²³π]|\r(?!\n)")
_ALLOWED = "use only ASCII letters, digits, _, spaces and + - * / ^ @ ( ) [ ] . , = ;"
_HINTS = {
    "'": "there are no strings in expressions",
    '"': "there are no strings in expressions",
    "{": "use ( ) for grouping",
    "}": "use ( ) for grouping",
    "|": "write abs(x) for |x|",
    "!": "there is no factorial",
    "%": "there is no remainder operator",
    "<": "there are no comparisons",
    ">": "there are no comparisons",
}


def _check_characters(text: str) -> None:
    """Refuse overlong text and any character outside the allowlist (before tokenising)."""
    if len(text) > MAX_LENGTH:
        raise InputError(
            f"input too long: {len(text):,} characters (limit {MAX_LENGTH:,}, fixed): shorten "
            "it, or split the work into several runs",
            text,
            MAX_LENGTH,
        )
    bad = _DISALLOWED.search(text)
    if bad is not None:
        raise InputError(_describe_character(bad.group()), text, bad.start())


def _describe_character(char: str) -> str:
    if char.isascii() and char.isprintable():
        return f"character {char!r} is not allowed: {_HINTS.get(char, _ALLOWED)}"
    name = unicodedata.name(char, "control character")
    if unicodedata.category(char)[0] in "LN":
        hint = "retype it as a plain ASCII letter or digit"
    elif char.isprintable() and not char.isspace():
        hint = _ALLOWED
    else:
        hint = "delete this invisible character"
    return f"character U+{ord(char):04X} ({name}) is not allowed: {hint}"


# --- tokens --------------------------------------------------------------------------------

#: A token: (kind, lexeme, column); kind is number, name, op, ``(``, ``)``, ``,`` or ``=``.
_Token = tuple[str, str, int]


class _Statement(NamedTuple):
    """The tokens of one non-blank statement, and the index of its '=' if it has one."""

    tokens: list[_Token]
    equals: int | None


_LEXEME = re.compile(
    r"[ \t]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[A-Za-z_][A-Za-z0-9_]*"
    r"|\*\*|//|==|\r?\n|."
)
_KINDS = {  # a lexeme's kind, by its first character
    **dict.fromkeys("0123456789.", "number"),
    **dict.fromkeys(string.ascii_letters + "_", "name"),
    **dict.fromkeys(" \t", "space"),
    **dict.fromkeys("+-*/^@", "op"),
    **dict.fromkeys(";\r\n", "end"),
    **{symbol: symbol for symbol in "(),=[]"},
}
_OPERATORS = {token: op.name for token, op in OPERATORS.items()}
_REFUSED = {
    "//": "'//' (floor division) is not supported: write floor(x/y)",
    "==": "'==' compares, and there are no comparisons: use '=' to assign a name",
    ".": "'.' can only appear inside a number such as 0.5",
}
_ATTRIBUTE_CALL = re.compile(r"\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(")  # .sin( of math.sin(x)
_BEFORE_OPERAND = frozenset({"op", "(", ",", "=", "end"})  # a sign after these is unary
_UNICODE_LEXEMES = {
    symbol: _LEXEME.findall(ascii_text) for symbol, ascii_text in UNICODE_SYMBOLS.items()
}


class _Lexer:
    """Splits text into statements of tokens in one pass, checking as it goes: numbers, names,
    where '=' stands, and the nesting depth -- the open parentheses plus, within each, the
    unary signs and powers still pending (each nests until the next ``+ - * / , =`` of its
    level), so that ``((((...`` or ``----...`` fails at its 201st level, before any parsing."""

    def __init__(self, text: str):
        self.text = text
        self.statements: list[_Statement] = []
        self.tokens: list[_Token] = []
        self.equals: int | None = None
        self.levels = [0]  # pending signs and powers, per open parenthesis
        self.depth = 0

    def run(self) -> list[_Statement]:
        column, previous = 0, "end"
        for lexeme in _LEXEME.findall(self.text):
            if lexeme in UNICODE_SYMBOLS:  # read as its ASCII, at the column of the symbol
                if lexeme in "²³" and previous == "superscript":
                    raise InputError(
                        "two superscripts in a row: write the power with ^, as in x^23",
                        self.text,
                        column,
                    )
                for ascii_lexeme in _UNICODE_LEXEMES[lexeme]:
                    previous = self._take(_KINDS[ascii_lexeme[0]], ascii_lexeme, column, previous)
                previous = "superscript" if lexeme in "²³" else previous
                column += 1
                continue
            previous = self._take(_KINDS[lexeme[0]], lexeme, column, previous)
            column += len(lexeme)
        self._end_statement()
        return self.statements

    def _take(self, kind: str, lexeme: str, column: int, previous: str) -> str:
        """Check and keep one lexeme; return the kind that the next one follows."""
        called = _ATTRIBUTE_CALL.match(self.text, column)
        if lexeme == "." and previous == "name" and called and called[1] in FUNCTION_NAMES:
            module = self.tokens[-1][1]  # math.sin(x), np.exp(x): Python habits
            raise InputError(
                f"drop `{module}.`: functions are written without a module, e.g. sin(x)",
                self.text,
                self.tokens[-1][2],
            )
        if lexeme in _REFUSED:
            raise InputError(_REFUSED[lexeme], self.text, column)
        if kind == "name":
            _check_name(self.text, lexeme, column)
        elif kind == "number":
            _check_number(self.text, lexeme, column)
        elif kind == "op":
            unary = previous in _BEFORE_OPERAND and lexeme in ("+", "-")
            if unary or lexeme in ("**", "^"):
                self._nest(column)
            else:
                self._unnest()
        elif kind in ("(", ")", ",", "="):
            self._structure(kind, column)
        elif kind == "end":
            self._end_statement()
        if kind not in ("space", "end"):
            self.tokens.append((kind, lexeme, column))
        return previous if kind == "space" else kind

    def _structure(self, kind: str, column: int) -> None:
        if kind == "(":
            self.levels.append(0)
            self._deeper(column)
        elif kind == ")":
            if len(self.levels) > 1:
                self.depth -= 1 + self.levels.pop()
        else:
            if kind == "=":
                self._equals(column)
            self._unnest()

    def _nest(self, column: int) -> None:
        """A unary sign or power: one more level until its operand ends."""
        self.levels[-1] += 1
        self._deeper(column)

    def _deeper(self, column: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise InputError(
                f"expression nested too deeply (limit {MAX_DEPTH}, fixed): "
                "simplify it or split it into assignments (a = ...; b = f(a))",
                self.text,
                column,
            )

    def _unnest(self) -> None:
        """A binary ``+ - * /``, ``,`` or ``=``: the pending signs and powers end here."""
        self.depth -= self.levels[-1]
        self.levels[-1] = 0

    def _equals(self, column: int) -> None:
        if len(self.levels) > 1:
            return  # a keyword argument, sum(X, axis=0): the parser checks it
        if self.equals is not None:
            raise InputError(
                "only one '=' per statement: split a = b = c into b = c; a = b", self.text, column
            )
        self.equals = len(self.tokens)

    def _end_statement(self) -> None:
        if self.tokens:
            self.statements.append(_Statement(self.tokens, self.equals))
        self.tokens, self.equals = [], None
        self.levels, self.depth = [0], 0


def _check_number(text: str, lexeme: str, column: int) -> None:
    """Refuse literals with too many integer digits, above MAX_CONSTANT, or rounding to 0."""
    mantissa = lexeme.lower().partition("e")[0]
    if len(mantissa.partition(".")[0]) > MAX_INTEGER_DIGITS:
        raise InputError(
            f"number out of range: at most {MAX_INTEGER_DIGITS} digits before the decimal point "
            "(a fixed limit): use an exponent, 1.5e40",
            text,
            column,
        )
    value = float(lexeme)
    if not value <= MAX_CONSTANT or (value == 0 and mantissa.strip("0.")):
        raise InputError(
            f"number out of range: {_shorten(lexeme)} "
            f"(use magnitudes up to {_MAX_CONSTANT_TEXT} that do not round to 0; a fixed limit)",
            text,
            column,
        )


def _check_name(text: str, name: str, column: int) -> None:
    if name.startswith("_"):
        message = f"names must start with a letter: {_shorten(name)!r}"
    elif "__" in name:
        message = f"names may not contain '__': {_shorten(name)!r}"
    elif len(name) > MAX_NAME_LENGTH:
        message = f"name too long: {_shorten(name)!r} (limit {MAX_NAME_LENGTH} characters, fixed)"
    elif name in _PYTHON_OPERATOR_WORDS:
        message = (
            f"{name!r} is a Python keyword, not an operator here: "
            "use + - * / ^ and functions, and rename such variables"
        )
    else:
        return
    raise InputError(message, text, column)


def _checked_variables(variables: Iterable[str]) -> frozenset[str]:
    names = tuple(variables)
    for name in names:
        valid = re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) and "__" not in name
        if not valid or len(name) > MAX_NAME_LENGTH or name in _PYTHON_OPERATOR_WORDS:
            raise InputError(
                f"invalid variable name {_shorten(name)!r}: use a letter, then letters, digits or _"
            )
        if name in FUNCTION_NAMES:
            raise InputError(f"{name!r} is a function and cannot be a variable: rename it")
    return frozenset(names)


# --- the parser ----------------------------------------------------------------------------


class _Parser:
    """Parses statement after statement; knows which names are variables and which of them
    hold constants, and folds constant subtrees as they are built (see :meth:`fold`)."""

    def __init__(self, text: str, variables: frozenset[str]):
        self.text = text
        self.known = set(variables)  # names that are variables: given ones and assigned ones
        self.constants: dict[str, float] = {}  # assigned names whose value is a constant
        self.violation: InputError | None = None  # the first constant out of bounds

    def error(self, message: str, column: int) -> InputError:
        return InputError(message, self.text, column)

    def program(self) -> Program:
        statements = _Lexer(self.text).run()
        if not statements:
            raise self.error("empty program: write an expression such as x^2 + y", 0)
        parsed: list[Statement] = []
        for index, statement in enumerate(statements):
            parsed += self._statement(statement, last=index == len(statements) - 1)
        if self.violation is not None:  # bounds are reported only once the syntax is sound
            raise self.violation
        return Program(self.text, tuple(parsed))

    def _statement(self, statement: _Statement, last: bool) -> list[Statement]:
        tokens, equals = statement
        if equals is None:
            outputs = _ExpressionParser(self, tokens, 0).parse()
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
        outputs = _ExpressionParser(self, tokens, equals + 1).parse()
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

    def _target(self, tokens: list[_Token], equals: int) -> tuple[str, int]:
        if equals == 0:
            raise self.error("'=' needs a variable name before it", tokens[0][2])
        kind, name, column = tokens[0]
        if equals != 1 or kind != "name":
            raise self.error(
                "only a single name can be assigned: write name = expression (an equation "
                "such as x^2 + y^2 = 25 is for gradcalc diff --implicit y)",
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
        """Refuse an unknown name called like a function when it looks like a misspelled one."""
        if name in self.known:
            return
        guess = _closest_function(name)
        if guess is not None:
            raise self.error(
                f"unknown function {name!r} — did you mean {guess!r}? "
                f"(to multiply, write {name}*(...))",
                column,
            )

    def fold(
        self, node: Call | Binary, op_name: str, args: tuple[float | None, ...]
    ) -> float | None:
        """The value of a new node from its operands' values (None: not a constant).

        Records (for :meth:`program` to raise) the first power with a constant exponent
        above MAX_EXPONENT, and the first constant above MAX_CONSTANT in magnitude -- unless
        the op is undefined there (``1/0``): that is NaN, for the evaluator to report.
        """
        if self.violation is not None:
            return None
        if op_name == "pow" and args[1] is not None and abs(args[1]) > MAX_EXPONENT:
            self.violation = self.error(
                f"exponent too large: {_preview(node)} (limit {MAX_EXPONENT} in magnitude, fixed)",
                node.column,
            )
            return None
        op = REGISTRY[op_name]
        if None in args or not op.elementwise:  # a tensor op needs tensors: not folded
            return None
        inputs = [np.float64(arg) for arg in args]
        arithmetic = _ARITHMETIC.get(op_name)  # the same IEEE doubles as numpy's, much faster
        value = arithmetic(*args) if arithmetic else float(op.forward(*inputs))
        if abs(value) > MAX_CONSTANT:  # infinities included; NaN is not
            if any(issue.kind == UNDEFINED for issue in op.issues(*inputs)):
                return math.nan
            self.violation = self.error(
                f"constant too large: {_preview(node)} "
                f"(limit {_MAX_CONSTANT_TEXT} in magnitude, fixed)",
                node.column,
            )
            return None
        return value


_ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}
_SPELLINGS = {name.lower(): name for name in FUNCTION_NAMES}
_SPELLING_LIST = list(_SPELLINGS)
_SIMILARITY = 0.75  # difflib's ratio: 2 * matching characters / total length


def _letter_counts(word: str) -> np.ndarray:
    return np.bincount(np.frombuffer(word.encode("ascii"), np.uint8), minlength=128)


_SPELLING_COUNTS = np.array([_letter_counts(spelling) for spelling in _SPELLING_LIST])
_SPELLING_LENGTHS = np.array([len(spelling) for spelling in _SPELLING_LIST])


@lru_cache(maxsize=4096)
def _closest_function(name: str) -> str | None:
    """The function name ``name`` most resembles (ignoring case), if any resembles it closely.

    difflib is slow on thousands of distinct names, so the spellings are first narrowed, all
    at once, to those passing difflib's own upper bound on the ratio (``quick_ratio``).
    """
    word = name.lower()
    shared = np.minimum(_SPELLING_COUNTS, _letter_counts(word)).sum(axis=1)
    bound = 2.0 * shared / (len(word) + _SPELLING_LENGTHS)
    candidates = [s for s, ok in zip(_SPELLING_LIST, bound >= _SIMILARITY) if ok]
    matches = difflib.get_close_matches(word, candidates, n=1, cutoff=_SIMILARITY)
    if not matches and len(word) >= 3:  # short names: sni, exq, cso are one slip from a name
        slips = [s for s in _SPELLING_LIST if len(s) >= 3 and _one_slip(word, s)]
        matches = sorted(slips, key=lambda s: -difflib.SequenceMatcher(None, word, s).ratio())
    return _SPELLINGS[matches[0]] if matches else None


def _one_slip(typed: str, word: str) -> bool:
    """Whether one typo -- a wrong, missing or extra letter, or two neighbours swapped --
    turns ``word`` into ``typed``.

    >>> [_one_slip(t, "sin") for t in ("sni", "sun", "sinn", "si", "nis")]
    [True, True, True, True, False]
    """
    if abs(len(typed) - len(word)) > 1 or typed == word:
        return False
    start = next((i for i, (a, b) in enumerate(zip(typed, word)) if a != b), None)
    if start is None:  # one is the other plus a letter at the end
        return True
    if len(typed) == len(word):
        rest_equal = typed[start + 1 :] == word[start + 1 :]
        swapped = typed[start : start + 2] == word[start : start + 2][::-1]
        return rest_equal or (swapped and typed[start + 2 :] == word[start + 2 :])
    longer, shorter = (typed, word) if len(typed) > len(word) else (word, typed)
    return longer[start + 1 :] == shorter[start:]


@dataclass(slots=True)
class _Open:
    """An open parenthesis on the operator stack; for a call, ``function`` is set."""

    column: int
    function: str | None = None
    function_column: int = 0
    arguments: int = 1
    keywords: dict[str, int] = field(default_factory=dict)


_NEG = _PRECEDENCE["neg"]


class _ExpressionParser:
    """Shunting-yard over ``tokens[start:]``: one or more top-level comma-separated
    expressions. Operands go to ``output`` (with their constant values in ``values``),
    pending operators and open parentheses to ``stack``."""

    def __init__(self, parser: _Parser, tokens: list[_Token], start: int):
        self.parser = parser
        self.tokens = tokens
        self.start = start
        self.output: list[Node] = []
        self.values: list[float | None] = []
        self.stack: list[tuple[str, int, int] | _Open] = []  # (op, precedence, column) or _Open
        self.outputs: list[tuple[Node, float | None, int]] = []  # (tree, value, first token)
        self.first = start

    def parse(self) -> list[tuple[Node, float | None, int]]:
        tokens, output, values, stack = self.tokens, self.output, self.values, self.stack
        index, expect_operand = self.start, True
        while index < len(tokens):
            kind, text, column = tokens[index]
            if kind in ("[", "]", "="):
                index = self._bracket_or_keyword(index, expect_operand)
                expect_operand = False
                continue
            if expect_operand:
                if kind == "name" and index + 1 < len(tokens) and tokens[index + 1][0] == "=":
                    index = self._keyword(index)
                    expect_operand = False
                    continue
                if kind == "name":
                    opened_call = self._name(index)
                    index += 2 if opened_call else 1
                    expect_operand = opened_call
                    continue
                if kind == "number":
                    value = float(text)
                    output.append(Num(value, text, column))
                    values.append(value)
                    expect_operand = False
                elif kind == "(":
                    stack.append(_Open(column))
                elif text == "-":
                    stack.append(("neg", _NEG, column))
                elif text != "+":  # unary plus is dropped
                    raise self._unexpected(index)
            elif kind == "op":
                self._push_binary(_OPERATORS[text], column)
                expect_operand = True
            elif kind == ")":
                self._close(column)
            elif kind == ",":
                self._comma(index)
                expect_operand = True
            elif kind == "number":
                raise self.parser.error(
                    f"missing operator before {_shorten(text)!r}: "
                    "put * (or another operator) in front of it",
                    column,
                )
            else:  # a name or '(' right after an operand: implicit multiplication
                self._push_binary("mul", column)
                expect_operand = True
                continue  # and read the same token again, as an operand
            index += 1
        if expect_operand:
            raise self._incomplete()
        self._finish_output()
        return self.outputs

    def _name(self, index: int) -> bool:
        """Push a name's operand, or open its call; return whether it opened a call."""
        _, name, column = self.tokens[index]
        following = self.tokens[index + 1] if index + 1 < len(self.tokens) else None
        calls = following is not None and following[0] == "("
        if self.parser.is_variable(name):
            if calls:
                self.parser.check_spelling(name, column)
            self.output.append(Name(name, column))
            self.values.append(self.parser.constants.get(name))
            return False
        if name in CONSTANTS:
            const = CONSTANTS[name]
            self.output.append(Const(const, column))
            self.values.append(CONSTANT_VALUES[const])
            return False
        if following is None or not calls:
            raise self._uncalled(name, column, index)
        self.stack.append(_Open(following[2], name, column))
        return True

    def _bracket_or_keyword(self, index: int, expect_operand: bool) -> int:
        """Index the operand just read (``v[0]``), or refuse a stray ``[``, ``]`` or ``=``;
        return the index of the token after the brackets."""
        kind, _, column = self.tokens[index]
        if kind == "[" and not expect_operand:
            return self._index(index)
        if kind == "[":
            message = (
                "'[' indexes a vector or matrix, as in v[0]: put it after one "
                "(tensor values are given with --at, not in the expression)"
            )
        elif kind == "]":
            message = "unmatched ']': an index is written v[0]"
        else:
            message = "'=' inside parentheses: only a keyword such as axis=0 may take one"
        raise self.parser.error(message, column)

    def _index(self, index: int) -> int:
        """``operand[i, j, ...]`` with whole numbers: the op ``index`` on the last operand."""
        column, values = self.tokens[index][2], []
        index += 1
        while True:
            value, index = self._integer(index, "an index is whole numbers, as in v[0] or X[1, -1]")
            values.append(value)
            kind = self.tokens[index][0] if index < len(self.tokens) else None
            if kind == "]":
                break
            if kind != ",":
                raise self.parser.error(
                    "an index is whole numbers in brackets, as in v[0] or X[1, -1]: add ']'",
                    self.tokens[min(index, len(self.tokens) - 1)][2],
                )
            index += 1
        self.values[-1] = None
        self.output[-1] = Call("index", (self.output[-1],), column, (("index", tuple(values)),))
        return index + 1

    def _keyword(self, index: int) -> int:
        """``axis=0`` inside a call (after its positional arguments); returns the index of the
        ``,`` or ``)`` that follows it."""
        tokens, (_, name, column) = self.tokens, self.tokens[index]
        opened = self.stack[-1] if self.stack else None
        if not isinstance(opened, _Open) or opened.function is None:
            raise self.parser.error(
                "'=' inside parentheses: only a keyword such as axis=0 may take one",
                tokens[index + 1][2],
            )
        op = FUNCTION_NAMES[opened.function]
        allowed = REGISTRY[op.reduction].keywords if op.reduction else op.keywords
        if name not in allowed:
            takes = f"; it takes {', '.join(k + '=' for k in allowed)}" if allowed else ""
            raise self.parser.error(f"{opened.function}() has no keyword {name!r}{takes}", column)
        if name in opened.keywords:
            raise self.parser.error(f"{name}= is given twice", column)
        value, end = self._integer(index + 2, f"{name}= takes a whole number, as in {name}=0")
        opened.keywords[name] = value
        following = tokens[end : end + 3]
        if not following:
            raise self.parser.error("'(' is never closed: add ')'", opened.column)
        if following[0][0] == ",":
            if [t[0] for t in following[1:]] != ["name", "="]:
                raise self.parser.error(
                    f"keywords come after the other arguments: {opened.function}(x, {name}=...)",
                    following[0][2],
                )
        elif following[0][0] != ")":
            raise self.parser.error(f"{name}= takes a whole number, as in {name}=0", column)
        return end

    def _integer(self, index: int, message: str) -> tuple[int, int]:
        """A whole number, optionally signed, at ``tokens[index]``; and the index after it."""
        tokens = self.tokens
        sign = 1
        if index < len(tokens) and tokens[index][1] in ("-", "+"):
            sign = -1 if tokens[index][1] == "-" else 1
            index += 1
        if index >= len(tokens) or not tokens[index][1].isdigit():
            column = tokens[min(index, len(tokens) - 1)][2]
            raise self.parser.error(message, column)
        return sign * int(tokens[index][1]), index + 1

    def _push_binary(self, op: str, column: int) -> None:
        """Apply the pending operators that bind at least as tightly, then push ``op``."""
        precedence = _PRECEDENCE[op]
        stack = self.stack
        while stack and not isinstance(stack[-1], _Open):
            top = stack[-1][1]
            if top < precedence or (top == precedence and REGISTRY[op].right_associative):
                break
            self._reduce()
        stack.append((op, precedence, column))

    def _reduce(self) -> None:
        pending = self.stack.pop()
        assert not isinstance(pending, _Open)  # callers stop at an open parenthesis
        op, _, column = pending
        operand, value = self.output.pop(), self.values.pop()
        if op == "neg":
            self.output.append(Neg(operand, column))
            self.values.append(None if value is None else -value)
        else:
            node = Binary(op, self.output[-1], operand, column)
            self.output[-1] = node
            self.values[-1] = self.parser.fold(node, op, (self.values[-1], value))

    def _reduce_to_open(self) -> _Open | None:
        """Apply pending operators down to the innermost open parenthesis (returned, kept)."""
        while self.stack and not isinstance(self.stack[-1], _Open):
            self._reduce()
        top = self.stack[-1] if self.stack else None
        return top if isinstance(top, _Open) else None

    def _close(self, column: int) -> None:
        opened = self._reduce_to_open()
        if opened is None:
            raise self.parser.error("unmatched ')': remove it or add a '(' before", column)
        self.stack.pop()
        if opened.function is not None:
            count = opened.arguments - len(opened.keywords)
            if count == 0:
                raise self.parser.error(
                    f"{opened.function}() needs an argument: write {opened.function}(x)",
                    opened.function_column,
                )
            args, arg_values = tuple(self.output[-count:]), tuple(self.values[-count:])
            del self.output[-count:], self.values[-count:]
            node, value = self._call(opened, args, arg_values)
            self.output.append(node)
            self.values.append(value)

    def _comma(self, index: int) -> None:
        opened = self._reduce_to_open()
        if opened is None:
            self.outputs.append((self.output.pop(), self.values.pop(), self.first))
            self.first = index + 1
        elif opened.function is None:
            raise self.parser.error(
                "',' inside parentheses: commas separate function arguments or final outputs",
                self.tokens[index][2],
            )
        else:
            opened.arguments += 1

    def _finish_output(self) -> None:
        opened = self._reduce_to_open()
        if opened is not None:
            raise self.parser.error("'(' is never closed: add ')'", opened.column)
        self.outputs.append((self.output.pop(), self.values.pop(), self.first))

    def _call(
        self, opened: _Open, args: tuple[Node, ...], values: tuple[float | None, ...]
    ) -> tuple[Node, float | None]:
        name, column = opened.function, opened.function_column
        assert name is not None  # only a call's parenthesis gets here
        op = FUNCTION_NAMES[name]
        keywords = tuple(opened.keywords.items())
        reduced = op.reduction is not None and (len(args) == 1 or bool(keywords))
        if op.reduction is not None and reduced:  # max(v), max(X, axis=0): amax
            op = REGISTRY[op.reduction]
        if op.keywords:
            if len(args) == op.arity:
                return self._apply(op.name, args, values, column, keywords)
            if len(args) == op.arity + 1 and not keywords:
                raise self.parser.error(
                    f"{name}() takes the axis as a keyword: write "
                    f"{name}({_preview(args[0], 20)}, axis={_preview(args[1], 10)})",
                    column,
                )
            reduction = f" (with {', '.join(opened.keywords)}=, it is {op.name})" * reduced
            raise self.parser.error(
                f"{name}() takes {_arity(op)}{reduction} (got {len(args)})", column
            )
        if op.takes_base and len(args) == 2:  # log(x, b) is log(x) / log(b)
            log_x = self._apply(op.name, args[:1], values[:1], column)
            log_b = self._apply(op.name, args[1:], values[1:], column)
            node = Binary("div", log_x[0], log_b[0], column)
            return node, self.parser.fold(node, "div", (log_x[1], log_b[1]))
        if op.variadic and len(args) >= 2:  # folded left: max(max(a, b), c)
            result = self._apply(op.name, args[:2], values[:2], column)
            for arg, value in zip(args[2:], values[2:]):
                result = self._apply(op.name, (result[0], arg), (result[1], value), column)
            return result
        if not op.variadic and len(args) == op.arity:
            return self._apply(op.name, args, values, column)
        raise self.parser.error(f"{name}() takes {_arity(op)} (got {len(args)})", column)

    def _apply(
        self,
        op: str,
        args: tuple[Node, ...],
        values: tuple[float | None, ...],
        column: int,
        params: tuple[tuple[str, int], ...] = (),
    ) -> tuple[Node, float | None]:
        node = Call(op, args, column, params)
        return node, self.parser.fold(node, op, values)

    # errors

    def _uncalled(self, name: str, column: int, index: int) -> InputError:
        """The error for a function name not followed by ``(``: ``sin x``, ``sin^2(x)``."""
        following = self.tokens[index + 1 : index + 4]
        if following and _OPERATORS.get(following[0][1]) == "pow":
            return self.parser.error(
                f"write a power of a function as {name}(x)^2, not {name}^2(x)", following[0][2]
            )
        if following and following[0][0] in ("name", "number"):
            argument = following[0][1]
            if len(following) == 3 and _OPERATORS.get(following[1][1]) == "pow":
                power = f"{argument}^{following[2][1]}"  # sin x^2: sin(x^2) or sin(x)^2?
                return self.parser.error(
                    f"{name} {power} needs parentheses: write {name}({power}) "
                    f"or {name}({argument})^{following[2][1]}",
                    column,
                )
            return self.parser.error(f"{name!r} is a function: write {name}({argument})", column)
        return self.parser.error(f"{name!r} is a function: write {name}(x)", column)

    def _unexpected(self, index: int) -> InputError:
        """The error for an operator, ')' or ',' where an operand must start."""
        kind, text, column = self.tokens[index]
        previous = self.tokens[index - 1] if index > self.start else None
        if previous is None:
            if kind == ")":
                message = "unmatched ')': remove it or add a '(' before"
            else:
                message = f"{text!r} needs an expression before it"
        elif previous[0] == "(" and kind == ")":
            top = self.stack[-1]
            function = top.function if isinstance(top, _Open) else None
            message = (
                f"{function}() needs an argument: write {function}(x)"
                if function
                else "empty parentheses: put an expression inside"
            )
        elif previous[0] == ",":
            message = "missing expression after ','"
        elif previous[0] == "(":
            message = f"missing expression before {text!r}"
        else:
            message = f"expected a number, name or '(' after {previous[1]!r}, found {text!r}"
        return self.parser.error(message, column)

    def _incomplete(self) -> InputError:
        """The error for text ending where an operand must start."""
        kind, text, column = self.tokens[-1]
        if kind == "(":
            return self.parser.error("'(' is never closed: add ')'", column)
        if kind == ",":
            return self.parser.error("missing expression after ','", column)
        return self.parser.error(f"{text!r} needs an expression after it", column)


def _arity(op: Op) -> str:
    if op.keywords:
        keywords = ", ".join(f"{k}=" for k in op.keywords)
        return f"{op.arity} argument{'s' if op.arity > 1 else ''} and optionally {keywords}"
    if op.variadic:
        return "2 or more arguments"
    if op.takes_base:
        return f"1 argument, or 2 for a base as in {op.name}(x, b)"
    return "1 argument" if op.arity == 1 else f"{op.arity} arguments"
