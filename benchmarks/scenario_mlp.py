"""Scenario 5, a network's gradient: a 784-256-10 MLP (ReLU) with a softmax cross-entropy loss
on 1,000 rows, gradcalc's tape against PyTorch eager, side by side in one process.

Both compute the loss and its gradient with respect to the four parameters (W1, b1, W2, b2)
in float64 from the same seeded data; each figure is the best of a few calls after set-up
(the parameters are already tensors, as in a training loop), the tools taking turns round
after round so that a busy machine slows them alike. The floor is the textbook
backward pass written by hand in numpy. PyTorch's answer must agree with gradcalc's to 1e-10
relative (per parameter, normwise: max |a - b| / max |a|) before its time is compared, and so
must the floor's.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

import numpy as np
from harness import Section, Skipped, Target, WrongAnswer, seconds_text

PARAMETERS = ("W1", "b1", "W2", "b2")
SHAPE = (784, 256, 10)  # inputs, hidden units, classes
TOLERANCE = 1e-10
TARGET_RATIO = 1.5

FLOOR = "floor: numpy, backprop written by hand"
GRADCALC = "gradcalc Tape"
TORCH = "PyTorch eager"

Gradient = dict[str, np.ndarray]


def problem(rows: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded inputs, labels (and their one-hot matrix) and Glorot-scaled weights."""
    rng = np.random.default_rng(seed)
    inputs, hidden, classes = SHAPE
    labels = rng.integers(classes, size=rows)
    return {
        "x": rng.normal(size=(rows, inputs)),
        "labels": labels,
        "onehot": np.eye(classes)[labels],
        "W1": rng.normal(size=(inputs, hidden)) * np.sqrt(2 / (inputs + hidden)),
        "b1": rng.normal(size=hidden) * 0.1,
        "W2": rng.normal(size=(hidden, classes)) * np.sqrt(2 / (hidden + classes)),
        "b2": rng.normal(size=classes) * 0.1,
    }


def prepare_gradcalc(data: dict[str, np.ndarray]) -> Callable[[], Gradient]:
    """The loss written with gradcalc's functions, differentiated by a fresh tape per call."""
    from gradcalc import F, Tape, Variable, constant

    weights = [Variable(data[name]) for name in PARAMETERS]
    x, onehot = constant(data["x"]), constant(data["onehot"])

    def gradient() -> Gradient:
        w1, b1, w2, b2 = weights
        with Tape() as tape:
            z = F.relu(x @ w1 + b1) @ w2 + b2
            loss = F.mean(F.logsumexp(z, axis=1) - F.sum(z * onehot, axis=1))
        grads = tape.gradient(loss, weights)
        return {name: g.value for name, g in zip(PARAMETERS, grads)}

    return gradient


def prepare_torch(data: dict[str, np.ndarray]) -> Callable[[], Gradient]:
    """The same network in PyTorch eager (``cross_entropy`` on the logits), float64.

    Raises:
        Skipped: when PyTorch is not installed.
    """
    try:
        import torch
    except ImportError:
        raise Skipped("PyTorch is not installed (pip install 'gradcalc[bench]')") from None
    if os.environ.get("OMP_NUM_THREADS"):
        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    weights = [torch.from_numpy(data[name]).requires_grad_() for name in PARAMETERS]
    x, labels = torch.from_numpy(data["x"]), torch.from_numpy(data["labels"])

    def gradient() -> Gradient:
        w1, b1, w2, b2 = weights
        z = torch.relu(x @ w1 + b1) @ w2 + b2
        loss = torch.nn.functional.cross_entropy(z, labels)
        grads = torch.autograd.grad(loss, weights)
        return {name: g.numpy() for name, g in zip(PARAMETERS, grads)}

    return gradient


def prepare_floor(data: dict[str, np.ndarray]) -> Callable[[], Gradient]:
    """Forward and backward pass by hand: what any tool must at least compute."""
    x, onehot = data["x"], data["onehot"]
    w1, b1, w2, b2 = (data[name] for name in PARAMETERS)

    def gradient() -> Gradient:
        a = x @ w1 + b1
        h = np.maximum(a, 0.0)
        z = h @ w2 + b2
        e = np.exp(z - z.max(axis=1, keepdims=True))
        dz = (e / e.sum(axis=1, keepdims=True) - onehot) / len(x)
        da = (dz @ w2.T) * (a > 0)
        return {"W1": x.T @ da, "b1": da.sum(axis=0), "W2": h.T @ dz, "b2": dz.sum(axis=0)}

    return gradient


def relative_difference(reference: Gradient, other: Gradient) -> float:
    """The largest ``max |a - b| / max |a|`` over the parameters."""
    return max(
        float(np.max(np.abs(reference[n] - other[n])) / np.max(np.abs(reference[n])))
        for n in PARAMETERS
    )


def take_turns(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    """Seconds of every call in every round; in each round each tool runs once, in turn."""
    times: dict[str, list[float]] = {label: [] for label in calls}
    for _ in range(rounds):
        for label, call in calls.items():
            start = time.perf_counter()
            call()
            times[label].append(time.perf_counter() - start)
    return times


def verified_calls(data: dict[str, np.ndarray], section: Section) -> tuple[dict, dict]:
    """Each available tool's prepared call whose gradient agrees with gradcalc's, and the
    difference of every tool that answered."""
    reference = prepare_gradcalc(data)()
    calls: dict[str, Callable[[], Gradient]] = {}
    differences: dict[str, float] = {}
    tools = ((FLOOR, prepare_floor), (GRADCALC, prepare_gradcalc), (TORCH, prepare_torch))
    for label, prepare in tools:
        try:
            call = prepare(data)
        except Skipped as why:
            section.skip(label, why)
            continue
        differences[label] = relative_difference(reference, call())
        if differences[label] <= TOLERANCE:
            calls[label] = call
        else:
            difference = f"{differences[label]:.2g}"
            section.fail(WrongAnswer(f"{label}'s gradient differs from gradcalc's by {difference}"))
    return calls, differences


def run(quick: bool) -> list[Section]:
    """The best time of each tool, its ratio to the floor and to PyTorch, and agreement."""
    rows, rounds = 1000, 5 if quick else 30
    inputs, hidden, classes = SHAPE
    section = Section(
        f"A network's gradient: {inputs}-{hidden}-{classes} MLP, softmax cross-entropy, "
        f"{rows:,} rows (float64)",
        ["tool", "best time", "x floor", "x PyTorch", "max relative difference"],
    )
    calls, differences = verified_calls(problem(rows), section)
    every = take_turns(calls, rounds)
    times = {label: min(seconds) for label, seconds in every.items()}

    def ratio(label: str, other: str) -> str:
        return f"{times[label] / times[other]:.2f}x" if other in times else "–"

    section.rows = [
        [
            label,
            seconds_text(seconds),
            ratio(label, FLOOR),
            ratio(label, TORCH),
            "–" if label == GRADCALC else f"{differences[label]:.1e}",
        ]
        for label, seconds in times.items()
    ]
    section.raw.update({"rows": rows, "times": times, "every": every, "differences": differences})
    section.targets = targets(times, differences)
    section.notes.append(
        "gradients with respect to W1, b1, W2, b2; each tool's answer is checked against "
        f"gradcalc's (to {TOLERANCE:g} relative) before its time is shown; best of {rounds} "
        "rounds in which the tools take turns"
    )
    if GRADCALC in every and TORCH in every:
        per_round = [a / b for a, b in zip(every[GRADCALC], every[TORCH])]
        section.notes.append(
            f"gradcalc / PyTorch round by round: median {statistics.median(per_round):.2f}x, "
            f"from {min(per_round):.2f}x to {max(per_round):.2f}x"
        )
    return [section]


def targets(times: dict[str, float], differences: dict[str, float]) -> list[Target]:
    """Agreement with PyTorch to 1e-10 relative; at most 1.5x PyTorch eager's time."""
    if TORCH not in times or GRADCALC not in times:
        measured = "PyTorch not installed" if TORCH not in differences else "disagreed"
        return [
            Target(f"MLP gradient agrees with PyTorch to {TOLERANCE:g}", measured, None),
            Target(f"MLP gradient <= {TARGET_RATIO}x PyTorch eager", measured, None),
        ]
    ratio = times[GRADCALC] / times[TORCH]
    return [
        Target(
            f"MLP gradient agrees with PyTorch to {TOLERANCE:g}",
            f"{differences[TORCH]:.1e}",
            differences[TORCH] <= TOLERANCE,
        ),
        Target(
            f"MLP gradient <= {TARGET_RATIO}x PyTorch eager",
            f"{ratio:.2f}x ({seconds_text(times[GRADCALC])} vs {seconds_text(times[TORCH])})",
            ratio <= TARGET_RATIO,
        ),
    ]
