"""``gradcalc.grad(expression, at=frame)`` for a pandas DataFrame (the results as a pandas
DataFrame) or a dask DataFrame (a lazy dask DataFrame, one task per partition through
``map_partitions``, its ``meta`` declared), to compose with the user's own pipeline.

The columns the expression names are its variables; the results have those columns, then
``value`` and ``d/d<source>`` -- the columns of ``--out FILE.parquet`` -- on the frame's
index. A worker compiles the expression once (:func:`_compiled`).

>>> import pandas as pd
>>> from gradcalc.engine.run.api import compile_expression, gradient_at
>>> points = pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 5.0], "label": ["a", "b"]})
>>> grad_frame("x*y", (compile_expression, gradient_at), points)
     x    y  value  d/dx  d/dy
0  1.0  3.0    3.0   3.0   1.0
1  2.0  5.0   10.0   5.0   2.0
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gradcalc.core.errors import InputError
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
        InputError: an expression with several targets (choose one with ``of``), or
            ``wrt`` naming no variable.
    """
    names = tuple(str(c) for c in frame.columns)
    free = engine[0](expression, (), None if of is None else list(of)).variables
    variables = tuple(c for c in names if c in free)
    key = (engine, expression, variables, None if of is None else tuple(of))
    graph = _compiled(*key)
    if len(graph.targets) != 1:
        raise InputError(
            f"at=DataFrame takes one target; choose one of {graph.target_names} with of="
        )
    sources = source_names(graph, wrt)
    header = [*variables, "value", *(f"d/d{s}" for s in sources)]
    wanted = None if wrt is None else tuple(wrt)
    if type(frame).__module__.startswith("pandas"):
        return _partition(frame, key, wanted, options, header)
    import pandas as pd

    meta = pd.DataFrame({name: pd.Series(dtype="float64") for name in header})
    return frame.map_partitions(_partition, key, wanted, options, header, meta=meta)


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
) -> Any:
    """One pandas partition's results (its index kept)."""
    import pandas as pd

    gradient_at, variables = key[0][1], key[2]
    if len(frame) == 0:
        return pd.DataFrame({name: pd.Series(dtype="float64") for name in header})
    arrays = {v: np.asarray(frame[v], dtype=float) for v in variables}
    points = Points(variables, arrays, None)
    chosen = Options(**{"tape": False, **options})
    (result,) = gradient_at(_compiled(*key), points, None if wrt is None else list(wrt), chosen)
    count = len(frame)
    columns = {v: arrays[v] for v in variables}
    columns["value"] = np.broadcast_to(np.asarray(result.shown_value), (count,))
    for source, shown in result.shown.items():
        columns[f"d/d{source}"] = np.broadcast_to(0.0 if shown is None else shown, (count,))
    return pd.DataFrame(
        {name: np.asarray(columns[name], dtype=float) for name in header}, index=frame.index
    )
