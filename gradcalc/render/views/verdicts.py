"""How ``gradcalc check``'s verdicts are shown in each output format. Pure: nothing here
prints.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from gradcalc.render.pieces import gradient as render
from gradcalc.render.views.views import unwrapped

if TYPE_CHECKING:
    from gradcalc.lang.intake import Reading

_VERDICT_MARKS = {True: ("✓", "green"), False: ("✗", "red"), None: ("?", "yellow")}


class VerdictView:
    """``gradcalc check``: one verdict per component of the answer.

    ``reading`` is the expression as gradcalc read it (its ``read as:`` line heads the
    table, and its function's name the question: "derivative of g"), ``answers_read_as``
    each answer's reading (in the verdicts' order), ``warnings`` the ambiguity warnings of
    both.
    """

    def __init__(
        self,
        expression: str,
        at: list[str] | None,
        latex: bool,
        reading: Reading,
        answers_read_as: list[str] | None = None,
        warnings: list[str] | None = None,
    ):
        self.expression, self.at, self.latex = expression, at, latex
        self.reading = reading
        self.answers_read_as = answers_read_as
        self.warnings = warnings or []

    def json(self, verdicts: list) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "read_as": self.reading.read_as,
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
        """A line per component: its name, the verdict and why, tab-separated (the why is
        never dropped: a ✗ or a could-not-decide without its reason is no help)."""
        return (f"{v.component}\t{v.verdict}\t{v.detail}" for v in verdicts)

    def tables(self, verdicts: list, digits: int | None, tape: bool, several: bool) -> list[Any]:
        return self.table(verdicts)

    def table(self, verdicts: list) -> list[Any]:
        from rich.text import Text

        where = f" at {self.at[0].replace(',', ', ')}" if self.at and len(self.at) == 1 else ""
        heading = Text()
        heading.append("read as: ", style="dim")
        heading.append(f"{self.reading.heading().removeprefix('read as: ')}\n")
        function = self.reading.function or self.reading.graph.target_names[0]  # (z of y=..; z=..)
        for warning in self.warnings:
            heading.append(f"warning: {warning}\n", style="yellow")
        asked = "Jacobian" if len(self.reading.graph.target_names) > 1 else "derivative"
        question = getattr(verdicts, "question", "") or f"{asked} of {function}"
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
