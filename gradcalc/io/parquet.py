"""Points from Parquet and Arrow IPC (Feather) files, and results into Parquet, through
pyarrow (``pip install 'gradcalc[parquet]'``).

Files are read one record batch at a time (at most ``chunk_rows`` rows), only the chosen
columns, so any size runs in bounded memory; results are written a chunk at a time. Before
its data is read, a file is sized from its metadata (:mod:`gradcalc.io.sizes`: a Parquet or
Arrow file's footer; an Arrow stream's messages, each before it is decoded), and text is
never decoded into a copy per row.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any

from gradcalc.core.cells import KINDS, Place, refuse
from gradcalc.core.errors import InputError, reason_of
from gradcalc.engine.evaluate.points import Points
from gradcalc.io import sizes
from gradcalc.io.arrays import choose_columns, table_points
from gradcalc.io.files import CHUNK_ROWS, Skipped

PARQUET = (".parquet", ".pq")
ARROW = (".arrow", ".feather", ".ipc")
SUFFIXES = PARQUET + ARROW


def pyarrow() -> Any:
    """The pyarrow module, or an :class:`InputError` saying how to install it."""
    try:
        import pyarrow as pa
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise InputError(
            "Parquet and Arrow files need pyarrow: pip install 'gradcalc[parquet]'"
        ) from None
    return pa


def read_table_file(
    path: str,
    columns: Sequence[str] | None = None,
    id_column: str | None = None,
    skipped: Skipped | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> Iterator[Points]:
    """The points of a Parquet or Arrow IPC file, a record batch (≤ ``chunk_rows`` rows) at a
    time; ``columns`` and ``id_column`` as for CSV files.

    >>> import tempfile, os
    >>> pa = pyarrow()
    >>> path = os.path.join(tempfile.mkdtemp(), "p.parquet")
    >>> table = pa.table({"id": ["a", "b"], "x": [1.0, 2.0], "note": ["", "?"]})
    >>> pa.parquet.write_table(table, path)
    >>> [(c.names, c.arrays["x"].tolist(), c.ids) for c in read_table_file(path, ["x"], "id")]
    [(('x',), [1.0, 2.0], ['a', 'b'])]

    Raises:
        InputError: without pyarrow, for an unreadable file, or a value that is missing,
            not numeric or not finite (naming the column and the row).
    """
    names, batches = _batches(path, chunk_rows)
    chosen = choose_columns(names, columns, id_column, path)
    wanted = [*chosen, *([id_column] if id_column is not None else [])]
    start = 0
    for batch in batches(wanted):
        data: dict[str, Any] = {
            n: _column(batch.column(n), Place(path, n, start + 1)) for n in chosen
        }
        if id_column is not None:
            data[id_column] = _texts(batch.column(id_column))
        chunk = table_points(data, chosen, id_column, start, path, skipped, "null")
        start += batch.num_rows
        if chunk is not None:
            yield chunk


def table_columns(path: str) -> tuple[str, ...]:
    """The column names of a Parquet or Arrow IPC file."""
    return _batches(path, CHUNK_ROWS)[0]


def table_rows(path: str) -> int:
    """How many rows a file holds, from its metadata: a Parquet file's footer, an Arrow IPC
    file's record batches (located by its footer), an Arrow stream's record batches (each
    message's metadata, read in turn; their data is not read)."""
    pa = pyarrow()
    try:
        if path.lower().endswith(PARQUET):
            return int(pa.parquet.ParquetFile(path).metadata.num_rows)
        refuse_feather_v1(path)
        try:
            return sizes.arrow_file_declared(pa, path).rows
        except ValueError:  # (not a file: a stream)
            return sum(size.rows for _, size in sizes.arrow_stream_messages(pa, path))
    except (OSError, ValueError, pa.ArrowException) as error:
        raise InputError(f"cannot read points file {path}: {reason_of(error)}") from None


def _batches(path: str, chunk_rows: int) -> tuple[tuple[str, ...], Any]:
    """The file's column names, and a function giving its record batches of some columns."""
    pa = pyarrow()
    try:
        if path.lower().endswith(PARQUET):
            # pages streamed through a small buffer, nothing read ahead: bounded memory
            # whatever the row groups' size (pyarrow's defaults buffer whole row groups)
            # and text read as dictionaries (a page of one long text for many rows is
            # never decoded into a copy per row): the sizes declared are what is read
            schema = pa.parquet.read_schema(path)
            texts = [
                f.name
                for f in schema
                if pa.types.is_string(f.type)
                or pa.types.is_binary(f.type)
                or pa.types.is_large_string(f.type)
                or pa.types.is_large_binary(f.type)
            ]
            parquet = pa.parquet.ParquetFile(
                path, buffer_size=1 << 20, pre_buffer=False, read_dictionary=texts
            )

            def batches(columns: list[str]) -> Iterator[Any]:
                declared = sizes.parquet_declared(parquet.metadata, columns)
                sizes.check_declared(path, declared, os.path.getsize(path))
                return parquet.iter_batches(
                    batch_size=chunk_rows, columns=columns, use_threads=False
                )

            return tuple(parquet.schema_arrow.names), batches
        reader = _ipc_reader(pa, path)
    except (OSError, pa.ArrowException) as error:
        raise InputError(f"cannot read points file {path}: {reason_of(error)}") from None

    def ipc_batches(columns: list[str]) -> Iterator[Any]:
        try:  # (a damaged batch is found as it is read)
            for batch in reader():
                for offset in range(0, batch.num_rows, chunk_rows):
                    yield batch.slice(offset, chunk_rows).select(columns)
        except (OSError, ValueError, pa.ArrowException) as error:
            raise InputError(f"cannot read points file {path}: {reason_of(error)}") from None

    return tuple(reader.schema.names), ipc_batches


def _ipc_reader(pa: Any, path: str) -> Any:
    """A callable giving the record batches of an Arrow IPC file (or stream), memory-mapped,
    each sized before it is read (:mod:`gradcalc.io.sizes`): a file's all at once, from its
    footer, before the first; a stream's one message at a time, stopping at the limit."""
    refuse_feather_v1(path)
    source = pa.memory_map(path)
    try:
        file = pa.ipc.open_file(source)
    except pa.ArrowInvalid:
        source.seek(0)
        schema = pa.ipc.open_stream(source).schema

        def streamed() -> Iterator[Any]:
            return _bounded_stream(pa, path)

        streamed.schema = schema  # type: ignore[attr-defined]
        return streamed

    def batches() -> Iterator[Any]:
        declared = sizes.arrow_file_declared(pa, path)
        sizes.check_declared(path, declared, os.path.getsize(path))
        return (file.get_batch(i) for i in range(file.num_record_batches))

    batches.schema = file.schema  # type: ignore[attr-defined]
    return batches


#: The first bytes of a Feather V1 file (Feather V2 is an Arrow IPC file: ``ARROW1``).
FEATHER_V1 = b"FEA1"


def refuse_feather_v1(path: str) -> None:
    """Refuse a Feather V1 file (an older format than Arrow IPC, which pyarrow would misread
    as a damaged stream), saying what is read instead.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "old.feather")
    >>> with open(path, "wb") as file:
    ...     _ = file.write(FEATHER_V1 + bytes(8))
    >>> refuse_feather_v1(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: cannot read points file .../old.feather: it is a Feather V1 ...
    """
    from gradcalc.io.lines import open_regular

    with open_regular(path) as file:
        if file.read(len(FEATHER_V1)) == FEATHER_V1:
            raise InputError(
                f"cannot read points file {path}: it is a Feather V1 file, which gradcalc "
                "does not read; write it as Feather V2 (an Arrow IPC file, pyarrow's default: "
                "pyarrow.feather.write_feather(table, path)) or as Parquet"
            )


def _bounded_stream(pa: Any, path: str) -> Iterator[Any]:
    """The record batches of an Arrow stream, each decoded only after its message (and the
    dictionaries before it) was sized and the stream so far found within the limit."""
    reader = pa.ipc.open_stream(pa.memory_map(path))
    size, total = os.path.getsize(path), sizes.Declared()
    try:
        for message, declared in sizes.arrow_stream_messages(pa, path):
            read = total.rows
            total = total + declared
            sizes.check_declared(path, total, size, read)
            if message.type == "record batch":
                yield reader.read_next_batch()
    except (OSError, ValueError, pa.ArrowException) as error:
        raise InputError(f"cannot read points file {path}: {reason_of(error)}") from None


def _column(array: Any, place: Place) -> Any:
    """A numeric Arrow column as a numpy array, masked where a value is null (a dictionary-
    encoded one decoded first); a column of any other type is refused by the cell policy
    (:mod:`gradcalc.core.cells`), naming its type and its first row, without decoding it (a
    dictionary of one long text may stand for many rows)."""
    import numpy as np
    import pyarrow as pa

    kind = array.type.value_type if pa.types.is_dictionary(array.type) else array.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        refuse(place, _first_value(array), _arrow_kind(pa, kind))  # (never decoded)
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if array.null_count == 0:
        return array.to_numpy(zero_copy_only=False)
    missing = array.is_null().to_numpy(zero_copy_only=False)
    filled = array.fill_null(0).to_numpy(zero_copy_only=False)
    return np.ma.MaskedArray(filled, mask=missing)


def _texts(array: Any) -> list[Any]:
    """The values of an id column as Python objects; a dictionary-encoded one through its
    dictionary, so that a text repeated in many rows is one object, not a copy per row.

    >>> pa = pyarrow()
    >>> ids = _texts(pa.array(["a" * 50, None, "a" * 50]).dictionary_encode())
    >>> ids[0] is ids[2], ids[1]
    (True, None)
    """
    import pyarrow as pa

    if not pa.types.is_dictionary(array.type):
        return list(array.to_pylist())
    values = array.dictionary.to_pylist()
    return [None if k is None else values[k] for k in array.indices.to_pylist()]


def _first_value(array: Any) -> int:
    """The first row of ``array`` that is not null (0 when all are)."""
    if array.null_count == 0:
        return 0
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    return int(valid.argmax())


def _arrow_kind(pa: Any, kind: Any) -> str:
    """An Arrow type that is not numbers, in the cell policy's words."""
    words = [
        (pa.types.is_string, KINDS["U"]),
        (pa.types.is_large_string, KINDS["U"]),
        (pa.types.is_binary, KINDS["S"]),
        (pa.types.is_large_binary, KINDS["S"]),
        (pa.types.is_boolean, KINDS["b"]),
        (pa.types.is_decimal, "a decimal"),
        (pa.types.is_temporal, KINDS["M"]),
        (pa.types.is_null, "no values (a column of nulls)"),
    ]
    for test, word in words:
        if test(kind):
            return word
    return f"a value of type {kind}"


class ParquetOut:
    """Results written to a Parquet file a chunk at a time: the CSV columns (named once:
    :func:`~gradcalc.core.naming.unique_header`), numbers as float64 (empty cells as null),
    the id and the classification as text; under a temporary name until :meth:`close`
    puts the complete file in place (:class:`~gradcalc.io.written.Replacing`).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "out.parquet")
    >>> out = ParquetOut(path)
    >>> out.write(["x", "value", "classification"], [["1", "", "saddle point"]])
    >>> out.close()
    >>> pyarrow().parquet.read_table(path).to_pylist()
    [{'x': 1.0, 'value': None, 'classification': 'saddle point'}]
    """

    TEXT = ("classification",)

    def __init__(self, path: str, text_columns: Sequence[str] = ()):
        from gradcalc.io.written import Replacing

        self.path, self.text = path, (*self.TEXT, *text_columns)
        self.writer: Any = None
        self.replacing = Replacing(path)

    def write(self, header: list[str], rows: Any) -> None:
        """Append rows (lists of the CSV cells under ``header``)."""
        from gradcalc.core.naming import unique_header

        pa = pyarrow()
        columns = list(zip(*rows)) or [()] * len(header)
        arrays = [
            pa.array([str(c) for c in cells], pa.string())
            if name in self.text
            else pa.array([float(c) if c else None for c in cells], pa.float64())
            for name, cells in zip(header, columns)
        ]
        batch = pa.record_batch(arrays, names=unique_header(header))
        if self.writer is None:
            try:
                self.writer = pa.parquet.ParquetWriter(self.replacing.temporary, batch.schema)
            except OSError as error:
                raise InputError(f"cannot write {self.path}: {reason_of(error)}") from None
        self.writer.write_batch(batch)

    def close(self) -> None:
        """Finish the file (its footer) and put it in place; no row written, no file."""
        if self.writer is None:
            self.replacing.discard()
            return
        try:
            self.writer.close()
        except BaseException:
            self.replacing.discard()
            raise
        self.replacing.commit()

    def discard(self) -> None:
        """Abandon the file (a failed run): nothing is put in place."""
        if self.writer is not None:
            with contextlib.suppress(Exception):  # (pyarrow's own error for a full disk)
                self.writer.close()
        self.replacing.discard()
