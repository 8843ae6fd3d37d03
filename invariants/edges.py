"""Z3 searches for the rounding edges of the estimator and the compile (issue 5).

Each search answers one question about where IEEE doubles, JavaScript's rounding, the pricing epoch,
the grace ratio, the cap's chars/4 arithmetic or the density probe put a price on the wrong side of
a boundary, and returns an ``EdgeResult``: concrete witnesses (plain JSON records), or a proof that
none exists in the range it searched (Z3 answered ``unsat``). The witnesses are kept in the
versioned corpus ``invariants/witnesses.json`` (``cmharness edges --write`` rewrites it) and
replayed as stores through ``witness_scenarios()``, which property tests take as ``@example`` s.

How IEEE behaviour is encoded
-----------------------------
Z3's floating-point theory (``FPSort(11, 53)``, ``fpDiv``, ``fpRoundToIntegral``) states the
questions exactly, but proving a question *empty* over a range with it is slow: "no L <= 100000 has
``ceil(L / 2.9)`` off in doubles" takes minutes (measured: 240 s; 30-50 s with the ``qffpbv``
tactic). So the searches state the same IEEE semantics in linear integer arithmetic, where Z3
answers in milliseconds, through one exact lemma about round-to-nearest-even:

    for a double ``v`` whose last mantissa bit is 0 (every integer and half-integer below 2**50 is
    one), and any real ``x``: ``fl(x) >= v  iff  x >= v - d(v)`` and ``fl(x) <= v  iff  x <= v + u(v)``,
    where ``u(v)`` is half the gap from ``v`` to the next double up and ``d(v)`` half the gap to the
    next double down (the midpoints round to ``v``, the even one).

``u`` and ``d`` depend on ``v``'s binade, so the searches go binade by binade (``_Binade``), after
one binade-free check of a necessary condition where that prunes most of the range. A double
constant (``2.3``, ``fl(d / 100)``, ``fl(1 + g)``) enters as its exact dyadic value
(``Fraction(float)``). Where a decimal the operator wrote matters, the product or quotient is split
into the decimal's exact value plus the tiny representation error, with the decimal part's distance
from the boundary named as an integer variable (``w``): the same constraint, but Z3 then sees at
once that only exact decimal ties can be affected (without it, proving calibration 1.2 free of
halves takes 75 s instead of milliseconds).

Every witness's doubles are then computed again in Z3's floating-point theory proper (``_fp_value``
evaluates ``fpDiv`` / ``fpMul`` / ``fpRoundToIntegral`` in ``FPSort(11, 53)``), so the integer encoding
is cross-checked on every answer. (An FP-theory proof that no ``ceil(L / 2.3)`` witness lies below
the smallest found takes 1 to 6 s from run to run, so it is not part of the search;
``tests/test_edges.py`` checks the witnesses, and the emptiness of rate 2.9, exhaustively in plain
Python instead.)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, TextIO

import z3

from reference.estimator import content_tokens, text_tokens
from reference.model import Budget, Config, Message, Store, Summary, Text, Thinking, ToolResult, ToolUse
from reference.price import reference_price
from strategies import HierarchicalStrategy, InvalidConfigError, OverBudgetError, UncoveredDropError
from strategies.cap import truncate
from strategies.pricing import grace_limit
from strategies.recall import combined_answer

CORPUS_PATH = Path(__file__).with_name("witnesses.json")
VARIANT_NAMES: tuple[str, ...] = ("main-48bb87a1", "pr-8bb01ab8", "sound")
CORPUS_VERSION = 1

EdgeStatus = Literal["found", "proved-empty"]
Witness = dict[str, Any]
Scenario = tuple[str, Store, Config, Budget]


@dataclass(frozen=True)
class EdgeResult:
    """One search's answer: witnesses, or a proof (``proved-empty``) that none exists in the range.

    ``proofs`` lists the sub-questions Z3 proved empty along the way (e.g. "rate 2.9: no L").
    """

    edge: str
    status: EdgeStatus
    witnesses: tuple[Witness, ...]
    range_searched: str
    seconds: float
    proofs: tuple[str, ...] = ()

    def corpus_entry(self) -> dict[str, Any]:
        """The JSON the corpus keeps for this edge (everything but the time it took)."""
        return {"status": self.status, "range_searched": self.range_searched,
                "proofs": list(self.proofs), "witnesses": [dict(w) for w in self.witnesses]}


# ----------------------------------------------------------------------------- IEEE in integer arithmetic

#: Half-gaps between doubles are scaled by 2**SCALE_BITS so that they are integers (for values >= 2**-8).
SCALE_BITS = 64
_SCALE = 2**SCALE_BITS
F64 = z3.Float64()


def _half_gap(e: int) -> int:
    """Half an ulp of a double in ``[2**e, 2**(e + 1))``, scaled."""
    return 2 ** (e - 53 + SCALE_BITS)


class _Binade:
    """``v = K / 2**f`` (``K`` an integer term) in ``[2**e, 2**(e + 1))``, and its half-gaps there (scaled):
    ``up`` to the next double, ``down`` to the previous one (half as wide at ``v == 2**e``)."""

    def __init__(self, k: z3.ArithRef, f: int, e: int) -> None:
        assert e + f <= 50, "v must keep an even last mantissa bit"
        lo = 2 ** (e + f)
        self.within = z3.And(k >= lo, k < 2 * lo)
        self.up = _half_gap(e)
        self.down = z3.If(k == lo, self.up // 2, self.up)


def _exact(x: float) -> Fraction:
    return Fraction(x)


def _ints(*names: str) -> list[z3.ArithRef]:
    return [z3.Int(n) for n in names]


def _int_value(model: z3.ModelRef, term: z3.ArithRef) -> int:
    return model.eval(term, model_completion=True).as_long()


def _fp_value(expr: z3.FPRef) -> float:
    """A constant double expression evaluated in Z3's floating-point theory, as a Python float."""
    value = z3.simplify(expr)
    if not z3.is_fp_value(value):
        raise ValueError(f"not a constant double: {value}")
    if value.isNaN():
        return math.nan
    if value.isInf():
        return -math.inf if value.isNegative() else math.inf
    exact = z3.simplify(z3.fpToReal(value))  # the double's exact rational value
    return float(Fraction(exact.numerator_as_long(), exact.denominator_as_long()))


def _fp(x: float | int) -> z3.FPRef:
    return z3.FPVal(float(x), F64)


def _fp_div(a: float | int, b: float | int) -> float:
    return _fp_value(z3.fpDiv(z3.RNE(), _fp(a), _fp(b)))


def _fp_mul(a: float | int, b: float | int) -> float:
    return _fp_value(z3.fpMul(z3.RNE(), _fp(a), _fp(b)))


def _fp_add(a: float | int, b: float | int) -> float:
    return _fp_value(z3.fpAdd(z3.RNE(), _fp(a), _fp(b)))


def _fp_ceil(x: float) -> int:
    return int(_fp_value(z3.fpRoundToIntegral(z3.RTP(), _fp(x))))


def _fp_floor(x: float) -> int:
    return int(_fp_value(z3.fpRoundToIntegral(z3.RTN(), _fp(x))))


def _fp_js_round(x: float) -> int:
    """``Math.round`` in the FP theory: floor, plus one when ``x - floor(x) >= 0.5`` (that difference is exact)."""
    f = z3.fpRoundToIntegral(z3.RTN(), _fp(x))
    up = z3.fpGEQ(z3.fpSub(z3.RNE(), _fp(x), f), _fp(0.5))
    return int(_fp_value(z3.If(up, z3.fpAdd(z3.RNE(), f, _fp(1)), f)))


def _fp_python_round(x: float) -> int:
    """Python's ``round``: to the nearest integer, ties to even."""
    return int(_fp_value(z3.fpRoundToIntegral(z3.RNE(), _fp(x))))


def _satisfiable(solver: z3.Solver, *constraints: z3.BoolRef) -> bool:
    """Whether ``constraints`` are satisfiable with what ``solver`` holds; leaves ``solver`` as it was."""
    solver.push()
    solver.add(*constraints)
    answer = solver.check() == z3.sat
    solver.pop()
    return answer


def _minimize(solver: z3.Solver, term: z3.ArithRef) -> z3.ModelRef | None:
    """The model with the smallest ``term``, or None when unsat; leaves ``solver`` as it was.

    Galloping then bisecting below the best value found, so it takes O(log range) checks whatever
    models the solver happens to return (``term`` must be bounded below by the constraints).
    """
    if solver.check() != z3.sat:
        return None
    best = solver.model()
    high = _int_value(best, term)  # the smallest value known to be reachable
    low: int | None = None  # a value known to be unreachable (every reachable one is above it)
    step = 1
    while low is None or high - low > 1:
        probe = high - step if low is None else (low + high) // 2
        solver.push()
        solver.add(term <= probe)
        if solver.check() == z3.sat:
            best = solver.model()
            high = _int_value(best, term)
            step *= 2
        else:
            low = probe
        solver.pop()
    return best


def _decimal(d: int, den: int) -> str:
    """``d / den`` as the decimal an operator writes (``den`` = 2**a 5**b): ``_decimal(7, 20) == "0.35"``."""
    value, places = Fraction(d, den), 0
    while value.denominator != 1:
        value, places = value * 10, places + 1
    digits = str(value.numerator).rjust(places + 1, "0")
    return f"{digits[:-places]}.{digits[-places:]}" if places else digits


def _result(edge: str, start: float, witnesses: Iterable[Witness], range_searched: str,
            proofs: Iterable[str] = ()) -> EdgeResult:
    found = tuple(witnesses)
    return EdgeResult(edge, "found" if found else "proved-empty", found, range_searched,
                      round(time.perf_counter() - start, 3), tuple(proofs))


# ----------------------------------------------------------------------------- ieee-division

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
        found = _division_witnesses(rate, num, den, max_length)
        if not found:
            proofs.append(f"rate {rate}: ceil(L / {rate}) equals the exact ceil(L * {den} / {num}) "
                          f"for every L in 1..{max_length}")
        witnesses += found
    return _result("ieee-division", start, witnesses,
                   f"L in 1..{max_length}, rates 2.3 and 2.9 (the smallest L per binade of the exact ceil)", proofs)


def _division_witnesses(rate: float, num: int, den: int, max_length: int) -> list[Witness]:
    r = _exact(rate)  # the double, R / 2**k exactly
    s = z3.Solver()
    length, c = _ints("L", "C")  # C: the exact decimal ceil of L / (num / den)
    s.add(length >= 1, length <= max_length)
    s.add(num * (c - 1) < den * length, den * length <= num * c)
    z = r.numerator * _SCALE
    diff = length * (r.denominator * _SCALE) - c * z  # (x - C) * z, x = L / rate
    out: list[Witness] = []
    for e in range(0, max(1, math.ceil(math.log2(max_length / rate)) + 1) + 1):  # one witness per binade of C
        binade = _Binade(c, 0, e)
        # ceil(fl(x)) != C  <=>  fl(x) > C, or fl(x) <= C - 1 (C - 1 drops a binade when C == 2**e)
        above = diff > binade.up * (z // _SCALE)
        below_up = z3.If(c == 2**e, _half_gap(e - 1), binade.up)
        below = z3.And(c >= 2, diff + z <= below_up * (z // _SCALE))
        s.push()
        s.add(binade.within, z3.Or(above, below))
        model = _minimize(s, length)
        s.pop()
        if model is None:
            continue
        n = _int_value(model, length)
        quotient = _fp_div(n, rate)
        exact_ceil = -((-n * den) // num)
        _confirm(_fp_ceil(quotient) != exact_ceil, f"ceil({n} / {rate}) is the exact {exact_ceil}")
        out.append({"rate": rate, "length": n, "quotient": quotient, "double_ceil": _fp_ceil(quotient),
                    "exact_ceil": exact_ceil})
    return out


class EdgeEncodingError(AssertionError):
    """A witness of the integer encoding that the FP theory does not confirm: the encoding is wrong."""


def _confirm(ok: bool, what: str) -> None:
    if not ok:
        raise EdgeEncodingError(what)


# ----------------------------------------------------------------------------- js-round-half

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
            empty.append(_decimal(d, CALIBRATION_STEP))
        else:
            witnesses.append(w)
    proofs = [f"calibration {c}: no raw in 1..{raw_max} lands on an even k + 0.5" for c in empty]
    witnesses += _per_block_witnesses(calibrations)
    lo, hi = _decimal(calibrations[0], CALIBRATION_STEP), _decimal(calibrations[-1], CALIBRATION_STEP)
    return _result("js-round-half", start, witnesses,
                   f"raw in 1..{raw_max}, calibration in {lo}..{hi} step 0.05; per-block: two blocks of raw 1..50",
                   proofs)


def _half_witness(d: int, den: int, raw_max: int) -> Witness | None:
    c = d / den
    eps = Fraction(d, den) - _exact(c)  # c = d/den - eps exactly
    s = z3.Solver()
    r, j, w = _ints("r", "j", "w")
    k2 = 4 * j + 1  # 2h, h = k + 1/2 with k = 2j even
    s.add(r >= 1, r <= raw_max, j >= 0, w == 2 * r * d - den * k2)
    # (x - h) * Z = w * Z / (2 den) - r * eps * Z, x = r * c
    z = math.lcm(2 * den, eps.denominator) * _SCALE
    diff = w * (z // (2 * den)) - r * int(eps * z)
    # Necessary first, free of binades: fl(x) == h needs |x - h| <= h 2**-53, i.e. k2 2**-54 (scaled).
    # Its smallest r bounds the exact one from below, and so does its binade.
    s.push()
    s.add(diff >= -k2 * (z >> 54), diff <= k2 * (z >> 54))
    relaxed = _minimize(s, r)
    s.pop()
    if relaxed is None:
        return None
    lowest = (_int_value(relaxed, k2) // 2).bit_length() - 1  # the binade of h = k2 / 2 (-1 for h = 0.5)
    for e in range(lowest, 16):  # the smallest r lies in the lowest binade of h that has one
        binade = _Binade(k2, 1, e)
        s.push()
        s.add(binade.within, diff >= -binade.down * (z // _SCALE), diff <= binade.up * (z // _SCALE))
        model = _minimize(s, r)
        s.pop()
        if model is None:
            continue
        raw = _int_value(model, r)
        product = _fp_mul(raw, c)
        js, py = _fp_js_round(product), _fp_python_round(product)
        _confirm(product % 1 == 0.5 and js == py + 1, f"{raw} * {c} = {product} is no even half")
        return {"kind": "exact-tie" if Fraction(raw) * _exact(c) == _exact(product) else "landing",
                "raw": raw, "calibration": c, "calibration_decimal": _decimal(d, den),
                "product": product, "js_round": js, "python_round": py}
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
        r1, r2, d = _ints("r1", "r2", "d")
        s.add(r1 >= 1, r1 <= r2, r2 <= raw_max, z3.Or(*(d == x for x in calibrations)))
        rounded = []
        for name, raw in (("a", r1), ("b", r2), ("sum", r1 + r2)):
            q, t, m, p = _ints(f"q_{name}", f"t_{name}", f"m_{name}", f"p_{name}")
            # p = 2 raw d; q = half-up rounding of raw * d / den; t = p mod 2 den, never den (a tie)
            s.add(p == 2 * raw * d, p + den >= den2 * q, p + den < den2 * (q + 1))
            s.add(p == den2 * m + t, t >= 0, t < den2, t != den)
            rounded.append(q)
        s.add(sign * (rounded[0] + rounded[1] - rounded[2]) >= 1)
        model = _minimize_lex(s, (r1 + r2, d))
        if model is None:
            continue
        a, b, c = _int_value(model, r1), _int_value(model, r2), _int_value(model, d) / den
        per_block = _fp_js_round(_fp_mul(a, c)) + _fp_js_round(_fp_mul(b, c))
        summed = _fp_js_round(_fp_mul(a + b, c))
        _confirm(sign * (per_block - summed) >= 1, f"{a}, {b} at {c}: {per_block} vs {summed}")
        out.append({"kind": kind, "raws": [a, b], "calibration": c,
                    "calibration_decimal": _decimal(_int_value(model, d), den), "per_block": per_block,
                    "summed": summed})
    return out


# ----------------------------------------------------------------------------- epoch-predicate

SIGNATURE_RATE = 3.3
THINKING_MAX = 100_000  # thinking text in units ('a': prose, so ceil(T / 2.9), exact up to 100000)
SIGNATURE_MAX = 20_000
EMPTY_REASONING_PRICE = 600
DEFAULT_GRACE_PERCENT = 2  # the default over_budget_grace_ratio, 0.02


def search_epoch_predicate() -> EdgeResult:
    """Thinking blocks whose price differs between pricing epochs 0 and 1, and the smallest stores where
    that turns a send at the exact budget into a refusal.

    A block is a Thinking of ``T`` prose units ('a') with a signature of ``S`` units (none when
    ``S == 0``), stamped or not (a stamp here is a finite number >= 0; a bad stamp is priced as
    absent, which is the unstamped rows). Z3 proves that a stamped or an unsigned block never
    differs, and finds the smallest signed ones that do, with empty text and with text.

    Any store whose price depends on the epoch holds such a signed block, so the smallest such store
    is one message holding one block: Z3 finds the smallest ``T + S`` (then ``T``) for which the
    store sends at its exact budget under one epoch (default grace 0.02) and refuses under the other,
    both ways, and the sound ``HierarchicalStrategy`` confirms the send and the refusal. Last, the
    same smallest block as a summary's carrier at epoch 0: ``main`` prices recall pairs through its
    fallback, which is always epoch 1, so it sends what the reference prices 600 tokens higher.
    """
    start = time.perf_counter()
    proofs = _epoch_prerequisites()
    witnesses: list[Witness] = []
    s, v = _epoch_block_solver()
    for label, extra in (("a stamped", v["stamped"]),
                         ("an unsigned", z3.And(z3.Not(v["stamped"]), v["S"] == 0))):
        s.push()
        s.add(extra, v["p0"] != v["p1"])
        _confirm(s.check() == z3.unsat, f"{label} thinking block's price depends on the epoch")
        s.pop()
        proofs.append(f"{label} thinking block prices the same at epochs 0 and 1 "
                      f"(T <= {THINKING_MAX}, S <= {SIGNATURE_MAX})")
    for kind, extra in (("signed-empty", v["T"] == 0), ("signed-text", v["T"] >= 1)):
        s.push()
        s.add(z3.Not(v["stamped"]), v["S"] >= 1, extra, v["p0"] != v["p1"])
        model = _minimize_lex(s, (v["T"] + v["S"], v["T"]))
        s.pop()
        _confirm(model is not None, f"no {kind} thinking block differs between the epochs")
        t, sig = _int_value(model, v["T"]), _int_value(model, v["S"])
        witnesses.append({"kind": kind, "thinking_units": t, "signature_units": sig,
                          "price_epoch0": _thinking_price(t, sig, 0), "price_epoch1": _thinking_price(t, sig, 1)})
    for budget_epoch in (1, 0):
        witnesses.append(_epoch_store_witness(s, v, budget_epoch))
    witnesses.append(_main_fallback_witness(witnesses[0]))
    return _result("epoch-predicate", start, witnesses,
                   f"one Thinking block: T in 0..{THINKING_MAX} prose units, S in 0..{SIGNATURE_MAX} signature "
                   "units, stamped or not; stores: one message of that block, default grace 0.02", proofs)


def _epoch_prerequisites() -> list[str]:
    """The exact integer forms the epoch search uses, each proved first: ``ceil(T / 2.9)``,
    ``js_round(S / 3.3)`` and the default grace limit ``floor(B * 1.02)`` equal their decimal readings."""
    _confirm(not _division_witnesses(2.9, 29, 10, THINKING_MAX), "ceil(T / 2.9) is not exact")
    _confirm(_signature_rounding_witness(SIGNATURE_MAX) is None, "js_round(S / 3.3) is not exact")
    _confirm(_grace_witness(DEFAULT_GRACE_PERCENT, 100, 2**31) is None, "floor(B * 1.02) is not exact")
    return [f"ceil(T / 2.9) is the exact ceil(10 T / 29) for T <= {THINKING_MAX}",
            f"js_round(S / 3.3) is the exact half-up rounding of 10 S / 33 for S <= {SIGNATURE_MAX}",
            "floor(B * (1 + 0.02)) is the exact floor(102 B / 100) for B <= 2**31"]


def _signature_rounding_witness(max_units: int) -> int | None:
    """The smallest ``S`` where ``js_round(S / 3.3)`` in doubles is not the half-up rounding of ``10 S / 33``."""
    inv = 1 / _exact(SIGNATURE_RATE)  # x = S * inv = 10 S / 33 + S * delta
    delta = inv - Fraction(10, 33)
    s = z3.Solver()
    sig, rounded, w = _ints("S", "R", "w")
    s.add(sig >= 0, sig <= max_units)
    s.add(66 * rounded <= 20 * sig + 33, 20 * sig + 33 < 66 * (rounded + 1))  # R = floor(10 S / 33 + 1/2)
    z = math.lcm(66, delta.denominator) * _SCALE
    # js_round(fl(x)) != R  <=>  fl(x) >= R + 1/2, or fl(x) < R - 1/2; v = K / 2 with K = 2R +- 1
    best = None
    for k2, up in ((2 * rounded + 1, True), (2 * rounded - 1, False)):
        for e in range(-1, math.ceil(math.log2(max_units / SIGNATURE_RATE)) + 2):
            binade = _Binade(k2, 1, e)
            s.push()
            s.add(w == 20 * sig - 33 * k2)
            diff = w * (z // 66) + sig * int(delta * z)  # (x - v) * z
            s.add(binade.within, diff >= -binade.down * (z // _SCALE) if up else diff < -binade.down * (z // _SCALE))
            model = _minimize(s, sig)
            s.pop()
            if model is not None:
                n = _int_value(model, sig)
                best = n if best is None else min(best, n)
    return best


def _thinking_price(t_units: int, s_units: int, epoch: int) -> int:
    """The raw price of ``Thinking('a' * T, 's' * S)`` at an epoch, in FP doubles (docs/model.md, The estimator)."""
    t = _fp_ceil(_fp_div(t_units, 2.9)) if t_units else 0
    if not s_units:
        return t
    if epoch == 0:
        return EMPTY_REASONING_PRICE if t_units == 0 else t
    return max(t, _fp_js_round(_fp_div(s_units, SIGNATURE_RATE)))


def _epoch_block_solver() -> tuple[z3.Solver, dict[str, Any]]:
    s = z3.Solver()
    stamped = z3.Bool("stamped")
    t_units, s_units, stamp, t, sr = _ints("T", "S", "stamp", "t", "sr")
    s.add(t_units >= 0, t_units <= THINKING_MAX, s_units >= 0, s_units <= SIGNATURE_MAX, stamp >= 0)
    s.add(29 * (t - 1) < 10 * t_units, 10 * t_units <= 29 * t)  # t = ceil(T / 2.9), exact (proved)
    s.add(66 * sr <= 20 * s_units + 33, 20 * s_units + 33 < 66 * (sr + 1))  # sr = js_round(S / 3.3) (proved)
    signed = s_units >= 1
    p1 = z3.If(stamped, stamp, z3.If(signed, z3.If(sr > t, sr, t), t))
    p0 = z3.If(stamped, stamp, z3.If(signed, z3.If(t_units == 0, EMPTY_REASONING_PRICE, t), t))
    return s, {"stamped": stamped, "T": t_units, "S": s_units, "p0": p0, "p1": p1}


def _minimize_lex(solver: z3.Solver, terms: Sequence[z3.ArithRef]) -> z3.ModelRef | None:
    """The model smallest in ``terms`` lexicographically, or None when unsat."""
    solver.push()
    model = None
    for term in terms:
        model = _minimize(solver, term)
        if model is None:
            break
        solver.add(term == _int_value(model, term))
    solver.pop()
    return model


def _epoch_store_witness(s: z3.Solver, v: dict[str, Any], budget_epoch: int) -> Witness:
    """The smallest one-block store that sends at its exact budget under ``budget_epoch`` and refuses
    at that budget under the other epoch (default grace: the limit is ``floor(102 B / 100)``)."""
    priced, other = (v["p1"], v["p0"]) if budget_epoch == 1 else (v["p0"], v["p1"])
    budget, limit = _ints("B", "limit")
    s.push()
    s.add(z3.Not(v["stamped"]))
    s.add(102 * budget >= 100 * priced, 102 * (budget - 1) < 100 * priced, budget >= 0)  # smallest B fitting
    s.add(100 * limit <= 102 * budget, 102 * budget < 100 * (limit + 1), other > limit)
    model = _minimize_lex(s, (v["T"] + v["S"], v["T"]))
    s.pop()
    _confirm(model is not None, "no store refuses after the epoch flips")
    t, sig, b = _int_value(model, v["T"]), _int_value(model, v["S"]), _int_value(model, budget)
    store = epoch_store(t, sig, budget_epoch)
    sends, refuses = _compile_outcome(store, Config(), Budget(max_tokens=b)), _compile_outcome(
        epoch_store(t, sig, 1 - budget_epoch), Config(), Budget(max_tokens=b))
    _confirm(sends == "sends" and refuses == "OverBudgetError",
             f"HierarchicalStrategy: epoch {budget_epoch} {sends}, flipped {refuses}")
    return {"kind": f"store-budget-at-epoch{budget_epoch}-refuses-at-epoch{1 - budget_epoch}",
            "thinking_units": t, "signature_units": sig, "budget": b,
            "grace_limit": b * (100 + DEFAULT_GRACE_PERCENT) // 100,
            "price_epoch0": _thinking_price(t, sig, 0), "price_epoch1": _thinking_price(t, sig, 1)}


def epoch_store(thinking_units: int, signature_units: int, epoch: int) -> Store:
    """One message holding ``Thinking('a' * T, signature='s' * S or None)``, at a pricing epoch."""
    block = Thinking("a" * thinking_units, "s" * signature_units or None)
    return Store(messages=(Message(id="m1", participant="Claude", content=(block,)),), pricing_epoch=epoch)


def _compile_outcome(store: Store, config: Config, budget: Budget, variant: str = "sound") -> str:
    """``"sends"`` or the name of the error the compile refuses with."""
    strategy = HierarchicalStrategy(config, variant)
    strategy.initialize(store)
    try:
        strategy.compile(budget, dry_run=True)
    except (OverBudgetError, UncoveredDropError, InvalidConfigError) as err:
        return type(err).__name__
    return "sends"


MAIN_FALLBACK_SUMMARY_TEXT = "The user asked about the weather."


def main_fallback_store(thinking_units: int, signature_units: int) -> Store:
    """An epoch-0 store whose one summary carries the signed block as reasoning (``tokens`` 1: the floor never wins)."""
    carriers = (Thinking("a" * thinking_units, "s" * signature_units or None), Text(MAIN_FALLBACK_SUMMARY_TEXT))
    summary = Summary(id="L1-0", level=1, content=MAIN_FALLBACK_SUMMARY_TEXT, tokens=1, source_level=0,
                      source_ids=("m1",), source_range=("m1", "m1"), response_content=carriers)
    return Store(messages=(Message(id="m1", participant="User", content=(Text("What is the weather?"),)),),
                 summaries=(summary,), pricing_epoch=0)


def _main_fallback_witness(block: Witness) -> Witness:
    """``main`` at its own exact budget sends a recall pair the reference prices over the grace limit."""
    store = main_fallback_store(block["thinking_units"], block["signature_units"])
    config = Config()
    unlimited = HierarchicalStrategy(config, "main-48bb87a1")
    unlimited.initialize(store)
    charged = unlimited.compile(Budget(max_tokens=math.inf), dry_run=True).stats.total.tokens
    budget = _exact_budget(charged, config)
    outcomes = {name: _compile_outcome(store, config, Budget(max_tokens=budget), name) for name in VARIANT_NAMES}
    strategy = HierarchicalStrategy(config, "main-48bb87a1")
    strategy.initialize(store)
    sent = strategy.compile(Budget(max_tokens=budget), dry_run=True)
    price = reference_price(sent.entries, store, config)
    _confirm(outcomes["main-48bb87a1"] == "sends" and price > grace_limit(budget, config),
             f"main's fallback: {outcomes}, reference price {price}")
    return {"kind": "main-fallback-prices-carriers-at-epoch1", "thinking_units": block["thinking_units"],
            "signature_units": block["signature_units"], "budget": budget,
            "grace_limit": grace_limit(budget, config), "main_charged": charged, "reference_price": price,
            "outcomes": outcomes}


# ----------------------------------------------------------------------------- grace-limit

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
        w = _grace_witness(d, 100, budget_max)
        if w is None:
            empty.append(_decimal(d, 100))
        else:
            witnesses.append(w)
    proofs = [f"grace {', '.join(empty)}: floor(B * (1 + g)) is exact for every B in 1..{budget_max}"] if empty else []
    return _result("grace-limit", start, witnesses,
                   f"B in 1..{budget_max}, g in 0.01..0.50 step 0.01 (as written, read as a double)", proofs)


def _grace_witness(d: int, den: int, budget_max: int) -> Witness | None:
    g = d / den
    c = 1 + g
    _confirm(_fp_add(1, _fp_div(d, den)) == c, f"1 + {g} differs in the FP theory")
    eps = Fraction(den + d, den) - _exact(c)  # x = B * c = B (den + d) / den - B eps
    s = z3.Solver()
    budget, n, w = _ints("B", "N", "w")  # B (den + d) = den N + w: N is the exact limit
    s.add(budget >= 1, budget <= budget_max, budget * (den + d) == den * n + w, w >= 0, w < den)
    z = math.lcm(den, eps.denominator) * _SCALE
    diff = w * (z // den) - budget * int(eps * z)  # (x - N) * z
    # Necessary first, free of binades: the double limit is below N only when x < N - d(N), with
    # d(N) > N 2**-55; it reaches N + 1 only when x >= N + 1 - d(N + 1), with d(N + 1) <= (N + 1) 2**-53.
    # Most ratios fail both in one check each; the rest are searched binade by binade, exactly.
    directions = [(direction, exact) for direction, necessary, exact in (
        ("refuses-a-total-expected-to-pass", diff < -n * (z >> 55),
         lambda bn: diff < -bn.down * (z // _SCALE)),
        ("passes-a-total-expected-to-refuse", diff >= z - (n + 1) * (z >> 53),
         lambda bn: diff >= z - bn.down * (z // _SCALE))) if _satisfiable(s, necessary)]
    best: tuple[int, str] | None = None
    for e in range(0, math.ceil(math.log2(budget_max * c)) + 2):
        for direction, exact in directions:
            binade = _Binade(n if direction.startswith("refuses") else n + 1, 0, e)
            s.push()
            s.add(binade.within, exact(binade))
            if best is not None:
                s.add(budget < best[0])
            model = _minimize(s, budget)
            s.pop()
            if model is not None:
                best = (_int_value(model, budget), direction)
    if best is None:
        return None
    b, direction = best
    product, exact = _fp_mul(b, c), b * (den + d) // den
    _confirm(_fp_floor(product) != exact, f"floor({b} * {c}) is the exact {exact}")
    return {"grace": g, "grace_decimal": _decimal(d, den), "budget": b, "product": product,
            "double_limit": _fp_floor(product), "exact_limit": exact, "direction": direction}


# ----------------------------------------------------------------------------- cap-units

CAP_MAX = 10_000
PROSE_MAX = 100_000  # lengths where ceil(L / 2.9) is exact (proved by ieee-division)
MARKER_FIXED = len("\n\n[truncated — original was ") + len(" tokens]")  # plus the digits of N (all BMP)
XML_HALF_CAP_MAX = 400  # xml caps 0.5 .. 200 in halves
XML_LENGTH_MAX = 4_000
SEPARATOR_TOKENS = 2  # text_only of "\n\n---\n\n"


def search_cap_units(cap_max: int = CAP_MAX) -> EdgeResult:
    """Caps where the cap's chars/4 arithmetic and the estimator disagree at a boundary.

    Raw messages (one prose Text of ``L`` units, integer cap ``c``): the faithful price
    ``min(E, c + 50)`` below ``E`` of what ``truncate`` sends, the smallest cap where the marker alone
    does it (``E <= c + 50``), and the smallest where ``c + 50`` binds. The xml combined answer (two
    prose summaries, caps in halves): the smallest caps where the second summary is left out exactly at
    ``remaining - sep == 0``, and admitted at ``remaining - sep == 1`` (an integer cap) and ``== 0.5``.
    Each is confirmed by ``strategies.cap.truncate`` / ``strategies.recall.combined_answer``.
    """
    start = time.perf_counter()
    _confirm(not _division_witnesses(2.9, 29, 10, PROSE_MAX), "ceil(L / 2.9) is not exact")
    witnesses = [_raw_cap_witness(kind, cap_max) for kind in ("marker", "cap-plus-50")]
    witnesses += [_xml_witness(kind) for kind in ("xml-drop-at-boundary", "xml-admit-at-boundary",
                                                  "xml-admit-at-half")]
    return _result("cap-units", start, witnesses,
                   f"raw: one prose Text, L in 1..{PROSE_MAX}, integer cap 1..{cap_max}; xml: two prose summaries "
                   f"of 1..{XML_LENGTH_MAX} units, cap 0.5..{XML_HALF_CAP_MAX // 2} in halves",
                   [f"ceil(L / 2.9) is exact for L <= {PROSE_MAX}"])


def _digits(s: z3.Solver, n: z3.ArithRef, name: str) -> z3.ArithRef:
    """The number of decimal digits of ``n`` (1 <= n < 10**6)."""
    digits: z3.ArithRef = z3.IntVal(6)
    for k in range(5, 0, -1):
        digits = z3.If(n < 10**k, k, digits)
    named = z3.Int(name)
    s.add(named == digits)
    return named


def _ceil_div(s: z3.Solver, numerator: z3.ArithRef, divisor: int, name: str, scale: int = 1) -> z3.ArithRef:
    """``ceil(numerator * scale / divisor)`` as a new integer variable."""
    q = z3.Int(name)
    s.add(divisor * (q - 1) < scale * numerator, scale * numerator <= divisor * q)
    return q


def _raw_cap_witness(kind: str, cap_max: int) -> Witness:
    s = z3.Solver()
    cap, length = _ints("cap", "L")
    s.add(cap >= 1, cap <= cap_max, length >= 1, length <= PROSE_MAX)
    n = _ceil_div(s, length, 4, "N")  # the marker's "original was N tokens", and text_only of the message
    s.add(n > cap)  # the cap cuts
    sent_length = 4 * cap + MARKER_FIXED + _digits(s, n, "digits")
    original = _ceil_div(s, length, 29, "E_original", 10)
    sent = _ceil_div(s, sent_length, 29, "E_sent", 10)  # prose: the marker's 3 dense units are < 12%
    if kind == "marker":
        s.add(original <= cap + 50, original < sent)
    else:
        s.add(original > cap + 50, cap + 50 < sent)
    model = _minimize_lex(s, (length, cap))  # the smallest store, then the smallest cap
    _confirm(model is not None, f"no {kind} cap")
    c, size = _int_value(model, cap), _int_value(model, length)
    store, config = raw_cap_store(size), Config(max_message_tokens=c)
    content = store.messages[0].content
    e_original, e_sent = content_tokens(content, store), content_tokens(truncate(content, c), store)
    faithful = min(e_original, c + 50)
    _confirm(faithful < e_sent and e_sent == _int_value(model, sent), f"cap {c}, L {size}: {faithful} vs {e_sent}")
    budget = _exact_budget(faithful, config)
    outcomes = {name: _compile_outcome(store, config, Budget(max_tokens=budget), name) for name in VARIANT_NAMES}
    _confirm(outcomes["pr-8bb01ab8"] == "sends" and outcomes["sound"] == "OverBudgetError", f"{kind}: {outcomes}")
    return {"kind": kind, "cap": c, "length": size, "original_tokens": e_original, "faithful_price": faithful,
            "sent_tokens": e_sent, "budget": budget, "grace_limit": grace_limit(budget, config),
            "outcomes": outcomes}


def raw_cap_store(length: int) -> Store:
    """One message holding one prose Text of ``length`` units."""
    return Store(messages=(Message(id="m1", participant="User", content=(Text("a" * length),)),))


def _exact_budget(price: int, config: Config) -> int:
    """The smallest integer input budget whose grace limit admits ``price`` (docs/model.md, Invariants)."""
    b = max(0, math.floor(price / (1 + config.over_budget_grace_ratio)) - 2)
    while grace_limit(b, config) < price:
        b += 1
    return b


def _xml_witness(kind: str) -> Witness:
    s = z3.Solver()
    half_cap, l1, l2 = _ints("C", "L1", "L2")  # cap = C / 2
    s.add(half_cap >= 1, half_cap <= XML_HALF_CAP_MAX, l1 >= 1, l1 <= XML_LENGTH_MAX, l2 >= 1, l2 <= XML_LENGTH_MAX)
    n1 = _ceil_div(s, l1, 4, "N1")
    fits = 2 * n1 <= half_cap  # text_only(prose) <= cap: sent whole
    cut = _ceil_div(s, 2 * half_cap + MARKER_FIXED + _digits(s, n1, "digits1"), 4, "cut1")  # floor(4 cap) = 2C
    taken = z3.If(fits, n1, cut)  # text_only of the first summary as capped
    twice_left = half_cap - 2 * taken - 2 * SEPARATOR_TOKENS  # 2 * (remaining - sep) at the second summary
    s.add(twice_left == {"xml-drop-at-boundary": 0, "xml-admit-at-boundary": 2, "xml-admit-at-half": 1}[kind])
    if kind == "xml-admit-at-boundary":
        s.add(half_cap % 2 == 0)
    model = _minimize_lex(s, (half_cap, l1, l2))
    _confirm(model is not None, f"no {kind} cap")
    cap = _int_value(model, half_cap) / 2
    cap = int(cap) if cap == int(cap) else cap
    lengths = [_int_value(model, l1), _int_value(model, l2)]
    summaries = xml_summaries(lengths)
    answer = combined_answer(summaries, Config(recall_envelope="xml", max_message_tokens=cap))
    held = [x.id for x in answer.held]
    _confirm(held == (["L1-0"] if kind == "xml-drop-at-boundary" else ["L1-0", "L1-1"]), f"{kind}: held {held}")
    left = Fraction(_int_value(model, twice_left), 2)
    return {"kind": kind, "cap": cap, "lengths": lengths, "first_takes": _int_value(model, taken),
            "left_for_second": int(left) if left.denominator == 1 else float(left), "held": held}


def xml_summaries(lengths: Sequence[int]) -> tuple[Summary, ...]:
    """Prose summaries ``L1-k`` of ``lengths[k]`` units, each over two messages ``m{2k+1}``, ``m{2k+2}``."""
    out = []
    for k, size in enumerate(lengths):
        ids = (f"m{2 * k + 1}", f"m{2 * k + 2}")
        out.append(Summary(id=f"L1-{k}", level=1, content="a" * size, tokens=1, source_level=0, source_ids=ids,
                           source_range=ids))
    return tuple(out)


# ----------------------------------------------------------------------------- density-threshold

DENSITY_PROBE = 2000
DENSITY_THRESHOLD = 0.12
DENSITY_LENGTH_MAX = 100_000


def search_density_threshold() -> EdgeResult:
    """Strings at the 12% density threshold and the 2,000-unit probe.

    First Z3 proves that ``dense / n > 0.12`` in doubles is the exact ``25 dense > 3 n`` for every
    ``n <= 2000`` (by the rounding lemma: ``fl(d / n) > fl(0.12)`` iff ``d / n`` is past the midpoint
    between ``fl(0.12)`` and the next double). Then, over strings ``'{' * D + 'a' * (P - D)`` (the
    probe, ``P = min(L, 2000)``) followed by ``'{' * X + 'a' * (L - P - X)``: the smallest string
    exactly at 12% (one more dense unit switches the rate), the probe's own edge at ``L = 2000``, and
    the smallest strings longer than the probe where the whole string is dense but the probe is not,
    and the reverse. Token counts are computed in the FP theory and confirmed by ``text_tokens``.
    """
    start = time.perf_counter()
    _confirm(_density_comparison_exact(DENSITY_PROBE), "dense / n > 0.12 is not exact")
    proofs = [f"dense / n > 0.12 in doubles is exactly 25 dense > 3 n for every n in 1..{DENSITY_PROBE}"]
    s = z3.Solver()
    length, dense, tail_dense, probe = _ints("L", "D", "X", "P")
    s.add(length >= 1, length <= DENSITY_LENGTH_MAX, probe == z3.If(length < DENSITY_PROBE, length, DENSITY_PROBE))
    s.add(dense >= 0, dense <= probe, tail_dense >= 0, tail_dense <= length - probe)
    probe_dense = 25 * dense > 3 * probe
    whole_dense = 25 * (dense + tail_dense) > 3 * length
    searches = (
        ("exact-threshold", [25 * dense == 3 * probe, tail_dense == 0, length <= DENSITY_PROBE], (length,)),
        ("probe-edge", [length == DENSITY_PROBE, z3.Not(probe_dense)], (-dense,)),
        ("past-probe-dense-uncounted", [length > DENSITY_PROBE, z3.Not(probe_dense), whole_dense],
         (length, tail_dense, -dense)),
        ("probe-dense-whole-sparse", [length > DENSITY_PROBE, probe_dense, z3.Not(whole_dense)],
         (length, dense, tail_dense)),
    )
    witnesses = []
    for kind, constraints, order in searches:
        s.push()
        s.add(*constraints)
        model = _minimize_lex(s, order)
        s.pop()
        _confirm(model is not None, f"no {kind} string")
        size, d, x = (_int_value(model, t) for t in (length, dense, tail_dense))
        witnesses.append(_density_record(kind, size, d, x))
    return _result("density-threshold", start, witnesses,
                   f"strings of 1..{DENSITY_LENGTH_MAX} units: D dense in the probe, X dense after it", proofs)


def _density_comparison_exact(probe: int) -> bool:
    """Z3: no ``n <= probe``, ``d <= n`` has ``fl(d / n) > fl(0.12)`` differ from ``25 d > 3 n``."""
    c = _exact(DENSITY_THRESHOLD)
    succ = _exact(math.nextafter(DENSITY_THRESHOLD, 1))
    mid = (c + succ) / 2
    succ_is_even = (succ / (succ - c)).numerator % 2 == 0  # succ / ulp is its integer mantissa
    s = z3.Solver()
    n, d = _ints("n", "d")
    s.add(n >= 1, n <= probe, d >= 0, d <= n)
    past = d * mid.denominator >= n * mid.numerator if succ_is_even else d * mid.denominator > n * mid.numerator
    s.add(past != (25 * d > 3 * n))
    return s.check() == z3.unsat


def density_string(length: int, probe_dense: int, tail_dense: int) -> str:
    """``'{' * D + 'a' * (P - D)`` for the probe ``P = min(L, 2000)``, then ``'{' * X`` and ``'a'`` to ``L``."""
    probe = min(length, DENSITY_PROBE)
    return ("{" * probe_dense + "a" * (probe - probe_dense) + "{" * tail_dense
            + "a" * (length - probe - tail_dense))


def _density_tokens(length: int, dense: int, counted: int) -> tuple[float, int]:
    rate = 2.3 if _fp_div(dense, counted) > DENSITY_THRESHOLD else 2.9
    return rate, _fp_ceil(_fp_div(length, rate))


def _density_record(kind: str, length: int, dense: int, tail_dense: int) -> Witness:
    probe = min(length, DENSITY_PROBE)
    rate, tokens = _density_tokens(length, dense, probe)
    _confirm(text_tokens(density_string(length, dense, tail_dense)) == tokens, f"{kind}: text_tokens")
    record: Witness = {"kind": kind, "length": length, "probe_dense": dense, "tail_dense": tail_dense,
                       "rate": rate, "tokens": tokens}
    if kind in ("exact-threshold", "probe-edge"):  # one more dense unit in the probe
        record["tokens_one_more_dense"] = _density_tokens(length, dense + 1, probe)[1]
    else:  # were the whole string probed
        record["tokens_if_whole_probed"] = _density_tokens(length, dense + tail_dense, length)[1]
    return record


# ----------------------------------------------------------------------------- all searches and the corpus

SEARCHES: dict[str, Callable[[], EdgeResult]] = {
    "ieee-division": search_ieee_division,
    "js-round-half": search_js_round_half,
    "epoch-predicate": search_epoch_predicate,
    "grace-limit": search_grace_limit,
    "cap-units": search_cap_units,
    "density-threshold": search_density_threshold,
}
EDGES: tuple[str, ...] = tuple(SEARCHES)


def run_edges(only: Iterable[str] | None = None) -> list[EdgeResult]:
    """Run the searches (every edge, or those named), in ``EDGES`` order."""
    names = EDGES if only is None else tuple(only)
    unknown = [n for n in names if n not in SEARCHES]
    if unknown:
        raise ValueError(f"unknown edge {unknown[0]!r}; known: {', '.join(EDGES)}")
    return [SEARCHES[n]() for n in EDGES if n in names]


def corpus_json(results: Iterable[EdgeResult], base: dict[str, Any] | None = None) -> dict[str, Any]:
    """The corpus with these results' entries (over ``base``'s other edges, if given)."""
    edges = dict(base["edges"]) if base is not None else {}
    for r in results:
        edges[r.edge] = r.corpus_entry()
    return {"version": CORPUS_VERSION, "generated_by": "cmharness edges --write",
            "edges": {name: edges[name] for name in EDGES if name in edges}}


def load_corpus(path: Path | str | None = None) -> dict[str, Any]:
    """The witness corpus (default ``CORPUS_PATH``), refusing a version this code does not read."""
    path = CORPUS_PATH if path is None else path
    with open(path, encoding="utf-8") as fh:
        corpus = json.load(fh)
    if corpus.get("version") != CORPUS_VERSION:
        raise ValueError(f"{path}: witness corpus version {corpus.get('version')!r}, expected {CORPUS_VERSION}")
    return corpus


def write_corpus(results: Iterable[EdgeResult], path: Path | str | None = None) -> dict[str, Any]:
    """Write the results into the corpus (default ``CORPUS_PATH``), keeping the entries of edges not
    rerun; returns what was written."""
    path = CORPUS_PATH if path is None else path
    base = load_corpus(path) if Path(path).exists() else None
    corpus = corpus_json(results, base)
    Path(path).write_text(format_corpus(corpus), encoding="utf-8")
    return corpus


def format_corpus(corpus: dict[str, Any]) -> str:
    """The corpus as JSON text, one witness record a line (so that a diff shows what changed)."""

    def dumps(x: Any) -> str:
        return json.dumps(x, ensure_ascii=False)

    def block(items: Sequence[Any], indent: str) -> str:
        return ",\n".join(indent + dumps(x) for x in items)

    edges = []
    for name, entry in corpus["edges"].items():
        edges.append(f'  {dumps(name)}: {{\n   "status": {dumps(entry["status"])},\n'
                     f'   "range_searched": {dumps(entry["range_searched"])},\n'
                     f'   "proofs": [\n{block(entry["proofs"], "    ")}\n   ],\n'
                     f'   "witnesses": [\n{block(entry["witnesses"], "    ")}\n   ]\n  }}')
    return (f'{{\n "version": {dumps(corpus["version"])},\n "generated_by": {dumps(corpus["generated_by"])},\n'
            f' "edges": {{\n' + ",\n".join(edges) + "\n }\n}\n")


# ----------------------------------------------------------------------------- witnesses as scenarios


def prose_with_tokens(tokens: int) -> str:
    """The shortest prose text (``'a' * L``) that ``text_tokens`` prices at ``tokens``."""
    size = max(0, math.floor(2.9 * (tokens - 1)) - 1)
    while text_tokens("a" * size) < tokens:
        size += 1
    return "a" * size


def _one_message(*content: Any, **store_fields: Any) -> Store:
    return Store(messages=(Message(id="m1", participant="User", content=tuple(content)),), **store_fields)


NO_GRACE = Config(over_budget_grace_ratio=0.0)


def _ieee_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    return [(f"ieee-division/ceil({w['length']}/{w['rate']})", _one_message(Text("{" * w["length"])), NO_GRACE,
             Budget(max_tokens=w["double_ceil"])) for w in ws[:3]]


def _js_round_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    out: list[Scenario] = []
    halves = [w for w in ws if w["kind"] in ("landing", "exact-tie")]
    picks = [w for w in halves if w["kind"] == "landing"][:2] + [w for w in halves if w["kind"] == "exact-tie"][:1]
    for w in picks:
        store = _one_message(Text(prose_with_tokens(w["raw"])), calibration=w["calibration"])
        out.append((f"js-round-half/{w['raw']}*{w['calibration_decimal']}", store, NO_GRACE,
                    Budget(max_tokens=w["js_round"])))
    for w in ws:
        if w["kind"].startswith("per-block"):
            texts = tuple(Text(prose_with_tokens(r)) for r in w["raws"])
            # m1's tool_use is answered by m2's result, so the context is well formed (its price is added).
            use = ToolUse("tool-1", "read", {})
            store = Store(messages=(Message(id="m1", participant="User", content=(*texts, use)),
                                    Message(id="m2", participant="User", content=(ToolResult("tool-1", texts),))),
                          calibration=w["calibration"])
            out.append((f"js-round-half/{w['kind']}", store, NO_GRACE,
                        Budget(max_tokens=w["per_block"] + w["summed"] + content_tokens((use,), store))))
    return out


def _epoch_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    out: list[Scenario] = []
    for w in ws:
        t, sig = w["thinking_units"], w["signature_units"]
        if w["kind"].startswith("store-budget-at-epoch"):
            epoch = 1 if w["kind"].startswith("store-budget-at-epoch1") else 0
            for e, outcome in ((epoch, "sends"), (1 - epoch, "refuses")):
                out.append((f"epoch-predicate/{w['kind']}/epoch{e}-{outcome}", epoch_store(t, sig, e), Config(),
                            Budget(max_tokens=w["budget"])))
        elif w["kind"] == "main-fallback-prices-carriers-at-epoch1":
            out.append((f"epoch-predicate/{w['kind']}", main_fallback_store(t, sig), Config(),
                        Budget(max_tokens=w["budget"])))
    return out


def _grace_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    picks = sorted(ws, key=lambda w: w["budget"])[:2]
    return [(f"grace-limit/B={w['budget']},g={w['grace_decimal']}",
             _one_message(Text(prose_with_tokens(w["exact_limit"]))),
             Config(over_budget_grace_ratio=w["grace"]), Budget(max_tokens=w["budget"])) for w in picks]


def xml_store(lengths: Sequence[int]) -> Store:
    """Two messages per summary of ``xml_summaries(lengths)``."""
    messages = tuple(Message(id=f"m{i + 1}", participant="User", content=(Text(f"message {i + 1}"),))
                     for i in range(2 * len(lengths)))
    return Store(messages=messages, summaries=xml_summaries(lengths))


def _cap_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    out: list[Scenario] = []
    for w in ws:
        if w["kind"].startswith("xml-"):
            config = Config(positioned_recall_pairs=False, recall_envelope="xml", max_message_tokens=w["cap"])
            out.append((f"cap-units/{w['kind']}", xml_store(w["lengths"]), config, Budget(max_tokens=100_000)))
        else:
            out.append((f"cap-units/{w['kind']}", raw_cap_store(w["length"]), Config(max_message_tokens=w["cap"]),
                        Budget(max_tokens=w["budget"])))
    return out


def _density_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    return [(f"density-threshold/{w['kind']}",
             _one_message(Text(density_string(w["length"], w["probe_dense"], w["tail_dense"]))), NO_GRACE,
             Budget(max_tokens=w["tokens"])) for w in ws]


SCENARIO_BUILDERS: dict[str, Callable[[Sequence[Witness]], list[Scenario]]] = {
    "ieee-division": _ieee_scenarios,
    "js-round-half": _js_round_scenarios,
    "epoch-predicate": _epoch_scenarios,
    "grace-limit": _grace_scenarios,
    "cap-units": _cap_scenarios,
    "density-threshold": _density_scenarios,
}


def witness_scenarios(corpus: dict[str, Any] | None = None) -> list[Scenario]:
    """Every corpus witness that makes a compile case, as ``(name, store, config, budget)``.

    Read from ``invariants/witnesses.json`` (no search runs). Budgets sit on the witness's edge:
    the exact budget of what is sent, or where a faithful variant sends what the reference prices
    over the grace limit (``cap-units/*``, ``epoch-predicate/main-fallback-*``).
    """
    corpus = load_corpus() if corpus is None else corpus
    out: list[Scenario] = []
    for edge, build in SCENARIO_BUILDERS.items():
        entry = corpus["edges"].get(edge)
        if entry is not None:
            out += build(entry["witnesses"])
    return out


# ----------------------------------------------------------------------------- the `cmharness edges` command


def _short(edge: str, w: Witness) -> str:
    match edge:
        case "ieee-division":
            return f"ceil({w['length']} / {w['rate']}) = {w['double_ceil']}, exact {w['exact_ceil']}"
        case "js-round-half":
            return (f"{w['raw']} * {w['calibration_decimal']} = {w['product']!r}: "
                    f"js {w['js_round']}, python {w['python_round']}")
        case "epoch-predicate":
            return (f"Thinking({w['thinking_units']} units, signature {w['signature_units']}): "
                    f"epoch 0 {w['price_epoch0']}, epoch 1 {w['price_epoch1']}")
        case "grace-limit":
            return f"B {w['budget']}, g {w['grace_decimal']}: limit {w['double_limit']}, exact {w['exact_limit']}"
        case "cap-units":
            return (f"cap {w['cap']}, {w['length']} units: priced {w['faithful_price']}, sends {w['sent_tokens']}"
                    if "length" in w else f"{w['kind']} cap {w['cap']}")
        case "density-threshold":
            return f"{w['length']} units, {w['probe_dense']} dense: rate {w['rate']}, {w['tokens']} tokens"
    return json.dumps(w)[:60]


def edge_table(results: Sequence[EdgeResult]) -> list[str]:
    """The ``edges`` report: edge, found / proved empty, a short witness, seconds."""
    rows = [[r.edge, "found" if r.status == "found" else "proved empty",
             f"{_short(r.edge, r.witnesses[0])} (+{len(r.witnesses) - 1})" if r.witnesses else r.range_searched,
             f"{r.seconds:.2f}"] for r in results]
    headers = ["edge", "result", "witness", "seconds"]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if i == 3 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths,
                                                                                           strict=True))).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(row) for row in rows)]


def add_edges_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--write", action="store_true", help=f"rewrite the witness corpus ({CORPUS_PATH.name})")
    parser.add_argument("--only", choices=EDGES, metavar="EDGE", action="append",
                        help=f"run only this edge (repeatable): {', '.join(EDGES)}")


def edges_command(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    """``cmharness edges [--write] [--only EDGE]``: run the searches, print the table, maybe write the corpus."""
    out = stdout if stdout is not None else sys.stdout
    results = run_edges(args.only)
    out.write("\n".join(edge_table(results)) + "\n")
    if args.write:
        write_corpus(results)
        out.write(f"wrote {len(results)} edge(s) to {CORPUS_PATH}\n")
    else:
        stored = load_corpus()["edges"] if CORPUS_PATH.exists() else {}
        stale = [r.edge for r in results if stored.get(r.edge) != r.corpus_entry()]
        out.write(f"{CORPUS_PATH.name}: " + (f"differs for {', '.join(stale)} (rewrite with --write)\n"
                                             if stale else "matches\n"))
    return 0
