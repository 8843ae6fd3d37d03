"""The well-formed invariant (docs/model.md, "Tool pairing"): every tool_use and tool_result sent is
paired across adjacent entries, as the provider requires."""

from __future__ import annotations

from invariants.properties.running import Outcome, Variant, Violation, judges_what_is_sent
from reference.model import Budget, Config, Entry, Store, ToolResult, ToolUse


def pairing_faults(entries: tuple[Entry, ...]) -> list[str]:
    """Where ``entries`` break the provider's tool rule (docs/model.md, "Tool pairing"), as sentences.

    Every top-level ``tool_result`` answers a ``tool_use`` of the entry just before it (at most one
    result per use), and every ``tool_use`` is answered in the entry just after it.
    """
    faults: list[str] = []
    for k, entry in enumerate(entries):
        before = {b.id for b in entries[k - 1].content if isinstance(b, ToolUse)} if k > 0 else set()
        seen: set[str] = set()
        for b in entry.content:
            if not isinstance(b, ToolResult):
                continue
            if b.tool_use_id not in before:
                faults.append(
                    f"entry {k} ({entry.kind} {entry.message_id or entry.summary_ids}) holds a "
                    f"tool_result for {b.tool_use_id!r} that no tool_use of entry {k - 1} asked for"
                )
            elif b.tool_use_id in seen:
                faults.append(f"entry {k} answers tool_use {b.tool_use_id!r} twice")
            seen.add(b.tool_use_id)
        uses = {b.id for b in entry.content if isinstance(b, ToolUse)}
        after = (
            {b.tool_use_id for b in entries[k + 1].content if isinstance(b, ToolResult)}
            if k + 1 < len(entries)
            else set()
        )
        for use in sorted(uses - after):
            faults.append(
                f"entry {k} ({entry.kind} {entry.message_id or entry.summary_ids}) holds a tool_use "
                f"{use!r} that entry {k + 1} does not answer"
            )
    return faults


@judges_what_is_sent("well-formed", cost=4)
def well_formed(
    name: str, out: Outcome, store: Store, config: Config, budget: Budget, variant: Variant
) -> list[Violation]:
    """What is sent is well formed for the provider: tool_use and tool_result paired across adjacent entries."""
    faults = pairing_faults(out.entries)
    if not faults:
        return []
    more = f" (and {len(faults) - 3} more)" if len(faults) > 3 else ""
    return [Violation(name, f"of the {len(out.entries)} entries sent, " + "; ".join(faults[:3]) + more)]
