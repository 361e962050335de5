"""Reverse-mode differentiation with a ``GradientTape``-style tape.

Inside ``with Tape() as tape:`` every operation whose inputs the tape watches is
appended to ``tape.records`` in execution order. ``tape.gradient`` walks those
records in reverse -- a plain loop, so graphs of any depth work -- and
accumulates each record's adjoint with the primitives' gradient rules. The rules
are themselves recorded by any *outer* tape, so nesting tapes gives second and
higher derivatives.

>>> from gradcalc import Tape, constant
>>> x = constant(3.0)
>>> with Tape(persistent=True) as tape:
...     tape.watch(x)
...     y = x ** 2
...     z = y ** 2
>>> tape.gradient(z, x)
Tensor(108.)
>>> tape.gradient(y, x)
Tensor(6.)
>>> tape.gradient(z, y)
Tensor(18.)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from gradcalc.core.ops import REGISTRY, Op
from gradcalc.core.problems import Problem, find_problems
from gradcalc.core.tensor import Tensor, Variable, active_tapes, as_tensor, quiet


class TapeError(RuntimeError):
    """A tape was used against its rules (see the message for the rule and the fix)."""


@dataclass(eq=False, slots=True)
class Record:
    """One recorded operation.

    Attributes:
        index: position on the tape, counting from 1.
        op: the primitive that ran.
        inputs: the input tensors (constants included).
        output: the tensor it produced.
        params: static parameters (only the internal shape ops have any).
        adjoint: d(target)/d(output) from the latest ``gradient`` call, or ``None``
            when the output does not lie between the sources and the target.
    """

    index: int
    op: Op
    inputs: tuple[Tensor, ...]
    output: Tensor
    params: dict[str, Any]
    adjoint: np.ndarray | None = None

    def __repr__(self) -> str:
        return (
            f"<Record #{self.index} {self.op.name} value={self.value!s} adjoint={self.adjoint!s}>"
        )

    @property
    def id(self) -> int:
        """The id of the output tensor."""
        return self.output.id

    @property
    def input_ids(self) -> tuple[int, ...]:
        """The ids of the input tensors."""
        return tuple(t.id for t in self.inputs)

    @property
    def value(self) -> np.ndarray:
        """The output value."""
        return self.output.value

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the output value (``()`` for one number); the adjoint, once
        computed, has the same shape or broadcasts to it."""
        return self.output.shape


Sources = Any  # a Tensor, a sequence of Tensors, or a dict of Tensors
Unconnected = Literal["none", "zero"]


class Tape:
    """Records operations on watched tensors so they can be differentiated.

    Args:
        persistent: allow several ``gradient``/``jacobian`` calls (the default allows one,
            as ``tf.GradientTape`` does).
        watch_accessed_variables: watch every :class:`~gradcalc.core.tensor.Variable` that an
            operation reads (default ``True``).

    A nested tape differentiates the gradient computed by an inner one:

    >>> from gradcalc import Tape, Variable
    >>> x = Variable(5.0)
    >>> with Tape() as outer:
    ...     with Tape() as inner:
    ...         y = x ** 3
    ...     dy = inner.gradient(y, x)
    >>> dy, outer.gradient(dy, x)
    (Tensor(75.), Tensor(30.))
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.reset()

    def reset(self) -> None:
        """Forget every record and watched tensor (the tape may be reused)."""
        #: The recorded operations, in execution order.
        self.records: list[Record] = []
        #: The tensors watched so far (explicitly, or variables that were read), in order.
        self.watched: list[Tensor] = []
        self._on_tape: set[int] = set()  # watched tensors and recorded outputs
        self._recording = False
        self._used = False
        self._adjoints: dict[int, np.ndarray] = {}

    # --- recording -------------------------------------------------------------------

    def __enter__(self) -> Tape:
        if self in active_tapes:
            raise TapeError("this tape is already recording; a tape cannot be entered twice")
        active_tapes.append(self)
        self._recording = True
        return self

    def __exit__(self, *exc: object) -> None:
        self._recording = False
        active_tapes.remove(self)

    def watch(self, *tensors: Tensor | list[Tensor]) -> None:
        """Record operations on these tensors from now on.

        >>> from gradcalc import Tape, constant
        >>> x = constant(2.0)
        >>> with Tape() as tape:
        ...     tape.watch(x)
        ...     y = 3 * x
        >>> tape.gradient(y, x)
        Tensor(3.)

        Raises:
            TypeError: for something that is not a tensor (wrap numbers with ``constant``).
        """
        for item in _flatten(tensors):
            if not isinstance(item, Tensor):
                raise TypeError(
                    f"watch() takes tensors, got {type(item).__name__}; "
                    "wrap numbers with gradcalc.constant(...)"
                )
            if item.id not in self._on_tape:
                self._on_tape.add(item.id)
                self.watched.append(item)

    def holds(self, tensor: Tensor) -> bool:
        """True when this tape records operations on ``tensor`` (watched, or made from
        a watched tensor while it recorded).

        >>> from gradcalc import Tape, Variable, constant
        >>> x = Variable(2.0)
        >>> with Tape() as tape:
        ...     y = x * 3
        >>> tape.holds(x), tape.holds(y), tape.holds(constant(3.0))
        (True, True, False)
        """
        return tensor.id in self._on_tape

    def record(
        self, op: Op, inputs: tuple[Tensor, ...], output: Tensor, params: dict[str, Any]
    ) -> None:
        """Append an operation if it reads a watched tensor (called by ``tensor.apply``)."""
        if not self._recording:
            return
        on_tape = self._on_tape
        if self.watch_accessed_variables:
            for t in inputs:
                if isinstance(t, Variable) and t.id not in on_tape:
                    self.watch(t)
        for t in inputs:
            if t.id in on_tape:
                on_tape.add(output.id)
                self.records.append(Record(len(self.records) + 1, op, inputs, output, params))
                return

    @contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Pause recording inside the ``with`` block.

        >>> from gradcalc import Tape, Variable
        >>> x = Variable(2.0)
        >>> with Tape() as tape:
        ...     y = x * x
        ...     with tape.stop_recording():
        ...         z = y * 10   # not recorded: z is a constant to this tape
        >>> print(tape.gradient(z, x))
        None
        """
        was = self._recording
        self._recording = False
        try:
            yield
        finally:
            self._recording = was

    # --- differentiation -------------------------------------------------------------

    def gradient(
        self,
        target: Tensor,
        sources: Sources,
        output_gradients: Any = None,
        unconnected: Unconnected = "none",
    ) -> Any:
        """d(target)/d(source) for each source, in the same structure as ``sources``.

        A target with several elements (many points at once) is differentiated as
        the sum of its elements, as in TensorFlow: for elementwise expressions this
        gives each point's own gradient.

        Args:
            target: the tensor to differentiate.
            sources: a tensor, a list/tuple of tensors, or a dict of tensors.
            output_gradients: the adjoint to start from (default: ones like ``target``).
            unconnected: what a source the target does not depend on gets:
                ``"none"`` (default) or ``"zero"``.

        Returns:
            Tensors (or ``None``) shaped like ``sources``.

        Raises:
            TapeError: on a second call to a non-persistent tape.

        >>> from gradcalc import Tape, Variable, constant
        >>> w1, w2 = Variable(5.0), Variable(3.0)
        >>> with Tape() as tape:
        ...     z = 3 * w1**2 + 2 * w1 * w2
        >>> tape.gradient(z, {"w1": w1, "w2": w2})
        {'w1': Tensor(36.), 'w2': Tensor(10.)}
        """
        _check_unconnected(unconnected)
        self._claim("gradient")
        flat = _source_list(sources)
        seed = as_tensor(
            np.ones_like(target.value) if output_gradients is None else output_gradients
        )
        adjoints = self._backward(target, flat, seed, keep=True)
        return _unflatten(sources, [self._result(adjoints, s, unconnected) for s in flat])

    def jacobian(self, target: Tensor, sources: Sources, unconnected: Unconnected = "none") -> Any:
        """The full Jacobian: for each source, an array shaped ``target.shape + source.shape``.

        >>> from gradcalc import Tape, Variable
        >>> x = Variable([1.0, 2.0])
        >>> with Tape() as tape:
        ...     y = x ** 2
        >>> tape.jacobian(y, x)
        Tensor([[2., 0.],
                [0., 4.]])
        """
        _check_unconnected(unconnected)
        self._claim("jacobian")
        flat = _source_list(sources)
        rows: list[list[Tensor | None]] = []
        for k in range(max(target.value.size, 1)):
            seed = np.zeros(target.value.size)
            seed[k] = 1.0
            adjoints = self._backward(target, flat, as_tensor(seed.reshape(target.shape)))
            rows.append([self._result(adjoints, s, unconnected) for s in flat])
        return _unflatten(
            sources, [_stack_rows(target, s, col) for s, col in zip(flat, zip(*rows))]
        )

    def adjoint(self, tensor: Tensor) -> np.ndarray | None:
        """The adjoint of a watched tensor or record output from the latest ``gradient`` call.

        >>> from gradcalc import Tape, Variable
        >>> x = Variable(3.0)
        >>> with Tape() as tape:
        ...     y = x * x
        >>> _ = tape.gradient(y, x)
        >>> tape.adjoint(x)
        array(6.)
        """
        return self._adjoints.get(tensor.id)

    def adjoints(self) -> Mapping[int, np.ndarray]:
        """Every adjoint from the latest ``gradient`` call, by tensor id. A later call makes a
        new mapping, so this one keeps describing its own call.

        >>> from gradcalc import Tape, Variable
        >>> x = Variable(3.0)
        >>> with Tape(persistent=True) as tape:
        ...     y = x * x
        >>> _ = tape.gradient(y, x)
        >>> first = tape.adjoints()
        >>> _ = tape.gradient(y, x, output_gradients=2.0)
        >>> first[x.id], tape.adjoints()[x.id]
        (array(6.), array(12.))
        """
        return MappingProxyType(self._adjoints)

    def _claim(self, what: str) -> None:
        if self._used and not self.persistent:
            raise TapeError(
                f"{what}() can only be called once on a non-persistent Tape; "
                "create it with Tape(persistent=True) to call it again"
            )
        self._used = True

    @staticmethod
    def _result(adjoints: dict[int, Tensor], source: Tensor, unconnected: str) -> Tensor | None:
        grad = adjoints.get(source.id)
        if grad is None and unconnected == "zero":
            return Tensor(np.zeros_like(source.value))
        return grad

    def _backward(
        self, target: Tensor, sources: list[Tensor], seed: Tensor, keep: bool = False
    ) -> dict[int, Tensor]:
        """Accumulate adjoints from ``target`` back to ``sources``; iterative, no recursion."""
        for s in sources:
            if not isinstance(s, Tensor):
                raise TypeError(f"sources must be tensors, got {type(s).__name__}")
        reached = {s.id for s in sources if s.id in self._on_tape}
        path: list[Record] = []
        for rec in self.records:
            for t in rec.inputs:  # (a loop, not any(): this runs once per record)
                if t.id in reached:
                    reached.add(rec.output.id)
                    path.append(rec)
                    break
        adjoints: dict[int, Tensor] = {}
        values: dict[int, np.ndarray] = {}
        was, self._recording = self._recording, False  # the backward pass is not our own record
        try:
            with quiet():
                if any(tape._recording for tape in active_tapes):  # it records this pass
                    if target.id in reached:
                        adjoints[target.id] = seed
                    _accumulate(path, reached, adjoints)
                    if keep:
                        values = {i: t.value for i, t in adjoints.items()}
                else:  # a first derivative: the same numbers on arrays, no tensor per op
                    if target.id in reached:
                        values[target.id] = seed.value
                    _accumulate_arrays(path, reached, values)
                    ids = {s.id for s in sources}
                    adjoints = {i: Tensor(v) for i, v in values.items() if i in ids}
        finally:
            self._recording = was
        if keep:
            self._adjoints = values
            for rec in self.records:
                rec.adjoint = values.get(rec.output.id)
        return adjoints

    # --- diagnostics -----------------------------------------------------------------

    def problems(self) -> list[Problem]:
        """Every record whose inputs are outside the op's domain, at a point where it is
        not differentiable, or whose value or adjoint is NaN or infinite, in tape order.

        >>> from gradcalc import Tape, Variable, F
        >>> x = Variable(-1.0)
        >>> with Tape() as tape:
        ...     y = F.log(x)
        >>> [str(p) for p in tape.problems()]
        ['record #1 (log): undefined: log is undefined for negative numbers']
        """
        return find_problems(self.records, self._on_tape)


def _accumulate(path: list[Record], reached: set[int], adjoints: dict[int, Tensor]) -> None:
    """The reverse sweep: each record on ``path``, last first, hands its adjoint to its
    inputs through the op's gradient rules (ops themselves, so outer tapes record them)."""
    sum_to, adjoint = REGISTRY["sum_to"], adjoints.get  # (this loop runs once per record)
    for rec in reversed(path):
        g = adjoint(rec.output.id)
        if g is None:
            continue
        inputs, output, params = rec.inputs, rec.output, rec.params
        for x, rule in zip(inputs, rec.op.grads):
            if x.id not in reached:
                continue
            part = rule(g, output, *inputs, **params)
            if part.value.shape != x.value.shape:
                part = sum_to(part, shape=x.value.shape)
            previous = adjoint(x.id)
            adjoints[x.id] = part if previous is None else previous + part


def _accumulate_arrays(
    path: list[Record], reached: set[int], adjoints: dict[int, np.ndarray]
) -> None:
    """:func:`_accumulate` on arrays, for a pass that no tape records: an op's
    ``array_grads`` where it has them (the same numpy calls as its rules, so the same
    numbers), else its rules on tensors made for the call."""
    sum_to, add, adjoint = REGISTRY["sum_to"].forward, REGISTRY["add"].forward, adjoints.get
    for rec in reversed(path):
        g = adjoint(rec.output.id)
        if g is None:
            continue
        inputs, params, rules = rec.inputs, rec.params, rec.op.array_grads
        if rules is None:
            tensor_rules, g_tensor = rec.op.grads, Tensor(g)
            parts = [
                rule(g_tensor, rec.output, *inputs, **params).value if x.id in reached else None
                for x, rule in zip(inputs, tensor_rules)
            ]
        else:
            values = [x.value for x in inputs]
            parts = [
                rule(g, rec.output.value, *values, **params) if x.id in reached else None
                for x, rule in zip(inputs, rules)
            ]
        for x, part in zip(inputs, parts):
            if part is None:
                continue
            if type(part) is not np.ndarray:  # a ufunc makes np.float64 of 0-d arrays
                part = np.asarray(part)
            if part.shape != x.value.shape:
                part = np.asarray(sum_to(part, shape=x.value.shape))
            previous = adjoint(x.id)
            adjoints[x.id] = part if previous is None else np.asarray(add(previous, part))


def _check_unconnected(unconnected: str) -> None:
    if unconnected not in ("none", "zero"):
        raise ValueError(f"unconnected must be 'none' or 'zero', got {unconnected!r}")


def _flatten(items: Any) -> list[Any]:
    """Tensors in a possibly nested list/tuple/dict structure, in order."""
    flat: list[Any] = []
    stack = [items]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        else:
            flat.append(item)
    return flat


def _source_list(sources: Sources) -> list[Tensor]:
    """The sources as a flat list: one tensor, a list/tuple of tensors, or a dict of tensors."""
    if isinstance(sources, dict):
        return list(sources.values())
    if isinstance(sources, (list, tuple)):
        return list(sources)
    return [sources]


def _unflatten(structure: Any, values: list[Any]) -> Any:
    """Put ``values`` back into the shape of ``structure`` (one level: tensor, sequence, dict)."""
    if isinstance(structure, dict):
        return dict(zip(structure, values))
    if isinstance(structure, (list, tuple)):
        return type(structure)(values)
    return values[0]


def _stack_rows(target: Tensor, source: Tensor, column: tuple[Tensor | None, ...]) -> Any:
    if all(c is None for c in column):
        return None
    parts = [np.zeros(source.shape) if c is None else c.value for c in column]
    return Tensor(np.stack(parts).reshape(target.shape + source.shape))
