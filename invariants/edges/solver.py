"""Z3 solver helpers the edge searches share: integer variables, model values, and the smallest model."""

from __future__ import annotations

from collections.abc import Sequence

import z3


def ints(*names: str) -> list[z3.ArithRef]:
    return [z3.Int(n) for n in names]


def int_value(model: z3.ModelRef, term: z3.ArithRef) -> int:
    return model.eval(term, model_completion=True).as_long()


def minimize(solver: z3.Solver, term: z3.ArithRef) -> z3.ModelRef | None:
    """The model with the smallest ``term``, or None when unsat; leaves ``solver`` as it was.

    Galloping then bisecting below the best value found, so it takes O(log range) checks whatever
    models the solver happens to return (``term`` must be bounded below by the constraints).
    """
    if solver.check() != z3.sat:
        return None
    best = solver.model()
    high = int_value(best, term)  # the smallest value known to be reachable
    low: int | None = None  # a value known to be unreachable (every reachable one is above it)
    step = 1
    while low is None or high - low > 1:
        probe = high - step if low is None else (low + high) // 2
        solver.push()
        solver.add(term <= probe)
        if solver.check() == z3.sat:
            best = solver.model()
            high = int_value(best, term)
            step *= 2
        else:
            low = probe
        solver.pop()
    return best


def minimize_under(solver: z3.Solver, term: z3.ArithRef, *constraints: z3.BoolRef) -> z3.ModelRef | None:
    """``minimize`` with ``constraints`` added for this search only; leaves ``solver`` as it was."""
    solver.push()
    solver.add(*constraints)
    model = minimize(solver, term)
    solver.pop()
    return model


def minimize_lex(solver: z3.Solver, terms: Sequence[z3.ArithRef]) -> z3.ModelRef | None:
    """The model smallest in ``terms`` lexicographically, or None when unsat."""
    solver.push()
    model = None
    for term in terms:
        model = minimize(solver, term)
        if model is None:
            break
        solver.add(term == int_value(model, term))
    solver.pop()
    return model
