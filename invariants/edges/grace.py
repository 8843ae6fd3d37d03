"""The grace-limit edge: budgets and grace ratios where ``floor(B * (1 + g))`` in doubles is not the exact
limit, so a total the operator expects to pass refuses (or the reverse)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from fractions import Fraction

import z3

from invariants.edges.ieee import SCALE, Binade, exact_fraction, fp_add, fp_div, fp_floor, fp_mul
from invariants.edges.results import EdgeResult, Witness, as_decimal, confirm, edge_result
from invariants.edges.solver import int_value, ints, minimize

GRACE_PERCENTS: tuple[int, ...] = tuple(range(1, 51))  # 0.01 .. 0.50
BUDGET_MAX = 2**31


def search_grace_limit(percents: Sequence[int] = GRACE_PERCENTS, budget_max: int = BUDGET_MAX) -> EdgeResult:
    """Input budgets ``B`` and grace ratios ``g`` (the decimal the operator wrote) where the grace limit
    ``floor(B * (1 + g))`` in doubles differs from the exact ``floor(B * (100 + 100 g) / 100)``: a total
    the operator expects to pass refuses (or one expected to refuse passes). The smallest ``B`` for
    each ``g``; each ``g`` without one is proved empty up to ``budget_max`` (the default 0.02 among them).
    """
    start = time.perf_counter()
    witnesses, empty = [], []
    for d in percents:
        w = grace_witness(d, 100, budget_max)
        if w is None:
            empty.append(as_decimal(d, 100))
        else:
            witnesses.append(w)
    proofs = [f"grace {', '.join(empty)}: floor(B * (1 + g)) is exact for every B in 1..{budget_max}"] if empty else []
    return edge_result(
        "grace-limit",
        start,
        witnesses,
        f"B in 1..{budget_max}, g in 0.01..0.50 step 0.01 (as written, read as a double)",
        proofs,
    )


def _satisfiable(solver: z3.Solver, *constraints: z3.BoolRef) -> bool:
    """Whether ``constraints`` are satisfiable with what ``solver`` holds; leaves ``solver`` as it was."""
    solver.push()
    solver.add(*constraints)
    answer = solver.check() == z3.sat
    solver.pop()
    return answer


def grace_witness(d: int, den: int, budget_max: int) -> Witness | None:
    g = d / den
    c = 1 + g
    confirm(fp_add(1, fp_div(d, den)) == c, f"1 + {g} differs in the FP theory")
    eps = Fraction(den + d, den) - exact_fraction(c)  # x = B * c = B (den + d) / den - B eps
    s = z3.Solver()
    budget, n, w = ints("B", "N", "w")  # B (den + d) = den N + w: N is the exact limit
    s.add(budget >= 1, budget <= budget_max, budget * (den + d) == den * n + w, w >= 0, w < den)
    z = math.lcm(den, eps.denominator) * SCALE
    diff = w * (z // den) - budget * int(eps * z)  # (x - N) * z
    # Necessary first, free of binades: the double limit is below N only when x < N - d(N), with
    # d(N) > N 2**-55; it reaches N + 1 only when x >= N + 1 - d(N + 1), with d(N + 1) <= (N + 1) 2**-53.
    # Most ratios fail both in one check each; the rest are searched binade by binade, exactly.
    directions = [
        (direction, exact)
        for direction, necessary, exact in (
            ("refuses-a-total-expected-to-pass", diff < -n * (z >> 55), lambda bn: diff < -bn.down * (z // SCALE)),
            (
                "passes-a-total-expected-to-refuse",
                diff >= z - (n + 1) * (z >> 53),
                lambda bn: diff >= z - bn.down * (z // SCALE),
            ),
        )
        if _satisfiable(s, necessary)
    ]
    best: tuple[int, str] | None = None
    for e in range(0, math.ceil(math.log2(budget_max * c)) + 2):
        for direction, exact in directions:
            binade = Binade(n if direction.startswith("refuses") else n + 1, 0, e)
            s.push()
            s.add(binade.within, exact(binade))
            if best is not None:
                s.add(budget < best[0])
            model = minimize(s, budget)
            s.pop()
            if model is not None:
                best = (int_value(model, budget), direction)
    if best is None:
        return None
    b, direction = best
    product, exact = fp_mul(b, c), b * (den + d) // den
    confirm(fp_floor(product) != exact, f"floor({b} * {c}) is the exact {exact}")
    return {
        "grace": g,
        "grace_decimal": as_decimal(d, den),
        "budget": b,
        "product": product,
        "double_limit": fp_floor(product),
        "exact_limit": exact,
        "direction": direction,
    }
