"""io: files and streams of points and data. Imports core to engine."""
