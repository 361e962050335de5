"""``custom_gradient``: a function whose gradient you write yourself, as TensorFlow's
``tf.custom_gradient``.

The decorated function returns its result and a function ``backward(dy)`` giving, for the
adjoint ``dy`` of the result, one gradient per argument (its vector-Jacobian product), each
shaped like its argument. A function with several results returns them as a tuple (or list),
as TensorFlow's: the call gives a tuple, and ``backward`` takes one adjoint per result
(``backward(dy1, dy2)``; zeros for a result the target does not use). The call's result is
one record of its own, named after the function, whose gradient rule is ``backward`` (the
results of a tuple are pieces of it) -- so the tape shows it like any op, and gradients reach
the arguments only through ``backward``; a NaN or infinity it gives from a finite adjoint
is a problem of that record (``Tape.problems``). As in TensorFlow, the operations inside
the function are recorded too (each record's ``inside`` names the function;
``Tape.problems`` counts them only where a result depends on them): ``backward`` may use
what the function computed, and an outer tape differentiates through it -- so second and
higher derivatives are right when ``backward`` is written with gradcalc's operations (a
value computed with numpy is a constant to tapes).

>>> from gradcalc import Tape, Variable, clip_by_norm
>>> @custom_gradient
... def clip_gradients(y):
...     def backward(dy):
...         return clip_by_norm(dy, 0.5)
...     return y, backward
>>> v = Variable(2.0)
>>> with Tape() as tape:
...     output = clip_gradients(v * v)
>>> tape.gradient(output, v)              # backward clips 4 to 0.5, times d(v*v)/dv = 4
Tensor(2.)
>>> [record.op.name for record in tape.records]
['mul', 'clip_gradients']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gradcalc.core.errors import ShapeError
from gradcalc.core.ops import F
from gradcalc.core.ops.record import DomainIssue, Op
from gradcalc.core.problems import NON_FINITE_ADJOINT
from gradcalc.core.tape import Tape
from gradcalc.core.tensor import Tensor, active_tapes, as_tensor

Backward = Callable[..., Any]


def custom_gradient(f: Callable[..., tuple[Any, Backward]]) -> Callable[..., Any]:
    """Decorate ``f(*tensors) -> (result, backward)`` so that the gradient through a call is
    ``backward(dy)``: one gradient per argument (a tensor shaped like it; for one argument, a
    tensor or a one-element sequence; ``None``: zero). A tuple or list of results makes the
    call give a tuple, and ``backward`` takes one adjoint per result.

    Raises:
        TypeError: when ``f`` does not return ``(result, function)``, when ``backward``
            gives the wrong number of gradients, or when ``f`` reads a trainable
            ``Variable`` that is not one of its arguments (its
            gradient would be lost silently: pass it as an argument).
        ShapeError: when ``backward`` gives a gradient of another shape than its argument's.
    """

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        inputs = [as_tensor(a) for a in args]
        results, backward = _run(f, inputs, kwargs)
        several = isinstance(results, list)
        outputs = results if several else [results]
        packed = np.concatenate([t.value.ravel() for t in outputs]) if several else results.value
        rules = _Rules(f.__name__, _unpacking(backward, outputs) if several else backward)
        op = Op(
            f.__name__,
            len(inputs),
            lambda *values: packed,
            tuple(rules.rule(k) for k in range(len(inputs))),
            _no_symbolic,
            elementwise=False,
            shapes="",
            backward_issues=rules.issues,
        )
        output: Tensor = op(*inputs)
        return tuple(_pieces(output, outputs)) if several else output

    return call


def _run(f: Callable[..., Any], inputs: list[Tensor], kwargs: dict[str, Any]) -> Any:
    """``f``'s result (a list of tensors for a tuple or list of results) and backward function.
    The active tapes record the operations inside ``f``, each record marked as made inside
    it; a probe tape finds the variables it reads."""
    tapes = list(active_tapes)
    before = [len(tape.records) for tape in tapes]
    with Tape() as probe:
        returned = f(*inputs, **kwargs)
    for tape, start in zip(tapes, before):
        for rec in tape.records[start:]:
            rec.inside = rec.inside or f.__name__  # (calls nested: the innermost's name)
    if not (isinstance(returned, tuple) and len(returned) == 2 and callable(returned[1])):
        raise TypeError(f"{f.__name__} must return (result, backward), a tensor and a function")
    given = {t.id for t in inputs}
    hidden = [v for v in probe.watched_variables() if v.id not in given]
    if hidden:
        names = ", ".join(v.name or repr(v) for v in hidden)
        raise TypeError(
            f"{f.__name__} reads the variable(s) {names} without taking them as arguments: "
            "their gradients would be lost; pass them as arguments"
        )
    result = returned[0]
    if isinstance(result, (tuple, list)):
        return [as_tensor(r) for r in result], returned[1]
    return as_tensor(result), returned[1]


def _pieces(packed: Tensor, outputs: list[Tensor]) -> list[Tensor]:
    """The results of a call with several, cut from its one record (each a recorded piece,
    so the adjoint of the record gathers theirs)."""
    pieces, start = [], 0
    for t in outputs:
        piece = packed[start : start + t.value.size]
        pieces.append(piece if piece.shape == t.shape else F.reshape(piece, shape=t.shape))
        start += t.value.size
    return pieces


def _unpacking(backward: Backward, outputs: list[Tensor]) -> Backward:
    """``backward`` of several results, called with the adjoint of their packed record."""
    return lambda g: backward(*_pieces(g, outputs))


class _Rules:
    """One gradient rule per argument, all from one call of ``backward`` per adjoint, and the
    NaN or infinity its latest call gave from a finite adjoint (``issues``)."""

    def __init__(self, name: str, backward: Backward):
        self.name, self.backward = name, backward
        self.adjoint: Tensor | None = None  # the adjoint seen last
        self.given: Sequence[Any] = ()  # backward's gradients for it

    def gradients(self, g: Tensor, xs: tuple[Tensor, ...]) -> Sequence[Tensor]:
        if self.adjoint is not g:
            given = self.backward(g)
            if len(xs) == 1 and not isinstance(given, (list, tuple)):
                given = [given]
            if not isinstance(given, (list, tuple)) or len(given) != len(xs):
                count = len(given) if isinstance(given, (list, tuple)) else 1
                raise TypeError(
                    f"the backward function of {self.name} gave {count} gradient(s) "
                    f"for {len(xs)} argument(s)"
                )
            self.adjoint, self.given = g, [self._checked(v, x, k) for k, (v, x) in
                                           enumerate(zip(given, xs))]  # fmt: skip
        return self.given

    def _checked(self, value: Any, x: Tensor, k: int) -> Tensor:
        if value is None:
            return Tensor(np.zeros_like(x.value))
        gradient = as_tensor(value)
        if gradient.shape != x.shape:
            raise ShapeError(
                f"the backward function of {self.name} gave a gradient of shape "
                f"{gradient.shape} for argument {k + 1}, of shape {x.shape}: they must be equal"
            )
        return gradient

    def rule(self, k: int) -> Callable[..., Tensor]:
        return lambda g, ans, *xs: self.gradients(g, xs)[k]

    def issues(self) -> list[DomainIssue]:
        """A NaN or infinity that ``backward`` gave from a finite adjoint, at its latest call."""
        if self.adjoint is None or not np.isfinite(self.adjoint.value).all():
            return []
        found = []
        for test, what in ((np.isnan, "NaN (not a number)"), (np.isinf, "infinity")):
            if any(test(t.value).any() for t in self.given):
                reason = f"the backward function of {self.name} gave {what}"
                found.append(DomainIssue(NON_FINITE_ADJOINT, np.array(True), reason))
        return found


def _no_symbolic(sp: Any, *args: Any, **params: Any) -> Any:
    raise TypeError("a custom gradient has no symbolic counterpart")
