"""One statement's tokens to syntax trees: an iterative shunting-yard parser with explicit
stacks (no Python recursion), Python's precedence, implicit multiplication, calls with their
arity and keywords, indexing, and a precise error for each way an expression can be broken.

It asks the :class:`~gradcalc.lang.parser.ProgramParser` it works for which names are
variables, and has it fold constant subtrees.

>>> from gradcalc.lang.parser import parse_program
>>> from gradcalc.lang.unparsing import unparse
>>> unparse(parse_program("-x^2 + log(8, 2)").statements[0].expr)
'-x**2 + log(8)/log(2)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from gradcalc.core.errors import InputError
from gradcalc.core.ops import FUNCTION_NAMES, REGISTRY, Op
from gradcalc.lang.lexer import TOKEN_OPS, Token, shorten
from gradcalc.lang.literals import CONSTANT_VALUES, CONSTANTS
from gradcalc.lang.slips import inverse_power
from gradcalc.lang.syntax import Binary, Call, Const, Name, Neg, Node, Num
from gradcalc.lang.unparsing import PRECEDENCE, preview

__all__ = ["ExpressionParser", "StatementParser"]


class StatementParser(Protocol):
    """What an expression asks of the parser it works for (a
    :class:`~gradcalc.lang.parser.ProgramParser`; named here by what it offers, so that this
    module need not import the parser that imports it)."""

    @property
    def constants(self) -> dict[str, float]: ...
    @property
    def text(self) -> str: ...
    def error(self, message: str, column: int) -> InputError: ...
    def is_variable(self, name: str) -> bool: ...
    def check_spelling(self, name: str, column: int) -> None: ...
    def fold(
        self, node: Call | Binary, op_name: str, args: tuple[float | None, ...]
    ) -> float | None: ...


@dataclass(slots=True)
class _Open:
    """An open parenthesis on the operator stack; for a call, ``function`` is set."""

    column: int
    function: str | None = None
    function_column: int = 0
    arguments: int = 1
    keywords: dict[str, int] = field(default_factory=dict)


_NEG = PRECEDENCE["neg"]


class ExpressionParser:
    """Shunting-yard over ``tokens[start:]``: one or more top-level comma-separated
    expressions. Operands go to ``output`` (with their constant values in ``values``),
    pending operators and open parentheses to ``stack``."""

    def __init__(self, parser: StatementParser, tokens: list[Token], start: int):
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
        index, expect_operand, end = self.start, True, len(tokens)
        while index < end:
            kind, text, column = tokens[index]
            if kind in ("[", "]", "="):
                index = self._bracket_or_keyword(index, expect_operand)
                expect_operand = False
                continue
            if expect_operand:
                if kind == "name" and index + 1 < end and tokens[index + 1][0] == "=":
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
                self._push_binary(TOKEN_OPS[text], column)
                expect_operand = True
            elif kind == ")":
                self._close(column)
            elif kind == ",":
                self._comma(index)
                expect_operand = True
            elif kind == "number":
                raise self.parser.error(
                    f"missing operator before {shorten(text)!r}: "
                    f"put * (or another operator) in front of it{self._times(text, column)}",
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

    def _times(self, number: str, column: int) -> str:
        """The short text with ``*`` put in, when a name or ``)`` precedes the number
        (``x 2^(x-1)``: ``x*2^(x-1)``); not after a digit (``2 3``, ``1.2.3``: a typo)."""
        whole = self.parser.text
        before = whole[:column].rstrip()
        if len(whole) > 60 or not number[0].isdigit() or not before or before[-1].isdigit():
            return ""
        if not (before[-1].isalpha() or before[-1] == ")") or any(c in whole for c in ";\n"):
            return ""
        return f", as in {before}*{whole[column:]}"

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
        precedence = PRECEDENCE[op]
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
        output, values = self.output, self.values
        operand, value = output.pop(), values.pop()
        if op == "neg":
            output.append(Neg(operand, column))
            values.append(None if value is None else -value)
        else:
            node = output[-1] = Binary(op, output[-1], operand, column)
            values[-1] = self.parser.fold(node, op, (values[-1], value))

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
                    f"{name}({preview(args[0], 20)}, axis={preview(args[1], 10)})",
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
        if following and TOKEN_OPS.get(following[0][1]) == "pow":
            if [token[1] for token in following[1:3]] == ["-", "1"]:  # cos^-1(x): arccos?
                return self.parser.error(inverse_power(name), following[0][2])
            return self.parser.error(
                f"write a power of a function as {name}(x)^2, not {name}^2(x)", following[0][2]
            )
        if following and following[0][0] in ("name", "number"):
            argument = following[0][1]
            if len(following) == 3 and TOKEN_OPS.get(following[1][1]) == "pow":
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
