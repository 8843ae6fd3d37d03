"""The numerics against a JavaScript engine: one Node process per session (``tests/js_oracle.mjs``).

Code that ``reference/`` and ``strategies/`` share moves both sides together, so no invariant can
see a bug in it; these properties compare it with Node instead. Each example is one batch, one
round trip. Doubles travel as ``repr`` strings and strings as ASCII JSON (lone surrogates as
``\\udXXX`` escapes, which ``JSON.parse`` keeps as lone units).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from js_oracle_client import (
    SKIP_WITHOUT_NODE,
    Oracle,
    close_oracle,
    double,
    number,
    oracle,
    parse_double,
    same,
    tagged,
    units,
)

from invariants.generators.budget_placement import input_budget_for
from invariants.properties import grace_limit
from reference.estimator import text_tokens
from reference.model import Budget, Config, Summary
from reference.numerics import (
    js_ceil,
    js_floor,
    js_max,
    js_min,
    js_number_string,
    js_replace_all,
    js_round,
    js_safe_slice,
    js_slice,
    js_trim,
    json_stringify,
    len16,
)
from strategies.defects import Defect, Defects
from strategies.pricing import grace_limit as compile_grace_limit
from strategies.recall import header

pytestmark = SKIP_WITHOUT_NODE


@pytest.fixture(scope="session")
def js() -> Iterator[Oracle]:
    yield oracle()
    close_oracle()


# ----------------------------------------------------------------------------- inputs

EDGE_DOUBLES = (
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    0.49999999999999994,
    -0.49999999999999994,
    4503599627370495.5,
    2.0**52 + 1,
    2.0**53,
    -0.0,
    0.0,
    1e21,
    1e21 - 65536,
    9.999999999999999e20,
    1e-6,
    1e-7,
    1.5e-7,
    123e-20,
    5e-324,
    1.7976931348623157e308,
    0.1,
    100.0,
    1e16,
    1.2345678901234567e-5,
    math.nan,
    math.inf,
    -math.inf,
)
doubles = st.one_of(st.floats(), st.sampled_from(EDGE_DOUBLES), st.integers(-(10**6), 10**6).map(lambda n: n / 8))

#: Characters the model's rules turn on: surrogate halves (paired and lone), JavaScript-only and
#: Python-only whitespace, replacement-pattern characters, placeholders' braces, dense punctuation.
ODD_CHARS = (
    "\ud83d",
    "\ude00",
    "\udc00",
    "\udbff",
    "\U0001f600",
    "\ufeff",
    "\u3000",
    "\u2028",
    "\u00a0",
    "\x1c",
    "\x85",
    "\u200b",
    " ",
    "\t",
    "\n",
    "$",
    "&",
    "`",
    "'",
    "<",
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    "_",
    "/",
    "=",
    "\\",
    "\x00",
    "\x7f",
    "é",
    "a",
    "b",
)
chars = st.one_of(st.sampled_from(ODD_CHARS), st.characters(exclude_categories=()))
texts = st.text(chars, max_size=24)


def batch(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(strategy, min_size=1, max_size=12)


# ----------------------------------------------------------------------------- Math and String(number)


@given(xs=batch(doubles))
@example(xs=list(EDGE_DOUBLES))
def test_math_round_ceil_floor_and_string_match_javascript(js: Oracle, xs: list[float]) -> None:
    """``Math.round``/``ceil``/``floor`` of a double and ``String`` of the result, and ``String(x)`` itself."""
    requests = [[op, double(x)] for x in xs for op in ("round", "ceil", "floor", "string")]
    answers = iter(js.ask(requests))
    for x in xs:
        for name, fn in (("round", js_round), ("ceil", js_ceil), ("floor", js_floor)):
            got, want = fn(x), parse_double(next(answers))
            assert same(float(got), want), f"{name}({x!r}): model {got!r}, JavaScript {want!r}"
            assert js_number_string(got) == (want_text := js_number_string(want)), (name, x, want_text)
        assert js_number_string(x) == (want := next(answers)), (
            f"String({x!r}): model {js_number_string(x)!r}, JavaScript {want!r}"
        )


# ----------------------------------------------------------------------------- the judges' arithmetic

#: Numbers the budget arithmetic turns on: around 2**53 (odd integers round), NaN, the infinities, -0, negatives,
#: halves, ratios whose ``1 + g`` is 1 or rounds.
EDGE_NUMBERS = (
    *EDGE_DOUBLES,
    0,
    1,
    -1,
    2,
    10,
    102,
    2**53 - 1,
    2**53,
    2**53 + 1,
    2**53 + 3,
    -(2**53) - 1,
    2**60 + 1,
    0.02,
    1e-17,
    -0.02,
)
numbers = st.one_of(doubles, st.sampled_from(EDGE_NUMBERS), st.integers(-(2**60), 2**60))
ratios = st.one_of(st.sampled_from((0, 0.02, 0.5, 1, 2, -0.5, -0.0, math.nan, math.inf, 1e-17, 2**53)), doubles)


def _zero_sign(x: float) -> float:
    return math.copysign(1, x) if x == 0 else 0.0


@given(xs=batch(st.lists(numbers, max_size=4)))
@example(xs=[[0, math.nan], [math.nan, 0], [-0.0, 0], [0, -0.0], [], [math.inf, math.nan], [2**53 + 1, 2**53]])
def test_max_and_min_match_javascript(js: Oracle, xs: list[list[float]]) -> None:
    """``Math.max``/``Math.min``: NaN wherever it stands, +0 above -0, the infinities of no argument."""
    answers = iter(js.ask([[op, *map(number, args)] for args in xs for op in ("max", "min")]))
    for args in xs:
        held = [float(number(x)) for x in args]  # what JavaScript holds for each argument
        for name, fn in (("max", js_max), ("min", js_min)):
            got, want = fn(*held), parse_double(next(answers))
            assert same(float(got), want), f"Math.{name}{tuple(args)}: model {got!r}, JavaScript {want!r}"
            assert _zero_sign(float(got)) == _zero_sign(want), f"Math.{name}{tuple(args)}: the sign of zero"


@given(items=batch(st.tuples(numbers, numbers, ratios)))
@example(items=[(2**53, -1, 0), (2**53, -1, 2), (2**53 - 1, 0, 2), (100, 0, math.nan), (10, 0, 2**53), (100, 20, -1)])
def test_the_grace_limit_matches_javascript(js: Oracle, items: list[tuple[float, float, float]]) -> None:
    """``Math.floor((max - reserve) * (1 + Math.max(0, g)))``: the judges' limit and the compile's."""
    answers = js.ask([["grace", number(m), number(r), number(g)] for m, r, g in items])
    for (m, r, g), want in zip(items, answers, strict=True):
        budget, config = Budget(max_tokens=m, reserve_for_response=r), Config(over_budget_grace_ratio=g)
        for name, got in (
            ("judge", grace_limit(budget, config)),
            ("compile", compile_grace_limit(budget.input_budget, config)),
        ):
            assert same(float(got), parse_double(want)), (
                f"{name}'s grace limit of {m!r} - {r!r} at {g!r}: {got!r}, JavaScript {want}"
            )


@given(items=batch(st.tuples(numbers, ratios)))
@example(items=[(10, math.nan), (10.5, 0), (102, 0.02), (103, 0.02), (2**53 - 1, 0.02), (2**53 - 1, 2), (-5, 0.5)])
def test_the_smallest_input_budget_of_a_price_matches_javascript(js: Oracle, items: list[tuple[float, float]]) -> None:
    """``input_budget_for`` (the exact-budget invariant's budget) against a bisection in Node's doubles."""
    answers = js.ask([["budget_for", number(p), number(g)] for p, g in items])
    for (p, g), want in zip(items, answers, strict=True):
        got = input_budget_for(float(number(p)) if isinstance(p, int) and abs(p) > 2**53 else p, g)
        assert (got is None and want is None) or (want is not None and got == parse_double(want)), (
            f"input_budget_for({p!r}, {g!r}): model {got!r}, JavaScript {want!r}"
        )


# ----------------------------------------------------------------------------- JSON.stringify


keys = st.one_of(texts, st.sampled_from(("0", "1", "10", "2", "01", "-1", "4294967294", "4294967295", "1.5")))
scalars = st.one_of(st.none(), st.booleans(), doubles, st.integers(-(2**60), 2**60), st.text(chars, max_size=8))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(keys.filter(lambda k: k != "$f"), inner, max_size=4)
    ),
    max_leaves=8,
)


@given(xs=batch(values))
@example(
    xs=[
        "\ud83d",
        "\ude00\ud83d",
        "a\U0001f600\udc00",
        -0.0,
        1e21,
        1e-7,
        [{"b": 1, "2": [None, math.nan]}],
        {"1": 1, "0": 0, "a": -math.inf},
        2**60 + 1,
    ]
)
def test_json_stringify_matches_javascript(js: Oracle, xs: list[Any]) -> None:
    """Well-formed ``JSON.stringify``: lone surrogates escaped, -0 as 0, 1e21 as 1e+21, index keys first."""
    answers = js.ask([["stringify", tagged(x)] for x in xs])
    for x, want in zip(xs, answers, strict=True):
        assert units(json_stringify(x)) == units(want), f"JSON.stringify({x!r}): model {json_stringify(x)!r}"


# ----------------------------------------------------------------------------- UTF-16, trim, replace, the estimate


@given(items=batch(st.tuples(texts, st.integers(0, 30))))
@example(items=[("a\udc00bc", 1), ("\U0001f600\udc00", 2), ("a\U0001f600b", 2), ("\ud800\udc00x", 1)])
def test_utf16_lengths_slices_cuts_and_trim_match_javascript(js: Oracle, items: list[tuple[str, int]]) -> None:
    """``s.length``, ``s.slice(0, end)``, the cap's surrogate-safe cut (``end`` > 0) and ``s.trim()``."""
    requests = [r for s, end in items for r in (["length", s], ["slice", s, end], ["cut", s, max(end, 1)], ["trim", s])]
    answers = iter(js.ask(requests))
    for s, end in items:
        assert len16(s) == next(answers), f"length of {s!r}"
        assert units(js_slice(s, end)) == units(next(answers)), f"{s!r}.slice(0, {end})"
        assert units(js_safe_slice(s, max(end, 1))) == units(next(answers)), f"cut of {s!r} at {max(end, 1)}"
        assert units(js_trim(s)) == units(next(answers)), f"{s!r}.trim()"


@given(items=batch(st.tuples(texts, st.sampled_from(("{id}", "{a}", "$", "a", "{", "&")), texts)))
@example(items=[("x{a}y{a}", "{a}", "[$`|$'|$&|$$|$1|$<n>]"), ("aaa", "a", "$'$`")])
def test_replace_with_replacement_patterns_matches_javascript(js: Oracle, items: list[tuple[str, str, str]]) -> None:
    """``subject.replace(/literal/g, replacement)``: GetSubstitution's ``$$``, ``$&``, ``$```, ``$'``."""
    answers = js.ask([["replace", *item] for item in items])
    for (subject, pattern, replacement), want in zip(items, answers, strict=True):
        got = js_replace_all(subject, pattern, replacement)
        assert units(got) == units(want), f"{subject!r}.replace(/{pattern}/g, {replacement!r}): model {got!r}"


placeholder_texts = st.lists(
    st.sampled_from(("{id}", "{level}", "{first}", "{last}", "$&", "$`", "$'", "$$", "$1", "$<n>", *ODD_CHARS)),
    max_size=6,
).map("".join)
CHAINED = Defects(frozenset({Defect.HEADER_REPLACE_CHAINED}))


@given(
    items=batch(
        st.tuples(placeholder_texts, placeholder_texts, st.integers(1, 12), placeholder_texts, placeholder_texts)
    )
)
@example(items=[("[Recall {id}]", "a{last}", 1, "m$&", "z$`"), ("{first}{last}{id}", "{level}", 3, "$'", "$$")])
def test_the_chained_header_matches_javascript(js: Oracle, items: list[tuple[str, str, int, str, str]]) -> None:
    """The faithful positioned question: four chained ``replace`` calls over ``{id}``, ``{level}``, ``{first}``,
    ``{last}`` (``buildRecallHeader``)."""
    answers = js.ask(
        [["header", template, sid, double(float(level)), first, last] for template, sid, level, first, last in items]
    )
    for (template, sid, level, first, last), want in zip(items, answers, strict=True):
        s = Summary(
            id=sid, level=level, content="x", tokens=1, source_level=0, source_ids=(first,), source_range=(first, last)
        )
        got = header(s, Config(recall_header_template=template), CHAINED)
        assert units(got) == units(want), f"header {template!r} over {sid!r}, {first!r}, {last!r}: model {got!r}"


#: Long texts built by repetition (cheap to draw): the density probe's 2,000-unit edge, astral characters across it.
dense_texts = st.one_of(
    texts,
    st.builds(
        lambda unit, times, tail: unit * times + tail,
        st.text(st.sampled_from("ab {}é\U0001f600"), min_size=1, max_size=4),
        st.integers(300, 2100),
        texts,
    ),
)


@given(xs=batch(dense_texts))
@example(xs=["a" * 1999 + "\U0001f600", "a" * 69, '{"' * 35, "a" * 1760 + "{" * 240 + "é" * 300])
def test_the_density_estimate_matches_javascript(js: Oracle, xs: list[str]) -> None:
    """The store's text estimate: dense share of the first 2,000 units decides 2.3 or 2.9 chars a token."""
    answers = js.ask([["text_tokens", s] for s in xs])
    for s, want in zip(xs, answers, strict=True):
        assert text_tokens(s) == want, f"text_tokens of {s[:40]!r}... ({len16(s)} units)"
