"""The op-graph drawings (gradcalc.render.drawings.drawing): DOT and Mermaid text parsed back and
compared with the tape, the escaping, and writing files with and without Graphviz."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

import gradcalc
from gradcalc.core.errors import InputError
from gradcalc.render.drawings import drawing
from gradcalc.render.drawings.drawing import (
    dot_escape,
    mermaid_escape,
    render_file,
    to_dot,
    to_mermaid,
)
from gradcalc.render.pieces.gradient import format_number

HEADLINE = "3*w1**2+2*w1*w2"
AT = {"w1": 5, "w2": 3}
DOT_STRING = r'"(?:[^"\\]|\\.)*"'
DOT_NODE = re.compile(
    rf'^  "(?P<id>[^"]+)" \[label=(?P<label>{DOT_STRING})(?P<rest>(?:, [^;]*)?)\];$', re.M
)
DOT_EDGE = re.compile(r'^  "(?P<source>[^"]+)" -> "(?P<record>[^"]+)";$', re.M)
MERMAID_NODE = re.compile(
    r'^    (?P<id>\w+)(?:\["(?P<box>[^"]*)"\]|\(\["(?P<round>[^"]*)"\]\))(?::::(?P<css>\w+))?$',
    re.M,
)
MERMAID_EDGE = re.compile(r"^    (?P<source>\w+) --> (?P<record>\w+)$", re.M)
DOT_PREAMBLE = re.compile(r"^  (graph|node|edge) \[.*\];$")


def headline():
    return gradcalc.grad(HEADLINE, at=AT, check=False)


def dot_graph(text: str) -> tuple[dict[str, list[str]], dict[str, str], list[tuple[str, str]]]:
    """Node labels (as lines), node attributes and edges, read back from DOT text; fails on
    any line that is neither."""
    lines = text.splitlines()
    assert re.fullmatch(r"digraph \w+ \{", lines[0])
    assert lines[-1] == "}"
    labels: dict[str, list[str]] = {}
    rest: dict[str, str] = {}
    edges: list[tuple[str, str]] = []
    for line in lines[1:-1]:
        if DOT_PREAMBLE.match(line):
            continue
        node, edge = DOT_NODE.match(line), DOT_EDGE.match(line)
        assert node or edge, f"unexpected DOT line: {line!r}"
        if node:
            assert node["id"] not in labels, f"node {node['id']} drawn twice"
            label = node["label"][1:-1]
            labels[node["id"]] = [_unescape_dot(part) for part in label.split("\\n")]
            rest[node["id"]] = node["rest"]
        else:
            edges.append((edge["source"], edge["record"]))
    return labels, rest, edges


def _unescape_dot(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def mermaid_graph(text: str) -> tuple[dict[str, list[str]], dict[str, str], list[tuple[str, str]]]:
    """Node labels, classes and edges read back from Mermaid text."""
    lines = text.splitlines()
    assert lines[0] == "flowchart LR"
    labels: dict[str, list[str]] = {}
    css: dict[str, str] = {}
    edges: list[tuple[str, str]] = []
    for line in lines[1:]:
        if line.startswith(("    %%", "    classDef ")):
            continue
        node, edge = MERMAID_NODE.match(line), MERMAID_EDGE.match(line)
        assert node or edge, f"unexpected Mermaid line: {line!r}"
        if node:
            assert node["id"] not in labels
            labels[node["id"]] = (node["box"] or node["round"]).split("<br/>")
            css[node["id"]] = node["css"] or ""
        else:
            edges.append((edge["source"], edge["record"]))
    return labels, css, edges


def first_token(labels: dict[str, list[str]], node_id: str) -> str:
    """What the tape calls a node: ``#k`` for a record, the variable's name, the number."""
    return labels[node_id][0].split(" ")[0]


def expected_edges(result) -> Counter:
    """The tape's input relations: (``#k`` for a record, else the input's name; record index)."""
    return Counter(
        (f"#{i.record}" if i.kind == "record" else i.name, row.index)
        for row in result.tape
        for i in row.inputs
    )


def drawn_edges(labels, edges) -> Counter:
    return Counter(
        (first_token(labels, source), int(record.removeprefix("r"))) for source, record in edges
    )


def constant_inputs(result) -> int:
    """Inputs that are neither a record nor a variable."""
    return sum(i.is_constant for row in result.tape for i in row.inputs)


def record_label(labels, index: int) -> list[str]:
    return labels[f"r{index}"]


# --- DOT --------------------------------------------------------------------------------


def test_dot_headline_nodes_and_edges_match_the_tape():
    result = headline()
    text = to_dot(result)
    labels, _, edges = dot_graph(text)
    assert len(result.tape) == 5
    assert constant_inputs(result) == 3  # the 2 of w1**2, the 3, the 2 of 2*w1
    assert len(labels) == len(result.tape) + len(result.points.names) + 3 == 10
    assert len(edges) == sum(len(row.inputs) for row in result.tape) == 10
    assert drawn_edges(labels, edges) == expected_edges(result)
    constants = [i for i in labels if i.startswith("c")]
    assert sorted(labels[i][0] for i in constants) == ["2", "2", "3"]
    assert all(sum(source == i for source, _ in edges) == 1 for i in constants)


def test_dot_labels_carry_value_and_adjoint_of_every_record():
    result = headline()
    labels, _, _ = dot_graph(to_dot(result))
    for row in result.tape:
        lines = record_label(labels, row.index)
        assert lines[0] == f"#{row.index} {row.op}"
        assert lines[1] == row.statement
        assert f"value = {format_number(row.value)}" in lines
        assert f"adjoint = {format_number(row.adjoint)}" in lines
    assert record_label(labels, 5) == ["#5 add", "#2 + #4", "value = 105", "adjoint = 1"]
    assert record_label(labels, 1) == ["#1 pow", "w1^2", "value = 25", "adjoint = 3"]
    assert labels["v0"] == ["w1", "value = 5", "adjoint = 36"]
    assert labels["v1"] == ["w2", "value = 3", "adjoint = 10"]


def test_dot_is_a_balanced_left_to_right_digraph_with_the_target_highlighted():
    text = to_dot(headline())
    assert text.startswith("digraph gradcalc {\n") and text.endswith("}\n")
    assert "rankdir=LR" in text
    outside_strings = re.sub(DOT_STRING, '""', text)
    depth = 0
    for ch in outside_strings:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    assert outside_strings.count("[") == outside_strings.count("]")
    _, rest, _ = dot_graph(text)
    highlighted = [i for i, attributes in rest.items() if "fillcolor" in attributes]
    assert highlighted == ["r5"]
    assert "shape=ellipse" in rest["v0"] and "shape=plaintext" in rest["c1_1"]


def test_program_labels_and_statement_edges():
    result = gradcalc.grad("y = x**2; z = y**2", at={"x": 3}, check=False)
    labels, _, edges = dot_graph(to_dot(result))
    assert record_label(labels, 1)[1] == "y = x^2"
    assert record_label(labels, 2)[1] == "z = y^2"
    assert "adjoint = 18" in record_label(labels, 1)
    assert labels["v0"] == ["x", "value = 3", "adjoint = 108"]
    assert Counter(edges) == Counter(
        {("v0", "r1"): 1, ("c1_1", "r1"): 1, ("r1", "r2"): 1, ("c2_1", "r2"): 1}
    )
    mermaid_labels, _, _ = mermaid_graph(to_mermaid(result))
    assert mermaid_labels["r1"][1] == "y = x^2" and mermaid_labels["r2"][1] == "z = y^2"


def test_a_redefined_statement_name_points_at_its_latest_record():
    result = gradcalc.grad("y = x**2; y = y + 1; z = y*x", at={"x": 3}, check=False)
    _, _, edges = dot_graph(to_dot(result))
    assert ("r1", "r2") in edges  # the y of y + 1 is the first y
    assert ("r2", "r3") in edges and ("r1", "r3") not in edges  # the y of y*x is the second
    assert ("v0", "r3") in edges


def test_a_statement_that_rebinds_a_variable_name_shadows_the_variable():
    result = gradcalc.grad("x = x**2; z = x*3", at={"x": 3}, check=False)
    labels, _, edges = dot_graph(to_dot(result))
    assert record_label(labels, 2)[1] == "z = x·3"
    assert ("r1", "r2") in edges and ("v0", "r2") not in edges
    assert labels["v0"] == ["x", "value = 3", "adjoint = 18"]


def test_one_edge_per_input_even_when_repeated():
    result = gradcalc.grad("x*x", at={"x": 3}, check=False)
    labels, _, edges = dot_graph(to_dot(result))
    assert edges == [("v0", "r1"), ("v0", "r1")]
    assert labels["v0"] == ["x", "value = 3", "adjoint = 6"]


def test_records_off_the_target_path_and_unused_variables():
    result = gradcalc.grad("y = x**2; z = y*q", at={"x": 3, "q": 2, "u": 7}, of=["y"], check=False)
    labels, rest, _ = dot_graph(to_dot(result))
    assert "adjoint = —" in record_label(labels, 2)  # z does not feed y
    assert "dashed" in rest["r2"] and "fillcolor" in rest["r1"]
    assert labels["v2"] == ["u", "value = 7", "adjoint = 0"]  # independent
    assert labels["v1"] == ["q", "value = 2", "adjoint = 0"]


def test_a_variable_target_is_highlighted_and_unrequested_adjoints_are_omitted():
    result = gradcalc.grad("y = x**2; z = x", at={"x": 2}, check=False)
    _, rest, _ = dot_graph(to_dot(result))
    assert [i for i, a in rest.items() if "fillcolor" in a] == ["v0"]
    only_y = gradcalc.grad("y = x**2; z = y*3", at={"x": 2}, wrt=["y"], check=False)
    labels, _, _ = dot_graph(to_dot(only_y))
    assert labels["v0"] == ["x", "value = 2"]  # no adjoint was computed for x
    assert "adjoint = 3" in record_label(labels, 1)


def test_values_at_point_k_and_bad_k():
    result = gradcalc.grad("x**3", at={"x": np.array([1.0, 2.0, 3.0])}, check=False)
    labels, _, _ = dot_graph(to_dot(result, 2))
    assert labels["v0"] == ["x", "value = 3", "adjoint = 27"]
    assert "value = 27" in record_label(labels, 1)
    assert "point 2: at x = 3" in to_dot(result, 2)
    mermaid_labels, _, _ = mermaid_graph(to_mermaid(result, 1))
    assert mermaid_labels["v0"] == ["x", "value = 2", "adjoint = 12"]
    for k in (3, -1):
        with pytest.raises(InputError, match="points are numbered 0 to 2"):
            to_dot(result, k)
        with pytest.raises(InputError):
            to_mermaid(result, k)


def test_digits_rounds_the_numbers():
    result = gradcalc.grad("x/3", at={"x": 1}, check=False)
    labels, _, _ = dot_graph(to_dot(result, digits=3))
    assert "value = 0.333" in record_label(labels, 1)


def test_a_multiline_program_keeps_one_dot_statement_per_line():
    result = gradcalc.grad("y = x**2\nz = y**2", at={"x": 3}, check=False)
    text = to_dot(result)
    dot_graph(text)  # every line still parses
    assert "read as: y = x^2; z = y^2" in text
    assert "read as: y = x^2; z = y^2" in to_mermaid(result).splitlines()[1]


# --- Mermaid ----------------------------------------------------------------------------


def test_mermaid_headline_matches_the_tape_and_the_dot_drawing():
    result = headline()
    text = to_mermaid(result)
    assert text.splitlines()[0] == "flowchart LR"
    labels, css, edges = mermaid_graph(text)
    assert len(labels) == len(result.tape) + len(result.points.names) + constant_inputs(result)
    assert len(edges) == sum(len(row.inputs) for row in result.tape)
    assert drawn_edges(labels, edges) == expected_edges(result)
    assert labels["r5"] == ["#5 add", "#2 + #4", "value = 105", "adjoint = 1"]
    assert labels["v0"] == ["w1", "value = 5", "adjoint = 36"]
    assert [i for i, c in css.items() if c == "target"] == ["r5"]
    dot_labels, _, dot_edges = dot_graph(to_dot(result))
    assert labels == dot_labels
    assert Counter(edges) == Counter(dot_edges)


# --- escaping ---------------------------------------------------------------------------


def test_dot_escape_quotes_and_backslashes():
    escaped = dot_escape('a"b\\c')
    assert escaped == 'a\\"b\\\\c'
    assert re.fullmatch(DOT_STRING, f'"{escaped}"')
    assert _unescape_dot(escaped) == 'a"b\\c'
    assert dot_escape("two\nlines") == "two\\nlines"
    assert re.fullmatch(DOT_STRING, f'"{dot_escape(chr(92))}"')  # a lone backslash


def test_mermaid_escape_leaves_no_character_mermaid_reads_as_syntax():
    escaped = mermaid_escape('a"b\\c <i>&</i>')
    assert escaped == "a#quot;b\\c #lt;i#gt;#amp;#lt;/i#gt;"
    assert not set('"<>&\n') & set(escaped)
    assert mermaid_escape("#1 + #2") == "#1 + #2"  # not entity codes: kept readable
    assert mermaid_escape("#x;") == "#35;x;"  # would be read as the entity #x;


# --- writing files ----------------------------------------------------------------------


def test_render_file_dot_writes_the_text(tmp_path):
    text = to_dot(headline())
    out = tmp_path / "graph.dot"
    render_file(text, out)
    assert out.read_text(encoding="utf-8") == text
    render_file(text, str(tmp_path / "GRAPH.DOT"))
    assert (tmp_path / "GRAPH.DOT").read_text(encoding="utf-8") == text


@pytest.mark.parametrize("name", ["graph.pdf", "graph", "graph.svg.txt"])
def test_render_file_rejects_other_suffixes(tmp_path, name):
    with pytest.raises(InputError, match=r"supported suffixes are \.svg, \.png, \.dot"):
        render_file("digraph {}", tmp_path / name)
    assert not (tmp_path / name).exists()


def test_render_file_without_graphviz_explains_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)
    with pytest.raises(InputError) as raised:
        render_file("digraph {}", tmp_path / "graph.svg")
    assert str(raised.value) == (
        "the Graphviz program 'dot' is needed to write graph.svg: install it "
        "(Debian/Ubuntu: sudo apt-get install graphviz; macOS: brew install graphviz), "
        "or write .svg (gradcalc draws it) or .dot"
    )
    render_file("digraph {}", tmp_path / "graph.dot")  # .dot needs no Graphviz


def test_render_file_runs_dot_without_a_shell(tmp_path, monkeypatch):
    calls = []

    def fake_run(args, **kwargs):
        calls.append((args, kwargs))
        output = args[-1].removeprefix("-o")
        with open(output, "wb") as f:
            f.write(b"\x89PNG fake")
        return subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(shutil, "which", lambda name: f"/fake/bin/{name}")
    monkeypatch.setattr(drawing.subprocess, "run", fake_run)
    out = tmp_path / "graph.png"
    render_file("digraph { a -> b }", out)
    [(args, kwargs)] = calls
    assert isinstance(args, list) and args[:2] == ["/fake/bin/dot", "-Tpng"]
    assert kwargs == {
        "input": "digraph { a -> b }",
        "text": True,
        "capture_output": True,
        "timeout": 60,
        "check": False,
    }
    assert out.read_bytes() == b"\x89PNG fake"
    assert list(tmp_path.iterdir()) == [out]  # the scratch folder is gone


def test_render_file_reports_the_first_line_of_dots_errors(tmp_path, monkeypatch):
    def failing_run(args, **kwargs):
        return subprocess.CompletedProcess(args, 1, "", "Error: syntax error in line 1\nmore\n")

    monkeypatch.setattr(shutil, "which", lambda name: f"/fake/bin/{name}")
    monkeypatch.setattr(drawing.subprocess, "run", failing_run)
    with pytest.raises(InputError) as raised:
        render_file("not dot", tmp_path / "graph.svg")
    assert str(raised.value) == (
        "Graphviz 'dot' could not draw graph.svg: Error: syntax error in line 1"
    )
    assert list(tmp_path.iterdir()) == []


def test_render_file_reports_a_timeout(tmp_path, monkeypatch):
    def slow_run(args, **kwargs):
        raise subprocess.TimeoutExpired(args, kwargs["timeout"])

    monkeypatch.setattr(shutil, "which", lambda name: f"/fake/bin/{name}")
    monkeypatch.setattr(drawing.subprocess, "run", slow_run)
    with pytest.raises(InputError, match="more than 60 s"):
        render_file("digraph {}", tmp_path / "graph.svg")


def test_render_file_into_a_missing_folder(tmp_path):
    with pytest.raises(InputError, match="cannot write"):
        render_file("digraph {}", tmp_path / "missing" / "graph.dot")


needs_graphviz = pytest.mark.skipif(
    shutil.which("dot") is None,
    reason="Graphviz's 'dot' is not installed (apt-get install graphviz)",
)


@needs_graphviz
def test_render_svg_with_graphviz(tmp_path):
    out = tmp_path / "graph.svg"
    render_file(to_dot(headline()), out)
    svg = out.read_text(encoding="utf-8")
    assert svg.lstrip().startswith(("<?xml", "<svg"))
    assert len(svg) > 2000
    assert "adjoint = 36" in svg and "value = 105" in svg


@needs_graphviz
def test_render_png_with_graphviz(tmp_path):
    out = tmp_path / "graph.png"
    render_file(to_dot(headline()), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 2000


@needs_graphviz
def test_graphviz_rejects_broken_text_and_leaves_no_file(tmp_path):
    with pytest.raises(InputError, match=r"Graphviz 'dot' could not draw graph\.svg: .*syntax"):
        render_file("digraph { a -> ", tmp_path / "graph.svg")
    assert list(tmp_path.iterdir()) == []


@needs_graphviz
@pytest.mark.skipif(sys.platform == "win32", reason="uses a POSIX path with a space")
def test_graphviz_accepts_the_escaped_labels(tmp_path):
    text = 'digraph { "a" [label="' + dot_escape('a"b\\c {x} -> y') + '"]; }'
    out = tmp_path / "with space.svg"
    render_file(text, out)
    assert "a&quot;b\\c {x} &#45;&gt; y" in out.read_text(encoding="utf-8")


def test_graph_command_prints_dot_and_mermaid_and_refuses_bad_files(cli, tmp_path) -> None:

    dot = cli.invoke(["graph", "y = x^2; z = y^2", "--at", "x=3"])
    assert dot.exit_code == 0 and dot.stdout.startswith("digraph gradcalc {")
    assert "adjoint = 108" in dot.stdout and "z = y^2" in dot.stdout
    mermaid = cli.invoke(["graph", "x*y", "--at", "x=1,y=2", "--format", "mermaid"])
    assert mermaid.stdout.startswith("flowchart LR")
    target = tmp_path / "g.dot"
    written = cli.invoke(["graph", "x*y", "--at", "x=1,y=2", "--out", str(target)])
    assert written.exit_code == 0 and target.read_text().startswith("digraph")
    bad = cli.invoke(["graph", "x*y", "--at", "x=1,y=2", "--out", str(tmp_path / "g.pdf")])
    assert bad.exit_code == 2 and ".svg, .png, .dot" in bad.stderr
    two = cli.invoke(["graph", "x", "--at", "x=1", "--at", "x=2"])
    assert two.exit_code == 2 and "one point" in two.stderr


@pytest.mark.parametrize("output", ["dot", "mermaid", "svg"])
def test_graph_says_how_it_read_the_expression_and_warns(cli, output) -> None:
    result = cli("graph", "x/2y", "--at", "x=1,y=2", "--format", output)
    assert result.exit_code == 0, result.output
    assert "read as: f(x, y) = (x/2)·y" in result.stdout
    assert "x/2y is read as (x/2)·y; if you mean x/(2·y), write x/(2y)" in result.stderr


def test_a_drawing_past_its_node_cap_is_refused(monkeypatch) -> None:
    """30,000 terms once wrote a 99 MB SVG in 12 s; past MAX_DRAWN records, a clear error."""
    from gradcalc import grad
    from gradcalc.core.errors import InputError
    from gradcalc.render.drawings import drawing

    result = grad("sin(x) + sin(2*x) + sin(3*x)", at={"x": 1.0}, check=False)
    assert drawing.op_graph(result).nodes  # 8 records: drawn
    monkeypatch.setattr(drawing, "MAX_DRAWN", len(result.tape) - 1)
    with pytest.raises(InputError, match="a drawing holds at most"):
        drawing.op_graph(result)
