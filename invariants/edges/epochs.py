"""The epoch-predicate edge: thinking blocks priced differently at pricing epochs 0 and 1, the smallest
stores that flip a send into a refusal, and ``main``'s fallback pricing recall carriers at epoch 1."""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import z3

from invariants.edges.compile_checks import VARIANT_NAMES, compile_outcome, exact_budget
from invariants.edges.division import division_witnesses
from invariants.edges.grace import grace_witness
from invariants.edges.ieee import SCALE, Binade, exact_fraction, fp_ceil, fp_div, fp_js_round
from invariants.edges.results import EdgeResult, Witness, confirm, edge_result
from invariants.edges.solver import int_value, ints, minimize, minimize_lex
from reference.model import Budget, Config, Message, Store, Summary, Text, Thinking
from reference.price import reference_price
from reference.variant_names import MAIN
from strategies import HierarchicalStrategy
from strategies.pricing import grace_limit

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
    for label, extra in (("a stamped", v["stamped"]), ("an unsigned", z3.And(z3.Not(v["stamped"]), v["S"] == 0))):
        s.push()
        s.add(extra, v["p0"] != v["p1"])
        confirm(s.check() == z3.unsat, f"{label} thinking block's price depends on the epoch")
        s.pop()
        proofs.append(
            f"{label} thinking block prices the same at epochs 0 and 1 (T <= {THINKING_MAX}, S <= {SIGNATURE_MAX})"
        )
    for kind, extra in (("signed-empty", v["T"] == 0), ("signed-text", v["T"] >= 1)):
        s.push()
        s.add(z3.Not(v["stamped"]), v["S"] >= 1, extra, v["p0"] != v["p1"])
        model = minimize_lex(s, (v["T"] + v["S"], v["T"]))
        s.pop()
        confirm(model is not None, f"no {kind} thinking block differs between the epochs")
        t, sig = int_value(model, v["T"]), int_value(model, v["S"])
        witnesses.append(
            {
                "kind": kind,
                "thinking_units": t,
                "signature_units": sig,
                "price_epoch0": _thinking_price(t, sig, 0),
                "price_epoch1": _thinking_price(t, sig, 1),
            }
        )
    for budget_epoch in (1, 0):
        witnesses.append(_epoch_store_witness(s, v, budget_epoch))
    witnesses.append(_main_fallback_witness(witnesses[0]))
    return edge_result(
        "epoch-predicate",
        start,
        witnesses,
        f"one Thinking block: T in 0..{THINKING_MAX} prose units, S in 0..{SIGNATURE_MAX} signature "
        "units, stamped or not; stores: one message of that block, default grace 0.02",
        proofs,
    )


def _epoch_prerequisites() -> list[str]:
    """The exact integer forms the epoch search uses, each proved first: ``ceil(T / 2.9)``,
    ``js_round(S / 3.3)`` and the default grace limit ``floor(B * 1.02)`` equal their decimal readings."""
    confirm(not division_witnesses(2.9, 29, 10, THINKING_MAX), "ceil(T / 2.9) is not exact")
    confirm(_signature_rounding_witness(SIGNATURE_MAX) is None, "js_round(S / 3.3) is not exact")
    confirm(grace_witness(DEFAULT_GRACE_PERCENT, 100, 2**31) is None, "floor(B * 1.02) is not exact")
    return [
        f"ceil(T / 2.9) is the exact ceil(10 T / 29) for T <= {THINKING_MAX}",
        f"js_round(S / 3.3) is the exact half-up rounding of 10 S / 33 for S <= {SIGNATURE_MAX}",
        "floor(B * (1 + 0.02)) is the exact floor(102 B / 100) for B <= 2**31",
    ]


def _signature_rounding_witness(max_units: int) -> int | None:
    """The smallest ``S`` where ``js_round(S / 3.3)`` in doubles is not the half-up rounding of ``10 S / 33``."""
    inv = 1 / exact_fraction(SIGNATURE_RATE)  # x = S * inv = 10 S / 33 + S * delta
    delta = inv - Fraction(10, 33)
    s = z3.Solver()
    sig, rounded, w = ints("S", "R", "w")
    s.add(sig >= 0, sig <= max_units)
    s.add(66 * rounded <= 20 * sig + 33, 20 * sig + 33 < 66 * (rounded + 1))  # R = floor(10 S / 33 + 1/2)
    z = math.lcm(66, delta.denominator) * SCALE
    # js_round(fl(x)) != R  <=>  fl(x) >= R + 1/2, or fl(x) < R - 1/2; v = K / 2 with K = 2R +- 1
    best = None
    for k2, up in ((2 * rounded + 1, True), (2 * rounded - 1, False)):
        for e in range(-1, math.ceil(math.log2(max_units / SIGNATURE_RATE)) + 2):
            binade = Binade(k2, 1, e)
            s.push()
            s.add(w == 20 * sig - 33 * k2)
            diff = w * (z // 66) + sig * int(delta * z)  # (x - v) * z
            s.add(binade.within, diff >= -binade.down * (z // SCALE) if up else diff < -binade.down * (z // SCALE))
            model = minimize(s, sig)
            s.pop()
            if model is not None:
                n = int_value(model, sig)
                best = n if best is None else min(best, n)
    return best


def _thinking_price(t_units: int, s_units: int, epoch: int) -> int:
    """The raw price of ``Thinking('a' * T, 's' * S)`` at an epoch, in FP doubles (docs/model.md, The estimator)."""
    t = fp_ceil(fp_div(t_units, 2.9)) if t_units else 0
    if not s_units:
        return t
    if epoch == 0:
        return EMPTY_REASONING_PRICE if t_units == 0 else t
    return max(t, fp_js_round(fp_div(s_units, SIGNATURE_RATE)))


def _epoch_block_solver() -> tuple[z3.Solver, dict[str, Any]]:
    s = z3.Solver()
    stamped = z3.Bool("stamped")
    t_units, s_units, stamp, t, sr = ints("T", "S", "stamp", "t", "sr")
    s.add(t_units >= 0, t_units <= THINKING_MAX, s_units >= 0, s_units <= SIGNATURE_MAX, stamp >= 0)
    s.add(29 * (t - 1) < 10 * t_units, 10 * t_units <= 29 * t)  # t = ceil(T / 2.9), exact (proved)
    s.add(66 * sr <= 20 * s_units + 33, 20 * s_units + 33 < 66 * (sr + 1))  # sr = js_round(S / 3.3) (proved)
    signed = s_units >= 1
    p1 = z3.If(stamped, stamp, z3.If(signed, z3.If(sr > t, sr, t), t))
    p0 = z3.If(stamped, stamp, z3.If(signed, z3.If(t_units == 0, EMPTY_REASONING_PRICE, t), t))
    return s, {"stamped": stamped, "T": t_units, "S": s_units, "p0": p0, "p1": p1}


def _epoch_store_witness(s: z3.Solver, v: dict[str, Any], budget_epoch: int) -> Witness:
    """The smallest one-block store that sends at its exact budget under ``budget_epoch`` and refuses
    at that budget under the other epoch (default grace: the limit is ``floor(102 B / 100)``)."""
    priced, other = (v["p1"], v["p0"]) if budget_epoch == 1 else (v["p0"], v["p1"])
    budget, limit = ints("B", "limit")
    s.push()
    s.add(z3.Not(v["stamped"]))
    s.add(102 * budget >= 100 * priced, 102 * (budget - 1) < 100 * priced, budget >= 0)  # smallest B fitting
    s.add(100 * limit <= 102 * budget, 102 * budget < 100 * (limit + 1), other > limit)
    model = minimize_lex(s, (v["T"] + v["S"], v["T"]))
    s.pop()
    confirm(model is not None, "no store refuses after the epoch flips")
    t, sig, b = int_value(model, v["T"]), int_value(model, v["S"]), int_value(model, budget)
    store = epoch_store(t, sig, budget_epoch)
    sends, refuses = (
        compile_outcome(store, Config(), Budget(max_tokens=b)),
        compile_outcome(epoch_store(t, sig, 1 - budget_epoch), Config(), Budget(max_tokens=b)),
    )
    confirm(
        sends == "sends" and refuses == "OverBudgetError",
        f"HierarchicalStrategy: epoch {budget_epoch} {sends}, flipped {refuses}",
    )
    return {
        "kind": f"store-budget-at-epoch{budget_epoch}-refuses-at-epoch{1 - budget_epoch}",
        "thinking_units": t,
        "signature_units": sig,
        "budget": b,
        "grace_limit": b * (100 + DEFAULT_GRACE_PERCENT) // 100,
        "price_epoch0": _thinking_price(t, sig, 0),
        "price_epoch1": _thinking_price(t, sig, 1),
    }


def epoch_store(thinking_units: int, signature_units: int, epoch: int) -> Store:
    """One message holding ``Thinking('a' * T, signature='s' * S or None)``, at a pricing epoch."""
    block = Thinking("a" * thinking_units, "s" * signature_units or None)
    return Store(messages=(Message(id="m1", participant="Claude", content=(block,)),), pricing_epoch=epoch)


MAIN_FALLBACK_SUMMARY_TEXT = "The user asked about the weather."


def main_fallback_store(thinking_units: int, signature_units: int) -> Store:
    """An epoch-0 store whose one summary carries the signed block as reasoning (``tokens`` 1: the floor never wins)."""
    carriers = (Thinking("a" * thinking_units, "s" * signature_units or None), Text(MAIN_FALLBACK_SUMMARY_TEXT))
    summary = Summary(
        id="L1-0",
        level=1,
        content=MAIN_FALLBACK_SUMMARY_TEXT,
        tokens=1,
        source_level=0,
        source_ids=("m1",),
        source_range=("m1", "m1"),
        response_content=carriers,
    )
    return Store(
        messages=(Message(id="m1", participant="User", content=(Text("What is the weather?"),)),),
        summaries=(summary,),
        pricing_epoch=0,
    )


def _main_fallback_witness(block: Witness) -> Witness:
    """``main`` at its own exact budget sends a recall pair the reference prices over the grace limit."""
    store = main_fallback_store(block["thinking_units"], block["signature_units"])
    config = Config()
    unlimited = HierarchicalStrategy(config, MAIN)
    unlimited.initialize(store)
    charged = unlimited.compile(Budget(max_tokens=math.inf), dry_run=True).stats.total.tokens
    budget = exact_budget(charged, config)
    outcomes = {name: compile_outcome(store, config, Budget(max_tokens=budget), name) for name in VARIANT_NAMES}
    strategy = HierarchicalStrategy(config, MAIN)
    strategy.initialize(store)
    sent = strategy.compile(Budget(max_tokens=budget), dry_run=True)
    price = reference_price(sent.entries, store, config)
    confirm(
        outcomes[MAIN] == "sends" and price > grace_limit(budget, config),
        f"main's fallback: {outcomes}, reference price {price}",
    )
    return {
        "kind": "main-fallback-prices-carriers-at-epoch1",
        "thinking_units": block["thinking_units"],
        "signature_units": block["signature_units"],
        "budget": budget,
        "grace_limit": grace_limit(budget, config),
        "main_charged": charged,
        "reference_price": price,
        "outcomes": outcomes,
    }
