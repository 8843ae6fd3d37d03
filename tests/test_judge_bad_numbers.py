"""The bad-values invariant judged (``invariants/properties/bad_numbers.py``): the named defects that let bad values
through break it alone in ``sound``, and hand-built compiles break each of its limits; sound holds."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from invariants import examples as known
from invariants.generators import Case, stores
from invariants.properties import Violation, bad_numbers, bad_values
from reference.model import Budget, Config, Image, Message, RedactedThinking, Store, Text, Thinking, ToolResult
from strategies import HierarchicalStrategy, InvalidConfigError
from strategies.defects import Defect
from tests import judge_cases as cases
from tests.builders import store, summary
from tests.judge_helpers import broken, judged, tamper

DEFECT_BREAKS = [
    ("bad-values", Defect.UNCHECKED_BAD_VALUES, cases.NAN_BUDGET, "against a NaN grace limit"),
    ("bad-values", Defect.STAMPS_VERBATIM, known.NAN_STAMP, "a stamp in m0"),
    ("bad-values", Defect.STAMPS_VERBATIM, cases.NAN_REDACTED_STAMP, "a stamp in m0"),
]


@pytest.mark.parametrize(
    "invariant, defect, case, words", DEFECT_BREAKS, ids=[f"{i}-{d.name}" for i, d, _, _ in DEFECT_BREAKS]
)
def test_each_defect_that_lets_bad_values_through_breaks_it(invariant, defect, case, words):
    assert judged(invariant, case, "sound") == []
    broken(invariant, case, frozenset({defect}), words)


# ----------------------------------------------------------------------------- bad-values

#: A grace ratio of infinity (a bad value): sound refuses it as a bad config.
INFINITE_RATIO = Case(store(3), Config(over_budget_grace_ratio=math.inf), Budget(max_tokens=30))


def test_bad_values_holds_when_the_compile_refuses_a_bad_value():
    assert judged("bad-values", INFINITE_RATIO) == []
    assert judged("bad-values", cases.NAN_BUDGET) == []


@pytest.mark.proves("bad-values")
def test_bad_values_breaks_on_an_infinite_grace_limit_nobody_asked_for(monkeypatch):
    tamper(monkeypatch, config=lambda c: dataclasses.replace(c, over_budget_grace_ratio=0.02))
    broken(
        "bad-values", INFINITE_RATIO, "sound", "over_budget_grace_ratio inf", "infinite grace limit nobody asked for"
    )


def test_bad_values_holds_on_an_infinite_budget_asked_for(monkeypatch):
    asked = Case(store(3), Config(head_window_tokens=-1), Budget(max_tokens=math.inf))
    tamper(monkeypatch, config=lambda c: dataclasses.replace(c, head_window_tokens=0))
    assert judged("bad-values", asked) == []


def test_bad_values_breaks_on_a_price_over_the_limit(monkeypatch):
    over = Case(store(3), Config(head_window_tokens=-1), Budget(max_tokens=20))
    tamper(monkeypatch, config=lambda c: dataclasses.replace(c, head_window_tokens=0), budget=lambda b: Budget(10**6))
    broken("bad-values", over, "sound", "head_window_tokens -1", "priced 30, over the grace limit 20")


def test_bad_values_breaks_on_a_crash(monkeypatch):
    tamper(monkeypatch, refused=lambda err, b: RuntimeError("boom") if isinstance(err, InvalidConfigError) else err)
    broken("bad-values", INFINITE_RATIO, "sound", "the compile crashed with RuntimeError: boom")


def test_bad_values_breaks_on_a_price_the_estimator_makes_infinite(monkeypatch):
    inf_estimator = Case(
        Store(store(2).messages, text_estimator=lambda s: math.inf if s else 0), Config(), Budget(max_tokens=10**6)
    )
    tamper(monkeypatch, store=lambda s: Store(s.messages))
    broken("bad-values", inf_estimator, "sound", "the estimator gives inf", "whose reference price is inf")


def test_bad_values_names_why_a_price_could_not_be_had_and_what_was_charged(monkeypatch):
    """Where the reference cannot price what was sent, the break says why (the exception and its text) beside
    what the compile charged."""
    inf_estimator = Case(
        Store(store(2).messages, text_estimator=lambda s: math.inf if s else 0), Config(), Budget(max_tokens=10**6)
    )
    tamper(monkeypatch, store=lambda s: Store(s.messages))

    def unpriceable(*_args):
        raise ValueError("no price for this")

    monkeypatch.setattr(bad_numbers, "reference_price", unpriceable)
    found = broken(
        "bad-values", inf_estimator, "sound", "reference price is unpriceable (ValueError: no price for this)"
    )
    plain = HierarchicalStrategy(Config())
    plain.initialize(Store(store(2).messages))
    assert f"(it charged {plain.compile(Budget(max_tokens=10**6)).stats.total.tokens})" in found.message


# ----------------------------------------------------------------------------- an estimator's bad values


def _bad_on(text):
    """An estimator that gives -1 for ``text`` alone (its length for any other text)."""
    return lambda s: -1 if s == text else len(s)


def _one_message(*content):
    return (Message("m0", "user", tuple(content)),)


def _summary_with_carriers(*response_content):
    return dataclasses.replace(summary("L1-0", 0, 0), response_content=tuple(response_content))


#: Each text an estimator is asked about, and a store holding it (the estimator bad on that text alone).
ESTIMATED = [
    ("", _one_message(Text("hello")), ()),
    ("\n\n---\n\n", _one_message(Text("hello")), ()),
    (Config().summary_context_label, _one_message(Text("hello")), ()),
    ("boom", _one_message(Text("hello"), Text("boom")), ()),
    ("deep", _one_message(ToolResult("u0", (Text("deep"),))), ()),
    ("thought", _one_message(Thinking("thought", "sig")), ()),
    ("carried", _one_message(Text("hello")), (_summary_with_carriers(Text("carried")),)),
]


@pytest.mark.parametrize("text, messages, summaries", ESTIMATED, ids=[repr(t[0][:12]) for t in ESTIMATED])
def test_bad_values_asks_the_estimator_about_every_text_it_will_price(text, messages, summaries):
    """The empty text, the label, the separator, message texts (nested in a tool result, a thinking block's
    thinking) and carrier texts: an estimator bad on any one of them alone is named with that text."""
    bad = Store(messages, summaries, text_estimator=_bad_on(text))
    assert bad_values(bad, Config(), Budget(max_tokens=100)) == [f"the estimator gives -1 for {text[:20]!r}"]
    fine = Store(messages, summaries, text_estimator=_bad_on("never asked"))
    assert bad_values(fine, Config(), Budget(max_tokens=100)) == []


def _texts(content) -> list[str]:
    """Every text and thinking of ``content``, nested tool results' included."""
    found: list[str] = []
    for b in content:
        if isinstance(b, Text):
            found.append(b.text)
        elif isinstance(b, Thinking):
            found.append(b.thinking)
        elif isinstance(b, ToolResult) and not isinstance(b.content, str):
            found += _texts(b.content)
    return found


def _priced_texts(store_: Store) -> list[str]:
    """The store's texts the compile prices with its estimator: messages', summaries' and their carriers'."""
    found = [t for m in store_.messages for t in _texts(m.content)]
    for s in store_.summaries:
        found += [s.content, *_texts(s.response_content or ())]
    return found


@given(store_=stores(), data=st.data())
def test_bad_values_asks_the_estimator_about_each_text_of_any_store(store_, data):
    """Over any store, an estimator bad on one of its texts alone (a message's, a summary's or a carrier's) is named
    with that text, after the other bad values the store holds."""
    texts = [t for t in _priced_texts(store_) if t]
    assume(texts)
    text = data.draw(st.sampled_from(texts), label="the text the estimator is bad on")
    bad, fine = (dataclasses.replace(store_, text_estimator=e) for e in (_bad_on(text), len))
    named = [f"the estimator gives -1 for {text[:20]!r}"]  # after the store's other bad values, if any
    assert (
        bad_values(bad, Config(), Budget(max_tokens=100)) == bad_values(fine, Config(), Budget(max_tokens=100)) + named
    )


def _raising(s):
    if s == "boom":
        raise ValueError("no")
    return len(s)


#: (store, config, budget, what bad_values names): each value at the edge of bad, on either side.
EDGES = [
    (Store(_one_message(Text("x"))), Config(max_message_tokens=0), Budget(100), []),
    (Store(_one_message(Text("x"))), Config(max_message_tokens=-1), Budget(100), ["cap -1"]),
    (Store(_one_message(Text("x"))), Config(max_message_tokens=math.nan), Budget(100), ["cap nan"]),
    (Store(_one_message(Text("x"))), Config(max_message_tokens=math.inf), Budget(100), ["cap inf"]),
    (Store(_one_message(Text("x"))), Config(), Budget(0), []),
    (Store(_one_message(Text("x"))), Config(), Budget(-1), ["max_tokens -1", "input budget -1"]),
    (Store(_one_message(Text("x"))), Config(), Budget(math.nan), ["max_tokens nan", "input budget nan"]),
    (Store(_one_message(Text("x"))), Config(), Budget(10, reserve_for_response=10), []),
    (Store(_one_message(Text("x"))), Config(), Budget(10, reserve_for_response=11), ["input budget -1"]),
    (
        Store(_one_message(Text("x"))),
        Config(),
        Budget(10, reserve_for_response=-1),
        ["reserve_for_response -1"],
    ),
    (Store(_one_message(Image(), Image(token_estimate=0))), Config(), Budget(100), []),
    (Store(_one_message(Image(token_estimate=-1))), Config(), Budget(100), ["a stamp in m0"]),
    (Store(_one_message(Text("x")), (summary("L1-0", 0, 0, tokens=0),)), Config(), Budget(100), []),
    (
        Store(_one_message(Text("x")), (summary("L1-0", 0, 0, tokens=math.nan),)),
        Config(),
        Budget(100),
        ["L1-0.tokens nan"],
    ),
    (
        Store(
            _one_message(Text("x")), (_summary_with_carriers(Thinking("t", "s"), Thinking("u", "s", token_estimate=0)),)
        ),
        Config(),
        Budget(100),
        [],
    ),
    (
        Store(_one_message(Text("x")), (_summary_with_carriers(Thinking("t", "s", token_estimate=-1)),)),
        Config(),
        Budget(100),
        ["a stamp in L1-0's carriers"],
    ),
    (
        Store(_one_message(ToolResult("u0", (Text("deep"),)), Text("boom")), text_estimator=_raising),
        Config(),
        Budget(100),
        ["the estimator gives ValueError('no') for 'boom'"],
    ),
    (
        Store(
            _one_message(Text("a long text of more than twenty")),
            text_estimator=_bad_on("a long text of more than twenty"),
        ),
        Config(),
        Budget(100),
        ["the estimator gives -1 for 'a long text of more '"],
    ),
]


@pytest.mark.parametrize("store_, config, budget, named", EDGES)
def test_bad_values_names_each_bad_value_and_nothing_at_the_edge_of_bad(store_, config, budget, named):
    """Zero is an ordinary cap, budget, reserve, stamp or token count; below zero, NaN or infinite is bad (an input
    budget below zero too); an estimator that raises is named with its error, a long text by its first 20
    characters; a text after a nested tool result is asked about too."""
    assert bad_values(store_, config, budget) == named


def test_bad_values_names_the_first_four_bad_values_and_counts_the_rest(monkeypatch):
    """Five bad values: four named, one counted; four: all named."""
    five = Case(
        Store(_one_message(Image(token_estimate=-1)), (summary("L1-0", 0, 0, tokens=math.nan),)),
        Config(max_message_tokens=-1, head_window_tokens=-1),
        Budget(max_tokens=100, reserve_for_response=-1),
    )
    tamper(monkeypatch, refused=lambda err, b: RuntimeError("boom"))
    names = "cap -1, head_window_tokens -1, reserve_for_response -1, a stamp in m0"
    assert judged("bad-values", five) == [
        Violation("bad-values", f"with bad values ({names} and 1 more) the compile crashed with RuntimeError: boom")
    ]
    four = dataclasses.replace(five, store=Store(five.store.messages))
    assert judged("bad-values", four) == [
        Violation("bad-values", f"with bad values ({names}) the compile crashed with RuntimeError: boom")
    ]


#: The stamps bad-values must name, and the blocks that carry a stamp (a summary's carriers take no image).
BAD_STAMPS = st.sampled_from([math.nan, -1, -0.5, -math.inf, math.inf])
STAMPED_BLOCKS = {
    "Thinking": lambda stamp: Thinking("t", "sig", token_estimate=stamp),
    "RedactedThinking": lambda stamp: RedactedThinking("r", token_estimate=stamp),
    "Image": lambda stamp: Image(token_estimate=stamp),
}


@given(
    kind=st.sampled_from(sorted(STAMPED_BLOCKS)),
    stamp=BAD_STAMPS,
    depth=st.integers(0, 2),
    before=st.lists(st.sampled_from([Text("x"), Image(), Thinking("t", "sig")]), max_size=2),
    in_carriers=st.booleans(),
)
def test_bad_values_names_a_bad_stamp_on_every_block_kind_that_carries_one(kind, stamp, depth, before, in_carriers):
    """Wherever a bad stamp stands (on any block kind with a stamp, after ordinary blocks, nested in tool results
    or in a summary's carriers), bad-values names it; made ordinary (0), it names nothing."""
    in_carriers = in_carriers and kind != "Image" and depth == 0

    def placed(block):
        for k in range(depth):
            block = ToolResult(f"u{k}", (*before, block))
        if in_carriers:
            carried = [b for b in before if not isinstance(b, Image)]
            return Store(_one_message(Text("x")), (_summary_with_carriers(*carried, block),))
        return Store(_one_message(*before, block))

    where = "a stamp in L1-0's carriers" if in_carriers else "a stamp in m0"
    assert bad_values(placed(STAMPED_BLOCKS[kind](stamp)), Config(), Budget(100)) == [where]
    assert bad_values(placed(STAMPED_BLOCKS[kind](0)), Config(), Budget(100)) == []
