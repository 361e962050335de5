"""First-order descent on the tape's gradient, shared by ``gradcalc minimize`` and
``gradcalc train``: the objective (value and gradient at a point, one tape per call), the
update rules (gd, momentum, adam), the loop, the judge of when and why it stops, and the
recorded path.

>>> from gradcalc.engine.run.api import compile_expression
>>> objective = Objective(compile_expression("(x - 2)**2"))
>>> judge = Judge(objective, steps=100, tol=1e-12, start_norm=4.0, more="raise --steps")
>>> path = Recorder(["x"], None)
>>> stop = descend(objective, np.array([0.0]), UPDATES["gd"](0.5), judge, path, None)
>>> stop.x.tolist(), stop.step, stop.reason
([2.0], 1, 'gradient norm 0 ≤ tol 1e-12')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from gradcalc.core.errors import InputError, UndefinedError
from gradcalc.core.numbers import format_number
from gradcalc.core.ops import NOT_DIFFERENTIABLE
from gradcalc.core.tape import Tape
from gradcalc.core.tensor import Tensor, constant
from gradcalc.engine.evaluate.evaluate import run_graph
from gradcalc.lang.graph import Graph

__all__ = [
    "DEFAULT_LR",
    "PATH_ROWS",
    "PROGRESS_EVERY",
    "UPDATES",
    "Judge",
    "Objective",
    "Recorder",
    "Step",
    "Stop",
    "check_options",
    "descend",
    "non_finite",
]

#: The learning rate of each first-order method unless told (bfgs needs none).
DEFAULT_LR = {"gd": 1e-3, "momentum": 1e-3, "adam": 1e-2}
MOMENTUM_BETA = 0.9
ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 0.9, 0.999, 1e-8
#: The default path keeps PATH_ROWS to 2 * PATH_ROWS evenly spaced rows, and the last step.
PATH_ROWS = 50
#: ``progress`` is called every this many steps, and once at the end.
PROGRESS_EVERY = 100

Update = Callable[[np.ndarray, int], np.ndarray]
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


def descend(
    objective: Objective,
    x: np.ndarray,
    update: Update,
    judge: Judge,
    path: Recorder,
    progress: Progress,
) -> Stop:
    """``x += update(gradient, k)`` until ``judge`` says stop."""
    k = 0
    with np.errstate(all="ignore"):
        value, gradient = objective(x)
        norm = float(np.linalg.norm(gradient))
        while (stop := judge(value, gradient, norm, k)) is None:
            if path.wants(k):
                path.add(k, x, value, norm)
            if progress is not None and k % PROGRESS_EVERY == 0:
                progress(k)
            x = x + update(gradient, k)
            k += 1
            value, gradient = objective(x)
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
        if norm > self.start_norm:
            return (
                f"reached {self.steps} steps with the gradient norm growing "
                f"({format_number(self.start_norm, 2)} → {format_number(norm, 2)}): "
                "the expression may have no minimum, or lower --lr"
            )
        if self.rises > self.steps // 10:
            return (
                f"reached {self.steps} steps (gradient norm {format_number(norm, 2)}) with the "
                f"value going up in {self.rises} of them: lower --lr"
            )
        return f"reached {self.steps} steps (gradient norm {format_number(norm, 2)}): {self.more}"

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
