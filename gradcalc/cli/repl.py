"""``gradcalc repl``: define a function once, then ask for gradients, Hessians and checks.

A line is one command (``help`` lists them)::

    f = x^2*y                  define f (and make it the current function)
    f(x, y) = x^2*y            the same, naming f's variables as on paper
    grad at x=1, y=2           the gradient of the current function at a point
    grad g at x=1; x=2         of another function (or any expression), at two points
    at x=1, y=2                remember a point: later commands may leave out "at ..."
    hessian / jacobian / explain [FUNCTION] [at POINT]
    diff [FUNCTION]            the derivative as a formula
    taylor [FUNCTION] at POINT order 3     the Taylor polynomial (degree 2 unless said)
    critical [FUNCTION] in x=-5..5         the critical points (and their kinds)
    check 2*x*y, x^2           is this the derivative? (anywhere, or at a point)
    expect 4, 1 at x=1, y=2    are these the gradient's numbers at the point?
    set format json            table, json, csv, plain; set tape off; set check off; ...

Each command runs the same code as the command line (``gradcalc grad ...``), so the output
is the same. An error prints its one-line message and the session goes on; end it with
``quit`` or Ctrl-D (exit code 0). The loop that reads the lines, with its history file and
tab completion, is the command's (:mod:`gradcalc.cli.commands.repl`); this module is what a
line does.

>>> session = Session()
>>> session.execute("f = x^2*y") == 0
read as: f(x, y) = x^2·y
True
>>> session.split_point("f at x=1, y=2; x=3, y = 4")
('f', ['x=1,y=2', 'x=3,y=4'])
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from gradcalc.cli.context import AppContext
from gradcalc.core.errors import ExitCode, InputError, closest, did_you_mean
from gradcalc.lang.literals import NAME

PROMPT = "gradcalc> "
_DEFINITION = re.compile(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*=(?!=)(.*)\Z", re.S)
#: ``f(x, y) = ...``: a definition that names its variables, as on paper.
_SIGNATURE = re.compile(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*\(([^()]*)\)\s*=(?!=)(.*)\Z", re.S)
#: ``... order 3`` at the end of a line or before its point (taylor, check, expect).
_ORDER = re.compile(r"(?:^|\s)order\s+(\d+)(?=\s*\Z|\s+at(?:\s|\Z))")
#: `` at x=1`` before a point, `` in x=-5..5`` before a critical region (or the word alone).
_AT, _IN = (
    re.compile(rf"(?:^|\s){word}(?:\s+(?=[A-Za-z][A-Za-z0-9_]*\s*=)|\s*\Z)")
    for word in ("at", "in")
)
#: The command line's options in a session's words: ``at x=1``, ``set format csv``.
FLAGS = (
    ("--at", "at"),
    ("--in", "in"),
    ("--order", "order"),
    ("--format", "set format"),
    ("--no-tape", "set tape off"),
    ("--no-check", "set check off"),
    ("--wrt", "set wrt"),
)
SETTINGS = {
    "format": ("table", "json", "csv", "plain"),
    "tape": ("on", "off"),
    "check": ("on", "off"),
    "digits": ("off", *map(str, range(1, 18))),
    "wrt": ("off",),
}

HELP = """\
  f = x^2*y                define a function (a program works too: f = y = x^2; z = y^2)
  f(x, y) = x^2*y          the same, naming its variables (in that order)
  grad [F] [at POINT]      the gradient of F (default: the last one defined) at the point;
                           F may also be any expression: grad sin(x) at x=0
  diff [F]                 the derivative of F as a formula, simplified and verified
  taylor [F] [at POINT] [order N]
                           the Taylor polynomial about the point (degree 2 unless said)
  critical [F] [in REGION] the critical points, classified: critical in x=-5..5, y=0..pi
  hessian [F] [at POINT]   the Hessian, its eigenvalues and the second-derivative test
  jacobian [F] [at POINT]  the Jacobian of a function with several outputs (f = u*v, u+v)
  explain [F] [at POINT]   the forward pass, the reverse pass and the rules, step by step
  check ANSWER [at POINT]  is ANSWER the derivative of F? (2*x*y, x^2: one per variable;
                           add order 2 for the second derivative or the Hessian)
  expect NUMBERS at POINT  are these the gradient's values? (4, 1; order N too)
  at POINT                 remember a point for the commands above: at x=1, y=2
  use F                    make F the current function
  list                     the functions and the remembered point
  ops [NAME]               the functions you can use, their derivatives and domains
  set format table|json|csv|plain · set tape on|off · set check on|off
  set digits N|off · set wrt x,y|off
  help · quit (or Ctrl-D)
A POINT is name=value pairs (x=1, y=pi/4); separate several points with ';'."""

COMMANDS = (
    "grad", "diff", "taylor", "critical", "hessian", "jacobian", "explain", "check", "expect",
    "at", "use", "list", "ops", "set", "help", "quit", "exit",
)  # fmt: skip


@dataclass
class Function:
    """A defined function: its text and its variables (in order of first appearance, or as
    ``f(x, y) = ...`` named them: then ``order``, those it uses, is the derivatives' order)."""

    name: str
    text: str
    variables: tuple[str, ...]
    order: str | None = None


@dataclass
class Session:
    """The state of one session and the commands that act on it; ``context`` holds the root
    options (colour, width, ...) the commands run with."""

    context: AppContext = field(default_factory=AppContext)
    functions: dict[str, Function] = field(default_factory=dict)
    current: str | None = None
    point: list[str] | None = None
    format: str = "table"
    tape: bool = True
    check: bool = True
    digits: int | None = None
    wrt: str | None = None
    done: bool = False

    def __post_init__(self) -> None:
        # the commands' messages name options as a line of the session writes them
        self.context = replace(self.context, flags=FLAGS)

    # --- parsing ------------------------------------------------------------------------

    @staticmethod
    def split_point(rest: str) -> tuple[str, list[str] | None]:
        """``"F at x=1; x=2"`` -> ``("F", ["x=1", "x=2"])``; no ``at``: ``(rest, None)``."""
        found = _AT.search(rest)
        if found is None:
            return rest.strip(), None
        specs = _specs(rest[found.end() :])
        if not specs:
            raise InputError("'at' needs a point: at x=1, y=2")
        return rest[: found.start()].strip(), specs

    @staticmethod
    def split_order(rest: str) -> tuple[str, int | None]:
        """``"6x at x=1 order 2"`` -> ``("6x at x=1", 2)``, and ``order N`` before the point
        as well (``"order 2 at x=1"``); no ``order N``: None.

        >>> Session.split_order("at x=0 order 3"), Session.split_order("2x")
        (('at x=0', 3), ('2x', None))
        >>> Session.split_order("f order 3 at x=1"), Session.split_order("order 3 at x=1")
        (('f at x=1', 3), ('at x=1', 3))
        """
        said = _ORDER.search(rest)
        if said is None:
            return rest, None
        return " ".join((rest[: said.start()] + rest[said.end() :]).split()), int(said[1])

    def execute(self, line: str) -> int:
        """Run one line; return its exit code (0 ok, else the command line's code)."""
        line = line.strip()
        if not line or line.startswith("#"):
            return ExitCode.OK
        word, _, rest = line.partition(" ")
        definition = _DEFINITION.match(line) or _SIGNATURE.match(line)
        if definition and definition.group(1) in COMMANDS:
            raise InputError(f"{definition.group(1)!r} is a command: call your function otherwise")
        if definition:
            name, *parameters, text = definition.groups()
            return self.define(name, text.strip(), *parameters)
        action = self._actions().get(word)
        if action is None:
            guess = closest(word, COMMANDS) if NAME.match(word) else None
            if guess is None:
                raise InputError(
                    "not a command: to define a function write f = ... or f(x) = ..., to compute "
                    "grad ... at x=1; help lists the commands"
                )
            raise InputError(f"unknown command {word!r}: did you mean '{guess}'? (help lists them)")
        return action(rest.strip())

    def _actions(self) -> dict[str, Callable[[str], int]]:
        return {
            "grad": lambda rest: self.compute("grad", rest),
            "diff": self.diff,
            "taylor": self.taylor,
            "critical": self.critical,
            "hessian": lambda rest: self.compute("hessian", rest),
            "jacobian": lambda rest: self.compute("jacobian", rest),
            "explain": lambda rest: self.compute("explain", rest),
            "check": self.check_answer,
            "expect": self.expect,
            "at": self.remember_point,
            "use": self.use,
            "list": self.list_functions,
            "ops": self.ops,
            "set": self.set,
            "help": self.help,
            "quit": self.quit,
            "exit": self.quit,
        }

    # --- commands -----------------------------------------------------------------------

    def define(self, name: str, text: str, parameters: str | None = None) -> int:
        """``name = text``, or ``name(parameters) = text`` (its variables, in that order):
        print how it was read (and any warning), and make it the current function.

        >>> Session().define("g", "y*x^2", " x, y ") == 0
        read as: g(x, y) = y·x^2
        True
        """
        from gradcalc.cli.reading import warn
        from gradcalc.core.naming import function_head
        from gradcalc.core.ops import FUNCTION_NAMES
        from gradcalc.lang.intake import read
        from gradcalc.lang.literals import CONSTANTS

        if name in FUNCTION_NAMES or name in CONSTANTS:
            raise InputError(f"{name!r} is a built-in name: call your function something else")
        head = name if parameters is None else f"{name}({parameters.strip()})"
        if not text:
            raise InputError(f"'{head} =' needs an expression after it: {name} = x^2*y")
        # a head is read by the reading step too: its names, and that the body uses no other
        reading = read(text if parameters is None else f"{head} = {text}")
        named = reading.program.parameters
        variables = named or reading.graph.variables
        order = ",".join(v for v in named if v in reading.program.free_variables) or None
        self.functions[name] = Function(name, text, tuple(variables), order)
        self.current = name
        body = function_head(reading.read_as, variables)[1]
        print(f"read as: {name}({', '.join(variables)}) = {body}")
        stray = [n for n in (self.wrt or "").split(",") if n and n not in variables]
        if stray:  # (set before this function was defined)
            every = ",".join(variables) or "off"
            unfit = f"set wrt {self.wrt}: {name} has no variable {', '.join(stray)}"
            warn([*reading.warnings, f"{unfit} (set wrt off, or set wrt {every})"])
            return ExitCode.OK
        warn(reading.warnings)
        return ExitCode.OK

    def expression(self, text: str) -> str:
        """The text to compute with: a defined function's, the current one's, or ``text``."""
        if text in self.functions:
            return self.functions[text].text
        if text:
            return text
        if self.current is None:
            raise InputError("define a function first, e.g. f = x^2*y")
        return self.functions[self.current].text

    def _wrt(self, target: str) -> str | None:
        """``set wrt``, else the order ``f(x, y) = ...`` gave the function ``target`` (or "")."""
        function = self.functions.get(target or self.current or "")
        return self.wrt or (function.order if function is not None else None)

    def _point(self, given: list[str] | None, needed: bool = True) -> list[str] | None:
        point = given if given is not None else self.point
        if point is None and needed:
            raise InputError("give a point: ... at x=1, y=2 (or remember one: at x=1, y=2)")
        return point

    def compute(self, command: str, rest: str) -> int:
        from gradcalc.cli.commands import explain, grad, hessian, jacobian

        target, given = self.split_point(rest)
        text, at, wrt = self.named(target), self._point(given), self._wrt(target)
        if command == "explain":
            return self._run(explain.explain, expression=text, at=at, wrt=wrt)
        shared = {
            "expression": text, "at": at, "digits": self.digits, "wrt": wrt,
            "output": self.format, "no_check": not self.check,
        }  # fmt: skip
        if command == "grad":
            return self._run(grad.grad, **shared, no_tape=not self.tape)
        matrix: dict[str, Callable[..., int]] = {
            "hessian": hessian.hessian,
            "jacobian": jacobian.jacobian,
        }
        return self._run(matrix[command], **shared)

    def diff(self, rest: str) -> int:
        """``diff [F]``: the derivative as a formula (a point is grad's)."""
        from gradcalc.cli.commands.diff import diff

        target, given = self.split_point(rest)
        text, wrt = self.named(target), self._wrt(target)
        if given is not None:
            raise InputError(
                "diff gives the derivative as a formula; its value at a point: grad at ..."
            )
        return self._run(diff, expression=text, wrt=wrt, output=self.format)

    def taylor(self, rest: str) -> int:
        """``taylor [F] [at POINT] [order N]``: the Taylor polynomial, of the command's
        default degree unless said."""
        from gradcalc.cli.commands.taylor import taylor

        rest, order = self.split_order(rest)
        target, given = self.split_point(rest)
        said = {} if order is None else {"order": order}
        text, at = self.named(target), self._point(given)
        return self._run(taylor, expression=text, at=at, output=self.format, **said)

    def critical(self, rest: str) -> int:
        """``critical [F] [in REGION]``: the critical points, found exactly or searched for."""
        from gradcalc.cli.commands.critical import critical

        found = _IN.search(rest)
        target = rest[: found.start()].strip() if found else rest
        region = _tight(rest[found.end() :]) if found else None
        if found and not region:
            raise InputError("'in' needs a region: in x=-5..5, y=0..pi")
        return self._run(critical, expression=self.named(target), region=region, output=self.format)

    def check_answer(self, rest: str) -> int:
        from gradcalc.cli.commands.check import check

        rest, order = self.split_order(rest)
        answer, given = self.split_point(rest)
        if not answer:
            raise InputError("check needs your derivative: check 2*x*y, x^2")
        # judged everywhere: a remembered point is a test point only where it fits
        at = given if given is not None else self._fitting_point()
        return self._run(
            check, expression=self.named(""), at=at, answer=[answer], wrt=self._wrt(""),
            order=order, output=self.format,
        )  # fmt: skip

    def expect(self, rest: str) -> int:
        from gradcalc.cli.commands.check import check

        rest, order = self.split_order(rest)
        numbers, given = self.split_point(rest)
        if not numbers:
            raise InputError("expect needs your numbers: expect 4, 1 at x=1, y=2")
        at = self._point(given)
        return self._run(
            check, expression=self.named(""), at=at, expect=_tight(numbers), wrt=self._wrt(""),
            order=order, output=self.format,
        )  # fmt: skip

    def named(self, target: str) -> str:
        """The text to compute with: a defined function's with its head (``g(x, y) = x*y``:
        the answer says ∂g/∂x; a list is a vector function), a program's as defined.

        >>> session = Session()
        >>> _ = session.define("g", "x*y", "x, y")
        read as: g(x, y) = x·y
        >>> session.named(""), session.named("g"), session.named("x^2")
        ('g(x, y) = x*y', 'g(x, y) = x*y', 'x^2')
        """
        text = self.expression(target)
        name = target if target in self.functions else None if target else self.current
        if name in (None, "f") or "=" in text or ";" in text or "\n" in text:
            return text  # (f: the name the command line gives anyway; its order: --wrt)
        return f"{name}({', '.join(self.functions[name].variables)}) = {text}"

    def _fitting_point(self) -> list[str] | None:
        """The remembered point, when it is one point naming the current function's variables."""
        from gradcalc.engine.evaluate.points import parse_at

        if self.point is None or len(self.point) != 1 or self.current is None:
            return None
        names = set(parse_at(self.point).names)
        return self.point if names == set(self.functions[self.current].variables) else None

    def remember_point(self, rest: str) -> int:
        from gradcalc.engine.evaluate.points import parse_at

        if not rest:
            print(f"point: {'; '.join(self.point)}" if self.point else "no point remembered")
            return ExitCode.OK
        specs = _specs(rest)
        parse_at(specs)  # refuse a bad point now, not at the next command
        self.point = specs
        print(f"point: {'; '.join(specs)}")
        return ExitCode.OK

    def use(self, rest: str) -> int:
        if rest not in self.functions:
            hint = did_you_mean(rest, list(self.functions))
            defined = ", ".join(self.functions) or "none yet"
            raise InputError(f"no function {rest!r}: {hint}defined: {defined}")
        self.current = rest
        return self.list_functions("")

    def list_functions(self, rest: str) -> int:
        for function in self.functions.values():
            mark = "*" if function.name == self.current else " "
            print(f"{mark} {function.name}({', '.join(function.variables)}) = {function.text}")
        if not self.functions:
            print("no functions yet: define one, e.g. f = x^2*y")
        if self.point:
            print(f"point: {'; '.join(self.point)}")
        return ExitCode.OK

    def ops(self, rest: str) -> int:
        from gradcalc.cli.commands.ops import ops

        return self._run(ops, names=rest.split() or None, output=self.format)

    def set(self, rest: str) -> int:
        name, _, value = rest.partition(" ")
        value = value.strip()
        if name not in SETTINGS:
            hint = did_you_mean(name, list(SETTINGS))
            raise InputError(f"no setting {name!r}: {hint}settings: {', '.join(SETTINGS)}")
        if name == "wrt":
            self.wrt = None if value in ("", "off") else self._checked_wrt(value)
        elif value not in SETTINGS[name]:
            choices = "1 to 17, or off" if name == "digits" else " or ".join(SETTINGS[name])
            raise InputError(f"set {name} takes {choices}, not {value!r}")
        elif name == "format":
            self.format = value
        elif name == "digits":
            self.digits = None if value == "off" else int(value)
        else:
            setattr(self, name, value == "on")
        return ExitCode.OK

    def _checked_wrt(self, value: str) -> str:
        """``set wrt x,y``: refused when the current function has no such variable.

        >>> session = Session()
        >>> _ = session.define("f", "x^2*y")
        read as: f(x, y) = x^2·y
        >>> session.set("wrt z")
        Traceback (most recent call last):
        ...
        gradcalc.core.errors.InputError: set wrt z: f has no variable z (its variables: x, y)
        """
        wrt = value.replace(" ", "")
        if self.current is None:
            return wrt  # (checked by each command, against the function it is given)
        variables = self.functions[self.current].variables
        for name in (n for n in wrt.split(",") if n not in variables):
            hint = did_you_mean(name, list(variables))
            raise InputError(
                f"set wrt {wrt}: {self.current} has no variable {name} "
                f"({hint}its variables: {', '.join(variables)})"
            )
        return wrt

    def help(self, rest: str) -> int:
        print(HELP)
        return ExitCode.OK

    def quit(self, rest: str) -> int:
        self.done = True
        return ExitCode.OK

    def _run(self, command: Callable[..., int], **arguments: Any) -> int:
        """Run a command line command (its errors are printed by it); return its exit code."""
        try:
            return self.context.call(command, **arguments)
        finally:
            sys.stdout.flush()

    # --- tab completion -----------------------------------------------------------------

    def words(self) -> list[str]:
        """What may follow a command: functions, variables, names of the language."""
        from gradcalc.core.ops import FUNCTION_NAMES
        from gradcalc.lang.literals import CONSTANTS

        variables = [v for f in self.functions.values() for v in f.variables]
        return sorted({*self.functions, *variables, *FUNCTION_NAMES, *CONSTANTS, "at"})

    def completions(self, line: str, start: int, text: str) -> list[str]:
        """The completions of ``text``, the word at ``start`` in ``line``."""
        before = line[:start].split()
        if not before:
            choices: Iterable[str] = [*COMMANDS, *self.functions]
        elif before[0] == "set" and len(before) == 1:
            choices = SETTINGS
        elif before[0] == "set" and len(before) == 2:
            choices = SETTINGS.get(before[1], ())
        elif before[0] == "use":
            choices = self.functions
        elif before[0] == "help" or before[0] in ("quit", "exit", "list"):
            choices = ()
        else:
            choices = self.words()
        return sorted(choice for choice in choices if choice.startswith(text))


def _tight(text: str) -> str:
    """``"x = 1, y=2"`` -> ``"x=1,y=2"``: a point or list as the command line spells it."""
    return re.sub(r"\s*([,=])\s*", r"\1", text.strip())


def _specs(text: str) -> list[str]:
    """The points of ``x=1, y=2; x=3, y=4``, each as one ``--at`` spec."""
    return [_tight(spec) for spec in text.split(";") if spec.strip()]
