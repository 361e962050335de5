"""symbolic.decide: bounded decisions -- is an expression zero, are two equivalent (decision,
equivalence, rational, precision, patience), is a point on a curve (oncurve), where is it
defined (defined), where is it undefined at single points (holes), is a singularity removable
(removable), what is a critical point the Hessian leaves undecided (extremum).

Imports core, lang and symbolic.translate."""
