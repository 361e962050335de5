"""Every `$ gradcalc ...` example in README.md and docs/*.md prints exactly what is shown.

After a deliberate change of output: `python docs/examples.py` regenerates them."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every command shown in README and docs/

_spec = importlib.util.spec_from_file_location(
    "doc_examples", Path(__file__).parent.parent / "docs" / "examples.py"
)
doc_examples = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(doc_examples)

CASES = [
    pytest.param(command, shown, id=f"{path.name}: {command[:60]}")
    for path in doc_examples.FILES
    for command, shown in doc_examples.examples(path.read_text(encoding="utf-8"))
]


def test_there_are_examples_to_check() -> None:
    assert len(CASES) >= 4


@pytest.mark.parametrize(("command", "shown"), CASES)
def test_example_output_is_real(command: str, shown: str) -> None:
    assert _settled(doc_examples.run(command)) == _settled(shown)


_LONG_DECIMAL = re.compile(r"-?\d+\.\d{12,}(?:e[+-]?\d+)?")


def _settled(text: str) -> str:
    """``text`` with every decimal of 13 or more digits rounded to 12 significant digits: the
    last bits of a least-squares fit differ between BLAS builds (0.020393030426598183 here,
    ...819 there); anything that changes the first 12 digits still fails."""
    return _LONG_DECIMAL.sub(lambda m: f"{float(m.group()):.12g}", text)
