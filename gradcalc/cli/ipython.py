"""The command line inside IPython and Jupyter: ``%gradcalc`` and ``%%gradcalc``.

    %load_ext gradcalc
    %gradcalc grad "3*w1^2 + 2*w1*w2" --at w1=5,w2=3

In a cell magic the cell is the EXPRESSION (a program may take several lines):

    %%gradcalc grad --at x=3 --wrt x,y
    y = x^2
    z = y^2

The arguments are those of the ``gradcalc`` command, split as a shell would; the output is
what it prints (rich tables show as HTML in Jupyter). IPython is needed only here
(``pip install 'gradcalc[notebook]'``); the command line never imports this module.

>>> arguments('grad "x^2" --at x=3', None)
['grad', 'x^2', '--at', 'x=3']
>>> arguments("grad --at x=3", "y = x^2\\nz = y^2\\n")
['grad', 'y = x^2\\nz = y^2', '--at', 'x=3']
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand

from gradcalc.core.errors import ExitCode
from gradcalc.lang.lexer import MAX_LENGTH


def arguments(line: str, cell: str | None) -> list[str]:
    """The command line of a magic: ``line`` split as a shell would, and the cell (if any)
    as the argument after the command's name.

    Raises:
        ValueError: for an unclosed quote, or a line over the input limit (splitting a
        megabyte as a shell would takes seconds: a long expression belongs in the cell).
    """
    if len(line) > MAX_LENGTH:
        raise ValueError(
            f"line too long: {len(line):,} characters (limit {MAX_LENGTH:,}, fixed): put a "
            "long expression in the cell of %%gradcalc"
        )
    args = shlex.split(line)
    if cell is not None and cell.strip():
        args.insert(1 if args else 0, cell.strip("\n"))
    return args


@magics_class
class GradcalcMagics(Magics):
    """``%gradcalc`` (a line) and ``%%gradcalc`` (a cell)."""

    @no_var_expand  # $x and {x} are gradcalc's text, not IPython's
    @line_cell_magic
    def gradcalc(self, line: str, cell: str | None = None) -> None:
        """Run ``gradcalc ARGS``; the exit code is in ``_gradcalc_exit``."""
        from gradcalc.cli.app import run

        try:
            args = arguments(line, cell)
        except ValueError as error:
            print(f"gradcalc: {error}", file=sys.stderr)
            code = int(ExitCode.USAGE)
        else:
            code = int(run(args))
        if self.shell is not None:  # (a magic runs in a shell; IPython's types allow none)
            self.shell.user_ns["_gradcalc_exit"] = code


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics, and the results' HTML (``%load_ext gradcalc`` calls this)."""
    from gradcalc.render.notebook import html  # noqa: F401  (registers the results' display)

    ipython.register_magics(GradcalcMagics)
