"""The structural passes after emission (docs/model.md, "Structural passes"), in the TypeScript's order.

``postProcessToolEntries`` (trim, pair, prune), then ``applyImageStripping``. They run over the
planned context: when a compile sends, it sends every planned entry (a tail eviction or a middle
refusal refuses), so the passes can be run before the grace checks and ``sound`` can price what is
finally sent. What they make of each raw message is a ``Finished``; ``finished_item`` prices it
under the variant's rules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from reference.model import Config, Content, Entry, Store
from reference.numerics import Number
from strategies.cap import cap_on, truncate
from strategies.defects import Behaviour, Defect, Defects
from strategies.emission import Item
from strategies.images import PLACEHOLDER, SEED_ERA, ImagePolicy, Kept, decide_policy, strip
from strategies.pricing import Prices, owned_by
from strategies.stats import Charge
from strategies.tool_pairing import Slot, enforce_tool_pairing, trim_orphaned_tool_use
from strategies.tool_pruning import prune_tool_entries

BUCKETS = {"head": "head", "middle": "middle_raw", "tail": "tail"}


@dataclass(frozen=True)
class Finished:
    """One raw message after the passes: its entries repaired (tools), sent (images too), its images kept, and
    what pruning wrote into the message's own content (None: nothing; see ``Defect.PRUNE_WRITES_STORE``)."""

    repaired: tuple[Entry, ...]
    sent: tuple[Entry, ...]
    kept: Kept
    written: Content | None = None


def _image_decisions(
    store: Store, slots: Sequence[Slot], start: int, config: Config, policy: ImagePolicy
) -> list[Kept]:
    """``applyImageStripping``: the decision per slot, counting over the entries sent in source order."""
    positions = [store.index(s.entry.message_id) if s.entry.message_id is not None else -1 for s in slots]
    return decide_policy(positions, [s.entry.content for s in slots], start, config, policy)


def _written(store: Store, paired: Sequence[Slot], pruned: Sequence[Slot], k: int, config: Config) -> Content | None:
    """What pruning wrote into raw item ``k``'s message when its entry still holds the message's own content
    array: sent uncut (no cap) and left as it was by pairing (which otherwise makes a new array)."""
    if cap_on(config.cap):
        return None
    for before, after in zip(paired, pruned, strict=True):
        e = before.entry
        if before.owner == k and e.kind == "raw" and e.message_id is not None:
            own = store.messages[store.index(e.message_id)].content
            if e.content == own and after.entry.content != own:
                return after.entry.content
    return None


def run_passes(
    store: Store,
    planned: Sequence[Item],
    config: Config,
    strip_start: int,
    defects: Defects,
    policy: ImagePolicy = SEED_ERA,
) -> dict[int, Finished]:
    """The passes over the planned items; the result maps each raw message's store index to what it became."""
    slots = [Slot(k, e) for k, it in enumerate(planned) for e in it.entries]
    if defects.on(Defect.TRIM_DROPS_TRAILING_TOOL_USE):
        slots = trim_orphaned_tool_use(slots)
    release = defects.on(Behaviour.RAW_FORMS_RELEASED)
    paired, stubs = enforce_tool_pairing(slots, release)
    slots = prune_tool_entries(paired, config, stubs, release)
    writes = defects.on(Defect.PRUNE_WRITES_STORE)
    decisions = _image_decisions(store, slots, strip_start, config, policy)
    out: dict[int, Finished] = {}
    for k, it in enumerate(planned):
        if not it.raw_ids:
            continue
        mine = [(s, d) for s, d in zip(slots, decisions, strict=True) if s.owner == k]
        repaired = tuple(s.entry for s, _ in mine)
        sent = tuple(replace(s.entry, content=strip(s.entry.content, d, policy.placeholder)) for s, d in mine)
        kept = next((d for s, d in mine if s.entry.kind == "raw"), None)
        written = _written(store, paired, slots, k, config) if writes else None
        out[store.index(it.raw_ids[0])] = Finished(repaired, sent, kept, written)
    return out


def _main(entries: Sequence[Entry]) -> Content | None:
    return next((e.content for e in entries if e.kind == "raw"), None)


def finished_item(
    store: Store,
    i: int,
    region: str,
    fin: Finished,
    store_kept: Kept,
    config: Config,
    prices: Prices,
    E: Callable[[Content], Number],
    placeholder: str = PLACEHOLDER,
) -> Item:
    """The raw item as sent, priced as the variant prices it (``sound``: the store's ``E`` of what is sent)."""
    defects = prices.defects
    m = store.messages[i]
    if region == "tail" and defects.on(Defect.TAIL_PRICED_PRE_STRIP):
        kept: Kept = None
    elif defects.on(Defect.IMAGE_COUNT_STORE_WIDE):
        kept = store_kept
    else:
        kept = fin.kept
    if defects.on(Defect.TOOL_PASSES_UNPRICED):
        priced: tuple[Content, ...] = (truncate(m.content, config.cap),)
        main: Content | None = priced[0]
        extra: tuple[Content, ...] = ()
        messages = 1
    else:
        main = _main(fin.repaired)
        extra = tuple(e.content for e in fin.repaired if e.kind != "raw")
        messages = len(fin.sent)
    with owned_by(f"message {m.id!r}"):
        price: Number = 0
        if main is not None:
            if defects.on(Defect.RAW_CAP_PLUS_50) and cap_on(config.cap):
                price = prices.raw_cap_plus_50(E(strip(m.content, kept, placeholder)))
            else:
                price = E(strip(main, kept, placeholder))
        price += sum(E(c) for c in extra)
    charge = Charge(BUCKETS[region], price, messages=messages)
    return Item(f"message {m.id!r} ({region})", fin.sent, price, (charge,), raw_ids=(m.id,))
