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


def write_markdown(path: Path, tables: str, partial: bool = False) -> None:
    """Write the tables to ``path``; if it already holds the START and END markers (as
    docs/performance.md does), replace only what lies between them. A ``partial`` run
    (``--only``) replaces only its own sections there and keeps the others (see
    :func:`merge_sections`)."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if START in old and END in old:
        before, rest = old.split(START, 1)
        kept, after = rest.split(END, 1)
        if partial:
            tables = merge_sections(kept.strip() + "\n", tables)
        path.write_text(f"{before}{START}\n\n{tables}\n{END}{after}", encoding="utf-8")
    else:
        path.write_text(tables, encoding="utf-8")


def _split_sections(tables: str) -> tuple[str, dict[str, str]]:
    """The header before the first ``### `` heading, and each section by its title's stem
    (the title up to its first parenthesis, which holds run counts that vary)."""
    header, *bodies = tables.split("\n### ")
    sections = {}
    for body in bodies:
        title = body.split("\n", 1)[0]
        sections[title.split(" (", 1)[0].strip()] = "### " + body.rstrip() + "\n"
    return header.rstrip() + "\n", sections


def _target_lines(section: str) -> list[str]:
    """The rows of a section's targets table (``| target | measured | verdict |``)."""
    lines = section.splitlines()
    heading = "| target | measured | verdict |"
    if heading not in lines:
        return []
    rows = lines[lines.index(heading) + 2 :]
    return [row for row in rows[: next((k for k, r in enumerate(rows) if not r), len(rows))]]


def merge_sections(old: str, new: str) -> str:
    r"""The old tables with the new run's sections put in place of the same-named ones (new
    ones before "All targets"), the new run's header added as a note, and "All targets"
    gathered again from every section.

    >>> old = "Run A.\n\n### One (3 runs)\n\nold one\n\n### Two\n\nold two\n"
    >>> print(merge_sections(old, "Run B.\n\n### Two (5 runs)\n\nnew two\n"))
    Run A.
    <BLANKLINE>
    Re-measured since (Two). Run B.
    <BLANKLINE>
    ### One (3 runs)
    <BLANKLINE>
    old one
    <BLANKLINE>
    ### Two (5 runs)
    <BLANKLINE>
    new two
    <BLANKLINE>
    """
    old_header, sections = _split_sections(old)
    new_header, fresh = _split_sections(new)
    sections.pop("All targets", None)
    fresh.pop("All targets", None)
    sections.update(fresh)
    note = f"Re-measured since ({'; '.join(fresh)}). "
    kept = [line for line in old_header.splitlines() if not line.startswith("Re-measured")]
    parts = ["\n".join(kept).rstrip() + "\n", note + new_header, *sections.values()]
    every = [row for body in sections.values() for row in _target_lines(body)]
    if every:
        columns, _ = _target_rows([])
        table = markdown_table(columns, [], left=3).rstrip("\n")
        parts.append("### All targets\n\n" + table + "\n" + "\n".join(every) + "\n")
    return "\n".join(parts).rstrip() + "\n"


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
