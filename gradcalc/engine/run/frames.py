"""``gradcalc.grad(expression, at=frame)`` for a pandas DataFrame (the results as a pandas
DataFrame) or a dask DataFrame (a lazy dask DataFrame, one task per partition through
``map_partitions``, its ``meta`` declared), to compose with the user's own pipeline.

The columns the expression names are its variables; the results have those columns, then
``value`` and ``d/d<source>`` -- the columns of ``--out FILE.parquet`` -- on the frame's
index. A variable named like one of those columns is refused, as for every table of results
(:func:`~gradcalc.core.naming.unique_header`). Each cell goes through the data boundary a
points file's do (:func:`~gradcalc.core.cells.checked_columns`): text, booleans, dates ...
are refused, naming the column and the row (counted from 1 in the frame, or in the dask
partition); a bad row (a missing value, NaN, an infinity, an integer float64 cannot hold)
is refused too, unless ``strict=False``: then its point is undefined (its row NaN in the
results, the values read too).
A worker compiles the expression once (:func:`_compiled`).

>>> import pandas as pd
>>> from gradcalc.engine.run.api import compile_expression, gradient_at
>>> points = pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 5.0], "label": ["a", "b"]})
>>> grad_frame("x*y", (compile_expression, gradient_at), points)
     x    y  value  d/dx  d/dy
0  1.0  3.0    3.0   3.0   1.0
1  2.0  5.0   10.0   5.0   2.0
>>> grad_frame("x*y", (compile_expression, gradient_at), points.assign(y=["3", "5"]))
Traceback (most recent call last):
gradcalc.core.errors.InputError: at, column y, row 1: text, not a real number
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gradcalc.core.cells import checked_columns
from gradcalc.core.errors import InputError
from gradcalc.core.naming import unique_header
from gradcalc.engine.evaluate.evaluate import source_names
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.evaluate.results import Options


def is_frame(at: object) -> bool:
    """Whether ``at`` is a pandas or a dask DataFrame (neither is imported to tell).

    >>> is_frame({"x": 1.0})
    False
    """
    module = type(at).__module__.split(".")[0]
    return module in ("pandas", "dask") and hasattr(at, "columns")


def grad_frame(
    expression: str,
    engine: tuple[Callable[..., Any], Callable[..., Any]],
    frame: Any,
    wrt: Sequence[str] | None = None,
    of: Sequence[str] | None = None,
    **options: Any,
) -> Any:
    """The results at every row of ``frame`` (see the module): a pandas DataFrame for a
    pandas one, a lazy dask DataFrame for a dask one. ``engine``: the functions that compile
    an expression and compute its gradients (:mod:`gradcalc.engine.run.api`'s, which calls this).

    Raises:
        InputError: an expression with several targets (choose one with ``of``), ``wrt``
            naming no variable, a variable without a column or named like a column of the
            results, a cell that is not a real number (a bad row too, unless ``strict=False``).
    """
    free = engine[0](expression, (), None if of is None else list(of)).variables
    variables = _columns(tuple(str(c) for c in frame.columns), free)
    key = (engine, expression, variables, None if of is None else tuple(of))
    graph = _compiled(*key)
    if len(graph.targets) != 1:
        raise InputError(
            f"at=DataFrame takes one target; choose one of {graph.target_names} with of="
        )
    sources = source_names(graph, wrt)
    header = unique_header(
        [*variables, "value", *(f"d/d{s}" for s in sources)],
        "pass at= as a mapping of the columns ({name: frame[name].to_numpy()})",
    )
    wanted = None if wrt is None else tuple(wrt)
    if type(frame).__module__.startswith("pandas"):
        return _partition(frame, key, wanted, options, header)
    import pandas as pd

    meta = pd.DataFrame({name: pd.Series(dtype="float64") for name in header})
    return frame.map_partitions(_partition, key, wanted, options, header, meta=meta)


def _columns(names: tuple[str, ...], free: Sequence[str]) -> tuple[str, ...]:
    """The frame's columns (``names``) that are the expression's variables (``free``), in
    the frame's order.

    >>> _columns(("y", "label", "x"), ["x", "y"])
    ('y', 'x')
    >>> _columns(("x", "x"), ["x"])
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: at: the DataFrame's column x is repeated

    Raises:
        InputError: a variable without a column, or with two (which would be x?).
    """
    missing = [v for v in free if v not in names]
    if missing:
        raise InputError(
            f"at: the DataFrame has no column {missing[0]} (its columns: "
            f"{', '.join(names[:20])}{', ...' if len(names) > 20 else ''})"
        )
    variables = tuple(c for c in names if c in free)
    repeated = next((v for v in variables if variables.count(v) > 1), None)
    if repeated is not None:
        raise InputError(f"at: the DataFrame's column {repeated} is repeated")
    return variables


@functools.lru_cache(maxsize=16)
def _compiled(
    engine: tuple[Callable[..., Any], ...],
    expression: str,
    variables: tuple[str, ...],
    of: tuple[str, ...] | None,
) -> Any:
    """The expression compiled once in this process (a worker's, for every partition)."""
    return engine[0](expression, variables, of)


def _partition(
    frame: Any,
    key: tuple[Any, ...],
    wrt: tuple[str, ...] | None,
    options: dict[str, Any],
    header: list[str],
    partition_info: dict[str, Any] | None = None,
) -> Any:
    """One pandas partition's results (its index kept); ``partition_info``: dask's, naming
    the partition in a message."""
    import pandas as pd

    gradient_at, variables = key[0][1], key[2]
    if len(frame) == 0:
        return pd.DataFrame({name: pd.Series(dtype="float64") for name in header})
    what = "at" if partition_info is None else f"at, dask partition {partition_info['number']}"
    cells = {v: _cells(frame[v]) for v in variables}
    arrays, reasons = checked_columns(cells, variables, what, 0, "null")
    chosen = Options(**{"tape": False, **options})
    bad = None
    if reasons:
        if chosen.strict:
            raise InputError(f"{what}, {reasons[min(reasons)]}")
        bad = np.zeros(len(frame), dtype=bool)
        bad[list(reasons)] = True
        for array in arrays.values():
            array[bad] = np.nan
    points = Points(variables, arrays, None, bad=bad)
    (result,) = gradient_at(_compiled(*key), points, None if wrt is None else list(wrt), chosen)
    count = len(frame)
    columns = {v: arrays[v] for v in variables}
    columns["value"] = np.broadcast_to(np.asarray(result.shown_value), (count,))
    for source, shown in result.shown.items():
        columns[f"d/d{source}"] = np.broadcast_to(0.0 if shown is None else shown, (count,))
    return pd.DataFrame(
        {name: np.asarray(columns[name], dtype=float) for name in header}, index=frame.index
    )


def _cells(series: Any) -> Any:
    """A frame's column as numpy, for the cell policy: a numpy-typed one as it is; one of
    pandas' own types (``Int64``, ``Float64``, ``boolean``, ``string``, ``category``) as its
    numpy type (objects when it has none), masked where a value is missing (``NA``: a null,
    as in Parquet)."""
    if isinstance(series.dtype, np.dtype):
        return series.to_numpy()
    kind = np.dtype(getattr(series.dtype, "numpy_dtype", object))
    values = series.to_numpy(
        dtype=kind, na_value=None if kind.hasobject else np.zeros((), kind)[()]
    )
    return np.ma.MaskedArray(values, mask=series.isna().to_numpy(dtype=bool))
