"""Show :class:`~harness.Section` objects: rich tables on the terminal, markdown, JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from harness import Section, Target
from rich.console import Console
from rich.markup import escape
from rich.table import Table

VERDICT_STYLE = {"met": "green", "not met": "red", "not measured": "yellow"}


def print_section(section: Section, console: Console) -> None:
    """One scenario table, its targets (met / not met) and its notes."""
    table = Table(title=section.title, title_justify="left")
    for k, column in enumerate(section.columns):
        table.add_column(column, justify="left" if k < section.left else "right")
    for row in section.rows:
        table.add_row(*row)
    console.print(table)
    if section.targets:
        console.print(target_table(section.targets))
    for note in section.notes:
        # escaped: a note may hold brackets that are not markup, e.g. 'gradcalc[bench]'
        console.print(f"[dim]note:[/dim] {escape(note)}", highlight=False)
    console.print()


def target_table(targets: Sequence[Target], title: str = "Targets") -> Table:
    """The targets with measured figures and verdicts, as a rich table."""
    table = Table(title=title, title_justify="left")
    for column in ("target", "measured", "verdict"):
        table.add_column(column)
    for target in targets:
        style = VERDICT_STYLE[target.verdict]
        table.add_row(target.goal, target.measured, f"[{style}]{target.verdict}[/{style}]")
    return table


def markdown(sections: Sequence[Section], header: str) -> str:
    """Every section as a markdown table with its targets and notes, then all targets."""
    parts = [header]
    for section in sections:
        parts.append(f"### {section.title}\n")
        parts.append(markdown_table(section.columns, section.rows, section.left))
        if section.targets:
            parts.append(markdown_table(*_target_rows(section.targets), left=3))
        parts.extend(f"- {note}" for note in section.notes)
        parts.append("")
    every = [t for s in sections for t in s.targets]
    if every:
        parts.append("### All targets\n")
        parts.append(markdown_table(*_target_rows(every), left=3))
    return "\n".join(parts).rstrip() + "\n"


def _target_rows(targets: Sequence[Target]) -> tuple[list[str], list[list[str]]]:
    return ["target", "measured", "verdict"], [[t.goal, t.measured, t.verdict] for t in targets]


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A GitHub markdown table (``|`` in cells escaped; the first ``left`` columns
    left-aligned, the others right-aligned), followed by a blank line."""

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    alignment = ["---" if k < left else "---:" for k in range(len(columns))]
    body = [line(columns), line(alignment)]
    body += [line(row) for row in rows]
    return "\n".join(body) + "\n"


START = "<!-- benchmark tables: start (written by benchmarks/run.py --markdown) -->"
END = "<!-- benchmark tables: end -->"


def write_markdown(path: Path, tables: str) -> None:
    """Write the tables to ``path``; if it already holds the START and END markers (as
    docs/performance.md does), replace only what lies between them."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if START in old and END in old:
        before, rest = old.split(START, 1)
        after = rest.split(END, 1)[1]
        path.write_text(f"{before}{START}\n\n{tables}\n{END}{after}", encoding="utf-8")
    else:
        path.write_text(tables, encoding="utf-8")


def write_json(path: Path, sections: Sequence[Section], machine: dict) -> None:
    """The raw figures of every section, the targets and the machine, as JSON."""
    document = {
        "machine": machine,
        "scenarios": {
            s.title: {
                "raw": s.raw,
                "notes": s.notes,
                "targets": [
                    {"goal": t.goal, "measured": t.measured, "met": t.met} for t in s.targets
                ],
            }
            for s in sections
        },
    }
    path.write_text(json.dumps(document, indent=2, default=str) + "\n")
