"""Points from numpy files: ``.npy`` (a structured array, or a plain one whose columns
``--columns`` names) and ``.npz`` (one 1-d array per variable), in chunks.

A ``.npy`` file is memory-mapped, so any size runs in bounded memory; an ``.npz`` archive
is read a column at a time. Columns of table-like data become :class:`Points` through
:func:`table_points`, which the Parquet reader shares.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "p.npz")
>>> np.savez(path, x=np.array([1.0, 2.0]), y=np.array([3, 4]))
>>> (chunk,) = read_arrays(path)
>>> chunk.names, chunk.arrays["y"]
(('x', 'y'), array([3., 4.]))
"""

from __future__ import annotations

import math
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from gradcalc.core.cells import Place, check_kind, checked_columns, refuse
from gradcalc.core.errors import InputError, reason_of
from gradcalc.engine.evaluate.points import Points
from gradcalc.engine.tensors.tensorpoints import MAX_ELEMENTS
from gradcalc.io.files import CHUNK_ROWS, Skipped, check_headers
from gradcalc.io.headers import shown_columns

SUFFIXES = (".npy", ".npz")


def read_arrays(
    path: str,
    columns: Sequence[str] | None = None,
    id_column: str | None = None,
    skipped: Skipped | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> Iterator[Points]:
    """The points of a ``.npy`` or ``.npz`` file, ``chunk_rows`` at a time.

    ``columns`` chooses the variables (default: every column but ``id_column``) and names
    the columns of a plain 2-d ``.npy`` array, in order; ``id_column`` is carried as text.

    Raises:
        InputError: an unreadable file, arrays of different lengths, a column that is not
            numeric, or a value that is not finite (naming the column and the row).
    """
    with _opened(path, columns) as (names, length, column):
        chosen = choose_columns(names, columns, id_column, path)
        if length == 0:
            raise InputError(f"the points file {path} has no rows of points")
        for start in range(0, length, chunk_rows):
            stop = min(start + chunk_rows, length)
            data = {n: column(n, start, stop) for n in (*chosen, *_given(id_column))}
            chunk = table_points(data, chosen, id_column, start, path, skipped)
            if chunk is not None:
                yield chunk


def array_columns(path: str) -> tuple[str, ...] | None:
    """The column names of a numpy file (``None``: a plain array, named by ``--columns``)."""
    with _opened(path) as (names, _, _):
        return names


def array_rows(path: str) -> int:
    """How many rows (points) a numpy file holds, from its headers."""
    with _opened(path) as (_, length, _):
        return length


def choose_columns(
    names: tuple[str, ...] | None,
    columns: Sequence[str] | None,
    id_column: str | None,
    path: str,
) -> tuple[str, ...]:
    """The variables to read: ``columns`` (each must exist) or every column but the id."""
    if names is None:
        if columns is None:
            raise InputError(f"{path} has no column names: name its columns with --columns x,y")
        names = tuple(columns)
    for name in [*(columns or []), *_given(id_column)]:
        if name not in names:
            raise InputError(f"{path} has no column {name} ({shown_columns(names)})")
    chosen = tuple(n for n in names if n != id_column) if columns is None else tuple(columns)
    check_headers([(name, k) for k, name in enumerate(chosen, 1)], str(path))
    if len(set(chosen)) != len(chosen):
        raise InputError(f"the column {chosen[0]} is chosen twice")
    return chosen


def table_points(
    data: Mapping[str, Any],
    names: Sequence[str],
    id_column: str | None,
    start: int,
    what: str,
    skipped: Skipped | None,
    missing: str = "masked",
) -> Points | None:
    """Points from columns of one chunk (numpy arrays, masked where a value is missing; the
    id column may be any sequence); ``start`` is the chunk's first row (0-based). Each column
    goes through the one cell policy (:func:`gradcalc.core.cells.checked_columns`): a column that
    is not real numbers is an error naming it and its first row; a missing, non-finite or
    out-of-range value is an error naming the column and the row (1-based), or with
    ``skipped`` leaves its row out (``None`` when no row is left).

    >>> table_points({"x": np.array([1.0, 2.0]), "n": ["a", None]}, ["x"], "n", 0, "f", None).ids
    ['a', '']
    >>> table_points({"x": np.ma.masked_invalid([1.0, np.nan])}, ["x"], None, 0, "f", None)
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: f, column x, row 2: the value is missing (masked)
    >>> table_points({"x": np.array(["pi"])}, ["x"], None, 0, "f", None)
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: f, column x, row 1: text, not a real number
    """
    length = len(next(iter(data.values()))) if data else 0
    arrays, reasons = checked_columns(data, names, what, start, missing)
    if skipped is not None:
        skipped.rows += length
    good = np.ones(length, dtype=bool)
    if reasons:
        if skipped is None:
            raise InputError(f"{what}, {reasons[min(reasons)]}")
        for k in sorted(reasons):
            skipped.add(reasons[k])
        good[list(reasons)] = False
        if not good.any():
            return None
        arrays = {n: a[good] for n, a in arrays.items()}
    ids = None
    if id_column is not None:
        ids = ["" if v is None else str(v) for v, ok in zip(data[id_column], good) if ok]
    first_row = start + 1 + int(np.argmax(good))
    return Points(tuple(names), arrays, None, first_row, ids)


def _given(id_column: str | None) -> tuple[str, ...]:
    return () if id_column is None else (id_column,)


#: What reading a numpy file may raise when the file is malformed or truncated.
BROKEN = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)


@contextmanager
def _opened(
    path: str, columns: Sequence[str] | None = None
) -> Iterator[tuple[tuple[str, ...] | None, int, Callable[[str, int, int], Any]]]:
    """(column names, row count, column(name, start, stop)) of a numpy file; a plain
    array's columns are named by ``columns`` (``None`` without them)."""
    try:
        if path.lower().endswith(".npy"):
            _refuse_fields(path)
        loaded = np.load(path, mmap_mode="r", allow_pickle=False)
    except BROKEN as error:
        raise InputError(f"cannot read points file {path}: {reason_of(error)}") from None
    if isinstance(loaded, np.lib.npyio.NpzFile):
        with loaded:
            yield _npz(loaded, path)
        return
    yield _npy(loaded, path, columns)


def _refuse_fields(path: str) -> None:
    """Refuse an ``.npy`` file whose array (or a field of it) holds Python objects, or
    whose field holds an array in each row (``('x', float, (2,))``), naming the field, from
    its header (such a file is never unpickled, nor memory-mapped)."""
    from gradcalc.io.lines import open_regular

    with open_regular(path) as stream:
        _, dtype = npy_header(stream)
    fields = dtype.names or ()
    for name in fields:
        if dtype[name].hasobject:
            check_kind(dtype[name], Place(path, name))
        if dtype[name].shape:
            refuse(Place(path, name), 0, f"an array of shape {dtype[name].shape}")
    if not fields and dtype.hasobject:
        check_kind(dtype, Place(path, "(every column)"))


def _npz(archive: Any, path: str) -> tuple[tuple[str, ...], int, Callable]:
    """An archive's columns, each checked from its header before any is read: 1-d, at most
    :data:`~gradcalc.engine.tensors.tensorpoints.MAX_ELEMENTS` elements, all of one length."""
    names = tuple(archive.files)
    headers = {n: _member_header(archive, n, path) for n in names}
    shapes = {n: length for n, (length, _) in headers.items()}
    if len(set(shapes.values())) > 1:
        sizes = ", ".join(f"{n}: {k}" for n, k in shapes.items())
        raise InputError(f"{path}: the arrays have different lengths ({sizes})")
    loaded: dict[str, np.ndarray] = {}

    def column(name: str, start: int, stop: int) -> np.ndarray:
        if name not in loaded:  # each array is read whole, once
            if headers[name][1].hasobject:  # (never unpickled: refused as the policy says)
                check_kind(headers[name][1], Place(path, name))
            try:
                loaded[name] = archive[name]
            except BROKEN as error:
                raise InputError(
                    f"cannot read points file {path}, array {name}: {reason_of(error)}"
                ) from None
        return loaded[name][start:stop]

    return names, next(iter(shapes.values()), 0), column


def _member_header(archive: Any, name: str, path: str) -> tuple[int, np.dtype]:
    """The length and type of the archive's 1-d array ``name``, from its header and the
    archive's declared sizes alone (nothing of its data is decompressed)."""
    member = f"{name}.npy"
    try:
        info = archive.zip.getinfo(member)
        with archive.zip.open(member) as stream:
            shape, dtype = npy_header(stream)
    except (*BROKEN, KeyError) as error:
        raise InputError(
            f"cannot read points file {path}, array {name}: {reason_of(error)}"
        ) from None
    elements = math.prod(shape)
    limit = MAX_ELEMENTS * dtype.itemsize + 65_536  # (the data and a generous header)
    if elements > MAX_ELEMENTS or info.file_size > limit:
        raise InputError(
            f"{path}, array {name}: "
            f"{elements if elements > MAX_ELEMENTS else info.file_size // dtype.itemsize:,} "
            f"elements; the limit is {MAX_ELEMENTS:,} for one array of an .npz archive "
            "(write the points as .npy, CSV or Parquet, read in chunks)"
        )
    if len(shape) != 1:
        raise InputError(f"{path}, array {name}: a {len(shape)}-d array; a column must be 1-d")
    return int(shape[0]), dtype


def npy_header(stream: Any) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and type an ``.npy`` stream declares, read from its header alone.

    >>> import io
    >>> buffer = io.BytesIO()
    >>> np.save(buffer, np.zeros((2, 3), dtype=np.float32))
    >>> _ = buffer.seek(0)
    >>> npy_header(buffer)
    ((2, 3), dtype('float32'))
    """
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
    else:
        shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
    return tuple(shape), dtype


def _npy(
    array: np.ndarray, path: str, columns: Sequence[str] | None
) -> tuple[tuple[str, ...] | None, int, Callable]:
    if array.dtype.names:
        flat = _one_dimensional(array, path)
        return tuple(array.dtype.names), len(flat), lambda n, a, b: flat[n][a:b]
    table = array.reshape(-1, 1) if array.ndim == 1 else array
    if table.ndim != 2:
        raise InputError(f"{path}: a {array.ndim}-d array; points are the rows of a 2-d array")
    if columns is None:
        return None, table.shape[0], lambda n, a, b: None
    if len(columns) != table.shape[1]:
        raise InputError(
            f"{path} has {table.shape[1]} columns and --columns names {len(columns)}: "
            "name every column, in order"
        )
    names = tuple(columns)
    return names, table.shape[0], lambda n, a, b: table[a:b, names.index(n)]


def _one_dimensional(array: np.ndarray, what: str) -> np.ndarray:
    if array.ndim != 1:
        raise InputError(f"{what}: a {array.ndim}-d array; a column must be 1-d")
    return array
