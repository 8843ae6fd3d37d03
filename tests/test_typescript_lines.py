"""The newer TypeScript lines as variants (docs/model.md, Variants): their image policy, their store writes, the
defects found on them, and the new config fields' bad values.

Each line difference is a named switch (``Behaviour``) or defect in ``strategies/defects.py``; a test that pins
one compares the line's variant with the same variant with that one switch turned off.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from invariants.properties import INVARIANTS, store_unchanged
from reference.images import ImageRules, live_flags
from reference.images import wall as reference_wall
from reference.images import watermark as reference_watermark
from reference.model import (
    Budget,
    Config,
    Entry,
    Image,
    InvalidStoreError,
    Message,
    RedactedThinking,
    Store,
    Summary,
    Text,
    ToolResult,
    ToolUse,
)
from reference.raw_forms import after_edit as reference_after_edit
from reference.raw_forms import forms as reference_forms
from reference.raw_forms import moved as reference_moved
from reference.scenario import ScenarioError, loads_scenario
from reports.cli import main
from strategies import HierarchicalStrategy
from strategies.defects import parse_variant
from strategies.images import DEFAULT_MAX_LIVE_IMAGE_BYTES, DROPPED_PLACEHOLDER, PLACEHOLDER
from strategies.raw_forms import raw_form_keys, release_edited, release_shared_on_move
from strategies.tool_pairing import Slot, enforce_tool_pairing
from strategies.tool_pruning import result_marker

HYSTERESIS = "hysteresis-a95eb55b"
RAW_FORMS = "raw-forms-cbe7032a"
UNLIMITED = Budget(max_tokens=1_000_000)


def _sent(config: Config, store: Store, variant: str, budget: Budget = UNLIMITED):
    strategy = HierarchicalStrategy(config, parse_variant(variant))
    strategy.initialize(store)
    return strategy, strategy.compile(budget)


def _images(store: Store, config: Config, variant: str) -> list[tuple]:
    return [e.content for e in _sent(config, store, variant)[1].entries]


# ----------------------------------------------------------------------------- the image policy


def test_the_byte_wall_is_on_by_default_and_strips_what_passes_20_mib() -> None:
    """Two images of 11 MiB each: the newer lines keep the newest and drop the older one with their
    placeholder; ``sound`` (no byte wall) keeps both; 0 turns the wall off."""
    big = "A" * (11 * 1024 * 1024)
    store = Store(tuple(Message(f"m{i}", "user", (Image(100, big), Text(f"img-{i}"))) for i in range(2)))
    on_line = _images(store, Config(), HYSTERESIS)
    assert on_line[0][0] == Text(DROPPED_PLACEHOLDER) and isinstance(on_line[1][0], Image)
    assert all(isinstance(c[0], Image) for c in _images(store, Config(), "sound"))
    assert all(isinstance(c[0], Image) for c in _images(store, Config(), f"{HYSTERESIS}-LIVE_IMAGE_BYTE_WALL"))
    assert all(isinstance(c[0], Image) for c in _images(store, Config(max_live_image_bytes=0), HYSTERESIS))
    assert 2 * len(big) > DEFAULT_MAX_LIVE_IMAGE_BYTES > len(big)


def test_a_stripped_image_adds_no_bytes_so_a_smaller_older_one_is_kept() -> None:
    """Bytes kept so far plus the image's own must stay within the cap; a stripped image adds nothing."""
    sizes = [50, 300, 200]  # oldest first: 200 kept, 300 over (500 > 400), 50 kept (250)
    store = Store(tuple(Message(f"m{i}", "user", (Image(100, "A" * n),)) for i, n in enumerate(sizes)))
    sent = _images(store, Config(max_live_image_bytes=400), RAW_FORMS)
    assert [isinstance(c[0], Image) for c in sent] == [True, False, True]


def test_the_newer_lines_count_a_messages_images_from_its_first_block() -> None:
    """One message with three images under ``max_live_images`` 2: the newer lines keep the first two, the seed-era
    model the last two (and each sends its own placeholder)."""
    store = Store((Message("m0", "user", (Image(10, "a"), Image(10, "b"), Image(10, "c"))),))
    config = Config(max_live_images=2)
    assert _images(store, config, RAW_FORMS)[0] == (Image(10, "a"), Image(10, "b"), Text(DROPPED_PLACEHOLDER))
    assert _images(store, config, "sound")[0] == (Text(PLACEHOLDER), Image(10, "b"), Image(10, "c"))
    alone = f"{RAW_FORMS}-IMAGES_FIRST_BLOCK_FIRST"
    assert _images(store, config, alone)[0] == (Text(DROPPED_PLACEHOLDER), Image(10, "b"), Image(10, "c"))


def test_the_watermark_is_strategy_state_and_only_moves_forward() -> None:
    """Under hysteresis the watermark survives ``initialize`` (the TypeScript persists it) and a compile of fewer
    images does not move it back; without the ratio it stays unset."""
    config = Config(max_live_images=4, image_strip_hysteresis_ratio=0.5, recent_window_tokens=1_000_000)
    five = Store(tuple(Message(f"m{i}", "user", (Image(100, "AAAA"),)) for i in range(5)))
    strategy, _ = _sent(config, five, HYSTERESIS)
    assert strategy.watermark == 2
    strategy.initialize(Store(five.messages[:3]))
    strategy.compile(UNLIMITED)
    assert strategy.watermark == 2
    assert _sent(Config(max_live_images=4), five, HYSTERESIS)[0].watermark is None


# ----------------------------------------------------------------------------- DEPTH_RULE_OFF_BY_ONE


def _depth_case() -> tuple[Store, Config]:
    """An older message with an image and an L1 over it, and a newest text message of price 14 = the depth: the
    older message is deep when stripping (14 + its own > 14) but not when pricing (only 14 is newer)."""
    m0 = Message("m0", "user", (Image(token_estimate=100), Text("an old picture")))
    m1 = Message("m1", "Claude", (Text("y" * 40),))
    store = Store((m0, m1), (Summary("S", 1, "a picture was shared", 10, 0, ("m0",), ("m0", "m0")),))
    return store, Config(image_strip_depth_tokens=14, recent_window_tokens=31)


@pytest.mark.parametrize("line", [HYSTERESIS, RAW_FORMS])
def test_depth_rule_off_by_one_prices_a_stripped_image_whole_in_the_window_walk(line: str) -> None:
    """The minimal scenario of ``DEPTH_RULE_OFF_BY_ONE`` (tests/scenarios/lines/depth-rule-off-by-one): stripped,
    the old message costs 17 and the window of 31 holds both; priced whole (105) it falls out of the window, so
    its summary is sent instead of the message the window should have kept."""
    store, config = _depth_case()
    kinds = [e.kind for e in _sent(config, store, line, Budget(max_tokens=10_000))[1].entries]
    assert kinds == ["question", "answer", "raw"]
    fixed = _sent(config, store, f"{line}-DEPTH_RULE_OFF_BY_ONE", Budget(max_tokens=10_000))[1]
    assert [e.kind for e in fixed.entries] == ["raw", "raw"]
    assert fixed.entries[0].content == (Text(DROPPED_PLACEHOLDER), Text("an old picture"))


# ----------------------------------------------------------------------------- PRUNE_WRITES_STORE


def _tool_case() -> tuple[Store, Config]:
    """Upstream's raw-forms "second compile" store: a big input and two results of one tool, capped and marked."""
    calls = (ToolUse("a", "fs:read", {"path": "x" * 400}), ToolUse("b", "fs:read", {"path": "/small"}))
    results = (ToolResult("a", "big file"), ToolResult("b", "small file"))
    store = Store((Message("c", "Claude", calls), Message("r", "user", results)))
    config = Config(
        recent_window_tokens=100_000, tool_use_input_max_tokens=20, tool_result_max_last_n=(("fs:read", 1),)
    )
    return store, config


def test_prune_writes_store_rewrites_the_stored_tool_blocks_on_the_hysteresis_line() -> None:
    """Before copy-on-write, the capped input and the result marker land in the store's own messages."""
    store, config = _tool_case()
    strategy, result = _sent(config, store, HYSTERESIS)
    held = strategy.store
    assert held is not None and held.messages != store.messages
    assert held.messages[0].content[0].input == {"_truncated": True, "_originalTokens": 103, "_keys": ["path"]}
    assert held.messages[0].content[1] == store.messages[0].content[1]
    assert held.messages[1].content[0] == ToolResult("a", result_marker("fs:read", 1))
    assert [e.content for e in result.entries] == [m.content for m in held.messages]
    assert _sent(config, store, f"{HYSTERESIS}-PRUNE_WRITES_STORE")[0].store == store


def test_a_message_cut_by_the_cap_is_a_copy_and_is_not_written() -> None:
    """With ``maxMessageTokens`` on the entry holds a copy of the message: nothing is written back."""
    store, config = _tool_case()
    strategy, _ = _sent(Config(**{**config.__dict__, "max_message_tokens": 10_000}), store, HYSTERESIS)
    assert strategy.store == store


def test_store_unchanged_breaks_where_the_compile_writes_into_the_store() -> None:
    """The invariant: red on the hysteresis line (its store is rewritten, so the second compile charges otherwise),
    green without the switch, on the raw-forms line and on sound."""
    store, config = _tool_case()
    broken = store_unchanged(store, config, UNLIMITED, HYSTERESIS)
    assert [v.invariant for v in broken] == ["store-unchanged"] * 2
    assert "rewrote the stored messages ['c', 'r']" in broken[0].message
    # The same bytes, charged at the rewritten store's prices: the second compile prices the capped input.
    assert (
        "the first sent 2 entries (stats total 236); the second sent 2 entries (stats total 108)" in broken[1].message
    )
    assert store_unchanged(store, config, UNLIMITED, parse_variant(f"{HYSTERESIS}-PRUNE_WRITES_STORE")) == []
    assert store_unchanged(store, config, UNLIMITED, RAW_FORMS) == []
    assert store_unchanged(store, config, UNLIMITED, "sound") == []


# ----------------------------------------------------------------------------- bad values of the new fields


def _file(config: dict, content: list | None = None) -> str:
    block = {"type": "image", "source": {"type": "base64", "data": "AAAA"}}
    doc = {"store": {"messages": [{"id": "m", "participant": "user", "content": content or [block]}]}, "config": config}
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("config", "content", "message"),
    [
        ({"maxLiveImageBytes": "big"}, None, 'config.maxLiveImageBytes: expected a number, got "big"'),
        (
            {"imageStripHysteresisRatio": [0.5]},
            None,
            "config.imageStripHysteresisRatio: expected a number, got an array",
        ),
        (
            {},
            [{"type": "image", "source": {"data": 7}}],
            "messages[0].content[0].source.data: expected a string, got 7",
        ),
        ({}, [{"type": "image", "source": {"type": "url", "data": "x"}}], "messages[0].content[0].source.type:"),
        ({}, [{"type": "image", "source": {}}], 'messages[0].content[0].source: missing field "data"'),
    ],
)
def test_bad_values_of_the_new_fields_are_one_line_naming_their_path(config, content, message, tmp_path, capsys):
    path = tmp_path / "bad.scenario.json"
    path.write_text(_file(config, content))
    with pytest.raises(ScenarioError) as info:
        loads_scenario(path.read_text())
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_compiles_before_and_expected_content_name_their_path() -> None:
    doc = json.loads(_file({}))
    with pytest.raises(ScenarioError, match=r"^compiles_before\[1\]: expected a message count from 0 to 1, got 2$"):
        loads_scenario(json.dumps({**doc, "compiles_before": [1, 2]}))
    expect = {HYSTERESIS: {"sends": {"content": [[{"type": "text", "text": "ok"}, {"type": "txt"}]]}}}
    with pytest.raises(ScenarioError, match=r"^expect\.hysteresis-a95eb55b\.sends\.content\[0\]\[1\]\.type: unknown"):
        loads_scenario(json.dumps({**doc, "expect": expect}))


def test_the_conformance_corpus_cites_its_upstream_test() -> None:
    """Every file of tests/scenarios/typescript names the upstream test file, the test and the commit it transcribes,
    and pins a newer line's variant."""
    folder = Path(__file__).parent / "scenarios" / "typescript"
    files = sorted(folder.glob("*.scenario.json"))
    assert files
    for f in files:
        sc = loads_scenario(f.read_text())
        assert sc.description is not None and "test/" in sc.description and " @ " in sc.description, f.name
        assert set(sc.expect) & {HYSTERESIS, RAW_FORMS}, f.name


# ----------------------------------------------------------------------------- raw replay forms (cbe7032a)

CALLS = "<function_calls>two invokes</function_calls>"


def test_raw_form_keys_tell_the_forms_apart_as_the_formatters_do() -> None:
    """``rawFormKeys``: a non-empty ``raw_xml``; an object ``raw_item`` by ``type:id``, else by its JSON."""
    assert raw_form_keys(ToolUse("a", "fs:read", {}, raw_xml=CALLS)) == [f"xml:{CALLS}"]
    assert raw_form_keys(Text("t", raw_item={"type": "message", "id": "msg_1"})) == ["item:message:msg_1"]
    assert raw_form_keys(Text("t", raw_item={"type": "message", "content": []})) == [
        'item:{"type":"message","content":[]}'
    ]
    assert raw_form_keys(ToolUse("a", "n", {}, raw_xml="")) == []
    assert raw_form_keys(Text("t", raw_item="not-an-object")) == []
    assert raw_form_keys(Text("plain")) == []


def test_an_edit_releases_the_form_from_every_sharer_and_keeps_identity_otherwise() -> None:
    big, small = ToolUse("a", "fs:read", {"path": "/big"}, CALLS), ToolUse("b", "fs:read", {"path": "/small"}, CALLS)
    other = ToolUse("c", "fs:read", {"path": "/o"}, "<function_calls>other</function_calls>")
    edited = ToolUse("a", "fs:read", {"_truncated": True}, CALLS)
    after = release_edited((big, small, other), (edited, small, other))
    assert after[0].raw_xml is None and after[0].input == {"_truncated": True}
    assert after[1].raw_xml is None and after[2] is other
    untouched = (big, Text("note, edited"))
    assert release_edited((big, Text("note")), untouched) is untouched


def test_releasing_an_item_releases_the_reasoning_paired_with_it_only() -> None:
    rs1 = RedactedThinking("one", raw_item={"type": "reasoning", "id": "rs_1"})
    fc1 = ToolUse("call_1", "fs:read", {"path": "/a"}, raw_item={"type": "function_call", "id": "fc_1"})
    rs2 = RedactedThinking("two", raw_item={"type": "reasoning", "id": "rs_2"})
    part1 = Text("first part", raw_item={"type": "message", "id": "msg_1"})
    part2 = Text("second part", raw_item={"type": "message", "id": "msg_1"})
    cut = Text("second, cut", raw_item={"type": "message", "id": "msg_1"})
    after = release_edited((rs1, fc1, rs2, part1, part2), (rs1, fc1, rs2, part1, cut))
    assert after[0] is rs1 and after[1] is fc1
    assert after[2] == RedactedThinking("two") and after[3].raw_item is None and after[4].raw_item is None
    assert release_edited((rs1, fc1), (fc1,))[0].raw_item is None  # dropping the reasoning releases its follower


def test_a_moved_block_keeps_a_form_it_carries_alone() -> None:
    alone = ToolResult("a", "only", raw_xml="<function_results>only</function_results>")
    assert release_shared_on_move(alone, (alone, Text("x"))) is alone
    shared = ToolResult("a", "big file", raw_xml="<function_results>both</function_results>")
    sibling = ToolResult("b", "small file", raw_xml="<function_results>both</function_results>")
    assert release_shared_on_move(shared, (shared, sibling)).raw_xml is None


# ----------------------------------------------------------------------------- the reference's image rules


def test_the_reference_states_the_newer_lines_image_rules() -> None:
    """``reference.images``, written apart from ``strategies/``: the byte wall, the first-block-first count and the
    watermark a fresh compile sets, as upstream's hysteresis test has them (five images, four live, ratio 0.5)."""
    contents = [(Image(100, "A" * n),) for n in (50, 300, 200)]
    wall = ImageRules(byte_wall=True)
    assert live_flags(contents, [0, 1, 2], 0, Config(max_live_image_bytes=400), wall) == [(True,), (False,), (True,)]
    three = [(Image(10, "a"), Image(10, "b"), Image(10, "c"))]
    first = ImageRules(first_block_first=True)
    assert live_flags(three, [0], 0, Config(max_live_images=2), first) == [(True, True, False)]
    assert live_flags(three, [0], 0, Config(max_live_images=2)) == [(False, True, True)]
    five = [(Image(100, "AAAA"),)] * 5
    config = Config(max_live_images=4, image_strip_hysteresis_ratio=0.5)
    assert reference_watermark([1] * 5, five, config, ImageRules(hysteresis=True)) == 2
    assert reference_watermark([1] * 4, five[:4], config, ImageRules(hysteresis=True)) is None
    assert reference_watermark([1] * 5, five, config, ImageRules()) is None


@pytest.mark.parametrize("line", [HYSTERESIS, RAW_FORMS])
def test_the_invariants_judge_a_newer_line_by_its_own_image_rules(line: str) -> None:
    """With the line's rules the reference renders what the line sends: ``rendering`` and ``selection`` hold on an
    image store the byte wall and the new placeholder decide (they broke before the reference knew them)."""
    store = Store(tuple(Message(f"m{i}", "user", (Image(100, "A" * 100), Text(f"img-{i}"))) for i in range(5)))
    config = Config(recent_window_tokens=1_000_000, max_live_image_bytes=400, image_strip_hysteresis_ratio=0.5)
    for name in ("rendering", "selection"):
        assert INVARIANTS[name](store, config, UNLIMITED, line) == []


# ----------------------------------------------------------------------------- the two implementations agree


@st.composite
def _image_cases(draw: st.DrawFn) -> tuple[Store, Config]:
    """Stores of text and image messages (base64 payloads of a few sizes, some without one) under image limits."""
    n = draw(st.integers(1, 7))
    messages = []
    for i in range(n):
        blocks: list = []
        for _ in range(draw(st.integers(0, 3))):
            if draw(st.booleans()):
                size = draw(st.sampled_from([None, 0, 50, 100, 150, 250]))
                blocks.append(Image(draw(st.sampled_from([None, 5, 100])), None if size is None else "A" * size))
            else:
                blocks.append(Text("t" * draw(st.integers(0, 60))))
        messages.append(Message(f"m{i}", draw(st.sampled_from(["user", "Claude"])), tuple(blocks)))
    config = Config(
        recent_window_tokens=draw(st.sampled_from([0, 40, 1_000_000])),
        max_live_images=draw(st.sampled_from([0, 1, 2, 4])),
        image_strip_depth_tokens=draw(st.sampled_from([0, 20, 60])),
        max_live_image_bytes=draw(st.sampled_from([None, 0, 150, 300])),
        image_strip_hysteresis_ratio=draw(st.sampled_from([None, 0.5, 0.25, 1.5])),
    )
    return Store(tuple(messages)), config


@given(_image_cases(), st.sampled_from([HYSTERESIS, RAW_FORMS]))
def test_the_compile_and_the_reference_strip_the_same_images_on_the_newer_lines(case, line) -> None:
    """``strategies/images.py`` and ``reference/images.py``, written apart, agree on every image store: what the
    newer line sends (its depth defect off) is the reference rendering of its selection, and the selection is the
    reference's."""
    store, config = case
    variant = parse_variant(f"{line}-DEPTH_RULE_OFF_BY_ONE")
    for name in ("rendering", "selection"):
        assert INVARIANTS[name](store, config, UNLIMITED, variant) == []


def test_the_invariants_see_the_depth_defect() -> None:
    """``DEPTH_RULE_OFF_BY_ONE`` alone in ``sound`` breaks ``selection`` on its minimal store (the window the
    contract keeps holds the old message; the defect's walk drops it and selects its summary)."""
    store, config = _depth_case()
    budget = Budget(max_tokens=10_000)
    assert INVARIANTS["selection"](store, config, budget, "sound") == []
    [v] = INVARIANTS["selection"](store, config, budget, parse_variant("sound+DEPTH_RULE_OFF_BY_ONE"))
    assert "the compile selected ['S'], the reference selection []" in v.message


RESULTS = "<function_results>a and b</function_results>"


def _slots(*entries: tuple[str, tuple]) -> list[Slot]:
    return [Slot(k, Entry(p, c, "raw", message_id=f"m{k}")) for k, (p, c) in enumerate(entries)]


def test_pairing_drops_an_orphan_and_releases_the_form_its_kept_sibling_shares() -> None:
    """Upstream's structural-repair case: result b answers nothing before it; a keeps its content, not the form."""
    slots = _slots(
        ("Claude", (ToolUse("a", "fs:read", {}),)),
        ("user", (ToolResult("a", "big file", RESULTS), ToolResult("b", "small file", RESULTS))),
    )
    out, _ = enforce_tool_pairing(slots, release=True)
    assert out[1].entry.content == (ToolResult("a", "big file"),)
    assert enforce_tool_pairing(slots)[0][1].entry.content == (ToolResult("a", "big file", RESULTS),)


def test_pairing_moves_a_result_and_releases_the_form_on_both_sides() -> None:
    """Upstream's structural-repair case: a's real result is moved up next to its call; neither it nor b, left
    behind, keeps the <function_results> they shared."""
    slots = _slots(
        ("Claude", (ToolUse("a", "fs:read", {}),)),
        ("user", (Text("an interleaved turn"),)),
        ("Claude", (ToolUse("b", "fs:read", {}),)),
        ("user", (ToolResult("a", "big file", RESULTS), ToolResult("b", "small file", RESULTS))),
    )
    out, _ = enforce_tool_pairing(slots, release=True)
    results = [b for s in out for b in s.entry.content if isinstance(b, ToolResult)]
    assert ToolResult("a", "big file") in results and ToolResult("b", "small file") in results
    kept, _ = enforce_tool_pairing(slots)
    assert all(b.raw_xml == RESULTS for s in kept for b in s.entry.content if isinstance(b, ToolResult))


@pytest.mark.parametrize(
    ("item", "key"),
    [
        ({"id": "x"}, "item::x"),
        ({"type": 5, "id": "x"}, "item:5:x"),
        ({"type": 1.5, "id": "x"}, "item:1.5:x"),
        ({"type": True, "id": "x"}, "item:true:x"),
        ({"type": False, "id": "x"}, "item:false:x"),
        ({"type": {"a": 1}, "id": "x"}, "item:[object Object]:x"),
        ({"type": ["a", "b"], "id": "x"}, "item:a,b:x"),
        ({"type": "message", "id": 7}, 'item:{"type":"message","id":7}'),
        (["a"], 'item:["a"]'),
        (None, None),
        (3, None),
    ],
)
def test_an_items_key_reads_its_type_as_javascript_strings_it(item, key) -> None:
    """``itemKey``: ``item:`` + ``String(type ?? '')`` + ``:`` + a string id, else the item's JSON; not an object:
    no key."""
    assert raw_form_keys(Text("t", raw_item=item)) == ([] if key is None else [key])


def test_the_new_block_fields_are_checked_at_construction() -> None:
    """``Image.data`` is a string or None (its length is the image's bytes); the byte wall's default is 20 MiB."""
    with pytest.raises(InvalidStoreError, match=r"^Image\.data must be a string or None, got 5$"):
        Image(data=5)  # type: ignore[arg-type]
    assert Image(data="AAAA").byte_size == 4 and Image().byte_size == 0
    assert reference_wall(Config(), ImageRules(byte_wall=True)) == 20 * 1024 * 1024 == DEFAULT_MAX_LIVE_IMAGE_BYTES
    assert reference_wall(Config(max_live_image_bytes=7), ImageRules(byte_wall=True)) == 7
    assert reference_wall(Config(max_live_image_bytes=7), ImageRules()) == 0


def test_reasoning_at_the_end_of_a_message_pairs_with_nothing() -> None:
    """A reasoning item with no follower in the message is its own raw form: cutting the text before it keeps it."""
    text = Text("first part", raw_item={"type": "message", "id": "msg_1"})
    tail = RedactedThinking("x", raw_item={"type": "reasoning", "id": "rs_9"})
    kept = release_edited((text, tail), (Text("cut", raw_item={"type": "message", "id": "msg_1"}), tail))
    assert kept[1] is tail and kept[0].raw_item is None


# ----------------------------------------------------------------------------- the reference's raw forms

CORPUS = Path(__file__).parent / "scenarios" / "typescript"


@pytest.mark.parametrize("name", ["input-truncation", "second-compile", "last-n-marker", "message-cap"])
@pytest.mark.parametrize("line", [HYSTERESIS, RAW_FORMS])
def test_the_reference_renders_the_raw_forms_each_line_sends(name: str, line: str) -> None:
    """``reference/raw_forms.py``, written apart from ``strategies/``: on upstream's raw-forms stores the reference
    rendering releases what the raw-forms line releases and keeps what the hysteresis line keeps."""
    sc = loads_scenario((CORPUS / f"raw-forms-{name}.scenario.json").read_text())
    assert INVARIANTS["rendering"](sc.store, sc.config, sc.budget, line) == []


@pytest.mark.parametrize(
    ("item", "key"),
    [
        ({"type": "message", "id": "x"}, "item:message:x"),
        ({"id": "x"}, "item::x"),
        ({"type": 5, "id": "x"}, "item:5:x"),
        ({"type": True, "id": "x"}, "item:true:x"),
        ({"type": False, "id": "x"}, "item:false:x"),
        ({"type": {"a": 1}, "id": "x"}, "item:[object Object]:x"),
        ({"type": ["a", "b"], "id": "x"}, "item:a,b:x"),
        ({"type": "message", "id": 7}, 'item:{"type":"message","id":7}'),
        (["a"], 'item:["a"]'),
        (None, None),
        ("s", None),
    ],
)
def test_both_implementations_key_an_item_alike(item, key) -> None:
    block = ToolUse("a", "n", {}, raw_xml="<x/>", raw_item=item)
    expected = {"xml:<x/>"} | ({key} if key else set())
    assert set(raw_form_keys(block)) == reference_forms(block) == expected
    assert reference_forms(ToolUse("a", "n", {}, raw_xml="")) == set()


def test_the_reference_releases_pairings_and_moves_as_the_contract_says() -> None:
    rs = RedactedThinking("two", raw_item={"type": "reasoning", "id": "rs_2"})
    part = Text("first", raw_item={"type": "message", "id": "msg_1"})
    part2 = Text("second", raw_item={"type": "message", "id": "msg_1"})
    other = Text("other", raw_item={"type": "message", "id": "msg_2"})
    cut = Text("second, cut", raw_item={"type": "message", "id": "msg_1"})
    after = reference_after_edit((rs, part, part2, other), (rs, part, cut, other))
    assert after == (RedactedThinking("two"), Text("first"), Text("second, cut"), other) and after[3] is other
    untouched = (part, Text("note"))
    assert reference_after_edit((part, Text("n")), untouched) is untouched
    shared = ToolResult("a", "big", raw_xml="<r/>")
    assert reference_moved(shared, (shared, ToolResult("b", "small", raw_xml="<r/>"))).raw_xml is None
    assert reference_moved(shared, (shared, Text("x"))) is shared


def _rs(name: str) -> RedactedThinking:
    return RedactedThinking(name, raw_item={"type": "reasoning", "id": name})


def _msg(text: str, name: str) -> Text:
    return Text(text, raw_item={"type": "message", "id": name})


def test_the_reference_pairs_reasoning_only_with_its_follower_past_blocks_without_an_item() -> None:
    """A block with no item before the pairing does not end it; a released XML form is released alongside."""
    head, rs, part = Text("plain"), _rs("rs_1"), _msg("first", "msg_1")
    after = reference_after_edit((head, rs, part), (head, rs, _msg("cut", "msg_1")))
    assert after == (head, RedactedThinking("rs_1"), Text("cut"))
    a, b = ToolResult("a", "big", raw_xml="<r/>"), ToolResult("b", "small", raw_xml="<r/>")
    assert reference_after_edit((rs, part, a, b), (rs, b)) == (RedactedThinking("rs_1"), ToolResult("b", "small"))


def test_the_reference_keeps_a_pairing_no_released_form_touches() -> None:
    rs, part = _rs("rs_1"), _msg("first", "msg_1")
    a, b = ToolResult("a", "big", raw_xml="<r/>"), ToolResult("b", "small", raw_xml="<r/>")
    after = reference_after_edit((rs, part, a, b), (rs, part, b))
    assert after == (rs, part, ToolResult("b", "small")) and after[0] is rs and after[1] is part


def test_the_reference_releases_a_pairing_reached_through_another() -> None:
    """``rs_1`` pairs with ``msg_1`` and again with ``msg_2``: cutting ``msg_2`` releases ``rs_1``, and so
    ``msg_1``."""
    rs, one, two = _rs("rs_1"), _msg("one", "msg_1"), _msg("two", "msg_2")
    after = reference_after_edit((rs, one, rs, two), (rs, one, rs, _msg("cut", "msg_2")))
    assert after == (RedactedThinking("rs_1"), Text("one"), RedactedThinking("rs_1"), Text("cut"))


def test_the_reference_keys_items_as_json_stringify_writes_them() -> None:
    assert reference_forms(Text("t", raw_item=["é"])) == {'item:["é"]'} == set(raw_form_keys(Text("t", raw_item=["é"])))
    assert reference_forms(Image()) == set()
    shared = ToolResult("a", "big", raw_xml="XXXX")
    assert reference_moved(shared, (shared, ToolResult("b", "small", raw_xml="XXXX"))).raw_xml is None


#: The raw forms a drawn block may carry: XML texts (the empty one carries none), items keyed by type and id,
#: items keyed by their JSON, reasoning items, and nothing.
_XML = st.sampled_from([None, "", "<a/>", "<b/>"])
_ITEM = st.sampled_from(
    [
        None,
        "not-an-object",
        {"type": "message", "id": "msg_1"},
        {"type": "message", "id": "msg_2"},
        {"type": "function_call", "id": "fc_1"},
        {"type": "reasoning", "id": "rs_1"},
        {"type": "reasoning", "id": "rs_2"},
        {"type": "message", "content": []},
        ["é"],
    ]
)
_FORMED = st.one_of(
    st.builds(Text, st.sampled_from(["a", "b"]), raw_item=_ITEM),
    st.builds(RedactedThinking, st.sampled_from(["x", "y"]), raw_item=_ITEM),
    st.builds(ToolUse, st.just("t"), st.just("n"), st.just({}), raw_xml=_XML, raw_item=_ITEM),
    st.builds(ToolResult, st.just("t"), st.sampled_from(["r", "s"]), raw_xml=_XML, raw_item=_ITEM),
)


@st.composite
def _edits(draw: st.DrawFn) -> tuple[tuple, tuple]:
    """A message's blocks (a block may appear twice as the same object, and equal blocks as distinct ones) and an
    edit of them: each kept block the same object, some dropped, some replaced by new blocks, maybe reordered."""
    pool = draw(st.lists(_FORMED, min_size=1, max_size=4))
    before = tuple(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6)))
    after = []
    for block in before:
        fate = draw(st.sampled_from(["keep", "keep", "drop", "replace"]))
        after += [block] if fate == "keep" else [draw(_FORMED)] if fate == "replace" else []
    if draw(st.booleans()):
        after.reverse()
    return before, tuple(after)


@given(_edits())
def test_raw_forms_are_released_as_the_reference_releases_them(edit: tuple[tuple, tuple]) -> None:
    """The raw-forms line's release after an edit and on a move, against the contract's own reading of them
    (``reference.raw_forms``), over blocks sharing forms by identity and by equal copies."""
    before, after = edit
    assert release_edited(before, after) == reference_after_edit(before, after)
    for block in before:
        assert release_shared_on_move(block, before) == reference_moved(block, before), block
