"""symbolic.crosscheck: the tape's values and derivatives cross-checked against sympy
(crosscheck), and the shortest form of a derivative (simplify).

Imports core, lang and the symbolic rooms translate and decide."""
