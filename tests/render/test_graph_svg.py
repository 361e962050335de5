"""The op graph as SVG (gradcalc.render.drawings.graph_svg) and its layout
(gradcalc.render.drawings.layout): the SVG read back as XML and compared with the tape, and the
geometry checked on random graphs."""

from __future__ import annotations

import random
import re
import shutil
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

import gradcalc
from gradcalc.core.errors import InputError
from gradcalc.render.drawings import graph_svg
from gradcalc.render.drawings.drawing import Drawing, Node, op_graph
from gradcalc.render.drawings.graph_svg import to_svg
from gradcalc.render.drawings.layout import LAYER_GAP, NODE_GAP, WAYPOINTS, Box, layout

SVG = "{http://www.w3.org/2000/svg}"
HEADLINE = "3*w1**2+2*w1*w2"
AT = {"w1": 5, "w2": 3}


def parsed(svg: str) -> tuple[ET.Element, dict[str, dict], list[dict]]:
    """The root, the nodes (id -> class, text lines, rect) and the edges (from, to, path)."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    nodes = {}
    for g in root.iter(f"{SVG}g"):
        kind = g.get("class").split()
        assert kind[0] == "node"
        rect = g.find(f"{SVG}rect")
        nodes[g.get("id")] = {
            "kind": kind[1],
            "lines": [t.text for t in g.iter(f"{SVG}text")],
            "box": None
            if rect is None
            else Box(*(float(rect.get(a)) for a in ("x", "y", "width", "height"))),
            "size": float(g.find(f"{SVG}text").get("font-size")),
        }
    edges = [
        {"from": p.get("data-from"), "to": p.get("data-to"), "d": p.get("d")}
        for p in root.iter(f"{SVG}path")
        if p.get("class") == "edge"
    ]
    return root, nodes, edges


def path_ends(d: str) -> tuple[tuple[float, float], tuple[float, float]]:
    numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    return (numbers[0], numbers[1]), (numbers[-2], numbers[-1])


def test_headline_svg_has_every_node_and_edge_of_the_drawing() -> None:
    result = gradcalc.grad(HEADLINE, at=AT, check=False)
    drawing = op_graph(result)
    root, nodes, edges = parsed(to_svg(result))
    assert {n.id: list(n.lines) for n in drawing.nodes} == {k: v["lines"] for k, v in nodes.items()}
    assert Counter((e["from"], e["to"]) for e in edges) == Counter(drawing.edges)
    assert len(edges) == sum(len(row.inputs) for row in result.tape) == 10
    # the numbers a reader needs: the gradient on the inputs, value and adjoint on each record
    assert nodes["v0"]["lines"] == ["w1", "value = 5", "adjoint = 36"]
    assert nodes["v1"]["lines"] == ["w2", "value = 3", "adjoint = 10"]
    assert nodes["r5"]["lines"] == ["#5 add", "#2 + #4", "value = 105", "adjoint = 1"]
    assert [v["kind"] for v in nodes.values()].count("target") == 1
    assert nodes["r5"]["kind"] == "target"
    assert root.find(f"{SVG}title").text.startswith("read as: f(w1, w2) = 3·w1^2 + 2·w1·w2")


def test_boxes_hold_their_text_and_stay_inside_the_picture() -> None:
    result = gradcalc.grad("y = x^2; z = sin(y) + exp(-y)/x", at={"x": 1.5}, check=False)
    root, nodes, _ = parsed(to_svg(result))
    width, height = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    for node in nodes.values():
        box = node["box"]
        if box is None:
            continue
        longest = max(len(line) for line in node["lines"])
        assert longest * node["size"] * graph_svg.CHAR <= box.width
        assert len(node["lines"]) * node["size"] * graph_svg.LINE <= box.height
        assert box.x >= 0 and box.x + box.width <= width
        assert box.y >= 0 and box.y + box.height <= height


def test_edges_leave_the_source_on_the_right_and_enter_the_target_on_the_left() -> None:
    result = gradcalc.grad(HEADLINE, at=AT, check=False)
    _, nodes, edges = parsed(to_svg(result))
    for edge in edges:
        (x0, y0), (x1, y1) = path_ends(edge["d"])
        target = nodes[edge["to"]]["box"]
        assert x1 == pytest.approx(target.x, abs=0.05)
        assert target.y < y1 < target.y + target.height
        source = nodes[edge["from"]]["box"]
        if source is not None:  # constants are text without a box
            assert x0 == pytest.approx(source.x + source.width, abs=0.05)
            assert y0 == pytest.approx(source.y + source.height / 2, abs=0.05)


def test_off_path_records_and_unrequested_adjoints() -> None:
    result = gradcalc.grad("y = x*2; z = x^2", at={"x": 3, "u": 1}, wrt=["x"], check=False)
    _, nodes, _ = parsed(to_svg(result))
    assert nodes["r1"]["kind"] == "offpath" and nodes["r1"]["lines"][-1] == "adjoint = —"
    assert nodes["r2"]["kind"] == "target"
    assert nodes["v1"]["lines"] == ["u", "value = 1"]  # not in wrt: no adjoint computed


def test_text_is_escaped_and_the_output_is_deterministic() -> None:
    drawing = Drawing(
        ('f from a<b & "c"', "at ]]> x = 1"),
        [Node("v0", ("<x>", "&amp;"), "variable"), Node("r1", ("#1 neg", "-<x>"), "record")],
        [("v0", "r1")],
    )
    svg = graph_svg.draw(drawing)
    _, nodes, _ = parsed(svg)
    assert nodes["v0"]["lines"] == ["<x>", "&amp;"]
    assert svg == graph_svg.draw(drawing)


def test_digits_and_points() -> None:
    result = gradcalc.grad("x/3", at={"x": [1.0, 2.0]}, check=False)
    _, nodes, _ = parsed(to_svg(result, 1, digits=3))
    assert nodes["r1"]["lines"][2] == "value = 0.667"
    with pytest.raises(InputError, match="point 2 does not exist"):
        to_svg(result, 2)


# --- the layout ---------------------------------------------------------------------------


def random_dag(seed: int) -> tuple[dict, list, set]:
    """Up to 4 anchored inputs, up to 12 records with 1-3 inputs each, some constants."""
    rng = random.Random(seed)
    sizes: dict[str, tuple[float, float]] = {}
    edges: list[tuple[str, str]] = []
    anchored = {f"v{i}" for i in range(rng.randint(1, 4))}
    for name in sorted(anchored):
        sizes[name] = (rng.uniform(30, 120), rng.uniform(20, 50))
    earlier = sorted(anchored)
    for k in range(rng.randint(1, 12)):
        record = f"r{k}"
        inputs = [rng.choice(earlier) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.4:
            inputs.append(f"c{k}")
            sizes[f"c{k}"] = (10.0, 15.0)
        sizes[record] = (rng.uniform(40, 200), rng.uniform(30, 70))
        edges += [(source, record) for source in inputs]
        earlier.append(record)
    return sizes, edges, anchored


@pytest.mark.parametrize("seed", range(40))
def test_layout_of_random_graphs(seed: int) -> None:
    sizes, edges, anchored = random_dag(seed)
    picture = layout(sizes, edges, anchored)
    boxes = picture.boxes
    assert set(boxes) == set(sizes)
    assert {(b.width, b.height) for b in boxes.values()} <= set(sizes.values())
    for name in anchored:  # inputs in the first layer
        assert boxes[name].x == pytest.approx(min(b.x for b in boxes.values()), abs=60)
    for (source, target), route in zip(edges, picture.routes):
        s, t = boxes[source], boxes[target]
        assert s.x + s.width + LAYER_GAP <= t.x + 1e-9  # every edge goes right
        assert route[0] == (s.x + s.width, s.center)
        assert route[-1][0] == t.x and t.y < route[-1][1] < t.y + t.height
        for (xa, ya), (xb, yb) in zip(route[1:-1:2], route[2:-1:2]):  # level through a layer
            assert ya == yb and xa < xb
            for other in boxes.values():  # ... between the boxes of that layer
                if xa <= other.x and other.x + other.width <= xb:
                    assert not other.y - 1e-9 < ya < other.y + other.height + 1e-9
    columns: dict[float, list[Box]] = {}
    for b in boxes.values():
        columns.setdefault(round(b.x + b.width / 2), []).append(b)
    for b in boxes.values():  # no two boxes overlap
        for o in boxes.values():
            if o is not b and o.x < b.x + b.width and b.x < o.x + o.width:
                assert (
                    o.y >= b.y + b.height + NODE_GAP - 1e-6
                    or b.y >= o.y + o.height + NODE_GAP - 1e-6
                )
    assert all(
        b.x + b.width <= picture.width and b.y + b.height <= picture.height for b in boxes.values()
    )


def test_layout_refuses_cycles_and_unknown_nodes() -> None:
    with pytest.raises(ValueError, match="cycle"):
        layout({"a": (1, 1), "b": (1, 1)}, [("a", "b"), ("b", "a")])
    with pytest.raises(ValueError, match="unknown node"):
        layout({"a": (1, 1)}, [("a", "z")])


def test_a_chain_is_level_and_constants_do_not_pull_it() -> None:
    result = gradcalc.grad("y = x^2; z = y^2", at={"x": 3}, check=False)
    _, nodes, _ = parsed(to_svg(result))
    centers = [nodes[n]["box"].y + nodes[n]["box"].height / 2 for n in ("v0", "r1", "r2")]
    assert centers[0] == pytest.approx(centers[1]) == pytest.approx(centers[2])


# --- the command line ---------------------------------------------------------------------


def test_graph_command_draws_svg_without_graphviz(cli, tmp_path, monkeypatch) -> None:

    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)  # no Graphviz
    args = ["graph", "y = x^2; z = y^2", "--at", "x=3"]
    printed = cli.invoke([*args, "--format", "svg"])
    assert printed.exit_code == 0
    result = gradcalc.grad("y = x^2; z = y^2", at={"x": 3}, check=False)
    assert printed.stdout.strip() == to_svg(result).strip()
    out = tmp_path / "chain.SVG"
    written = cli.invoke([*args, "--out", str(out)])
    assert written.exit_code == 0 and f"wrote {out}" in written.stderr
    assert out.read_text(encoding="utf-8") == to_svg(result)
    png = cli.invoke([*args, "--out", str(tmp_path / "chain.png")])
    assert png.exit_code == 2 and "Graphviz program 'dot' is needed" in png.stderr
    folder = cli.invoke([*args, "--out", str(tmp_path / "missing" / "chain.svg")])
    assert folder.exit_code == 2 and "cannot write" in folder.stderr


def test_long_chains_and_many_long_edges_stay_within_bounds() -> None:
    chain = gradcalc.grad("x" + " + x" * 3000, at={"x": 1}, check=False)  # 3000 layers deep
    _, nodes, edges = parsed(to_svg(chain))
    assert len(nodes) == 3001 and len(edges) == 6000
    assert nodes["r3000"]["lines"][2:] == ["value = 3001", "adjoint = 1"]
    wide = gradcalc.grad(
        " + ".join(f"sin(x*{i})*y" for i in range(1, 300)), at={"x": 1, "y": 2}, check=False
    )
    drawing = op_graph(wide)
    picture = layout(
        {n.id: (50.0, 30.0) for n in drawing.nodes},
        drawing.edges,
        anchored={n.id for n in drawing.nodes if n.kind == "variable"},
    )
    waypoints = sum((len(route) - 2) // 2 for route in picture.routes)
    assert 0 < waypoints <= WAYPOINTS  # the rest are drawn straight across
