"""How ``gradcalc check``'s verdicts are shown in each output format. Pure: nothing here
prints.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from gradcalc.render.pieces import gradient as render
from gradcalc.render.views.views import unwrapped

#: One statement that names its function: ``g = x*y`` (the REPL checks ``g`` so).
_DEFINITION = re.compile(r"\s*[A-Za-z][A-Za-z0-9_]*\s*=(?!=)[^;\n=]*")
#: The function a read-as line names: ``g`` of ``g(x, y) = ...``.
_HEAD = re.compile(r"([A-Za-z][A-Za-z0-9_]*)\([^()=]*\) = ")


_VERDICT_MARKS = {True: ("✓", "green"), False: ("✗", "red"), None: ("?", "yellow")}


class VerdictView:
    """``gradcalc check``: one verdict per component of the answer.

    ``read_as`` is the expression as gradcalc read it, ``heading`` its ``read as:`` line as
    every command shows it (:meth:`gradcalc.lang.intake.Reading.heading`: ``read as: f(x, y)
    = x^2·y``), ``answers_read_as`` each answer's reading (in the verdicts' order),
    ``warnings`` the ambiguity warnings of both.
    """

    def __init__(
        self,
        expression: str,
        at: list[str] | None,
        latex: bool,
        read_as: str = "",
        answers_read_as: list[str] | None = None,
        warnings: list[str] | None = None,
        heading: str = "",
    ):
        self.expression, self.at, self.latex = expression, at, latex
        self.read_as, self.heading = read_as, heading
        self.answers_read_as = answers_read_as
        self.warnings = warnings or []

    def json(self, verdicts: list) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "read_as": self.read_as or None,
            "point": self.at[0] if self.at and len(self.at) == 1 else None,
            "verdicts": [
                {
                    "component": v.component,
                    "yours": v.yours,
                    **({"yours_read_as": r} if r is not None else {}),
                    "correct": v.correct,
                    "verdict": v.verdict,
                    "ok": v.ok,
                    "detail": v.detail,
                    "evidence": v.evidence or None,
                    **_basis(v),
                    **({"latex": v.latex} if self.latex else {}),
                }
                for v, r in zip(verdicts, self._readings(verdicts))
            ],
            "all_correct": all(v.ok for v in verdicts),
            "warnings": self.warnings,
        }

    def _readings(self, verdicts: list) -> list[str | None]:
        readings: list[str | None] = [None] * len(verdicts)
        return list(self.answers_read_as or readings)

    def records(self, verdicts: list, tape: bool) -> list[dict[str, Any]]:
        return [self.json(verdicts)]

    def csv_header(self, verdicts: list) -> list[str]:
        return ["component", "yours", "correct", "verdict", "ok", "detail"]

    def csv_rows(self, verdicts: list, digits: int | None) -> Iterator[list[str]]:
        """A row per component; ``ok`` is true, false or empty (could not decide)."""
        for v in verdicts:
            ok = "" if v.ok is None else str(v.ok).lower()
            yield [v.component, v.yours, v.correct, v.verdict, ok, v.detail]

    def plain(self, verdicts: list, digits: int | None) -> Iterator[str]:
        """A line per component: its name and the verdict, tab-separated."""
        return (f"{v.component}\t{v.verdict}" for v in verdicts)

    def tables(self, verdicts: list, digits: int | None, tape: bool, several: bool) -> list[Any]:
        return self.table(verdicts)

    def table(self, verdicts: list) -> list[Any]:
        from rich.text import Text

        where = f" at {self.at[0].replace(',', ', ')}" if self.at and len(self.at) == 1 else ""
        equation = getattr(verdicts, "equation", False)
        named = self.expression if _DEFINITION.fullmatch(self.expression) else None
        named = self.expression if equation else named
        function = named or f"f = {self.expression}"  # g = x*y names itself
        heading = Text()
        if self.heading:  # then the question names the function only: g, or f
            heading.append("read as: ", style="dim")
            heading.append(f"{self.heading.removeprefix('read as: ')}\n")
            head = _HEAD.match(self.heading.removeprefix("read as: "))
            function = head[1] if head else named.split("=")[0].strip() if named else "f"
        for warning in self.warnings:
            heading.append(f"warning: {warning}\n", style="yellow")
        question = getattr(verdicts, "question", "") or f"derivative of {function}"
        heading.append(f"Checking your {question}{where}", style="bold")
        table = render.new_table()
        for header in ("", "your answer", "correct", "verdict", "why"):
            table.add_column(header, style="bold" if not header else None)
        for v, reading in zip(verdicts, self._readings(verdicts)):
            mark, colour = _VERDICT_MARKS[v.ok]
            table.add_row(
                v.component,
                v.yours if reading is None else reading,
                v.correct,
                Text(f"{mark} {v.verdict}", style=colour),
                v.detail,
            )
        parts: list[Any] = [heading, table]
        if self.latex:
            parts.append(unwrapped("\n".join(f"{v.latex_name} = {v.latex}" for v in verdicts)))
        return parts


def _basis(verdict: Any) -> dict[str, Any]:
    """``basis`` (proven, sampled, disproven, undecided) and, for a sampled pass, where."""
    basis = getattr(verdict, "basis", None)
    if basis is None:
        return {}
    return {"basis": basis, **({"sampled_at": verdict.where} if basis == "sampled" else {})}
