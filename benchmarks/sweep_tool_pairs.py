"""Sweep small stores of tool cycles (one L1 per message) over window sizes and budgets; print, per
variant, how many of the contexts it sends break the well-formed invariant (docs/model.md, "Invariants").

    PYTHONPATH=. python benchmarks/sweep_tool_pairs.py
"""

from __future__ import annotations

import itertools

from invariants.properties import compile_once, pairing_faults
from reference.model import Budget, Config, Message, Store, Summary, ToolResult, ToolUse
from strategies.defects import VARIANTS


def tool_store(n: int) -> Store:
    """m0 calls u0, m1 answers it, m2 calls u1, ...; an L1 over each message alone."""
    messages = tuple(
        Message(f"m{i}", "Claude", (ToolUse(f"u{i // 2}", "read", {"path": "a" * (3 + i)}),))
        if i % 2 == 0
        else Message(f"m{i}", "User", (ToolResult(f"u{i // 2}", "x" * (5 + i)),))
        for i in range(n)
    )
    summaries = tuple(Summary(f"L1-{i}", 1, f"summary {i}", 10, 0, (f"m{i}",), (f"m{i}", f"m{i}")) for i in range(n))
    return Store(messages, summaries)


def main() -> None:
    sent = dict.fromkeys(VARIANTS, 0)
    malformed = dict.fromkeys(VARIANTS, 0)
    for n in (2, 3, 4, 5, 6):
        store = tool_store(n)
        for head, recent, budget in itertools.product(
            (0, 5, 15, 30, 60), (0, 5, 15, 30, 60, 200), (50, 100, 200, 400, 10**6)
        ):
            config = Config(head_window_tokens=head, recent_window_tokens=recent)
            for variant in VARIANTS:
                out = compile_once(store, config, Budget(budget), variant)
                if out.sent:
                    sent[variant] += 1
                    malformed[variant] += bool(pairing_faults(out.entries))
    for variant in VARIANTS:
        share = malformed[variant] / sent[variant] if sent[variant] else 0
        print(f"{variant:>15}: {malformed[variant]:4d} of {sent[variant]:4d} contexts sent are malformed ({share:.0%})")


if __name__ == "__main__":
    main()
