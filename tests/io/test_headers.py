"""No message echoes a file's contents: a file whose first line is not a header of names (a
password file, an environment dump) is named, its cells are not. The truth: the secret text
written into the file never appears in any output."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from gradcalc.io.headers import is_name, shown_columns

SECRET = "ZZSECRET=hunter2 PATH=/usr/bin:/bin"


@pytest.mark.parametrize(
    ("header", "shown"),
    [
        (["x", "y"], "its columns: x, y"),
        ([SECRET], "its header has no column names: 1 cell that is not a name"),
        (["x", SECRET, "1y"], "its columns: x; 2 cells that are not names"),
        (
            [f"c{k}" for k in range(25)],
            "its columns: c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, "
            "c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, ...",
        ),
    ],
)
def test_shown_columns_lists_only_names(header, shown) -> None:
    assert shown_columns(header) == shown


@pytest.mark.parametrize("cell", ["", "1x", "x y", "x" * 65, "é", "x\x1b", "_x"])
def test_what_is_not_a_name(cell) -> None:
    assert not is_name(cell)


@pytest.mark.parametrize(
    "args",
    [
        ["grad", "x", "--points", "{f}"],
        ["grad", "x", "--points", "{f}", "--columns", "x"],
        ["grad", "sum(X)", "--data", "{f}"],
        ["grad", "sum(X)", "--data", "{f}", "--target", "x"],
        ["fit", "a*x+b", "{f}", "--params", "a,b"],
    ],
)
@pytest.mark.parametrize("text", [f"{SECRET}\n1\n", f"{SECRET}\x00OTHER=1\n", f"x,{SECRET}\n1,2\n"])
def test_no_message_echoes_a_files_first_line(cli, tmp_path: Path, args, text) -> None:
    path = tmp_path / "secret.csv"
    path.write_text(text)
    result = cli(*[a.format(f=path) for a in args])
    assert result.exit_code in (0, 2), result.stdout + result.stderr
    assert "hunter2" not in result.stdout + result.stderr


@pytest.mark.parametrize("seed", range(6))
def test_a_header_with_another_separator_says_how_to_convert(cli, tmp_path: Path, seed) -> None:
    """Random names joined by ';', a TAB or '|': refused in one line that names the
    separator and the header; the file converted as the message says (decimal commas to
    points, then the separator to commas) gives each row's gradient, by Python's arithmetic."""
    rng = random.Random(seed)
    names = rng.sample(["a", "b", "c", "x", "y", "z", "w1", "w2"], rng.randint(2, 4))
    mark = rng.choice([";", "\t", "|"])
    rows = [[rng.randint(-999, 999) / 4 for _ in names] for _ in range(3)]
    cell = (lambda v: str(v).replace(".", ",")) if mark == ";" else str
    text = mark.join(names) + "\n" + "".join(mark.join(map(cell, r)) + "\n" for r in rows)
    path = tmp_path / "points.csv"
    path.write_text(text)
    expression = "*".join(names)
    refused = cli("grad", expression, "--points", str(path), "--format", "csv")
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.stderr
    shown = mark.join(names).replace("\t", "<TAB>")
    assert f"-separated (its header: {shown})" in refused.stderr
    assert "there is no --delimiter" in refused.stderr
    converted = (
        text.replace(",", ".").replace(mark, ",") if mark == ";" else text.replace(mark, ",")
    )
    path.write_text(converted)
    done = cli("grad", expression, "--points", str(path), "--format", "csv", "--no-check")
    assert done.exit_code == 0, done.output
    for row, line in zip(rows, done.stdout.splitlines()[1:]):
        cells = [float(c) for c in line.split(",")]
        for k in range(len(names)):
            assert cells[len(names) + 1 + k] == math.prod(row[:k] + row[k + 1 :])
