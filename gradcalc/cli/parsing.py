"""How gradcalc reads a command line beyond click's defaults: the app's and every command's
class.

A misspelled ``--option`` is an error with a suggestion, although unknown options are let
through (so that an expression may start with ``-``); a word such as ``-(x + erf(x))`` is an
argument, not a bundle of short options; the usage line shows ``EXPRESSION``, not
``{EXPRESSION}``; a misspelled command gets one suggestion (:class:`Group`). The choices of
``--format`` are the formats of the command's view (:class:`FormatChoice`).

>>> EXPRESSIONS_MAY_START_WITH_MINUS
{'ignore_unknown_options': True}
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup, click

# so that "-x^2 + 1" is read as the expression, not as an option
EXPRESSIONS_MAY_START_WITH_MINUS = {"ignore_unknown_options": True}
# --x=1 or --x=pi/4,y=2: a point (a name, then a value that starts like a number or constant)
_POINT_AS_OPTION = re.compile(r"--[A-Za-z][A-Za-z0-9_]*=[-+]?(?:[0-9.(]|pi\b|e\b|sqrt\().*", re.S)


class Command(TyperCommand):
    """Every command's class (see the module's docstring)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:  # (shell completion parses resiliently)
            self._refuse_unknown_options(ctx, args)
        return super().parse_args(ctx, args)

    def _refuse_unknown_options(self, ctx: Any, args: list[str]) -> None:
        from gradcalc.core.errors import closest

        known: set[str] = set()
        takes_value: set[str] = set()
        for param in self.get_params(ctx):
            if isinstance(param, click.Option):
                names = [*param.opts, *param.secondary_opts]
                known.update(names)
                if not (param.is_flag or param.count):
                    takes_value.update(names)
        value_next = False
        for k, arg in enumerate(args):
            if value_next:
                value_next = False
                continue
            if arg == "--":
                return
            name = arg.split("=", 1)[0]
            following = args[k + 1] if k + 1 < len(args) else ""
            if name in known:
                value_next = name in takes_value and "=" not in arg
            elif "-" + arg in takes_value and following and not following.startswith("-"):
                # -at x=1: one dash short (a word starting with one - is otherwise an argument)
                raise _usage_error(f"no such option {arg}; did you mean -{arg} {following}?", ctx)
            elif name in (options := _global_options(ctx)):  # gradcalc grad ... --wide
                valued = options[name] and "=" not in arg and following
                given = f"{arg} {following}" if valued else arg  # (--max-cpu 10, as typed)
                where = f"gradcalc {given} {ctx.info_name} ..."
                raise _usage_error(
                    f"{name} is a global option: it goes before the command: {where}", ctx
                )
            elif "--at" in known and _POINT_AS_OPTION.fullmatch(arg):
                # --x=1: a point written as an option
                raise _usage_error(f"no such option {name}; did you mean --at {arg[2:]}?", ctx)
            elif name in _ASKING_FOR_STEPS and ctx.info_name != "explain":
                said = f"no such option {name}; the steps are a command of their own"
                raise _usage_error(f"{said}: gradcalc explain EXPRESSION", ctx)
            elif re.fullmatch(r"--[A-Za-z][A-Za-z0-9-]*", name):
                guess = closest(name, sorted(n for n in known if n.startswith("--")))
                hint = f"; did you mean {guess}?" if guess else ""
                raise _usage_error(f"no such option {name}{hint}", ctx)

    def make_parser(self, ctx: Any) -> Any:
        """click's parser, except that a word starting with one ``-`` that is not an option
        (``-(x + erf(x))``) is an argument: click would split it into short options and take
        the ``f`` of ``erf`` as ``-f`` with the rest as its value."""
        parser: Any = super().make_parser(ctx)  # its _process_opts is click's, not typed API
        process = getattr(parser, "_process_opts", None)
        short, long = getattr(parser, "_short_opt", None), getattr(parser, "_long_opt", None)
        if process is None or short is None or long is None:  # another click: leave it be
            return parser

        def process_opts(arg: str, state: Any) -> None:
            single_dash = not arg.startswith("--")
            if single_dash and arg[:2] not in short and arg.split("=", 1)[0] not in long:
                state.largs.append(arg)
            else:
                process(arg, state)

        parser._process_opts = process_opts
        return parser

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """The arguments, then the options panel by panel (each option's
        ``rich_help_panel``: :data:`gradcalc.cli.options.PANELS`), ``--help`` last."""
        for title, records in help_sections(self, ctx).items():
            with formatter.section(title):
                formatter.write_dl(records)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [
            piece[1:-1] if piece.startswith("{") and piece.endswith("}") else piece
            for piece in super().collect_usage_pieces(ctx)
        ]


def help_sections(command: Any, ctx: Any) -> dict[str, list[tuple[str, str]]]:
    """A command's ``--help`` records by section: ``Arguments``, then each panel in the order
    its first option comes, then ``Options`` (what is in no panel: ``--help``).

    >>> @click.command()
    ... @click.option("--name", help="Whom to greet.")
    ... def hello(name): pass
    >>> help_sections(hello, click.Context(hello))["Options"][0]
    ('--name TEXT', 'Whom to greet.')
    """
    sections: dict[str, list[tuple[str, str]]] = {"Arguments": []}
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None:  # hidden
            continue
        title = "Arguments" if param.param_type_name == "argument" else None
        title = title or getattr(param, "rich_help_panel", None) or "Options"
        sections.setdefault(title, []).append(record)
    sections["Options"] = sections.pop("Options", [])  # (last)
    return {title: records for title, records in sections.items() if records}


class Group(TyperGroup):
    """The app's class: a misspelled command is an error with one suggestion, in the words
    of a misspelled option (click and Typer would each add theirs)."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        from gradcalc.core.errors import closest

        name = args[0] if args else ""
        if ctx.resilient_parsing or not name or name.startswith("-") or self.get_command(ctx, name):
            return super().resolve_command(ctx, args)
        guess = closest(name, list(self.commands))
        hint = f"; did you mean {guess}?" if guess else ""
        raise _usage_error(f"no such command {name!r}{hint}", ctx)


#: Options a student may try for the working (``diff ... --steps``): ``explain`` shows it.
_ASKING_FOR_STEPS = frozenset({"--steps", "--step", "--show-steps", "--explain", "--working"})


def _global_options(ctx: Any) -> dict[str, bool]:
    """The root command's options (``--wide``, ``--max-cpu``, ...), which go before the
    command's name, each with whether it takes a value."""
    root = ctx.find_root()
    if root is ctx:
        return {}
    return {
        name: not (param.is_flag or param.count)
        for param in root.command.params
        if isinstance(param, click.Option)
        for name in (*param.opts, *param.secondary_opts)
    }


def _usage_error(message: str, ctx: Any) -> Exception:
    """click's UsageError (found through typer, which may bundle its own click)."""
    kind = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
    return kind(message, ctx=ctx)


class FormatChoice(click.Choice):
    """The choices of a command's ``--format``: the formats its results' view supports
    (:func:`gradcalc.render.output.formats.supported`), looked up only when they are shown or
    checked, since the views import numpy and ``gradcalc --help`` must not.

    >>> FormatChoice("gradcalc.apps.views:ExplainView").choices
    ('table', 'markdown', 'latex')
    """

    def __init__(self, view: str):  # not click's __init__: it would read the choices now
        self.view = view  # "module:ViewClass"
        self.case_sensitive = False  # --format JSON works too

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        from gradcalc.render.output.formats import supported

        module, _, name = self.view.partition(":")
        return supported(getattr(importlib.import_module(module), name))
