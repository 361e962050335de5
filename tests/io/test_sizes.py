"""gradcalc.io.sizes: a Parquet or Arrow file's size once decompressed, from its metadata,
refused before its data is read when over the limit (a stream: stopped as it is read).

The files are real ones written by pyarrow, of zeros (which compress a thousandfold); the
limit is lowered for the test, and what pyarrow itself decodes is the truth for the sizes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc.core.errors import InputError
from gradcalc.io import sizes
from gradcalc.io.parquet import read_table_file, table_rows
from gradcalc.io.sources import open_points

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ipc = pytest.importorskip("pyarrow.ipc")

ROWS = 400_000
BATCH = 20_000
LIMIT = 1_000_000  # bytes the test allows (the floor; the files are far smaller than 1/100)


def _zeros(rows: int = ROWS) -> Any:
    return pa.table({"x": np.zeros(rows), "y": np.ones(rows)})


def _write(path: Path, table: Any) -> Path:
    """``table`` in the format of ``path``'s suffix, compressed, in batches of BATCH rows."""
    if path.suffix == ".parquet":
        pq.write_table(table, path, compression="zstd", row_group_size=BATCH)
        return path
    options = ipc.IpcWriteOptions(compression="zstd")
    new = ipc.new_file if path.suffix == ".arrow" else ipc.new_stream
    with pa.OSFile(str(path), "wb") as sink, new(sink, table.schema, options=options) as writer:
        writer.write_table(table, max_chunksize=BATCH)
    return path


@pytest.fixture
def low_limit(monkeypatch) -> None:
    monkeypatch.setattr(sizes, "FLOOR", LIMIT)


SUFFIXES = [".parquet", ".arrow", ".ipc"]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_file_over_the_limit_is_exit_2_with_one_line(cli, tmp_path, low_limit, suffix) -> None:
    path = _write(tmp_path / f"p{suffix}", _zeros())
    assert os.path.getsize(path) * sizes.RATIO < LIMIT  # (so the floor is the limit)
    result = cli("grad", "x*y", "--points", str(path), "--no-check")
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert f"points file {path}: " in lines[0] and "once decompressed" in lines[0]
    assert "the limit is 1.0 MB for a file of" in lines[0] and result.stdout == ""


@pytest.mark.parametrize("suffix", [".parquet", ".arrow"])
def test_a_file_is_refused_before_any_of_its_data_is_read(tmp_path, low_limit, suffix) -> None:
    path = _write(tmp_path / f"p{suffix}", _zeros())
    chunks = read_table_file(str(path), ["x", "y"])
    with pytest.raises(InputError, match=r"800,000 values, 6\.4 MB once decompressed"):
        next(chunks)


def test_a_stream_stops_at_the_limit_and_is_not_read_on(tmp_path, low_limit) -> None:
    path = _write(tmp_path / "p.ipc", _zeros())
    read = 0
    with pytest.raises(
        InputError, match=r"by row [\d,]+ of the stream \(not read on\), "
    ) as caught:
        for chunk in read_table_file(str(path), ["x", "y"]):
            read += chunk.count
    # two float64 columns: the batches decoded stay within the limit, and stop at it
    assert 0 < read * 16 <= LIMIT and (read + BATCH) * 16 > LIMIT
    assert f"by row {read + 1:,} of the stream" in caught.value.message


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_file_within_the_limit_reads_whole(tmp_path, suffix) -> None:
    path = _write(tmp_path / f"p{suffix}", _zeros(50_000))
    got = [chunk for chunk in read_table_file(str(path), ["x", "y"])]
    assert sum(chunk.count for chunk in got) == 50_000
    assert all((chunk.arrays["y"] == 1.0).all() for chunk in got)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_the_declared_size_is_what_pyarrow_decodes(tmp_path, suffix) -> None:
    table = pa.table({"x": np.arange(30_000, dtype=np.int32), "s": ["abc"] * 30_000})
    path = _write(tmp_path / f"p{suffix}", table)
    decoded = sum(b.size for c in table.columns for a in c.chunks for b in a.buffers() if b)
    if suffix == ".parquet":
        declared = sizes.parquet_declared(pq.ParquetFile(path).metadata, ["x", "s"])
    elif suffix == ".arrow":
        declared = sizes.arrow_file_declared(pa, str(path))
    else:
        declared = sum((d for _, d in sizes.arrow_stream_messages(pa, str(path))), sizes.Declared())
    assert declared.rows == 30_000 and declared.values == 60_000
    # every value at 8 bytes at least; an Arrow file's buffers as pyarrow holds them
    assert declared.bytes >= 60_000 * 8
    if suffix != ".parquet":
        assert declared.bytes == max(decoded, 60_000 * 8)


@pytest.mark.parametrize("suffix", [".arrow", ".ipc", ".feather", ".parquet"])
def test_the_progress_bar_has_the_files_rows_as_total(tmp_path, suffix) -> None:
    """An Arrow stream's rows are counted from its messages' metadata, so its bar has a
    total, as a Parquet or Arrow file's has from the footer."""
    table = _zeros(70_001)
    path = tmp_path / f"p{suffix}"
    if suffix == ".feather":
        import pyarrow.feather

        pyarrow.feather.write_feather(table, path)
    else:
        _write(path, table)
    assert table_rows(str(path)) == 70_001
    with open_points(str(path)) as source:
        assert source.rows() == 70_001


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_damaged_arrow_file_is_an_input_error_or_read_exactly(tmp_path_factory, data) -> None:
    """Bytes of the metadata (a batch's, the footer's) changed at random: the file is
    refused with a reason (exit 2) or read, never a crash."""
    folder = tmp_path_factory.mktemp("damaged")
    suffix = data.draw(st.sampled_from([".arrow", ".ipc"]))
    path = _write(folder / f"p{suffix}", _zeros(3 * BATCH))
    content = bytearray(path.read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(content) - 1))
        content[at] = data.draw(st.integers(0, 255))
    path.write_bytes(bytes(content))
    try:
        rows = sum(chunk.count for chunk in read_table_file(str(path), ["x", "y"]))
    except InputError as error:
        assert "\n" not in error.message
    else:
        assert rows <= 3 * BATCH


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".ipc"])
def test_a_text_repeated_in_many_rows_is_never_copied_per_row(tmp_path, suffix) -> None:
    """A page (or dictionary) of one long text can stand for many rows: an id column of it
    is one object for all its rows (a null id is an empty cell, as in CSV), and a chosen
    column of it is refused undecoded."""
    text = "é" * 10_000
    rows = 3_000
    ids = pa.array([None, *[text] * (rows - 1)]).dictionary_encode()
    table = pa.table({"x": np.arange(rows, dtype=np.float64), "id": ids})
    path = _write(tmp_path / f"p{suffix}", table)
    (chunk,) = read_table_file(str(path), ["x"], "id")
    assert chunk.ids == ["", *[text] * (rows - 1)]
    assert all(carried is chunk.ids[1] for carried in chunk.ids[1:])
    with pytest.raises(InputError, match=r"column id, row 2: text, not a real number"):
        list(read_table_file(str(path), ["x", "id"]))
