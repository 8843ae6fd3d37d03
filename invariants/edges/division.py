"""The ieee-division edge: lengths where ``ceil(L / rate)`` in doubles is not the exact decimal ceil."""

from __future__ import annotations

import math
import time

import z3

from invariants.edges.ieee import SCALE, Binade, exact_fraction, fp_ceil, fp_div, half_gap
from invariants.edges.results import EdgeResult, Witness, confirm, edge_result
from invariants.edges.solver import int_value, ints, minimize_under

#: The rates ``ceil`` applies to (docs/model.md, The estimator and the fallback): (double, decimal as a fraction).
DIVISION_RATES: tuple[tuple[float, int, int], ...] = ((2.3, 23, 10), (2.9, 29, 10))
DIVISION_MAX = 100_000


def search_ieee_division(max_length: int = DIVISION_MAX) -> EdgeResult:
    """Lengths ``L`` where ``ceil(L / rate)`` in doubles differs from the exact decimal ceil
    (``ceil(10 L / 23)`` for 2.3): ``69 / 2.3 == 30.000000000000004`` ceils to 31, not 30.

    One witness per binade of the exact ceil (the smallest ``L`` there), for each rate; a rate with
    none is proved empty over ``1..max_length``.
    """
    start = time.perf_counter()
    witnesses: list[Witness] = []
    proofs: list[str] = []
    for rate, num, den in DIVISION_RATES:
        found = division_witnesses(rate, num, den, max_length)
        if not found:
            proofs.append(
                f"rate {rate}: ceil(L / {rate}) equals the exact ceil(L * {den} / {num}) for every L in 1..{max_length}"
            )
        witnesses += found
    return edge_result(
        "ieee-division",
        start,
        witnesses,
        f"L in 1..{max_length}, rates 2.3 and 2.9 (the smallest L per binade of the exact ceil)",
        proofs,
    )


def division_witnesses(rate: float, num: int, den: int, max_length: int) -> list[Witness]:
    r = exact_fraction(rate)  # the double, R / 2**k exactly
    s = z3.Solver()
    length, c = ints("L", "C")  # C: the exact decimal ceil of L / (num / den)
    s.add(length >= 1, length <= max_length)
    s.add(num * (c - 1) < den * length, den * length <= num * c)
    z = r.numerator * SCALE
    diff = length * (r.denominator * SCALE) - c * z  # (x - C) * z, x = L / rate
    out: list[Witness] = []
    for e in range(0, max(1, math.ceil(math.log2(max_length / rate)) + 1) + 1):  # one witness per binade of C
        binade = Binade(c, 0, e)
        # ceil(fl(x)) != C  <=>  fl(x) > C, or fl(x) <= C - 1 (C - 1 drops a binade when C == 2**e)
        above = diff > binade.up * (z // SCALE)
        below_up = z3.If(c == 2**e, half_gap(e - 1), binade.up)
        below = z3.And(c >= 2, diff + z <= below_up * (z // SCALE))
        model = minimize_under(s, length, binade.within, z3.Or(above, below))
        if model is None:
            continue
        n = int_value(model, length)
        quotient = fp_div(n, rate)
        exact_ceil = -((-n * den) // num)
        confirm(fp_ceil(quotient) != exact_ceil, f"ceil({n} / {rate}) is the exact {exact_ceil}")
        out.append(
            {
                "rate": rate,
                "length": n,
                "quotient": quotient,
                "double_ceil": fp_ceil(quotient),
                "exact_ceil": exact_ceil,
            }
        )
    return out
