"""`grad --jobs` plain lines: the point is the last word after any whitespace (issue 18), and
--format is refused unless the stream can honour it."""

from __future__ import annotations

import json

import pytest


def jobs(cli, text: str, *args: str):
    return cli.invoke(["grad", "--jobs", "-", "--no-check", *args], input=text)


@pytest.mark.parametrize(
    "line",
    ["x^2*y x=3,y=2", "x^2*y    x=3,y=2", "x^2 * y\tx=3,y=2", "  x^2 * y   x=3,y=pi/pi*2  "],
)
def test_plain_line_split_before_the_point(cli, line) -> None:
    result = jobs(cli, line + "\n")
    assert result.exit_code == 0, result.stdout
    answer = json.loads(result.stdout)
    assert answer["gradient"] == {"x": 12.0, "y": 9.0}  # 2xy, x^2 at (3, 2)


def test_a_line_without_a_point_is_the_expression(cli) -> None:
    result = jobs(cli, "y = x^2; z = y^2\n")
    answer = json.loads(result.stdout)
    assert result.exit_code == 2 and "no value given for x" in answer["error"]


@pytest.mark.parametrize("fmt", ["csv", "plain", "CSV"])
def test_format_the_stream_cannot_honour_is_refused(cli, fmt) -> None:
    result = jobs(cli, "x^2 x=3\n", "--format", fmt)
    assert result.exit_code == 2 and result.stdout == ""
    assert "--jobs answers one JSON line per job: drop --format" in result.stderr


def test_format_json_is_the_stream(cli) -> None:
    result = jobs(cli, "x^2 x=3\nx^3 x=2\n", "--format", "json")
    assert [json.loads(line)["gradient"]["x"] for line in result.stdout.splitlines()] == [6, 12]
