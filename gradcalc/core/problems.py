"""What makes a tape's values or gradients untrustworthy: inputs outside an op's domain,
points where it is not differentiable, and NaN or infinite values and adjoints that their
inputs do not explain -- each a :class:`Problem` with the points it affects.

>>> from gradcalc import Tape, Variable, F
>>> x = Variable([4.0, -1.0])
>>> with Tape() as tape:
...     y = F.sqrt(x)
>>> [(p.kind, p.mask.tolist()) for p in find_problems(tape.records, {x.id})]
[('undefined', [False, True])]
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from gradcalc.core.ops import UNDEFINED, Op
from gradcalc.core.tensor import Tensor

__all__ = ["NON_FINITE_ADJOINT", "NON_FINITE_VALUE", "Problem", "Recorded", "find_problems"]

NON_FINITE_VALUE = "non-finite value"
NON_FINITE_ADJOINT = "non-finite adjoint"


class Recorded(Protocol):
    """What a problem reads of a tape's record (a :class:`gradcalc.core.tape.Record`; named
    here by what it offers, so that this module need not import the tape that imports it)."""

    @property
    def index(self) -> int: ...
    @property
    def op(self) -> Op: ...
    @property
    def inputs(self) -> tuple[Tensor, ...]: ...
    @property
    def output(self) -> Tensor: ...
    @property
    def params(self) -> dict[str, Any]: ...
    @property
    def adjoint(self) -> np.ndarray | None: ...
    @property
    def value(self) -> np.ndarray: ...


@dataclass(frozen=True)
class Problem:
    """Something about a record that makes its value or gradient untrustworthy.

    ``kind`` is one of ``"undefined"`` (inputs outside the op's domain),
    ``"not differentiable"`` (a kink, jump or infinite slope), ``"non-finite value"``
    or ``"non-finite adjoint"`` (NaN or infinity, e.g. overflow). ``mask`` marks the
    affected points.
    """

    record: Recorded
    kind: str
    reason: str
    mask: np.ndarray

    def __repr__(self) -> str:
        return f"<Problem {self}>"

    def __str__(self) -> str:
        return f"record #{self.record.index} ({self.record.op.name}): {self.kind}: {self.reason}"


def find_problems(records: Sequence[Recorded], on_tape: Container[int]) -> list[Problem]:
    """Every record whose inputs are outside the op's domain, at a point where it is not
    differentiable, or whose value or adjoint is NaN or infinite, in tape order; an input
    not in ``on_tape`` (ids of the tensors differentiated through) raises no domain issue."""
    found: list[Problem] = []
    trouble: dict[int, np.ndarray] = {}  # record output id -> points with a problem there
    for rec, finite in zip(records, finite_each([rec.output.value for rec in records])):
        if finite and rec.op.domain is None and rec.op.backward_issues is None:
            continue  # (nothing for _value_problems to find)
        problems = _value_problems(rec, on_tape) + _backward_problems(rec)
        found += problems
        if problems:
            trouble[rec.output.id] = _union(rec.value.shape, (p.mask for p in problems))
    unexplained = [
        rec
        for rec, finite in zip(records, finite_each([rec.adjoint for rec in records]))
        if not finite
    ]
    users: dict[int, list[Recorded]] = {}
    for rec in records if unexplained else ():
        for t in rec.inputs:
            users.setdefault(t.id, []).append(rec)
    for rec in unexplained:
        assert rec.adjoint is not None  # (finite_each calls a missing adjoint finite)
        adjoint = np.broadcast_to(rec.adjoint, rec.value.shape)
        # a non-finite adjoint is news only where no later record already explains it
        explained = _trouble(trouble, rec).copy()
        for user in users.get(rec.output.id, ()):
            if user.adjoint is not None:
                caused = _trouble(trouble, user) | ~np.isfinite(user.adjoint)
                explained |= caused if caused.shape == explained.shape else caused.any()
        news = ~np.isfinite(adjoint) & ~explained
        found += _non_finite_problems(rec, NON_FINITE_ADJOINT, adjoint, news)
    found.sort(key=lambda p: p.record.index)
    return found


def finite_each(arrays: Sequence[np.ndarray | None]) -> list[bool]:
    """Whether each array holds only finite numbers (``None``, no array, counts as finite).
    Where all of them do -- the usual case -- one numpy call over the small ones says so:
    checking 30,000 one-point records one by one costs 30,000 calls.

    >>> finite_each([np.array(1.0), None, np.array([2.0, np.inf]), np.zeros(100)])
    [True, True, False, True]
    """
    small = [
        a if a.ndim == 1 else a.reshape(-1)  # (comprehensions: this runs once per record)
        for a in arrays
        if a is not None and a.size <= _SMALL
    ]
    if not small or np.isfinite(np.concatenate(small)).all():  # the large ones one by one
        return [a is None or a.size <= _SMALL or bool(np.isfinite(a).all()) for a in arrays]
    return [a is None or bool(np.isfinite(a).all()) for a in arrays]  # (some is not: which)


#: The arrays :func:`finite_each` checks together (one point each, or a few).
_SMALL = 64


def _value_problems(rec: Recorded, on_tape: Container[int]) -> list[Problem]:
    """Domain issues of one record, and a non-finite value its inputs do not explain."""
    found = []
    for issue in rec.op.issues(*(t.value for t in rec.inputs), **rec.params):
        if not issue.concerns([t.id not in on_tape for t in rec.inputs]):
            continue  # concerns an input nobody differentiates with respect to
        found.append(
            Problem(rec, issue.kind, issue.reason, np.broadcast_to(issue.mask, rec.value.shape))
        )
    if not found and np.isfinite(rec.value).all():
        return found
    undefined = _union(rec.value.shape, (p.mask for p in found if p.kind == UNDEFINED))
    if rec.op.elementwise:
        inputs_finite = _union(rec.value.shape, (~np.isfinite(t.value) for t in rec.inputs)) == 0
    else:  # each result element may depend on every input element
        inputs_finite = np.full(
            rec.value.shape, all(np.isfinite(t.value).all() for t in rec.inputs)
        )
    news = ~np.isfinite(rec.value) & ~undefined & inputs_finite
    return found + _non_finite_problems(rec, NON_FINITE_VALUE, rec.value, news)


def _backward_problems(rec: Recorded) -> list[Problem]:
    """What a backward function the user wrote gave wrong for the record's adjoint (every
    point of the record: each may depend on every input)."""
    if rec.adjoint is None or rec.op.backward_issues is None:
        return []
    everywhere = np.ones(rec.value.shape, dtype=bool)
    return [Problem(rec, i.kind, i.reason, everywhere) for i in rec.op.backward_issues()]


def _trouble(trouble: dict[int, np.ndarray], rec: Recorded) -> np.ndarray:
    """The points where ``rec`` has a problem of its own (none if it is not in ``trouble``)."""
    found = trouble.get(rec.output.id)
    return np.zeros(rec.value.shape, dtype=bool) if found is None else found


def _union(shape: tuple[int, ...], masks: Iterator[np.ndarray] | Any) -> np.ndarray:
    """The points marked in any of ``masks`` (broadcast to ``shape``)."""
    union = np.zeros(shape, dtype=bool)
    for mask in masks:
        union |= mask
    return union


def _non_finite_problems(
    rec: Recorded, kind: str, values: np.ndarray, mask: np.ndarray
) -> list[Problem]:
    """Separate problems for the NaN points and the infinite points under ``mask``."""
    nan = mask & np.isnan(values)
    inf = mask & np.isinf(values)
    return [
        Problem(rec, kind, reason, where)
        for reason, where in (("NaN (not a number)", nan), ("overflow to infinity", inf))
        if where.any()
    ]
