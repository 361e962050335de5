"""The shell examples of README.md and docs/*.md: run them, compare them, regenerate them.

Every ```console block holds `$ gradcalc ...` lines, each followed by the output it
prints (stdout, then stderr). The tests (tests/test_docs_examples.py) check that each
shown output is what the command really prints today. After a deliberate change of
output, regenerate the blocks (and docs/tutorial.ipynb, made from the tutorial) from the
repository root with:

    python docs/examples.py
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(```console\n)(.*?)(```)", flags=re.S)
WIDTH = 80


def run(command: str) -> str:
    """What ``gradcalc ...`` prints (stdout then stderr) in an 80-column pipe, lines stripped."""
    from typer.testing import CliRunner

    from gradcalc.cli.app import app

    args = shlex.split(command)
    assert args[0] == "gradcalc", command
    result = CliRunner().invoke(app, args[1:], terminal_width=WIDTH)
    return "\n".join(line.rstrip() for line in result.output.splitlines()).strip("\n")


def examples(text: str) -> list[tuple[str, str]]:
    """(command, shown output) for each `$ gradcalc` line of the console blocks in ``text``."""
    found = []
    for block in BLOCK.finditer(text):
        for chunk in re.split(r"^\$ ", block.group(2), flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            if command.startswith("gradcalc "):
                found.append((command, output.rstrip("\n")))
    return found


SHELL_BLOCK = re.compile(r"```(bash|console)\n(.*?)```", flags=re.S)


def shell_snippets(text: str) -> list[str]:
    """What a reader pastes into a shell: each `$ ` line of the console blocks, and each
    ```bash block whole (its lines belong together: an ``if`` spans several)."""
    found = []
    for block in SHELL_BLOCK.finditer(text):
        if block.group(1) == "bash":
            found.append(block.group(2))
        else:
            found += [line[2:] for line in block.group(2).splitlines() if line.startswith("$ ")]
    return found


def regenerate(text: str) -> str:
    """``text`` with the output under every `$ gradcalc` line replaced by the real one."""

    def fill(block: re.Match) -> str:
        pieces = re.split(r"^\$ ", block.group(2), flags=re.M)
        out = [pieces[0]]
        for chunk in pieces[1:]:
            command, _, shown = chunk.partition("\n")
            if command.startswith("gradcalc "):
                output = run(command)
                shown = f"{output}\n" if output else ""
            out.append(f"$ {command}\n{shown}")
        return block.group(1) + "".join(out) + block.group(3)

    return BLOCK.sub(fill, text)


if __name__ == "__main__":
    for path in FILES:
        before = path.read_text(encoding="utf-8")
        after = regenerate(before)
        if after != before:
            path.write_text(after, encoding="utf-8")
            print(f"regenerated {path.relative_to(ROOT)}", file=sys.stderr)
    # the tutorial as a notebook shows the same outputs: generate it again from the page
    sys.path.insert(0, str(ROOT / "docs"))
    from tutorial_notebook import main

    main()
