"""The program a :class:`Sweep` is: numbered slots and the :class:`Step` records that fill
them -- recorded by :mod:`gradcalc.engine.compile.sweep`, rewritten by
:mod:`gradcalc.engine.compile.signs`, and run by the replay, the fused kernels and the
native loop, which all read it and none of which this module imports.

>>> from gradcalc.core.ops import REGISTRY
>>> step = Step(REGISTRY["mul"], (0, 1), 2, {}, True, (False, False))
>>> Sweep(("x", "y"), ("x", "y"), {}, [step], [2], [{"x": None, "y": None}], size=3).kept_slots()
[2]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.core.ops import Op

__all__ = ["Step", "Sweep"]


@dataclass(frozen=True)
class Step:
    """One replayed operation: ``slots[out] = op.forward(*slots[inputs], **params)``.

    ``guard`` is set for forward records (their domain and finiteness are checked);
    ``constant_inputs`` marks inputs no gradient flows to; ``release`` lists the slots
    whose last use this is; ``check_domain`` is off when the op's domain rule cannot fire
    given its constant inputs (``x**2`` is defined everywhere); ``check_finite`` is off when
    a NaN or infinity here could not vanish before reaching a checked value (see
    :func:`_plan_finite_checks`). ``ufunc`` is set where the replay may have the op write
    into an array it gives (see :func:`_plan_buffers`): a numpy ufunc computing float64 from
    float64, called with the first ``ufunc.nin`` inputs; ``buffer`` numbers that array
    among the replay's reused ones (``None``: numpy allocates the result).
    """

    op: Op
    inputs: tuple[int, ...]
    out: int
    params: dict[str, Any]
    guard: bool
    constant_inputs: tuple[bool, ...]
    release: tuple[int, ...] = ()
    check_domain: bool = True
    check_finite: bool = True
    ufunc: np.ufunc | None = None
    buffer: int | None = None


@dataclass
class Sweep:
    """A straight-line forward-and-reverse program over numbered slots.

    Slots ``0 .. len(variables)-1`` hold the variables' values; ``constants`` fill some
    others; every step writes one. ``values[k]`` and ``gradients[k][source]`` name the slots
    holding target ``k``'s value and partial derivatives (``None``: not connected);
    ``saturation`` the local slopes of the activations that may saturate (the backward pass
    computes the same slopes, so checking them costs one comparison).
    """

    variables: tuple[str, ...]
    sources: tuple[str, ...]
    constants: dict[int, np.ndarray]
    steps: list[Step]
    values: list[int]
    gradients: list[dict[str, int | None]]
    saturation: tuple[int, ...] = ()
    size: int = 0
    #: the tape record index of each ``saturation`` slope; ``None`` with several targets,
    #: whose findings only a full tape sorts out (then any finding sends the batch there)
    saturating_records: tuple[int, ...] | None = None
    #: how many arrays of one chunk's length the steps' ``buffer`` numbers
    buffers: int = 0
    #: the fused kernels, once built (see :func:`gradcalc.engine.compile.fused.kernels_of`)
    built_kernels: list[Any] = field(default_factory=list, repr=False)
    #: the native loop, once compiled (see :func:`gradcalc.engine.compile.native.kernel_of`)
    built_native: list[Any] = field(default_factory=list, repr=False)

    def kept_slots(self) -> list[int]:
        """The slots read once the program has run: each target's value, the saturation
        slopes, then every connected partial derivative (a slot may come twice)."""
        return [*self.values, *self.saturation, *self.partial_slots()]

    def partial_slots(self) -> list[int]:
        """The slot of every connected partial derivative, target by target."""
        return [s for target in self.gradients for s in target.values() if s is not None]
