"""The least any command line built on typer, rich and numpy does to answer the headline as
a table: typer reads the arguments, numpy computes the known gradient (no parser, no tape),
rich prints a two-row table; with ``--check``, sympy differentiates the headline (built from
its symbols, not read from text) and the table shows its derivatives beside numpy's. Its
time over ``python -c "import numpy, typer, rich"`` (with ``--check``: over ``python -c
"import sympy, numpy, typer, rich"``) is what any such program costs beyond its imports --
one rich table through a typer command, and sympy's first sum and derivative (sympy
imports its tensor and combinatorics modules when it builds its first sum).

Run as ``python oneshot_least.py "3*w1**2+2*w1*w2" --at w1=5,w2=3 [--check]``; the last
line holds ``36.0 10.0``.
"""

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer()


@app.command()
def grad(
    expression: str, at: str = typer.Option(..., "--at"), check: bool = typer.Option(False)
) -> None:
    """The headline's gradient, hand-derived, as a rich table (beside sympy's, ``--check``)."""
    point = {k: float(v) for k, v in (pair.split("=") for pair in at.split(","))}
    w1, w2 = np.float64(point["w1"]), np.float64(point["w2"])
    gradient = {"w1": 6 * w1 + 2 * w2, "w2": 2 * w1}
    table = Table(title=f"gradient of {expression}")
    table.add_column("variable")
    table.add_column("∂f/∂variable", justify="right")
    symbolic = {name: "" for name in gradient}
    if check:
        import sympy

        w = sympy.symbols("w1 w2")
        f = 3 * w[0] ** 2 + 2 * w[0] * w[1]
        symbolic = {str(v): str(sympy.diff(f, v)) for v in w}
        table.add_column("sympy")
    for name, value in gradient.items():
        table.add_row(name, f"{value:g}", *([symbolic[name]] if check else []))
    Console().print(table)
    print(*(float(v) for v in gradient.values()))


if __name__ == "__main__":
    app()
