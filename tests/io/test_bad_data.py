"""Bad CSV files through the command line: `--points` (grad, hessian, jacobian) and `fit` data.

Every bad file ends in one line on stderr naming the row and the column, exit code 2, and
nothing on stdout -- or, with --skip-bad-rows, the results of exactly the good rows and the
number skipped (stderr and JSON). The expected values are worked out by hand here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gradcalc.io.files import CHUNK_ROWS
from tests.cli.compact import answers, per_point


def points_file(tmp_path, content: str | bytes, name: str = "points.csv") -> str:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def grad_rows(cli, tmp_path, content: str | bytes, *extra: str):
    """`grad x*y --points FILE --format csv` on the file."""
    path = points_file(tmp_path, content)
    return cli("grad", "x*y", "--points", path, "--format", "csv", "--no-check", *extra)


def assert_refused(result, *fragments: str) -> None:
    """Exit 2 with one line on stderr; on stdout nothing, or (JSON) that line as an error."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    message = result.stderr.strip()
    if result.stdout:  # --format json: the error as one JSON document, nothing else
        error = json.loads(result.stdout)["error"]
        assert error == {"exit_code": 2, "kind": "usage", "message": message[len("gradcalc: ") :]}
    assert message.startswith("gradcalc: ") and "\n" not in message, message
    assert "Traceback" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


GOOD = "x,y\n1,2\n3,4\n"
GOOD_ROWS = "x,y,value,d/dx,d/dy\n1,2,2,2,1\n3,4,12,4,3\n"  # d(xy)/dx = y, d/dy = x


@pytest.mark.parametrize(
    ("content", "fragments"),
    [
        ("x,y\n1,2\n3\n", ["row 3", "1 value for 2 columns", "no value for column y"]),
        ("x,y\n1,2\n3,4,5\n", ["row 3", "3 values for 2 columns", "1 extra"]),
        ("x,y\n1,2\n3,abc\n", ["row 3, column y", "'abc' is not a number"]),
        ("x,y\n1,2\n3,\n", ["row 3, column y", "the cell is empty"]),
        ("x,y\n1,2\n,3\n", ["row 3, column x", "the cell is empty"]),
        ("x,y\nnan,2\n", ["row 2, column x", "'nan' is not a finite number"]),
        ("x,y\n1,inf\n", ["row 2, column y", "'inf' is not a finite number"]),
        ("x,y\n1,-Infinity\n", ["row 2, column y", "not a finite number"]),
        ("x,y\n1,1e400\n", ["row 2, column y", "number out of range: 1e400"]),
        ("x,y\n1,1e-400\n", ["row 2, column y", "number out of range: 1e-400"]),
        ("x,y\n1,0x10\n", ["row 2, column y", "'0x10' is not a number"]),
        ("x,y\n1,1_000\n", ["row 2, column y", "'1_000' is not a number"]),
        ("x,y\n1,pie\n", ["row 2, column y", "'pie' is not a number"]),
        ("x,y\n1,x/2\n", ["row 2, column y", "'x/2' is not a number"]),
        ("x,y\n1,2\n\n\n3,x\n", ["row 5, column y"]),  # blank lines keep the row numbers
        ("x,y\r\n1,2\r\n3,abc\r\n", ["row 3, column y", "'abc'"]),
        ('x,y\n1,"2\n', ["row 2"]),  # an unclosed quote
        ("", ["the points file is empty"]),
        ("\n\n", ["the points file is empty"]),
        ("x,y\n", ["has a header but no rows"]),
        ("x,y\n\n\n", ["has a header but no rows"]),
        ("x,x\n1,2\n", ["the column x is repeated"]),
        ("x,y\n1,2\x00\n", ["row 2"]),
        ("x\n1\n", ["the points file has no column y (its columns: x)"]),
        *(  # a number with its exponent cut off: never 2.5·e in a data file
            (f"x,y\n1,{cut}\n", ["row 2, column y", f"'{cut}' is a number with its exponent cut"])
            for cut in ("2.5e", "3E", "1e5e", "-.5e", "0e")
        ),
    ],
)
def test_bad_points_file_is_one_line_naming_row_and_column(
    cli, tmp_path, content, fragments
) -> None:
    assert_refused(grad_rows(cli, tmp_path, content), *fragments)


@pytest.mark.parametrize(
    ("name", "fragments"),
    [
        ("2y", ["header, column 2", "invalid variable name '2y'"]),
        ("a__b", ["header, column 2", "invalid variable name 'a__b'"]),
        ("sin", ["header, column 2", "'sin' is a function"]),
        ("__import__", ["header, column 2", "invalid variable name"]),
    ],
)
def test_a_chosen_column_must_be_a_name(cli, tmp_path, name, fragments) -> None:
    path = points_file(tmp_path, f"x,{name}\n1,2\n")
    result = cli("grad", "x", "--points", path, "--columns", f"x,{name}", "--no-check")
    assert_refused(result, *fragments)


@pytest.mark.parametrize("name", ["", "2y", "a__b", "sin", "__import__", "row id"])
def test_a_column_not_read_may_have_any_name(cli, tmp_path, name) -> None:
    result = cli(
        "grad", "x", "--points", points_file(tmp_path, f"x,{name}\n1,2\n"),
        "--format", "csv", "--no-check",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "x,value,d/dx\n1,1,1\n"


def test_not_utf8(cli, tmp_path) -> None:
    """A byte that is not UTF-8 in a cell read is a bad row, named by its row and column."""
    message = "row 3, column x: the cell is not UTF-8 text (byte 0xff: save the file as UTF-8)"
    assert_refused(grad_rows(cli, tmp_path, b"x,y\n1,2\n\xff,3\n"), message)
    result = cli("grad", "x*y", "--points", "-", stdin=b"x,y\n1,\xe9\n")
    assert_refused(result, "points file row 2, column y: the cell is not UTF-8 text (byte 0xe9")


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_a_byte_not_utf8_in_a_column_not_read_is_ignored(cli, tmp_path, source) -> None:
    """latin-1 text in a label column: the file is read as if the label were any text; in the
    --id column it is that row's error, which --skip-bad-rows leaves out."""
    content = b"id,x,label\n\xe9t\xe9,1,caf\xe9\nok,2,fine\n"
    where = points_file(tmp_path, content) if source == "file" else "-"
    stdin = content if source == "stdin" else None
    args = ["grad", "x^2", "--points", where, "--format", "csv", "--no-check"]
    result = cli(*args, stdin=stdin)
    assert (result.exit_code, result.stdout) == (0, "x,value,d/dx\n1,1,2\n2,4,4\n"), result.stderr
    refused = cli(*args, "--id", "id", stdin=stdin)
    assert_refused(refused, "points file row 2, column id: the cell is not UTF-8 text (byte 0xe9")
    skipped = cli(*args, "--id", "id", "--skip-bad-rows", stdin=stdin)
    assert (skipped.exit_code, skipped.stdout) == (0, "id,x,value,d/dx\nok,2,4,4\n")
    assert "skipped 1 bad row of 2" in skipped.stderr and "row 2, column id" in skipped.stderr


@pytest.mark.parametrize(
    "content",
    [
        GOOD,
        "\ufeff" + GOOD,  # a UTF-8 BOM (Excel)
        GOOD.replace("\n", "\r\n"),  # Windows line endings
        "\ufeffx,y\r\n1,2\r\n3,4",  # both, and no final newline
        'x,y\n"1", 2\n 3 ,"4"\n',  # quotes and spaces around cells
        "x , y \n\n1,2\n\n3,4\n\n",  # blank lines, spaces in the header
    ],
)
def test_harmless_variations_give_the_same_result(cli, tmp_path, content) -> None:
    result = grad_rows(cli, tmp_path, content)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == GOOD_ROWS


def test_bom_and_crlf_on_stdin(cli) -> None:
    result = cli(
        "grad", "x*y", "--points", "-", "--format", "csv", "--no-check",
        stdin=b"\xef\xbb\xbfx,y\r\n1,2\r\n3,4\r\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stdout == GOOD_ROWS


def test_unused_column_is_ignored_unless_chosen(cli, tmp_path) -> None:
    path = points_file(tmp_path, "x,y,z\n1,2,3\n")
    result = cli("grad", "x*y", "--points", path, "--format", "json", "--no-tape")
    assert result.exit_code == 0, result.stderr
    assert per_point(json.loads(result.stdout))[0]["gradient"] == {"x": 2.0, "y": 1.0}
    result = cli(
        "grad", "x*y", "--points", path, "--columns", "x,y,z", "--format", "json", "--no-tape",
    )  # fmt: skip
    out = per_point(json.loads(result.stdout))[0]
    assert out["gradient"] == {"x": 2.0, "y": 1.0, "z": 0.0}
    assert out["independent"] == ["z"]


def test_a_bad_row_after_the_first_chunk_prints_nothing(cli, tmp_path) -> None:
    """The file is checked whole before the first result: no partial output."""
    rows = "".join(f"{k},1\n" for k in range(CHUNK_ROWS + 10))
    content = "x,y\n" + rows + "5,oops\n"
    result = grad_rows(cli, tmp_path, content)
    assert_refused(result, f"row {CHUNK_ROWS + 12}, column y", "'oops'")
    result = cli("grad", "x*y", "--points", "-", "--format", "csv", stdin=content.encode())
    assert_refused(result, f"row {CHUNK_ROWS + 12}, column y")


BAD_ROWS = "x,y\n1,2\n3,abc\nnan,1\n5\n3,4\n1,2,3\n"


def test_skip_bad_rows_keeps_exactly_the_good_rows(cli, tmp_path) -> None:
    result = grad_rows(cli, tmp_path, BAD_ROWS, "--skip-bad-rows")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == GOOD_ROWS
    assert result.stderr.strip() == (
        "warning: skipped 4 bad rows of 6 in the points file (row 3, column y: 'abc' is not a "
        "number; row 4, column x: 'nan' is not a finite number; row 5: 1 value for 2 columns "
        "(no value for column y); ...)"
    )


def test_skip_bad_rows_is_in_the_json(cli, tmp_path) -> None:
    path = points_file(tmp_path, BAD_ROWS)
    result = cli("grad", "x*y", "--points", path, "--skip-bad-rows", "--format", "json")
    assert result.exit_code == 0, result.stderr
    objects = per_point(json.loads(result.stdout))
    assert [o["gradient"] for o in objects] == [{"x": 2.0, "y": 1.0}, {"x": 4.0, "y": 3.0}]
    assert [o["skipped_rows"] for o in objects] == [4, 4]
    for command in ("hessian", "jacobian"):
        result = cli(command, "x*y", "--points", path, "--skip-bad-rows", "--format", "json")
        assert result.exit_code == 0, (command, result.stderr)
        assert [o["skipped_rows"] for o in answers(result.stdout)] == [4, 4]
        assert "skipped 4 bad rows of 6" in result.stderr


def test_skip_bad_rows_when_every_row_is_bad(cli, tmp_path) -> None:
    result = grad_rows(cli, tmp_path, "x,y\na,1\n2\n", "--skip-bad-rows")
    assert_refused(result, "every row of the points file is bad", "skipped 2 bad rows of 2")


def test_skip_bad_rows_needs_a_file(cli) -> None:
    assert_refused(cli("grad", "x", "--at", "x=1", "--skip-bad-rows"), "use it with --points")


def test_without_skip_the_same_file_is_refused(cli, tmp_path) -> None:
    assert_refused(grad_rows(cli, tmp_path, BAD_ROWS), "row 3, column y", "'abc' is not a number")


# --- fit data ------------------------------------------------------------------------------

LINE = "x,y\n0,1\n1,3\n2,5\n3,7\n"  # y = 2x + 1 exactly


def fit(cli, tmp_path, content: str | bytes, *extra: str):
    path = points_file(tmp_path, content, "data.csv")
    return cli("fit", "a*x + b", path, "--params", "a,b", "--format", "json", *extra)


@pytest.mark.parametrize(
    ("content", "fragments"),
    [
        ("x,y\n0,1\n1\n", ["data file row 3", "no value for column y"]),
        ("x,y\n0,1\n1,3,4\n", ["data file row 3", "1 extra"]),
        ("x,y\n0,1\n1,three\n", ["data file row 3, column y", "'three' is not a number"]),
        ("x,y\n0,1\n1,NaN\n", ["data file row 3, column y", "'NaN' is not a finite number"]),
        ("x,y\n0,1\n-inf,3\n", ["data file row 3, column x", "not a finite number"]),
        ("", ["the data file is empty"]),
        ("x,y\n", ["the data file has a header but no rows"]),
        ("x,z\n0,1\n", ["the data file has no column y (its columns: x, z)"]),
    ],
)
def test_bad_fit_data(cli, tmp_path, content, fragments) -> None:
    assert_refused(fit(cli, tmp_path, content), *fragments)


@pytest.mark.parametrize(
    "content",
    [LINE, "\ufeff" + LINE.replace("\n", "\r\n"), "x,y,unused\n0,1,9\n1,3,9\n2,5,9\n3,7,9\n"],
)
def test_fit_reads_variations_alike(cli, tmp_path, content) -> None:
    result = fit(cli, tmp_path, content)
    assert result.exit_code == 0, result.stderr
    params = json.loads(result.stdout)["params"]
    assert params["a"] == pytest.approx(2, abs=1e-9)
    assert params["b"] == pytest.approx(1, abs=1e-9)


def test_fit_skip_bad_rows(cli, tmp_path) -> None:
    content = "x,y\n0,1\n1,3\noops,4\n2,5\n2,inf\n3,7\n9\n"
    result = fit(cli, tmp_path, content, "--skip-bad-rows")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["skipped_rows"] == 3 and out["n"] == 4
    assert out["params"]["a"] == pytest.approx(2, abs=1e-9)
    assert "skipped 3 bad rows of 7 in the data file" in result.stderr
    assert_refused(fit(cli, tmp_path, content), "data file row 4, column x", "'oops'")


def test_fit_data_on_stdin_not_utf8(cli) -> None:
    result = cli("fit", "a*x+b", "-", "--params", "a,b", stdin=b"x,y\n1,\xff\n")
    assert_refused(result, "data file row 2, column y: the cell is not UTF-8 text (byte 0xff")


@pytest.mark.slow
def test_large_file_streams_in_bounded_memory(tmp_path) -> None:
    """300,000 rows from stdin under a 400 MB address-space cap: every row comes out."""
    rows = 300_000
    content = "x,y\n" + "".join(f"{k % 97},{k % 13}\n" for k in range(rows))
    done = subprocess.run(
        [sys.executable, "-c", "from gradcalc.cli.app import main; main()", "--max-memory", "400",
         "grad", "x*y", "--points", "-", "--format", "plain", "--no-check"],
        input=content, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == rows
    assert lines[12345] == f"{12345 % 13} {12345 % 97}"


@pytest.mark.parametrize(
    "content",
    [
        'id,x,y\n"multi\nline",1,2\n',  # valid RFC 4180: a quoted cell with a line break
        'x,y\n1,2\n"3\n",4\n',
    ],
)
def test_a_cell_that_spans_lines_is_said_to_be_unsupported(cli, tmp_path, content: str) -> None:
    result = grad_rows(cli, tmp_path, content, *(["--id", "id"] if "id" in content else []))
    assert_refused(result, "a quoted cell spans lines", "not supported")
