"""The array type that tapes record: a float64 numpy array with an identity.

A :class:`Tensor` is immutable. Every arithmetic operator and every function in
:mod:`gradcalc.core.ops` makes a new tensor through :func:`apply`, which tells each
active tape about the operation. One tensor may hold one number (a 0-d array)
or a million points at once; every primitive works elementwise with numpy
broadcasting. This module knows no primitive: :mod:`gradcalc.core.ops` installs the
operators (``+``, ``*``, ...) on :class:`Tensor` when it is imported, as the public
``gradcalc`` names and every gradcalc module that computes do.

>>> from gradcalc import constant
>>> x = constant([1, 2, 3])
>>> (x * 2 + 1).value
array([3., 5., 7.])
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from gradcalc.core.errors import ShapeError

_next_id = itertools.count(1).__next__
_FLOAT64 = np.dtype(np.float64)

#: The tapes that are recording, outermost first (see ``gradcalc.core.tape.Tape``).
active_tapes: list[Any] = []
#: The tapes that watch a :class:`Variable`: an ``assign`` tells them, so the records made
#: before it keep the value they read.
variable_tapes: weakref.WeakSet[Any] = weakref.WeakSet()


def as_float_array(value: Any) -> np.ndarray:
    """Convert numbers, lists and arrays to a float64 numpy array.

    >>> as_float_array(3)
    array(3.)

    Raises:
        TypeError: for complex numbers, strings and other things that are not real numbers.
    """
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"expected real numbers, got {type(value).__name__} of kind {array.dtype}")
    return array.astype(np.float64, copy=False)


#: TensorFlow's and numpy's float type names, for ``dtype=`` (every tensor is float64).
float16, float32, float64 = np.float16, np.float32, np.float64


def check_float_dtype(dtype: Any) -> None:
    """Take ``dtype=`` as TensorFlow's ``Variable``, ``constant``, ``zeros`` and ``ones`` do:
    a float type (``float32``, ``"float64"``, numpy's or gradcalc's names) is accepted and
    the tensor is float64 all the same; ``None`` is no type given.

    >>> check_float_dtype(float32), check_float_dtype("float16"), check_float_dtype(None)
    (None, None, None)
    >>> check_float_dtype(np.int32)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: dtype=int32 is not taken: gradcalc computes in float64 and takes a float dtype ...

    Raises:
        TypeError: for an integer, complex, boolean or other type that is not a float.
    """
    if dtype is None:
        return
    try:
        kind = np.dtype(dtype).kind
    except TypeError:
        kind = ""
    if kind != "f":
        name = getattr(dtype, "__name__", None) or str(dtype)
        raise TypeError(
            f"dtype={name} is not taken: gradcalc computes in float64 and takes a float "
            "dtype only (float16, float32, float64)"
        )


class Tensor:
    """A float64 array that gradient tapes can record.

    Build one with :func:`constant` (not watched unless you ``tape.watch`` it) or
    :class:`Variable` (watched automatically). Use ``+ - * / **``, unary minus,
    ``abs`` and the functions of :mod:`gradcalc.core.ops` on it. A comparison gives numpy
    booleans, and a tensor of one element has a truth value, so Python's ``if`` and ``while``
    work on it (the tape records only the branch taken; the comparison itself has no
    gradient). numpy functions read it as an array (``np.mean(t, axis=0)``): their result is
    a numpy array that no tape records, as in TensorFlow. ``len(t)`` and ``for row in t`` go
    along the first axis, as numpy's and TensorFlow's do, each row an indexing ``t[i]`` that
    tapes record.

    >>> t = Tensor(2.0)
    >>> t.value, t.shape, bool(t > 1.0), float(np.mean(Tensor([1.0, 3.0])))
    (array(2.), (), True, 2.0)
    """

    __slots__ = ("_name", "id", "value")
    # Make numpy hand mixed expressions such as ``np.float64(2) * t`` back to us.
    __array_ufunc__ = None

    def __init__(self, value: Any, name: str | None = None):
        self.value = as_float_array(value)
        self.id = _next_id()
        if name is not None:
            self._name = name

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the value (``()`` for one number)."""
        return self.value.shape

    @property
    def name(self) -> str | None:
        """The name given when it was made (``constant(2.0, name="c")``), else ``None``.

        >>> constant(2.0, name="c").name, constant(2.0).name is None
        ('c', True)
        """
        return getattr(self, "_name", None)

    def numpy(self) -> np.ndarray:
        """The value as a numpy array.

        >>> constant([1.5, 2]).numpy()
        array([1.5, 2. ])
        """
        return self.value

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        array = self.value if dtype is None else self.value.astype(dtype)
        return array.copy() if copy else array

    def __pos__(self) -> Tensor:
        return self

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        body = np.array2string(self.value, separator=", ", threshold=8)
        return f"{type(self).__name__}({body})"

    def __bool__(self) -> bool:
        if self.value.size != 1:
            raise TypeError(
                f"the truth value of a Tensor of shape {self.shape} is ambiguous; "
                "only a tensor of one element is true or false (use .numpy().any() or .all())"
            )
        return bool(self.value.reshape(()))

    def __len__(self) -> int:
        """The length of the first axis.

        >>> len(Tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        3

        Raises:
            TypeError: for a 0-d tensor (one number), as numpy's ``len()`` of a 0-d array.
        """
        if not self.shape:
            raise TypeError("len() of a 0-d tensor (one number): it has no first axis")
        return self.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        """The rows along the first axis, ``self[0]``, ``self[1]``, ...: each an indexing that
        tapes record, so ``sum(t * t for t in v)`` has the gradient ``2 v``.

        >>> from gradcalc import Tape, Variable
        >>> v = Variable([1.0, 2.0])
        >>> with Tape() as tape:
        ...     y = sum(t * t for t in v)
        >>> [float(t) for t in v], tape.gradient(y, v)
        ([1.0, 2.0], Tensor([2., 4.]))

        Raises:
            TypeError: for a 0-d tensor (one number), as numpy's iteration over a 0-d array.
        """
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor (one number): it has no first axis")
        return (self[i] for i in range(self.shape[0]))

    def __lt__(self, other: Any) -> np.ndarray:
        return np.asarray(np.less(self.value, _plain(other)))

    def __le__(self, other: Any) -> np.ndarray:
        return np.asarray(np.less_equal(self.value, _plain(other)))

    def __gt__(self, other: Any) -> np.ndarray:
        return np.asarray(np.greater(self.value, _plain(other)))

    def __ge__(self, other: Any) -> np.ndarray:
        return np.asarray(np.greater_equal(self.value, _plain(other)))

    __hash__ = object.__hash__

    if TYPE_CHECKING:  # installed by gradcalc.core.ops from the registry's ``dunders``

        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __getitem__(self, key: Any) -> Tensor: ...


def _plain(value: Any) -> Any:
    """A comparison's other side as numbers (a tensor's value)."""
    return value.value if isinstance(value, Tensor) else value


class Variable(Tensor):
    """A tensor that every tape watches as soon as an operation reads it.

    Mirrors ``tf.Variable``: use it for the parameters you differentiate with
    respect to, so you do not need ``tape.watch``. ``trainable=False`` makes one that
    tapes watch only when told to; ``assign``, ``assign_add`` and ``assign_sub`` change
    its value in place (not recorded: a gradient does not flow through an assignment).
    ``dtype`` may name a float type (:func:`check_float_dtype`); the value is float64.

    >>> from gradcalc import Tape
    >>> w = Variable(5.0, name="w", dtype=float32)
    >>> with Tape() as tape:
    ...     y = w * w
    >>> tape.gradient(y, w), w.name
    (Tensor(10.), 'w')
    >>> w.assign_sub(1.0)
    Variable(4.)
    """

    __slots__ = ("trainable",)

    def __init__(
        self, value: Any, *, name: str | None = None, trainable: bool = True, dtype: Any = None
    ):
        check_float_dtype(dtype)
        super().__init__(value, name)
        self.trainable = trainable

    def assign(self, value: Any) -> Variable:
        """Give the variable a new value of the same shape (``x.assign(2.0)``).

        Records made before keep the value they read, as a tape reads a variable in
        TensorFlow; operations after it read the new value.

        >>> v = Variable([1.0, 2.0])
        >>> v.assign([3.0, 4.0]).value
        array([3., 4.])

        Raises:
            ShapeError: for a value of another shape.
        """
        new = np.array(as_float_array(_plain(value)))
        if new.shape != self.shape:
            raise ShapeError(
                f"assign() needs a value of the variable's shape {self.shape}, got {new.shape}"
            )
        for tape in list(variable_tapes):
            tape.freeze(self)
        self.value = new
        return self

    def assign_add(self, delta: Any) -> Variable:
        """``assign(value + delta)``.

        >>> Variable(1.0).assign_add(2)
        Variable(3.)
        """
        return self.assign(self.value + _plain(delta))

    def assign_sub(self, delta: Any) -> Variable:
        """``assign(value - delta)``.

        >>> Variable(1.0).assign_sub(2)
        Variable(-1.)
        """
        return self.assign(self.value - _plain(delta))

    def snapshot(self) -> Variable:
        """A variable with the same id and the current value: what records made so far
        read (an ``assign`` puts it in their place).

        >>> v = Variable(1.0)
        >>> s = v.snapshot()
        >>> _ = v.assign(2.0)
        >>> (s.id == v.id, float(s), float(v))
        (True, 1.0, 2.0)
        """
        copy = Variable.__new__(Variable)
        copy.value, copy.id, copy.trainable = self.value, self.id, self.trainable
        if self.name is not None:
            copy._name = self.name
        return copy


def is_constant(tensor: Tensor) -> bool:
    """True when no active tape can differentiate through ``tensor``: it is not a
    :class:`Variable` and no tape that is open records it. A gradient rule may then use
    its value (``x ** 1`` is ``x``) without losing a derivative.

    >>> from gradcalc import Tape
    >>> c, x = constant(2.0), Variable(1.0)
    >>> with Tape() as tape:
    ...     y = x * c
    ...     is_constant(c), is_constant(y), is_constant(x)
    (True, False, False)
    """
    if isinstance(tensor, Variable) and tensor.trainable:
        return False
    return not any(tape.holds(tensor) for tape in active_tapes)


def recording() -> bool:
    """True when an active tape records (one not paused by ``stop_recording``): what is
    computed now may be differentiated by it, so it must be made of recorded operations.

    >>> from gradcalc import Tape
    >>> with Tape() as tape:
    ...     inside = recording()
    ...     with tape.stop_recording():
    ...         paused = recording()
    >>> inside, paused, recording()
    (True, False, False)
    """
    return any(tape._recording for tape in active_tapes)


def constant(value: Any, name: str | None = None, *, dtype: Any = None) -> Tensor:
    """Make a tensor that tapes record only after ``tape.watch``.

    Integers become floats (so they have gradients, unlike TensorFlow's integer tensors);
    lists become arrays. ``dtype`` may name a float type (see :func:`check_float_dtype`):
    the tensor is float64 all the same.

    >>> constant(3)
    Tensor(3.)
    >>> constant([1, 2], name="pair", dtype=float32).shape
    (2,)
    """
    check_float_dtype(dtype)
    return Tensor(value, name)


def as_tensor(value: Any) -> Tensor:
    """Return ``value`` itself if it is a tensor, else a new constant.

    >>> t = constant(1.0)
    >>> as_tensor(t) is t, as_tensor(2).value
    (True, array(2.))
    """
    return value if isinstance(value, Tensor) else Tensor(value)


def stop_gradient(value: Any) -> Tensor:
    """A constant with the same value: no tape sees a path through it.

    >>> from gradcalc import Tape, Variable
    >>> x = Variable(3.0)
    >>> with Tape() as tape:
    ...     y = x * stop_gradient(x)   # the second factor counts as a constant
    >>> tape.gradient(y, x)
    Tensor(3.)
    """
    return Tensor(as_tensor(value).value)


class Primitive(Protocol):
    """What :func:`apply` needs of an op (the registry's :class:`~gradcalc.core.ops.Op`)."""

    @property
    def name(self) -> str: ...
    @property
    def arity(self) -> int: ...
    @property
    def forward(self) -> Callable[..., Any]: ...
    @property
    def shapes(self) -> str: ...


def _shape_error(
    op: Primitive, inputs: tuple[Tensor, ...], params: dict[str, Any], error: Exception
) -> ShapeError:
    """The one-line error for inputs whose shapes ``op`` cannot take.

    >>> from gradcalc.core.ops import REGISTRY
    >>> print(_shape_error(REGISTRY["matmul"], (Tensor([1.0]), Tensor([1.0, 2.0])), {}, None))
    matmul cannot take shapes (1,) and (2,): (..., m, n) @ (..., n, k), the inner sizes equal
    """
    shapes = " and ".join(str(t.shape) for t in inputs)
    given = "".join(f", {k}={v}" for k, v in params.items() if k in ("axis", "index"))
    plural = "s" if len(inputs) > 1 else ""
    return ShapeError(f"{op.name} cannot take shape{plural} {shapes}{given}: {op.shapes or error}")


def apply(op: Primitive, *args: Any, **params: Any) -> Tensor:
    """Run primitive ``op`` on ``args`` and let each active tape record it.

    This is the single place where a primitive is executed; operators and the
    functions in :mod:`gradcalc.core.ops` all come through here (calling an op is this
    function). Floating-point warnings are silenced: a NaN or infinity is kept in the value
    and reported by ``Tape.problems()`` instead.

    >>> from gradcalc.core.ops import REGISTRY
    >>> apply(REGISTRY["mul"], 3, 4)
    Tensor(12.)
    >>> REGISTRY["sin"](1, 2)
    Traceback (most recent call last):
    TypeError: sin() takes 1 argument(s), got 2
    """
    # (the hot path of every tape: comprehensions, not generators, and no helper calls)
    if len(args) != op.arity:
        raise TypeError(f"{op.name}() takes {op.arity} argument(s), got {len(args)}")
    inputs = tuple([a if isinstance(a, Tensor) else Tensor(a) for a in args])
    try:
        if _Quiet.depth:  # a caller holds quiet() for many ops (a graph, a backward pass)
            value = op.forward(*[t.value for t in inputs], **params)
        else:
            with quiet():
                value = op.forward(*[t.value for t in inputs], **params)
    except (ValueError, IndexError) as error:  # numpy refuses the shapes, axis or index
        raise _shape_error(op, inputs, params, error) from None
    # the float64 result wrapped without as_float_array's checks
    if type(value) is not np.ndarray:  # a ufunc makes np.float64 of 0-d arrays
        value = np.asarray(value) if type(value) is np.float64 else as_float_array(value)
    elif value.dtype is not _FLOAT64:  # (float64 is one dtype object: no comparison needed)
        value = as_float_array(value)
    output = Tensor.__new__(Tensor)
    output.value, output.id = value, _next_id()
    for tape in active_tapes:
        tape.record(op, inputs, output, params)
    return output


class _Quiet:
    """``with quiet():`` silences floating-point warnings once for many ops (entering
    ``np.errstate`` costs more than a small op itself)."""

    depth = 0

    def __enter__(self) -> None:
        if not _Quiet.depth:
            self.state = np.errstate(all="ignore")
            self.state.__enter__()
        _Quiet.depth += 1

    def __exit__(self, *exc: Any) -> None:
        _Quiet.depth -= 1
        if not _Quiet.depth:
            self.state.__exit__(*exc)


def quiet() -> _Quiet:
    """A context in which :func:`apply` skips its own ``np.errstate`` (one is already set).

    >>> from gradcalc import constant
    >>> with quiet():
    ...     (constant(1.0) / 0).value
    array(inf)
    """
    return _Quiet()
