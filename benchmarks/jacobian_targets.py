"""Time ``jacobian`` as the number of targets grows: each target gets one reverse pass over
its own sub-tape, so the time should grow linearly with the total size (issue 38).

Run from the repository root:  python benchmarks/jacobian_targets.py

Two shapes of n targets at one point, check off (sympy is timed elsewhere): ``x*y + i``
(one shared product) and ``sin(x*i)*y + i`` (a chain of its own per target). Printed: the
best of a few runs, and the ratio of each time to the one at n/4 -- linear work gives
about 4, quadratic about 16. Ratios, not assertions: speed lives here, not in the tests.
"""

from __future__ import annotations

import time

from gradcalc.engine.run.api import jacobian

SIZES = (10, 40, 160, 640)
SHAPES = {
    "x*y + i": lambda i: f"x*y + {i}",
    "sin(x*i)*y + i": lambda i: f"sin(x*{i + 1})*y + {i}",
}


def best_of(text: str, repeats: int = 3) -> float:
    """The fastest of ``repeats`` Jacobians of ``text`` at (1, 2), in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jacobian(text, at={"x": 1.0, "y": 2.0}, check=False)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    for shape, target in SHAPES.items():
        previous = None
        for n in SIZES:
            seconds = best_of(", ".join(target(i) for i in range(n)))
            ratio = "" if previous is None else f"  x{seconds / previous:.1f} for 4x the targets"
            print(f"{shape:>16}  n={n:<4} {seconds * 1e3:8.1f} ms{ratio}")
            previous = seconds


if __name__ == "__main__":
    main()
