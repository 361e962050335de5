"""How much a compressed points file holds once decompressed, read from its metadata
before its data, and the one limit on it.

A CSV or ``.npy`` file costs work in proportion to its size on disk (a CSV is read as it
is, an ``.npy`` memory-mapped). A Parquet or Arrow file may be compressed or encoded (a run
of equal values in a few bytes), so its size on disk says little: 3 MB of zeros in Parquet
are 3.2 GB of float64. Before its data is read, a file's *declared* size is taken from its
metadata -- each value counted at 8 bytes (a float64) at least, more where its decompressed
buffers are larger (text) -- and refused when over :func:`size_limit`: the size of one
``.npz`` array at most (10,000,000 float64, 80 MB), or :data:`RATIO` times the file's size,
whichever is larger. Parquet's footer declares each column chunk's values and uncompressed
size; an Arrow IPC file's footer locates each record batch, whose metadata declares its rows
and buffers (a compressed buffer starts with its decompressed length). An Arrow stream is
sized message by message as it is read (:func:`message_size`), each before it is decoded.

>>> size_limit(1_000), size_limit(10_000_000)
(80000000, 1000000000)
>>> Declared(rows=10, values=20, bytes=160) + Declared(rows=1, values=2, bytes=16)
Declared(rows=11, values=22, bytes=176)
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from gradcalc.core.errors import InputError
from gradcalc.engine.tensors.tensorpoints import MAX_ELEMENTS

#: Bytes a file may always decompress to: one ``.npz`` array's worth of float64.
FLOOR = MAX_ELEMENTS * 8
#: Beyond the floor, a file may decompress to at most this many times its size on disk.
RATIO = 100
#: The smallest size a value is counted at (a float64's).
VALUE_BYTES = 8


def size_limit(file_size: int) -> int:
    """The most bytes a file of ``file_size`` bytes may declare once decompressed."""
    return max(FLOOR, RATIO * file_size)


@dataclass(frozen=True)
class Declared:
    """What (part of) a file declares: points (rows), values (cells) and decompressed bytes."""

    rows: int = 0
    values: int = 0
    bytes: int = 0

    def __add__(self, other: Declared) -> Declared:
        return Declared(
            self.rows + other.rows, self.values + other.values, self.bytes + other.bytes
        )


def check_declared(path: str, declared: Declared, file_size: int, read: int | None = None) -> None:
    """Refuse ``declared`` when over the limit for a file of ``file_size`` bytes (``read``:
    the rows read so far, when a stream is stopped as it is read).

    >>> check_declared("p.parquet", Declared(10**9, 10**9, 8 * 10**9), 3_000_000)
    Traceback (most recent call last):
    gradcalc.core.errors.InputError: points file p.parquet: 1,000,000,000 values, 8.0 GB once ...
    """
    limit = size_limit(file_size)
    if declared.bytes <= limit:
        return
    where = "" if read is None else f"by row {read + 1:,} of the stream (not read on), "
    raise InputError(
        f"points file {path}: {where}{declared.values:,} values, {_gb(declared.bytes)} once "
        f"decompressed; the limit is {_gb(limit)} for a file of {_gb(file_size)} "
        f"({RATIO} times its size, or {_gb(FLOOR)}: a fixed limit; write the points as "
        ".npy or CSV, or in smaller files)"
    )


def _gb(size: int) -> str:
    """A size in words: ``8.0 GB``, ``80.7 MB``, ``3.1 kB``."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def parquet_declared(metadata: Any, columns: Sequence[str]) -> Declared:
    """What a Parquet file's footer (``metadata``, pyarrow's ``FileMetaData``) declares for
    ``columns``: each column chunk's values at 8 bytes at least, or its uncompressed size."""
    values = size = 0
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for k in range(row_group.num_columns):
            chunk = row_group.column(k)
            path = chunk.path_in_schema
            if any(path == name or path.startswith(name + ".") for name in columns):
                values += chunk.num_values
                size += max(chunk.num_values * VALUE_BYTES, chunk.total_uncompressed_size)
    return Declared(metadata.num_rows, values, size)


def arrow_file_declared(pa: Any, path: str) -> Declared:
    """What an Arrow IPC file's record batches and dictionaries declare, located by its
    footer (each batch's metadata read, its data never)."""
    source = pa.memory_map(path)
    size = source.size()
    source.seek(size - 10)
    tail = source.read(10)
    if len(tail) != 10 or tail[4:] != b"ARROW1":
        raise ValueError("not an Arrow IPC file (no footer)")
    (length,) = struct.unpack("<i", tail[:4])
    if not 0 < length <= size - 18:
        raise ValueError("its footer's length is out of the file")
    source.seek(size - 10 - length)
    footer = _Table.root(source.read(length))
    total = Declared()
    for slot in (2, 3):  # the dictionaries' blocks, then the record batches'
        for block in footer.structs(slot, 24):
            source.seek(footer.int64(block))
            total = total + message_size(pa.ipc.read_message(source))
    return total


def arrow_stream_messages(pa: Any, path: str) -> Iterator[tuple[Any, Declared]]:
    """Each message of an Arrow IPC stream with what it declares, read one at a time
    (memory-mapped: a message's data is not read until it is decoded)."""
    reader = pa.ipc.MessageReader.open_stream(pa.memory_map(path))
    while True:
        try:
            message = reader.read_next_message()
        except StopIteration:
            return
        yield message, message_size(message)


def message_size(message: Any) -> Declared:
    """What an Arrow IPC message (pyarrow's ``Message``) declares: a record batch its rows, a
    dictionary its values; each at 8 bytes at least, or its buffers once decompressed."""
    root = _Table.root(message.metadata.to_pybytes())
    kind, header = root.uint8(1), root.table(2)
    if header is None or kind not in (2, 3):  # (2: a dictionary batch, 3: a record batch)
        return Declared()
    batch = header if kind == 3 else header.table(1)
    if batch is None:
        return Declared()
    body = message.body
    values = sum(batch.int64(node) for node in batch.structs(1, 16))
    compressed = batch.table(3) is not None
    buffers = 0
    for buffer in batch.structs(2, 16):
        offset, length = batch.int64(buffer), batch.int64(buffer + 8)
        buffers += _decompressed(body, offset, length) if compressed else length
    rows = batch.int64_field(0) if kind == 3 else 0
    return Declared(rows, values, max(buffers, values * VALUE_BYTES))


def _decompressed(body: Any, offset: int, length: int) -> int:
    """A compressed buffer's length once decompressed (its first 8 bytes; -1: stored as is)."""
    if length < 8:
        return max(length, 0)
    if offset < 0 or offset + 8 > body.size:
        raise ValueError("a buffer is out of its message")
    (size,) = struct.unpack("<q", body.slice(offset, 8).to_pybytes())
    return length - 8 if size == -1 else size


class _Table:
    """A table of a flatbuffer (Arrow's metadata), read field by field with every offset
    checked against the buffer: a malformed one is a ``ValueError``, never a crash."""

    def __init__(self, data: bytes, position: int):
        self.data, self.position = data, position
        self.vtable = position - self._unpack("<i", position)
        self.vtable_size = self._unpack("<H", self.vtable)

    @classmethod
    def root(cls, data: bytes) -> _Table:
        if len(data) < 4:
            raise ValueError("malformed Arrow metadata")
        return cls(data, struct.unpack_from("<I", data, 0)[0])

    def _unpack(self, form: str, at: int) -> int:
        if at < 0 or at + struct.calcsize(form) > len(self.data):
            raise ValueError("malformed Arrow metadata")
        return int(struct.unpack_from(form, self.data, at)[0])

    def _field(self, slot: int) -> int | None:
        entry = 4 + 2 * slot
        if entry + 2 > self.vtable_size:
            return None
        offset = self._unpack("<H", self.vtable + entry)
        return self.position + offset if offset else None

    def uint8(self, slot: int) -> int:
        at = self._field(slot)
        return 0 if at is None else self._unpack("<B", at)

    def int64_field(self, slot: int) -> int:
        at = self._field(slot)
        return 0 if at is None else self._unpack("<q", at)

    def int64(self, at: int) -> int:
        """The int64 at byte ``at`` (a struct's field)."""
        return self._unpack("<q", at)

    def table(self, slot: int) -> _Table | None:
        at = self._field(slot)
        return None if at is None else _Table(self.data, at + self._unpack("<I", at))

    def structs(self, slot: int, size: int) -> list[int]:
        """The positions of a vector's structs of ``size`` bytes each."""
        at = self._field(slot)
        if at is None:
            return []
        vector = at + self._unpack("<I", at)
        count = self._unpack("<I", vector)
        if vector + 4 + count * size > len(self.data):
            raise ValueError("malformed Arrow metadata")
        return [vector + 4 + k * size for k in range(count)]
