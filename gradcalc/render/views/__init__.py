"""render.views: a view per kind of result, giving what each ``--format`` needs -- a
gradient, its higher orders and directions, a graph (``views``), the Hessian and the
Jacobian (``matrices``), check's verdicts (``verdicts``), fit's and minimize's tables
(``optimizers``), a tensor program and its layer report (``tensors``), and the point-free
results: derivatives (``derivative``), critical points, Taylor polynomials and implicit
derivatives (``pointfree``).

Imports the layers below render and render.output, render.pieces, render.drawings."""
