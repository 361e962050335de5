"""Text carried from data to output: an ``--id`` cell never drives the terminal nor a
spreadsheet, on stdout and in ``--out`` files alike; JSON keeps it exact, and CSV keeps its
spaces and TABs. gradcalc's own cells (formulas, operators, numbers) are never altered, and a
header never names a column twice. The truth is the csv module's own reading of what was
written, and a spreadsheet's rule (a cell starting with = + - @ TAB CR is a formula)."""

from __future__ import annotations

import csv
import io
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradcalc.io.carried import FORMULA, csv_cell
from tests.cli.compact import answers

HOSTILE = [
    '=HYPERLINK("http://x","y")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A2)",
    "\t=1",
    "\x1b]0;title\x07",
    "\x1b[2J",
    "abc\u202edcb",
    "zero\u200bwidth",
]


def _is_formula(cell: str) -> bool:
    return cell.startswith(FORMULA)


def _safe(cell: str) -> bool:
    """No character that drives a terminal: printable ones, TABs and spaces only."""
    return all(c.isprintable() or c == "\t" or unicodedata.category(c) == "Zs" for c in cell)


@pytest.mark.parametrize("text", [*HOSTILE, "\r=1"])
def test_each_hostile_cell_is_neutralised(text: str) -> None:
    cell = csv_cell(text)
    assert _safe(cell) and not _is_formula(cell)
    assert not any(unicodedata.category(c) in ("Cc", "Cf") and c != "\t" for c in cell)


@given(st.text())
def test_a_cell_is_never_a_formula_nor_holds_a_control_character(text: str) -> None:
    cell = csv_cell(text)
    assert _safe(cell)
    try:
        float(text)
        number = text.strip() == text and "_" not in text and text.isascii()
    except ValueError:
        number = False
    if _is_formula(cell):
        assert number and text[0] in "+-" and cell == text


@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers())
def test_a_real_number_is_written_unchanged(number) -> None:
    assert csv_cell(repr(number)) == repr(number)


@pytest.mark.parametrize("where", ["stdout", "out"])
def test_hostile_ids_are_neutralised_in_csv_and_exact_in_json(cli, tmp_path: Path, where) -> None:
    points = tmp_path / "p.csv"
    with points.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "x"])
        writer.writerows([text, k] for k, text in enumerate(HOSTILE, 1))
    args = ["grad", "x^2", "--points", str(points), "--id", "id", "--format", "csv"]
    if where == "out":
        result = cli(*args, "--out", str(tmp_path / "o.csv"))
        written = (tmp_path / "o.csv").read_text(encoding="utf-8")
    else:
        result = cli(*args)
        written = result.stdout
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in written and "\x07" not in written and "\u202e" not in written
    rows = list(csv.reader(io.StringIO(written)))[1:]
    assert [row[1] for row in rows] == [str(k) for k in range(1, len(HOSTILE) + 1)]
    assert not any(_is_formula(row[0]) for row in rows)
    answer = cli("grad", "x^2", "--points", str(points), "--id", "id", "--format", "json")
    ids = [item["id"] for item in answers(answer.stdout)]
    assert ids == HOSTILE  # (exact: the TAB of "\t=1" too)


#: Ids a data person keeps: spaces around, a TAB, a backslash and a t, look-alikes of formulas.
PLAIN_IDS = [" sp ", "\t tab", "a\tb", "a\\tb", " =1+1", "C:\\data\\x", "\xa0nbsp"]


@pytest.mark.parametrize("where", ["csv", "out", "parquet", "json"])
def test_ids_are_kept_exactly_and_a_tab_is_not_a_backslash_t(cli, tmp_path, where) -> None:
    """Each id comes back as written (through the csv module, pyarrow or json): a TAB as one
    character, never the two characters backslash and t; only a formula start gets a '."""
    points = tmp_path / "p.csv"
    with points.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["id", "x"], *([text, k] for k, text in enumerate(PLAIN_IDS))])
    args = ["grad", "x^2", "--points", str(points), "--id", "id", "--no-check"]
    if where == "json":
        result = cli(*args, "--format", "json")
        got = [item["id"] for item in answers(result.stdout)]
    elif where == "parquet":
        pyarrow = pytest.importorskip("pyarrow.parquet")
        result = cli(*args, "--out", str(tmp_path / "o.parquet"))
        got = pyarrow.read_table(tmp_path / "o.parquet").column("id").to_pylist()
    else:
        result = cli(
            *args, "--format", "csv", *(["--out", str(tmp_path / "o.csv")] * (where == "out"))
        )
        text = (tmp_path / "o.csv").read_text(encoding="utf-8") if where == "out" else result.stdout
        got = [row[0] for row in csv.reader(io.StringIO(text))][1:]
        expected = ["'" + i if i.startswith("\t") else i for i in PLAIN_IDS]  # (a TAB first)
        assert got == expected, got
        return
    assert result.exit_code == 0, result.stderr
    assert got == PLAIN_IDS


@pytest.mark.parametrize(
    ("args", "cells"),
    [
        (["check", "cos(x)", "--answer", "-sin(x)"], ["df/dx", "-sin(x)", "-sin(x)"]),
        (["ops", "+", "-"], ["+", "-"]),
        (["grad", "-x", "--at", "x=2"], ["2", "-2", "-1"]),
    ],
)
def test_gradcalcs_own_cells_are_written_as_they_are(cli, args, cells) -> None:
    """The formula guard is for text from the data: a derivative, an operator, a number that
    gradcalc writes is never given a '."""
    result = cli(*args, "--format", "csv")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))[1:]
    written = [cell for row in rows for cell in row]
    assert all(cell in written for cell in cells), written
    assert not any(cell.startswith("'") for cell in written), written


@pytest.mark.parametrize(
    ("args", "clash"),
    [
        (["grad", "value*x", "--at", "value=1,x=2"], "value"),
        (["grad", "f1*x, x", "--at", "f1=1,x=2"], "f1"),
        (
            ["grad", "directional*y", "--at", "directional=1,y=2", "--direction", "1,1"],
            "directional",
        ),
        (["hessian", "classification*x^2", "--at", "classification=1,x=2"], "classification"),
        (["jacobian", "determinant*y, y", "--at", "determinant=1,y=2"], "determinant"),
    ],
)
@pytest.mark.parametrize("where", ["csv", "out.csv", "out.parquet"])
def test_a_variable_named_like_an_output_column_is_refused_not_written_twice(
    cli, tmp_path, args, clash, where
) -> None:
    """CSV and Parquet name each column once: the clash is refused with one line naming it,
    nothing is written; JSON, which keeps a point's names apart, answers."""
    if where == "out.parquet":
        pytest.importorskip("pyarrow")
    out = tmp_path / where
    more = ["--format", "csv"] if where == "csv" else ["--out", str(out)]
    result = cli(*args, "--no-check", *more)
    assert result.exit_code == 2, result.stdout
    message = result.stderr.strip().splitlines()[-1]  # (after the warnings, if any)
    assert message.startswith("gradcalc: the output would have two columns named " + clash)
    assert "rename it" in message
    assert result.stdout == "" and not out.exists()
    assert cli(*args, "--no-check", "--format", "json").exit_code == 0


def test_an_id_column_named_like_an_output_column_is_refused(cli, tmp_path) -> None:
    points = tmp_path / "p.csv"
    points.write_text("value,x\na,1\n")
    result = cli("grad", "x^2", "--points", str(points), "--id", "value", "--format", "csv")
    assert result.exit_code == 2 and "two columns named value" in result.stderr
