"""apps.critical: critical points -- found exactly or by a numeric search (critical_search),
with the curves and surfaces of them (continua).

Imports the layers below apps, and apps.catalog."""
