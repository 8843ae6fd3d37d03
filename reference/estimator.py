"""The store's token estimator ``E`` and the strategy's fallback (docs/model.md, The estimator and the fallback)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from reference.model import (
    Block,
    Content,
    Document,
    Image,
    RedactedThinking,
    Store,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)
from reference.numerics import (
    Number,
    is_finite_nonneg,
    is_number,
    js_ceil,
    js_max,
    js_number,
    js_round,
    json_stringify,
    len16,
)

TextEstimator = Callable[[str], Number]

DENSE_CHARS = frozenset('{}[]":_/=`')
DENSITY_PROBE = 2000
DENSITY_THRESHOLD = 0.12
DENSE_RATE = 2.3
PROSE_RATE = 2.9
SIGNATURE_RATE = 3.3
REDACTED_RATE = 6
EMPTY_REASONING_PRICE = 600
TOOL_USE_OVERHEAD = 20
IMAGE_DEFAULT = 1600
DOCUMENT_PRICE = 1000


#: A dense UTF-16 unit: above 126, or one of the JSON-ish punctuation characters.
_DENSE_PATTERN = re.compile("[^\x00-\x7e]|[" + re.escape("".join(sorted(DENSE_CHARS))) + "]")


def text_rate(s: str) -> float:
    """Characters per token: 2.3 when more than 12% of the first 2,000 units are dense, else 2.9."""
    units = s[:DENSITY_PROBE].encode("utf-16-le", "surrogatepass")[: 2 * DENSITY_PROBE]
    probe = units.decode("utf-16-le", "surrogatepass")
    n = len(units) // 2
    astral = n - len(probe)  # each astral character is two dense units but one match
    dense = len(_DENSE_PATTERN.findall(probe)) + astral
    return DENSE_RATE if dense / n > DENSITY_THRESHOLD else PROSE_RATE


#: How many texts ``text_tokens`` remembers: a compile prices each message's text again on every run.
TEXT_MEMO_SIZE = 1 << 16


@lru_cache(maxsize=TEXT_MEMO_SIZE)
def text_tokens(s: str) -> int:
    """The default text estimate: ``ceil(len16 / rate)`` in doubles; 0 for the empty string (memoized: pure)."""
    if s == "":
        return 0
    return js_ceil(len16(s) / text_rate(s))


def json_tokens(s: str) -> int:
    """The estimate of JSON text: ``ceil(len16 / 2.3)``; 0 for the empty string."""
    if s == "":
        return 0
    return js_ceil(len16(s) / DENSE_RATE)


@dataclass(frozen=True)
class Pricing:
    """How raw block prices are made: the text estimator, the epoch and the stamp rule."""

    text: TextEstimator = text_tokens
    epoch: int = 1
    verbatim_stamps: bool = False

    def stamp(self, value: Number | None) -> Number | None:
        """A stamp as this rule reads it: verbatim any number, or only a finite number >= 0."""
        if self.verbatim_stamps:
            return value if is_number(value) else None
        return value if is_finite_nonneg(value) else None


def thinking_price(block: Thinking, p: Pricing) -> Number:
    stamp = p.stamp(block.token_estimate)
    if stamp is not None:
        return stamp
    if block.signature:
        if p.epoch == 0:
            return EMPTY_REASONING_PRICE if block.thinking == "" else p.text(block.thinking)
        return js_max(p.text(block.thinking), js_round(len16(block.signature) / SIGNATURE_RATE))
    return p.text(block.thinking)


def redacted_price(block: RedactedThinking, p: Pricing) -> Number:
    stamp = p.stamp(block.token_estimate)
    if stamp is not None:
        return stamp
    data = block.data or ""
    return js_round(len16(data) / REDACTED_RATE) if data else EMPTY_REASONING_PRICE


def raw_price(block: Block, p: Pricing) -> Number:
    """The raw (unrounded, uncalibrated) price of one block."""
    match block:
        case Text():
            return p.text(block.text)
        case Thinking():
            return thinking_price(block, p)
        case RedactedThinking():
            return redacted_price(block, p)
        case ToolUse():
            return json_tokens(json_stringify(block.input)) + TOOL_USE_OVERHEAD
        case ToolResult():
            return tool_result_price(block, p)
        case Image():
            stamp = p.stamp(block.token_estimate)
            return IMAGE_DEFAULT if stamp is None else stamp
        case Document():
            return DOCUMENT_PRICE
    raise TypeError(f"not a block: {block!r}")


def js_add(total: Number, price: Number) -> Number:
    """``total + price`` as a double sum: an integer sum past 2**53 is rounded as JavaScript's addition rounds it."""
    return js_number(total + price)


def tool_result_price(block: ToolResult, p: Pricing) -> Number:
    """A tool result's raw price: its JSON text's, or the sum of its blocks' raw prices (nested results too).

    Iterative (an explicit stack), so that nesting never overflows; the sums are the same left-to-right
    sums, from 0, that a recursive walk makes.
    """
    # Each frame: an iterator over the blocks of one tool result, and its running sum.
    frames: list[list] = []

    def enter(result: ToolResult) -> Number | None:
        if isinstance(result.content, str):
            return json_tokens(result.content)
        frames.append([iter(result.content), 0])
        return None

    done = enter(block)
    while frames:
        top = frames[-1]
        if done is not None:  # a nested result finished: add it to its parent's sum
            top[1] = js_add(top[1], done)
            done = None
        b = next(top[0], None)
        if b is None:
            frames.pop()
            done = top[1]
        elif isinstance(b, ToolResult):
            done = enter(b)
        else:
            top[1] = js_add(top[1], raw_price(b, p))
    assert done is not None
    return done


def store_pricing(store: Store, *, verbatim_stamps: bool = False) -> Pricing:
    """The store's pricing rule: its custom estimator (if any), its epoch, and the given stamp rule."""
    return Pricing(store.text_estimator or text_tokens, store.pricing_epoch, verbatim_stamps)


def calibrated_tokens(content: Content, p: Pricing, calibration: Number) -> Number:
    """``E`` under an explicit rule: each top-level block's raw price calibrated and rounded, summed in doubles."""
    total: Number = 0
    for b in content:
        total = js_add(total, js_round(raw_price(b, p) * calibration))
    return total


def content_tokens(content: Content, store: Store) -> Number:
    """``E(content)`` with the store's calibration, epoch and estimator, under the reference stamp rule."""
    return calibrated_tokens(content, store_pricing(store), store.calibration)


FALLBACK_PRICING = Pricing(text_tokens, 1, True)


def fallback_tokens(content: Content) -> Number:
    """The strategy's unbound price: Text and reasoning only, stamps verbatim, no calibration or rounding."""
    total: Number = 0
    for b in content:
        if isinstance(b, (Text, Thinking, RedactedThinking)):
            total = js_add(total, raw_price(b, FALLBACK_PRICING))
    return total
