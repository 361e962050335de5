"""Numbers as people read them: the one formatter of tables, messages, titles and labels.

>>> format_number(36.0), format_number(0.1 + 0.2), format_number(float("nan"))
('36', '0.30000000000000004', 'nan')
>>> format_number(2 / 3, digits=4), format_number(-1e-9, 2), format_number(3.4e12, 2)
('0.6667', '-1e-09', '3.4e+12')
"""

from __future__ import annotations

import math
from typing import Any

#: With ``digits``, whole numbers below this show every digit (``100``, not ``1e+02``).
_WHOLE = 10**6


def format_number(value: Any, digits: int | None = None) -> str:
    """A float as short as possible without losing it, or with ``digits`` significant
    digits; never ``-0``; ``—`` for a missing value.

    >>> format_number(None), format_number(-0.0), format_number(1e16), format_number(2.0**60)
    ('—', '0', '1e+16', '1.152921504606847e+18')
    >>> format_number(100.0, 2), format_number(2136.8, 2), format_number(1e8, 2)
    ('100', '2.1e+03', '1e+08')
    """
    if value is None:
        return "—"
    x = float(value) + 0.0  # + 0.0 turns -0.0 into 0.0
    if not math.isfinite(x):
        return str(x)
    if x == int(x) and abs(x) < (1e16 if digits is None else max(_WHOLE, 10**digits)):
        return str(int(x))
    return repr(x) if digits is None else f"{x:.{digits}g}"


def counted(n: int, noun: str) -> str:
    """``n`` of ``noun``, in the plural unless one (``1 step``, ``1,000 rows``).

    >>> counted(1, "value"), counted(3, "answer"), counted(65536, "row")
    ('1 value', '3 answers', '65,536 rows')
    """
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
