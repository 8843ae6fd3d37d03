"""The reference price (docs/model.md, Prices and the floor: ``sound``): prose, carriers, the floor and its excess.

Expected values come from the rules in docs/model.md with the default estimator: ``"a" * 29`` is prose priced
``ceil(29 / 2.9) == 10``, a signed empty Thinking at epoch 1 prices ``js_round(33 / 3.3) == 10``.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.estimator import content_tokens
from reference.model import (
    Config,
    Entry,
    Message,
    RedactedThinking,
    Store,
    Summary,
    Text,
    Thinking,
)
from reference.price import excess, floor_applies, live_prose, measured, prose, reference_price

TEN = "a" * 29  # priced 10
THINK = Thinking("", signature="s" * 33)  # priced 10 at epoch 1
REDACTED = RedactedThinking("x" * 60)  # priced 10
FULL = "full"
STRIP = "live-strip"
#: What JavaScript's ``trim`` removes among the characters drawn here (the rest are not white space to it).
JS_WHITESPACE = " \n\t\u00a0\u3000\ufeff"


def cfg(policy: str) -> Config:
    """A default config under a carrier policy (built per test, so a broken Config fails a test, not collection)."""
    return Config(carrier_policy=policy)


def make_summary(*, tokens: float | None = 50, carriers: tuple | None = None, content: str = TEN) -> Summary:
    return Summary(
        id="L1-0",
        level=1,
        content=content,
        tokens=tokens,
        source_level=0,
        source_ids=("m1",),
        source_range=("m1", "m1"),
        response_content=carriers,
    )


def make_store(s: Summary | None = None) -> Store:
    return Store(
        messages=(Message(id="m1", participant="User", content=(Text(TEN),)),), summaries=() if s is None else (s,)
    )


# ----------------------------------------------------------------------------- prose and live_prose


def test_prose_is_the_carriers_when_there_are_any():
    """docs/model.md, Recall answers and the envelope: ``prose(s)`` is ``response_content`` when non-empty."""
    carriers = (THINK, Text("reply"))
    assert prose(make_summary(carriers=carriers)) == carriers


@pytest.mark.parametrize("carriers", [None, ()])
def test_prose_without_carriers_is_the_summary_text(carriers):
    """Recall answers: no carriers (None or empty) means the summary's content as one Text."""
    assert prose(make_summary(carriers=carriers, content="the text")) == (Text("the text"),)


def test_full_policy_keeps_the_reasoning():
    """Under ``"full"``, ``live_prose`` is ``prose``: carriers pass whole, reasoning included."""
    carriers = (THINK, REDACTED, Text("reply"))
    assert live_prose(make_summary(carriers=carriers), cfg(FULL)) == carriers


def test_live_strip_drops_reasoning_and_keeps_text():
    """Under ``"live-strip"`` Thinking and RedactedThinking go; the Text blocks stay, in order."""
    carriers = (THINK, Text("one"), REDACTED, Text("two"))
    assert live_prose(make_summary(carriers=carriers), cfg(STRIP)) == (Text("one"), Text("two"))


def test_live_strip_keeps_blank_text_beside_non_blank_text():
    """Only the fallback looks at blankness: with some non-blank Text left, blank Text blocks stay too."""
    carriers = (THINK, Text("  "), Text("reply"))
    assert live_prose(make_summary(carriers=carriers), cfg(STRIP)) == (Text("  "), Text("reply"))


@pytest.mark.parametrize(
    "carriers",
    [
        (THINK,),
        (THINK, REDACTED),
        (THINK, Text("")),
        (THINK, Text(" \n\t\u00a0\u3000\ufeff")),  # blank after JavaScript's trim
    ],
)
def test_live_strip_falls_back_to_the_summary_text_when_no_non_blank_text_remains(carriers):
    """Recall answers: with no non-blank Text left after stripping, the answer is the summary's own content."""
    assert live_prose(make_summary(carriers=carriers, content="fallback"), cfg(STRIP)) == (Text("fallback"),)


#: Carrier blocks: reasoning of both kinds, and texts blank and not under JavaScript's trim.
CARRIER_BLOCKS = st.one_of(
    st.sampled_from((THINK, REDACTED)),
    st.builds(Text, st.sampled_from(("", " ", "\n\t", "\u00a0", "\u3000\ufeff", "x", " reply ", "\u200b"))),
)


@given(
    carriers=st.one_of(st.none(), st.lists(CARRIER_BLOCKS, max_size=5).map(tuple)), content=st.sampled_from(("t", " "))
)
def test_live_strip_sends_the_carriers_texts_when_one_is_not_blank_else_the_summary_text(carriers, content):
    """For any carriers: ``full`` sends them whole; ``live-strip`` sends their Text blocks, in order, when one of them
    is not blank after JavaScript's trim, and otherwise the summary's own content as one Text."""
    s = make_summary(carriers=carriers, content=content)
    assert live_prose(s, cfg(FULL)) == (carriers or (Text(content),))
    texts = tuple(b for b in carriers or () if isinstance(b, Text))
    some_text = any(b.text.strip(JS_WHITESPACE) for b in texts)
    assert live_prose(s, cfg(STRIP)) == (texts if some_text else (Text(content),))


def test_live_strip_without_carriers_is_the_summary_text():
    """No carriers: the prose is already the summary text, which stays under ``live-strip``."""
    assert live_prose(make_summary(content="plain"), cfg(STRIP)) == (Text("plain"),)


# ----------------------------------------------------------------------------- measured and the floor


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        (50, True),
        (0.5, True),
        (1, True),
        (0, False),
        (-0.0, False),
        (-5, False),
        (math.nan, False),
        (math.inf, False),
        (-math.inf, False),
        (None, False),  # read as NaN
    ],
)
def test_measured_means_a_finite_number_above_zero(tokens, expected):
    """docs/model.md, Prices and the floor: ``tokens`` floors only when finite and > 0."""
    assert measured(make_summary(tokens=tokens)) is expected


@pytest.mark.parametrize(
    ("carriers", "tokens", "policy", "expected"),
    [
        ((THINK, Text(TEN)), 50, FULL, True),
        ((THINK, Text(TEN)), 50, STRIP, False),  # live-strip never floors
        ((), 50, FULL, False),  # sound: an empty carrier list does not floor
        (None, 50, FULL, False),
        ((THINK, Text(TEN)), math.nan, FULL, False),
        ((THINK, Text(TEN)), 0, FULL, False),
    ],
)
def test_floor_applies(carriers, tokens, policy, expected):
    """docs/model.md, Prices and the floor (sound): full carriers, a non-empty carrier list, and measured tokens."""
    assert floor_applies(make_summary(carriers=carriers, tokens=tokens), cfg(policy)) is expected


# ----------------------------------------------------------------------------- excess


def test_excess_is_measured_tokens_above_the_prose_estimate():
    """``excess = max(0, tokens - E(live_prose))``: carriers priced 10 + 10, measured 50, excess 30."""
    s = make_summary(carriers=(THINK, Text(TEN)), tokens=50)
    assert excess(s, make_store(s), cfg(FULL)) == 50 - (10 + 10)


@pytest.mark.parametrize("tokens", [20, 15, 0.5])
def test_excess_is_never_negative(tokens):
    """When the estimate reaches or passes the measurement, the excess is 0 (not negative, not 1)."""
    s = make_summary(carriers=(THINK, Text(TEN)), tokens=tokens)
    assert excess(s, make_store(s), cfg(FULL)) == 0


@pytest.mark.parametrize(
    ("carriers", "tokens", "policy"),
    [((THINK, Text(TEN)), 50, STRIP), (None, 50, FULL), ((THINK, Text(TEN)), math.inf, FULL)],
)
def test_no_excess_where_the_floor_does_not_apply(carriers, tokens, policy):
    """Without the floor the excess is 0, however large the measurement."""
    s = make_summary(carriers=carriers, tokens=tokens)
    assert excess(s, make_store(s), cfg(policy)) == 0


@pytest.mark.parametrize("cap", [2, 0.5, 1000])
def test_excess_is_measured_against_the_uncapped_prose(cap):
    """docs/model.md, Prices and the floor: the excess reads the *uncapped* prose, so a cap that would cut the
    carriers (29 units are 8 of the cap's tokens) leaves it 50 - (10 + 10), as with no cap."""
    s = make_summary(carriers=(THINK, Text(TEN)), tokens=50)
    assert excess(s, make_store(s), Config(max_message_tokens=cap)) == 50 - (10 + 10)


@given(
    texts=st.lists(st.text(max_size=60), min_size=1, max_size=3),
    tokens=st.floats(1, 500),
    cap=st.one_of(st.none(), st.floats(0.25, 40), st.integers(1, 40)),
)
def test_excess_does_not_depend_on_the_cap(texts, tokens, cap):
    """docs/model.md, Prices and the floor: the prose the excess is measured against is uncapped, so any cap
    gives the excess no cap gives."""
    s = make_summary(carriers=(THINK, *(Text(t) for t in texts)), tokens=tokens)
    st_ = make_store(s)
    assert excess(s, st_, Config(max_message_tokens=cap)) == excess(s, st_, Config(max_message_tokens=None))


def test_excess_follows_the_store_calibration():
    """The estimate subtracted is ``E`` with the store's calibration: at 2.0 the carriers price 40."""
    s = make_summary(carriers=(THINK, Text(TEN)), tokens=50)
    st = make_store(s).with_calibration(2.0)
    assert excess(s, st, cfg(FULL)) == 50 - (20 + 20)


# ----------------------------------------------------------------------------- reference_price


def test_reference_price_sums_entries_and_the_held_summaries_excess():
    """Prices and the floor: ``E`` of every entry from scratch, plus the excess of each summary an answer holds."""
    s = make_summary(carriers=(THINK, Text(TEN)), tokens=50)
    st = make_store(s)
    question = Entry(participant="Context Manager", content=(Text(TEN),), kind="question")
    answer = Entry(participant="Claude", content=(THINK, Text(TEN)), kind="answer", summary_ids=("L1-0",))
    raw = Entry(participant="User", content=(Text(TEN), Text(TEN)), kind="raw", message_id="m1")
    assert reference_price([question, answer, raw], st, cfg(FULL)) == 10 + (20 + 30) + 20
    assert reference_price([question, answer, raw], st, cfg(FULL)) == sum(
        content_tokens(e.content, st) for e in (question, answer, raw)
    ) + excess(s, st, cfg(FULL))


def test_reference_price_adds_excess_only_for_answers():
    """A question or raw entry naming summaries adds no excess; only an answer's held summaries do."""
    s = make_summary(carriers=(THINK, Text(TEN)), tokens=50)
    st = make_store(s)
    question = Entry(participant="Context Manager", content=(Text(TEN),), kind="question", summary_ids=("L1-0",))
    assert reference_price([question], st, cfg(FULL)) == 10
    assert reference_price([], st, cfg(FULL)) == 0
