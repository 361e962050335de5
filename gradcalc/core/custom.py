"""``custom_gradient``: a function whose gradient you write yourself, as TensorFlow's
``tf.custom_gradient``.

The decorated function returns its result and a function ``backward(dy)`` giving, for the
adjoint ``dy`` of the result, one gradient per argument (its vector-Jacobian product). The
call's result is one record of its own, named after the function, whose gradient rule is
``backward`` -- so the tape shows it like any op, and gradients reach the arguments only
through ``backward``. As in TensorFlow, the operations inside the function are recorded too
(each record's ``inside`` names the function; ``Tape.problems`` counts them only where a
result depends on them): ``backward`` may use what the function computed, and an outer tape
differentiates through it -- so second and higher derivatives are right when ``backward``
is written with gradcalc's operations (a value computed with numpy is a constant to tapes).

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

from gradcalc.core.ops.record import Op
from gradcalc.core.tape import Tape
from gradcalc.core.tensor import Tensor, active_tapes, as_tensor

Backward = Callable[[Tensor], Any]


def custom_gradient(f: Callable[..., tuple[Any, Backward]]) -> Callable[..., Tensor]:
    """Decorate ``f(*tensors) -> (result, backward)`` so that the gradient through a call is
    ``backward(dy)``: one gradient per argument (a tensor; for one argument, a tensor or a
    one-element sequence; ``None``: zero).

    Raises:
        TypeError: when ``f`` does not return ``(tensor, function)``, when ``backward``
            gives the wrong number of gradients, or when ``f`` reads a trainable
            ``Variable`` that is not one of its arguments (its
            gradient would be lost silently: pass it as an argument).
    """

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Tensor:
        inputs = [as_tensor(a) for a in args]
        result, backward = _run(f, inputs, kwargs)
        op = Op(
            f.__name__,
            len(inputs),
            lambda *values: result.value,
            _rules(f.__name__, backward, len(inputs)),
            _no_symbolic,
            elementwise=False,
            shapes="",
        )
        output: Tensor = op(*inputs)
        return output

    return call


def _run(f: Callable[..., Any], inputs: list[Tensor], kwargs: dict[str, Any]) -> Any:
    """``f``'s result and backward function. The active tapes record the operations inside
    ``f``, each record marked as made inside it; a probe tape finds the variables it reads."""
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
    return as_tensor(returned[0]), returned[1]


def _rules(name: str, backward: Backward, arity: int) -> tuple[Callable[..., Tensor], ...]:
    """One rule per argument, all from one call of ``backward`` per adjoint."""
    last: list[Any] = [None, ()]  # the adjoint seen last and backward's gradients for it

    def gradients(g: Tensor) -> Sequence[Any]:
        if last[0] is not g:
            given = backward(g)
            if arity == 1 and not isinstance(given, (list, tuple)):
                given = [given]
            if not isinstance(given, (list, tuple)) or len(given) != arity:
                count = len(given) if isinstance(given, (list, tuple)) else 1
                raise TypeError(
                    f"the backward function of {name} gave {count} gradient(s) "
                    f"for {arity} argument(s)"
                )
            last[:] = [g, given]
        result: Sequence[Any] = last[1]
        return result

    def rule(k: int) -> Callable[..., Tensor]:
        def part(g: Tensor, ans: Tensor, *xs: Tensor) -> Tensor:
            value = gradients(g)[k]
            return Tensor(np.zeros_like(xs[k].value)) if value is None else as_tensor(value)

        return part

    return tuple(rule(k) for k in range(arity))


def _no_symbolic(sp: Any, *args: Any, **params: Any) -> Any:
    raise TypeError("a custom gradient has no symbolic counterpart")
