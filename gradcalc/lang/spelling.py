"""Misspelled function names: the function a name most resembles, for "did you mean" messages,
and the functions of other books and countries (``arcsec``, ``tg``, ``arsinh``) written as
gradcalc writes them.

>>> closest_function("sni"), closest_function("Exp"), closest_function("speed")
('sin', 'exp', None)
>>> print(other_spelling("arctg", "2x"))
arctg(2x) is atan(2x): write atan(2x)
"""

from __future__ import annotations

import difflib
from functools import lru_cache

import numpy as np

from gradcalc.core.ops import FUNCTION_NAMES

__all__ = ["closest_function", "other_spelling"]

_SPELLINGS = {name.lower(): name for name in FUNCTION_NAMES}
_SPELLING_LIST = list(_SPELLINGS)
_SIMILARITY = 0.75  # difflib's ratio: 2 * matching characters / total length


def _letter_counts(word: str) -> np.ndarray:
    return np.bincount(np.frombuffer(word.encode("ascii"), np.uint8), minlength=128)


_SPELLING_COUNTS = np.array([_letter_counts(spelling) for spelling in _SPELLING_LIST])
_SPELLING_LENGTHS = np.array([len(spelling) for spelling in _SPELLING_LIST])


@lru_cache(maxsize=4096)
def closest_function(name: str) -> str | None:
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


#: Functions gradcalc has under another name, or writes with one it has: each spelling (in
#: lower case), what it is in gradcalc's terms (``{x}``: the argument as typed, ``{u}``: the
#: same in parentheses when it is more than one name or number), and a note on conventions.
_INVERSE_RECIPROCALS = {
    ("arcsec", "asec", "arcsecant"): "acos(1/{u})",
    ("arccsc", "acsc", "arccosec", "acosec"): "asin(1/{u})",
    ("arcsech", "asech", "arsech", "argsech"): "acosh(1/{u})",
    ("arccsch", "acsch", "arcsch", "argcsch", "arccosech"): "asinh(1/{u})",
    ("arccoth", "acoth", "arcoth", "argcoth"): "atanh(1/{u})",
}
_RENAMED = {
    ("arctg", "atg"): "atan({x})",
    ("tg", "tgt"): "tan({x})",
    ("ctg", "cotg", "cotan"): "cot({x})",
    ("cosec",): "csc({x})",
    ("sh",): "sinh({x})",
    ("ch",): "cosh({x})",
    ("th",): "tanh({x})",
    ("csch", "cosech"): "1/sinh({x})",
    ("coth", "cth"): "1/tanh({x})",
    ("arsinh", "argsinh", "arsh", "argsh"): "asinh({x})",
    ("arcosh", "argcosh", "arch", "argch"): "acosh({x})",
    ("artanh", "argtanh", "arth", "argth"): "atanh({x})",
    ("lb", "ld"): "log({x}, 2)",
    ("arccot", "acot", "arcctg", "arccotg", "actg"): "(pi/2 - atan({x}))",
    ("lg",): "log10({x})",
    ("root", "nthroot"): "sqrt({x})",
    ("signum",): "sign({x})",
}
_NOTES = {
    "(pi/2 - atan({x}))": " (atan(1/x) agrees with it for x > 0)",
    "log10({x})": " (where lg means the binary logarithm: log(x, 2))",
    "sqrt({x})": " (an n-th root is x^(1/n))",
}
_OTHER_NAMES = {
    spelling: fix
    for table in (_INVERSE_RECIPROCALS, _RENAMED)
    for spellings, fix in table.items()
    for spelling in spellings
}


def other_spelling(name: str, argument: str = "x", after: str = "") -> str | None:
    """What a function of another book or country (``arcsec``, ``tg``, ``lg``) is in
    gradcalc's terms, said for its ``argument`` as typed (a quotient in parentheses when
    ``after`` is ``/`` or ``^``, the operator before the call); None for any other name.

    >>> print(other_spelling("arcsec"))
    arcsec(x) is acos(1/x): write acos(1/x)
    >>> print(other_spelling("asech", "x + 1"))
    asech(x + 1) is acosh(1/(x + 1)): write acosh(1/(x + 1))
    >>> print(other_spelling("root"))
    root(x) is sqrt(x) (an n-th root is x^(1/n)): write sqrt(x)
    >>> print(other_spelling("csch", "2x", after="/"))
    csch(2x) is (1/sinh(2x)): write (1/sinh(2x))
    >>> other_spelling("sin"), other_spelling("speed")
    (None, None)
    """
    fix = _OTHER_NAMES.get(name.lower())
    if fix is None or name in FUNCTION_NAMES:
        return None
    simple = argument.replace("_", "a").isalnum() or argument.replace(".", "", 1).isdigit()
    written = fix.format(x=argument, u=argument if simple else f"({argument})")
    if after in ("/", "^") and fix.startswith("1/"):
        written = f"({written})"
    return f"{name}({argument}) is {written}{_NOTES.get(fix, '')}: write {written}"
