"""render.pieces: what every view of a gradient shares -- its numbers as table rows, JSON,
CSV and plain lines, the tape table, the "read as" line (``gradient``), and the tangent
line or plane written without sympy (``tangent``).

Imports the layers below render; no other room of render."""
