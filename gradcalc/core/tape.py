"""Reverse-mode differentiation with a ``GradientTape``-style tape.

Inside ``with Tape() as tape:`` every operation whose inputs the tape watches is appended to
``tape.records`` in execution order. ``tape.gradient`` walks the target's records in reverse
-- a plain loop, so graphs of any depth work -- and accumulates each record's adjoint with
the primitives' gradient rules. The rules are themselves recorded by any *outer* tape, so
nesting tapes gives second and higher derivatives -- and, as in TensorFlow, by a persistent
tape itself when its ``gradient`` is called inside its own ``with`` block.

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

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from gradcalc.core.errors import ShapeError
from gradcalc.core.nesting import (
    Unconnected,
    batch_seeds,
    flatten,
    jacobian_seeds,
    rebuild,
    result_of,
    seeds,
    stack_batch,
    stack_rows,
    tensors_of,
    unconnected_mode,
)
from gradcalc.core.ops import Op
from gradcalc.core.problems import Problem, find_problems
from gradcalc.core.sweep import between, sweep, upstream
from gradcalc.core.tensor import Tensor, Variable, active_tapes, variable_tapes


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
        inside: the ``custom_gradient`` function whose call made it (else ``None``): no
            result depends on it, only that function's backward pass may.
    """

    index: int
    op: Op
    inputs: tuple[Tensor, ...]
    output: Tensor
    params: dict[str, Any]
    adjoint: np.ndarray | None = None
    inside: str | None = None

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


Sources = Any  # a Tensor, or lists, tuples and dicts of Tensors, nested


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

    #: How a tape shows itself (``"text/plain"``, ``"text/html"``): filled in by
    #: :mod:`gradcalc.render.notebook.tapes` when it is imported (``gradcalc.Tape`` imports it).
    renderers: ClassVar[dict[str, Callable[[Tape], str]]] = {}

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self._recording = False
        self.reset()

    def reset(self) -> None:
        """Forget every record and watched tensor. Inside the ``with`` block the tape goes
        on recording from here, as if entered anew (as ``tf.GradientTape.reset``).

        >>> from gradcalc import Tape, Variable
        >>> x, y = Variable(2.0), Variable(3.0)
        >>> with Tape() as tape:
        ...     y_sq = y * y
        ...     tape.reset()
        ...     z = x * x + y_sq
        >>> tape.gradient(z, [x, y])
        [Tensor(4.), None]
        """
        #: The recorded operations, in execution order.
        self.records: list[Record] = []
        #: The tensors watched so far (explicitly, or variables that were read), in order.
        self.watched: list[Tensor] = []
        self._on_tape: set[int] = set()  # watched tensors and recorded outputs
        self._used = False
        self._adjoints: dict[int, np.ndarray] = {}
        self._producers: dict[int, Record] = {}  # each record by its output's id
        self._adjoined: list[Record] = []  # the records the latest gradient reached

    def __repr__(self) -> str:
        show = self.renderers.get("text/plain")
        return show(self) if show else f"<Tape: {len(self.records)} records>"

    def _repr_html_(self) -> str | None:
        show = self.renderers.get("text/html")
        return show(self) if show else None

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
        for item in flatten(tensors):
            if not isinstance(item, Tensor):
                raise TypeError(
                    f"watch() takes tensors, got {type(item).__name__}; "
                    "wrap numbers with gradcalc.constant(...)"
                )
            if item.id not in self._on_tape:
                self._on_tape.add(item.id)
                self.watched.append(item)
                if isinstance(item, Variable):
                    variable_tapes.add(self)

    def watched_variables(self) -> tuple[Variable, ...]:
        """The variables this tape watches, in the order they were made.

        >>> from gradcalc import Tape, Variable
        >>> a, b = Variable(1.0, name="a"), Variable(2.0, name="b")
        >>> with Tape() as tape:
        ...     y = b * a
        >>> [v.name for v in tape.watched_variables()]
        ['a', 'b']
        """
        found = [t for t in self.watched if isinstance(t, Variable)]
        return tuple(sorted(found, key=lambda v: v.id))

    def freeze(self, variable: Variable) -> None:
        """Before ``variable`` changes (``assign``): the records that read it keep the value
        they read (a :meth:`~gradcalc.core.tensor.Variable.snapshot` with its id)."""
        if variable.id not in self._on_tape:
            return
        snapshot = variable.snapshot()
        for rec in self.records:
            if any(t is variable for t in rec.inputs):
                rec.inputs = tuple([snapshot if t is variable else t for t in rec.inputs])

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
                if isinstance(t, Variable) and t.trainable and t.id not in on_tape:
                    self.watch(t)
        for t in inputs:
            if t.id in on_tape:
                on_tape.add(output.id)
                rec = Record(len(self.records) + 1, op, inputs, output, params)
                self.records.append(rec)
                self._producers[output.id] = rec
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

        Raises:
            TapeError: outside the tape's ``with`` block (as TensorFlow's, which raises there).
        """
        if self not in active_tapes:
            msg = "stop_recording() pauses a tape inside its with block; it is not recording here"
            raise TapeError(msg)
        was = self._recording
        self._recording = False
        try:
            yield
        finally:
            self._recording = was

    # --- differentiation -------------------------------------------------------------

    def gradient(
        self,
        target: Any,
        sources: Sources,
        output_gradients: Any = None,
        unconnected_gradients: Unconnected = "none",
        unconnected: Unconnected | None = None,
    ) -> Any:
        """d(target)/d(source) for each source, in the same structure as ``sources``.

        A target with several elements (many points at once) is differentiated as the sum
        of its elements, and several targets (a list, a dict, nested) as the sum of all of
        them, as in TensorFlow: for elementwise expressions this gives each point's own
        gradient. A source that is itself a target gets ones for that target. Called inside
        the ``with`` block of a persistent tape, the tape records the call (as TensorFlow's
        does): the result can be differentiated by the same tape; call it after the block
        when you need only the gradient (no records added).

        Args:
            target: the tensor to differentiate, or lists, tuples and dicts of them.
            sources: a tensor, or lists, tuples and dicts of tensors (nested).
            output_gradients: the adjoint to start from, shaped like ``target`` (default:
                ones); for several targets, one per target in the same structure (``None``:
                ones).
            unconnected_gradients: what a source the target does not depend on gets:
                ``"none"`` (default) or ``"zero"`` (or :class:`UnconnectedGradients`);
                ``unconnected`` is another name for it.

        Returns:
            Tensors (or ``None``) shaped like ``sources``.

        Raises:
            TapeError: on a second call to a non-persistent tape.
            TypeError: for a target or source that is not a tensor (a string names nothing).
            ShapeError: for ``output_gradients`` not shaped like their targets.

        >>> from gradcalc import Tape, Variable, constant
        >>> w1, w2 = Variable(5.0), Variable(3.0)
        >>> with Tape() as tape:
        ...     z = 3 * w1**2 + 2 * w1 * w2
        >>> tape.gradient(z, {"w1": w1, "w2": w2})
        {'w1': Tensor(36.), 'w2': Tensor(10.)}
        """
        mode = unconnected_mode(unconnected_gradients, unconnected)
        self._claim("gradient")
        targets, flat = tensors_of(target, "target"), tensors_of(sources, "source")
        adjoints = self._backward(targets, flat, seeds(target, targets, output_gradients), True)
        return rebuild(sources, [result_of(adjoints, s, mode) for s in flat])

    def jacobian(
        self,
        target: Tensor,
        sources: Sources,
        unconnected_gradients: Unconnected = "none",
        unconnected: Unconnected | None = None,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """The full Jacobian: for each source, an array shaped ``target.shape + source.shape``
        (recorded by the tapes that record meanwhile, so they can differentiate it again);
        ``parallel_iterations``, ``experimental_use_pfor``: ignored (TensorFlow's ways to it).

        >>> from gradcalc import Tape, Variable
        >>> x = Variable([1.0, 2.0])
        >>> with Tape() as tape:
        ...     y = x ** 2
        >>> tape.jacobian(y, x)
        Tensor([[2., 0.],
                [0., 4.]])
        """
        mode = unconnected_mode(unconnected_gradients, unconnected)
        self._claim("jacobian")
        (target,) = tensors_of(target, "target", one=True)
        flat = tensors_of(sources, "source")
        rows: list[list[Tensor | None]] = []
        for seed in jacobian_seeds(target.shape):
            adjoints = self._backward([target], flat, [Tensor(seed)])
            rows.append([result_of(adjoints, s, mode) for s in flat])
        return rebuild(sources, [stack_rows(target, s, col) for s, col in zip(flat, zip(*rows))])

    def batch_jacobian(
        self,
        target: Tensor,
        source: Tensor,
        unconnected_gradients: Unconnected = "none",
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Tensor | None:
        """For a stack of independent examples -- ``target`` shaped ``(batch, *outs)`` made
        from ``source`` shaped ``(batch, *ins)``, row b only from row b -- each row's
        Jacobian: shape ``(batch, *outs, *ins)``, one backward pass per output element (as
        ``tf.GradientTape.batch_jacobian``; it does not check that the rows are independent;
        ``parallel_iterations`` and ``experimental_use_pfor`` are ignored, as in ``jacobian``).

        >>> from gradcalc import Tape, constant
        >>> x = constant([[1.0, 2.0], [3.0, 4.0]])
        >>> with Tape() as tape:
        ...     tape.watch(x)
        ...     y = x ** 2
        >>> tape.batch_jacobian(y, x)
        Tensor([[[2., 0.],
                 [0., 4.]],
        <BLANKLINE>
                [[6., 0.],
                 [0., 8.]]])

        Raises:
            ShapeError: when the first axes differ, or a tensor has no axis.
        """
        mode = unconnected_mode(unconnected_gradients, None)
        self._claim("batch_jacobian")
        (target,) = tensors_of(target, "target", one=True)
        (source,) = tensors_of(source, "source", one=True)
        if not target.shape or target.shape[:1] != source.shape[:1]:
            raise ShapeError(
                "batch_jacobian needs a target and a source with the same first axis, "
                f"got shapes {target.shape} and {source.shape}"
            )
        columns = []
        for seed in batch_seeds(target.shape):
            adjoints = self._backward([target], [source], [Tensor(seed)])
            columns.append(result_of(adjoints, source, mode))
        return stack_batch(target.shape, source, columns)

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

    def _backward(
        self, targets: list[Tensor], sources: list[Tensor], seeds: list[Tensor], keep: bool = False
    ) -> dict[int, Tensor]:
        """The adjoints from ``targets`` (each from its seed) back to ``sources``, iteratively."""
        ids = {s.id for s in sources}
        reached = {i for i in ids if i in self._on_tape} | {t.id for t in targets if t.id in ids}
        path = between(self._producers, targets, reached)  # (reached: and the path's outputs)
        start: dict[int, Tensor] = {}
        for t, seed in zip(targets, seeds):
            if t.id in reached:
                start[t.id] = seed if t.id not in start else start[t.id] + seed
        # a tape records its own backward pass only when persistent, as TensorFlow's
        was, self._recording = self._recording, self._recording and self.persistent
        try:
            adjoints, values = sweep(path, reached, start, ids)
        finally:
            self._recording = was
        if keep:
            self._adjoints = values
            for rec in (*self._adjoined, *path):  # (no other record holds an adjoint)
                rec.adjoint = values.get(rec.output.id)
            self._adjoined = path
        return adjoints

    # --- diagnostics -----------------------------------------------------------------

    def problems(self, target: Tensor | None = None) -> list[Problem]:
        """Every record (of ``target``'s sub-tape) whose inputs are outside the op's domain,
        at a point where it is not differentiable, or whose value or adjoint is not finite. A
        record made inside a ``custom_gradient`` function counts only where a result depends
        on it: on ``target``'s sub-tape, or (no target) when the latest gradient reached it.

        >>> from gradcalc import Tape, Variable, F
        >>> x = Variable(-1.0)
        >>> with Tape() as tape:
        ...     y = F.log(x)
        >>> [str(p) for p in tape.problems()]
        ['record #1 (log): undefined: ln is undefined for negative numbers']
        """
        if target is None:
            records = [r for r in self.records if r.inside is None or r.adjoint is not None]
        else:
            records = upstream(self._producers, [target])
        return find_problems(records, self._on_tape)
