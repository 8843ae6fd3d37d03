"""The corpus's witnesses as compile cases ``(name, store, config, budget)``, read from the corpus (no search
runs), for property tests to take as ``@example`` s."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from invariants.edges.caps import raw_cap_store, xml_summaries
from invariants.edges.density import density_string
from invariants.edges.epochs import epoch_store, main_fallback_store
from invariants.edges.results import Witness
from invariants.edges.witness_corpus import WitnessCorpus, load_corpus
from reference.estimator import content_tokens, text_tokens
from reference.model import Budget, Config, Message, Store, Text, ToolResult, ToolUse

Scenario = tuple[str, Store, Config, Budget]


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
    return [
        (
            f"ieee-division/ceil({w['length']}/{w['rate']})",
            _one_message(Text("{" * w["length"])),
            NO_GRACE,
            Budget(max_tokens=w["double_ceil"]),
        )
        for w in ws[:3]
    ]


def _js_round_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    out: list[Scenario] = []
    halves = [w for w in ws if w["kind"] in ("landing", "exact-tie")]
    picks = [w for w in halves if w["kind"] == "landing"][:2] + [w for w in halves if w["kind"] == "exact-tie"][:1]
    for w in picks:
        store = _one_message(Text(prose_with_tokens(w["raw"])), calibration=w["calibration"])
        out.append(
            (f"js-round-half/{w['raw']}*{w['calibration_decimal']}", store, NO_GRACE, Budget(max_tokens=w["js_round"]))
        )
    for w in ws:
        if w["kind"].startswith("per-block"):
            texts = tuple(Text(prose_with_tokens(r)) for r in w["raws"])
            # m1's tool_use is answered by m2's result, so the context is well formed (its price is added).
            use = ToolUse("tool-1", "read", {})
            store = Store(
                messages=(
                    Message(id="m1", participant="User", content=(*texts, use)),
                    Message(id="m2", participant="User", content=(ToolResult("tool-1", texts),)),
                ),
                calibration=w["calibration"],
            )
            out.append(
                (
                    f"js-round-half/{w['kind']}",
                    store,
                    NO_GRACE,
                    Budget(max_tokens=w["per_block"] + w["summed"] + content_tokens((use,), store)),
                )
            )
    return out


def _epoch_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    out: list[Scenario] = []
    for w in ws:
        t, sig = w["thinking_units"], w["signature_units"]
        if w["kind"].startswith("store-budget-at-epoch"):
            epoch = 1 if w["kind"].startswith("store-budget-at-epoch1") else 0
            for e, outcome in ((epoch, "sends"), (1 - epoch, "refuses")):
                out.append(
                    (
                        f"epoch-predicate/{w['kind']}/epoch{e}-{outcome}",
                        epoch_store(t, sig, e),
                        Config(),
                        Budget(max_tokens=w["budget"]),
                    )
                )
        elif w["kind"] == "main-fallback-prices-carriers-at-epoch1":
            out.append(
                (f"epoch-predicate/{w['kind']}", main_fallback_store(t, sig), Config(), Budget(max_tokens=w["budget"]))
            )
    return out


def _grace_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    picks = sorted(ws, key=lambda w: w["budget"])[:2]
    return [
        (
            f"grace-limit/B={w['budget']},g={w['grace_decimal']}",
            _one_message(Text(prose_with_tokens(w["exact_limit"]))),
            Config(over_budget_grace_ratio=w["grace"]),
            Budget(max_tokens=w["budget"]),
        )
        for w in picks
    ]


def xml_store(lengths: Sequence[int]) -> Store:
    """Two messages per summary of ``xml_summaries(lengths)``."""
    messages = tuple(
        Message(id=f"m{i + 1}", participant="User", content=(Text(f"message {i + 1}"),))
        for i in range(2 * len(lengths))
    )
    return Store(messages=messages, summaries=xml_summaries(lengths))


def _cap_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    out: list[Scenario] = []
    for w in ws:
        if w["kind"].startswith("xml-"):
            config = Config(positioned_recall_pairs=False, recall_envelope="xml", max_message_tokens=w["cap"])
            out.append((f"cap-units/{w['kind']}", xml_store(w["lengths"]), config, Budget(max_tokens=100_000)))
        else:
            out.append(
                (
                    f"cap-units/{w['kind']}",
                    raw_cap_store(w["length"]),
                    Config(max_message_tokens=w["cap"]),
                    Budget(max_tokens=w["budget"]),
                )
            )
    return out


def _density_scenarios(ws: Sequence[Witness]) -> list[Scenario]:
    return [
        (
            f"density-threshold/{w['kind']}",
            _one_message(Text(density_string(w["length"], w["probe_dense"], w["tail_dense"]))),
            NO_GRACE,
            Budget(max_tokens=w["tokens"]),
        )
        for w in ws
    ]


SCENARIO_BUILDERS: dict[str, Callable[[Sequence[Witness]], list[Scenario]]] = {
    "ieee-division": _ieee_scenarios,
    "js-round-half": _js_round_scenarios,
    "epoch-predicate": _epoch_scenarios,
    "grace-limit": _grace_scenarios,
    "cap-units": _cap_scenarios,
    "density-threshold": _density_scenarios,
}


def witness_scenarios(corpus: WitnessCorpus | None = None) -> list[Scenario]:
    """Every corpus witness that makes a compile case, as ``(name, store, config, budget)``.

    Read from ``invariants/witnesses.json`` (no search runs). Budgets sit on the witness's edge:
    the exact budget of what is sent, or where a faithful variant sends what the reference prices
    over the grace limit (``cap-units/*``, ``epoch-predicate/main-fallback-*``).
    """
    corpus = load_corpus() if corpus is None else corpus
    out: list[Scenario] = []
    for edge, build in SCENARIO_BUILDERS.items():
        entry = corpus.edges.get(edge)
        if entry is not None:
            out += build(entry.witnesses)
    return out
