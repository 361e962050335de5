"""Wall-clock limits for symbolic work budgeted in CPU seconds: a busy machine slows a
decision down rather than leaving it undecided; and the failures a limited piece may end in.

>>> from time import process_time
>>> wall(process_time() + 1.0) >= SLACK * 0.9
True
"""

from __future__ import annotations

from time import process_time

from gradcalc.core.budget import CheckTimeout

__all__ = ["FAILURES", "SLACK", "patient", "wall"]

SLACK = 5.0  # wall-clock seconds a piece of the decision may take per CPU second left

#: What a piece of symbolic work under a time limit may end in (it then proves nothing).
FAILURES = (CheckTimeout, TypeError, ValueError, ArithmeticError, RecursionError, MemoryError)


def wall(deadline: float) -> float:
    """The wall-clock limit of a piece of work that may use the CPU seconds left before
    ``deadline`` (a :func:`time.process_time` value): SLACK times as much, more on a busy
    machine (see :func:`patient`)."""
    return patient(max(deadline - process_time(), 0.01) * SLACK)


def patient(seconds: float) -> float:
    """A wall-clock limit of ``seconds`` on an idle machine, stretched by the load per core
    beyond 2.5 (at load 16 on two cores a process gets an eighth of one), so that a busy
    machine slows a decision down rather than leaving it undecided.

    >>> patient(1.0) >= 1.0
    True
    """
    import os

    busy = os.getloadavg()[0] / (os.cpu_count() or 1) if hasattr(os, "getloadavg") else 0.0
    return seconds * max(1.0, 2 * busy / SLACK)
