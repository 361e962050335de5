"""Python's cyclic garbage collector, held off while gradcalc builds large structures
without cycles.

Parsing and lowering a long expression, recording and differentiating it on a tape, and
writing its tape's rows and JSON make hundreds of thousands of small objects -- tokens,
syntax nodes, graph nodes, tensors, records, rows -- that refer only to earlier ones and
are freed by reference counting. The
collections their allocations trigger find nothing to free, and the older generations they
push objects into are walked again and again: compiling and differentiating the 10,000-term
sum in a process that holds many objects spent about a fifth of its time there.
:func:`paused` holds collections off for such a block; the collector runs as before
afterwards (and collects anything cyclic made meanwhile then).

>>> import gc
>>> with paused():
...     inside = gc.isenabled()
>>> inside, gc.isenabled()
(False, True)
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused"]


@contextmanager
def paused() -> Iterator[None]:
    """Hold off garbage collection inside the block (where it is enabled: a collector that
    the caller disabled stays disabled, and a block inside another pauses nothing more).

    >>> import gc
    >>> gc.disable()
    >>> with paused():
    ...     pass
    >>> gc.isenabled()
    False
    >>> gc.enable()
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
