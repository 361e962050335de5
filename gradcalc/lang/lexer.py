"""Text to tokens, checked as they are read: the character allowlist, the fixed limits on
length, names, numbers and nesting depth, and where each statement's ``=`` stands.

Every refusal is an :class:`~gradcalc.core.errors.InputError` with the column of the culprit.

>>> [(kind, lexeme) for kind, lexeme, _ in Lexer("a = 2x").run()[0].tokens]
[('name', 'a'), ('=', '='), ('number', '2'), ('name', 'x')]
>>> Lexer("x " + "(" * 201).run()
Traceback (most recent call last):
...
gradcalc.core.errors.InputError: expression nested too deeply (limit 200, fixed): simplify it ...
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from gradcalc.core.cells import MAX_MAGNITUDE, MAX_MAGNITUDE_TEXT, out_of_range
from gradcalc.core.errors import InputError
from gradcalc.core.ops import FUNCTION_NAMES, OPERATORS

__all__ = [
    "MAX_CONSTANT",
    "MAX_CONSTANT_TEXT",
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_INTEGER_DIGITS",
    "MAX_LENGTH",
    "MAX_NAME_LENGTH",
    "SUPERSCRIPTS",
    "TOKEN_OPS",
    "UNICODE_SYMBOLS",
    "Lexer",
    "Token",
    "TokenStatement",
    "check_characters",
    "checked_variables",
    "shorten",
    "superscript_power",
]

#: Longest accepted text, in characters.
MAX_LENGTH = 1_000_000
#: Deepest nesting of parentheses, calls, unary signs and chained powers.
MAX_DEPTH = 200
#: Longest accepted name.
MAX_NAME_LENGTH = 64
#: Most digits before a number's decimal point.
MAX_INTEGER_DIGITS = 300  # (1e300 is the largest number: an exact integer may be as long)
#: Largest magnitude of a constant exponent.
MAX_EXPONENT = 1000
#: Largest magnitude of a number or constant subexpression (the cell policy's, one limit).
MAX_CONSTANT = MAX_MAGNITUDE

MAX_CONSTANT_TEXT = MAX_MAGNITUDE_TEXT
_PYTHON_OPERATOR_WORDS = frozenset({"and", "or", "not", "if", "else", "is", "in"})


# --- characters ----------------------------------------------------------------------------

#: The few math characters students paste, each read as the ASCII it stands for (an
#: explicit allow-list: every other character outside ASCII is refused).
UNICODE_SYMBOLS = {"×": "*", "·": "*", "÷": "/", "−": "-", "π": "pi"}
#: Superscript digits, and the minus of ``x⁻¹``: a run of them is a power (``x²²`` is x^22).
SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"
_FROM_SUPERSCRIPT = str.maketrans(SUPERSCRIPTS, "0123456789-")
_DISALLOWED = re.compile(
    rf"[^A-Za-z0-9_ \t+\-*/^@().,=;\[\]\n\r{''.join(UNICODE_SYMBOLS)}"
    rf"{SUPERSCRIPTS}]|\r(?!\n)"
)
_ALLOWED = "use only ASCII letters, digits, _, spaces and + - * / ^ @ ( ) [ ] . , = ;"
#: Pasted product signs other than × and · (a LaTeX \cdot, a bullet, an asterisk operator).
_PRODUCTS = "⋅∗•∙⨯✕✖"
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


def check_characters(text: str) -> None:
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
        raise InputError(_describe_character(text, bad.start()), text, bad.start())


def _describe_character(text: str, column: int) -> str:
    char = text[column]
    if char == "|" and "|" in text[column + 1 :]:  # |x - 1| is abs(x - 1)
        inner = text[column + 1 : text.index("|", column + 1)].strip()
        return f"character '|' is not allowed: write abs({inner}) for |{inner}|"
    if char.isascii() and char.isprintable():
        return f"character {char!r} is not allowed: {_HINTS.get(char, _ALLOWED)}"
    import unicodedata  # (only for a refused character's name)

    name = unicodedata.name(char, "control character")
    plain = unicodedata.normalize("NFKC", char)
    if _superscript_like(char):
        hint = f"write the power with ^: {_superscript_rewrite(text, column)}"
    elif char in _ROOTS:
        operand = _operand_after(text, column + 1)
        simple = _OPERAND.fullmatch(operand) is not None
        root = char + (operand if simple else f"({operand})")
        power = operand if simple or char != "∜" else f"({operand})"
        hint = f"write the root as a function: {root} is {_ROOTS[char].format(power)}"
    elif char in _PRODUCTS or name == "HYPHENATION POINT":  # (a dot, though its name says not)
        hint = "it looks like a product sign: write * for a product"
    elif "DASH" in name or "HYPHEN" in name or name == "HORIZONTAL BAR":
        hint = "it looks like a minus sign but is not one: write - (the ASCII minus)"
    elif name.startswith("VULGAR FRACTION") and "\u2044" in plain:  # ½ is 1⁄2
        hint = f"write the fraction with /: {char} is ({plain.replace(chr(0x2044), '/')})"
    elif "SUBSCRIPT" in name and plain.isascii():
        hint = f"write the index as a plain {plain}, as in x{plain}"
    elif unicodedata.category(char)[0] in "LN":
        hint = "retype it as a plain ASCII letter or digit"
    elif char.isprintable() and not char.isspace():
        hint = _ALLOWED
    else:
        hint = "delete this invisible character"
    return f"character U+{ord(char):04X} ({name}) is not allowed: {hint}"


#: The root signs, each as the function (or power) to write, ``{}`` its operand as typed.
_ROOTS = {"√": "sqrt({})", "∛": "cbrt({})", "∜": "{}^(1/4)"}
#: An operand as typed: a name, a number, or a group without groups inside.
_OPERAND = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*|[0-9.]+|\([^()]*\))")


def _superscript_like(char: str) -> bool:
    """A raised character: a superscript digit, sign or letter (``ⁿ``, ``⁺``) or a modifier
    letter (``ˣ``, ``ᵗ``), each standing for an ASCII one."""
    import unicodedata

    name = unicodedata.name(char, "")
    raised = char in SUPERSCRIPTS or "SUPERSCRIPT" in name or "MODIFIER LETTER S" in name
    plain = unicodedata.normalize("NFKC", char)
    return raised and len(plain) == 1 and (plain.isascii() or plain == "−")


def _superscript_rewrite(text: str, column: int) -> str:
    """The power a run of raised characters stands for, written with ``^`` after its base
    (``e⁻ˣ``: ``e^(-x)``, ``xⁿ⁺¹``: ``x^(n+1)``).

    >>> _superscript_rewrite("2 + e⁻ˣ", 6), _superscript_rewrite("(1+t)ᵏ", 5)
    ('e⁻ˣ is e^(-x)', '(1+t)ᵏ is (1+t)^k')
    """
    import unicodedata

    start, end = column, column + 1
    while start > 0 and _superscript_like(text[start - 1]):
        start -= 1
    while end < len(text) and _superscript_like(text[end]):
        end += 1
    raised = "".join(unicodedata.normalize("NFKC", c) for c in text[start:end])
    power = raised.replace("−", "-")
    if not (power.isidentifier() or power.isdigit()):
        power = f"({power})"
    base = _operand_before(text, start)
    if not base:
        return f"{text[start:end]} is ^{power} after its base"
    return f"{base}{text[start:end]} is {base}^{power}"


def _operand_before(text: str, end: int) -> str:
    """The name, number or parenthesised group (a call's name with it) that ends at ``end``,
    as typed; "" where there is none, or it is long.

    >>> _operand_before("2sin(x+1)", 9), _operand_before("3 + x2", 6), _operand_before("+", 1)
    ('sin(x+1)', 'x2', '')
    >>> _operand_before("3(1+t)", 6), _operand_before("2x", 2), _operand_before("2.5", 3)
    ('(1+t)', 'x', '2.5')
    """
    before = text[:end].rstrip()
    start = len(before)
    if before.endswith(")"):
        depth = 0
        for start in range(len(before) - 1, -1, -1):
            depth += (before[start] == ")") - (before[start] == "(")
            if depth == 0:
                break
    while start > 0 and (before[start - 1].isalnum() or before[start - 1] in "_."):
        start -= 1
    name, group, rest = before[start:].partition("(")
    letter = re.search("[A-Za-z_]", name)
    if letter is not None:  # (2x, 2sin(x): a name starts with a letter; 2 is a factor)
        name = name[letter.start() :]
    elif group:  # (3(1+t): the group)
        name = ""
    operand = name + group + rest
    return operand if len(operand) <= 30 else ""


def _operand_after(text: str, start: int) -> str:
    """The operand that starts at ``start`` (spaces skipped), without its parentheses:
    ``x`` of ``√x + 1``, ``x + 1`` of ``√(x + 1)``; ``x`` where there is none."""
    match = _OPERAND.match(text, start)
    if match is None:
        return "x"
    operand = match[1]
    return operand[1:-1].strip() if operand.startswith("(") else operand


def _power_after_superscript(text: str, column: int) -> str:
    """The refusal of ``x²^3``: a power of x², or x to the power 2^3? Both are written out.

    >>> print(_power_after_superscript("x²^3", 2))
    x²^3 is ambiguous: for (x²)^3 write (x^2)^3; for x^(2^3) write x^(2^3)
    """
    before = text[:column].rstrip()
    run = before[len(before.rstrip(SUPERSCRIPTS)) :]
    power = superscript_power(run)[1:]
    base = _operand_before(before, len(before) - len(run)) or "x"
    exponent = re.match(r"(?:\*\*|\^)\s*([+-]?)\s*", text[column:])
    assert exponent is not None  # (called at a ^ or **)
    operand = _OPERAND.match(text, column + exponent.end())
    power_of = exponent[1] + (operand[1].replace(" ", "") if operand else "n")
    return (
        f"{base}{run}^{power_of} is ambiguous: for ({base}{run})^{power_of} write "
        f"({base}^{power})^{power_of}; for {base}^({power}^{power_of}) write "
        f"{base}^({power}^{power_of})"
    )


# --- tokens --------------------------------------------------------------------------------

#: A token: (kind, lexeme, column); kind is number, name, op, ``(``, ``)``, ``,`` or ``=``.
Token = tuple[str, str, int]


class TokenStatement(NamedTuple):
    """The tokens of one non-blank statement, and the index of its '=' if it has one."""

    tokens: list[Token]
    equals: int | None


_LEXEME = re.compile(
    r"[ \t]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[A-Za-z_][A-Za-z0-9_]*"
    rf"|\*\*|//|==|\r?\n|⁻?[{SUPERSCRIPTS[:-1]}]+|."
)
_LETTERS = "abcdefghijklmnopqrstuvwxyz"  # (ASCII: the string module costs a start-up)
_KINDS = {  # a lexeme's kind, by its first character
    **dict.fromkeys("0123456789.", "number"),
    **dict.fromkeys(_LETTERS + _LETTERS.upper() + "_", "name"),
    **dict.fromkeys(" \t", "space"),
    **dict.fromkeys("+-*/^@", "op"),
    **dict.fromkeys(";\r\n", "end"),
    **{symbol: symbol for symbol in "(),=[]"},
}
TOKEN_OPS = {token: op.name for token, op in OPERATORS.items()}
_REFUSED = {
    "//": "'//' (floor division) is not supported: write floor(x/y)",
    "==": "'==' compares, and there are no comparisons: use '=' to assign a name",
    ".": "'.' can only appear inside a number such as 0.5",
}
_ATTRIBUTE_CALL = re.compile(r"\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(")  # .sin( of math.sin(x)
_BEFORE_OPERAND = frozenset({"op", "(", ",", "=", "end"})  # a sign after these is unary


class Lexer:
    """Splits text into statements of tokens in one pass, checking as it goes: numbers, names,
    where '=' stands, and the nesting depth -- the open parentheses plus, within each, the
    unary signs and powers still pending (each nests until the next ``+ - * / , =`` of its
    level), so that ``((((...`` or ``----...`` fails at its 201st level, before any parsing."""

    def __init__(self, text: str):
        self.text = text
        self.statements: list[TokenStatement] = []
        self.tokens: list[Token] = []
        self.equals: int | None = None
        self.levels = [0]  # pending signs and powers, per open parenthesis
        self.depth = 0

    def run(self) -> list[TokenStatement]:
        column, previous = 0, "end"
        for lexeme in _LEXEME.findall(self.text):
            kind = _KINDS.get(lexeme[0])
            if kind is None:  # × · ÷ − π, x²²: read as its ASCII, at the column of the symbol
                previous = self._symbol(lexeme, column, previous)
            elif kind != "space":  # (a space changes nothing: no call for it)
                previous = self._take(kind, lexeme, column, previous)
            column += len(lexeme)
        self._end_statement()
        return self.statements

    def _symbol(self, symbol: str, column: int, previous: str) -> str:
        """Check and keep the ASCII lexemes a symbol stands for; return what the next follows."""
        power = symbol[0] in SUPERSCRIPTS
        if power and (previous == "superscript" or symbol == "⁻"):
            raise InputError(_apart(self.text, column), self.text, column)
        ascii_text = superscript_power(symbol) if power else UNICODE_SYMBOLS[symbol]
        for lexeme in _LEXEME.findall(ascii_text):
            previous = self._take(_KINDS[lexeme[0]], lexeme, column, previous)
        return "superscript" if power else previous

    def _take(self, kind: str, lexeme: str, column: int, previous: str) -> str:
        """Check and keep one lexeme (not a space); return the kind that the next one follows."""
        if kind == "name":  # (the commonest kind first)
            _check_name(self.text, lexeme, column)
        elif lexeme in _REFUSED:
            called = _ATTRIBUTE_CALL.match(self.text, column) if lexeme == "." else None
            if previous == "name" and called and called[1] in FUNCTION_NAMES:
                module = self.tokens[-1][1]  # math.sin(x), np.exp(x): Python habits
                raise InputError(
                    f"drop `{module}.`: functions are written without a module, e.g. sin(x)",
                    self.text,
                    self.tokens[-1][2],
                )
            raise InputError(_REFUSED[lexeme], self.text, column)
        elif kind == "number":
            _check_number(self.text, lexeme, column)
        elif kind == "op":
            if previous == "superscript" and lexeme in ("^", "**"):  # x²^3: (x²)^3, x^(2^3)?
                raise InputError(_power_after_superscript(self.text, column), self.text, column)
            unary = previous in _BEFORE_OPERAND and lexeme in ("+", "-")
            if unary or lexeme in ("**", "^"):
                self._nest(column)
            else:
                self._unnest()
        elif kind == "end":
            self._end_statement()
            return kind
        elif kind in ("(", ")", ",", "="):
            self._structure(kind, column)
        self.tokens.append((kind, lexeme, column))
        return kind

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
            self.statements.append(TokenStatement(self.tokens, self.equals))
        self.tokens, self.equals = [], None
        self.levels, self.depth = [0], 0


def superscript_power(run: str) -> str:
    """The power a run of superscripts stands for, as typed with ``^``.

    >>> superscript_power("²"), superscript_power("²²"), superscript_power("⁻¹")
    ('^2', '^22', '^-1')
    """
    return "^" + run.translate(_FROM_SUPERSCRIPT)


def _apart(text: str, column: int) -> str:
    """The refusal of a superscript minus without its digits, or of two runs of superscripts
    in a row (``x² ³``, ``x²⁻¹``), with the powers to write instead."""
    if text[column] == "⁻" and re.match(f"⁻[{SUPERSCRIPTS[:-1]}]", text[column:]) is None:
        return "a superscript minus needs its digits: x⁻¹ is x^-1; or write the power with ^"
    before = text[:column].rstrip()
    first = superscript_power(before[len(before.rstrip(SUPERSCRIPTS)) :])
    second = superscript_power(re.match(f"[{SUPERSCRIPTS}]+", text[column:])[0])  # type: ignore[index]
    joined = f" or x{first}{second[1:]}" if second[1] != "-" else ""
    return f"two superscripts in a row: write the power with ^, as in (x{first}){second}{joined}"


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
        raise InputError(out_of_range(shorten(lexeme)), text, column)


def _check_name(text: str, name: str, column: int) -> None:
    if name.startswith("_"):
        message = f"names must start with a letter: {shorten(name)!r}"
    elif "__" in name:
        message = f"names may not contain '__': {shorten(name)!r}"
    elif len(name) > MAX_NAME_LENGTH:
        message = f"name too long: {shorten(name)!r} (limit {MAX_NAME_LENGTH} characters, fixed)"
    elif name in _PYTHON_OPERATOR_WORDS:
        message = (
            f"{name!r} is a Python keyword, not an operator here: "
            "use + - * / ^ and functions, and rename such variables"
        )
    else:
        return
    raise InputError(message, text, column)


_VARIABLE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")  # (a points file checks each column)


def checked_variables(variables: Iterable[str]) -> frozenset[str]:
    names = tuple(variables)
    for name in names:
        valid = _VARIABLE.fullmatch(name) and "__" not in name
        if not valid or len(name) > MAX_NAME_LENGTH or name in _PYTHON_OPERATOR_WORDS:
            raise InputError(
                f"invalid variable name {shorten(name)!r}: use a letter, then letters, digits or _"
            )
        if name in FUNCTION_NAMES:
            raise InputError(f"{name!r} is a function and cannot be a variable: rename it")
    return frozenset(names)


def shorten(text: str, limit: int = 30) -> str:
    """``text`` cut to ``limit`` characters for a message.

    >>> shorten("x" * 40, 5)
    'xxxxx...'
    """
    return text if len(text) <= limit else text[:limit] + "..."
