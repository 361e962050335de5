"""∇f = 0 solved exactly, where the list of solutions can be known complete.

Where each component of ∇f is a rational function -- or one times factors that are never 0,
as ``exp(-x^2 - y^2)`` or ``2^x`` -- its real zeros are those of the numerators:

- one variable: the real roots of one polynomial, every one of them, exactly (sympy's
  ``real_roots``: rationals, radicals or ``CRootOf``). sympy's ``solve`` is not used there: it
  returns no solution at all for a quintic it cannot solve in radicals, and writes the three
  real roots of ``x^3 - 3x + 1`` with complex numbers whose realness it cannot tell;
- several variables: sympy's ``solve`` (asked for the roots of cubics and quartics as
  ``CRootOf``, whose realness it knows, where it can); a solution it still writes with
  complex numbers is kept where it is real to 50 digits, as decimals, with a note saying
  that this is not proven.

>>> from gradcalc.engine.run.api import compile_expression
>>> points = exact_solutions(compile_expression("x^4/4 - 3x^2/2 + x"), ("x",), 5.0, [], [])
>>> [round(p["x"], 6) for p, _ in points]
[-1.879385, 0.347296, 1.532089]
"""

from __future__ import annotations

from typing import Any

from gradcalc.lang.graph import Graph
from gradcalc.symbolic.crosscheck.crosscheck import CheckTimeout, symbolic_gradient, time_limit
from gradcalc.symbolic.translate.notation import user_text

__all__ = ["exact_solutions"]


def exact_solutions(graph: Graph, variables, budget: float, notes: list[str], continua: list):
    """[(float point, exact point)] when ∇f's zeros are those of rational functions and
    sympy finds them all within the budget (a solution that leaves variables free is a
    continuum: described in ``continua``); None otherwise (then the search is numeric)."""
    import sympy as sp

    symbols = [sp.Symbol(v, real=True) for v in variables]
    try:
        with time_limit(budget):
            gradient = symbolic_gradient(graph, 0, list(variables))
            components = [_rational_part(sp, gradient[v], symbols) for v in variables]
            if any(c is None for c in components):
                notes.append(
                    "∇f is not a rational function (times factors that are never 0, as exp): "
                    "sympy's solution would not be known complete"
                )
                return None
            numerators = [sp.numer(c) for c in components]
            points: list[tuple[dict[str, float], dict[str, Any] | None]] = []
            lines = len(continua)
            for solution in _solutions(sp, numerators, symbols):
                if set(solution) != set(symbols) or any(
                    not value.is_number for value in solution.values()
                ):
                    where = ", ".join(f"{k} = {user_text(v)}" for k, v in solution.items())
                    continua.append(f"a continuum of critical points where {where} (exact)")
                    continue
                if any(value.is_real is False for value in solution.values()):
                    continue
                exact = {v: solution[s] for v, s in zip(variables, symbols)}
                if all(value.is_real for value in solution.values()):
                    points.append(({v: float(e) for v, e in exact.items()}, exact))
                    continue
                numeric = _numerically_real(exact)  # (radicals of complex numbers)
                if numeric is not None:
                    points.append((numeric, None))
                    where = ", ".join(f"{v} = {c:.10g}" for v, c in numeric.items())
                    notes.append(
                        f"{where}: real to 50 digits, not proven (sympy writes it with "
                        "complex numbers); shown as decimals"
                    )
            if len(symbols) > 1 and len(continua) == lines:  # (finitely many: counted)
                missed = _missed(numerators, symbols, len(points))
                if missed:
                    notes.append(missed)
                    return None
            return sorted(points, key=lambda p: tuple(p[0].values()))
    except CheckTimeout as stop:
        notes.append(f"sympy could not solve ∇f = 0 {stop.within(budget)}")
    except (NotImplementedError, ValueError, TypeError, RecursionError, AttributeError) as failure:
        notes.append(f"sympy could not solve ∇f = 0 ({type(failure).__name__})")
    return None


def _solutions(sp: Any, numerators: list[Any], symbols: list[Any]) -> list[dict[Any, Any]]:
    """The solutions of ``numerators = 0``: of one polynomial in one variable, its distinct
    real roots (all of them); else sympy's ``solve``."""
    if len(symbols) == 1 and numerators[0] != 0:
        poly = sp.Poly(numerators[0], symbols[0])
        if poly.get_domain().is_QQ or poly.get_domain().is_ZZ:
            return [{symbols[0]: root} for root in dict.fromkeys(poly.real_roots())]
    # (roots of cubics and quartics as CRootOf, whose realness sympy knows, not radicals)
    return list(sp.solve(numerators, symbols, dict=True, cubics=False, quartics=False))


def _missed(numerators: list[Any], symbols: list[Any], found: int) -> str:
    """Why sympy's solutions of a system (``found`` real points) may not be all of them: a
    factor of the elimination polynomial has no roots in radicals (``x^5 - x - 1``: sympy's
    ``solve`` then returns the others, or none, as if complete), or solving in radicals
    finds more real points. "" when they are all.

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> _missed([x**5 - x - 1, y], [x, y], 0)[:60]
    'sympy cannot write every solution of ∇f = 0 exactly (a facto'
    >>> _missed([x**2 - 1, y], [x, y], 2)
    ''
    """
    from sympy.polys.polyerrors import UnsolvableFactorError
    from sympy.solvers.polysys import solve_poly_system

    try:
        solutions = solve_poly_system(numerators, *symbols, strict=True) or []
    except UnsolvableFactorError:
        return (
            "sympy cannot write every solution of ∇f = 0 exactly (a factor of degree 5 or "
            "more has no roots in radicals): the critical points are searched for numerically"
        )
    except NotImplementedError:  # (not finitely many: sympy's solve said so itself)
        return ""
    names = [str(s) for s in symbols]
    real = [s for s in solutions if _numerically_real(dict(zip(names, s))) is not None]
    if len(real) <= found:
        return ""
    return (
        f"sympy's solve found {found} of the {len(real)} real solutions of ∇f = 0 that "
        "solving in radicals finds: the critical points are searched for numerically"
    )


def _numerically_real(exact: dict[str, Any]) -> dict[str, float] | None:
    """The point's coordinates as floats where each is real to 50 digits (an imaginary part
    below 1e-40 of it: the radicals of a cubic with three real roots), else None."""
    out = {}
    for name, value in exact.items():
        number = complex(value.evalf(50))
        if abs(number.imag) > 1e-40 * max(1.0, abs(number.real)):
            return None
        out[name] = number.real
    return out


def _rational_part(sp: Any, component: Any, symbols) -> Any:
    """``component`` of ∇f with its factors that are never 0 for real variables left out
    (``exp(-x^2 - y^2)``, its powers, powers of positive numbers as ``2^(-x^2)``, nonzero
    constants) -- it vanishes where the rest does --, when the rest is a rational function;
    else None.

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> _rational_part(sp, sp.diff(x * y * sp.exp(-x**2 - y**2), x), [x, y])
    y*(2*x**2 - 1)
    """
    kept = []
    for factor in sp.Mul.make_args(sp.factor(sp.together(component))):
        base = factor.base if factor.is_Pow else factor
        positive_base = factor.is_Pow and base.is_number and base.is_positive  # (2^(-x^2))
        if base.func == sp.exp or positive_base or (factor.is_number and factor.is_nonzero):
            continue
        kept.append(factor)
    rest = sp.Mul(*kept)
    return rest if rest.is_rational_function(*symbols) else None
