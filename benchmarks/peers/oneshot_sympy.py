"""The headline gradient with sympy alone (parse, differentiate, substitute), as a user's
one-file script: prints ``36 10``."""

from sympy import diff, symbols
from sympy.parsing.sympy_parser import parse_expr

w1, w2 = symbols("w1 w2")
f = parse_expr("3*w1**2+2*w1*w2")
point = {w1: 5, w2: 3}
print(diff(f, w1).subs(point), diff(f, w2).subs(point))
