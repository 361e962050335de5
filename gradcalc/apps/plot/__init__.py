"""apps.plot: plots of a function and its gradient (plot), drawn in the terminal and in files
(figures).

Imports the layers below apps, and the apps rooms before it (catalog ... optimize)."""
