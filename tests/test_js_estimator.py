"""The estimator against a second implementation in JavaScript (``tests/js_estimator.mjs``), run in Node.

The reference and the strategies price with the same estimator, so a wrong rule there (a character
missing from the dense set, the epoch test turned round, a ToolUse input serialized another way)
moves both sides together and no invariant sees it. Here every rule the TypeScript's store defines is
priced twice, by ``reference/estimator.py`` (and ``strategies/pricing.py``'s store view) and by the
JavaScript restatement, over generated text from every character class, every block kind and every
stamp class, both epochs, any calibration. Each example is one batch, one round trip to the one Node
process of the session (``tests/js_oracle_client.py``).
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from js_oracle_client import NODE, Oracle, close_oracle, double, oracle, parse_double, same, tagged

from reference.cap import text_only_estimate
from reference.estimator import (
    Pricing,
    TextEstimator,
    calibrated_tokens,
    content_tokens,
    fallback_tokens,
    json_tokens,
    raw_price,
    text_tokens,
)
from reference.model import (
    Block,
    Config,
    Content,
    Document,
    Image,
    Message,
    RedactedThinking,
    Store,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)
from reference.numerics import Number, js_ceil, json_stringify, len16
from strategies.cap import text_only
from strategies.defects import Defect, Defects
from strategies.pricing import Prices


@pytest.fixture(scope="session")
def js() -> Iterator[Oracle]:
    if NODE is None:
        pytest.skip("node is not installed (.ci/run installs nodejs)")
    yield oracle()
    close_oracle()


def quarter_plus_one(s: str) -> int:
    """A custom text estimator that answers 1 for the empty string, so a test sees whether it was asked."""
    return js_ceil(len16(s) / 4) + 1


#: The text estimators a store may have, by the name the JavaScript side knows them by.
ESTIMATORS: dict[str, TextEstimator] = {"default": text_tokens, "quarter_plus_one": quarter_plus_one}


def pricing(text: str, epoch: int, stamps: str) -> Pricing:
    """The reference's rule for a spec: ``typescript`` takes every numeric stamp, ``sound`` finite ones >= 0."""
    return Pricing(ESTIMATORS[text], epoch, stamps == "typescript")


def spec(text: str, epoch: int, stamps: str) -> dict[str, Any]:
    return {"text": text, "epoch": epoch, "stamps": stamps}


# ----------------------------------------------------------------------------- characters and texts


def _span(lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.integers(lo, hi).map(chr)


#: Every class of UTF-16 unit the density probe can meet, each with its own weight.
CHARACTER_CLASSES: dict[str, st.SearchStrategy[str]] = {
    "ASCII printable (the ten dense punctuation marks among them)": _span(0x20, 0x7E),
    "ASCII punctuation (where the dense marks are)": st.sampled_from(string.punctuation),
    "ASCII control and DEL": st.one_of(_span(0x00, 0x1F), st.just("\x7f")),
    "Latin-1": _span(0x80, 0xFF),
    "Latin Extended, Greek, Cyrillic": _span(0x100, 0x4FF),
    "kana": _span(0x3040, 0x30FF),
    "CJK": _span(0x4E00, 0x9FFF),
    "Hangul": _span(0xAC00, 0xD7A3),
    "private use and specials": _span(0xE000, 0xFFFF),
    "astral (a surrogate pair)": _span(0x10000, 0x10FFFF),
    "emoji": _span(0x1F300, 0x1FAFF),
    "lone high surrogate": _span(0xD800, 0xDBFF),
    "lone low surrogate": _span(0xDC00, 0xDFFF),
    "whitespace": st.sampled_from(" \t\n\r\x0b\x0c\x85\u00a0\u1680\u2000\u200b\u2028\u2029\u202f\u3000\ufeff"),
    "boundaries": st.sampled_from(
        [
            chr(c)
            for c in (
                *(0x7D, 0x7E, 0x7F, 0x80, 0xFF, 0x100, 0x4DFF, 0x4E00, 0x9FFF, 0xA000, 0xD7FF),
                *(0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF),
            )
        ]
    ),
}
chars = st.one_of(*CHARACTER_CLASSES.values())
ASCII = "".join(chr(c) for c in range(0x80))


def probe(c: str) -> str:
    """``c`` and prose after it, so that exactly one eighth of the units are ``c``'s: 12.5% is dense, 0% is not."""
    return c + "a" * (7 * len16(c))


#: A character of any class, or ASCII punctuation (where the dense marks sit among marks that are not) as often.
probed_chars = st.one_of(chars, st.sampled_from(string.punctuation))


@given(cs=st.lists(probed_chars, min_size=8, max_size=32))
@example(cs=list(ASCII + "\x80\xff\u0100\u4e00\uffff\ud800\udfff\U0001f600\U0010ffff"))
def test_each_character_is_dense_or_not_as_in_javascript(js: Oracle, cs: list[str]) -> None:
    """The dense set: a unit above 126 or one of ten ASCII punctuation marks; one such unit in eight turns the rate."""
    texts = [probe(c) for c in cs]
    answers = js.ask([["text_tokens", s] for s in texts])
    for c, s, want in zip(cs, texts, answers, strict=True):
        assert text_tokens(s) == want, f"{c!r} (U+{ord(c):04X}) is classed otherwise: model {text_tokens(s)}, JS {want}"


short_texts = st.text(chars, max_size=30)
#: Long texts built by repetition (cheap to draw): over the probe's 2,000 units, astral characters across its edge.
long_texts = st.builds(
    lambda head, unit, times, tail: head + unit * times + tail,
    short_texts,
    st.text(chars, min_size=1, max_size=3),
    st.integers(300, 2100),
    short_texts,
)
#: Texts whose dense share is near 12%: ``k`` drawn units, then prose letters up to about ``k / 0.12`` units in all,
#: so that three dense units in 25 (six in 50, ...) put the share exactly on the threshold, and one unit more or
#: fewer puts it either side.
threshold_texts = st.builds(
    lambda drawn, extra, letter: (
        "".join(drawn) + letter * max(0, round(len16("".join(drawn)) / 0.12) - len16("".join(drawn)) + extra)
    ),
    st.lists(chars, min_size=1, max_size=12),
    st.sampled_from((0, 0, 1, -1, 3, -3)),
    st.sampled_from("a ."),
)
#: Texts of two runs: prose, then dense units (or the reverse), the first run ending near the probe's 2,000th unit,
#: so that the share of the probe and the share of the whole text fall on opposite sides of 12%.
split_texts = st.builds(
    lambda first, times, second, more: first * times + second * more,
    st.sampled_from(("a", "a ", '{"', "é")),
    st.integers(1500, 2000),
    st.sampled_from(("{", '":', "é", "\U0001f600", "a")),
    st.integers(100, 900),
)
texts = st.one_of(short_texts, long_texts, threshold_texts, split_texts)


@given(xs=st.lists(texts, min_size=1, max_size=8))
@example(xs=["", "a" * 1999 + "\U0001f600", "a" * 69, '{"' * 35, "a" * 1760 + "{" * 240 + "é" * 300, "{" * 69])
def test_the_text_and_json_estimates_match_javascript(js: Oracle, xs: list[str]) -> None:
    """The text estimate (2.3 or 2.9 chars a token by the probe's dense share, over the whole length); the JSON one."""
    answers = iter(js.ask([r for s in xs for r in (["text_tokens", s], ["json_tokens", s])]))
    for s in xs:
        assert text_tokens(s) == next(answers), f"text estimate of {s[:40]!r}... ({len16(s)} units)"
        assert json_tokens(s) == next(answers), f"JSON estimate of {s[:40]!r}... ({len16(s)} units)"


# ----------------------------------------------------------------------------- blocks


STAMP_EDGES: tuple[Number, ...] = (
    0,
    0.0,
    -0.0,
    -1,
    -0.5,
    0.5,
    1.5,
    2.5,
    7,
    math.nan,
    math.inf,
    -math.inf,
    2**53,
    1e16,
    5e-324,
    1.7976931348623157e308,
    -1e300,
)
#: Every stamp class: absent (None), 0, negative, NaN, fractional, infinite, huge, any double, any small integer.
stamps = st.one_of(st.none(), st.sampled_from(STAMP_EDGES), st.floats(), st.integers(-(10**6), 10**6))
#: A signature or ciphertext: empty, None, any text, or a run whose length puts n / 3.3 or n / 6 on a half.
secrets = st.one_of(st.none(), st.just(""), short_texts, st.integers(1, 60).map(lambda n: "A" * n))

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(),
    st.integers(-(2**53), 2**53),
    st.integers(-(10**30), 10**30),
    st.sampled_from(STAMP_EDGES),
    short_texts,
)
keys = st.one_of(
    st.text(chars, max_size=6),
    st.sampled_from(("0", "1", "10", "2", "01", "-1", "4294967294", "4294967295", "1.5", "__proto__", "constructor")),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(keys.filter(lambda k: k != "$f"), inner, max_size=4)
    ),
    max_leaves=10,
)

leaf_blocks: st.SearchStrategy[Block] = st.one_of(
    st.builds(Text, texts),
    st.builds(Thinking, texts, secrets, stamps),
    st.builds(RedactedThinking, secrets, stamps),
    st.builds(lambda value: ToolUse("t1", "tool", value), json_values),
    st.builds(Image, stamps),
    st.just(Document()),
)
#: A block: mostly a leaf, a quarter of the time a tool result of a string or of up to three blocks (nesting again).
blocks: st.SearchStrategy[Block] = st.deferred(
    lambda: st.one_of(
        leaf_blocks,
        leaf_blocks,
        leaf_blocks,
        st.builds(
            lambda content: ToolResult("t1", content), st.one_of(short_texts, st.lists(blocks, max_size=3).map(tuple))
        ),
    )
)


def wire(b: Block, nulls: bool) -> dict[str, Any]:
    """``b`` as the TypeScript's block object: its field names, a None field written ``null`` or left out."""

    def put(out: dict[str, Any], key: str, value: Any, convert: Callable[[Any], Any] = lambda v: v) -> dict[str, Any]:
        if value is not None:
            out[key] = convert(value)
        elif nulls:
            out[key] = None
        return out

    match b:
        case Text():
            return {"type": "text", "text": b.text}
        case Thinking():
            out = put({"type": "thinking", "thinking": b.thinking}, "signature", b.signature)
            return put(out, "tokenEstimate", b.token_estimate, tagged)
        case RedactedThinking():
            return put(put({"type": "redacted_thinking"}, "data", b.data), "tokenEstimate", b.token_estimate, tagged)
        case ToolUse():
            return {"type": "tool_use", "id": b.id, "name": b.name, "input": tagged(b.input)}
        case ToolResult():
            content = b.content if isinstance(b.content, str) else [wire(x, nulls) for x in b.content]
            return {"type": "tool_result", "toolUseId": b.tool_use_id, "content": content}
        case Image():
            return put({"type": "image"}, "tokenEstimate", b.token_estimate, tagged)
        case Document():
            return {"type": "document"}
    raise TypeError(f"not a block: {b!r}")


specs = st.tuples(
    st.sampled_from(("default", "quarter_plus_one")), st.sampled_from((0, 1)), st.sampled_from(("typescript", "sound"))
)
T = spec("default", 1, "typescript")


@given(items=st.lists(st.tuples(blocks, st.booleans(), specs), min_size=1, max_size=8))
@example(
    items=[
        (Thinking("", "S" * 33), False, ("default", 0, "typescript")),
        (Thinking("", "S" * 33), True, ("default", 1, "typescript")),
        (Thinking("x" * 40, "S" * 10), False, ("quarter_plus_one", 0, "sound")),
        (Thinking("", None, 0), True, ("default", 1, "sound")),
        (Thinking("abc", "", math.nan), False, ("default", 1, "typescript")),
        (RedactedThinking(None, None), False, ("default", 1, "typescript")),
        (RedactedThinking("A" * 9, 0), True, ("default", 1, "sound")),
        (RedactedThinking("", -3), True, ("default", 1, "typescript")),
        (Image(0), False, ("default", 1, "sound")),
        (Image(None), False, ("default", 1, "typescript")),
        (Image(math.nan), True, ("default", 1, "typescript")),
        (Image(-2.5), True, ("default", 1, "sound")),
        (
            ToolUse("t", "n", {"b": [1, None, math.nan], "1": "é\ud800", "0": {"x": -0.0}}),
            False,
            ("default", 1, "sound"),
        ),
        (
            ToolResult("t", (Text(""), ToolResult("t", (Image(None), Document())), ToolResult("t", ""))),
            True,
            ("quarter_plus_one", 1, "typescript"),
        ),
        (ToolResult("t", (Image(2**53), Image(1), Image(1))), False, ("default", 1, "typescript")),
    ]
)
def test_each_block_is_priced_as_in_javascript(
    js: Oracle, items: list[tuple[Block, bool, tuple[str, int, str]]]
) -> None:
    """The raw price of every block kind: stamps of every class under both rules, the signature rule and both
    epochs, ciphertext, ToolUse inputs through ``JSON.stringify``, nested tool results, images, documents."""
    answers = js.ask([["raw", wire(b, nulls), spec(*s)] for b, nulls, s in items])
    for (b, nulls, s), want in zip(items, answers, strict=True):
        got = raw_price(b, pricing(*s))
        assert same(float(got), parse_double(want)), (
            f"raw price of {b!r} under {s} ({nulls=}): model {got!r}, JS {want}"
        )


#: Thinking text at epoch 0's edge: empty, or whitespace only (visible text that trims to nothing), or any text.
edge_thinking = st.one_of(st.just(""), st.text(CHARACTER_CLASSES["whitespace"], min_size=1, max_size=3), short_texts)


@given(items=st.lists(st.tuples(edge_thinking, secrets), min_size=1, max_size=8))
@example(items=[(" ", "S" * 33), ("\n\t", "sig"), ("", "sig"), ("", "")])
def test_epoch_0_prices_600_only_for_signed_reasoning_with_no_text(js: Oracle, items: list[tuple[str, Any]]) -> None:
    """At epoch 0 a signed Thinking with no text at all is hidden reasoning, 600; text that is whitespace only is
    still text, priced by the estimator, and an empty signature signs nothing."""
    rule = ("default", 0, "typescript")
    blocks_ = [Thinking(text, signature) for text, signature in items]
    answers = js.ask([["raw", wire(b, False), spec(*rule)] for b in blocks_])
    for b, want in zip(blocks_, answers, strict=True):
        got = raw_price(b, pricing(*rule))
        assert same(float(got), parse_double(want)), f"epoch 0 price of {b!r}: model {got!r}, JS {want}"


#: Stamps with a fraction, so that rounding anything inside a tool result shows.
fractional_stamps = st.one_of(st.sampled_from((0.5, 1.5, 2.5, 0.25, 0.75)), st.floats(0, 100))
stamped_leaves = st.one_of(
    st.builds(Image, fractional_stamps),
    st.builds(lambda x: Thinking("", None, x), fractional_stamps),
    st.builds(lambda x: RedactedThinking(None, x), fractional_stamps),
)


#: A stamped leaf, or a tool result of them (nested among its siblings, before or after them).
held_blocks = st.one_of(
    stamped_leaves,
    stamped_leaves,
    st.lists(stamped_leaves, max_size=3).map(lambda bs: ToolResult("t2", tuple(bs))),
)


@given(held=st.lists(st.lists(held_blocks, min_size=1, max_size=4), min_size=1, max_size=6))
@example(held=[[Image(0.5), Image(0.5)], [Thinking("", None, 1.5), RedactedThinking(None, 2.5)]])
def test_a_tool_result_sums_what_it_holds_unrounded(js: Oracle, held: list[list[Block]]) -> None:
    """A tool result's raw price is the plain double sum of its blocks' raw prices, a nested result's with the
    others wherever it stands: a fractional stamp inside it is not rounded there (only the top-level block's
    calibrated price is)."""
    rule = ("default", 1, "sound")
    results = [ToolResult("t1", tuple(bs)) for bs in held]
    answers = js.ask([["raw", wire(r, False), spec(*rule)] for r in results])
    for r, want in zip(results, answers, strict=True):
        got = raw_price(r, pricing(*rule))
        assert same(float(got), parse_double(want)), f"raw price of {r!r}: model {got!r}, JS {want}"


@given(values=st.lists(json_values, min_size=1, max_size=8))
@example(values=["\ud83d", "\ude00\ud83d", {"é": "\U0001f600\udc00"}, [[[{"2": 1, "10": 2, "a": None}]]], 1e21, -0.0])
def test_tool_use_inputs_are_serialized_as_javascript_does(js: Oracle, values: list[Any]) -> None:
    """A ToolUse input's price is its ``JSON.stringify`` text's (Node's own): nested, non-ASCII, lone surrogates."""
    answers = js.ask([["raw", {"type": "tool_use", "id": "t", "name": "n", "input": tagged(v)}, T] for v in values])
    for v, want in zip(values, answers, strict=True):
        got = raw_price(ToolUse("t", "n", v), pricing("default", 1, "typescript"))
        assert got == parse_double(want), (
            f"ToolUse input {v!r} serialized as {json_stringify(v)!r}: model {got}, JS {want}"
        )


# ----------------------------------------------------------------------------- E, calibration, the store view

CALIBRATION_EDGES: tuple[Number, ...] = (
    1,
    1.0,
    0.25,
    0.2500000000000001,
    4,
    3.9999999999999996,
    0.6,
    1.8,
    0.9,
    1.3,
    1.5,
    0,
    -1,
    math.nan,
    math.inf,
    -math.inf,
    1e-300,
)
calibrations = st.one_of(st.sampled_from(CALIBRATION_EDGES), st.floats(0.2, 4.2), st.floats())
contents = st.lists(blocks, max_size=5).map(tuple)


def message_store(content: Content, calibration: Number, epoch: int, text: str) -> Store:
    estimator = None if text == "default" else ESTIMATORS[text]
    message = Message("m1", "User", content)
    return Store(messages=(message,), calibration=calibration, pricing_epoch=epoch, text_estimator=estimator)


@given(items=st.lists(st.tuples(contents, st.booleans(), specs, calibrations, calibrations), min_size=1, max_size=6))
@example(
    items=[
        ((Text("a" * 9), Image(None)), False, ("default", 1, "typescript"), 0.9, 1.5),  # 3 x 0.9 = 2.7; 1600 x 0.9
        ((RedactedThinking("A" * 27),), True, ("default", 1, "sound"), 1.0, 0.25),  # 27 / 6 = 4.5 rounds up
        ((Text("x"), Text("y")), False, ("quarter_plus_one", 0, "typescript"), 4, math.nan),
        ((ToolResult("t", (Text("ab"), Text("cd"))),), False, ("default", 1, "sound"), 1.5, 3.9999999999999996),
        # Sums past 2**53 are double sums: 2**53 + 1 + 1 is 2**53 in JavaScript.
        ((Image(2**53), Image(1), Image(1)), False, ("default", 1, "typescript"), 1, 1),
        (
            (Thinking("", None, 2**53), Thinking("", None, 1), RedactedThinking("", 1)),
            False,
            ("default", 1, "sound"),
            1,
            1,
        ),
    ]
)
def test_the_calibrated_estimate_and_the_store_view_match_javascript(
    js: Oracle, items: list[tuple[Content, bool, tuple[str, int, str], Number, Number]]
) -> None:
    """``E``: each top-level block's raw price times the calibration, rounded alone, summed; the calibration a
    store takes (finite, strictly between 0.25 and 4) at construction and later; the strategies' ``Prices.E`` and
    ``Prices.V`` (bound: the store's ``E``; unbound: the fallback, Text and reasoning only, unrounded); the
    message cap's own chars/4 estimate (``estimateTextOnlyTokens``)."""
    requests: list[list[Any]] = []
    for content, nulls, s, first, later in items:
        store = message_store(content, first, s[1], s[0])
        body = [wire(b, nulls) for b in content]
        requests += [
            ["calibrate", "1", double(float(first))],
            ["calibrate", double(float(store.calibration)), double(float(later))],
            ["estimate", body, spec(*s), double(float(store.calibration))],
            ["fallback", body],
            ["text_only", body],
        ]
    answers = iter(js.ask(requests))
    for content, _nulls, s, first, later in items:
        store = message_store(content, first, s[1], s[0])
        where = f"{content!r} under {s}, calibration {first!r}"
        assert same(store.calibration, parse_double(next(answers))), f"calibration taken at construction: {where}"
        assert same(store.with_calibration(later).calibration, parse_double(next(answers))), (
            f"calibration after setting {later!r}: {where}"
        )
        want = parse_double(next(answers))
        got = calibrated_tokens(content, pricing(*s), store.calibration)
        assert same(float(got), want), f"E of {where}: model {got!r}, JS {want!r}"
        verbatim = Defects(frozenset({Defect.STAMPS_VERBATIM} if s[2] == "typescript" else ()))
        bound = Prices(store, Config(), verbatim, view=store, memo={})
        assert same(float(bound.E(content)), want), f"Prices.E of {where}: {bound.E(content)!r}, JS {want!r}"
        assert same(float(bound.V(content)), want), f"Prices.V, bound, of {where}: {bound.V(content)!r}, JS {want!r}"
        if s[0] == "default" and s[2] == "sound":
            assert same(float(content_tokens(content, store)), want), f"content_tokens of {where}"
        fallback = parse_double(next(answers))
        unbound = Prices(store, Config(), verbatim, view=None, memo={})
        assert same(float(fallback_tokens(content)), fallback), f"fallback of {content!r}: JS {fallback!r}"
        assert same(float(unbound.V(content)), fallback), f"Prices.V, unbound, of {content!r}: JS {fallback!r}"
        quarter = parse_double(next(answers))
        assert text_only_estimate(content) == quarter, f"the cap's chars/4 estimate of {content!r}: JS {quarter}"
        assert text_only(content) == quarter, f"strategies/cap.py's chars/4 estimate of {content!r}: JS {quarter}"


def test_prices_are_summed_as_doubles() -> None:
    """Past 2**53 a sum of prices is a double sum, as in JavaScript (``2**53 + 1 + 1`` is ``2**53`` there): in ``E``,
    in a tool result's nested sum and in the fallback (runs without Node; the oracle tests above check it with it)."""
    p = pricing("default", 1, "typescript")
    big = (Image(2**53), Image(1), Image(1))
    assert calibrated_tokens(big, p, 1) == 2**53
    assert raw_price(ToolResult("t", big), p) == 2**53
    assert fallback_tokens((Thinking("", None, 2**53), Thinking("", None, 1), RedactedThinking(None, 1))) == 2**53
