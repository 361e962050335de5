"""The option types the commands share (``--at``, ``--format``, ``--digits``, ...).

Each is an ``Annotated`` type: a command declares ``at: At = None`` and gets the same option,
metavar and help as every other command.

>>> output_option("gradcalc.apps.views:FitView").click_type.choices
('table', 'json', 'csv', 'plain')
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gradcalc.cli.parsing import FormatChoice

Expression = Annotated[
    str,
    typer.Argument(
        metavar="EXPRESSION",
        help='The expression or program, e.g. "3*w1^2 + 2*w1*w2"; - reads it from stdin '
        "(and @FILE from FILE, with gradcalc --file).",
    ),
]
At = Annotated[
    list[str] | None,
    typer.Option(
        "--at",
        metavar="NAME=VALUE,...",
        help="A point, e.g. w1=5,w2=3 (values may be pi/4, 1/3, ...). Repeat for more.",
    ),
]
PointsFile = Annotated[
    str | None,
    typer.Option(
        "--points",
        metavar="FILE",
        help="Points: a CSV file (header = names; - for stdin), .npy, .npz, .parquet or .arrow, "
        "or a dataset of Parquet files (a directory, or a quoted glob 'data/*.parquet'). "
        "The columns the expression uses are read; others are ignored.",
    ),
]
Columns = Annotated[
    str | None,
    typer.Option(
        "--columns",
        metavar="NAMES",
        help="The columns of --points read as variables (default: those the expression uses).",
    ),
]
IdColumn = Annotated[
    str | None,
    typer.Option(
        "--id",
        metavar="COLUMN",
        help="A column of --points (any text) carried into CSV output and JSON (as id).",
    ),
]
ResultsOut = Annotated[
    str | None,
    typer.Option(
        "--out",
        metavar="FILE",
        help="Write the results' rows to FILE.csv or FILE.parquet instead of stdout; DIR/ "
        "(ending in /, or an existing directory): a Parquet dataset, one part per input part.",
    ),
]
Cluster = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        metavar="ADDRESS",
        help="Run the parts of --points on Dask (with --out DIR/): local, local:N (N worker "
        "processes here) or a scheduler's tcp://HOST:PORT; default $GRADCALC_CLUSTER, else "
        "this process. Needs pip install 'gradcalc[dask]'.",
    ),
]
SkipBadRows = Annotated[
    bool,
    typer.Option(
        "--skip-bad-rows",
        help="Leave out rows of the file that are not valid points, and say how many.",
    ),
]
Wrt = Annotated[
    str | None,
    typer.Option("--wrt", metavar="NAMES", help="Differentiate with respect to these (a,b)."),
]
Of = Annotated[
    str | None,
    typer.Option("--of", metavar="NAMES", help="Program statements to differentiate (y,z)."),
]
Order = Annotated[
    int,
    typer.Option(
        "--order", min=1, max=12, help="The N-th derivative (one source; 2 with several: Hessian)."
    ),
]
NoCheck = Annotated[bool, typer.Option("--no-check", help="Skip the symbolic cross-check.")]
Exact = Annotated[bool, typer.Option("--exact", help="Show exact symbolic values, however long.")]
Digits = Annotated[
    int | None, typer.Option("--digits", min=1, max=17, help="Significant digits to print.")
]
Latex = Annotated[bool, typer.Option("--latex", help="Also print sympy's derivatives as LaTeX.")]
Subgradient = Annotated[
    bool,
    typer.Option("--subgradient", help="At kinks, use the conventional value (|x|' = 0 at 0)."),
]
CheckTimeout = Annotated[
    float, typer.Option("--check-timeout", min=0.0, help="Seconds for the symbolic check.")
]
PlotOut = Annotated[
    str | None, typer.Option("--out", metavar="FILE", help="With --plot: write FILE.png/.svg.")
]


def output_option(view: str) -> Any:
    """The ``--format`` option of a command whose results the class ``view``
    (``"module:Class"``) shows: its choices are the formats that view supports. Declare it
    as ``output: Annotated[str, output_option("gradcalc.apps.views:FitView")] = "table"``."""
    return typer.Option("--format", click_type=FormatChoice(view), help="Output format.")
