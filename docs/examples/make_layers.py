"""Make docs/examples/layers.csv, the data set of "Diagnosing a layer" (docs/layers.md).

300 rows of four features x1..x4, drawn from a seeded normal distribution, and a label t:
1 inside the ring x1^2 + x2^2 < 1.4 (x3 and x4 are noise), else 0 -- a boundary that one
linear layer cannot draw and a hidden layer can. Run from the repository root:

    python docs/examples/make_layers.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

ROWS, SEED = 300, 19


def main() -> None:
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((ROWS, 4)).round(4)
    t = (x[:, 0] ** 2 + x[:, 1] ** 2 < 1.4).astype(int)
    lines = ["x1,x2,x3,x4,t"]
    lines += [",".join([*(f"{v:.4f}" for v in row), str(label)]) for row, label in zip(x, t)]
    path = Path(__file__).with_name("layers.csv")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
