"""How far a native kernel's numbers may be from the tape's, and the points where that could
change a decision: those go to the tape.

The native loop (:mod:`gradcalc.engine.compile.native_code`) computes arithmetic exactly as numpy
does, but its maths functions are another library's (glibc's vector functions), each within
a few units in the last place of numpy's. Most of the time that is only a last digit. But a
decision taken on an exact value -- a kink of ``abs`` at 0, a tie of ``max``, a pole, a
partial derivative that is exactly 0 -- can go the other way: at ``x = -1``,
``sin(x + 0.5) + sin(0.5)`` is exactly 0 with numpy's sines (the tape reports the kink of
``abs`` there) and 5.6e-17 with libmvec's.

So alongside each value a domain rule looks at, the loop carries a bound on how far it may
be from numpy's value at that point (*running error analysis*, first order): none where the
two are certainly the same (an input, a constant, IEEE arithmetic on such values);
:data:`LIBRARY` of the result for a maths function, plus what its inputs' bounds become
through its derivative; and for arithmetic on inexact values, the inputs' bounds carried
through plus one rounding. Where a rule's boundary (``abs`` at 0, a tie of ``max``, ``log``
at 0, ``asin`` at ±1, the poles of ``tan``, an integer for ``floor`` ...) lies within
:data:`MARGIN` times the bound, the point is flagged: the tape computes and explains it.

Two more decisions are taken on values that may differ (:func:`inexact_slots`), and the
loop and the replay settle them more simply: each that the replay checks for infinity
(every value and partial derivative it hands back among them), and each value of a function
that overflows (:data:`OVERFLOWING`, checked or not: in ``exp(x)*1e-300`` the product of an
infinite ``exp`` stays infinite, of a finite one does not), is flagged from :data:`HUGE` on
(the tape might find it infinite; left: arithmetic carrying an inexact value to within an
ulp of the largest double and back down unchecked, ``exp(x)*1e10*1e-300`` near x = 686.8 --
looking at every inexact value made the 50-term sum's loop 1.6x slower); and where a partial
derivative is below the vanishing threshold, 0 included, the replay computes the point
again with numpy's steps (exactly 0 is healthy, a tiny value vanishing; a ``max`` that
picks a constant has a partial of exactly 0 at every such point, so the tape, which
explains each point it is given, would be too dear there).

Nothing is tracked where no maths function feeds a rule (``3*w1**2 + 2*w1*w2``, the
50-term trigonometric sum: none), and at random points such closeness is rare (a relative
distance of about 1e-14), so this costs a few vector instructions per checked step and
flags next to nothing. Each op with a domain rule the loop computes is in
:data:`gradcalc.engine.compile.native_rules.BOUNDARIES`; a program with a checked op that is not
stays with numpy's steps.

>>> MARGIN, LIBRARY == 16 * 2.0**-52
(4.0, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from gradcalc.engine.compile.program import Step, Sweep


class Emitter(Protocol):
    """What the bounds need of :mod:`gradcalc.engine.compile.native_code`'s emitter (which
    imports this module): LLVM's instruction builder, constants and intrinsic calls."""

    builder: Any

    def splat(self, number: float) -> Any: ...
    def call_intrinsic(self, name: str, arguments: list[Any]) -> Any: ...
    def function(self, name: str, args: list[Any]) -> Any: ...


#: How far apart two libraries' values of one maths function may be, relative to the value:
#: 16 units in the last place (glibc's vector functions are documented within 4 ulps, and
#: numpy's within a few), so at least twice the worst documented.
LIBRARY = 2.0**-48

#: The smallest bound of a maths function's value: 16 of the smallest subnormal's ulps
#: (where a result underflows, its relative error is no longer a few ulps).
FLOOR = 2.0**-1070

#: One rounding of an IEEE operation, relative to its result (an ulp, generously).
ROUNDING = 2.0**-51

#: The magnitude from which an inexact value is flagged as possibly infinite at numpy's
#: values: 2^1016, 1/256 of the largest double.
HUGE = 2.0**1016

#: The maths functions that overflow at finite arguments (within an ulp of the largest
#: double, one library's value may be infinite where another's is not).
OVERFLOWING = frozenset({"exp", "sinh", "cosh", "pow"})

#: Each checked op's decisions: ``rule(bounds, args, errors)`` gives the lanes to flag.
Rules = Mapping[str, Callable[["Bounds", list[Any], list[Any]], Any]]

#: A decision this many bounds from a value is certain: the bounds are first order, and the
#: margin covers what they leave out.
MARGIN = 4.0

#: Functions whose derivative is at most 1 in magnitude: the input's bound passes unchanged.
_LIPSCHITZ = frozenset({"sin", "cos", "tanh", "arctan", "arcsinh"})


def either(builder: Any, a: Any, b: Any) -> Any:
    """The lanes set in ``a`` or ``b`` (either may be ``None``: no lane)."""
    if a is None or b is None:
        return b if a is None else a
    return builder.or_(a, b)


def tracked_slots(sweep: Sweep) -> set[int]:
    """The slots whose bound the loop computes: the inputs of the domain rules and whatever
    they are made of."""
    needed: set[int] = set()
    todo = [i for s in sweep.steps if s.guard and s.check_domain for i in s.inputs]
    made_of = {step.out: step.inputs for step in sweep.steps}
    while todo:
        slot = todo.pop()
        if slot not in needed:
            needed.add(slot)
            todo.extend(made_of.get(slot, ()))
    return needed


def inexact_slots(sweep: Sweep) -> set[int]:
    """The slots whose value may differ from numpy's: a maths function's, and whatever is
    computed from one (but for floor, ceiling and sign, whose jumps are flagged).

    >>> from gradcalc.engine.compile.sweep import record_sweep
    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> len(inexact_slots(record_sweep(lower(parse_program("3*x**2 + x*y")), ("x", "y"))))
    0
    """
    inexact: set[int] = set()
    for step in sweep.steps:
        name = step.op.name if step.ufunc is None else step.ufunc.__name__
        if name not in _ARITHMETIC_BOUNDS or (
            _ARITHMETIC_BOUNDS[name] is not _stepped and inexact.intersection(step.inputs)
        ):
            inexact.add(step.out)
    return inexact


def overflowing_slots(sweep: Sweep, inexact: set[int]) -> set[int]:
    """The values of functions that overflow (:data:`OVERFLOWING`) among the ``inexact``
    ones (:func:`inexact_slots`; ``x**2`` replayed as ``square`` is numpy's, bit for bit).

    >>> from gradcalc.engine.compile.sweep import record_sweep
    >>> from gradcalc.lang.graph import lower
    >>> from gradcalc.lang.parser import parse_program
    >>> texts = ("exp(x)*1e-300", "3*x**2")
    >>> sweeps = [record_sweep(lower(parse_program(t)), ("x",)) for t in texts]
    >>> [len(overflowing_slots(sweep, inexact_slots(sweep))) for sweep in sweeps]
    [1, 0]
    """
    return {s.out for s in sweep.steps if s.op.name in OVERFLOWING and s.out in inexact}


def flag_limit(step: Step, inexact: set[int], overflowing: set[int]) -> float | None:
    """The magnitude from which the step's value is flagged for the tape, where the replay
    checks it for NaN and infinity or where it is a function's that overflows
    (``overflowing``): :data:`HUGE` where it may differ from numpy's (``inexact``), else
    infinity (NaN is flagged either way); ``None`` where it is neither."""
    if not (step.guard and step.check_finite) and step.out not in overflowing:
        return None
    return HUGE if step.out in inexact else math.inf


class Bounds:
    """The bounds of one pass of the loop, emitted step by step beside the values: call
    :meth:`step` after each step's value; it returns the lanes to flag (or ``None``)."""

    def __init__(self, emit: Emitter, sweep: Sweep, rules: Rules, composite: Mapping[str, str]):
        """``rules``: each checked op's decisions (:data:`~gradcalc.engine.compile.native_rules.
        BOUNDARIES`); ``composite``: the function each ``1 / f(x)`` op divides by."""
        self.emit, self.sweep, self.rules, self.composite = emit, sweep, rules, composite
        self.tracked = tracked_slots(sweep)
        self.bounds: dict[int, Any] = {}  # slot -> vector; absent: the same as numpy's

    def step(self, step: Step, args: list[Any], result: Any) -> Any:
        """Bound ``step``'s value (``result`` of ``args``) where a domain rule needs it, and
        return the lanes where the step's own rule could decide otherwise than the tape."""
        errors = [self.bounds.get(i) for i in step.inputs]
        near = None
        if step.guard and step.check_domain and any(e is not None for e in errors):
            near = self.rules[step.op.name](self, args, errors)
        if step.out in self.tracked:
            bound = self._bound(step, args, errors, result)
            if bound is not None:
                self.bounds[step.out] = bound
        return near

    # --- the bound of each step's value ------------------------------------------------------

    def _bound(self, step: Step, args: list[Any], errors: list[Any], result: Any) -> Any:
        if step.ufunc is None:  # 1 / f(x): f's bound, then the division's
            inner = self.reciprocal(result)  # f(x), to the bound's precision
            spread = self._function(self.composite[step.op.name], [inner], errors[:1], inner)
            return self._quotient(self.emit.splat(1.0), inner, None, spread, result)
        name = step.ufunc.__name__
        errors = errors[: step.ufunc.nin]
        if name in _ARITHMETIC_BOUNDS:
            if all(e is None for e in errors):
                return None  # the same IEEE operation on the same numbers
            return _ARITHMETIC_BOUNDS[name](self, args, errors, result)
        return self._function(name, args, errors, result)

    def _function(self, name: str, args: list[Any], errors: list[Any], result: Any) -> Any:
        """A maths function's bound: its inputs' bounds through its derivative, plus the
        libraries' own difference."""
        own = self.add(self.times(LIBRARY, self.magnitude(result)), self.emit.splat(FLOOR))
        if all(e is None for e in errors):
            return own
        carried = _DERIVATIVE_BOUNDS[name](self, args, errors, result)
        return self.add(carried, own)

    def _quotient(self, a: Any, b: Any, ea: Any, eb: Any, result: Any) -> Any:
        """a / b: (ea + |a/b| eb) / (|b| - eb), infinite once eb reaches |b|."""
        top = self.total([ea, None if eb is None else self.mul(self.magnitude(result), eb)])
        room = self.magnitude(b) if eb is None else self.sub(self.magnitude(b), eb)
        bound = self.div(top, self.positive(room))
        return self.add(bound, self.times(ROUNDING, self.magnitude(result)))

    # --- vector helpers (for the formulas here and the rules of native_rules) ----------------

    def or_zero(self, error: Any) -> Any:
        """``error``, or a vector of zeros for a value that is numpy's."""
        return self.emit.splat(0.0) if error is None else error

    def magnitude(self, x: Any) -> Any:
        return self.emit.call_intrinsic("llvm.fabs", [x])

    def add(self, a: Any, b: Any) -> Any:
        return self.emit.builder.fadd(a, b)

    def sub(self, a: Any, b: Any) -> Any:
        return self.emit.builder.fsub(a, b)

    def sqrt(self, x: Any) -> Any:
        return self.emit.call_intrinsic("llvm.sqrt", [x])

    def mul(self, a: Any, b: Any) -> Any:
        return self.emit.builder.fmul(a, b)

    def div(self, a: Any, b: Any) -> Any:
        return self.emit.builder.fdiv(a, b)

    def times(self, number: float, x: Any) -> Any:
        return self.mul(self.emit.splat(number), x)

    def total(self, terms: list[Any]) -> Any:
        present = [t for t in terms if t is not None]
        total = present[0]
        for term in present[1:]:
            total = self.add(total, term)
        return total

    def positive(self, x: Any) -> Any:
        """x where it is above 0, else 0 (a bound divided by it is then infinite)."""
        return self.emit.call_intrinsic("llvm.maxnum", [x, self.emit.splat(0.0)])

    def reciprocal(self, x: Any) -> Any:
        return self.div(self.emit.splat(1.0), x)

    def any_of(self, a: Any, b: Any) -> Any:
        return either(self.emit.builder, a, b)

    def within(self, distance: Any, bound: Any) -> Any:
        """The lanes where ``distance`` is within reach of ``bound`` (NaN included)."""
        return self.emit.builder.fcmp_unordered("<=", distance, self.times(MARGIN, bound))

    def near(self, x: Any, error: Any, at: float = 0.0) -> Any:
        """The lanes where x lies within reach of ``at`` (``None`` if x is numpy's)."""
        if error is None:
            return None
        distance = self.magnitude(x if at == 0.0 else self.sub(x, self.emit.splat(at)))
        return self.within(distance, error)

    def near_integer(self, x: Any, error: Any) -> Any:
        if error is None:
            return None
        whole = self.emit.call_intrinsic("llvm.roundeven", [x])
        return self.within(self.magnitude(self.sub(x, whole)), error)


# --- arithmetic: the same IEEE operation, on inputs that may differ ---------------------------


def _sum_bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    carried = bounds.total(errors)
    return bounds.add(carried, bounds.times(ROUNDING, bounds.magnitude(result)))


def _product_bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    (a, b), (ea, eb) = args, errors
    terms = [
        None if eb is None else bounds.mul(bounds.magnitude(a), eb),
        None if ea is None else bounds.mul(bounds.magnitude(b), ea),
        None if ea is None or eb is None else bounds.mul(ea, eb),
    ]
    return bounds.add(bounds.total(terms), bounds.times(ROUNDING, bounds.magnitude(result)))


def _quotient_bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    return bounds._quotient(args[0], args[1], errors[0], errors[1], result)


def _square_bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    return _product_bound(bounds, [args[0], args[0]], [errors[0], errors[0]], result)


def _same_bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    """Negation and absolute value move no value further."""
    return errors[0]


def _either_bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    """min and max pick one input (the same one, away from a tie, which is flagged)."""
    ea, eb = (bounds.or_zero(e) for e in errors)
    return bounds.emit.call_intrinsic("llvm.maxnum", [ea, eb])


def _root_bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    """|sqrt(a) - sqrt(a')| = |a - a'| / (sqrt(a) + sqrt(a')) <= ea / (r + sqrt(a - ea))."""
    lowest = bounds.sqrt(bounds.positive(bounds.sub(args[0], errors[0])))
    bound = bounds.div(errors[0], bounds.add(result, lowest))
    return bounds.add(bound, bounds.times(ROUNDING, result))


def _stepped(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    """floor, ceiling and sign are the same away from a jump (a point near one is flagged)."""
    return None


_ARITHMETIC_BOUNDS: dict[str, Callable[..., Any]] = {
    "add": _sum_bound,
    "subtract": _sum_bound,
    "multiply": _product_bound,
    "divide": _quotient_bound,
    "negative": _same_bound,
    "absolute": _same_bound,
    "square": _square_bound,
    "sqrt": _root_bound,
    "minimum": _either_bound,
    "maximum": _either_bound,
    "floor": _stepped,
    "ceil": _stepped,
    "sign": _stepped,
}


# --- maths functions: the input's bound through the derivative (first order) ------------------


def _lipschitz(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    return errors[0]


def _scaled(factor: Callable[[Bounds, Any, Any], Any]) -> Callable[..., Any]:
    """The input's bound times ``factor(bounds, x, result)``: a bound on |f'| near x."""

    def bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
        return bounds.mul(errors[0], factor(bounds, args[0], result))

    return bound


def _over(denominator: Callable[[Bounds, Any, Any, Any], Any]) -> Callable[..., Any]:
    """The input's bound over ``denominator(bounds, x, error, result)``, infinite where it
    is not above 0 (the bound reaches a pole of the derivative)."""

    def bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
        below = denominator(bounds, args[0], errors[0], result)
        return bounds.div(errors[0], bounds.positive(below))

    return bound


def _shrunk(bounds: Bounds, x: Any, error: Any) -> Any:
    """|x| - error: the smallest magnitude within the bound."""
    return bounds.sub(bounds.magnitude(x), error)


def _log_of(scale: float) -> Callable[..., Any]:
    """log, log2, log10 (``scale``: the log of the base): |f'| = 1 / (|x| ln base)."""
    return _over(lambda bounds, x, e, r: bounds.times(scale, _shrunk(bounds, x, e)))


def _beside_one(bounds: Bounds, x: Any, e: Any, r: Any) -> Any:
    """|1 + x| - e (log1p: |f'| = 1 / |1 + x|)."""
    return _shrunk(bounds, bounds.add(x, bounds.emit.splat(1.0)), e)


def _unit_edge(bounds: Bounds, x: Any, e: Any, r: Any) -> Any:
    """1 - (|x| + e)^2 (atanh: |f'| = 1 / (1 - x^2))."""
    reach = bounds.add(bounds.magnitude(x), e)
    return bounds.sub(bounds.emit.splat(1.0), bounds.mul(reach, reach))


def _unit_root(bounds: Bounds, x: Any, e: Any, r: Any) -> Any:
    """sqrt(1 - (|x| + e)^2) (asin, acos: |f'| = 1 / sqrt(1 - x^2))."""
    return bounds.sqrt(bounds.positive(_unit_edge(bounds, x, e, r)))


def _above_one(bounds: Bounds, x: Any, e: Any, r: Any) -> Any:
    """sqrt((|x| - e)^2 - 1) (acosh: |f'| = 1 / sqrt(x^2 - 1))."""
    low = _shrunk(bounds, x, e)
    return bounds.sqrt(bounds.positive(bounds.sub(bounds.mul(low, low), bounds.emit.splat(1.0))))


def _cube_slope(bounds: Bounds, x: Any, e: Any, r: Any) -> Any:
    """3 r^2 (cbrt: |f'| = 1 / (3 cbrt(x)^2))."""
    return bounds.times(3.0, bounds.mul(r, r))


def _grows_as_value(scale: float, plus_one: bool = False) -> Callable[..., Any]:
    """|f'| <= scale |r| (+ 1): exp, exp2, cosh; expm1 and sinh with the 1."""

    def factor(bounds: Bounds, x: Any, r: Any) -> Any:
        size = bounds.times(scale, bounds.magnitude(r))
        return bounds.add(size, bounds.emit.splat(1.0)) if plus_one else size

    return _scaled(factor)


def _tangent_slope(bounds: Bounds, x: Any, r: Any) -> Any:
    """1 + r^2 (tan)."""
    return bounds.add(bounds.emit.splat(1.0), bounds.mul(r, r))


def _power_bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    """x^y: |r| (|y| ex / |x| + |ln|x|| ey), first order."""
    (x, y), (ex, ey) = args, errors
    terms = []
    if ex is not None:
        relative = bounds.div(ex, bounds.positive(_shrunk(bounds, x, ex)))
        terms.append(bounds.mul(bounds.magnitude(y), relative))
    if ey is not None:
        terms.append(
            bounds.mul(bounds.magnitude(bounds.emit.function("log", [bounds.magnitude(x)])), ey)
        )
    return bounds.mul(bounds.magnitude(result), bounds.total(terms))


def _angle_bound(bounds: Bounds, args: list[Any], errors: list[Any], result: Any) -> Any:
    """atan2(y, x): each partial is at most 1 / hypot(x, y)."""
    (y, x), (ey, ex) = args, errors
    radius = bounds.sqrt(bounds.add(bounds.mul(x, x), bounds.mul(y, y)))
    return bounds.div(bounds.total([ey, ex]), radius)


_DERIVATIVE_BOUNDS: dict[str, Callable[..., Any]] = {
    **dict.fromkeys(_LIPSCHITZ, _lipschitz),
    "tan": _scaled(_tangent_slope),
    "exp": _grows_as_value(1.0),
    "exp2": _grows_as_value(math.log(2.0)),
    "cosh": _grows_as_value(1.0),
    "expm1": _grows_as_value(1.0, plus_one=True),
    "sinh": _grows_as_value(1.0, plus_one=True),
    "log": _log_of(1.0),
    "log2": _log_of(math.log(2.0)),
    "log10": _log_of(math.log(10.0)),
    "log1p": _over(_beside_one),
    "cbrt": _over(_cube_slope),
    "arcsin": _over(_unit_root),
    "arccos": _over(_unit_root),
    "arctanh": _over(_unit_edge),
    "arccosh": _over(_above_one),
    "power": _power_bound,
    "arctan2": _angle_bound,
}
