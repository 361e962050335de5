"""How much shorter ``gradcalc diff`` writes a derivative than sympy's raw ``diff``.

Run from the repository root:  python benchmarks/simplify_lengths.py [COUNT] [BUDGET]

Draws COUNT (default 200) random expressions over every registry op -- the same generator as
the property tests (tests/test_properties.py), derandomized so runs repeat -- and prints the
median and worst ratio of the simplified derivative's length to the raw one (characters in
the user's notation; 1.0 means no shorter), and how often the tape verification said
``verified``, ``unverified`` or ``differs`` (the last must never happen).
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_properties import registry_trees

from gradcalc.apps.derive.diff import differentiate
from gradcalc.symbolic.crosscheck.simplify import length


def main(count: int, budget: float) -> None:
    ratios: list[float] = []
    statuses: Counter = Counter()
    reasons: Counter = Counter()

    @settings(
        max_examples=count,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(registry_trees(leaves=4))
    def measure(tree) -> None:
        text, expr = tree
        assume(expr.free_symbols)
        result = differentiate(text, budget=budget)
        statuses[result.verification.status] += 1
        if result.verification.status != "verified":
            reasons[result.verification.detail.split(" (")[0][:60]] += 1
        ratios.extend(length(e.expr) / max(length(e.raw), 1) for e in result.entries)

    measure()
    print(f"{sum(statuses.values())} expressions, {len(ratios)} derivatives, budget {budget} s")
    print(
        f"length ratio simplified/raw: median {statistics.median(ratios):.3f}, "
        f"worst {max(ratios):.3f}, best {min(ratios):.3f}"
    )
    print(f"shorter in {sum(r < 1 for r in ratios)} of {len(ratios)}")
    print("verification:", dict(statuses))
    for reason, n in reasons.most_common():
        print(f"  {n} x {reason}")


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 200,
        float(sys.argv[2]) if len(sys.argv) > 2 else 2.0,
    )
