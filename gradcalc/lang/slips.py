"""What students type and mean otherwise: names that are a product (``xy``), a function glued
to its argument (``sinx``), an inverse written as a power (``cos^-1(x)``), and the name a
missing value most likely belongs to.

The parser reads each of these strictly (``xy`` and ``sinx`` are names, ``cos^-1(x)`` is
refused); this module words the warning or the fix. It looks only at names, never at the
display text.

>>> glued_function("sinx"), glued_function("sinh"), glued_function("x")
('sin(x)', None, None)
>>> juxtaposed("xy"), juxtaposed("mu"), juxtaposed("w1")
('x·y', None, None)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from gradcalc.core.ops import FUNCTION_NAMES
from gradcalc.lang.literals import CONSTANTS

__all__ = ["glued_function", "inverse_power", "juxtaposed", "likely_name", "name_warnings"]

#: Function names longest first, so that ``sinhx`` is ``sinh(x)``, not ``sin(hx)``.
_BY_LENGTH = sorted(FUNCTION_NAMES, key=len, reverse=True)
#: What may follow a glued function name: a variable, perhaps after a coefficient (``sin2x``).
_ARGUMENT = re.compile(r"[0-9]*[A-Za-z][0-9]?")
#: Two- and three-letter names that are one name by convention (Greek letters and the like).
_WORDS = frozenset(("mu", "nu", "xi", "phi", "psi", "chi", "eta", "rho", "tau", "eps", "lam"))


def glued_function(name: str) -> str | None:
    """The call ``name`` most likely means when it is a function glued to its argument
    (``sinx`` -> ``sin(x)``, ``sin2x`` -> ``sin(2x)``), else None.

    >>> [glued_function(n) for n in ("cosx", "lnx", "sqrtx", "sinhx", "log10x", "cost")]
    ['cos(x)', 'ln(x)', 'sqrt(x)', 'sinh(x)', 'log10(x)', 'cos(t)']
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
    """The product a short all-letter name most likely means (``xy`` -> ``x·y``), else None.

    Two or three letters (``xy``, ``abc``); not a function, a constant or a conventional
    name (``mu``, ``phi``), nor a function glued to its argument (:func:`glued_function`).

    >>> juxtaposed("abc"), juxtaposed("x"), juxtaposed("rate"), juxtaposed("phi")
    ('a·b·c', None, None, None)
    """
    if not (2 <= len(name) <= 3 and name.isascii() and name.isalpha()):
        return None
    if name in FUNCTION_NAMES or name in CONSTANTS or name in _WORDS or glued_function(name):
        return None
    return "·".join(name)


_ONE_NAME = "{} is read as one name, a variable; if you mean "


def name_warnings(names: Iterable[str], given: Iterable[str] = ()) -> list[str]:
    """A warning for each name that is likely a slip (:func:`glued_function`,
    :func:`juxtaposed`); a name in ``given`` (one the user gave a value for) is deliberate.

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
            continue
        call = glued_function(name)
        if call is not None:
            found.append(f"{_ONE_NAME.format(name)}{call}, write {call}")
            continue
        product = juxtaposed(name)
        if product is not None:
            written = product.replace("·", "*")
            spaced = product.replace("·", " ")
            found.append(f"{_ONE_NAME.format(name)}{product}, write {written} (or {spaced})")
    return found


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


def likely_name(missing: str, given: Sequence[str]) -> str:
    """What a value-less name most likely is, as a hint to add to "no value given for ...":
    a glued call, a product of given names, or a given name spelt alike (difflib); else "".

    >>> likely_name("cosx", ["x"])
    '; did you mean cos(x)?'
    >>> likely_name("xy", ["x", "y"]), likely_name("y", ["yy"]), likely_name("q", ["x"])
    ('; did you mean x*y?', '; did you mean y, not yy?', '')
    """
    call = glued_function(missing)
    if call is not None:
        return f"; did you mean {call}?"
    letters = list(missing)
    if len(letters) > 1 and all(letter in given for letter in letters):
        return f"; did you mean {'*'.join(letters)}?"
    close = difflib.get_close_matches(missing, [str(g) for g in given], n=1, cutoff=0.6)
    return f"; did you mean {missing}, not {close[0]}?" if close else ""
