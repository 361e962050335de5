"""The options the commands share, and the panels of ``--help`` they are shown in.

Each option is an ``Annotated`` type: a command declares ``at: At = None`` and gets the same
option, metavar, help and ``--help`` panel (:data:`PANELS`) as every other command that
offers it. The options that go together form the option sets of
:mod:`gradcalc.cli.commands.optionsets`.

>>> output_option("gradcalc.apps.views:FitView").click_type.choices
('table', 'json', 'csv', 'plain')
"""

from __future__ import annotations

import typing
from typing import Annotated, Any

import typer

from gradcalc.cli.parsing import FormatChoice

#: The panels of a command's ``--help``, in the order they are shown: every option is in one.
PANELS = {
    "point": "Point options",
    "derivative": "Derivative options",
    "output": "Output options",
    "check": "Check options",
    "answer": "Answer options",
    "method": "Method options",
    "model": "Model options",
    "diagnostics": "Diagnostics options",
    "data": "Data options",
    "jobs": "Jobs options",
}
POINT, DERIVATIVE, OUTPUT, CHECK = (PANELS[k] for k in ("point", "derivative", "output", "check"))
DIAGNOSTICS, DATA = PANELS["diagnostics"], PANELS["data"]

Expression = Annotated[
    str,
    typer.Argument(
        metavar="EXPRESSION",
        help='The expression or program, e.g. "3*w1^2 + 2*w1*w2"; - reads it from stdin '
        "(and @FILE from FILE, with gradcalc --file).",
    ),
]

# --- point options --------------------------------------------------------------------------

At = Annotated[
    list[str] | None,
    typer.Option(
        "--at",
        metavar="NAME=VALUE,...",
        help="A point, e.g. w1=5,w2=3 (values may be pi/4, 1/3, ...). Repeat for more.",
        rich_help_panel=POINT,
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
        rich_help_panel=POINT,
    ),
]
SkipBadRows = Annotated[
    bool,
    typer.Option(
        "--skip-bad-rows",
        help="Leave out rows of the file that are not valid points, and say how many.",
        rich_help_panel=POINT,
    ),
]
Columns = Annotated[
    str | None,
    typer.Option(
        "--columns",
        metavar="NAMES",
        help="The columns of --points read as variables (default: those the expression uses).",
        rich_help_panel=POINT,
    ),
]
IdColumn = Annotated[
    str | None,
    typer.Option(
        "--id",
        metavar="COLUMN",
        help="A column of --points (any text) carried into CSV output and JSON (as id), "
        "exactly (in CSV: a formula's start gets a ', a terminal's control character its "
        "escape).",
        rich_help_panel=POINT,
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
        rich_help_panel=POINT,
    ),
]

# --- derivative options ---------------------------------------------------------------------

Wrt = Annotated[
    str | None,
    typer.Option(
        "--wrt",
        metavar="NAMES",
        help="Differentiate with respect to these (a,b).",
        rich_help_panel=DERIVATIVE,
    ),
]
Of = Annotated[
    str | None,
    typer.Option(
        "--of",
        metavar="NAMES",
        help="Program statements to differentiate (y,z).",
        rich_help_panel=DERIVATIVE,
    ),
]
Order = Annotated[
    int,
    typer.Option(
        "--order",
        min=1,
        max=12,
        help="The N-th derivative (one source; 2 with several: Hessian).",
        rich_help_panel=DERIVATIVE,
    ),
]
Direction = Annotated[
    str | None,
    typer.Option(
        "--direction",
        help="Derivative along this vector, e.g. 1,2 (one per source).",
        rich_help_panel=DERIVATIVE,
    ),
]
NoNormalize = Annotated[
    bool,
    typer.Option(
        "--no-normalize",
        help="Use --direction as given, not scaled to length 1.",
        rich_help_panel=DERIVATIVE,
    ),
]
Subgradient = Annotated[
    bool,
    typer.Option(
        "--subgradient",
        help="At kinks, use the conventional value (|x|' = 0 at 0).",
        rich_help_panel=DERIVATIVE,
    ),
]

# --- output options -------------------------------------------------------------------------

ResultsOut = Annotated[
    str | None,
    typer.Option(
        "--out",
        metavar="FILE",
        help="Write the results' rows to FILE.csv or FILE.parquet instead of stdout (whole or "
        "not at all: renamed into place when complete; never an input file); DIR/ "
        "(ending in /, or an existing directory): a Parquet dataset, one part per input part.",
        rich_help_panel=OUTPUT,
    ),
]
NoTape = Annotated[
    bool, typer.Option("--no-tape", help="Do not show the tape.", rich_help_panel=OUTPUT)
]
Exact = Annotated[
    bool,
    typer.Option(
        "--exact", help="Show exact symbolic values, however long.", rich_help_panel=OUTPUT
    ),
]
Latex = Annotated[
    bool,
    typer.Option(
        "--latex", help="Also print sympy's derivatives as LaTeX.", rich_help_panel=OUTPUT
    ),
]
Digits = Annotated[
    int | None,
    typer.Option(
        "--digits", min=1, max=17, help="Significant digits to print.", rich_help_panel=OUTPUT
    ),
]
PlotOut = Annotated[
    str | None,
    typer.Option(
        "--out",
        metavar="FILE",
        help="With --plot: write FILE.png/.svg.",
        rich_help_panel=OUTPUT,
    ),
]

# --- check options --------------------------------------------------------------------------

NoCheck = Annotated[
    bool,
    typer.Option("--no-check", help="Skip the symbolic cross-check.", rich_help_panel=CHECK),
]
CheckTimeout = Annotated[
    float,
    typer.Option(
        "--check-timeout",
        min=0.0,
        help="Seconds for the symbolic check.",
        rich_help_panel=CHECK,
    ),
]

# --- diagnostics options ----------------------------------------------------------------------

Diagnose = Annotated[
    bool,
    typer.Option(
        "--diagnose",
        help="Report whether the gradients are healthy.",
        rich_help_panel=DIAGNOSTICS,
    ),
]
Vanishing = Annotated[
    float,
    typer.Option(
        "--vanishing",
        min=0.0,
        help="|gradient| below this is vanishing.",
        rich_help_panel=DIAGNOSTICS,
    ),
]
Exploding = Annotated[
    float,
    typer.Option(
        "--exploding",
        min=0.0,
        help="|gradient| above this is exploding.",
        rich_help_panel=DIAGNOSTICS,
    ),
]
Saturation = Annotated[
    float,
    typer.Option(
        "--saturation",
        min=0.0,
        show_default="1e-4",
        help="An activation's slope below this: saturated.",
        rich_help_panel=DIAGNOSTICS,
    ),
]
DeadShare = Annotated[
    float | None,
    typer.Option(
        "--dead-share",
        min=0.0,
        max=1.0,
        show_default="1",
        help="A relu unit inactive (pre-activation <= 0) on at least this share of the rows is "
        "reported dead.",
        rich_help_panel=DIAGNOSTICS,
    ),
]
SaturatedShare = Annotated[
    float | None,
    typer.Option(
        "--saturated-share",
        min=0.0,
        max=1.0,
        show_default="0.5",
        help="A sigmoid/tanh unit whose slope is below --saturation on at least this share of "
        "the rows is reported saturated.",
        rich_help_panel=DIAGNOSTICS,
    ),
]

# --- data options (tensor values) -------------------------------------------------------------

Data = Annotated[
    str | None,
    typer.Option(
        "--data",
        metavar="FILE",
        help="A data set (CSV, .npy, .npz, .parquet): its feature columns become the matrix "
        "X and its target column the column y (see --features, --target, --as).",
        rich_help_panel=DATA,
    ),
]
Features = Annotated[
    str | None,
    typer.Option(
        "--features",
        metavar="NAMES",
        help="The columns of --data that form X, in order (default: all but the target).",
        rich_help_panel=DATA,
    ),
]
Target = Annotated[
    str | None,
    typer.Option(
        "--target",
        metavar="NAME",
        help="The column of --data that is y (default: the last).",
        rich_help_panel=DATA,
    ),
]
Bind = Annotated[
    str | None,
    typer.Option(
        "--as",
        metavar="X,y",
        help="The names --data binds, features then target (default X,y).",
        rich_help_panel=DATA,
    ),
]
Seed = Annotated[
    int | None,
    typer.Option(
        "--seed",
        min=0,
        show_default="0",
        help="Seed of randn(...) and glorot(...) in --at (the same seed, the same values).",
        rich_help_panel=DATA,
    ),
]
SaveGradients = Annotated[
    str | None,
    typer.Option(
        "--save-gradients",
        metavar="DIR",
        help="With tensor values: write each source's gradient to DIR/NAME.npy.",
        rich_help_panel=DATA,
    ),
]


def output_option(view: str, panel: str = OUTPUT) -> Any:
    """The ``--format`` option of a command whose results the class ``view``
    (``"module:Class"``) shows: its choices are the formats that view supports. Declare it
    as ``output: Annotated[str, output_option("gradcalc.apps.views:FitView")] = "table"``."""
    return typer.Option(
        "--format", click_type=FormatChoice(view), help="Output format.", rich_help_panel=panel
    )


def option_names(annotation: Any) -> list[str]:
    """The names an option is typed with (``--at``), from its ``Annotated`` declaration; none
    for an argument.

    >>> option_names(At), option_names(IdColumn), option_names(int)
    (['--at'], ['--id'], [])
    """
    found: list[str] = []
    for info in typing.get_args(annotation)[1:]:  # (the first name is the OptionInfo's default)
        names = (getattr(info, "default", None), *(getattr(info, "param_decls", ()) or ()))
        found += [name for name in names if isinstance(name, str) and name.startswith("-")]
    return found
