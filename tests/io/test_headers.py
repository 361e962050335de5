"""No message echoes a file's contents: a file whose first line is not a header of names (a
password file, an environment dump) is named, its cells are not. The truth: the secret text
written into the file never appears in any output."""

from __future__ import annotations

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
