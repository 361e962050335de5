"""render.pieces: what every view of a gradient shares (``gradient``) -- its numbers as table
rows, JSON, CSV and plain lines, the tape table, the "read as" line.

Imports the layers below render; no other room of render."""
