"""The hysteresis line's image placeholder in its prices (docs/model.md, Variants; Image stripping): a head image it
strips is sent as "[image dropped from live context]", and both the head's charge and the head total the waterfall
reads are the price of that text, not of the seed-era "[image omitted]"."""

from __future__ import annotations

from dataclasses import replace

from reference.model import Budget, Config, Image, Message, Store, Summary, Text
from strategies import HierarchicalStrategy
from strategies.defects import parse_variant
from strategies.images import DROPPED_PLACEHOLDER, PLACEHOLDER

HYSTERESIS = "hysteresis-a95eb55b"
#: m0 is the head; its image lies past the image depth (20) and is stripped; the cap is on (RAW_CAP_PLUS_50 reads it).
CONFIG = Config(
    head_window_tokens=20,
    recent_window_tokens=10,
    image_strip_depth_tokens=20,
    max_message_tokens=1000,
    positioned_recall_pairs=False,
)


def _store(head: tuple = (Text("a" * 40), Image(token_estimate=5))) -> Store:
    """Head m0; S1 holds m1; T (an L2 declaring 60 tokens) holds m2..m3 through S2 and S3; tail m4."""
    messages = (
        Message("m0", "user", head),
        *(Message(f"m{i}", "user", (Text(c * 200),)) for i, c in zip(range(1, 4), "bcd", strict=True)),
        Message("m4", "user", (Text("e" * 20),)),
    )
    summaries = (
        Summary("S1", 1, "s" * 8, 5, 0, ("m1",), ("m1", "m1")),
        Summary("S2", 1, "s" * 8, 5, 0, ("m2",), ("m2", "m2"), parent_id="T"),
        Summary("S3", 1, "s" * 8, 5, 0, ("m3",), ("m3", "m3"), parent_id="T"),
        Summary("T", 2, "t" * 8, 60, 1, ("S2", "S3"), ("m2", "m3")),
    )
    return Store(messages, summaries)


def _compile(variant: str, budget: int, store: Store | None = None, config: Config = CONFIG):
    strategy = HierarchicalStrategy(config, parse_variant(variant))
    strategy.initialize(store or _store())
    return strategy.compile(Budget(max_tokens=budget))


def test_the_stripped_head_is_charged_as_the_placeholder_the_line_sends() -> None:
    """The head's charge equals what ``sound`` charges for the same message already holding the dropped
    placeholder (a wider head window keeps that longer message in the head), and the two placeholders' prices
    differ, so the wrong one shows."""
    sent = _compile(HYSTERESIS, 150)
    assert sent.entries[0].content == (Text("a" * 40), Text(DROPPED_PLACEHOLDER))
    wide = replace(CONFIG, head_window_tokens=40)
    as_sent = _compile("sound", 150, _store((Text("a" * 40), Text(DROPPED_PLACEHOLDER))), wide)
    omitted = _compile("sound", 150, _store((Text("a" * 40), Text(PLACEHOLDER))), wide)
    assert sent.stats.head == as_sent.stats.head != omitted.stats.head


def test_the_waterfall_reads_the_head_at_the_price_it_is_charged() -> None:
    """T (60 declared tokens) is taken by the waterfall, ahead of S1, exactly when the head as charged plus 60 is
    within the input budget; one token less and S1 goes first, T joining by coverage."""
    head = _compile(HYSTERESIS, 150).stats.head.tokens
    fits = head + 60
    assert Budget(max_tokens=fits).input_budget == fits
    assert _compile(HYSTERESIS, fits).selected == ("T", "S1")
    assert _compile(HYSTERESIS, fits - 1).selected == ("S1", "T")
