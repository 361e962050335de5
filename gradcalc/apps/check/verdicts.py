"""What a check decides: one :class:`Verdict` per component of the answer, and the
:class:`Verdicts` of one check (a list that shows as a table in a notebook).

>>> Verdict("∂f/∂x", "2x", "2x", "equivalent", "sympy proves the difference is 0").ok
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gradcalc.apps.check.coverage import PROVEN


@dataclass
class Verdict:
    """The judgement of one component of the answer.

    ``verdict`` is ``correct``/``wrong`` (numbers), ``equivalent``/``not equivalent``
    (expressions) or ``could not decide``; ``ok`` is True, False or None accordingly.
    """

    component: str
    yours: str
    correct: str
    verdict: str
    detail: str
    latex: str = ""  # the correct value or derivative in LaTeX
    latex_name: str = ""  # the component's name in LaTeX
    evidence: str = ""  # what the verdict rests on: proof, exact points, high precision, ...
    where: str = ""  # where a pass that rests on sampling was sampled

    @property
    def ok(self) -> bool | None:
        """True when right, False when wrong, None when undecided."""
        if self.verdict in ("correct", "equivalent"):
            return True
        if self.verdict in ("wrong", "not equivalent"):
            return False
        return None

    @property
    def basis(self) -> str:
        """What the verdict rests on, in one word: ``proven``, ``sampled`` (a pass without
        proof: see ``where``), ``disproven`` or ``undecided``.

        >>> Verdict("∂f/∂x", "2x", "2x", "equivalent", "", evidence="proof").basis
        'proven'
        """
        if self.ok is None:
            return "undecided"
        if self.ok is False:
            return "disproven"
        return "proven" if self.evidence in PROVEN else "sampled"


class Verdicts(list):
    """The verdicts of one check, in order (a list), with what was checked: in a notebook
    they show as the table ``gradcalc check`` prints."""

    def __init__(
        self,
        verdicts: Sequence[Verdict],
        expression: str,
        at: Sequence[str] = (),
        question: str = "",
        equation: bool = False,
    ):
        super().__init__(verdicts)
        self.expression, self.at = expression, list(at)
        self.question = question  # what was answered, when not the derivative of f
        self.equation = equation  # the expression is an equation (left = right)
        self.hints: list[str] = []  # shown as warnings: the answer right in another order

    def _repr_html_(self) -> str:
        from gradcalc.lang.intake import read
        from gradcalc.render.notebook.html import to_html
        from gradcalc.render.views.verdicts import VerdictView

        reading = read(self.expression, equation=self.equation)
        warnings = [*reading.warnings, *self.hints]
        view = VerdictView(self.expression, self.at, False, reading, warnings=warnings)
        return to_html(view.tables(self, None, False, False))
