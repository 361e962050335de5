"""render.notebook: results in a notebook -- the terminal's tables as HTML and derivatives as
LaTeX (``html``), and how a tape made in Python prints and shows itself (``tapes``).

Imports the layers below render and every other room of render (it is the highest)."""
