"""The density-threshold edge: strings at the 12% density threshold and the 2,000-unit probe, where one
dense unit, or where the probe ends, switches the estimator's rate."""

from __future__ import annotations

import math
import time

import z3

from invariants.edges.ieee import exact_fraction, fp_ceil, fp_div
from invariants.edges.results import EdgeResult, Witness, confirm, edge_result
from invariants.edges.solver import int_value, ints, minimize_lex
from reference.estimator import text_tokens

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
    confirm(_density_comparison_exact(DENSITY_PROBE), "dense / n > 0.12 is not exact")
    proofs = [f"dense / n > 0.12 in doubles is exactly 25 dense > 3 n for every n in 1..{DENSITY_PROBE}"]
    s = z3.Solver()
    length, dense, tail_dense, probe = ints("L", "D", "X", "P")
    s.add(length >= 1, length <= DENSITY_LENGTH_MAX, probe == z3.If(length < DENSITY_PROBE, length, DENSITY_PROBE))
    s.add(dense >= 0, dense <= probe, tail_dense >= 0, tail_dense <= length - probe)
    probe_dense = 25 * dense > 3 * probe
    whole_dense = 25 * (dense + tail_dense) > 3 * length
    searches = (
        ("exact-threshold", [25 * dense == 3 * probe, tail_dense == 0, length <= DENSITY_PROBE], (length,)),
        ("probe-edge", [length == DENSITY_PROBE, z3.Not(probe_dense)], (-dense,)),
        (
            "past-probe-dense-uncounted",
            [length > DENSITY_PROBE, z3.Not(probe_dense), whole_dense],
            (length, tail_dense, -dense),
        ),
        (
            "probe-dense-whole-sparse",
            [length > DENSITY_PROBE, probe_dense, z3.Not(whole_dense)],
            (length, dense, tail_dense),
        ),
    )
    witnesses = []
    for kind, constraints, order in searches:
        s.push()
        s.add(*constraints)
        model = minimize_lex(s, order)
        s.pop()
        confirm(model is not None, f"no {kind} string")
        size, d, x = (int_value(model, t) for t in (length, dense, tail_dense))
        witnesses.append(_density_record(kind, size, d, x))
    return edge_result(
        "density-threshold",
        start,
        witnesses,
        f"strings of 1..{DENSITY_LENGTH_MAX} units: D dense in the probe, X dense after it",
        proofs,
    )


def _density_comparison_exact(probe: int) -> bool:
    """Z3: no ``n <= probe``, ``d <= n`` has ``fl(d / n) > fl(0.12)`` differ from ``25 d > 3 n``."""
    c = exact_fraction(DENSITY_THRESHOLD)
    succ = exact_fraction(math.nextafter(DENSITY_THRESHOLD, 1))
    mid = (c + succ) / 2
    succ_is_even = (succ / (succ - c)).numerator % 2 == 0  # succ / ulp is its integer mantissa
    s = z3.Solver()
    n, d = ints("n", "d")
    s.add(n >= 1, n <= probe, d >= 0, d <= n)
    past = d * mid.denominator >= n * mid.numerator if succ_is_even else d * mid.denominator > n * mid.numerator
    s.add(past != (25 * d > 3 * n))
    return s.check() == z3.unsat


def density_string(length: int, probe_dense: int, tail_dense: int) -> str:
    """``'{' * D + 'a' * (P - D)`` for the probe ``P = min(L, 2000)``, then ``'{' * X`` and ``'a'`` to ``L``."""
    probe = min(length, DENSITY_PROBE)
    return "{" * probe_dense + "a" * (probe - probe_dense) + "{" * tail_dense + "a" * (length - probe - tail_dense)


def _density_tokens(length: int, dense: int, counted: int) -> tuple[float, int]:
    rate = 2.3 if fp_div(dense, counted) > DENSITY_THRESHOLD else 2.9
    return rate, fp_ceil(fp_div(length, rate))


def _density_record(kind: str, length: int, dense: int, tail_dense: int) -> Witness:
    probe = min(length, DENSITY_PROBE)
    rate, tokens = _density_tokens(length, dense, probe)
    confirm(text_tokens(density_string(length, dense, tail_dense)) == tokens, f"{kind}: text_tokens")
    record: Witness = {
        "kind": kind,
        "length": length,
        "probe_dense": dense,
        "tail_dense": tail_dense,
        "rate": rate,
        "tokens": tokens,
    }
    if kind in ("exact-threshold", "probe-edge"):  # one more dense unit in the probe
        record["tokens_one_more_dense"] = _density_tokens(length, dense + 1, probe)[1]
    else:  # were the whole string probed
        record["tokens_if_whole_probed"] = _density_tokens(length, dense + tail_dense, length)[1]
    return record
