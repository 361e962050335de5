"""Option sets: the options that go together, each a frozen dataclass whose fields are the
shared options of :mod:`gradcalc.cli.options` -- :class:`PointOptions`,
:class:`DerivativeOptions`, :class:`OutputOptions`, :class:`CheckOptions`,
:class:`DataOptions`, :class:`DiagnosticsOptions` -- shown under one panel of ``--help``.

A command decorated with :func:`option_sets` takes a set as one argument, ``point:
Annotated[PointOptions, Offer()]``, and offers its fields as flags (``Offer("at", "wrt")``:
only those; the others keep their defaults); its callers (Typer, the repl) still give each
flag by its name, and a flag means the same in every command that offers it.

>>> @option_sets
... def command(context, *, check: Annotated[CheckOptions, Offer("check_timeout")]) -> int:
...     return check
>>> list(inspect.signature(command).parameters)
['context', 'check_timeout']
>>> command(None, check_timeout=2.0)
CheckOptions(no_check=False, check_timeout=2.0)
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any

from gradcalc.cli.options import (
    At,
    Bind,
    CheckTimeout,
    Cluster,
    Columns,
    Data,
    DeadShare,
    Diagnose,
    Digits,
    Direction,
    Exact,
    Exploding,
    Features,
    IdColumn,
    Latex,
    NoCheck,
    NoNormalize,
    NoTape,
    Of,
    Order,
    PointsFile,
    ResultsOut,
    SaturatedShare,
    Saturation,
    SaveGradients,
    Seed,
    SkipBadRows,
    Subgradient,
    Target,
    Vanishing,
    Wrt,
    output_option,
)


@dataclasses.dataclass(frozen=True)
class PointOptions:
    """Where: the points of ``--at``, or of a file (``--points``) and how it is read."""

    at: At = None
    points: PointsFile = None
    skip_bad_rows: SkipBadRows = False
    columns: Columns = None
    id_column: IdColumn = None
    cluster: Cluster = None


@dataclasses.dataclass(frozen=True)
class DerivativeOptions:
    """Which derivative: by which sources, of which statements, of what order or direction."""

    wrt: Wrt = None
    of: Of = None
    order: Order = 1
    direction: Direction = None
    no_normalize: NoNormalize = False
    subgradient: Subgradient = False


@dataclasses.dataclass(frozen=True)
class OutputOptions:
    """How the answer is shown: ``--format`` (``output``: its choices are the view's, given
    by :class:`Offer`), the tape, exact values, LaTeX, digits, and ``--out``."""

    output: str = "table"
    no_tape: NoTape = False
    exact: Exact = False
    latex: Latex = False
    digits: Digits = None
    out: ResultsOut = None


@dataclasses.dataclass(frozen=True)
class CheckOptions:
    """The symbolic cross-check: whether it runs, and for how long at most."""

    no_check: NoCheck = False
    check_timeout: CheckTimeout = 5.0


@dataclasses.dataclass(frozen=True)
class DataOptions:
    """Tensor values from a data set (``--data``), and how ``randn(...)`` values are drawn
    (``None``: not given)."""

    data: Data = None
    features: Features = None
    target: Target = None
    bind: Bind = None
    seed: Seed = None
    save_gradients: SaveGradients = None

    def given(self) -> list[str]:
        """The options given, as typed (for the message when they do not apply).

        >>> DataOptions(seed=3).given()
        ['--seed']
        """
        flags = {
            "--data": self.data,
            "--features": self.features,
            "--target": self.target,
            "--as": self.bind,
            "--seed": self.seed,
            "--save-gradients": self.save_gradients,
        }
        return [flag for flag, value in flags.items() if value is not None]


@dataclasses.dataclass(frozen=True)
class DiagnosticsOptions:
    """The gradients' health report: when a gradient vanishes or explodes, when an
    activation saturates, and (tensor values) when a unit is dead or saturated."""

    diagnose: Diagnose = False
    vanishing: Vanishing = 1e-8
    exploding: Exploding = 1e8
    saturation: Saturation = 1e-4
    dead_share: DeadShare = None
    saturated_share: SaturatedShare = None

    def thresholds(self) -> Any:
        """The scalar report's thresholds
        (:class:`gradcalc.engine.evaluate.findings.Thresholds`)."""
        from gradcalc.engine.evaluate.findings import Thresholds

        return Thresholds(self.vanishing, self.exploding, self.saturation)

    def layer_thresholds(self) -> Any:
        """The layer report's thresholds (:class:`gradcalc.engine.tensors.layers.Thresholds`)."""
        from gradcalc.engine.tensors.layers import Thresholds

        dead = 1.0 if self.dead_share is None else self.dead_share
        saturated = 0.5 if self.saturated_share is None else self.saturated_share
        return Thresholds(dead, self.saturation, saturated, self.vanishing, self.exploding)

    def given_for_tensors(self) -> list[str]:
        """The options given that only tensor values use, as typed.

        >>> DiagnosticsOptions(dead_share=0.5).given_for_tensors()
        ['--dead-share']
        """
        flags = {"--dead-share": self.dead_share, "--saturated-share": self.saturated_share}
        return [flag for flag, value in flags.items() if value is not None]


class Offer:
    """What a command offers of an option set: the fields named (all when none is), and for
    :class:`OutputOptions` the ``view`` whose formats ``--format`` offers. The fields it does
    not offer keep their defaults."""

    def __init__(self, *fields: str, view: str | None = None):
        self.fields, self.view = fields, view

    def parameters(self, kind: type, like: inspect.Parameter) -> list[inspect.Parameter]:
        """The flags of the set ``kind`` this offer gives, as parameters of ``like``'s kind."""
        hints = typing.get_type_hints(kind, include_extras=True)
        names = [field.name for field in dataclasses.fields(kind)]
        unknown = [name for name in self.fields if name not in names]
        if unknown:
            raise TypeError(f"{kind.__name__} has no option {unknown[0]}")
        found = []
        for field in dataclasses.fields(kind):
            if self.fields and field.name not in self.fields:
                continue
            annotation = hints[field.name]
            if field.name == "output":  # (--format: its choices are the view's formats)
                if self.view is None:
                    raise TypeError("--format needs the view whose formats it offers: view=")
                annotation = Annotated[str, output_option(self.view)]
            parameter = inspect.Parameter(field.name, like.kind, default=field.default)
            found.append(parameter.replace(annotation=annotation))
        return found


def option_sets(command: Callable[..., int]) -> Callable[..., int]:
    """``command`` with each option set it takes (a parameter annotated
    ``Annotated[SomeOptions, Offer(...)]``) offered as that set's flags: its signature lists
    them one by one (what Typer reads), and a call gathers them back into the set."""
    signature = inspect.signature(command, eval_str=True)
    parameters: list[inspect.Parameter] = []
    sets: dict[str, type] = {}
    for parameter in signature.parameters.values():
        kind, *extras = typing.get_args(parameter.annotation) or (parameter.annotation,)
        offer = next((extra for extra in extras if isinstance(extra, Offer)), None)
        if offer is None:
            parameters.append(parameter)
            continue
        sets[parameter.name] = kind
        parameters += offer.parameters(kind, parameter)

    @functools.wraps(command)
    def gathered(context: Any, *arguments: Any, **flags: Any) -> int:
        for name, kind in sets.items():
            fields = [field.name for field in dataclasses.fields(kind)]
            flags[name] = kind(**{field: flags.pop(field) for field in fields if field in flags})
        return command(context, *arguments, **flags)

    gathered.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return gathered
