"""Train a tensor program: ``gradcalc minimize PROGRAM --data FILE --from W=randn(4,8),...``.

The tiny custom training loop of the seeds: every value given in ``--from`` is a parameter;
each step runs the program on one fresh tape, takes the loss's gradient with respect to every
parameter, and updates them all with ``minimize``'s own methods (gd, momentum, adam) on one
flat vector. The data (``--data``'s ``X`` and ``y``) is held fixed. The layer report is
computed before the first step and after the last, so a unit that died or saturated on the
way is named.

>>> import numpy as np
>>> from gradcalc.engine.run.api import compile_expression
>>> graph = compile_expression("loss = mean((X@w - y)^2)", ["X", "y", "w"])
>>> data = {"X": np.array([[1.0], [2.0]]), "y": np.array([[2.0], [4.0]])}
>>> run = train(graph, data, {"w": np.zeros((1, 1))}, "gd", 0.1, 200, 1e-12)
>>> round(float(run.parameters["w"][0, 0]), 9), run.before.value.item(), run.converged
(2.0, 10.0, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from gradcalc.apps.optimize.descent import (
    DEFAULT_LR,
    UPDATES,
    Judge,
    Objective,
    Recorder,
    Step,
    check_options,
    descend,
    fixed,
)
from gradcalc.core.errors import InputError
from gradcalc.core.tape import Tape
from gradcalc.core.tensor import constant
from gradcalc.engine.evaluate.evaluate import run_graph
from gradcalc.engine.tensors.layers import Thresholds
from gradcalc.engine.tensors.tensorgrad import TensorResult, tensor_gradient
from gradcalc.lang.graph import Graph

#: The first-order methods a tensor program trains with (bfgs is for few scalars).
METHODS = ("gd", "momentum", "adam")


@dataclass
class Training:
    """A training run: the program's gradient and layer report ``before`` the first step
    and ``after`` the last, the trained ``parameters``, how many ``steps`` were made and why
    it stopped (``reason``; ``converged``: the gradient norm reached ``tol``; ``diverged``:
    the loss or a gradient became NaN or infinite), and the recorded ``path`` (step, loss,
    gradient norm)."""

    before: TensorResult
    after: TensorResult
    parameters: dict[str, np.ndarray]
    steps: int
    reason: str
    converged: bool
    diverged: bool
    method: str
    lr: float
    path: list[Step]


def train(
    graph: Graph,
    data: Mapping[str, np.ndarray],
    parameters: Mapping[str, np.ndarray],
    method: str = "gd",
    lr: float | None = None,
    steps: int = 100,
    tol: float = 1e-10,
    every: int | None = None,
    thresholds: Thresholds | None = None,
    progress: Callable[[int], None] | None = None,
) -> Training:
    """Update ``parameters`` to lower the program's target, the ``data`` held fixed.

    Raises:
        InputError: a method other than gd, momentum and adam, a bad option, no parameter.
        UndefinedError: the loss or its gradient is undefined at the start.
    """
    if method not in METHODS:
        raise InputError(f"--method {method}: a tensor program trains with {', '.join(METHODS)}")
    if not parameters:
        raise InputError("nothing to train: give the parameters' start values with --from")
    check_options(lr, steps, tol, every)
    rate = DEFAULT_LR[method] if lr is None else lr
    names = tuple(parameters)
    before = tensor_gradient(graph, {**data, **parameters}, names, thresholds)
    objective = _Objective(graph, data, parameters)
    x = objective.flat(parameters)
    start_norm = float(np.linalg.norm(objective.flat(before.gradient)))
    judge = Judge(objective, steps, tol, start_norm, "raise --steps or --lr")
    path = Recorder((), every)
    stop = descend(objective, x, fixed(UPDATES[method](rate)), judge, path, progress)
    path.add(stop.step, stop.x, stop.value, stop.norm)
    trained = objective.unflat(stop.x)
    diverged = not (np.isfinite(stop.value) and np.isfinite(stop.norm))
    after = before if diverged else tensor_gradient(graph, {**data, **trained}, names, thresholds)
    return Training(
        before, after, trained, stop.step, stop.reason, stop.converged, diverged, method, rate,
        path.rows,
    )  # fmt: skip


class _Objective(Objective):
    """The loss and its gradient as functions of one flat vector of every parameter (what
    ``minimize``'s loop asks of its objective)."""

    def __init__(
        self, graph: Graph, data: Mapping[str, np.ndarray], parameters: Mapping[str, np.ndarray]
    ):
        super().__init__(graph)
        self.data = dict(data)
        self.shapes = {name: np.shape(value) for name, value in parameters.items()}
        self.sizes = [int(np.prod(shape, dtype=np.int64)) for shape in self.shapes.values()]

    def flat(self, parameters: Mapping[str, np.ndarray | None]) -> np.ndarray:
        """The parameters (a gradient ``None``: zeros) as one vector."""
        parts = [parameters[name] for name in self.shapes]
        return np.concatenate(
            [np.zeros(n) if p is None else np.ravel(p) for p, n in zip(parts, self.sizes)]
        )

    def unflat(self, x: np.ndarray) -> dict[str, np.ndarray]:
        parts = np.split(x, np.cumsum(self.sizes)[:-1])
        return {n: p.reshape(s) for (n, s), p in zip(self.shapes.items(), parts)}

    def __call__(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        leaves = {n: constant(v) for n, v in {**self.data, **self.unflat(x)}.items()}
        sources = [leaves[name] for name in self.shapes]
        with Tape() as tape:
            tape.watch(sources)
            tensors = run_graph(self.graph, leaves)
        target = tensors[self.graph.targets[0]]
        grads = tape.gradient(target, sources, unconnected="zero")
        self._last = (tape, tensors)  # for explain(), when a value is not finite
        return float(target.value), np.concatenate([np.ravel(g.value) for g in grads])


def to_json(run: Training) -> dict[str, object]:
    """A training run as JSON: the losses, the path, every trained parameter in full, and
    both layer reports."""
    from gradcalc.render.pieces.gradient import json_number
    from gradcalc.render.views.tensors import report_json

    return {
        "read_as": run.before.read_as,
        "method": run.method,
        "lr": run.lr,
        "steps": run.steps,
        "reason": run.reason,
        "converged": run.converged,
        "diverged": run.diverged,
        "loss_before": float(run.before.value),
        "loss_after": json_number(run.after.value) if not run.diverged else None,
        "path": [
            {
                "step": s.step,
                "loss": json_number(s.value),
                "gradient_norm": json_number(s.gradient_norm),
            }
            for s in run.path
        ],
        "parameters": {name: value.tolist() for name, value in run.parameters.items()},
        "layers_before": report_json(run.before.layers),
        "layers_after": report_json(run.after.layers),
    }
