"""apps.optimize: gradient descent (descent) and what runs it -- minimize, fit to data, train
a small network.

Imports the layers below apps, and the apps rooms before it (catalog ... explain)."""
