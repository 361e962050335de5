"""Time the tape on its two stress shapes: a long chain of ops and a wide batch of points.

Run from the repository root:  python benchmarks/tape_speed.py

Each figure is the best of a few runs, printed with its ratio to a floor measured in the
same run: the chain against the same multiplications on plain Python floats, the batch
against numpy evaluating the expression alone (no tape, no gradient).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from gradcalc import F, Tape, Variable

CHAIN = 100_000
POINTS = 1_000_000


def best_of(function: Callable[[], object], repeats: int) -> float:
    """The fastest of ``repeats`` timed calls, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def chain_figures() -> dict[str, float]:
    """Record a chain of CHAIN multiplications, then differentiate it."""
    x = Variable(0.5)

    def record() -> tuple[Tape, Variable]:
        with Tape(persistent=True) as tape:
            y = x
            for _ in range(CHAIN):
                y = y * 1.0000001
        return tape, y

    def floor() -> float:
        v = 0.5
        for _ in range(CHAIN):
            v = v * 1.0000001
        return v

    tape, y = record()
    return {
        "record": best_of(record, 3),
        "backward": best_of(lambda: tape.gradient(y, x), 3),
        "floor": best_of(floor, 3),
    }


def batch_figures() -> dict[str, float]:
    """Record and differentiate one small expression at POINTS points in one pass."""
    rng = np.random.default_rng(0)
    xs, ys = rng.uniform(0.1, 3, POINTS), rng.uniform(-2, 2, POINTS)

    def gradient() -> object:
        x, y = Variable(xs), Variable(ys)
        with Tape() as tape:
            f = F.sin(x) * F.exp(-(x**2) / 2) + F.log(1 + y**2) * F.tanh(x * y)
        return tape.gradient(f, [x, y])

    def forward() -> object:
        return np.sin(xs) * np.exp(-(xs**2) / 2) + np.log(1 + ys**2) * np.tanh(xs * ys)

    return {"gradient": best_of(gradient, 5), "floor": best_of(forward, 5)}


def main() -> None:
    chain = chain_figures()
    print(
        f"chain of {CHAIN:,} multiplications: record {chain['record']:.3f} s, "
        f"backward {chain['backward']:.3f} s "
        f"({chain['backward'] / chain['floor']:.0f}x the plain-float loop, {chain['floor']:.4f} s)"
    )
    batch = batch_figures()
    print(
        f"gradient of sin(x)*exp(-x^2/2) + log(1+y^2)*tanh(x*y) at {POINTS:,} points: "
        f"{batch['gradient']:.3f} s ({batch['gradient'] / batch['floor']:.2f}x numpy's forward "
        f"pass alone, {batch['floor']:.3f} s)"
    )


if __name__ == "__main__":
    main()
