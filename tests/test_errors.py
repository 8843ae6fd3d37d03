"""The compile's refusals read as diagnoses (docs/model.md, Emission and the grace check; Coverage).

An ``OverBudgetError`` names its stage, the item, the total it would reach, how far that is over the
grace limit, and what could clear it; an ``UncoveredDropError`` lists what would be lost, each message
with its category. Users act on these texts, so their content is pinned here.
"""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from builders import SOUND, compile_with, store
from hypothesis import example, given
from hypothesis import strategies as st

from reference.estimator import content_tokens
from reference.model import Config, Store, Work
from strategies import OverBudgetError, UncoveredDropError
from strategies.errors import Diagnostics

STAGE = "Hierarchical emission overran the budget"  # docs/model.md, Emission and the grace check


def _diagnostics(cleared_by: frozenset[str]) -> Diagnostics:
    return Diagnostics(
        head_tokens=0,
        tail_tokens=0,
        middle_tokens=30,
        middle_count=3,
        middle_count_unit="selection-items",
        deepest_level=0,
        configured_budget=25,
        reserve_for_response=0,
        input_budget=25,
        cleared_by=cleared_by,
    )


def _middle_refusal(history: Store) -> OverBudgetError:
    """Three raw middle messages (no windows, no summaries) against an input budget for two and a half."""
    prices = [content_tokens(m.content, history) for m in history.messages]
    budget = prices[0] + prices[1] + prices[2] // 2
    outcome = compile_with(SOUND, history, Config(over_budget_grace_ratio=0), budget)
    return outcome.refusal()


@pytest.mark.parametrize(
    ("work", "clearer"),
    [
        ((), "nothing but a larger budget"),
        ((Work("chunk", "queued", frozenset({"m2"})),), "compression"),
    ],
)
def test_over_budget_message_names_stage_total_excess_and_clearer(work: tuple[Work, ...], clearer: str) -> None:
    """The refusal names its stage and item, the total and how far over the limit, and what clears it.

    With no compression work in the refused prefix nothing but a larger budget clears the refusal;
    with queued work folding the refused message, compression does (docs/model.md, Compression work and cleared_by).
    """
    history = store(3, work=work)
    err = _middle_refusal(history)
    prices = [content_tokens(m.content, history) for m in history.messages]
    limit = math.floor((prices[0] + prices[1] + prices[2] // 2) * (1 + 0))  # grace_limit with g = 0 (docs/model.md)
    assert err.stage == STAGE
    assert (err.budget, err.actual) == (limit, sum(prices))
    text = str(err)
    assert text.startswith(f"{STAGE}: message 'm2'")
    assert f"takes the context to {sum(prices)} tokens, {sum(prices) - limit} over the grace limit {limit}" in text
    assert f"input budget {err.diagnostics.input_budget}" in text
    assert text.endswith(f"cleared by: {clearer}")


def test_over_budget_message_lists_every_clearer() -> None:
    """With several ways out, the message offers each of them, in a stable order, as alternatives."""
    err = OverBudgetError(
        budget=25,
        actual=30,
        stage=STAGE,
        diagnostics=_diagnostics(frozenset({"raising reserve", "compression"})),
        item="message 'm2' (middle)",
        refused=("m2",),
    )
    assert str(err).endswith("cleared by: compression or raising reserve")
    assert err.refused == ("m2",) and err.item == "message 'm2' (middle)"


def test_over_budget_message_survives_an_excess_it_cannot_compute() -> None:
    """A total the limit cannot be subtracted from still yields a readable refusal (no TypeError)."""
    err = OverBudgetError(
        budget=25.0,
        actual=Decimal("30.5"),
        stage=STAGE,
        diagnostics=_diagnostics(frozenset()),
        item="message 'm2' (middle)",
    )
    assert "takes the context to 30.5 tokens, over the grace limit 25.0 (" in str(err)


def _expected_drop_message(dropped: list[str], category: str) -> str:
    listing = ", ".join(f"{m} ({category})" for m in dropped[:10])
    more = f" and {len(dropped) - 10} more" if len(dropped) > 10 else ""
    return f"{len(dropped)} message(s) would be lost: {listing}{more}"


@given(st.integers(1, 30))
@example(10).via("all ten listed")
@example(11).via("ten listed, one counted")
def test_uncovered_drop_names_the_lost_messages(evicted: int) -> None:
    """Evicted tail messages are reported by id and category: the first ten listed, the rest counted.

    Everything is tail (a huge recent window); the budget fits the two newest messages, so every
    older one is evicted and reported as ``in-tail-not-rendered`` (docs/model.md, Coverage).
    """
    lost = store(evicted + 2)
    prices = [content_tokens(m.content, lost) for m in lost.messages]
    config = Config(recent_window_tokens=math.inf, over_budget_grace_ratio=0)
    outcome = compile_with(SOUND, lost, config, prices[-1] + prices[-2])
    err = outcome.error
    assert isinstance(err, UncoveredDropError)
    dropped = [f"m{i}" for i in range(evicted)]
    assert err.dropped == tuple(dropped)
    assert err.categories == dict.fromkeys(dropped, "in-tail-not-rendered")
    assert str(err) == _expected_drop_message(dropped, "in-tail-not-rendered")
