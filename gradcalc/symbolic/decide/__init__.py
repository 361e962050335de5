"""symbolic.decide: bounded decisions -- is an expression zero, are two equivalent (decision,
equivalence, rational, precision, patience), is a point on a curve (oncurve), where is it
defined (defined), is a singularity removable (removable).

Imports core, lang and symbolic.translate."""
