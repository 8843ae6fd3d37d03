"""IEEE doubles for the edge searches: round-to-nearest-even as exact integer arithmetic (``Binade``), and
the same doubles computed in Z3's floating-point theory (``fp_*``) to cross-check every witness.

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

``u`` and ``d`` depend on ``v``'s binade, so the searches go binade by binade (``Binade``), after
one binade-free check of a necessary condition where that prunes most of the range. A double
constant (``2.3``, ``fl(d / 100)``, ``fl(1 + g)``) enters as its exact dyadic value
(``Fraction(float)``). Where a decimal the operator wrote matters, the product or quotient is split
into the decimal's exact value plus the tiny representation error, with the decimal part's distance
from the boundary named as an integer variable (``w``): the same constraint, but Z3 then sees at
once that only exact decimal ties can be affected (without it, proving calibration 1.2 free of
halves takes 75 s instead of milliseconds).

Every witness's doubles are then computed again in Z3's floating-point theory proper (``fp_value``
evaluates ``fpDiv`` / ``fpMul`` / ``fpRoundToIntegral`` in ``FPSort(11, 53)``), so the integer encoding
is cross-checked on every answer. (An FP-theory proof that no ``ceil(L / 2.3)`` witness lies below
the smallest found takes 1 to 6 s from run to run, so it is not part of the search;
``tests/test_edges.py`` checks the witnesses, and the emptiness of rate 2.9, exhaustively in plain
Python instead.)
"""

from __future__ import annotations

import math
from fractions import Fraction

import z3

#: Half-gaps between doubles are scaled by 2**SCALE_BITS so that they are integers (for values >= 2**-8).
SCALE_BITS = 64
SCALE = 2**SCALE_BITS
F64 = z3.Float64()


def half_gap(e: int) -> int:
    """Half an ulp of a double in ``[2**e, 2**(e + 1))``, scaled."""
    return 2 ** (e - 53 + SCALE_BITS)


class Binade:
    """``v = K / 2**f`` (``K`` an integer term) in ``[2**e, 2**(e + 1))``, and its half-gaps there (scaled):
    ``up`` to the next double, ``down`` to the previous one (half as wide at ``v == 2**e``)."""

    def __init__(self, k: z3.ArithRef, f: int, e: int) -> None:
        assert e + f <= 50, "v must keep an even last mantissa bit"
        lo = 2 ** (e + f)
        self.within = z3.And(k >= lo, k < 2 * lo)
        self.up = half_gap(e)
        self.down = z3.If(k == lo, self.up // 2, self.up)


def exact_fraction(x: float) -> Fraction:
    return Fraction(x)


def fp_value(expr: z3.FPRef) -> float:
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


def fp(x: float | int) -> z3.FPRef:
    return z3.FPVal(float(x), F64)


def fp_div(a: float | int, b: float | int) -> float:
    return fp_value(z3.fpDiv(z3.RNE(), fp(a), fp(b)))


def fp_mul(a: float | int, b: float | int) -> float:
    return fp_value(z3.fpMul(z3.RNE(), fp(a), fp(b)))


def fp_add(a: float | int, b: float | int) -> float:
    return fp_value(z3.fpAdd(z3.RNE(), fp(a), fp(b)))


def fp_ceil(x: float) -> int:
    return int(fp_value(z3.fpRoundToIntegral(z3.RTP(), fp(x))))


def fp_floor(x: float) -> int:
    return int(fp_value(z3.fpRoundToIntegral(z3.RTN(), fp(x))))


def fp_js_round(x: float) -> int:
    """``Math.round`` in the FP theory: floor, plus one when ``x - floor(x) >= 0.5`` (that difference is exact)."""
    f = z3.fpRoundToIntegral(z3.RTN(), fp(x))
    up = z3.fpGEQ(z3.fpSub(z3.RNE(), fp(x), f), fp(0.5))
    return int(fp_value(z3.If(up, z3.fpAdd(z3.RNE(), f, fp(1)), f)))


def fp_python_round(x: float) -> int:
    """Python's ``round``: to the nearest integer, ties to even."""
    return int(fp_value(z3.fpRoundToIntegral(z3.RNE(), fp(x))))
