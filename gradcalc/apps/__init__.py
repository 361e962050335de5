"""apps: checking answers, explain, fit, minimize, plot data, catalog. Imports core to render."""
