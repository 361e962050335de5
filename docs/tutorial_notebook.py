"""docs/tutorial.ipynb, generated from docs/tutorial.md: the same tutorial as a notebook.

Prose becomes Markdown cells; each `$ gradcalc ...` line of a console block becomes a
`%gradcalc ...` cell (the IPython magic, after `%load_ext gradcalc`); each `>>>` example
becomes code cells, split after every statement whose output the page shows. The outputs
the page shows are stored as the cells' outputs, so the notebook reads well unexecuted, and
tests/test_notebook.py executes it and compares. TensorFlow and shell blocks stay as
Markdown. After changing tutorial.md, regenerate it from the repository root with
``python docs/tutorial_notebook.py`` (``python docs/examples.py`` does it too).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "docs" / "tutorial.md"
TARGET = ROOT / "docs" / "tutorial.ipynb"
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\n", flags=re.S | re.M)
INTRO = (
    "*This notebook is generated from `docs/tutorial.md` by `docs/tutorial_notebook.py`: edit "
    "those, not this. Install gradcalc with the notebook extra (`pip install -e '.[notebook]'`) "
    "and run it from the repository root: one example reads `docs/examples/line.csv`.*"
)


def generate(markdown: str) -> str:
    """The notebook's JSON text for the tutorial ``markdown``."""
    cells: list[dict] = [_markdown(INTRO), _code("%load_ext gradcalc", [])]
    position = 0
    for block in FENCE.finditer(markdown):
        _prose(cells, markdown[position : block.start()])
        info, body = block.group(1).strip(), block.group(2)
        if info == "console":
            cells += _console_cells(body)
        elif info.startswith("python") and 'title="gradcalc"' in info:
            cells += _doctest_cells(body)
        else:
            _prose(cells, block.group(0))
        position = block.end()
    _prose(cells, markdown[position:])
    for number, cell in enumerate(cells, 1):
        cell["id"] = f"cell-{number:03d}"
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def _prose(cells: list[dict], text: str) -> None:
    """Add Markdown text to the last Markdown cell (or a new one); blank text adds nothing."""
    if not text.strip():
        return
    if cells and cells[-1]["cell_type"] == "markdown" and cells[-1] is not cells[0]:
        cells[-1]["source"] = _lines(_text(cells[-1]).rstrip("\n") + "\n\n" + text.strip("\n"))
    else:
        cells.append(_markdown(text.strip("\n")))


def _console_cells(body: str) -> list[dict]:
    """A `%gradcalc` cell for every `$ gradcalc` line, with the output shown under it."""
    cells = []
    for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
        command, _, shown = chunk.partition("\n")
        if command.startswith("gradcalc "):
            outputs = [_stream(shown)] if shown.strip() else []
            cells.append(_code("%" + command, outputs))
    return cells


def _doctest_cells(body: str) -> list[dict]:
    """The `>>>` examples as cells: a cell ends at each statement whose output is shown."""
    cells, source = [], []
    for statement, shown in _statements(body):
        source.append(statement)
        if shown:
            cells.append(_code("\n".join(source), [_output(statement, shown)]))
            source = []
    if source:
        cells.append(_code("\n".join(source), []))
    return cells


def _statements(body: str) -> list[tuple[str, str]]:
    """(source, shown output) of each `>>>` statement of a doctest block."""
    found: list[tuple[list[str], list[str]]] = []
    for line in body.splitlines():
        if line.startswith(">>> "):
            found.append(([line[4:]], []))
        elif line.startswith("...") and found and not found[-1][1]:
            found[-1][0].append(line[4:])
        elif found and line.strip():
            found[-1][1].append(line)
    return [("\n".join(src), "\n".join(out)) for src, out in found]


def _output(statement: str, shown: str) -> dict:
    """The stored output: an error, a printed text, or the value of an expression."""
    if shown.startswith("Traceback (most recent call last):"):
        name, _, message = shown.splitlines()[-1].partition(": ")
        return {
            "output_type": "error",
            "ename": name.rsplit(".", 1)[-1],
            "evalue": message,
            "traceback": [],
        }
    last = ast.parse(statement).body[-1]
    printed = not isinstance(last, ast.Expr) or (
        isinstance(last.value, ast.Call) and getattr(last.value.func, "id", "") == "print"
    )
    if printed:
        return _stream(shown + "\n")
    return {
        "output_type": "execute_result",
        "execution_count": None,
        "data": {"text/plain": _lines(shown)},
        "metadata": {},
    }


def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(text)}


def _code(source: str, outputs: list[dict]) -> dict:
    errors = any(o["output_type"] == "error" for o in outputs)
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {"tags": ["raises-exception"]} if errors else {},
        "outputs": outputs,
        "source": _lines(source),
    }


def _stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": _lines(text)}


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _text(cell: dict) -> str:
    return "".join(cell["source"])


def main() -> None:
    """Write docs/tutorial.ipynb when it differs from what tutorial.md gives (docs/examples.py
    calls this too, after regenerating the pages' outputs)."""
    text = generate(SOURCE.read_text(encoding="utf-8"))
    if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
        TARGET.write_text(text, encoding="utf-8")
        print(f"regenerated {TARGET.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
