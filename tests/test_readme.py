"""The README's shown commands produce exactly the output it shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def cli_output(cli, command: str) -> str:
    args = shlex.split(command)
    assert args[0] == "gradcalc"
    result = cli.invoke(args[1:], terminal_width=80)
    return "\n".join(line.rstrip() for line in result.output.splitlines()).strip("\n")


def test_quickstart_has_exactly_two_commands_and_ci_runs_the_second() -> None:
    block = re.search(r"## Quickstart\n\n```bash\n(.*?)```", README, flags=re.S).group(1)
    install, suite = block.strip().splitlines()
    venv = "python3 -m venv .venv && . .venv/bin/activate && "
    assert install == venv + 'pip install -e . && gradcalc grad "3*w1**2+2*w1*w2" --at w1=5,w2=3'
    assert suite.startswith(venv) and suite.endswith("pytest -n auto")
    ci = (Path(__file__).parent.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert suite in ci.splitlines()


def test_headline_output_in_readme_is_real(cli) -> None:
    shown = re.search(r"The first command prints:\n\n```text\n(.*?)```", README, flags=re.S)
    expected = "\n".join(line.rstrip() for line in shown.group(1).splitlines()).strip("\n")
    assert cli_output(cli, 'gradcalc grad "3*w1**2+2*w1*w2" --at w1=5,w2=3') == expected


def test_readme_lists_every_function_the_parser_accepts() -> None:
    from gradcalc.core.ops import FUNCTION_NAMES

    listed = [
        name
        for bullet in ("Functions", "Tensor functions")
        for name in re.search(rf"- {bullet}: (.*?);", README, flags=re.S)
        .group(1)
        .replace("`", "")
        .split()
    ]
    assert set(listed) <= set(FUNCTION_NAMES)
    missing = {op.name for op in FUNCTION_NAMES.values() if not set(op.names) & set(listed)}
    assert missing == set()
