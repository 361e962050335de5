"""How a text was read: its canonical "read as" form, and warnings where students mean otherwise.

The parser's reading is strict and documented (``e^2x`` is e²·x, ``1/2x`` is (1/2)·x), but a
student who meant e^(2x) must *see* that reading. The warnings are found on the syntax tree,
using the columns the parser keeps (an implicit product's column is its right operand's;
an explicit one's is its ``*``), never by matching the display text.

>>> from gradcalc.lang.parser import parse_program
>>> program = parse_program("e^2x")
>>> read_as(program)
'e^2·x'
>>> print(ambiguities(program)[0])
e^2x is read as e^2·x; if you mean e^(2·x), write e^(2x)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import TypeGuard

from gradcalc.core.errors import InputError
from gradcalc.lang.lexer import SUPERSCRIPTS
from gradcalc.lang.literals import (
    CONSTANTS,
    CUT_EXPONENT,
    DECIMAL,
    is_tensor_text,
    nested_literal,
)
from gradcalc.lang.parser import parse_program
from gradcalc.lang.quotients import inner_products, quotient_warning
from gradcalc.lang.slips import function_like, name_warnings
from gradcalc.lang.syntax import (
    Binary,
    Const,
    Name,
    Neg,
    Node,
    Num,
    Program,
    is_binary,
    postorder,
)
from gradcalc.lang.unparsing import unparse
from gradcalc.lang.wording import end, implicit, last_factor, misreading, shortened, start, typed

__all__ = ["ambiguities", "equation_read_as", "read_as", "reading", "value_warnings"]


def read_as(program: Program) -> str:
    """The whole program in the reading notation: ``^``, ``·``, ``e``, grouping made plain.

    >>> from gradcalc.lang.parser import parse_program
    >>> read_as(parse_program("y = x^1/2; 1/2y, -x^2"))
    'y = (x^1)/2; (1/2)·y, -(x^2)'
    >>> read_as(parse_program("F(r, t) = r*cos(t), r*sin(t)"))  # (a head names its outputs)
    'F = r·cos(t), r·sin(t)'
    """
    text = f"{program.name} = " if program.name and program.statements[0].target is None else ""
    after_output = False
    for statement in program.statements:
        expr = unparse(statement.expr, reading=True)
        if statement.target is not None:
            expr = f"{statement.target} = {expr}"
        if after_output:
            text += ", "
        elif statement is not program.statements[0]:
            text += "; "
        text += expr
        after_output = statement.target is None
    return text


def equation_read_as(program: Program) -> str:
    """An equation (from :func:`~gradcalc.lang.parser.parse_equation`) as ``left = right``.

    >>> from gradcalc.lang.parser import parse_equation
    >>> equation_read_as(parse_equation("x^2 + y^2 = 5^2"))
    'x^2 + y^2 = 5^2'
    """
    difference = program.statements[0].expr
    assert isinstance(difference, Binary)  # left - right
    return f"{unparse(difference.left, reading=True)} = {unparse(difference.right, reading=True)}"


def reading(text: str, variables: Iterable[str] = ()) -> tuple[str, list[str]]:
    """How ``text`` is read, and its ambiguity warnings (for texts that are not compiled,
    such as ``check``'s answers); ``variables`` are names the user chose (given values, or
    named by ``--wrt``): no name warning for them.

    >>> reading("2e^2x")
    ('2·e^2·x', ['e^2x is read as e^2·x; if you mean e^(2·x), write e^(2x)'])
    """
    program = parse_program(text, variables)
    return read_as(program), ambiguities(program, variables)


def value_warnings(values: Iterable[str]) -> list[str]:
    """The warnings of value texts (a point's coordinates, ``--expect``'s numbers, a bracket
    literal's elements), each read as an expression is: ``1/2pi`` is (1/2)·pi in a value too;
    and a number whose exponent is cut off (``2.5e``: :func:`_cut_exponent`). A text that does
    not parse is left to the reader of the value, which refuses it.

    >>> value_warnings(["1/2pi", "3", "[1, 1/2e]", "x=", "pi/4"])  # doctest: +NORMALIZE_WHITESPACE
    ['1/2pi is read as (1/2)·pi; if you mean 1/(2·pi), write 1/(2pi)',
     '1/2e is read as (1/2)·e; if you mean 1/(2·e), write 1/(2e)']
    """
    found: dict[str, None] = {}
    for text in values:
        if DECIMAL.fullmatch(text.strip()):
            continue  # (most values: a plain number)
        try:
            texts = nested_literal(text)[1] if is_tensor_text(text) else [text]
        except ValueError:
            continue
        for element in texts:
            if DECIMAL.fullmatch(element.strip()):
                continue  # (a number alone: 2e-1 is scientific notation there)
            if CUT_EXPONENT.fullmatch(element.strip()):
                found[_cut_exponent(element.strip())] = None
                continue
            try:
                found.update(dict.fromkeys(ambiguities(parse_program(element))))
            except InputError:
                continue
    return list(found)


def _cut_exponent(number: str) -> str:
    """The warning for a value that is a number with its exponent cut off (``2.5e``, ``3E``,
    ``1e5e``: :data:`~gradcalc.lang.literals.CUT_EXPONENT`): read as a multiple of Euler's e,
    where scientific notation may be meant.

    >>> print(_cut_exponent("2.5e"))  # doctest: +NORMALIZE_WHITESPACE
    2.5e is read as 2.5·e (Euler's number); if you mean scientific notation, write the
    exponent, as in 2.5e3; for the product, write 2.5*e
    """
    mantissa, letter = number[:-1], number[-1]
    example = mantissa if "e" in mantissa.lower() else f"{mantissa}{letter}3"
    return (
        f"{number} is read as {mantissa}·{letter} (Euler's number); if you mean scientific "
        f"notation, write the exponent, as in {example}; for the product, write "
        f"{mantissa}*{letter}"
    )


def ambiguities(program: Program, given: Iterable[str] = ()) -> list[str]:
    """One warning per place where the strict reading is likely not what was meant.

    The patterns: a power's exponent followed directly by an implicit product (``e^2x``,
    ``e^-2x``; not ``e^2 x`` or ``x²y``); an implicit product after a quotient (``1/2x``,
    ``x/2y``, ``1/(x+1)(x-1)``: :func:`~gradcalc.lang.quotients.quotient_warning`); a
    number-over-number exponent split by ``/`` (``x^1/2``; not a whole power like ``x^4/2``,
    nor ``(x^3)/2``); a power to a variable named ``T`` that no statement assigns (``W^T``: a
    transpose in textbook notation); a power of a power written without parentheses
    (``e^x^2``: :func:`_power_chain`); and a free variable whose name is likely a slip
    (``xy``, ``sinx``, ``pir``: :func:`~gradcalc.lang.slips.name_warnings`), unless it is
    one of the ``given`` names -- but a constant's spelling given a value is (``e``).

    >>> from gradcalc.lang.parser import parse_program
    >>> for warning in ambiguities(parse_program("x^1/2 + x/2y")):
    ...     print(warning)
    x^1/2 is read as (x^1)/2; if you mean x^(1/2), write x^(1/2)
    x/2y is read as (x/2)·y; if you mean x/(2·y), write x/(2y)
    >>> ambiguities(parse_program("x^2/2 + e^(2x) + 1/(2x) + e^2 x + x²y"))
    []
    """
    found: list[str] = []
    targets = {statement.target for statement in program.statements}
    transposes = "T" not in targets
    assigned = {target for target in targets if target is not None}  # (k = 3; k(x): k·x)
    text = program.text
    for statement in program.statements:
        inner = inner_products(statement.expr, text)
        for node in postorder(statement.expr):
            if isinstance(node, Num) and _SCIENTIFIC.fullmatch(node.text):
                found.append(_scientific_warning(node, text))
            if not isinstance(node, Binary):  # (a leaf, call or sign: none of the patterns)
                continue
            if node.op in ("mul", "div"):
                quotient = quotient_warning(node, text, inner)  # 1/2x, 1/(x+1)(x-1)
                other = _ambiguity(node, text)  # e^2x, x^1/2 (1/x^2y: both)
                if quotient is None and other is None:
                    other = _applied(node, text, assigned)  # y(x)
                found += [w for w in (quotient, other) if w is not None]
            elif transposes and _power_of_t(node):
                found.append(_transpose_warning(node, text))
            elif (exponent := _power_chain(node, text)) is not None:
                meant = Binary("pow", Binary("pow", node.left, exponent.left, 0), exponent.right, 0)
                found.append(misreading(node, meant, None, text))
    return found + _own_name(program, found) + name_warnings(program.free_variables, given)


# --- function notation, the function's own name, scientific notation -----------------------

#: A number in scientific notation with a signed exponent, whose mantissa a student may mean
#: as a coefficient of e: ``3e-2`` (3e - 2?). Not ``1e-8`` (no one writes 1e for e), nor a
#: decimal mantissa (``1.5e-3``): those are scientific notation for sure.
_SCIENTIFIC = re.compile(r"([2-9]|[1-9][0-9]+)([eE])([+-])([0-9]+)")


def _scientific_warning(number: Num, text: str) -> str:
    """``3e-2`` is 0.03, where a student may mean 3e - 2 (and ``3e-2x``, 3e - 2x).

    >>> from gradcalc.lang.parser import parse_program
    >>> ambiguities(parse_program("3e-2x + x^2 + 1e-8 + 2.5e-3 + 2e5"))
    ['3e-2x is read as 0.03·x (scientific notation); if you mean 3e - 2x, write 3*e - 2x']
    """
    match = _SCIENTIFIC.fullmatch(number.text)
    assert match is not None
    mantissa, letter, sign, exponent = match.groups()
    end = number.column + len(number.text)
    name = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?![A-Za-z0-9_(])").match(text, end)
    after = name[0] if name else ""
    value = format(Decimal(number.text), "f")
    if "." in value:
        value = value.rstrip("0").rstrip(".")
    if len(value) > 12:
        value = f"{mantissa}·10^{'-' if sign == '-' else ''}{int(exponent)}"
    read = value + (f"·{after}" if after else "")
    meant = f"{mantissa}{letter} {sign} {exponent}{after}"
    return (
        f"{number.text}{after} is read as {read} (scientific notation); if you mean {meant}, "
        f"write {mantissa}*{letter} {sign} {exponent}{after}"
    )


#: ``y(x)``: a name, its parenthesis at once, and inside it one name alone.
_APPLIED = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9_]*)\s*\)")


def _applied(node: Binary, text: str, assigned: set[str]) -> str | None:
    """The warning for a one-letter or Greek name applied to one variable, ``y(x)``: a
    product here, and function notation in a textbook (:func:`~gradcalc.lang.slips.function_like`);
    not a group (``x(x+1)``, ``k(x^2)``), nor an assigned name (``k = 3; k(x)``). A value
    given for the name does not quiet it: it makes ``y`` a variable, not ``y(x)`` a product.

    >>> from gradcalc.lang.parser import parse_program
    >>> print(ambiguities(parse_program("sigma(z)"))[0])  # doctest: +NORMALIZE_WHITESPACE
    sigma(z) is read as sigma·z, a product; gradcalc has no unknown functions: write
    sigma*z for the product, sigmoid(z) for the sigmoid
    >>> ambiguities(parse_program("x(x+1) + a(b+c) + k(x^2) + 2x(1-x) + y (x)"))
    []
    """
    left = last_factor(node.left)
    if node.op != "mul" or not isinstance(left, Name) or not implicit(node, text):
        return None
    name = left.name
    inner = _APPLIED.match(text, node.column)
    if (
        inner is None
        or node.column != left.column + len(name)
        or not function_like(name)
        or name in assigned
        or inner[1] in CONSTANTS
    ):
        return None
    argument = inner[1]
    quoted = shortened(typed(left, node.right, text))
    read = shortened(unparse(Binary("mul", left, node.right, 0), reading=True))
    if name == "sigma":
        other = f", sigmoid({argument}) for the sigmoid"
    elif name == "f":
        other = (
            f"; to name the function, write f({argument}) = ..., as in f({argument}) = {argument}^2"
        )
    else:
        other = f"; for d{name}/d{argument} of an equation use diff --implicit {name}"
    return (
        f"{quoted} is read as {read}, a product; gradcalc has no unknown functions: "
        f"write {name}*{argument} for the product{other}"
    )


def _own_name(program: Program, found: list[str]) -> list[str]:
    """The warning for a variable ``f``, the name the answer gives the function (∂f/∂f),
    unless a head or an assignment names the function, or ``f(x)`` was warned about.

    >>> from gradcalc.lang.parser import parse_program
    >>> _own_name(parse_program("f*x"), [])  # doctest: +NORMALIZE_WHITESPACE
    ['f is a variable here, and f is also the name of the function: its derivatives read
      ∂f/∂f; rename the variable, or name the function and its variables: g(f, x) = ...']
    >>> _own_name(parse_program("g(f, x) = f*x"), []), _own_name(parse_program("y = f*x"), [])
    ([], [])
    """
    free = program.free_variables
    last = program.statements[-1]
    equation = program.text[last.expr.column : last.expr.column + 1] == "="
    if "f" not in free or program.name or last.target is not None or equation:
        return []
    if any(warning.startswith("f(") for warning in found):
        return []
    head = f"g({', '.join(free)})"
    return [
        "f is a variable here, and f is also the name of the function: its derivatives read "
        f"∂f/∂f; rename the variable, or name the function and its variables: {head} = ..."
    ]


#: How a power is written when its grouping is plain: ``**`` (Python's rule), a superscript.
_PLAIN_POWER = "*" + SUPERSCRIPTS


def _power_chain(node: Binary, text: str) -> Binary | None:
    """The exponent of ``node`` if it is a power of a power written without parentheses
    around it (``e^x^2``, ``e^(x)^2``): powers group to the right, e^(x^2), where a student
    may mean (e^x)^2. Not ``e^(x^2)``, a superscript on a name (``e^x²``) or Python's
    ``x**y**z``; but a superscript on a number is (``x^3²`` is x^9: (x^3)^2 is likely meant).

    >>> from gradcalc.lang.parser import parse_program
    >>> ambiguities(parse_program("e^x^2"))
    ['e^x^2 is read as e^(x^2); if you mean (e^x)^2, write (e^x)^2']
    >>> ambiguities(parse_program("x^3²"))
    ['x^3² is read as x^(3^2); if you mean (x^3)^2, write (x^3)^2']
    >>> ambiguities(parse_program("e^(x^2) + e^x² + (e^x)^2 + x**y**z + x^(3²)"))
    []
    """
    inner = node.right
    if node.op != "pow" or not is_binary(inner, "pow"):
        return None
    raised_number = text[inner.column] in SUPERSCRIPTS and _differ_grouped(inner)
    plain = text[node.column] in _PLAIN_POWER or text[inner.column] in _PLAIN_POWER
    if plain and not raised_number:  # x**y**z, e^x²
        return None
    opened = text.count("(", node.column, inner.column) - text.count(")", node.column, inner.column)
    return inner if opened <= 0 else None


def _differ_grouped(power: Binary) -> bool:
    """Whether ``power`` is a number to a number whose grouping under a base matters:
    x^(b^c) is not (x^b)^c unless b^c = b·c (``x^2²`` is x^4 either way).

    >>> from gradcalc.lang.parser import parse_program
    >>> [_differ_grouped(parse_program(t).statements[0].expr) for t in ("3²", "2²", "y²")]
    [True, False, False]
    """
    base, exponent = power.left, power.right
    if not (isinstance(base, Num) and isinstance(exponent, Num)):
        return False
    return base.value**exponent.value != base.value * exponent.value


def _power_of_t(node: Node) -> TypeGuard[Binary]:
    """Whether ``node`` is a power to the variable ``T`` (``W^T``)."""
    return is_binary(node, "pow") and isinstance(node.right, Name) and node.right.name == "T"


def _transpose_warning(power: Binary, text: str) -> str:
    """``W^T`` is a power of ``W`` with the variable ``T``, not a transpose.

    >>> from gradcalc.lang.parser import parse_program
    >>> ambiguities(parse_program("X @ W^T"))
    ['W^T is read as W to the power T; for the transpose of W, write transpose(W)']
    """
    inner = shortened(unparse(power.left, reading=True))
    base = f"({inner})" if isinstance(power.left, (Binary, Neg)) else inner
    quoted = shortened(typed(power.left, power.right, text))
    return (
        f"{quoted} is read as {base} to the power T; for the transpose of {base}, "
        f"write transpose({inner})"
    )


def _ambiguity(node: Binary, text: str) -> str | None:
    """The warning for one product or quotient, if its reading is a likely misreading: an
    exponent continued by a product (``e^2x``) or a root split by ``/`` (``x^1/2``); a
    quotient continued by a product is :func:`~gradcalc.lang.quotients.quotient_warning`'s.
    It quotes only the few tokens concerned (``e^2x`` of ``3e^2x``), so it stays short."""
    if node.op == "mul" and implicit(node, text):
        power = last_factor(node.left)
        if (
            is_binary(power, "pow")
            and _number_or_name(power.right)
            and text[start(power.right)] not in SUPERSCRIPTS  # x²y is plain
            and _adjacent(node, text)  # e^2x; with a space (e^2 x) the product is plain
            and not _closed_between(power.right, node, text)  # (e^2)x is deliberate
        ):
            read = Binary("mul", power, node.right, 0)
            meant = Binary("pow", power.left, Binary("mul", power.right, node.right, 0), 0)
            return misreading(read, meant, typed(power.right, node.right, text), text)
    if node.op == "div":
        power = last_factor(node.left)
        exponent = _value(power.right) if is_binary(power, "pow") else None
        divisor = _value(node.right)
        if (
            isinstance(power, Binary)
            and exponent is not None
            and divisor  # x^2/0 is no root either
            and _root_like(exponent, divisor)
            and not text[: node.column].rstrip(" \t").endswith(")")  # (x^3)/2 is deliberate
        ):
            read = Binary("div", power, node.right, 0)
            meant = Binary("pow", power.left, Binary("div", power.right, node.right, 0), 0)
            return misreading(read, meant, None, text)
    return None


def _root_like(exponent: float, divisor: float) -> bool:
    """Whether ``x^a/b`` likely means the power x^(a/b): a fraction in lowest terms that
    is 1/n or has a small denominator (x^1/2, x^1/5, x^2/3, x^3/2) -- not x^4/2, a whole
    power, nor a coefficient such as x^2/4, x^3/6 or x^2/5.

    >>> [_root_like(a, b) for a, b in ((1, 2), (1, 5), (2, 3), (3, 2), (3, 4))]
    [True, True, True, True, True]
    >>> [_root_like(a, b) for a, b in ((4, 2), (2, 4), (3, 6), (2, 12), (2, 5), (0.5, 0))]
    [False, False, False, False, False, False]
    """
    if not divisor or (exponent / divisor) % 1 == 0:
        return False
    if exponent % 1 or divisor % 1:  # x^0.5/2: not a fraction of integers, as ever
        return True
    a, b = abs(int(exponent)), abs(int(divisor))
    return math.gcd(a, b) == 1 and (a == 1 or b <= 4)


# --- the patterns' tests on the tree (its columns: gradcalc.lang.wording) --------------------


def _number_or_name(node: Node) -> bool:
    """An exponent a student may continue by juxtaposition: ``2``, ``n``, ``e``, ``-2``."""
    if isinstance(node, Neg):
        node = node.operand
    return isinstance(node, (Num, Name, Const))


def _value(node: Node) -> float | None:
    """A literal's value (``-2`` included), else ``None``."""
    if isinstance(node, Neg) and isinstance(node.operand, Num):
        return -node.operand.value
    return node.value if isinstance(node, Num) else None


def _closed_between(operand: Node, product: Binary, text: str) -> bool:
    """Whether a ``)`` stands between ``operand`` and the right factor of an implicit
    ``product``: the grouping was written out, as in ``(e^2)x``."""
    return ")" in text[end(operand, text) : product.column]


def _adjacent(node: Binary, text: str) -> bool:
    """Whether an implicit product's operands touch (no space between them)."""
    return node.column > 0 and text[node.column - 1] not in " \t"
