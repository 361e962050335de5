"""render.drawings: a gradient's op graph drawn -- the nodes and edges with their values and
adjoints, as DOT and Mermaid, or through Graphviz (``drawing``), and as SVG (``graph_svg``)
laid out in pure Python (``layout``).

Imports the layers below render and render.pieces."""
