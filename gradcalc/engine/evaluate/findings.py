"""What a diagnosis finds: a :class:`Finding` of one of the :data:`KINDS`, and the
:class:`Thresholds` it is judged by -- the records the evaluator, the results and
:mod:`gradcalc.engine.evaluate.diagnostics` share, kept apart from the diagnosis so that
none of them imports another back.

>>> sorted(["kink", "vanishing"], key=KINDS.index)
['vanishing', 'kink']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["KINDS", "Finding", "Thresholds"]

#: The kinds of finding, in the order they are reported.
KINDS = ("non-finite", "vanishing", "exploding", "saturated", "kink")
#: Activations with a side of slope exactly 0 (relu's x < 0): a unit there is off, and dead
#: only if it is off for every input.
DYING = ("relu",)


@dataclass(frozen=True)
class Thresholds:
    """When a gradient component counts as vanishing or exploding, and when an activation
    counts as saturated (its slope below ``saturation``)."""

    vanishing: float = 1e-8
    exploding: float = 1e8
    saturation: float = 1e-4


@dataclass(eq=False)
class Finding:
    """One diagnosis: ``kind`` is ``non-finite``, ``vanishing``, ``exploding``, ``saturated``
    or ``kink``; ``mask`` marks the affected points; ``message`` describes the first."""

    kind: str
    message: str
    record: int | None
    mask: np.ndarray
    #: the gradient component a vanishing or exploding finding is about
    source: str | None = None
    #: a kink where f's own one-sided derivatives agree: f is differentiable, not unhealthy;
    #: or a unit that is off (``off``) where other paths still carry the gradient
    settled: bool = False
    #: a saturated finding of a :data:`DYING` activation on its side of slope 0
    off: bool = False

    @property
    def label(self) -> str:
        """The kind as shown: ``kink (settled)`` for a settled kink.

        >>> Finding("kink", "", 1, np.array(True), settled=True).label
        'kink (settled)'
        """
        return f"{self.kind} (settled)" if self.settled else self.kind
