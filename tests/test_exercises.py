"""benchmarks/exercises.py: the generated textbook exercises are what they claim, and a
small sample of them gets the right verdicts from `gradcalc check` (the full set runs from
the script: ``python benchmarks/exercises.py``)."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import sympy as sp

_spec = importlib.util.spec_from_file_location(
    "exercises", Path(__file__).parent.parent / "benchmarks" / "exercises.py"
)
exercises = importlib.util.module_from_spec(_spec)
sys.modules["exercises"] = exercises  # (its dataclass looks itself up there)
_spec.loader.exec_module(exercises)


def test_the_generator_makes_textbook_exercises_of_every_kind() -> None:
    generated = exercises.generate(100, seed=2026)  # (the script makes 600)
    assert len(generated) == 100
    assert set(Counter(e.kind for e in generated)) == set(exercises.KINDS)
    assert {e.order for e in generated} == {1, 2, 3}
    variables = {len(sp.sympify(e.expression).free_symbols) for e in generated}
    assert variables == {1, 2, 3, 4}
    assert all(e.wrong for e in generated)  # wrong answers come with them
    assert generated[:5] == exercises.generate(5, seed=2026)[:5]  # the same for the same seed


def test_a_sample_gets_the_right_verdicts() -> None:
    sample = exercises.generate(10, seed=7)
    counts = exercises.run(sample)
    right, wrong = counts["right"], counts["wrong"]
    assert right == Counter(accepted=sum(right.values())), right
    assert wrong == Counter(rejected=sum(wrong.values())), wrong


def test_point_free_exercises_of_every_kind_get_the_right_verdicts() -> None:
    sample = exercises.generate_pointfree(8, seed=3)
    assert [e.kind for e in sample[:4]] == list(exercises.POINTFREE)
    assert all(e.wrong for e in sample)
    counts = exercises.run(sample)
    right, wrong = counts["right"], counts["wrong"]
    assert right == Counter(accepted=sum(right.values())), right
    assert wrong == Counter(rejected=sum(wrong.values())), wrong


def test_answers_are_typed_the_way_students_type() -> None:
    import random

    rng = random.Random(0)
    assert exercises.student("2*x**2 + 3*sin(x)", rng).replace(" ", "") == "2x^2+3sin(x)"
