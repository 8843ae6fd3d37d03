"""The compile's cap and tool passes against the reference's own, on inputs the store generators seldom reach:
astral text under a cap that cuts it, tool inputs with ten or more array-index keys or astral values under the
input cap, a result standing up to nine entries after its call, stubs beside real results under per-tool limits
(0 among them), images counted against the live limit, the depth on each running sum, the byte wall and the
hysteresis watermark over images of drawn sizes."""

from __future__ import annotations

import math
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from invariants.generators import cases
from invariants.properties import UNLIMITED, assert_holds
from reference import cap as reference_cap
from reference import images as reference_images
from reference import passes as reference_passes
from reference.estimator import calibrated_tokens, store_pricing
from reference.images import stripped
from reference.model import Budget, Config, Entry, Image, Message, Store, Summary, Text, ToolResult, ToolUse
from reference.numerics import Number, is_finite_nonneg
from reference.selection import Rules, bounds, head_total, select, store_wide_flags
from strategies.cap import truncate
from strategies.images import ImagePolicy, advance_watermark, decide, decide_policy, strip, strip_start
from strategies.tool_pairing import Slot, Stubs, enforce_tool_pairing, trim_orphaned_tool_use
from strategies.tool_pruning import prune_tool_entries

#: Astral characters (two UTF-16 units, one code point) among plain and dense ones.
odd_text = st.text(st.sampled_from("ab {\U0001f600\U00010348é"), max_size=30)
capped_blocks = st.lists(
    st.one_of(odd_text.map(Text), odd_text.map(lambda s: ToolResult("u0", s))), min_size=1, max_size=4
)


@given(content=capped_blocks, cap=st.integers(1, 12))
def test_the_cap_cuts_astral_text_as_the_reference_does(content, cap):
    assert truncate(tuple(content), cap) == reference_cap.cap_content(tuple(content), cap)


index_keys = st.integers(0, 15).map(str)
tool_inputs = st.dictionaries(st.one_of(index_keys, st.sampled_from(["path", "q", "_x"])), odd_text, max_size=14)


@given(value=tool_inputs, cap=st.integers(1, 40))
def test_the_input_cap_keeps_a_marker_and_the_keys_the_reference_keeps(value, cap):
    entry = Entry("assistant", (ToolUse("u0", "read", value),), "raw", message_id="m0")
    config = Config(tool_use_input_max_tokens=cap)
    ours = prune_tool_entries([Slot(0, entry)], config, Stubs())[0].entry
    theirs = reference_passes.prune([reference_passes.Piece.of(0, entry)], config)[0].entry
    assert ours == theirs


@given(gap=st.integers(1, 9), tail=st.integers(0, 3))
def test_a_result_up_to_nine_entries_after_its_call_is_moved_or_stubbed_as_the_reference_does(gap, tail):
    call = Entry("assistant", (ToolUse("u0", "read", {}),), "raw", message_id="m0")
    filler = [Entry(("user", "assistant")[k % 2], (Text(f"t{k}"),), "raw", message_id=f"m{k}") for k in range(1, gap)]
    result = Entry("user", (ToolResult("u0", "out"),), "raw", message_id=f"m{gap}")
    after = [Entry("assistant", (Text("x"),), "raw", message_id=f"m{gap + 1 + k}") for k in range(tail)]
    entries = [call, *filler, result, *after]
    ours, _ = enforce_tool_pairing([Slot(k, e) for k, e in enumerate(entries)])
    theirs = reference_passes.pair([reference_passes.Piece.of(k, e) for k, e in enumerate(entries)])
    assert [s.entry for s in ours] == [p.entry for p in theirs]


@st.composite
def tool_runs(draw: st.DrawFn) -> tuple[list[Entry], list[bool]]:
    """Calls of two tools, each answered in the next entry by a real result or by a stub (per result)."""
    entries: list[Entry] = []
    stubbed: list[bool] = []
    for k in range(draw(st.integers(1, 7), label="calls")):
        tool = draw(st.sampled_from(["read", "grep"]), label="tool")
        entries.append(Entry("assistant", (ToolUse(f"u{k}", tool, {}),), "raw", message_id=f"c{k}"))
        entries.append(Entry("user", (ToolResult(f"u{k}", f"out {k}"),), "raw", message_id=f"r{k}"))
        stubbed.append(draw(st.booleans(), label="stub"))
    return entries, stubbed


@st.composite
def mixed_turns(draw: st.DrawFn) -> list[Entry]:
    """One to six entries, each one to three blocks of text, calls and results in any mix (a call beside a result
    among them); entry k's calls are ``u{k}-j``, its results answer entry k-1's."""
    entries = []
    for k in range(draw(st.integers(1, 6), label="entries")):
        kinds = draw(st.lists(st.sampled_from(["text", "call", "result"]), min_size=1, max_size=3), label="blocks")
        blocks = [
            Text(f"t{k}")
            if kind == "text"
            else ToolUse(f"u{k}-{j}", "read", {})
            if kind == "call"
            else ToolResult(f"u{k - 1}-{j}", "out")
            for j, kind in enumerate(kinds)
        ]
        entries.append(Entry(("assistant", "user")[k % 2], tuple(blocks), "raw", message_id=f"m{k}"))
    return entries


@given(entries=mixed_turns())
def test_trim_and_pairing_keep_what_the_reference_keeps_over_any_mix_of_calls_and_results(entries):
    """Trim pops only trailing entries with a call and no result; the pairing after it: both as the reference."""
    ours = trim_orphaned_tool_use([Slot(k, e) for k, e in enumerate(entries)])
    theirs = reference_passes.trim([reference_passes.Piece.of(k, e) for k, e in enumerate(entries)])
    assert [s.entry for s in ours] == [p.entry for p in theirs]
    paired, _ = enforce_tool_pairing(ours)
    assert [s.entry for s in paired] == [p.entry for p in reference_passes.pair(theirs)]


limits = st.one_of(st.integers(0, 4), st.dictionaries(st.sampled_from(["read", "grep"]), st.integers(-1, 3)))


@given(run=tool_runs(), limit=limits)
def test_each_tools_newest_results_are_kept_as_the_reference_keeps_them(run, limit):
    """A stub the pairing made neither counts toward its tool's limit nor changes; a limit of 0 keeps none."""
    entries, stubbed = run
    config = Config(tool_result_max_last_n=limit)
    stubs = Stubs(tuple(e.content[0] for e, s in zip(entries[1::2], stubbed, strict=True) if s))
    ours = prune_tool_entries([Slot(k, e) for k, e in enumerate(entries)], config, stubs)
    flags = [(False,) if k % 2 == 0 else (stubbed[k // 2],) for k in range(len(entries))]
    pieces = [reference_passes.Piece(k, e, f) for k, (e, f) in enumerate(zip(entries, flags, strict=True))]
    theirs = reference_passes.prune(pieces, config)
    assert [s.entry for s in ours] == [p.entry for p in theirs]


@given(
    counts=st.lists(st.integers(0, 3), min_size=1, max_size=8),
    start=st.integers(0, 8),
    limit=st.integers(0, 4),
)
def test_the_newest_images_stay_live_as_the_reference_keeps_them(counts, start, limit):
    contents = [(*(Image() for _ in range(n)), Text("t")) for n in counts]
    config = Config(max_live_images=limit)
    kept = decide(range(len(contents)), counts, start, config)
    flags = reference_images.live_flags(contents, range(len(contents)), start, config)
    ours = [strip(c, d) for c, d in zip(contents, kept, strict=True)]
    assert ours == [reference_images.stripped(c, f) for c, f in zip(contents, flags, strict=True)]


@st.composite
def stray_result_stores(draw: st.DrawFn) -> Store:
    """Calls of two tools each answered next, some results repeated in a later message (the pairing drops those)."""
    messages: list[Message] = []
    for k in range(draw(st.integers(1, 5), label="calls")):
        tool = draw(st.sampled_from(["read", "grep"]), label="tool")
        messages.append(Message(f"m{len(messages)}", "assistant", (ToolUse(f"u{k}", tool, {}),)))
        messages.append(Message(f"m{len(messages)}", "user", (ToolResult(f"u{k}", f"out {k}"),)))
        if draw(st.booleans(), label="repeated"):
            messages.append(Message(f"m{len(messages)}", "user", (ToolResult(f"u{k}", "again"),)))
    return Store(messages=tuple(messages))


@given(store=stray_result_stores(), limit=limits)
def test_a_result_the_pairing_drops_never_counts_toward_its_tools_limit(store, limit):
    """What the compile sends is the reference rendering, which prunes what the pairing kept."""
    assert_holds("rendering", store, Config(tool_result_max_last_n=limit), UNLIMITED, "sound")


def _waterfall_tokens(s: Summary) -> Number:
    t = s.tokens
    return t if is_finite_nonneg(t) else 0


@given(case=cases(), grace=st.sampled_from([1, 10, 1000]))
def test_sound_selects_as_the_reference_with_the_input_budget_on_a_waterfall_edge(case, grace):
    """The waterfall stops a level where the head and every level's picks so far pass the input budget. On each
    such edge of a selection from two levels or more (the head plus the first picks, one token either side) sound
    selects what the reference selects; a large grace ratio lets the context go out, so the selection is seen."""
    store, base, _ = case
    config = replace(base, enforce_budget=True, over_budget_grace_ratio=grace)
    head_end, _ = bounds(store, config, Rules())
    head = head_total(store, config, head_end, Rules())
    chosen = select(store, config, UNLIMITED, Rules()).selected
    if len({s.level for s in chosen}) < 2:
        return
    sums = [head + sum(_waterfall_tokens(s) for s in chosen[: k + 1]) for k in range(len(chosen))]
    edges = {math.floor(x) + d for x in sums if math.isfinite(x) and x < 2**53 for d in (-1, 0, 1)} - {-1}
    for b in sorted(edges):
        assert_holds("selection", store, config, Budget(max_tokens=b), "sound")


#: Summary texts of every length under a small cap: plain, dense and astral characters, blank.
summary_texts = st.text(st.sampled_from("ab cd{\u00e9\U0001f600"), max_size=120)


@st.composite
def side_by_side(draw) -> Store:
    """Two to five L1 summaries side by side over a store of plain messages, none of them in a window."""
    texts = draw(st.lists(summary_texts, min_size=2, max_size=5))
    messages = tuple(Message(f"m{i}", ("user", "assistant")[i % 2], (Text("x" * 12),)) for i in range(2 * len(texts)))
    summaries = tuple(
        Summary(
            f"L1-{j}",
            1,
            text,
            draw(st.sampled_from([None, 3, 40])),
            0,
            (f"m{2 * j}", f"m{2 * j + 1}"),
            (f"m{2 * j}", f"m{2 * j + 1}"),
        )
        for j, text in enumerate(texts)
    )
    return Store(messages, summaries)


@given(store=side_by_side(), data=st.data(), envelope=st.sampled_from(["xml", "none"]))
def test_sound_sends_the_reference_combined_answer_under_any_cap(store, data, envelope):
    """The combined answer of several summaries, xml or flat, under a cap that cuts it anywhere (inside any
    summary, on a separator, before the first): sound sends what the reference renders, each separator charged,
    holding the summaries the reference holds."""
    text = sum(len(s.content) for s in store.summaries)
    cap = data.draw(st.integers(1, text // 3 + 20), label="cap")
    config = Config(
        head_window_tokens=0,
        recent_window_tokens=0,
        l1_budget_tokens=10**6,
        positioned_recall_pairs=False,
        recall_envelope=envelope,
        max_message_tokens=cap,
    )
    assert_holds("rendering", store, config, UNLIMITED, "sound")


@st.composite
def imaged_middles(draw) -> Store:
    """Three to six messages, each a text and up to two images, one L1 summary over a run of them short of the
    newest."""
    n = draw(st.integers(3, 6), label="messages")
    messages = tuple(
        Message(
            f"m{i}",
            ("user", "assistant")[i % 2],
            (Text("x" * draw(st.integers(0, 40))), *(Image() for _ in range(draw(st.integers(0, 2))))),
        )
        for i in range(n)
    )
    first = draw(st.integers(0, n - 2), label="first leaf")
    last = draw(st.integers(first, n - 2), label="last leaf")
    ids = tuple(f"m{i}" for i in range(first, last + 1))
    return Store(messages, (Summary("L1-0", 1, "what happened", None, 0, ids, (ids[0], ids[-1])),))


def _post_strip_prices(store: Store, config: Config) -> list[Number]:
    """Each message's price after the store-wide image count strips it: what the recent window walks."""
    rules = Rules()
    rule = store_pricing(store, verbatim_stamps=rules.verbatim_stamps)
    flags = store_wide_flags(store, config, rules)
    return [
        calibrated_tokens(stripped(m.content, f, rules.images.placeholder), rule, store.calibration)
        for m, f in zip(store.messages, flags, strict=True)
    ]


@given(store=imaged_middles(), live=st.integers(1, 2))
def test_sound_sends_the_reference_context_with_the_recent_window_on_each_post_strip_edge(store, live):
    """The recent window walks each message's price after the store-wide image count strips it: with the window
    on each such edge (the newest k messages' stripped price, and one token under), where a stripped image moves
    the boundary, sound sends what the reference renders."""
    config = Config(head_window_tokens=0, max_live_images=live, l1_budget_tokens=10**6)
    post = _post_strip_prices(store, config)
    edges = {sum(post[len(post) - k :]) + d for k in range(1, len(post)) for d in (-1, 0)}
    for window in sorted(edges):
        for invariant in ("selection", "rendering"):
            assert_holds(invariant, store, replace(config, recent_window_tokens=window), UNLIMITED, "sound")


#: Message prices, as the depth rule sums them from the newest message.
message_prices = st.lists(st.integers(0, 20), min_size=1, max_size=8)


@given(prices=message_prices, data=st.data())
def test_the_image_depth_starts_where_the_reference_starts_it_on_each_running_sum(prices, data):
    """The depth is drawn on a running sum from the newest message (or one token either side), where "passes
    the depth" and "reaches it" part: the first index within it is the reference's."""
    sums = [sum(prices[i:]) for i in range(len(prices))]
    depth = data.draw(st.sampled_from(sums), label="running sum") + data.draw(st.sampled_from([-1, 0, 1]), label="off")
    assert strip_start(prices, depth) == reference_images.depth_start(prices, depth)


@st.composite
def imaged_contents(draw: st.DrawFn) -> list[tuple]:
    """One to six messages of a text and up to three images, each image's base64 payload 0 to 12 characters or
    none."""
    payload = st.one_of(st.none(), st.integers(0, 12).map(lambda n: "A" * n))
    return [
        (*(Image(data=d) for d in draw(st.lists(payload, max_size=3))), Text("t"))
        for _ in range(draw(st.integers(1, 6), label="messages"))
    ]


@given(
    contents=imaged_contents(),
    wall=st.integers(1, 24),
    live=st.integers(0, 4),
    first_block_first=st.booleans(),
    data=st.data(),
)
def test_the_byte_wall_keeps_the_images_the_reference_keeps(contents, wall, live, first_block_first, data):
    """On a byte-wall line an image past the wall with what is kept so far is skipped, never a stop: the images
    kept, under any count, depth start, watermark and block order, are the reference's."""
    start = data.draw(st.integers(0, len(contents)), label="depth start")
    below = data.draw(st.one_of(st.none(), st.integers(0, len(contents) - 1)), label="watermark")
    config = Config(max_live_images=live, max_live_image_bytes=wall, image_strip_depth_tokens=1 if start else 0)
    policy = ImagePolicy(byte_wall=True, first_block_first=first_block_first, watermark=below)
    rules = reference_images.ImageRules(byte_wall=True, first_block_first=first_block_first, below=below)
    positions = range(len(contents))
    kept = decide_policy(positions, contents, start, config, policy)
    flags = reference_images.live_flags(contents, positions, start, config, rules)
    ours = [strip(c, k) for c, k in zip(contents, kept, strict=True)]
    assert ours == [reference_images.stripped(c, f) for c, f in zip(contents, flags, strict=True)]


@given(
    contents=imaged_contents(),
    data=st.data(),
    live=st.integers(0, 4),
    depth=st.integers(0, 30),
    wall=st.one_of(st.just(0), st.integers(1, 24)),
    ratio=st.sampled_from([0.1, 0.25, 0.5, 0.75, 0.9]),
)
def test_the_hysteresis_watermark_stands_where_the_reference_sets_it(contents, data, live, depth, wall, ratio):
    """A fresh compile's watermark under each limit scaled by the ratio (a count on stays at least 1, a limit
    off stays off), over drawn prices, counts, depths and byte walls: where the reference sets it."""
    prices = data.draw(st.lists(st.integers(0, 10), min_size=len(contents), max_size=len(contents)), label="prices")
    config = Config(
        max_live_images=live,
        image_strip_depth_tokens=depth,
        max_live_image_bytes=wall,
        image_strip_hysteresis_ratio=ratio,
    )
    start = data.draw(st.one_of(st.none(), st.integers(0, len(contents) - 1)), label="watermark before")
    ours = advance_watermark(prices, contents, config, ImagePolicy(byte_wall=True, watermark=start), newer_only=False)
    rules = reference_images.ImageRules(byte_wall=True, hysteresis=True, below=start)
    assert ours == reference_images.watermark(prices, contents, config, rules)


PICTURE = (Image(token_estimate=1),)


def _resumed_watermark(messages: int, start: int | None, ratio: float | None = 0.5) -> int | None:
    """The reference's watermark over ``messages`` one-image messages under a live-image count of 2, from ``start``."""
    config = Config(max_live_images=2, image_strip_hysteresis_ratio=ratio)
    rules = reference_images.ImageRules(hysteresis=True, below=start)
    return reference_images.watermark([1] * messages, [PICTURE] * messages, config, rules)


def test_the_reference_watermark_resumes_from_where_earlier_compiles_left_it():
    """Counted by hand: a fresh compile of three images over a count of 2 binds and trims to 1 (the watermark at the
    middle message); from a watermark, only the images newer than it count, and it never moves back."""
    assert _resumed_watermark(3, None) == 1
    assert _resumed_watermark(3, 1) == 1  # one newer image: room left
    assert _resumed_watermark(3, 0) == 0  # two newer images: the count of 2 is not passed
    assert _resumed_watermark(4, 0) == 2  # three newer images: binds, trims to the newest alone
    assert _resumed_watermark(4, 2, ratio=None) == 2  # no ratio: it stays where it was
    assert _resumed_watermark(2, None) is None


def test_a_limit_the_ratio_scales_to_nothing_leaves_a_resumed_watermark_where_it_was():
    """A depth of 1 binds on the middle message, but at ratio 0.5 it scales to 0 (off): no message misfits the
    scaled limits, so the watermark stays where the earlier compiles left it (a fresh one stays unset)."""
    config = Config(image_strip_depth_tokens=1, image_strip_hysteresis_ratio=0.5)
    for start in (None, 0):
        rules = reference_images.ImageRules(hysteresis=True, below=start)
        assert reference_images.watermark([1, 1, 1], [PICTURE] * 3, config, rules) == start
