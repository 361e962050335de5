"""Misspelled function names: the function a name most resembles, for "did you mean" messages.

>>> closest_function("sni"), closest_function("Exp"), closest_function("speed")
('sin', 'exp', None)
"""

from __future__ import annotations

import difflib
from functools import lru_cache

import numpy as np

from gradcalc.core.ops import FUNCTION_NAMES

__all__ = ["closest_function"]

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
