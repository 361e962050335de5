"""A wrong answer that is right in another order of the variables: the trap of ``atan(y/x)``,
whose variables first appear as y, x while a student answers (∂/∂x, ∂/∂y).

The verdicts stay as judged -- in the order asked for, the answer is wrong -- and a hint
says in which order it would be right, and how to ask for that order.

>>> from gradcalc.apps.check.check import check_answers
>>> verdicts = check_answers("atan(y/x)", ["-y/(x^2 + y^2)", "x/(x^2 + y^2)"])
>>> [v.ok for v in verdicts], verdicts.hints[0][:46]
([False, False], 'your answers are right in the order x, y; they')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import permutations
from typing import Any

from gradcalc.core.errors import InputError, UndefinedError

#: Variables beyond this many are not permuted (3! = 6 checks at most).
MOST = 3


def order_hints(
    verdicts: Sequence[Any], variables: Sequence[str], judge: Callable[[list[str]], Sequence[Any]]
) -> list[str]:
    """A hint when some verdict is wrong and ``judge`` (the same check, asked in another
    variable order) passes every verdict in some order of ``variables``; else none."""
    if all(v.ok is not False for v in verdicts) or not 2 <= len(variables) <= MOST:
        return []
    for order in permutations(variables):
        if list(order) == list(variables):
            continue
        try:
            again = judge(list(order))
        except (InputError, UndefinedError):
            continue
        if all(v.ok is True for v in again):
            return [
                f"your answers are right in the order {', '.join(order)}; they are read in "
                f"the order {', '.join(variables)} (as a head f(...) lists them, else as they "
                "first appear): give "
                f"--wrt {','.join(order)} to answer in your order"
            ]
    return []
