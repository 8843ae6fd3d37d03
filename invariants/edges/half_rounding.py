"""The js-round-half edge: raw prices and calibrations whose product is an even ``k + 0.5`` in doubles, where
``js_round`` and Python's ``round`` part, and two-block contents whose per-block rounding is not the sum's."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from fractions import Fraction

import z3

from invariants.edges.ieee import SCALE, Binade, exact_fraction, fp_js_round, fp_mul, fp_python_round
from invariants.edges.results import EdgeResult, Witness, as_decimal, confirm, edge_result
from invariants.edges.solver import int_value, ints, minimize_lex, minimize_under

#: Calibrations an operator writes: 0.30, 0.35, ..., 3.95 (every multiple of 0.05 in (0.25, 4)).
CALIBRATION_STEP = 20
CALIBRATIONS: tuple[int, ...] = tuple(range(6, 80))  # numerators over CALIBRATION_STEP
RAW_MAX = 10_000


def search_js_round_half(calibrations: Sequence[int] = CALIBRATIONS, raw_max: int = RAW_MAX) -> EdgeResult:
    """Raw prices ``r`` and calibrations ``c`` where ``r * c`` in doubles is exactly ``k + 0.5`` with ``k``
    even: ``js_round`` gives ``k + 1`` and Python's ``round`` ``k``. For each calibration the smallest
    ``r``; ``kind`` says whether the exact product of the two doubles is the half too (``exact-tie``)
    or the multiplication's rounding lands on it (``landing``). Then the smallest two-block contents
    whose per-block rounding differs from rounding the sum (a nested tool result) by a token, each way.
    """
    start = time.perf_counter()
    witnesses: list[Witness] = []
    empty: list[str] = []
    for d in calibrations:
        w = _half_witness(d, CALIBRATION_STEP, raw_max)
        if w is None:
            empty.append(as_decimal(d, CALIBRATION_STEP))
        else:
            witnesses.append(w)
    proofs = [f"calibration {c}: no raw in 1..{raw_max} lands on an even k + 0.5" for c in empty]
    witnesses += _per_block_witnesses(calibrations)
    lo, hi = as_decimal(calibrations[0], CALIBRATION_STEP), as_decimal(calibrations[-1], CALIBRATION_STEP)
    return edge_result(
        "js-round-half",
        start,
        witnesses,
        f"raw in 1..{raw_max}, calibration in {lo}..{hi} step 0.05; per-block: two blocks of raw 1..50",
        proofs,
    )


def _half_witness(d: int, den: int, raw_max: int) -> Witness | None:
    c = d / den
    eps = Fraction(d, den) - exact_fraction(c)  # c = d/den - eps exactly
    s = z3.Solver()
    r, j, w = ints("r", "j", "w")
    k2 = 4 * j + 1  # 2h, h = k + 1/2 with k = 2j even
    s.add(r >= 1, r <= raw_max, j >= 0, w == 2 * r * d - den * k2)
    # (x - h) * Z = w * Z / (2 den) - r * eps * Z, x = r * c
    z = math.lcm(2 * den, eps.denominator) * SCALE
    diff = w * (z // (2 * den)) - r * int(eps * z)
    # Necessary first, free of binades: fl(x) == h needs |x - h| <= h 2**-53, i.e. k2 2**-54 (scaled).
    # Its smallest r bounds the exact one from below, and so does its binade.
    relaxed = minimize_under(s, r, diff >= -k2 * (z >> 54), diff <= k2 * (z >> 54))
    if relaxed is None:
        return None
    lowest = (int_value(relaxed, k2) // 2).bit_length() - 1  # the binade of h = k2 / 2 (-1 for h = 0.5)
    for e in range(lowest, 16):  # the smallest r lies in the lowest binade of h that has one
        binade = Binade(k2, 1, e)
        model = minimize_under(
            s, r, binade.within, diff >= -binade.down * (z // SCALE), diff <= binade.up * (z // SCALE)
        )
        if model is None:
            continue
        raw = int_value(model, r)
        product = fp_mul(raw, c)
        js, py = fp_js_round(product), fp_python_round(product)
        confirm(product % 1 == 0.5 and js == py + 1, f"{raw} * {c} = {product} is no even half")
        return {
            "kind": "exact-tie" if Fraction(raw) * exact_fraction(c) == exact_fraction(product) else "landing",
            "raw": raw,
            "calibration": c,
            "calibration_decimal": as_decimal(d, den),
            "product": product,
            "js_round": js,
            "python_round": py,
        }
    return None


def _per_block_witnesses(calibrations: Sequence[int], raw_max: int = 50) -> list[Witness]:
    """The smallest two raw prices (by their sum, then the calibration) whose per-block rounding is a
    token above, and a token below, rounding their sum. No product is a decimal tie (those are the
    search above), so each is at least ``1 / 20`` from a half and ``js_round`` of the double is the
    decimal's half-up rounding (the doubles' error is below 1e-12 here; the FP theory confirms).
    The calibration is a variable here, so the products are nonlinear, but small and bounded."""
    out: list[Witness] = []
    den, den2 = CALIBRATION_STEP, 2 * CALIBRATION_STEP
    for sign, kind in ((1, "per-block-above-sum"), (-1, "per-block-below-sum")):
        s = z3.Solver()
        r1, r2, d = ints("r1", "r2", "d")
        s.add(r1 >= 1, r1 <= r2, r2 <= raw_max, z3.Or(*(d == x for x in calibrations)))
        rounded = []
        for name, raw in (("a", r1), ("b", r2), ("sum", r1 + r2)):
            q, t, m, p = ints(f"q_{name}", f"t_{name}", f"m_{name}", f"p_{name}")
            # p = 2 raw d; q = half-up rounding of raw * d / den; t = p mod 2 den, never den (a tie)
            s.add(p == 2 * raw * d, p + den >= den2 * q, p + den < den2 * (q + 1))
            s.add(p == den2 * m + t, t >= 0, t < den2, t != den)
            rounded.append(q)
        s.add(sign * (rounded[0] + rounded[1] - rounded[2]) >= 1)
        model = minimize_lex(s, (r1 + r2, d))
        if model is None:
            continue
        a, b, c = int_value(model, r1), int_value(model, r2), int_value(model, d) / den
        per_block = fp_js_round(fp_mul(a, c)) + fp_js_round(fp_mul(b, c))
        summed = fp_js_round(fp_mul(a + b, c))
        confirm(sign * (per_block - summed) >= 1, f"{a}, {b} at {c}: {per_block} vs {summed}")
        out.append(
            {
                "kind": kind,
                "raws": [a, b],
                "calibration": c,
                "calibration_decimal": as_decimal(int_value(model, d), den),
                "per_block": per_block,
                "summed": summed,
            }
        )
    return out
