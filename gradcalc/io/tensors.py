"""Tensors from files: ``--at W=@weights.npy`` (or ``.csv``) and ``--data FILE`` as a matrix of
features and a column of targets.

Only regular files are read (a device or FIFO is refused before any read), ``.npy`` files
without pickles (``allow_pickle=False``), and every array is capped at
:data:`~gradcalc.engine.tensors.tensorpoints.MAX_ELEMENTS` elements before it is read whole.

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> np.save(os.path.join(folder, "w.npy"), np.eye(2))
>>> load_tensor(os.path.join(folder, "w.npy")).tolist()
[[1.0, 0.0], [0.0, 1.0]]
>>> with open(os.path.join(folder, "d.csv"), "w") as f:
...     _ = f.write("a,b,t\\n1,2,0\\n3,4,1\\n")
>>> data = read_data(os.path.join(folder, "d.csv"))
>>> data.X.tolist(), data.y.tolist(), data.features, data.target
([[1.0, 2.0], [3.0, 4.0]], [[0.0], [1.0]], ('a', 'b'), 't')
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gradcalc.core.cells import Place, check_kind, real_column
from gradcalc.core.errors import InputError, reason_of
from gradcalc.engine.tensors.tensorpoints import check_elements
from gradcalc.io.arrays import BROKEN, npy_header
from gradcalc.io.files import cell_value
from gradcalc.io.headers import is_name, not_csv, shown_columns
from gradcalc.io.lines import bounded_lines, open_regular, open_text
from gradcalc.io.sources import open_points


def load_tensor(path: str) -> np.ndarray:
    """The array in a ``.npy`` file or a ``.csv`` file of numbers (one line a row; a file of
    one line is a vector, else a matrix).

    Raises:
        InputError: another kind of file, one that is not a regular file, a pickled or
            non-numeric array, more than the limit of elements, a value that is not finite.
    """
    lowered = path.lower()
    if lowered.endswith(".npy"):
        array = _npy(path)
    elif lowered.endswith(".csv"):
        array = _csv(path)
    else:
        raise InputError(f"{path}: a tensor file is .npy or .csv")
    return array


def _npy(path: str) -> np.ndarray:
    """A numeric ``.npy`` array, its size checked from the header before the data is read."""
    try:
        with open_regular(path) as stream:
            shape, dtype = npy_header(stream)
            width = shape[-1] if len(shape) > 1 else max(math.prod(shape), 1)
            place = Place(f"tensor file {path}", "", width=width)
            check_kind(dtype, place)
            check_elements(math.prod(shape), f"@{path}")
            stream.seek(0)
            array = np.load(stream, allow_pickle=False)
    except BROKEN as error:
        raise InputError(f"cannot read tensor file {path}: {reason_of(error)}") from None
    values, bad = real_column(array.reshape(-1), place)
    if bad:
        k = min(bad)
        raise InputError(f"{place.row(k)}: {bad[k]}")
    return values.reshape(array.shape)


def _csv(path: str) -> np.ndarray:
    """A CSV file of numbers (no header): each cell read like a points file's."""
    what = "tensor file"
    rows: list[list[float]] = []
    elements = 0
    with open_text(path, what) as stream:
        for number, line in enumerate(bounded_lines(stream, what), 1):
            if not line.strip():
                continue
            try:
                cells = next(csv.reader([line], strict=True), [])
            except csv.Error as error:
                raise InputError(f"{what} {path} row {number}: {not_csv(error)}") from None
            if rows and len(cells) != len(rows[0]):
                raise InputError(
                    f"{what} {path} row {number}: {len(cells)} values, row 1 has {len(rows[0])}"
                )
            elements += len(cells)
            check_elements(elements, f"@{path}")
            rows.append(
                [cell_value(c, number, str(k), f"{what} {path}") for k, c in enumerate(cells, 1)]
            )
    if not rows:
        raise InputError(f"{what} {path} is empty")
    return np.array(rows[0] if len(rows) == 1 else rows, dtype=float)


@dataclass
class DataSet:
    """A data set's ``features`` columns as the matrix ``X`` (one row per row of the file) and
    its ``target`` column as ``y``, a column (shape ``(rows, 1)``: it lines up with a layer's
    one-output predictions, where a 1-d ``y`` would broadcast to a square)."""

    X: np.ndarray
    y: np.ndarray
    features: tuple[str, ...]
    target: str
    path: str

    @property
    def rows(self) -> int:
        """How many rows."""
        return self.X.shape[0]


def read_data(
    path: str, features: Sequence[str] | None = None, target: str | None = None
) -> DataSet:
    """The data file ``path`` (any kind a points file may be): ``target`` (default: the last
    column) and ``features`` (default: every other column that is a name).

    Raises:
        InputError: a column that does not exist or is chosen twice, a bad cell (naming its
            row and column), more than the limit of elements.
    """
    what = "data file"
    with open_points(path, what) as source:
        header = source.names()
        if not header:
            raise InputError(f"the {what} {path} has no column names (a header row)")
        chosen_target = target if target is not None else header[-1]
        if not is_name(chosen_target):
            raise InputError(
                f"the {what} {path}: the last column has no name ({shown_columns(header)}): "
                "give a header row of names, or --target NAME"
            )
        if features is None:
            features = [n for n in header if n != chosen_target and is_name(n)]
        if chosen_target in features:
            raise InputError(f"--target {chosen_target} is one of the --features too")
        if not features:
            raise InputError(f"the {what} {path} has no feature column besides {chosen_target}")
        columns = [*features, chosen_target]
        chunks, elements = [], 0
        for chunk in source.read(columns):
            elements += chunk.count * len(columns)
            check_elements(elements, f"the {what} {path}")
            chunks.append(np.column_stack([chunk.arrays[n] for n in columns]))
    table = np.concatenate(chunks)
    return DataSet(table[:, :-1], table[:, -1:], tuple(features), chosen_target, path)


def save_arrays(folder: str, arrays: Mapping[str, np.ndarray | None]) -> list[str]:
    """Write each array to ``folder/NAME.npy`` (the folder is made if missing; an array that
    is ``None`` is skipped); the paths written.

    >>> import tempfile
    >>> [os.path.basename(p) for p in save_arrays(tempfile.mkdtemp(), {"W": np.eye(2), "b": None})]
    ['W.npy']

    Raises:
        InputError: a folder that cannot be made or written to.
    """
    from gradcalc.io.written import Replacing

    written = []
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot write the gradients to {folder}: {reason_of(error)}") from None
    for name, array in arrays.items():
        if array is not None:
            path = os.path.join(folder, f"{name}.npy")
            new = Replacing(path)  # (each file whole or not at all)
            try:
                with open(new.temporary, "wb") as stream:
                    np.save(stream, np.asarray(array, dtype=np.float64), allow_pickle=False)
            except OSError as error:
                new.discard()
                raise InputError(f"cannot write {path}: {reason_of(error)}") from None
            new.commit()
            written.append(path)
    return written
