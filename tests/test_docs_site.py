"""The documentation site: the CLI reference is the CLI's own text, and the nav is complete.

`mkdocs build --strict` itself runs in .ci/run (it needs the `docs` extra)."""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"

_spec = importlib.util.spec_from_file_location("cli_reference", DOCS / "cli_reference.py")
cli_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cli_reference)


def test_cli_reference_is_generated_from_the_cli() -> None:
    committed = (DOCS / "cli-reference.md").read_text(encoding="utf-8")
    assert committed == cli_reference.generate(), (
        "docs/cli-reference.md is out of date with the command line: "
        "run `python docs/cli_reference.py` and commit the result"
    )


def test_cli_reference_lists_every_command() -> None:
    text = (DOCS / "cli-reference.md").read_text(encoding="utf-8")
    for command in ("grad", "hessian", "jacobian", "check", "explain", "fit", "minimize", "plot"):
        assert f"## `gradcalc {command}`" in text


def _nav_pages(commented: bool) -> list[str]:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    prefix = r"#\s*" if commented else ""
    return re.findall(rf"^\s*{prefix}- [^:#]+: (\S+\.md)\s*$", config, flags=re.M)


def test_every_page_is_in_the_nav_and_every_nav_entry_exists() -> None:
    nav = _nav_pages(commented=False)
    assert "tutorial.md" in nav and "cli-reference.md" in nav
    for page in nav:
        assert (DOCS / page).is_file(), f"mkdocs.yml's nav names docs/{page}, which is missing"
    waiting = set(_nav_pages(commented=True))
    for page in DOCS.glob("*.md"):
        assert page.name in nav or page.name in waiting, (
            f"docs/{page.name} is not in mkdocs.yml's nav"
        )
    for page in waiting & {p.name for p in DOCS.glob("*.md")}:
        raise AssertionError(f"docs/{page} exists now: uncomment it in mkdocs.yml's nav")


# --- every shell example pastes safely into bash and zsh ------------------------------------

_spec_examples = importlib.util.spec_from_file_location("doc_examples", DOCS / "examples.py")
doc_examples = importlib.util.module_from_spec(_spec_examples)
_spec_examples.loader.exec_module(doc_examples)

#: Each shell runs a snippet with no command on its PATH: every command goes to the shell's
#: not-found hook, which writes the words it was given (after the shell's expansions) to a
#: file. An unquoted glob that matches nothing is an error (bash's failglob; zsh's default),
#: so `[...]`, `*` and `(` outside quotes fail here as they would for a reader.
_RECORD = '{ printf \'%s\\0\' "$#" "$@" >> "$CALLS"; }'
HOOKS = {
    "bash": f"shopt -s failglob\ncommand_not_found_handle() {_RECORD}",
    "zsh": f"command_not_found_handler() {_RECORD}",
}
SHELLS = [shell for shell in HOOKS if shutil.which(shell)]
SNIPPETS = [
    pytest.param(snippet, id=f"{path.name}: {snippet[:50]}")
    for path in doc_examples.FILES
    for snippet in doc_examples.shell_snippets(path.read_text(encoding="utf-8"))
]


def _calls(raw: bytes) -> list[list[str]]:
    """The commands the hook saw, each as its words."""
    fields, calls = raw.decode().split("\0")[:-1], []
    while fields:
        count = int(fields.pop(0))
        calls.append(fields[:count])
        del fields[:count]
    return calls


def test_bash_and_zsh_are_there_to_check_the_snippets() -> None:
    assert "bash" in SHELLS and len(SNIPPETS) > 100
    if "zsh" not in SHELLS:
        pytest.skip("zsh is not installed: only bash checked the snippets")


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("snippet", SNIPPETS)
def test_a_shell_snippet_runs_as_written(shell: str, snippet: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    for sourced in re.findall(r"(?:^|&& )\. (\S+)", snippet, flags=re.M):  # venv activations
        (work / sourced).parent.mkdir(parents=True, exist_ok=True)
        (work / sourced).touch()
    work.mkdir(exist_ok=True)
    calls = tmp_path / "calls"
    calls.touch()
    done = subprocess.run(
        [shutil.which(shell), "-c", f"{HOOKS[shell]}\nPATH=/nonexistent\n{snippet}"],
        cwd=work,
        env={"CALLS": str(calls), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (done.returncode, done.stderr) == (0, ""), f"{shell} on: {snippet}"
    seen = _calls(calls.read_bytes())
    if snippet.startswith("gradcalc ") and "\n" not in snippet.strip():
        assert seen == [shlex.split(snippet)]  # the words docs/examples.py runs
    assert seen, "the snippet ran no command"


# --- the TensorFlow table is the code's -------------------------------------------------------

_spec_table = importlib.util.spec_from_file_location("tf_table", DOCS / "tensorflow_table.py")
tf_table = importlib.util.module_from_spec(_spec_table)
_spec_table.loader.exec_module(tf_table)


def test_the_tensorflow_table_of_the_python_api_page_is_generated_from_the_code() -> None:
    page = (DOCS / "python-api.md").read_text(encoding="utf-8")
    assert page == tf_table.generate(page), (
        "docs/python-api.md's TensorFlow table differs from gradcalc.core.compat.TENSORFLOW: "
        "run `python docs/tensorflow_table.py` and commit the result"
    )


def test_every_name_the_tensorflow_table_promises_exists() -> None:
    import gradcalc
    from gradcalc.core.compat import TENSORFLOW

    for row in TENSORFLOW:
        for name in row.names:
            owner = gradcalc
            for part in name.split("."):
                owner = getattr(owner, part)  # AttributeError names the missing one
            assert callable(owner) or isinstance(owner, type), name
