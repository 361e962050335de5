"""First-order descent on the tape's gradient, shared by ``gradcalc minimize`` and
``gradcalc train``: the objective (value and gradient at a point, one tape per call), the
step rules (a fixed learning rate for gd, momentum and adam; gd's backtracking line search),
the loop, the judge of when and why it stops, and the recorded path.

>>> from gradcalc.engine.run.api import compile_expression
>>> objective = Objective(compile_expression("(x - 2)**2"))
>>> judge = Judge(objective, steps=100, tol=1e-12, start_norm=4.0, more="raise --steps")
>>> path = Recorder(["x"], None)
>>> stop = descend(objective, np.array([0.0]), fixed(UPDATES["gd"](0.5)), judge, path, None)
>>> stop.x.tolist(), stop.step, stop.reason
([2.0], 1, 'gradient norm 0 ≤ tol 1e-12')
>>> stop = descend(objective, np.array([0.0]), LineSearch(), judge, Recorder(["x"], 1), None)
>>> stop.x.tolist(), stop.step
([2.0], 1)
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.core.numbers import counted, format_number
from gradcalc.core.ops import NOT_DIFFERENTIABLE
from gradcalc.core.tape import Tape
from gradcalc.core.tensor import Tensor, constant
from gradcalc.engine.evaluate.evaluate import run_graph
from gradcalc.lang.graph import Graph

__all__ = [
    "ARMIJO_C",
    "DEFAULT_LR",
    "FLAT_RTOL",
    "MAX_TRIALS",
    "PATH_ROWS",
    "PROGRESS_EVERY",
    "UPDATES",
    "Judge",
    "LineSearch",
    "Objective",
    "Recorder",
    "Rule",
    "Step",
    "Stop",
    "check_options",
    "descend",
    "fixed",
    "non_finite",
]

#: The learning rate of each first-order method unless told (bfgs needs none; ``minimize``'s
#: gd without a rate searches each step's length instead: :class:`LineSearch`).
DEFAULT_LR = {"gd": 1e-3, "momentum": 1e-3, "adam": 1e-2}
#: Armijo's sufficient decrease: a step of length t must lower the value by ARMIJO_C·t·|∇f|².
ARMIJO_C = 1e-4
#: Near a minimum a value is noise: its terms' rounding, which can be far larger than its own
#: last digit where large terms cancel. A trial value at most this fraction of the value above
#: it is "flat", and judged by the slope instead (Hager and Zhang's approximate Wolfe
#: conditions, 2005, with their ε).
FLAT_RTOL = 1e-6
#: A line search gives up (the run stalls) after this many lengths tried for one step.
MAX_TRIALS = 200
_EPS = float(np.finfo(float).eps)
MOMENTUM_BETA = 0.9
ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 0.9, 0.999, 1e-8
#: The default path keeps PATH_ROWS to 2 * PATH_ROWS evenly spaced rows, and the last step.
PATH_ROWS = 50
#: ``progress`` is called every this many steps, and once at the end.
PROGRESS_EVERY = 100

Update = Callable[[np.ndarray, int], np.ndarray]
Moved = tuple[np.ndarray, float, np.ndarray]  # the new point, its value and its gradient
Progress = Callable[[int], None] | None


@dataclass(frozen=True)
class Step:
    """One recorded row of the path: the iterate after ``step`` updates (0: the start)."""

    step: int
    point: dict[str, float]
    value: float
    gradient_norm: float


@dataclass(frozen=True)
class Stop:
    """The last iterate of a run and why the run ended there."""

    x: np.ndarray
    value: float
    norm: float
    step: int
    reason: str
    converged: bool


class Objective:
    """The compiled expression's value and tape gradient at a point (a vector ordered like
    ``graph.variables``): one tape per call, nothing else recorded or checked."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.target = graph.targets[0]
        self._last: tuple[Tape, list[Tensor]] = (Tape(), [])  # the latest evaluation

    def __call__(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        sources = [constant(v) for v in x.tolist()]
        with Tape() as tape:
            tape.watch(sources)
            tensors = run_graph(self.graph, dict(zip(self.graph.variables, sources)))
        grads = tape.gradient(tensors[self.target], sources, unconnected="zero")
        self._last = (tape, tensors)
        return float(tensors[self.target].value), np.array([float(g.value) for g in grads])

    def at(self, x: np.ndarray) -> tuple[float, float]:
        """The value and the gradient's Euclidean norm at ``x``."""
        value, gradient = self(x)
        return value, float(np.linalg.norm(gradient))

    def explain(self) -> str:
        """Why the latest evaluation was not finite, as ``" (subexpression: reason)"``."""
        tape, tensors = self._last
        node_of = {tensor.id: i for i, tensor in enumerate(tensors)}
        # only records the target depends on (those the backward pass reached) can explain
        # it, and a domain error or an overflow explains more than a kink does: kinks last
        problems = [p for p in tape.problems() if p.record.adjoint is not None]
        problems.sort(key=lambda p: p.kind == NOT_DIFFERENTIABLE)
        if not problems:
            return ""
        node = node_of.get(problems[0].record.output.id)
        where = problems[0].record.op.name if node is None else self.graph.source_text(node)
        return f" ({where}: {problems[0].reason})"

    def start(self, x: np.ndarray) -> tuple[float, float]:
        """The value and gradient norm at the start ``x``.

        Raises:
            UndefinedError: when the value or the gradient is not finite there.
        """
        value, gradient = self(x)
        bad = non_finite(value, gradient)
        if bad:
            where = ", ".join(
                f"{n}={format_number(v)}" for n, v in zip(self.graph.variables, x.tolist())
            )
            what, number = bad
            raise UndefinedError(
                f"cannot start from {where}: the {what} is {number}{self.explain()}"
            )
        return value, float(np.linalg.norm(gradient))


def non_finite(value: float, gradient: np.ndarray) -> tuple[str, str] | None:
    """``("value", "inf")``, ``("gradient", "NaN")``..., or ``None`` when all are finite."""
    if not math.isfinite(value):
        return "value", _named(value)
    bad = gradient[~np.isfinite(gradient)]
    return ("gradient", _named(float(bad[0]))) if bad.size else None


def _named(x: float) -> str:
    """A value that is not a finite number, named as messages name it: NaN, inf, -inf."""
    return "NaN" if math.isnan(x) else str(x)


def _gd(lr: float) -> Update:
    return lambda g, k: -lr * g


def _momentum(lr: float) -> Update:
    velocity: np.ndarray | float = 0.0

    def update(g: np.ndarray, k: int) -> np.ndarray:
        nonlocal velocity
        velocity = MOMENTUM_BETA * velocity + g
        return -lr * velocity

    return update


def _adam(lr: float) -> Update:
    m: np.ndarray | float = 0.0
    v: np.ndarray | float = 0.0

    def update(g: np.ndarray, k: int) -> np.ndarray:
        nonlocal m, v
        m = ADAM_BETA1 * m + (1 - ADAM_BETA1) * g
        v = ADAM_BETA2 * v + (1 - ADAM_BETA2) * g * g
        m_hat = m / (1 - ADAM_BETA1 ** (k + 1))
        v_hat = v / (1 - ADAM_BETA2 ** (k + 1))
        return -lr * m_hat / (np.sqrt(v_hat) + ADAM_EPS)

    return update


UPDATES: dict[str, Callable[[float], Update]] = {"gd": _gd, "momentum": _momentum, "adam": _adam}


Rule = Callable[[Objective, np.ndarray, float, np.ndarray, int], Moved | None]


def fixed(update: Update) -> Rule:
    """The step rule ``x += update(gradient, k)``: a fixed learning rate (gd, momentum, adam).

    >>> from gradcalc.engine.run.api import compile_expression
    >>> objective = Objective(compile_expression("x**2"))
    >>> x, value, gradient = fixed(UPDATES["gd"](0.25))(objective, np.array([2.0]), 4.0,
    ...                                                 np.array([4.0]), 0)
    >>> x.tolist(), value, gradient.tolist()
    ([1.0], 1.0, [2.0])
    """

    def rule(
        objective: Objective, x: np.ndarray, value: float, gradient: np.ndarray, k: int
    ) -> Moved:
        moved = x + update(gradient, k)
        return moved, *objective(moved)

    return rule


class LineSearch:
    """gd without a learning rate: x ← x − t·∇f, each step's length t searched along the
    line. A length is taken when it lowers the value by at least ARMIJO_C·t·|∇f|² (Armijo's
    condition), or, where the value is not higher by more than rounding noise can explain
    (FLAT_RTOL: near a minimum, values cannot tell), when the slope along the line has at
    least halved in size (the curvature condition of Wolfe's). Each search tries twice the
    previous length first (1 at the start); then, while neither holds, the zero of the
    secant of the slopes along the line when they say where the minimum is, else the
    minimum of the parabola through the value, the slope and the trial value
    (interpolation, Nocedal and Wright, *Numerical Optimization*, sections 3.5 and 3.4):
    shorter, within a tenth to a half of the length tried, or, where flat values leave the
    slope still falling, longer, up to four times.
    A step to a value of -inf is taken, for the judge to call it diverged. ``None`` when no
    length changes the point any more, or none is found in MAX_TRIALS tries.

    >>> from gradcalc.engine.run.api import compile_expression
    >>> objective = Objective(compile_expression("(x - 1)**2"))
    >>> search = LineSearch()
    >>> x, value, gradient = search(objective, np.array([0.0]), 1.0, np.array([-2.0]), 0)
    >>> x.tolist(), value, search.length
    ([1.0], 0.0, 0.5)
    """

    def __init__(self) -> None:
        self.length = 0.5  # doubled before the first try: the first step tried is 1·∇f

    def __call__(
        self, objective: Objective, x: np.ndarray, value: float, gradient: np.ndarray, k: int
    ) -> Moved | None:
        squared = float(gradient @ gradient)  # minus the slope along the line at 0
        length = min(2 * self.length, sys.float_info.max)
        for _ in range(MAX_TRIALS):
            trial = x - length * gradient
            if np.array_equal(trial, x):
                return None
            trial_value, trial_gradient = objective(trial)
            slope = -float(gradient @ trial_gradient)  # along the line, at the trial
            if trial_value == -math.inf or _takes(value, trial_value, length, squared, slope):
                self.length = length
                return trial, trial_value, trial_gradient
            length = _next_length(length, squared, value, trial_value, slope)
        return None


def _flat(value: float, trial: float) -> bool:
    """Whether ``trial`` is no higher than ``value`` as far as rounding noise can tell."""
    return trial - value <= FLAT_RTOL * abs(value) + 4 * _EPS * abs(trial)


def _takes(value: float, trial: float, length: float, squared: float, slope: float) -> bool:
    """Whether a trial step is taken: Armijo's decrease (and more than none), or, where the
    value is no higher than noise explains, a slope along the line at most half the slope at 0."""
    if not (math.isfinite(trial) and math.isfinite(slope)):
        return False
    drop = value - trial
    if drop > 0 and drop >= ARMIJO_C * length * squared:
        return True
    return _flat(value, trial) and abs(slope) <= squared / 2


def _next_length(length: float, squared: float, value: float, trial: float, slope: float) -> float:
    """The next length to try after ``length`` was not taken. The line's slope is -``squared``
    at 0 and ``slope`` at ``length``, where the value is ``trial``: past the line's minimum
    (``slope`` > 0), the zero of the slopes' secant; with flat values and the slope still
    falling, the same zero beyond ``length`` (at most four times it); else the minimum of the
    parabola through the value and the slope at 0 and the value at ``length``. A shorter
    length is kept within [length/10, length/2]; half where the trial was not finite.

    >>> _next_length(4.0, 1.0, 0.0, 0.0, 1.0)  # overshot a parabola by twice: halfway
    2.0
    >>> _next_length(4.0, 1.0, 0.0, 12.0, 7.0)  # much higher: the slopes cross zero at 0.5
    0.5
    >>> _next_length(4.0, 1.0, 0.0, 12.0, -1.0)  # higher but still falling: the parabola
    0.5
    >>> _next_length(1.0, 1.0, 5.0, 5.0, -0.75)  # flat, three quarters as steep: go on to 4
    4.0
    """
    if not (math.isfinite(trial) and math.isfinite(slope)):
        return length / 2
    if slope < 0 and _flat(value, trial):
        secant = length * squared / (squared + slope) if squared + slope > 0 else math.inf
        return min(secant, 4 * length)
    if slope > 0:
        best = length * squared / (squared + slope)
    else:
        curvature = trial - value + length * squared  # a·length² of a·t² - squared·t
        best = squared * length * length / (2 * curvature) if curvature > 0 else length / 2
    return min(max(best, length / 10), length / 2)


def descend(
    objective: Objective,
    x: np.ndarray,
    rule: Rule,
    judge: Judge,
    path: Recorder,
    progress: Progress,
) -> Stop:
    """Move ``x`` by ``rule`` (:func:`fixed` or :class:`LineSearch`) until ``judge`` says stop."""
    k = 0
    with np.errstate(all="ignore"):
        value, gradient = objective(x)
        norm = float(np.linalg.norm(gradient))
        while (stop := judge(value, gradient, norm, k)) is None:
            if path.wants(k):
                path.add(k, x, value, norm)
            if progress is not None and k % PROGRESS_EVERY == 0:
                progress(k)
            moved = rule(objective, x, value, gradient, k)
            if moved is None:
                stop = judge.stalled(norm), False
                break
            x, value, gradient = moved
            k += 1
            norm = float(np.linalg.norm(gradient))
    return Stop(x, value, norm, k, *stop)


@dataclass
class Judge:
    """When a run stops, and why: the value or gradient is not finite, the gradient norm is
    at most ``tol``, or ``steps`` updates are made. ``start_norm`` is the norm at step 0;
    ``rises`` counts the steps where the value went up (a sign of a learning rate too big)."""

    objective: Objective
    steps: int
    tol: float
    start_norm: float
    more: str  # what to raise when the steps run out
    rises: int = 0
    previous: float = math.inf

    def __call__(
        self, value: float, gradient: np.ndarray, norm: float, k: int
    ) -> tuple[str, bool] | None:
        """The reason to stop at step ``k`` and whether it converged, or ``None`` to go on."""
        bad = non_finite(value, gradient)
        if bad:
            return self.diverged(bad, k, value), False
        self.rises += value > self.previous
        self.previous = value
        if norm <= self.tol:
            return self.converged(norm), True
        if k >= self.steps:
            return self.exhausted(norm), False
        return None

    def converged(self, norm: float) -> str:
        return f"gradient norm {format_number(norm, 2)} ≤ tol {format_number(self.tol, 2)}"

    def exhausted(self, norm: float) -> str:
        reached = f"reached {counted(self.steps, 'step')}"
        if norm > self.start_norm:
            return (
                f"{reached} with the gradient norm growing "
                f"({format_number(self.start_norm, 2)} → {format_number(norm, 2)}): "
                "the expression may have no minimum, or lower --lr"
            )
        if self.rises > self.steps // 10:
            return (
                f"{reached} (gradient norm {format_number(norm, 2)}) with the "
                f"value going up in {self.rises:,} of them: lower --lr"
            )
        return f"{reached} (gradient norm {format_number(norm, 2)}): {self.more}"

    def stalled(self, norm: float) -> str:
        return (
            f"stalled: no step along the gradient lowers the value in float64 (gradient norm "
            f"{format_number(norm, 2)} > tol {format_number(self.tol, 2)}): the point may be at "
            "a kink or a cusp, or the expression badly scaled (try --method bfgs); a larger "
            "--tol accepts this point"
        )

    def diverged(self, bad: tuple[str, str], k: int, value: float) -> str:
        hint = "the expression may have no minimum" if value == -math.inf else "lower --lr"
        what, number = bad
        return f"diverged: {what} became {number} at step {k}{self.objective.explain()} — {hint}"


class Recorder:
    """The recorded rows: every ``every`` steps; by default every ``stride`` steps, where the
    stride doubles (and every other row is dropped) whenever 2 * PATH_ROWS rows are kept, so
    a run of any length keeps PATH_ROWS to 2 * PATH_ROWS evenly spaced rows."""

    def __init__(self, names: Sequence[str], every: int | None):
        self.names = tuple(names)
        self.stride = every or 1
        self.adaptive = every is None
        self.rows: list[Step] = []

    def wants(self, k: int) -> bool:
        """Whether step ``k`` is to be recorded."""
        return k % self.stride == 0

    def add(self, k: int, x: np.ndarray, value: float, norm: float) -> None:
        """Record step ``k`` (once: the last step may already be there)."""
        if self.rows and self.rows[-1].step == k:
            return
        self.rows.append(Step(k, dict(zip(self.names, x.tolist())), value, norm))
        if self.adaptive and len(self.rows) >= 2 * PATH_ROWS:
            self.rows = self.rows[::2]
            self.stride *= 2


def check_options(lr: float | None, steps: int, tol: float, every: int | None) -> None:
    if lr is not None and not (math.isfinite(lr) and lr > 0):
        raise InputError(f"--lr must be a positive number, got {lr}")
    if not _is_count(steps):
        raise InputError(f"--steps must be a positive whole number, got {steps}")
    if not (math.isfinite(tol) and tol >= 0):
        raise InputError(f"--tol must be a number ≥ 0, got {tol}")
    if every is not None and not _is_count(every):
        raise InputError(f"--every must be a positive whole number, got {every}")


def _is_count(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n >= 1
