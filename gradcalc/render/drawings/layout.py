"""A layered left-to-right layout of a small directed acyclic graph (what Graphviz's ``dot``
draws with ``rankdir=LR``), in pure Python: the op-graph pictures need no Graphviz.

The steps are the classic ones (Sugiyama's), kept simple for graphs of tens of nodes:

1. layers: a node sits one layer right of its rightmost input, then, unless it is *anchored*
   (a variable: those stay in layer 0), moves right to just left of its first successor. A
   node without inputs that is not anchored is *light* (a constant): it sits at the right
   side of its layer and does not pull its successor towards itself;
2. an edge that spans several layers gets a waypoint in each layer between, so that it
   passes between the boxes instead of through them;
3. the order within each layer: a few sweeps sorting by the mean position of the neighbours
   (fewer crossings);
4. the vertical positions: each box as close as it can get to the mean height of its
   neighbours, keeping its layer's order and a gap (an isotonic regression per layer).

>>> picture = layout({"x": (40, 20), "y": (60, 30)}, [("x", "y")], anchored={"x"})
>>> picture.boxes["x"], picture.boxes["y"]
(Box(x=12.0, y=17.0, width=40, height=20), Box(x=112.0, y=12.0, width=60, height=30))
>>> picture.routes  # from the right side of x to the left side of y, level
[[(52.0, 27.0), (112.0, 27.0)]]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

MARGIN = 12.0  # around the drawing
LAYER_GAP = 60.0  # between layers, for the edges
NODE_GAP = 16.0  # between boxes of a layer
WAYPOINT = 6.0  # the height a waypoint of a long edge occupies in its layer
WAYPOINTS = 2000  # the most waypoints in one layout
SWEEPS = 4


@dataclass(frozen=True)
class Box:
    """A node's box: its top-left corner and its size."""

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> float:
        """The vertical middle."""
        return self.y + self.height / 2


@dataclass(frozen=True)
class Layout:
    """Where everything goes: a box per node, a route (points, left to right) per edge in the
    order given, and the size of the whole."""

    boxes: dict[str, Box]
    routes: list[list[tuple[float, float]]]
    width: float
    height: float


def layout(
    sizes: Mapping[str, tuple[float, float]],
    edges: Sequence[tuple[str, str]],
    anchored: Iterable[str] = (),
    top: float = 0.0,
) -> Layout:
    """Lay out the nodes (``sizes``: id -> (width, height), in the order to keep when nothing
    else decides) and ``edges`` (source, target), starting ``top`` units below the margin.

    Each route starts at the right side of its source, ends at the left side of its target
    (the edges into one node spread over its side, in the order of their sources' heights),
    and has two points, the left and right side of the layer, for each layer it crosses.

    >>> picture = layout({"a": (10, 10), "b": (10, 10), "c": (10, 10)},
    ...                  [("a", "c"), ("b", "c")], anchored={"a", "b"})
    >>> picture.boxes["c"].center == (picture.boxes["a"].center + picture.boxes["b"].center) / 2
    True

    Raises:
        ValueError: an edge names an unknown node, or the edges have a cycle.
    """
    anchored = set(anchored)
    layer = _layers(list(sizes), edges, anchored)
    targets = {t for _, t in edges}
    light = {n for n in sizes if n not in anchored and n not in targets}
    chains, order = _with_waypoints(sizes, edges, layer)
    heights = {n: sizes[n][1] if n in sizes else WAYPOINT for column in order for n in column}
    _order(order, chains)
    centers = _heights(order, chains, heights, light)
    lowest = min(centers[n] - heights[n] / 2 for column in order for n in column)
    shift = MARGIN + top - lowest
    lefts, widths = [], []
    x = MARGIN
    for column in order:
        width = max((sizes[n][0] for n in column if n in sizes), default=0.0)
        lefts.append(x)
        widths.append(width)
        x += width + LAYER_GAP
    boxes = {}
    for k, column in enumerate(order):
        for n in column:
            if n in sizes:
                w, h = sizes[n]
                y = centers[n] + shift - h / 2
                free = widths[k] - w
                boxes[n] = Box(lefts[k] + (free if n in light else free / 2), y, w, h)
    routes = _routes(edges, chains, boxes, layer, lefts, widths, centers, shift)
    height = max(centers[n] + heights[n] / 2 for column in order for n in column) + shift
    return Layout(boxes, routes, x - LAYER_GAP + MARGIN, height + MARGIN)


def _layers(nodes: list[str], edges: Sequence[tuple[str, str]], anchored: set[str]) -> dict:
    """The layer of each node: one right of its rightmost input; then each node that is not
    anchored moves right, to just left of its first successor (shorter edges)."""
    inputs: dict[str, list[str]] = {n: [] for n in nodes}
    outputs: dict[str, list[str]] = {n: [] for n in nodes}
    for source, target in edges:
        if source not in inputs or target not in inputs:
            raise ValueError(f"the edge {source} -> {target} names an unknown node")
        inputs[target].append(source)
        outputs[source].append(target)
    pending = {n: len(inputs[n]) for n in nodes}
    order = [n for n in nodes if not pending[n]]
    for node in order:  # a topological order (Kahn's), grown as it is read
        for target in outputs[node]:
            pending[target] -= 1
            if not pending[target]:
                order.append(target)
    if len(order) < len(nodes):
        raise ValueError(f"the edges have a cycle through {next(n for n in nodes if pending[n])}")
    layer: dict[str, int] = {}
    for node in order:
        layer[node] = 1 + max((layer[i] for i in inputs[node]), default=-1)
    for node in reversed(order):
        if node not in anchored and outputs[node]:
            layer[node] = min(layer[t] for t in outputs[node]) - 1
    return layer


def _with_waypoints(sizes, edges, layer) -> tuple[list[list[str]], list[list[str]]]:
    """Each edge as its chain of nodes (source, waypoints..., target), and the layers' nodes.

    The shortest edges get waypoints first, up to ``WAYPOINTS`` in all: beyond that (a graph
    of hundreds of records) an edge is drawn straight across, so that the layout stays fast.
    """
    order: list[list[str]] = [[] for _ in range(max(layer.values(), default=0) + 1)]
    for node in sizes:
        order[layer[node]].append(node)
    spans = sorted(range(len(edges)), key=lambda k: layer[edges[k][1]] - layer[edges[k][0]])
    budget, routed = WAYPOINTS, set()
    for k in spans:
        budget -= layer[edges[k][1]] - layer[edges[k][0]] - 1
        if budget < 0:
            break
        routed.add(k)
    chains = []
    for k, (source, target) in enumerate(edges):
        chain = [source]
        for between in range(layer[source] + 1, layer[target]) if k in routed else ():
            waypoint = f"\0{k}:{between}"  # cannot clash with a node id we were given
            order[between].append(waypoint)
            chain.append(waypoint)
        chains.append([*chain, target])
    return chains, order


def _neighbours(chains: list[list[str]]) -> tuple[dict, dict]:
    before: dict[str, list[str]] = {}
    after: dict[str, list[str]] = {}
    for chain in chains:
        for left, right in pairwise(chain):
            after.setdefault(left, []).append(right)
            before.setdefault(right, []).append(left)
    return before, after


def _order(order: list[list[str]], chains: list[list[str]]) -> None:
    """Sort each layer in place by the mean index of its neighbours, sweeping both ways."""
    before, after = _neighbours(chains)
    for _ in range(SWEEPS):
        for columns, neighbours in ((order, before), (order[::-1], after)):
            for previous, column in pairwise(columns):
                index = {n: i for i, n in enumerate(previous)}
                current = {n: i for i, n in enumerate(column)}

                def key(n: str, index=index, current=current, neighbours=neighbours) -> float:
                    seen = [index[m] for m in neighbours.get(n, ()) if m in index]
                    return sum(seen) / len(seen) if seen else current[n]

                column.sort(key=key)


def _heights(order, chains, heights, light: set[str]) -> dict[str, float]:
    """Vertical centres: each node near the mean of its neighbours', layers kept in order;
    a node with other inputs ignores its light ones."""
    before, after = _neighbours(chains)
    for node, inputs in before.items():
        before[node] = [m for m in inputs if m not in light] or inputs
    centers: dict[str, float] = {}
    for column in order:
        y = 0.0
        for n in column:
            centers[n] = y + heights[n] / 2
            y += heights[n] + NODE_GAP
    for _ in range(SWEEPS):
        for columns, neighbours in ((order, before), (order[::-1], after), (order, before)):
            for column in columns:
                wanted = [
                    sum(centers[m] for m in neighbours[n]) / len(neighbours[n])
                    if neighbours.get(n)
                    else centers[n]
                    for n in column
                ]
                sizes = [heights[n] for n in column]
                centers.update(zip(column, _packed(wanted, sizes)))
    return centers


def _packed(wanted: list[float], sizes: list[float]) -> list[float]:
    """Centres as close as possible (least squares) to ``wanted``, in order, ``NODE_GAP`` apart.

    With ``offset[i]`` the room the boxes before ``i`` need, ``centre[i] - offset[i]`` must not
    decrease: the pool-adjacent-violators algorithm.

    >>> _packed([0.0, 0.0], [10.0, 10.0])  # two boxes wanting the same place share the move
    [-13.0, 13.0]
    """
    offsets, room = [], 0.0
    for k, size in enumerate(sizes):
        room += (sizes[k - 1] + size) / 2 + NODE_GAP if k else 0.0
        offsets.append(room)
    blocks: list[list[float]] = []  # [mean, count]
    for w, offset in zip(wanted, offsets):
        blocks.append([w - offset, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean, count = blocks.pop()
            blocks[-1] = [
                (blocks[-1][0] * blocks[-1][1] + mean * count) / (blocks[-1][1] + count),
                blocks[-1][1] + count,
            ]
    values = [mean for mean, count in blocks for _ in range(int(count))]
    return [v + offset for v, offset in zip(values, offsets)]


def _routes(edges, chains, boxes, layer, lefts, widths, centers, shift) -> list:
    """Each edge's points: out of its source's right side, level through each layer it
    crosses, into a port on its target's left side."""
    arriving: dict[str, list[int]] = {}
    for k, (_, target) in enumerate(edges):
        arriving.setdefault(target, []).append(k)
    port: dict[int, float] = {}
    for target, ks in arriving.items():
        box = boxes[target]
        ks.sort(key=lambda k: (centers[chains[k][-2]], k))
        for i, k in enumerate(ks):
            port[k] = box.y + box.height * (i + 1) / (len(ks) + 1)
    routes = []
    for k, chain in enumerate(chains):
        source = boxes[chain[0]]
        points = [(source.x + source.width, source.center)]
        for i, waypoint in enumerate(chain[1:-1], start=layer[chain[0]] + 1):
            y = centers[waypoint] + shift
            points += [(lefts[i], y), (lefts[i] + widths[i], y)]
        points.append((boxes[chain[-1]].x, port[k]))
        routes.append(points)
    return routes
