"""A stream's lines decoded one by one (gradcalc/io/lines.py), against Python's own decoding
of each line alone."""

from __future__ import annotations

import io
import random

import pytest

from gradcalc.core.errors import InputError
from gradcalc.io.lines import NotUtf8, open_lines, utf8_lines

TEXTS = ["x^2", "é·∇", "3*w1^2 + 2*w1*w2\tw1=5,w2=3", "𝑥", ""]


def _random_line(rng: random.Random) -> bytes:
    """A line of text, a line with a stray byte at a random place, or a line of noise."""
    text = rng.choice(TEXTS).encode()
    kind = rng.random()
    if kind < 0.4:
        return text
    if kind < 0.8:
        at = rng.randrange(len(text) + 1)
        return (
            text[:at] + bytes([rng.choice([0x80, 0xBF, 0xC3, 0xE2, 0xF0, 0xFE, 0xFF])]) + text[at:]
        )
    return bytes(rng.randrange(1, 256) for _ in range(rng.randint(1, 12))).replace(b"\n", b"")


@pytest.mark.parametrize("seed", range(10))
def test_each_line_is_what_decoding_it_alone_gives(seed: int) -> None:
    rng = random.Random(seed)
    lines = [_random_line(rng).replace(b"\r", b"") for _ in range(rng.randint(1, 30))]
    got = list(utf8_lines(io.BytesIO(b"".join(line + b"\n" for line in lines))))
    assert len(got) == len(lines)
    for line, answer in zip(lines, got):
        try:
            assert answer == line.decode("utf-8") + "\n"
        except UnicodeDecodeError as error:
            assert answer == NotUtf8(error.start, line[error.start])


def test_a_long_line_is_its_length_and_the_next_is_read() -> None:
    long = "é" * 30  # 60 bytes, 30 characters
    got = list(utf8_lines(io.BytesIO(f"{long}\nx\n{'a' * 100}".encode()), limit=10))
    assert got[1:] == ["x\n", 100] and got[0] > 10  # (bytes, when too long to decode)
    assert list(utf8_lines(io.BytesIO(b"abcdefghi\n"), limit=10)) == ["abcdefghi\n"]


def test_a_file_that_cannot_be_read_is_one_line(tmp_path) -> None:
    with (
        pytest.raises(InputError, match="cannot read jobs file"),
        open_lines(str(tmp_path), "jobs file") as lines,
    ):
        list(lines)
