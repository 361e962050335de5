"""apps.explain: one gradient explained step by step -- the records (explanation), the forward
and reverse sweeps (explain), the symbolic derivation, and their Markdown, LaTeX and rich
renderings (explain_render).

Imports the layers below apps, and the apps rooms catalog, critical, derive and check."""
