"""apps: checking answers, explain, fit, minimize, plot data, catalog. Imports core to render.

Its rooms, each importing only the ones before it: catalog, critical, derive, check, explain,
optimize, plot, views (catalog and views are one module each).
"""
