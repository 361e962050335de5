"""apps.check: answers checked -- a derivative (check, with the points it samples; its holes
in gaps, a fail shown at the point asked about in asked), critical points (check_critical)
and implicit derivatives (check_implicit).

Imports the layers below apps, and the apps rooms catalog, critical and derive."""
