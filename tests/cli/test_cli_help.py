"""Every --help page ends with one or two real example commands, and each of them works."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from gradcalc.cli.app import EXAMPLES, app

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = [info.name or info.callback.__name__ for info in app.registered_commands]


def test_every_command_has_examples() -> None:
    assert set(EXAMPLES) == {"gradcalc", *COMMANDS}


@pytest.mark.parametrize("name", ["gradcalc", *COMMANDS])
def test_help_ends_with_the_examples(cli, name) -> None:
    args = ["--help"] if name == "gradcalc" else [name, "--help"]
    result = cli.invoke(args, terminal_width=100)
    assert result.exit_code == 0
    lines = [line.strip() for line in result.stdout.rstrip().splitlines()]
    examples = EXAMPLES[name]
    assert lines[-len(examples) - 1 :] == ["Examples:", *examples]


@pytest.mark.parametrize("example", sorted({e for examples in EXAMPLES.values() for e in examples}))
def test_every_example_runs(cli, example, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)  # fit reads docs/examples/line.csv
    piped = re.fullmatch(r'echo "(.*)" \| (.*)', example)
    command, stdin = (piped[2], piped[1] + "\n") if piped else (example, None)
    args = shlex.split(command)
    assert args[0] == "gradcalc"
    result = cli.invoke(args[1:], input=stdin)
    assert result.exit_code == 0, (example, result.stdout, result.stderr)
    assert result.stdout.strip()


@pytest.mark.parametrize("name", COMMANDS)
def test_a_process_builds_only_its_command_with_the_same_help(name, capsys, monkeypatch) -> None:
    """run() (a real process) builds the app with only the command it runs: the same help
    page and exit code as the app with every command."""
    from gradcalc.cli import app as module

    args = ["--no-color", "--timeout", "5", name, "--help"]
    only = module._app_for(args)
    assert [info.callback.__name__ for info in only.registered_commands] == [name]
    assert module.run(args) == 0
    alone = capsys.readouterr().out
    monkeypatch.setattr(module, "_app_for", lambda args: module.build())
    assert module.run(args) == 0
    assert capsys.readouterr().out == alone
    assert f"gradcalc {name} [OPTIONS]" in alone


def test_a_word_that_is_no_command_gets_every_command(capsys) -> None:
    from gradcalc.cli.app import COMMANDS as ALL
    from gradcalc.cli.app import _app_for, run

    assert len(_app_for(["--timeout", "grad", "gard"]).registered_commands) == len(ALL)
    assert run(["gard", "x"]) == 2
    assert "did you mean grad?" in capsys.readouterr().err
