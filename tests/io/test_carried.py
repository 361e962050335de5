"""Text carried from data to output: an ``--id`` cell never drives the terminal nor a
spreadsheet, on stdout and in ``--out`` files alike; JSON keeps it exact. The truth is the
csv module's own reading of what was written, and a spreadsheet's rule (a cell starting with
= + - @ TAB CR is a formula)."""

from __future__ import annotations

import csv
import io
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


@pytest.mark.parametrize("text", [*HOSTILE, "\r=1"])
def test_each_hostile_cell_is_neutralised(text: str) -> None:
    cell = csv_cell(text)
    assert cell.isprintable() and not _is_formula(cell)


@given(st.text())
def test_a_cell_is_never_a_formula_nor_holds_a_control_character(text: str) -> None:
    cell = csv_cell(text)
    assert cell.isprintable()
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
    assert ids == [text.strip() for text in HOSTILE]  # (the reader strips an id cell)
