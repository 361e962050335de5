"""The notebook: the %gradcalc magic in a real IPython shell, and docs/tutorial.ipynb --
generated from docs/tutorial.md, executed headlessly, its outputs compared with the page's.

Skipped, saying so, without the notebook extra (IPython, ipykernel, nbclient, nbformat).
"""

from __future__ import annotations

import doctest
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "tutorial_notebook", ROOT / "docs" / "tutorial_notebook.py"
)
tutorial_notebook = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tutorial_notebook)

NEEDS = "pip install 'gradcalc[notebook]'"


def test_the_notebook_is_generated_from_the_tutorial() -> None:
    committed = (ROOT / "docs" / "tutorial.ipynb").read_text(encoding="utf-8")
    generated = tutorial_notebook.generate((ROOT / "docs" / "tutorial.md").read_text("utf-8"))
    assert committed == generated, (
        "docs/tutorial.ipynb is out of date: run `python docs/tutorial_notebook.py` (or "
        "`python docs/examples.py`) and commit it"
    )


def test_every_example_of_the_tutorial_is_a_cell() -> None:
    notebook = json.loads((ROOT / "docs" / "tutorial.ipynb").read_text(encoding="utf-8"))
    magics = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    commands = [line for line in magics if line.startswith("%gradcalc ")]
    page = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    shown = [line[2:] for line in page.splitlines() if line.startswith("$ gradcalc ")]
    assert commands == ["%" + command for command in shown] and len(shown) >= 10
    statements = page.count("\n>>> ")
    assert sum(len(c.splitlines()) for c in magics if not c.startswith("%")) >= statements


@pytest.fixture
def shell():
    pytest.importorskip("IPython", reason=f"IPython is not installed: {NEEDS}")
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "gradcalc")
    return ip


def test_line_magic_prints_what_the_command_line_prints(shell, capsys) -> None:
    shell.run_line_magic("gradcalc", 'grad "x^2*y" --at x=3,y=2 --format json --no-tape')
    out = json.loads(capsys.readouterr().out)
    assert out["gradient"] == {"x": 12.0, "y": 9.0}  # 2xy, x^2
    assert shell.user_ns["_gradcalc_exit"] == 0


def test_cell_magic_takes_the_cell_as_the_expression(shell, capsys) -> None:
    shell.run_cell_magic("gradcalc", "grad --at x=3 --wrt x,y --format csv", "y = x^2\nz = y^2\n")
    assert capsys.readouterr().out.splitlines() == ["x,value,d/dx,d/dy", "3,81,108,18"]


def test_magic_errors_are_one_line_with_the_exit_code(shell, capsys) -> None:
    shell.run_line_magic("gradcalc", 'grad "log(x)" --at x=-1')
    err = capsys.readouterr().err
    assert "ln is undefined for negative numbers" in err and "Traceback" not in err
    assert shell.user_ns["_gradcalc_exit"] == 3
    shell.run_line_magic("gradcalc", 'grad "x^2')
    assert capsys.readouterr().err.strip() == "gradcalc: No closing quotation"
    assert shell.user_ns["_gradcalc_exit"] == 2
    shell.run_line_magic("gradcalc", "grad x --formt json")
    assert "no such option --formt; did you mean --format?" in capsys.readouterr().err
    assert shell.user_ns["_gradcalc_exit"] == 2


def test_a_megabyte_line_is_refused_before_it_is_split(shell, capsys) -> None:
    """Splitting a line as a shell would is pure Python: a megabyte took 13 s to refuse."""
    shell.run_line_magic("gradcalc", 'grad "' + "x+" * 500_000 + 'x" --at x=1')
    err = capsys.readouterr().err.strip()
    assert err.startswith("gradcalc: line too long: 1,000,0") and "%%gradcalc" in err
    assert shell.user_ns["_gradcalc_exit"] == 2
    shell.run_cell_magic("gradcalc", "grad --at x=1 --format plain --no-check", "x+" * 1000 + "x")
    assert capsys.readouterr().out.split() == ["1001"]


def shown(outputs: list[dict]) -> str:
    """What a cell's outputs say, as text: streams, values (text/plain) and errors."""
    parts = []
    for output in outputs:
        kind = output["output_type"]
        if kind == "stream":
            parts.append("".join(output["text"]))
        elif kind in ("display_data", "execute_result"):
            text = "".join(output["data"].get("text/plain", ""))
            parts.append(text if kind == "display_data" else text + "\n")
        elif kind == "error":
            parts.append(f"{output['ename']}: {output['evalue']}\n")
    return "\n".join(line.rstrip() for line in "".join(parts).splitlines()).strip("\n")


@pytest.mark.slow
def test_the_tutorial_notebook_runs_and_prints_what_the_page_shows(monkeypatch) -> None:
    pytest.importorskip("nbclient", reason=f"nbclient is not installed: {NEEDS}")
    pytest.importorskip("ipykernel", reason=f"ipykernel is not installed: {NEEDS}")
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(ROOT / "docs" / "tutorial.ipynb", as_version=4)
    expected = [shown(cell.get("outputs", [])) for cell in notebook.cells]
    monkeypatch.setenv("JUPYTER_COLUMNS", "80")  # the page's width (docs/examples.py)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("GRADCALC_MAX_CPU", "0")
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    checker = doctest.OutputChecker()
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    compared = 0
    for cell, want in zip(notebook.cells, expected):
        if cell.cell_type != "code" or not want:
            continue
        got = shown(cell.outputs)
        if "".join(cell.source).startswith("%gradcalc"):
            assert got == want, "".join(cell.source)
        else:
            assert checker.check_output(want + "\n", got + "\n", flags), (cell.source, got)
        compared += 1
    assert compared >= 30  # every cell with an output on the page
