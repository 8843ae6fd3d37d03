"""Raw replay forms in ``strategies/`` (docs/model.md, Variants): what an edit releases on the raw-forms line, what
the other lines keep, and which pass's edits reach the store on the hysteresis line (``PRUNE_WRITES_STORE``)."""

from __future__ import annotations

from reference.model import (
    Budget,
    Config,
    Entry,
    Image,
    Message,
    RedactedThinking,
    Store,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)
from strategies import HierarchicalStrategy
from strategies.defects import parse_variant
from strategies.raw_forms import raw_form_keys, release_edited
from strategies.tool_pairing import Slot, Stubs
from strategies.tool_pruning import prune_tool_entries, result_marker

HYSTERESIS = "hysteresis-a95eb55b"
RAW_FORMS = "raw-forms-cbe7032a"
XML = "<function_results>both</function_results>"


def _rs(name: str) -> RedactedThinking:
    return RedactedThinking(name, raw_item={"type": "reasoning", "id": name})


def _msg(text: str, name: str) -> Text:
    return Text(text, raw_item={"type": "message", "id": name})


def _sent(store: Store, variant: str, config: Config | None = None) -> tuple[HierarchicalStrategy, tuple[Entry, ...]]:
    strategy = HierarchicalStrategy(config or Config(), parse_variant(variant))
    strategy.initialize(store)
    return strategy, strategy.compile(Budget(max_tokens=1_000_000)).entries


def test_blocks_without_a_raw_item_field_carry_no_item_form() -> None:
    """A thinking block and an image have no raw forms; an edit next to them releases only what is shared."""
    assert raw_form_keys(Thinking("t")) == [] and raw_form_keys(Image()) == []
    part, cut = _msg("first", "msg_1"), _msg("first, cut", "msg_1")
    thinking, image = Thinking("t"), Image()
    after = release_edited((thinking, image, part), (thinking, image, cut))
    assert after == (thinking, image, Text("first, cut")) and after[0] is thinking and after[1] is image


def test_a_block_without_an_item_before_the_reasoning_does_not_end_the_pairing() -> None:
    head, rs, part = Text("plain"), _rs("rs_1"), _msg("first", "msg_1")
    after = release_edited((head, rs, part), (head, rs, _msg("cut", "msg_1")))
    assert after == (head, RedactedThinking("rs_1"), Text("cut"))


def test_an_item_split_in_two_blocks_does_not_end_the_pairings_after_it() -> None:
    """Two blocks of one message item in a row are one follower; the reasoning after them still pairs with the
    call that follows it, so editing the call releases that reasoning (and not the message)."""
    part1, part2 = _msg("a", "msg_1"), _msg("b", "msg_1")
    rs, call = _rs("rs_2"), ToolUse("c", "read", {}, raw_item={"type": "function_call", "id": "fc_2"})
    edited = ToolUse("c", "read", {"_truncated": True}, raw_item={"type": "function_call", "id": "fc_2"})
    after = release_edited((part1, part2, rs, call), (part1, part2, rs, edited))
    assert after[0] is part1 and after[1] is part2
    assert after[2] == RedactedThinking("rs_2") and after[3].raw_item is None


def test_a_release_reaches_every_pairing_that_shares_an_item_however_far_back() -> None:
    """Reasoning rs_1 and rs_2 each pair with a block of item msg_1: editing rs_2 releases msg_1, which releases the
    earlier pairing's rs_1 in turn."""
    rs1, part1, rs2, part2 = _rs("rs_1"), _msg("a", "msg_1"), _rs("rs_2"), _msg("b", "msg_1")
    after = release_edited((rs1, part1, rs2, part2), (rs1, part1, RedactedThinking("rs_2 edited"), part2))
    assert after == (RedactedThinking("rs_1"), Text("a"), RedactedThinking("rs_2 edited"), Text("b"))


def test_an_edit_that_releases_nothing_still_present_hands_back_the_edit_itself() -> None:
    """A dropped block whose form no kept block shares: nothing to give up, so ``after`` itself is returned."""
    dropped = ToolResult("a", "big", raw_xml="<function_results>alone</function_results>")
    after = (Text("note"), ToolResult("b", "small"))
    assert release_edited((dropped, *after), after) is after


def test_pruning_keeps_the_raw_forms_unless_asked_to_release_them() -> None:
    """Off the raw-forms line a pruned result keeps the form it shares; with ``release`` both sharers give it up."""
    use = ToolUse("u0", "read", {})
    slots = [
        Slot(0, Entry("A", (use,), "raw", "m0")),
        Slot(1, Entry("U", (ToolResult("u0", "r0", raw_xml=XML), Text("t", raw_item=None)), "raw", "m1")),
        Slot(2, Entry("A", (ToolUse("u1", "read", {}),), "raw", "m2")),
        Slot(3, Entry("U", (ToolResult("u1", "r1", raw_xml=XML),), "raw", "m3")),
    ]
    config = Config(tool_result_max_last_n=1)
    kept = prune_tool_entries(slots, config, Stubs())
    assert kept[1].entry.content[0] == ToolResult("u0", result_marker("read", 1), raw_xml=XML)
    released = prune_tool_entries(slots, config, Stubs(), release=True)
    assert released[1].entry.content[0] == ToolResult("u0", result_marker("read", 1))
    assert released[3] == slots[3]


def _orphan_store(orphan: bool) -> Store:
    results = (ToolResult("a", "A", raw_xml=XML), *((ToolResult("b", "B", raw_xml=XML),) if orphan else ()))
    return Store((Message("m0", "assistant", (ToolUse("a", "read", {}),)), Message("m1", "user", results)))


def test_a_result_pairing_drops_releases_the_form_its_kept_sibling_shares_on_the_raw_forms_line_only() -> None:
    """Rule A drops result ``b`` (no use before it); on the raw-forms line ``a``, which shared its XML form, gives
    that form up; the hysteresis line replays the form as it is."""
    for variant, form in ((RAW_FORMS, None), (HYSTERESIS, XML)):
        _, entries = _sent(_orphan_store(True), variant)
        assert entries[1].content == (ToolResult("a", "A", raw_xml=form),), variant


def test_pruning_writes_into_the_store_only_what_pairing_left_as_the_message_s_own_content() -> None:
    """On the hysteresis line the last-N marker lands in the stored message when its entry is the message's own
    array; once pairing has dropped a result, the entry is a new array and the store keeps its message."""
    config = Config(tool_result_max_last_n=0)
    store = _orphan_store(False)
    strategy, entries = _sent(store, HYSTERESIS, config)
    assert strategy.store is not None and strategy.store.messages[1].content == entries[1].content
    assert entries[1].content[0].content == result_marker("read", 0)
    store = _orphan_store(True)
    strategy, entries = _sent(store, HYSTERESIS, config)
    assert entries[1].content[0].content == result_marker("read", 0)
    assert strategy.store == store
