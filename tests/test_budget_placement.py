"""The budgets are placed by what is sent unlimited, taken from the reference: the same entries as the sound
compile sends unlimited wherever that one does not refuse (invariants/generators/budget_placement.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from invariants.generators import cases, draw_budget, unlimited
from invariants.generators.case import Case
from invariants.properties.running import compile_once, entries_text, grace_limit
from reference.model import Budget, Config, Store
from reference.price import reference_price
from reference.rendering import Selection, render
from reference.selection import Rules, bounds
from tests.builders import msg
from tests.judge_cases import TWO_PAIRS

UNLIMITED = Budget(max_tokens=math.inf)


def unlimited_differs(case: Case, variant: str) -> str | None:
    """How the compile of ``variant`` unlimited differs from ``unlimited`` (None when it refuses or agrees)."""
    store, config, _ = case
    out = compile_once(store, config, UNLIMITED, variant)
    if not out.sent:
        return None
    sent = unlimited(store, config)
    assert sent is not None, "the reference raised where the compile sends"
    if entries_text(sent.entries) == entries_text(out.entries):
        return None
    return f"{variant} sends {len(out.entries)} entries unlimited, the placement's reference {len(sent.entries)}"


@given(cases())
def test_what_is_sent_unlimited_is_what_the_sound_compile_sends(case: Case) -> None:
    assert unlimited_differs(case, "sound") is None


def test_the_placement_reads_the_windows_bounds_of_the_selection() -> None:
    store = Store(messages=tuple(msg(i, 40) for i in range(4)))
    config = Config(head_window_tokens=60, recent_window_tokens=60)
    sent = unlimited(store, config)
    assert sent is not None
    assert sent.bounds == bounds(store, config, Rules()) == (1, 3)
    assert [e.message_id for e in sent.entries] == ["m0", "m1", "m2", "m3"]


def test_render_with_the_bounds_given_is_render_with_them_computed() -> None:
    store = Store(messages=tuple(msg(i, 40) for i in range(4)))
    config = Config(head_window_tokens=60, recent_window_tokens=60)
    selection = Selection(frozenset({"m0", "m2", "m3"}), ())
    computed = bounds(store, config, Rules())
    assert entries_text(render(store, config, selection, bounds_=computed)) == entries_text(
        render(store, config, selection)
    )
    assert [e.message_id for e in render(store, config, selection, bounds_=(0, 0))] == ["m0", "m2", "m3"]


def _refused(case: Case, budget: Budget) -> tuple[str, ...] | None:
    """What the sound compile refuses at ``budget`` (None when it sends)."""
    out = compile_once(case.store, case.config, budget, "sound")
    return None if out.sent else tuple(out.error.refused)


@pytest.mark.parametrize("edge, item", [("head", ("m0",)), ("middle", ("L1-0",))])
def test_an_edge_one_short_of_an_item_refuses_it_and_one_token_more_takes_it(edge, item) -> None:
    """The head edge is one token short of the whole head, the middle edge one short of the first pair (its
    reserve kept): there the item is refused, and with one token more it is sent."""
    budget = draw_budget(lambda strategy: 0, TWO_PAIRS.store, TWO_PAIRS.config, edge)
    assert _refused(TWO_PAIRS, budget) == item
    more = Budget(budget.max_tokens + 1, budget.reserve_for_response)
    assert _refused(TWO_PAIRS, more) != item


@given(case=cases(), edge=st.sampled_from(["head", "middle"]))
def test_an_edge_is_one_token_short_of_the_price_of_what_it_cuts(case: Case, edge: str) -> None:
    """The head edge leaves room for all of the head but one token, the middle edge for everything before the
    first recall pair and all of the pair but one token (the reserve kept): the grace limit there is under the
    reference price of what is sent unlimited up to that item, and one token more covers it."""
    store, config, _ = case
    sent = unlimited(store, config)
    if sent is None or not config.enforce_budget or not math.isfinite(config.over_budget_grace_ratio):
        return
    questions = [i for i, e in enumerate(sent.entries) if e.kind == "question"]
    end = sent.bounds[0] if edge == "head" else questions[0] + 2 if questions else 0
    price = reference_price(sent.entries[:end], store, config)
    if end == 0 or not math.isfinite(price) or price >= 2**53:
        return
    budget = draw_budget(lambda strategy: 0, store, config, edge, sent)  # the first pair, not a raw after it
    more = Budget(budget.max_tokens + 1, budget.reserve_for_response)
    assert grace_limit(more, config) >= price, f"one token over the {edge} edge {budget} does not cover {price}"
    if budget.input_budget > 0:
        assert grace_limit(budget, config) < price, f"the {edge} edge {budget} covers {price}"
