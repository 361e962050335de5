"""Tensor values on the command line: the values the data options give (``--data``,
``--features``, ``--target``, ``--as``, ``--seed``: :class:`~gradcalc.cli.options.DataOptions`),
how a command tells a tensor point from a scalar one, and ``grad`` on a tensor program.

>>> wants_tensors(["W=randn(3,2)"], None), wants_tensors(["x=1"], None)
(True, False)
>>> scalar_only(["W=randn(2,2),v=[1,1]"], "explain")
Traceback (most recent call last):
gradcalc.core.errors.InputError: explain takes scalar values only (x=3), and W=randn(2,2) is a \
tensor: for tensor values, use gradcalc grad
"""

from __future__ import annotations

import sys
from typing import Any

from gradcalc.cli.commands.optionsets import DataOptions, DiagnosticsOptions
from gradcalc.core.errors import InputError


def wants_tensors(at: list[str] | None, data: str | None) -> bool:
    """Whether a command's point has tensor values (or a data set)."""
    from gradcalc.lang.literals import has_tensors

    return data is not None or bool(at and has_tensors(at))


def scalar_only(at: list[str] | None, command: str) -> None:
    """Refuse a tensor value (``W=[[1,2],[3,4]]``, ``W=randn(2,2)``, ``W=@w.npy``) in the
    point of a command that computes with scalars only: ``grad`` is the one that takes them."""
    from gradcalc.lang.literals import is_tensor_text, split_top_level

    for pair in (pair for spec in at or () for pair in split_top_level(spec)):
        if is_tensor_text(pair.partition("=")[2]):
            raise InputError(
                f"{command} takes scalar values only (x=3), and {pair.strip()} is a tensor: "
                "for tensor values, use gradcalc grad"
            )


def refuse_unused(data: DataOptions, diagnostics: DiagnosticsOptions) -> None:
    """Refuse tensor options on a scalar point: they would be silently ignored."""
    given = data.given() + diagnostics.given_for_tensors()
    if given:
        raise InputError(
            f"{given[0]} is for tensor values (--data FILE, or --at W=randn(3,2), W=[[1,2]], "
            "W=@w.npy)"
        )


def tensor_values(
    at: list[str] | None, options: DataOptions, option: str = "--at", files: bool = False
) -> tuple[dict, dict, tuple[str, ...]]:
    """Every variable's value and how it was given: ``--data``'s X and y, then those of
    ``at`` (the specs of ``--at``, or ``--from``); and the names ``--data`` bound. A value
    names a file (``W=@w.npy``) only with ``files``: the operator's ``gradcalc --file``, on
    the command line's own arguments (never a repl line: its context has no ``files``)."""
    from gradcalc.engine.tensors.tensorpoints import DEFAULT_SEED, parse_tensor_at
    from gradcalc.io.tensors import load_tensor, read_data

    if options.data is None and (options.features or options.target or options.bind):
        raise InputError("--features, --target and --as choose columns of --data: give --data")
    seed = DEFAULT_SEED if options.seed is None else options.seed
    point = parse_tensor_at(at or [], seed, load_tensor if files else None)
    values, given = dict(point.values), dict(point.given)
    for name, text in point.given.items():
        if text.startswith(("randn", "glorot")):
            given[name] = f"{text}, seed {seed}"
    if options.data is None:
        return values, given, ()
    x_name, y_name = _bound_names(options.bind)
    chosen = None if options.features is None else _list(options.features, "--features")
    data = read_data(options.data, chosen, options.target)
    for name in (x_name, y_name):
        if name in values:
            raise InputError(f"{name} is bound by --data and given in {option} too: give it once")
    features = ",".join(data.features)
    return (
        {x_name: data.X, y_name: data.y, **values},
        {
            x_name: f"{data.path}: {features}",
            y_name: f"{data.path}: {data.target}",
            **given,
        },
        (x_name, y_name),
    )


def _bound_names(bind: str | None) -> tuple[str, str]:
    from gradcalc.lang.literals import NAME

    names = _list(bind or "X,y", "--as")
    if len(names) != 2 or names[0] == names[1] or not all(NAME.match(n) for n in names):
        raise InputError(f"--as names the features and the target: two names like X,y, got {bind}")
    return names[0], names[1]


def _list(text: str, option: str) -> list[str]:
    items = [part.strip() for part in text.split(",")]
    if not all(items):
        raise InputError(f"{option} expects names separated by commas, got {text!r}")
    return items


def tensor_grad(
    context: Any,
    expression: str,
    at: list[str] | None,
    options: DataOptions,
    wrt: str | None,
    output: str,
    digits: int | None,
    tape: bool,
    thresholds: Any,
    check_timeout: float | None = 5.0,
) -> int:
    """``gradcalc grad`` when a value is a tensor: the loss, the gradients, the layer report,
    the check (``check_timeout`` None: none); exit 1 when the check disagrees."""
    from gradcalc.cli.inputs import expression_text, names
    from gradcalc.engine.run.api import compile_expression
    from gradcalc.engine.tensors.tensorgrad import tensor_gradient
    from gradcalc.render.views.tensors import TensorView

    values, given, bound = tensor_values(at, options, files=context.files)
    graph = compile_expression(expression_text(expression, None), list(values))
    sources = names(wrt) or [v for v in graph.variables if v not in bound] or None
    result = tensor_gradient(graph, values, sources, thresholds)
    result.given = given
    _warn(context, result.warnings)
    if check_timeout is not None:
        from gradcalc.engine.tensors.tensorcheck import check_tensor

        result.check = check_tensor(result, check_timeout)
    if options.save_gradients is not None:
        from gradcalc.io.tensors import save_arrays

        for path in save_arrays(options.save_gradients, result.gradient):
            print(f"wrote {path}", file=sys.stderr)
    _write(context, TensorView(), result, output, digits, tape)
    return 1 if result.check is not None and result.check.status == "disagree" else 0


def tensor_train(
    context: Any,
    expression: str,
    start: list[str],
    options: DataOptions,
    training: dict[str, Any],
    output: str,
    digits: int | None,
    thresholds: Any,
) -> int:
    """``gradcalc minimize`` when a value is a tensor: train every ``--from`` value, the data
    held fixed; exit 1 only when the loss diverged."""
    from gradcalc.apps.optimize.train import train
    from gradcalc.apps.views import TrainingView
    from gradcalc.cli.console import progress_bar
    from gradcalc.cli.inputs import expression_text
    from gradcalc.engine.run.api import compile_expression

    if options.save_gradients is not None:
        raise InputError("--save-gradients is grad's: minimize gives the trained values in JSON")
    values, given, bound = tensor_values(start, options, "--from", context.files)
    graph = compile_expression(expression_text(expression, None), list(values))
    data = {name: values[name] for name in bound}
    parameters = {name: value for name, value in values.items() if name not in bound}
    with progress_bar(context, training["steps"], "training") as advance:
        result = train(graph, data, parameters, **training, thresholds=thresholds, progress=advance)
    result.before.given = given
    _warn(context, result.before.warnings)
    _write(context, TrainingView(), result, output, digits, True)
    return 1 if result.diverged else 0


def _warn(context: Any, warnings: list[str]) -> None:
    errors = context.console(stderr=True)
    for warning in warnings:
        errors.print(f"warning: {warning}", markup=False, soft_wrap=True)


def _write(
    context: Any, view: Any, result: Any, output: str, digits: int | None, tape: bool
) -> None:
    from gradcalc.render.output.formats import Sink, choose

    kind = choose(view, output)
    sink = Sink(sys.stdout, context.console(), digits, tape)
    kind.write(view, result, sink)
    kind.close(sink)
