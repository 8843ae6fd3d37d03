"""The judges on wrong outcomes: each invariant, handed a context or a refusal no sound compile makes (built by
hand over a generated store, or a sound refusal with one field made wrong, put in place of the compile's
outcome), must break; handed its right twin, must hold.

Where the variants never send the wrong shape, only such a test can see a judge that lets it through.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from hypothesis import given
from hypothesis import strategies as st

from invariants.generators import cases, stores, tool_stores
from invariants.properties import (
    SHARED_COMPILES,
    UNLIMITED,
    Outcome,
    chronological,
    compile_once,
    diagnostics_full,
    exactly_once,
    grace_limit,
    never_over,
    nothing_lost,
    selection_rule,
    tail_suffix,
    well_formed,
)
from reference.model import Budget, Config, Entry, Store, Summary, Text, ToolResult, ToolUse
from reference.price import reference_price
from reference.selection import Rules, bounds, message_prices
from strategies.errors import OverBudgetError, UncoveredDropError
from tests.builders import msg, summary

CONFIG = Config()
BUDGET = Budget(max_tokens=10**9)
#: Texts JavaScript's ``trim`` empties (its WhiteSpace and LineTerminator, the BOM among them).
JS_BLANK = st.text(st.sampled_from(" \t\n\r\u00a0\u2028\u3000\ufeff"), max_size=3)
#: Texts JavaScript's ``trim`` leaves something of (Python's ``strip`` would empty the first three).
NOT_JS_BLANK = st.sampled_from(["\x85", "\x1c", " \x1f ", "x", "a summary"])


@dataclass(frozen=True)
class Sent:
    """The part of a compile's result the judges of what is sent read."""

    entries: tuple[Entry, ...]
    selected: tuple[str, ...] = ()


def judged(
    invariant,
    store: Store,
    entries: list[Entry] | None = None,
    *,
    error=None,
    result=None,
    config=CONFIG,
    budget=BUDGET,
) -> list:
    """``invariant`` on ``store`` as if the sound compile had sent ``entries`` (or ``result``, or raised ``error``)."""
    if error is not None:
        outcome = Outcome(error=error)
    else:
        outcome = Outcome(result=result if result is not None else Sent(tuple(entries or ())))
    token = SHARED_COMPILES.set({(id(store), id(config), repr(budget), "sound"): (store, config, outcome)})
    try:
        return invariant(store, config, budget, "sound")
    finally:
        SHARED_COMPILES.reset(token)


def raw(store: Store, message_id: str) -> Entry:
    m = store.messages[store.index(message_id)]
    return Entry(m.participant, m.content, "raw", message_id=m.id)


def pair(summary: Summary) -> list[Entry]:
    return [
        Entry("user", (Text("What do you remember?"),), "question", summary_ids=(summary.id,)),
        Entry("assistant", (Text(summary.content),), "answer", summary_ids=(summary.id,)),
    ]


def with_content(store: Store, sid: str, content: str) -> Store:
    summaries = tuple(replace(s, content=content) if s.id == sid else s for s in store.summaries)
    return replace(store, summaries=summaries)


def sent_through(store: Store, held: list[Summary]) -> list[Entry]:
    """Every message not a leaf of ``held`` raw, in order, then a pair for each of ``held``."""
    leaves = set().union(*(store.leaves(s.id) for s in held))
    return [raw(store, m.id) for m in store.messages if m.id not in leaves] + [e for s in held for e in pair(s)]


@given(store=stores(), data=st.data(), blank=JS_BLANK, text=NOT_JS_BLANK)
def test_nothing_lost_breaks_on_the_leaves_of_a_blank_summary_sent_in_their_place(store, data, blank, text):
    unmerged = store.unmerged()
    if not unmerged:
        return
    s = data.draw(st.sampled_from(unmerged), label="summary")
    written = with_content(store, s.id, text)
    assert judged(nothing_lost, written, sent_through(written, [written.summary(s.id)])) == []
    blanked = with_content(store, s.id, blank)
    found = judged(nothing_lost, blanked, sent_through(blanked, [blanked.summary(s.id)]))
    assert len(found) == 1, f"a blank summary {blank!r} stood for {sorted(store.leaves(s.id))}: {found}"
    for m in store.leaves(s.id):
        assert m in found[0].message


@given(store=stores(), data=st.data())
def test_exactly_once_breaks_when_a_summary_is_sent_beside_the_one_that_merged_it(store, data):
    merged = [s for s in store.summaries if s.parent_id is not None]
    if not merged:
        return
    s = data.draw(st.sampled_from(merged), label="summary")
    parent = store.summary(s.parent_id)
    assert judged(exactly_once, store, sent_through(store, [parent])) == []
    found = judged(exactly_once, store, sent_through(store, [parent, s]))
    assert len(found) == 1, f"{s.id} and {parent.id} both sent: {found}"
    for m in store.leaves(s.id):
        assert f"{m} (0 raw, 2 through summaries)" in found[0].message


@given(store=stores(), data=st.data())
def test_exactly_once_breaks_on_a_summary_held_twice_in_one_answer_or_in_two(store, data):
    unmerged = store.unmerged()
    if not unmerged:
        return
    s = data.draw(st.sampled_from(unmerged), label="summary")
    once = sent_through(store, [s])
    assert judged(exactly_once, store, once) == []
    question, answer = once[-2:]
    twice = [replace(e, summary_ids=(s.id, s.id)) for e in (question, answer)]
    for entries in (once[:-2] + twice, once + once[-2:]):
        found = judged(exactly_once, store, entries)
        assert len(found) == 1, f"{s.id} held twice: {found}"
        assert f"summaries held twice: [{s.id!r}]" in found[0].message, found[0].message
        for m in store.leaves(s.id):
            assert f"{m} (0 raw, 2 through summaries)" in found[0].message


@given(
    store=stores(), data=st.data(), windows=st.tuples(st.sampled_from([0, 10, 30]), st.sampled_from([0, 10, 30, 80]))
)
def test_exactly_once_breaks_on_a_middle_message_sent_raw_beside_a_summary_that_holds_it(store, data, windows):
    """The straddling claimer excuses a window message only: a middle leaf sent raw beside its summary breaks,
    whether or not the summary also reaches a window."""
    config = Config(head_window_tokens=windows[0], recent_window_tokens=windows[1])
    head_end, middle_end = bounds(store, config, Rules())
    in_middle = {m.id for m in store.messages[head_end:middle_end]}
    reaching = [s for s in store.unmerged() if store.leaves(s.id) & in_middle]
    if not reaching:
        return
    s = data.draw(st.sampled_from(reaching), label="summary")
    m = data.draw(st.sampled_from(sorted(store.leaves(s.id) & in_middle)), label="middle leaf")
    entries = sent_through(store, [s])
    assert judged(exactly_once, store, entries, config=config) == []
    found = judged(exactly_once, store, [*entries, raw(store, m)], config=config)
    assert found and f"{m} (1 raw, 1 through summaries)" in found[0].message, f"{m} sent raw beside {s.id}: {found}"


@given(store=tool_stores(), data=st.data())
def test_well_formed_breaks_on_a_tool_use_no_entry_answers_wherever_it_stands(store, data):
    out = compile_once(store, CONFIG, UNLIMITED, "sound")
    if not out.sent:
        return
    entries = list(out.entries)
    assert judged(well_formed, store, entries) == []
    at = data.draw(st.integers(0, len(entries)), label="where the unanswered tool_use goes")
    for k in sorted({at, len(entries)}):
        open_use = Entry("assistant", (ToolUse("open-call", "probe", {}),), "raw")
        found = judged(well_formed, store, [*entries[:k], open_use, *entries[k:]])
        assert found and "'open-call'" in found[0].message, f"an unanswered tool_use at entry {k} passed: {found}"


@given(store=stores(), data=st.data())
def test_tail_suffix_breaks_when_the_evicted_tail_messages_leave_a_gap(store, data):
    config = Config(recent_window_tokens=10**9)  # the whole store is the tail
    _, start = bounds(store, config, Rules())
    tail = [m.id for m in store.messages[start:]]
    if len(tail) < 3:
        return
    cut = data.draw(st.integers(1, len(tail) - 2), label="evicted run")
    gap = data.draw(st.integers(cut + 1, len(tail) - 1), label="evicted after a gap")

    def evicting(ids: list[str]) -> UncoveredDropError:
        return UncoveredDropError(tuple(ids), dict.fromkeys(ids, "in-tail-not-rendered"))

    assert judged(tail_suffix, store, error=evicting(tail[:cut]), config=config) == []
    found = judged(tail_suffix, store, error=evicting([*tail[:cut], tail[gap]]), config=config)
    assert found and "not the oldest run" in found[0].message, f"evicted {tail[:cut]} and {tail[gap]}: {found}"


#: The fields of a refusal's diagnostics that diagnostics-full recomputes (``cleared_by`` is diagnostics').
FULL_FIELDS = (
    "head_tokens",
    "tail_tokens",
    "middle_tokens",
    "middle_count",
    "middle_count_unit",
    "deepest_level",
    "configured_budget",
    "reserve_for_response",
    "input_budget",
)


def contrary(value: object) -> object:
    """A diagnostics value no sound refusal reports in its place."""
    if value == "selection-items":
        return "raw-messages"
    if value == "raw-messages":
        return "selection-items"
    bumped = value + 1 if math.isfinite(value) else 0
    return bumped if bumped != value else -value - 1  # past 2**53, + 1 is the same double


def refusal_with(err: OverBudgetError, **changes) -> OverBudgetError:
    """``err`` with the fields ``changes`` names made other."""
    fields = dict(
        budget=err.budget,
        actual=err.actual,
        stage=err.stage,
        diagnostics=err.diagnostics,
        item=err.item,
        refused=err.refused,
    )
    return OverBudgetError(**{**fields, **changes})


@given(case=cases())
def test_diagnostics_full_breaks_on_each_field_of_a_sound_refusal_made_wrong(case):
    store, config, budget = case
    out = compile_once(store, config, budget, "sound")
    if not isinstance(out.error, OverBudgetError):
        return
    err = out.error
    for name in FULL_FIELDS:
        wrong = refusal_with(
            err, diagnostics=replace(err.diagnostics, **{name: contrary(getattr(err.diagnostics, name))})
        )
        found = judged(diagnostics_full, store, error=wrong, config=config, budget=budget)
        assert found and f"{name} is" in found[0].message, f"{name} made wrong passed: {found}"


def _sent_unlimited(store: Store, config: Config):
    """What sound sends ``store`` at an unlimited budget (None when it refuses)."""
    out = compile_once(store, config, UNLIMITED, "sound")
    return out.result if out.sent else None


@given(case=cases(), data=st.data())
def test_never_over_breaks_exactly_when_the_price_sent_is_over_the_grace_limit_whatever_was_charged(case, data):
    store, config, _ = case
    result = _sent_unlimited(store, config)
    price = None if result is None else reference_price(result.entries, store, config)
    if price is None or not math.isfinite(price) or price >= 2**53:
        return
    near = st.integers(max(0, math.ceil(price) - 3), math.ceil(price) + 3)
    budget = Budget(max_tokens=data.draw(near, label="max_tokens"))
    charged = data.draw(st.integers(0, math.ceil(price) + 3), label="the stats' total")
    stats = replace(result.stats, total=replace(result.stats.total, tokens=charged))
    found = judged(never_over, store, result=replace(result, stats=stats), config=config, budget=budget)
    over = price > grace_limit(budget, config)
    assert bool(found) == over, f"price {price}, grace limit {grace_limit(budget, config)}, charged {charged}: {found}"


@given(case=cases(), data=st.data())
def test_selection_rule_breaks_on_the_sound_selection_in_any_other_order(case, data):
    store, config, _ = case
    result = _sent_unlimited(store, config)
    if result is None or len(result.selected) < 2:
        return
    order = tuple(data.draw(st.permutations(result.selected), label="the selection reordered"))
    found = judged(selection_rule, store, result=replace(result, selected=order), config=config, budget=UNLIMITED)
    assert bool(found) == (order != result.selected), f"{result.selected} sent as {order}: {found}"


def _stands_for(store: Store, entry: Entry) -> set[int]:
    leaves = set().union(*(store.leaves(sid) for sid in entry.summary_ids))
    return {store.index(m) for m in leaves}


def test_chronological_breaks_on_a_head_message_sent_again_after_later_pairs():
    """m0 and m1 are the head and L1-0 (over m0..m2) straddles it, so an entry before m1's already stands for m1:
    m1 sent after the pair of m3 and m4 is still out of order."""
    store = Store(messages=tuple(msg(i) for i in range(5)), summaries=(summary("L1-0", 0, 2), summary("L1-1", 3, 4)))
    config = Config(head_window_tokens=sum(message_prices(store, Rules())[:2]))
    result = _sent_unlimited(store, config)
    entries = result.entries
    assert [(e.kind, e.message_id or e.summary_ids) for e in entries[:2] + entries[3::2]] == [
        ("raw", "m0"),
        ("raw", "m1"),
        ("answer", ("L1-0",)),
        ("answer", ("L1-1",)),
    ]
    assert judged(chronological, store, result=result, config=config, budget=UNLIMITED) == []
    moved = (entries[0], *entries[2:], entries[1])
    found = judged(chronological, store, result=replace(result, entries=moved), config=config, budget=UNLIMITED)
    assert [str(v) for v in found] == [
        "[chronological] entry 5 stands for ['m1'], all of them before m3, the first of an entry before it"
    ]


@given(case=cases(), data=st.data())
def test_chronological_breaks_on_a_raw_message_moved_after_a_later_positioned_pair(case, data):
    """A raw message sent after a pair that stands only for later messages (none in the head) is out of order,
    wherever it came from."""
    store, base, _ = case
    config = replace(base, positioned_recall_pairs=True)
    result = _sent_unlimited(store, config)
    if result is None:
        return
    entries = list(result.entries)
    head_end, _ = bounds(store, config, Rules())
    moves = [
        (i, a)
        for i, r in enumerate(entries)
        if r.kind == "raw"
        for a, e in enumerate(entries)
        if a > i
        and e.kind == "answer"
        and min(_stands_for(store, e), default=-1) > max(store.index(r.message_id), head_end - 1)
    ]
    if not moves:
        return
    assert judged(chronological, store, result=result, config=config, budget=UNLIMITED) == []
    i, a = data.draw(st.sampled_from(moves), label="raw entry, answer")
    moved = [*entries[:i], *entries[i + 1 : a + 1], entries[i], *entries[a + 1 :]]
    found = judged(chronological, store, result=replace(result, entries=tuple(moved)), config=config, budget=UNLIMITED)
    assert found and entries[i].message_id in str(found), f"{entries[i].message_id} moved after entry {a}: {found}"


DROP_CATEGORIES = ("in-tail-not-rendered", "covered-by-unemitted-summary", "not-covered")


@given(
    dropped=st.lists(st.sampled_from([f"m{i}" for i in range(30)]), min_size=11, max_size=16, unique=True),
    data=st.data(),
)
def test_an_outcomes_signature_tells_two_drops_apart_by_the_category_of_any_message(dropped, data):
    """Two refusals to lose the same messages differ when one message's category does, named in the error's text
    or past its first ten."""
    categories = {m: data.draw(st.sampled_from(DROP_CATEGORIES), label=m) for m in dropped}
    m = data.draw(st.sampled_from(dropped), label="message recategorized")
    other = data.draw(st.sampled_from([c for c in DROP_CATEGORIES if c != categories[m]]), label="its new category")

    def signature(cats: dict) -> tuple:
        return Outcome(error=UncoveredDropError(tuple(dropped), cats)).signature()

    assert signature(categories) == signature(dict(categories))
    assert signature(categories) != signature({**categories, m: other}), f"{m}: {categories[m]} -> {other}"


@given(case=cases(), data=st.data())
def test_diagnostics_full_breaks_on_a_sound_refusal_naming_other_ids(case, data):
    """A refusal must name exactly one item of the reference layout: its ids with one more, or (a pair's held
    summaries) one fewer, name none."""
    store, config, budget = case
    out = compile_once(store, config, budget, "sound")
    if not isinstance(out.error, OverBudgetError):
        return
    err = out.error
    others = [(*err.refused, "ghost")]
    if len(err.refused) > 1:
        others.append(tuple(err.refused[:-1]))
    refused = data.draw(st.sampled_from(others), label="refused")
    wrong = refusal_with(err, refused=refused)
    assert judged(diagnostics_full, store, error=err, config=config, budget=budget) == []
    found = judged(diagnostics_full, store, error=wrong, config=config, budget=budget)
    assert found, f"a refusal of {err.refused} said it refused {refused}: {found}"


@given(store=tool_stores(), data=st.data())
def test_well_formed_breaks_on_a_tool_result_sent_again_anywhere_after_its_answer(store, data):
    """A call's result stands once, in the entry just after the call: a copy of it in that entry, or in any later
    entry, is a fault."""
    result = _sent_unlimited(store, CONFIG)
    if result is None:
        return
    entries = list(result.entries)
    answered = [
        (k, b)
        for k in range(len(entries) - 1)
        for b in entries[k + 1].content
        if isinstance(b, ToolResult)
        and any(isinstance(u, ToolUse) and u.id == b.tool_use_id for u in entries[k].content)
    ]
    if not answered:
        return
    k, copy = data.draw(st.sampled_from(answered), label="answered call")

    def asks(e: Entry) -> bool:
        return any(isinstance(u, ToolUse) and u.id == copy.tool_use_id for u in e.content)

    places = [t for t in range(k + 1, len(entries)) if t == k + 1 or not asks(entries[t - 1])]
    t = data.draw(st.sampled_from(places), label="entry the copy goes in")
    entries[t] = replace(entries[t], content=(*entries[t].content, copy))
    found = judged(well_formed, store, entries)
    assert found and repr(copy.tool_use_id) in found[0].message, f"a second {copy.tool_use_id} in entry {t}: {found}"


@given(case=cases(), data=st.data())
def test_an_outcomes_signature_tells_two_sends_apart_by_their_stats(case, data):
    """Two contexts of the same entries differ when what they charged does, in any bucket."""
    store, config, _ = case
    result = _sent_unlimited(store, config)
    if result is None:
        return
    bucket = data.draw(st.sampled_from(["head", "tail", "middle_raw", "combined", "l1", "l2", "l3", "total"]))
    charged = getattr(result.stats, bucket)
    other = replace(result.stats, **{bucket: replace(charged, tokens=charged.tokens + 1)})
    assert Outcome(result=result).signature() == Outcome(result=replace(result)).signature()
    assert Outcome(result=result).signature() != Outcome(result=replace(result, stats=other)).signature(), bucket
