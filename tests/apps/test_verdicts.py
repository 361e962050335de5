"""apps.check.verdicts: what each verdict means (ok) and what it rests on (basis)."""

from __future__ import annotations

import pytest

from gradcalc.apps.check.verdicts import Verdict, Verdicts


@pytest.mark.parametrize(
    ("verdict", "evidence", "ok", "basis"),
    [
        ("correct", "exact", True, "proven"),
        ("equivalent", "proof", True, "proven"),
        ("equivalent", "high precision", True, "sampled"),
        ("wrong", "exact", False, "disproven"),
        ("not equivalent", "high precision", False, "disproven"),
        ("could not decide", "", None, "undecided"),
    ],
)
def test_a_pass_is_proven_or_sampled_and_a_fail_disproven(verdict, evidence, ok, basis) -> None:
    judged = Verdict("∂f/∂x", "2x", "2x", verdict, "", evidence=evidence)
    assert (judged.ok, judged.basis) == (ok, basis)


def test_verdicts_are_a_list_that_keeps_what_was_checked() -> None:
    verdicts = Verdicts([Verdict("∂f/∂x", "2x", "2x", "equivalent", "")], "x^2", ["x=1"])
    assert len(verdicts) == 1 and verdicts.expression == "x^2" and verdicts.at == ["x=1"]
    assert "<table" in verdicts._repr_html_()
