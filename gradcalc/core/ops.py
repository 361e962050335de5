"""The primitive registry: every operation gradcalc can record, one entry each.

An entry holds everything about one primitive: its numpy forward function, one
gradient rule per input, its sympy counterpart (the true mathematics, used to
cross-check), how it is displayed, the inputs where it is undefined or not
differentiable, and the region tests sample from. Everything else -- the
parser's function names, operator overloads on :class:`~gradcalc.core.tensor.Tensor`,
the parametrised tests, the ``gradcalc ops`` listing -- is derived from
:data:`REGISTRY`, so adding an op is one entry here.

Gradient rules use a fixed vocabulary: ``g`` is the incoming adjoint, ``ans``
the op's output, ``x, y`` its inputs. They are written with these very ops
(through :data:`F`), so a backward pass is itself recorded by any outer tape and
nested tapes give higher derivatives.

>>> from gradcalc import constant
>>> F.sin(constant(0.0))
Tensor(0.)
>>> sorted(REGISTRY)[:4]
['abs', 'acos', 'acosh', 'add']
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
ANYWHERE = (Interval(-2.0, 2.0),)


@dataclass(frozen=True)
class Op:
    """One primitive. Calling it applies it to tensors (or numbers).

    Attributes:
        name: registry key and the name shown on the tape.
        arity: number of tensor inputs.
        forward: numpy function of the input arrays (and ``params``).
        grads: one vector-Jacobian rule per input, ``(g, ans, *xs, **params) -> Tensor``.
        sympy: builds the sympy counterpart ``(sp, *args) -> sympy.Expr``; this is the
            true mathematics the tape is cross-checked against.
        symbol: infix symbol for operators (``"+"``); ``None`` for functions.
        dunders: Tensor methods that route to this op (``"__add__"``).
        domain: ``(*arrays) -> DomainIssue...``; where the op is undefined or not differentiable.
        sample: per input, the intervals random test points are drawn from.
        names: spellings the expression parser accepts (empty: internal op).
        variadic: the parser accepts two or more arguments, folded left (``Max(a, b, c)``).
        saturates: an activation whose slope goes to 0 for large inputs (diagnostics flag it).

    >>> bool(REGISTRY["sin"](0.5).value == np.sin(0.5))
    True
    """

    name: str
    arity: int
    forward: Callable[..., np.ndarray]
    grads: tuple[Callable[..., Tensor], ...]
    sympy: Callable[..., Any]
    symbol: str | None = None
    dunders: tuple[str, ...] = ()
    domain: Domain | None = None
    sample: tuple[Sequence[Interval], ...] = ()
    names: tuple[str, ...] = ()
    variadic: bool = False
    params: tuple[str, ...] = field(default=())
    saturates: bool = False

    def __repr__(self) -> str:
        return f"<Op {self.name}/{self.arity}>"

    def __call__(self, *args: Any, **params: Any) -> Tensor:
        if len(args) != self.arity:
            raise TypeError(f"{self.name}() takes {self.arity} argument(s), got {len(args)}")
        return apply(self, *args, **params)

    def issues(self, *values: np.ndarray) -> list[DomainIssue]:
        """The domain issues of this op at the given input arrays (only non-empty ones).

        >>> [i.reason for i in REGISTRY["log"].issues(np.array([-1.0, 2.0]))]
        ['log is undefined for negative numbers']
        """
        if self.domain is None:
            return []
        with np.errstate(all="ignore"):
            return [issue for issue in self.domain(*values) if np.any(issue.mask)]


# --- domain helpers -------------------------------------------------------------------


def _undefined(mask: Any, reason: str, arg: int | None = None) -> DomainIssue:
    return DomainIssue(UNDEFINED, np.asarray(mask), reason, arg)


def _kink(mask: Any, reason: str, arg: int | None = None) -> DomainIssue:
    return DomainIssue(NOT_DIFFERENTIABLE, np.asarray(mask), reason, arg)


_TINY = 4 * np.finfo(np.float64).eps


def _multiple_of_pi(x: np.ndarray, offset: float = 0.0) -> np.ndarray:
    """True where x is (to double precision) k*pi + offset: the poles of tan, cot, sec, csc."""
    pole = np.round((x - offset) / np.pi) * np.pi + offset
    return np.abs(x - pole) <= _TINY * np.abs(pole)


def _is_integer(x: np.ndarray) -> np.ndarray:
    return np.isfinite(x) & (x == np.round(x))


def _pow_domain(x: np.ndarray, y: np.ndarray) -> Iterable[DomainIssue]:
    yield _undefined((x < 0) & ~_is_integer(y), "a negative base needs an integer exponent")
    yield _undefined((x == 0) & (y < 0), "0 to a negative power is undefined")
    yield _kink(
        (x == 0) & (y > 0) & (y < 1),
        "a power between 0 and 1 has an infinite slope at base 0",
        arg=0,
    )
    yield _kink(
        (x <= 0), "the derivative with respect to the exponent needs a positive base", arg=1
    )


def _log_domain(name: str) -> Domain:
    return lambda x: [
        _undefined(x < 0, f"{name} is undefined for negative numbers"),
        _undefined(x == 0, f"{name}(0) is -infinity"),
    ]


def _pole_domain(offset: float, name: str, where: str) -> Domain:
    return lambda x: [_undefined(_multiple_of_pi(x, offset), f"{name} is undefined where {where}")]


def _unit_domain(name: str, closed_ok: bool) -> Domain:
    def domain(x: np.ndarray) -> Iterable[DomainIssue]:
        yield _undefined(np.abs(x) > 1, f"{name} is undefined outside [-1, 1]")
        edge = np.abs(x) == 1
        if closed_ok:
            yield _kink(edge, f"{name} has an infinite slope at ±1")
        else:
            yield _undefined(edge, f"{name} is infinite at ±1")

    return domain


def _sqrt_like(name: str, negative_ok: bool) -> Domain:
    def domain(x: np.ndarray) -> Iterable[DomainIssue]:
        if not negative_ok:
            yield _undefined(x < 0, f"{name} is undefined for negative numbers")
        yield _kink(x == 0, f"{name} has an infinite slope at 0")

    return domain


def _jump(name: str, at: str, where: Callable[[np.ndarray], np.ndarray]) -> Domain:
    return lambda x: [_kink(where(x), f"{name} jumps at {at}")]


def _corner(name: str, at: str, where: Callable[..., np.ndarray]) -> Domain:
    return lambda *xs: [_kink(where(*xs), f"{name} has a corner at {at}")]


# --- forward helpers ------------------------------------------------------------------

_erf = np.frompyfunc(math.erf, 1, 1)


def _erf_forward(x: np.ndarray) -> np.ndarray:
    """numpy has no erf; math.erf is exact to double precision, applied elementwise."""
    return np.asarray(_erf(x), dtype=np.float64)


def _sigmoid_forward(x: np.ndarray) -> np.ndarray:
    return np.exp(-np.logaddexp(0.0, -x))


def _sum_to(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a broadcast array back down to ``shape`` (the adjoint of broadcasting)."""
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and x.shape[lead + i] != 1
    )
    return np.sum(x, axis=axes, keepdims=False).reshape(shape) if axes else x.reshape(shape)


def _broadcast_to(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.array(np.broadcast_to(x, shape))


# --- the registry ---------------------------------------------------------------------

POSITIVE = (Interval(0.2, 3.0),)
NONZERO = (Interval(-3.0, -0.3), Interval(0.3, 3.0))
UNIT = (Interval(-0.9, 0.9),)
AWAY_FROM_INTEGERS = tuple(Interval(k + 0.1, k + 0.9) for k in range(-3, 3))

_ENTRIES = [
    # arithmetic
    Op("add", 2, np.add, (lambda g, ans, x, y: g, lambda g, ans, x, y: g),
       lambda sp, x, y: sp.Add(x, y), symbol="+", dunders=("__add__", "__radd__"),
       sample=(ANYWHERE, ANYWHERE)),
    Op("sub", 2, np.subtract, (lambda g, ans, x, y: g, lambda g, ans, x, y: -g),
       lambda sp, x, y: x - y, symbol="-", dunders=("__sub__", "__rsub__"),
       sample=(ANYWHERE, ANYWHERE)),
    Op("mul", 2, np.multiply, (lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x),
       lambda sp, x, y: sp.Mul(x, y), symbol="*", dunders=("__mul__", "__rmul__"),
       sample=(ANYWHERE, ANYWHERE)),
    Op("div", 2, np.divide, (lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * ans / y),
       lambda sp, x, y: x / y, symbol="/", dunders=("__truediv__", "__rtruediv__"),
       domain=lambda x, y: [_undefined(y == 0, "division by zero")],
       sample=(ANYWHERE, NONZERO)),
    Op("neg", 1, np.negative, (lambda g, ans, x: -g,),
       lambda sp, x: -x, symbol="-", dunders=("__neg__",)),
    Op("pow", 2, np.power,
       (lambda g, ans, x, y: g * y * x ** (y - 1), lambda g, ans, x, y: g * ans * F.log(x)),
       lambda sp, x, y: sp.Pow(x, y), symbol="**", dunders=("__pow__", "__rpow__"),
       domain=_pow_domain, sample=(POSITIVE, ANYWHERE)),
    # exponentials and roots
    Op("exp", 1, np.exp, (lambda g, ans, x: g * ans,), lambda sp, x: sp.exp(x), names=("exp",)),
    Op("log", 1, np.log, (lambda g, ans, x: g / x,), lambda sp, x: sp.log(x),
       domain=_log_domain("log"), sample=(POSITIVE,), names=("log", "ln")),
    Op("log10", 1, np.log10, (lambda g, ans, x: g / (x * math.log(10)),),
       lambda sp, x: sp.log(x, 10), domain=_log_domain("log10"), sample=(POSITIVE,),
       names=("log10",)),
    Op("sqrt", 1, np.sqrt, (lambda g, ans, x: g / (2 * ans),), lambda sp, x: sp.sqrt(x),
       domain=_sqrt_like("sqrt", negative_ok=False), sample=(POSITIVE,), names=("sqrt",)),
    Op("cbrt", 1, np.cbrt, (lambda g, ans, x: g / (3 * ans**2),),
       lambda sp, x: sp.real_root(x, 3),
       domain=_sqrt_like("cbrt", negative_ok=True), sample=(NONZERO,), names=("cbrt",)),
    # trigonometry
    Op("sin", 1, np.sin, (lambda g, ans, x: g * F.cos(x),), lambda sp, x: sp.sin(x),
       names=("sin",)),
    Op("cos", 1, np.cos, (lambda g, ans, x: -g * F.sin(x),), lambda sp, x: sp.cos(x),
       names=("cos",)),
    Op("tan", 1, np.tan, (lambda g, ans, x: g * (1 + ans**2),), lambda sp, x: sp.tan(x),
       domain=_pole_domain(np.pi / 2, "tan", "its cosine is 0"), names=("tan",)),
    Op("sec", 1, lambda x: 1 / np.cos(x), (lambda g, ans, x: g * ans * F.tan(x),),
       lambda sp, x: sp.sec(x),
       domain=_pole_domain(np.pi / 2, "sec", "its cosine is 0"), names=("sec",)),
    Op("csc", 1, lambda x: 1 / np.sin(x), (lambda g, ans, x: -g * ans * F.cot(x),),
       lambda sp, x: sp.csc(x),
       domain=_pole_domain(0.0, "csc", "its sine is 0"), sample=((Interval(0.2, 2.9),),),
       names=("csc",)),
    Op("cot", 1, lambda x: 1 / np.tan(x), (lambda g, ans, x: -g * (1 + ans**2),),
       lambda sp, x: sp.cot(x),
       domain=_pole_domain(0.0, "cot", "its sine is 0"), sample=((Interval(0.2, 2.9),),),
       names=("cot",)),
    Op("asin", 1, np.arcsin, (lambda g, ans, x: g / F.sqrt(1 - x**2),),
       lambda sp, x: sp.asin(x), domain=_unit_domain("asin", closed_ok=True),
       sample=(UNIT,), names=("asin", "arcsin")),
    Op("acos", 1, np.arccos, (lambda g, ans, x: -g / F.sqrt(1 - x**2),),
       lambda sp, x: sp.acos(x), domain=_unit_domain("acos", closed_ok=True),
       sample=(UNIT,), names=("acos", "arccos")),
    Op("atan", 1, np.arctan, (lambda g, ans, x: g / (1 + x**2),), lambda sp, x: sp.atan(x),
       names=("atan", "arctan")),
    Op("atan2", 2, np.arctan2,
       (lambda g, ans, y, x: g * x / (x**2 + y**2), lambda g, ans, y, x: -g * y / (x**2 + y**2)),
       lambda sp, y, x: sp.atan2(y, x),
       domain=lambda y, x: [_undefined((x == 0) & (y == 0), "atan2(0, 0) is undefined"),
                            _kink((x < 0) & (y == 0), "atan2(y, x) jumps where y = 0 and x < 0")],
       sample=(NONZERO, POSITIVE), names=("atan2", "arctan2")),
    # hyperbolic
    Op("sinh", 1, np.sinh, (lambda g, ans, x: g * F.cosh(x),), lambda sp, x: sp.sinh(x),
       names=("sinh",)),
    Op("cosh", 1, np.cosh, (lambda g, ans, x: g * F.sinh(x),), lambda sp, x: sp.cosh(x),
       names=("cosh",)),
    # sech**2 rather than 1 - tanh**2, which cancels to 0 for large |x|
    Op("tanh", 1, np.tanh, (lambda g, ans, x: g * F.sech(x) ** 2,), lambda sp, x: sp.tanh(x),
       names=("tanh",), saturates=True),
    Op("sech", 1, lambda x: 1 / np.cosh(x), (lambda g, ans, x: -g * ans * F.tanh(x),),
       lambda sp, x: sp.sech(x), names=("sech",)),
    Op("asinh", 1, np.arcsinh, (lambda g, ans, x: g / F.sqrt(x**2 + 1),),
       lambda sp, x: sp.asinh(x), names=("asinh", "arcsinh")),
    Op("acosh", 1, np.arccosh, (lambda g, ans, x: g / F.sqrt(x**2 - 1),),
       lambda sp, x: sp.acosh(x),
       domain=lambda x: [_undefined(x < 1, "acosh is undefined below 1"),
                         _kink(x == 1, "acosh has an infinite slope at 1")],
       sample=((Interval(1.2, 4.0),),), names=("acosh", "arccosh")),
    Op("atanh", 1, np.arctanh, (lambda g, ans, x: g / (1 - x**2),), lambda sp, x: sp.atanh(x),
       domain=_unit_domain("atanh", closed_ok=False), sample=(UNIT,),
       names=("atanh", "arctanh")),
    # piecewise
    Op("abs", 1, np.abs, (lambda g, ans, x: g * F.sign(x),), lambda sp, x: sp.Abs(x),
       dunders=("__abs__",), domain=_corner("abs", "0", lambda x: x == 0),
       sample=(NONZERO,), names=("Abs", "abs")),
    Op("sign", 1, np.sign, (lambda g, ans, x: 0 * g,), lambda sp, x: sp.sign(x),
       domain=_jump("sign", "0", lambda x: x == 0), sample=(NONZERO,),
       names=("sign", "sgn")),
    Op("max", 2, np.maximum,
       (lambda g, ans, x, y: g * (1 + F.sign(x - y)) / 2,
        lambda g, ans, x, y: g * (1 - F.sign(x - y)) / 2),
       lambda sp, x, y: sp.Max(x, y), domain=_corner("max", "a tie", lambda x, y: x == y),
       sample=((Interval(-2, -0.2),), (Interval(0.2, 2),)), names=("Max", "max"), variadic=True),
    Op("min", 2, np.minimum,
       (lambda g, ans, x, y: g * (1 - F.sign(x - y)) / 2,
        lambda g, ans, x, y: g * (1 + F.sign(x - y)) / 2),
       lambda sp, x, y: sp.Min(x, y), domain=_corner("min", "a tie", lambda x, y: x == y),
       sample=((Interval(-2, -0.2),), (Interval(0.2, 2),)), names=("Min", "min"), variadic=True),
    Op("floor", 1, np.floor, (lambda g, ans, x: 0 * g,), lambda sp, x: sp.floor(x),
       domain=_jump("floor", "integers", _is_integer), sample=(AWAY_FROM_INTEGERS,),
       names=("floor",)),
    Op("ceiling", 1, np.ceil, (lambda g, ans, x: 0 * g,), lambda sp, x: sp.ceiling(x),
       domain=_jump("ceiling", "integers", _is_integer), sample=(AWAY_FROM_INTEGERS,),
       names=("ceiling", "ceil")),
    Op("erf", 1, _erf_forward, (lambda g, ans, x: g * (2 / math.sqrt(math.pi)) * F.exp(-(x**2)),),
       lambda sp, x: sp.erf(x), names=("erf",), saturates=True),
    # activations
    Op("relu", 1, lambda x: np.maximum(x, 0.0), (lambda g, ans, x: g * F.step(x),),
       lambda sp, x: sp.Max(0, x), domain=_corner("relu", "0", lambda x: x == 0),
       sample=(NONZERO,), names=("relu",), saturates=True),
    Op("step", 1, lambda x: (x > 0).astype(np.float64), (lambda g, ans, x: 0 * g,),
       lambda sp, x: sp.Heaviside(x, 0), domain=_jump("step", "0", lambda x: x == 0),
       sample=(NONZERO,), names=("step", "Heaviside")),
    # 1 - sigmoid(x) is sigmoid(-x), which does not cancel for large x
    Op("sigmoid", 1, _sigmoid_forward, (lambda g, ans, x: g * ans * F.sigmoid(-x),),
       lambda sp, x: 1 / (1 + sp.exp(-x)), names=("sigmoid",), saturates=True),
    Op("softplus", 1, lambda x: np.logaddexp(0.0, x), (lambda g, ans, x: g * F.sigmoid(x),),
       lambda sp, x: sp.log(1 + sp.exp(x)), names=("softplus",), saturates=True),
    # shape bookkeeping for broadcasting (internal: the parser cannot name them)
    Op("sum_to", 1, _sum_to, (lambda g, ans, x, shape: F.broadcast_to(g, shape=x.shape),),
       lambda sp, x, shape: x, params=("shape",)),
    Op("broadcast_to", 1, _broadcast_to, (lambda g, ans, x, shape: F.sum_to(g, shape=x.shape),),
       lambda sp, x, shape: x, params=("shape",)),
]  # fmt: skip

#: Every primitive, by name.
REGISTRY: dict[str, Op] = {op.name: op for op in _ENTRIES}

#: The primitives as callables, for gradient rules and users: ``F.sin(x)``.
F = SimpleNamespace(**REGISTRY)

#: Every name the expression parser may call, mapped to its op.
FUNCTION_NAMES: dict[str, Op] = {name: op for op in _ENTRIES for name in op.names}


def reduce_sum(x: Any) -> Tensor:
    """Sum all elements of a tensor to one number (differentiable).

    >>> from gradcalc import constant
    >>> reduce_sum(constant([1.0, 2.0, 3.0]))
    Tensor(6.)
    """
    return F.sum_to(x, shape=())


def _install_operators() -> None:
    """Route Tensor's arithmetic operators through the registry (reflected ones swap sides)."""
    for op in _ENTRIES:
        for dunder in op.dunders:
            if dunder.startswith("__r") and op.arity == 2:
                setattr(Tensor, dunder, lambda self, other, op=op: op(other, self))
            else:
                setattr(Tensor, dunder, lambda *args, op=op: op(*args))


_install_operators()
