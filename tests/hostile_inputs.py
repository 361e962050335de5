"""Hostile expression texts, each paired with a fragment of the error it must be refused with.

Three families: code-injection payloads known against sympy's ``sympify``/``parse_expr``
(most die at the character allowlist, before any tokenising), malformed syntax, and
resource bombs (huge numbers, deep nesting, long text) that must fail within milliseconds.
Invisible and look-alike characters are written as escapes.
"""

from gradcalc.lang.lexer import MAX_LENGTH

NOT_ALLOWED = "is not allowed"

INJECTION = [
    ("__import__('os').system('touch MARKER')", '"\'" is not allowed'),
    ("__import__(os)", "names must start with a letter"),
    ("x.diff.__globals__", "'.' can only appear inside a number"),
    ("().__class__.__bases__[0].__subclasses__()", "'.' can only appear inside a number"),
    ("lambda: 1", "':' is not allowed"),
    ("[x for x in ()]", "'in' is a Python keyword"),
    ("[x, y]", "'[' indexes a vector or matrix"),
    ("x[y]", "an index is whole numbers"),
    ("x[0.5]", "an index is whole numbers"),
    ("x[__import__]", "names must start with a letter"),
    ("sum(x, axis=__import__)", "names must start with a letter"),
    ("sum(x, axis=y)", "axis= takes a whole number"),
    ("sum(x, key=1)", "sum() has no keyword 'key'"),
    ("sum(x, 0)", "takes the axis as a keyword"),
    ('f"{x}"', "'\"' is not allowed"),
    ("(y:=1)", "':' is not allowed"),
    ('exec("import os")', "'\"' is not allowed"),
    ('eval("1")', "'\"' is not allowed"),
    ("Symbol('x')", NOT_ALLOWED),
    ('sympify("x**2")', NOT_ALLOWED),
    ("Integer.__new__", "'.' can only appear inside a number"),
    ("open('/etc/passwd')", NOT_ALLOWED),
    ('getattr(x, "y")', NOT_ALLOWED),
    ('sin("x")', NOT_ALLOWED),
    ("x if 1 else 2", "'if' is a Python keyword"),
    ("x < y", "'<' is not allowed"),
    ("x @", "'@' needs an expression after it"),
    ("x @@ y", "expected a number, name or '(' after '@'"),
    ("x % y", "'%' is not allowed"),
    ("x // y", "'//' (floor division) is not supported"),
    ("not x", "'not' is a Python keyword"),
    ("x and y", "'and' is a Python keyword"),
    ("x or y", "'or' is a Python keyword"),
    ("*x", "'*' needs an expression before it"),
    ("**x", "'**' needs an expression before it"),
    ("x; import_os", "only the last statement may be a bare expression"),
    ("x # comment", "'#' is not allowed"),
    ("x | y", "'|' is not allowed"),
    ("~x", "'~' is not allowed"),
    ("`x`", "'`' is not allowed"),
    ("x\\y", "'\\\\' is not allowed"),
    ("$x", "'$' is not allowed"),
    ("x!", "'!' is not allowed"),
]

#: sympy and Python callables written without strings: refused by the parser ...
UNQUOTED_SYNTAX = [
    ("globals()", "unknown function 'globals'"),
    ("breakpoint()", "unknown function 'breakpoint'"),
    ("Lambda(x, x)", "unknown function 'Lambda'"),
    ("Integral(x, x)", "unknown function 'Integral'"),
    ("__builtins__", "names must start with a letter"),
    ("x.__class__", "'.' can only appear inside a number"),
    ("E.evalf()", "'.' can only appear inside a number"),
    ("print(*x)", "unknown function 'print'"),
    ("(lambda: 0)()", "':' is not allowed"),
    ("{x for x in y}", "'{' is not allowed"),
]
#: ... or refused as calls of functions gradcalc does not have (``Symbol(x)``: a long name
#: before ``(`` is no variable), or parsed as a product of variables (``S(x)`` is ``S*x``),
#: never a call: refused by the command line because with ``--at x=1`` those names have no
#: value (so not in HOSTILE, which the parser alone must refuse).
UNQUOTED_CALLS = [
    ("Symbol(x)", "unknown function 'Symbol'"),
    ("sympify(x)", "unknown function 'sympify'"),
    ("S(x)", "no value given for S"),
    ("N(x)", "no value given for N"),
    ("exec(x)", "unknown function 'exec'"),
    ("compile(x)", "unknown function 'compile'"),
    ("type(x)(x)", "unknown function 'type'"),
    ("Function(x)(x)", "unknown function 'Function'"),
    ("Matrix(x)", "unknown function 'Matrix'"),
]

LOOK_ALIKES = [
    ("\u0445 + 1", "U+0445 (CYRILLIC SMALL LETTER HA)"),
    ("c\u03bfs(x)", "U+03BF (GREEK SMALL LETTER OMICRON)"),
    ("x\u200b + 1", "U+200B (ZERO WIDTH SPACE)"),
    ("x\x00", "U+0000"),
    ("x\u202e + 1", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ("\uff11 + x", "U+FF11 (FULLWIDTH DIGIT ONE)"),
    ("sin\uff08x\uff09", "U+FF08 (FULLWIDTH LEFT PARENTHESIS)"),
    ("x\u00a0+ 1", "U+00A0 (NO-BREAK SPACE)"),
    ("x\r+ 1", "U+000D"),
    ("x\u2028+ 1", "U+2028 (LINE SEPARATOR)"),
]

MALFORMED = [
    ("x +", "'+' needs an expression after it"),
    ("(x", "'(' is never closed"),
    ("x)", "unmatched ')'"),
    ("sin()", "sin() needs an argument"),
    ("()", "empty parentheses"),
    ("sin x", "'sin' is a function: write sin(x)"),
    ("sin", "'sin' is a function: write sin(x)"),
    ("sin^2(x)", "write a power of a function as sin(x)^2"),
    ("2 3", "missing operator before '3'"),
    ("x 2", "missing operator before '2'"),
    ("(x)2", "missing operator before '2'"),
    ("1.2.3", "missing operator before '.3'"),
    (",x", "',' needs an expression before it"),
    ("x,", "missing expression after ','"),
    ("sin(x,)", "missing expression after ','"),
    ("(x, y)", "',' inside parentheses"),
    ("= x", "'=' needs a variable name before it"),
    ("2 = x", "only a single name can be assigned"),
    ("x =", "'=' needs an expression after it"),
    ("x == y", "'==' compares"),
    ("a = b = c", "only one '=' per statement"),
    ("x = 1, 2", "an assignment takes one expression"),
    ("x; y", "only the last statement may be a bare expression"),
    ("pi = 3", "cannot assign to 'pi'"),
    ("sin = 3", "cannot assign to 'sin'"),
    ("sin(x, y)", "sin() takes 1 argument (got 2)"),
    ("atan2(x)", "atan2() takes 2 arguments (got 1)"),
    ("Max(x, y, axis=0)", "Max() takes 1 argument and optionally axis= (with axis=, it is amax)"),
    ("log(x, 2, 3)", "log() takes 1 argument, or 2 for a base"),
    ("f(x=1)", "'=' inside parentheses: only a keyword such as axis=0"),
    ("sinn(x)", "unknown function 'sinn' — did you mean 'sin'?"),
    ("sqr(x)", "did you mean 'sqrt'?"),
    ("exps(x)", "did you mean 'exp'?"),
    ("x +* y", "expected a number, name or '(' after '+', found '*'"),
    ("_x + 1", "names must start with a letter"),
    ("a__b", "names may not contain '__'"),
    ("x" * 65, "name too long"),
]

BOMBS = [
    ("9**9**9**9", "too large"),
    ("((9**9)**999)**999", "constant too large: (9**9)**999"),
    ("x**(10**100)", "exponent too large: x**10**100"),
    ("2^2^2^2^2^2", "exponent too large"),
    ("a = 9^9; a^a", "exponent too large: a**a"),
    ("10^400", "constant too large: 10**400"),
    ("exp(1000)", "constant too large: exp(1000)"),
    ("1e300*10", "constant too large: 1e300*10"),
    ("1e999999", "number out of range"),
    ("1e-999", "number out of range"),
    ("x**1e400", "number out of range"),
    ("1234567890" * 31, "number out of range"),  # (310 digits: above the 300 allowed)
    ("(" * 100_000, "expression nested too deeply (limit 200, fixed)"),
    ("-" * 100_000 + "x", "expression nested too deeply (limit 200, fixed)"),
    ("sin(" * 300 + "x" + ")" * 300, "expression nested too deeply"),
    ("x^" * 300 + "x", "expression nested too deeply"),
    ("x" * (MAX_LENGTH + 1), "input too long"),
    ("x+" * (MAX_LENGTH // 2) + "x", "input too long"),
]

#: Every hostile text with the fragment its error message must contain.
HOSTILE = INJECTION + UNQUOTED_SYNTAX + LOOK_ALIKES + MALFORMED + BOMBS
#: What the command line must refuse (exit 2): everything above, and the unquoted calls.
HOSTILE_CLI = HOSTILE + UNQUOTED_CALLS
