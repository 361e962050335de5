"""The op record: everything gradcalc knows about one primitive, in one place.

An :class:`Op` holds its numpy forward function, one gradient rule per input, its sympy
counterpart, and every other per-op fact as a field with a default: its infix symbol and
precedence (the parser's operator tables come from them), the rule ``explain`` names, which
inputs carry a NaN through it (the replay), its argument names, where its domain rule is probed,
and whether it also takes a base (``log(x, b)``). The families (``arith``, ``trig``, ...) declare
the entries; :mod:`gradcalc.core.ops` collects them.

>>> op = Op("twice", 1, lambda x: 2 * x, (lambda g, ans, x: 2 * g,), lambda sp, x: 2 * x)
>>> op.args, op.rule_name([True], nested=False), op.propagates(0, (None,))
(('x',), 'derivative of twice', False)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from gradcalc.core.tensor import Tensor, apply

UNDEFINED = "undefined"
NOT_DIFFERENTIABLE = "not differentiable"

#: The primitives as callables, for gradient rules and users: ``F.sin(x)``. Filled by
#: :mod:`gradcalc.core.ops` once every family is loaded (rules look names up when they run).
F = SimpleNamespace()

#: The names people read for the ops whose registry name the reading notation does not write:
#: the natural logarithm is ``ln`` (``log`` alone may be read as base 10). The ``read as:``
#: line, the tape and the domain rules' reasons all name a function through
#: :func:`written_name`.
WRITTEN_NAMES = {"log": "ln"}


def written_name(name: str) -> str:
    """The name of op ``name`` as the reading notation writes it.

    >>> written_name("log"), written_name("asin")
    ('ln', 'asin')
    """
    return WRITTEN_NAMES.get(name, name)


@dataclass(frozen=True)
class DomainIssue:
    """Where an op's inputs are outside its domain or at a point it cannot be differentiated.

    ``mask`` marks the affected points; ``arg`` names the one input whose
    derivative is affected (``None``: all of them).

    >>> DomainIssue(UNDEFINED, np.array(True), "log needs x > 0").kind
    'undefined'
    """

    kind: str
    mask: np.ndarray
    reason: str
    arg: int | None = None

    def concerns(self, constant: Sequence[bool]) -> bool:
        """Whether the issue matters where the inputs marked in ``constant`` do not vary (an
        issue about the derivative with respect to a constant, x**2's 2, does not).

        >>> issue = DomainIssue(UNDEFINED, np.array(True), "", arg=1)
        >>> issue.concerns([False, False]), issue.concerns([False, True])
        (True, False)
        """
        return self.arg is None or not constant[self.arg]


@dataclass(frozen=True)
class Interval:
    """An open interval tests may draw an op's argument from.

    >>> Interval(0, 1).draw(np.random.default_rng(0)) < 1
    True
    """

    lo: float
    hi: float

    def draw(self, rng: np.random.Generator) -> float:
        """One random number strictly inside the interval."""
        return float(rng.uniform(self.lo, self.hi))


Domain = Callable[..., Iterable[DomainIssue]]
#: Decides whether a non-finite input at a position surely makes the result non-finite, given
#: the inputs' constant values (``None`` where an input is not constant).
Propagation = Callable[[int, Sequence["np.ndarray | None"]], bool]
#: Names the differentiation rule from which inputs depend on the source and whether one of
#: them is itself a function of it (``nested``: the chain rule applies).
RuleName = Callable[[Sequence[bool], bool], str]

ANYWHERE = (Interval(-2.0, 2.0),)
POSITIVE = (Interval(0.2, 3.0),)
NONZERO = (Interval(-3.0, -0.3), Interval(0.3, 3.0))
UNIT = (Interval(-0.9, 0.9),)
AWAY_FROM_INTEGERS = tuple(Interval(k + 0.1, k + 0.9) for k in range(-3, 3))

_HALF = (1e-300, 0.5, 1.0, 1.5, math.pi / 2, 2.0, 3.0, math.pi, 10.0, 1e300, math.inf)
#: Values at which every domain rule of the registry fires if it can fire at all: signs,
#: zeros, the edges of [-1, 1], multiples of pi/2, integers and half-integers, extremes, NaN.
PROBES = (0.0, math.nan, *_HALF, *(-v for v in _HALF))


def never(position: int, constants: Sequence[np.ndarray | None]) -> bool:
    """The default propagation: a NaN or infinity may vanish through the op (``exp(-inf)``).

    >>> never(0, (None,))
    False
    """
    return False


def through(*positions: int) -> Propagation:
    """Propagation for ops whose result is NaN or infinite whenever the input at one of
    ``positions`` is, whatever the others are.

    >>> through(0)(0, (None, None)), through(0)(1, (None, None))
    (True, False)
    """
    return lambda position, constants: position in positions


def named(rule: str) -> RuleName:
    """A rule with one name, whichever inputs depend on the source.

    >>> named("sum rule")([True, False], True)
    'sum rule'
    """
    return lambda dependent, nested: rule


@dataclass(frozen=True)
class Op:
    """One primitive. Calling it applies it to tensors (or numbers).

    Attributes:
        name: registry key and the name shown on the tape.
        arity: number of tensor inputs.
        forward: numpy function of the input arrays (and ``params``).
        grads: one vector-Jacobian rule per input, ``(g, ans, *xs, **params) -> Tensor``.
        array_grads: the same rules on numpy arrays, for a backward pass that no tape
            records (a first derivative): the very numpy calls ``grads`` makes through the
            ops, in the same order, so the numbers are bit for bit the same, without a tensor
            per call. ``None``: the backward pass runs ``grads`` on tensors.
        sympy: builds the sympy counterpart ``(sp, *args) -> sympy.Expr``; this is the
            true mathematics the tape is cross-checked against.
        symbol: infix symbol for operators (``"+"``); ``None`` for functions.
        precedence: how tightly the operator binds (higher: tighter); 0 for functions.
        infix: the binary-operator tokens the parser reads as this op (``"**"``, ``"^"``).
        right_associative: ``a op b op c`` is ``a op (b op c)`` (powers).
        dunders: Tensor methods that route to this op (``"__add__"``).
        domain: ``(*arrays) -> DomainIssue...``; where the op is undefined or not differentiable.
        probes: the values each input is probed at to learn whether ``domain`` can fire.
        sample: per input, the intervals random test points are drawn from.
        names: spellings the expression parser accepts (empty: internal op).
        args: the inputs' names in rules and listings (default ``x``, ``y``).
        variadic: the parser accepts two or more arguments, folded left (``Max(a, b, c)``).
        takes_base: the parser also accepts a base, ``op(x, b)`` meaning ``op(x) / op(b)``.
        params: keyword parameters of ``forward`` that are not tensors.
        saturates: an activation whose slope goes to 0 for large inputs (diagnostics flag it).
        propagates: whether a NaN or infinity at an input surely reaches the result.
        rule: the name ``explain`` gives the differentiation rule (default: the chain rule).
        elementwise: the op maps each element (of its inputs broadcast together) to one
            element, so an array of points is many independent evaluations; ``False`` for the
            tensor ops (``matmul``, ``sum``, ``softmax``, ...), whose result mixes elements.
        keywords: the ``params`` the parser accepts as ``name=integer`` (``sum(X, axis=0)``).
        summary: for a tensor op, what it computes and its gradient rule in one line
            (``gradcalc ops`` shows it; elementwise ops show sympy's derivative instead).
        shapes: the shapes the op takes, said when given others (default: numpy's reason).
        reduction: for an elementwise op, the op that a call with one argument or with
            ``axis=`` means (``max(v)`` and ``max(X, axis=0)`` are ``amax``).
        backward_issues: for a rule the user wrote (``custom_gradient``), what its latest
            backward pass gave wrong (a NaN from a finite adjoint): ``Tape.problems`` tells.

    >>> from gradcalc.core.ops import REGISTRY
    >>> bool(REGISTRY["sin"](0.5).value == np.sin(0.5))
    True
    """

    name: str
    arity: int
    forward: Callable[..., np.ndarray]
    grads: tuple[Callable[..., Tensor], ...]
    sympy: Callable[..., Any]
    symbol: str | None = None
    precedence: int = 0
    infix: tuple[str, ...] = ()
    right_associative: bool = False
    dunders: tuple[str, ...] = ()
    domain: Domain | None = None
    probes: tuple[float, ...] = PROBES
    sample: tuple[Sequence[Interval], ...] = ()
    names: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    variadic: bool = False
    takes_base: bool = False
    params: tuple[str, ...] = field(default=())
    saturates: bool = False
    propagates: Propagation = never
    rule: RuleName | None = None
    elementwise: bool = True
    keywords: tuple[str, ...] = ()
    summary: str = ""
    shapes: str = "shapes that broadcast together (sizes equal or 1, aligned from the right)"
    reduction: str | None = None
    array_grads: tuple[Callable[..., Any], ...] | None = None
    backward_issues: Callable[[], list[DomainIssue]] | None = None

    def __post_init__(self) -> None:
        if not self.args:
            object.__setattr__(self, "args", ("x", "y", "z")[: self.arity])

    def __repr__(self) -> str:
        return f"<Op {self.name}/{self.arity}>"

    #: Calling an op runs it on tensors (or numbers) through every active tape; ``apply``
    #: itself, not a method calling it (a Python call fewer for every op of every tape).
    __call__ = apply

    def symbolic(self, sp: Any, *args: Any, **params: Any) -> Any:
        """The sympy counterpart on sympy scalars or on numpy object arrays of them.

        An elementwise op is applied element by element with numpy broadcasting; a tensor op's
        counterpart works on object arrays itself. Small tensors expanded into scalar symbols
        thus run through the same entries as the tape:

        >>> import sympy
        >>> from gradcalc.core.ops import REGISTRY
        >>> a, b = sympy.symbols("a b")
        >>> REGISTRY["sin"].symbolic(sympy, np.array([a, b], dtype=object))
        array([sin(a), sin(b)], dtype=object)
        >>> REGISTRY["matmul"].symbolic(sympy, np.array([a, b], dtype=object), np.array([b, a]))
        2*a*b
        """
        if self.elementwise and any(isinstance(a, np.ndarray) for a in args):
            elementwise = np.frompyfunc(lambda *xs: self.sympy(sp, *xs, **params), self.arity, 1)
            return elementwise(*args)
        return self.sympy(sp, *args, **params)

    def issues(self, *values: np.ndarray, **params: Any) -> list[DomainIssue]:
        """The domain issues of this op at the given input arrays and ``params`` (only
        non-empty ones); a mask has the shape of the result (or broadcasts to it).

        >>> from gradcalc.core.ops import REGISTRY
        >>> [i.reason for i in REGISTRY["log"].issues(np.array([-1.0, 2.0]))]
        ['ln is undefined for negative numbers']
        """
        if self.domain is None:
            return []
        with np.errstate(all="ignore"):
            return [issue for issue in self.domain(*values, **params) if np.any(issue.mask)]

    def rule_name(self, dependent: Sequence[bool], nested: bool = True) -> str:
        """The differentiation rule, given which inputs depend on the source and whether any
        of them is itself a function of it.

        >>> from gradcalc.core.ops import REGISTRY
        >>> REGISTRY["mul"].rule_name([True, False]), REGISTRY["sin"].rule_name([True])
        ('constant multiple rule', 'chain rule')
        >>> REGISTRY["log"].rule_name([True], nested=False)  # (named as the reading writes it)
        'derivative of ln'
        """
        if self.rule is not None:
            return self.rule(dependent, nested)
        return "chain rule" if nested else f"derivative of {written_name(self.name)}"
