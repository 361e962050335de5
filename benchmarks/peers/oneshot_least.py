"""The least any command line built on typer, rich and numpy does to answer the headline as
a table: typer reads the arguments, numpy computes the known gradient (no parser, no tape,
no check), rich prints a two-row table. Its time over ``python -c "import numpy, typer,
rich"`` is what drawing one rich table through a typer command costs, whatever the program.

Run as ``python oneshot_least.py "3*w1**2+2*w1*w2" --at w1=5,w2=3``; the last line holds
``36.0 10.0``.
"""

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer()


@app.command()
def grad(expression: str, at: str = typer.Option(..., "--at")) -> None:
    """The headline's gradient, hand-derived, as a rich table."""
    point = {k: float(v) for k, v in (pair.split("=") for pair in at.split(","))}
    w1, w2 = np.float64(point["w1"]), np.float64(point["w2"])
    gradient = {"w1": 6 * w1 + 2 * w2, "w2": 2 * w1}
    table = Table(title=f"gradient of {expression}")
    table.add_column("variable")
    table.add_column("∂f/∂variable", justify="right")
    for name, value in gradient.items():
        table.add_row(name, f"{value:g}")
    Console().print(table)
    print(*(float(v) for v in gradient.values()))


if __name__ == "__main__":
    app()
