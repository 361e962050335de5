"""What students type and mean otherwise: names that are a product (``xy``), a function glued
to its argument (``sinx``), an inverse written as a power (``cos^-1(x)``), and the name a
missing value most likely belongs to.

The parser reads each of these strictly (``xy`` and ``sinx`` are names, ``cos^-1(x)`` is
refused); this module words the warning or the fix. It looks only at names, never at the
display text.

>>> glued_function("sinx"), glued_function("sinh"), glued_function("x")
('sin(x)', None, None)
>>> juxtaposed("xy"), juxtaposed("mu"), juxtaposed("w1"), juxtaposed("pir")
('x·y', None, None, 'pi·r')
>>> run_together("xsinx"), run_together("sinxcosx"), run_together("sintheta")
('x·sin(x)', 'sin(x)·cos(x)', 'sin(theta)')
>>> digit_inside("x2y")
('x^2·y', '2·x·y')
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from gradcalc.core.naming import SUPERSCRIPT_DIGITS
from gradcalc.core.ops import FUNCTION_NAMES
from gradcalc.lang.literals import CONSTANTS

__all__ = [
    "called_slip",
    "digit_inside",
    "function_like",
    "given_constant",
    "glued_function",
    "hidden_in",
    "inverse_power",
    "juxtaposed",
    "leibniz_notation",
    "likely_meaning",
    "likely_name",
    "name_warnings",
    "run_together",
    "unnamed_variables",
    "variable_like",
    "with_constant",
]

#: Function names longest first, so that ``sinhx`` is ``sinh(x)``, not ``sin(hx)``.
_BY_LENGTH = sorted(FUNCTION_NAMES, key=len, reverse=True)
#: What may follow a glued function name: a variable, perhaps after a coefficient (``sin2x``),
#: or a number (``ln3``).
_ARGUMENT = re.compile(r"[0-9]*[A-Za-z][0-9]?|[0-9]+")
#: Two- and three-letter names that are one name by convention (Greek letters and the like).
_WORDS = frozenset(("mu", "nu", "xi", "phi", "psi", "chi", "eta", "rho", "tau", "eps", "lam"))
#: Names a run-together name may hold whole (``sintheta``): Greek letters spelt out.
_GREEK = ("alpha", "beta", "gamma", "delta", "epsilon", "theta", "lambda", "sigma", "omega")
#: One factor of a run-together name: a coefficient, then a Greek letter, the constant pi or
#: one variable letter with its index digits (``2x``, ``theta``, ``pi``, ``w1``).
_PIECE = re.compile(rf"([0-9]*)({'|'.join((*_GREEK, *sorted(_WORDS), 'pi'))}|[A-Za-z][0-9]*)")
#: A constant glued to one variable letter (with its index), before or after it: ``pir``,
#: ``ex``, ``xpi``.
_WITH_CONSTANT = re.compile(r"(pi|e)([A-Za-z][0-9]*)|([A-Za-z][0-9]*)(pi|e)")
#: A letter, a digit 2-9, one or two letters: ``x2y`` (x²y pasted without its superscript,
#: or 2xy); ``w1``, ``x12`` and ``x1y`` are taken as the names they look like.
_DIGIT_INSIDE = re.compile(r"([A-Za-z])([2-9])([A-Za-z]{1,2})")
#: A function's glued argument, and the factors before the first function, hold at most so
#: many pieces (``sinxy`` is sin(x·y); ``expand`` is a name).
_MOST_PIECES = 2


#: A name that is a variable by its look: one letter or a Greek one, then an index.
_VARIABLE_LIKE = re.compile(
    rf"(?:{'|'.join(_GREEK + tuple(sorted(_WORDS)))}|[A-Za-z])[0-9]*(?:_\w+)?"
)


def variable_like(name: str) -> bool:
    """Whether ``name`` before ``(`` is a variable times a group, as a student writes a
    product (``k(x+1)``, ``w1(x-1)``, ``theta(1-t)``, ``ab(c+d)``: a letter or a Greek one,
    with an index, or two letters), rather than the call of a function gradcalc does not
    have (``root(x)``).

    >>> [variable_like(n) for n in ("k", "w1", "x_2", "theta", "ab", "mu0")]
    [True, True, True, True, True, True]
    >>> [variable_like(n) for n in ("root", "arcsec", "foo", "rate")]
    [False, False, False, False]
    """
    short = len(name) == 2 and name.isascii() and name.isalpha()
    return short or _VARIABLE_LIKE.fullmatch(name) is not None


def function_like(name: str) -> bool:
    """Whether ``name`` applied to a variable, ``name(t)``, looks like a textbook's function
    notation: one letter (``y(x)``, ``f(x)``, ``g(t)``) or a Greek one (``sigma(z)``).

    >>> [function_like(n) for n in ("y", "f", "sigma", "theta", "k1", "ab", "rate")]
    [True, True, True, True, False, False, False]
    """
    return (len(name) == 1 and name.isalpha()) or name in _GREEK or name in _WORDS


def glued_function(name: str) -> str | None:
    """The call ``name`` most likely means when it is a function glued to its argument
    (``sinx`` -> ``sin(x)``, ``sin2x`` -> ``sin(2x)``), else None.

    >>> [glued_function(n) for n in ("cosx", "lnx", "sqrtx", "sinhx", "log10x", "cost", "ln3")]
    ['cos(x)', 'ln(x)', 'sqrt(x)', 'sinh(x)', 'log10(x)', 'cos(t)', 'ln(3)']
    >>> [glued_function(n) for n in ("cos", "rate", "expand", "sin_x")]
    [None, None, None, None]
    """
    if name in FUNCTION_NAMES or name in CONSTANTS:
        return None
    for function in _BY_LENGTH:
        rest = name[len(function) :]
        if name.startswith(function) and rest and _ARGUMENT.fullmatch(rest):
            return f"{function}({rest})"
    return None


def juxtaposed(name: str) -> str | None:
    """The product a short all-letter name most likely means (``xy`` -> ``x·y``, ``pix`` ->
    ``pi·x``: :func:`with_constant`), else None.

    Two or three letters (``xy``, ``abc``); not a function, a constant or a conventional
    name (``mu``, ``phi``), nor a function glued to its argument (:func:`glued_function`).

    >>> juxtaposed("abc"), juxtaposed("x"), juxtaposed("rate"), juxtaposed("phi")
    ('a·b·c', None, None, None)
    """
    if not (2 <= len(name) <= 3 and name.isascii() and name.isalpha()):
        return None
    if name in FUNCTION_NAMES or name in CONSTANTS or name in _WORDS or glued_function(name):
        return None
    return with_constant(name) or "·".join(name)


def with_constant(name: str) -> str | None:
    """The product a name most likely means when it glues the constant pi or e to one
    variable letter (``pir`` -> ``pi·r``, ``ex`` -> ``e·x``, ``xpi`` -> ``x·pi``: πr²
    typed without its ``*``), else None.

    >>> [with_constant(n) for n in ("pir", "pix2", "ex", "rpi", "pi", "exp", "eta", "pixy")]
    ['pi·r', 'pi·x2', 'e·x', 'r·pi', None, None, None, None]
    """
    match = _WITH_CONSTANT.fullmatch(name)
    if match is None or name in FUNCTION_NAMES or name in _WORDS:
        return None
    return "·".join(piece for piece in match.groups() if piece)


def run_together(name: str) -> str | None:
    """The product a name most likely means when it runs functions and their arguments
    together (``xsinx`` -> ``x·sin(x)``, ``sinxcosx`` -> ``sin(x)·cos(x)``, ``lnxy`` ->
    ``ln(x·y)``): every function has a glued argument, and each argument (and what comes
    before the first function) is at most two pieces. None for anything else.

    >>> [run_together(n) for n in ("xlnx", "sinxy", "x2sinx", "sin2xcosx")]
    ['x·ln(x)', 'sin(x·y)', 'x2·sin(x)', 'sin(2·x)·cos(x)']
    >>> [run_together(n) for n in ("expand", "rate", "sin", "cosx_1", "sinxyz", "xy")]
    [None, None, None, None, None, None]
    """
    if name in FUNCTION_NAMES or name in CONSTANTS or not (name.isascii() and name.isalnum()):
        return None
    groups: list[tuple[str | None, list[str]]] = [(None, [])]  # (function, its pieces)
    at = 0
    while at < len(name):
        function = next((f for f in _BY_LENGTH if name.startswith(f, at)), None)
        if function is not None:
            groups.append((function, []))
            at += len(function)
            continue
        piece = _PIECE.match(name, at)
        if piece is None:
            return None
        digits, letters = piece.groups()
        groups[-1][1].append(f"{digits}·{letters}" if digits and letters else piece[0])
        at = piece.end()
    lead, calls = groups[0][1], groups[1:]
    if not calls or len(lead) > _MOST_PIECES:
        return None
    if any(not pieces or len(pieces) > _MOST_PIECES for _, pieces in calls):
        return None
    return "·".join([*lead, *(f"{f}({'·'.join(pieces)})" for f, pieces in calls)])


def digit_inside(name: str) -> tuple[str, str] | None:
    """The two products a name with a digit inside most likely means, a power or a
    coefficient (``x2y`` -> ``x^2·y`` or ``2·x·y``), else None.

    >>> digit_inside("a3bc"), digit_inside("w1"), digit_inside("x1y"), digit_inside("e2x")
    (('a^3·b·c', '3·a·b·c'), None, None, None)
    """
    match = _DIGIT_INSIDE.fullmatch(name)
    if match is None or match[3] in FUNCTION_NAMES or match[1] in CONSTANTS:
        return None  # (e2x: e^(2x) is as likely as e^2·x or 2·e·x)
    letter, digit, rest = match.groups()
    return f"{letter}^{digit}·{'·'.join(rest)}", f"{digit}·{letter}·{'·'.join(rest)}"


_ONE_NAME = "{} is read as one name, a variable; if you mean "


def name_warnings(names: Iterable[str], given: Iterable[str] = ()) -> list[str]:
    """A warning for each name that is likely a slip (:func:`glued_function`,
    :func:`juxtaposed`); a name in ``given`` (one the user gave a value for) is deliberate,
    but a constant's spelling given a value is warned about (:func:`given_constant`).

    >>> for warning in name_warnings(["x", "sinx", "xy"]):
    ...     print(warning)
    sinx is read as one name, a variable; if you mean sin(x), write sin(x)
    xy is read as one name, a variable; if you mean x·y, write x*y (or x y)
    >>> name_warnings(["xy"], given=["xy"])
    []
    """
    chosen = set(given)
    found = []
    for name in dict.fromkeys(names):
        if name in chosen:
            if name in CONSTANTS:
                found.append(given_constant(name))
            continue
        call = glued_function(name)
        if call is not None:
            found.append(f"{_ONE_NAME.format(name)}{call}, write {call}")
            continue
        readings = digit_inside(name)
        if readings is not None:
            power, coefficient = (r.replace("·", "*") for r in readings)
            found.append(
                f"{_ONE_NAME.format(name)}{readings[0]}, write {power}; "
                f"if you mean {readings[1]}, write {coefficient}"
            )
            continue
        product = juxtaposed(name) or run_together(name)
        if product is not None:
            written = product.replace("·", "*")
            spaced = product.replace("·", " ")
            also = f" (or {spaced})" if spaced != written else ""
            found.append(f"{_ONE_NAME.format(name)}{product}, write {written}{also}")
    return found


#: The constant each spelling stands for, in words.
_CONSTANT_WORDS = {"pi": "the constant pi = 3.14159…", "e": "Euler's number e = 2.71828…"}


def given_constant(name: str) -> str:
    """The warning for a constant's spelling that is given a value (``--at e=0.5``, a points
    file's column ``e``): the expression's ``e`` is then that variable, not the constant.

    >>> print(given_constant("e"))  # doctest: +NORMALIZE_WHITESPACE
    e is given a value, so it is a variable here, not Euler's number e = 2.71828…; for the
    constant, give e no value (a points file's column e: read the others with --columns)
    """
    words = _CONSTANT_WORDS["pi" if name == "pi" else "e"]
    return (
        f"{name} is given a value, so it is a variable here, not {words}; for the constant, "
        f"give {name} no value (a points file's column {name}: read the others with --columns)"
    )


def inverse_power(function: str) -> str:
    """The refusal of ``f^-1(x)``: the inverse function, or the reciprocal?

    >>> print(inverse_power("cos"))
    cos^-1(x) is ambiguous: for the inverse function write arccos(x); for 1/cos(x) write 1/cos(x)
    >>> print(inverse_power("sec"))
    sec^-1(x) is ambiguous: gradcalc has no inverse of sec; for 1/sec(x) write 1/sec(x)
    """
    inverse = f"arc{function}" if f"arc{function}" in FUNCTION_NAMES else None
    if function in ("exp", "ln", "log"):
        inverse = "ln" if function == "exp" else "exp"
    meant = (
        f"for the inverse function write {inverse}(x)"
        if inverse
        else f"gradcalc has no inverse of {function}"
    )
    return f"{function}^-1(x) is ambiguous: {meant}; for 1/{function}(x) write 1/{function}(x)"


def called_slip(name: str, argument: str) -> str | None:
    """What an unknown ``name(argument)`` most likely means, as a clause for its refusal: a
    power written into the name (``sin2(x)``: sin(x)^2, or sin(2x)), or a product run into
    a function (``xsin(x)``: x*sin(x)); None for any other name.

    >>> print(called_slip("sec2", "x"))
    for sec²(x) write sec(x)^2; for sec(2x) write sec(2x)
    >>> called_slip("xcos", "t + 1"), called_slip("rate", "x"), called_slip("sin1", "x")
    ('if you mean x*cos(t + 1), write x*cos(t + 1)', None, None)
    """
    raised = re.fullmatch(f"({'|'.join(_BY_LENGTH)})([2-9])", name)
    if raised is not None:
        function, power = raised.groups()
        inner = argument if argument.isalnum() else f"({argument})"
        return (
            f"for {function}{power.translate(SUPERSCRIPT_DIGITS)}({argument}) write "
            f"{function}({argument})^{power}; for {function}({power}{inner}) write "
            f"{function}({power}{inner})"
        )
    for function in _BY_LENGTH:
        lead = name[: -len(function)]
        if not lead or not name.endswith(function):
            continue
        factors = juxtaposed(lead) or run_together(lead)
        if factors is None and _PIECE.fullmatch(lead) is None:
            continue
        meant = f"{factors or lead}*{function}({argument})".replace("·", "*")
        return f"if you mean {meant}, write {meant}"
    return None


def unnamed_variables(head: str, parameters: Sequence[str], others: Sequence[str]) -> str:
    """The refusal of a function head ``f(x) = ...`` whose body uses ``others`` as well; where
    one of them is a product of a named variable typed as one name (``kx``), the fix of it.

    >>> print(unnamed_variables("f(x)", ["x"], ["a"]))
    f(x) = ... uses a as well: name every variable, f(x, a) = ...
    >>> print(unnamed_variables("P(t)", ["t"], ["P0", "rt"]))  # doctest: +NORMALIZE_WHITESPACE
    P(t) = ... uses P0, rt as well: rt is one name: if you mean r*t, write r*t and name
    every variable, P(t, P0, r) = ...; else P(t, P0, rt) = ...
    """
    function = head.partition("(")[0]
    opening = f"{head} = ... uses {', '.join(others)} as well: "
    fixes, names = [], []
    for other in others:
        meant = _product_meant(other)
        inside = _names_in(meant or "")
        if meant is None or not set(inside) & set(parameters):
            names.append(other)
            continue
        fixes.append(f"{other} is one name: if you mean {meant}, write {meant}")
        names += [name for name in inside if name not in parameters]
    every = _every(function, [*parameters, *others])
    if not fixes:
        return f"{opening}name every variable, {every}"
    if not names:  # (sinx: the fix names no new variable)
        return f"{opening}{'; '.join(fixes)}; else name every variable, {every}"
    fixed = _every(function, list(dict.fromkeys([*parameters, *names])))
    return f"{opening}{'; '.join(fixes)} and name every variable, {fixed}; else {every}"


def _product_meant(name: str) -> str | None:
    """The product or call a name most likely means (``kx``: ``k*x``), in ``*`` notation."""
    meant = juxtaposed(name) or glued_function(name) or run_together(name)
    return None if meant is None else meant.replace("·", "*")


def _names_in(text: str) -> list[str]:
    """The variables named in an expression's text (not its functions or constants)."""
    found = re.findall(r"[A-Za-z]\w*", text)
    return [n for n in dict.fromkeys(found) if n not in FUNCTION_NAMES and n not in CONSTANTS]


def _every(function: str, names: Sequence[str]) -> str:
    """A head naming every variable, ``f(x, k) = ...`` (the last few, when it is long)."""
    every = ", ".join(names)
    return f"{function}({every if len(every) <= 60 else '..., ' + ', '.join(names[-3:])}) = ..."


def likely_meaning(name: str) -> str | None:
    """What a name most likely means when it is a call or a product typed without its
    parentheses or ``*`` (:func:`digit_inside`, :func:`glued_function`, :func:`run_together`,
    :func:`with_constant`).

    >>> [likely_meaning(name) for name in ("cos2x", "x2y", "xsinx", "w1", "pir", "ex")]
    ['cos(2x)', 'x^2*y or 2*x*y', 'x*sin(x)', None, 'pi*r', 'e*x']
    """
    readings = digit_inside(name)
    if readings is not None:
        return "{} or {}".format(*(r.replace("·", "*") for r in readings))
    call = glued_function(name) or run_together(name) or with_constant(name)
    return None if call is None else call.replace("·", "*")


def hidden_in(name: str, names: Iterable[str]) -> str:
    """Where ``name`` (asked for, but not a name of the expression) hides inside one of
    ``names`` typed without its ``*`` or parentheses, as a clause for the error; else "".

    >>> hidden_in("x", ["k", "kx"])
    '; kx is one name: if you mean k*x, write that'
    >>> hidden_in("x", ["sinx"]), hidden_in("q", ["kx"])
    ('; sinx is one name: if you mean sin(x), write that', '')
    """
    for other in names:
        meant = juxtaposed(other) or likely_meaning(other)
        if meant is not None and name in re.findall(r"[A-Za-z]\w*", meant.replace("·", "*")):
            return f"; {other} is one name: if you mean {meant.replace('·', '*')}, write that"
    return ""


def likely_name(missing: str, given: Sequence[str]) -> str:
    """What a value-less name most likely is, as a hint to add to "no value given for ...":
    a glued call, a product of given names, or a given name spelt alike (difflib); else "".

    >>> likely_name("cosx", ["x"]), likely_name("x2y", ["x", "y"])
    ('; did you mean cos(x)?', '; did you mean x^2*y or 2*x*y?')
    >>> likely_name("xy", ["x", "y"]), likely_name("y", ["yy"]), likely_name("q", ["x"])
    ('; did you mean x*y?', '; did you mean y, not yy?', '')
    """
    meant = likely_meaning(missing)
    if meant is not None:
        return f"; did you mean {meant}?"
    letters = list(missing)
    if len(letters) > 1 and all(letter in given for letter in letters):
        return f"; did you mean {'*'.join(letters)}?"
    close = difflib.get_close_matches(missing, [str(g) for g in given], n=1, cutoff=0.6)
    return f"; did you mean {missing}, not {close[0]}?" if close else ""


def leibniz_notation(text: str, tokens: Sequence[tuple[str, str, int]]) -> str:
    """Why ``text`` (lexed as ``tokens``: kind, text, column) cannot be read, where it asks
    for a derivative in Leibniz's notation (``d/dx (x^2)``, which would otherwise be read as
    the variables d and dx times x^2), or is one with its value (``d/dx(x^2) = 2x``, an
    answer typed whole); "" for anything else (``d/dx`` alone, ``d/dx + 1``: a ratio).

    >>> from gradcalc.lang.lexer import Lexer
    >>> def said(text):
    ...     return leibniz_notation(text, Lexer(text).run()[0].tokens).split(": ")[1]
    >>> said("d/dx (x^3 + 1)")
    'write the function alone (x^3 + 1) and say the variable with --wrt x'
    >>> said("d/dx(x^2) = 2x").split("; ")[0]
    'as an answer, give the derivative alone (2x)'
    """
    if len(tokens) < 4 or [t[1] for t in tokens[:2]] != ["d", "/"]:
        return ""
    kind, name, _ = tokens[2]
    if kind != "name" or name[:1] != "d" or len(name) < 2:
        return ""
    if tokens[3][0] not in ("name", "number", "("):
        return ""
    rest, equals, value = text[tokens[3][2] :].partition("=")
    rest, value = (t if len(t) <= 60 else t[:59] + "…" for t in (rest.strip(), value.strip()))
    rest = rest[1:-1].strip() if rest.startswith("(") and rest.endswith(")") else rest
    answer = f"as an answer, give the derivative alone ({value}); " * bool(equals and value)
    return (
        f"d/{name} is derivative notation, and gradcalc differentiates for you: {answer}"
        f"write the function alone ({rest}) and say the variable with --wrt {name[1:]}"
    )
