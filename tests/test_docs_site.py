"""The documentation site: the CLI reference is the CLI's own text, and the nav is complete.

`mkdocs build --strict` itself runs in .ci/run (it needs the `docs` extra)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

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
