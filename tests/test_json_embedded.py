"""A scenario inside other text (reference/json_input.py, ``scenario_objects``): what ``cmharness export`` reads
from a failing test's output, within the same limits as a scenario file (docs/model.md, "Bad input")."""

from __future__ import annotations

import pytest

from reference.json_input import MAX_DEPTH, MAX_DIGITS, JsonLimitError, TooLarge, scenario_objects


def test_the_objects_holding_the_key_are_found_in_order():
    text = 'Falsifying example: {"x": 1} then {"store": {"messages": []}} and {"store": 2}'
    assert list(scenario_objects(text)) == [{"store": {"messages": []}}, {"store": 2}]
    assert list(scenario_objects(text, key="x")) == [{"x": 1}]


def test_text_that_is_not_json_is_skipped_brace_by_brace():
    assert list(scenario_objects('x { not json } {"store": 1}')) == [{"store": 1}]
    assert list(scenario_objects('{{"store": 1}')) == [{"store": 1}]  # the next brace, not the one after
    assert list(scenario_objects("no braces at all")) == []
    assert list(scenario_objects('["store", {"store": 3}]')) == [{"store": 3}]


def test_the_limits_hold_inside_other_text():
    with pytest.raises(JsonLimitError, match=f"nested deeper than {MAX_DEPTH}"):
        next(scenario_objects("output: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)))
    (found,) = scenario_objects('{"store": ' + "9" * (MAX_DIGITS + 1) + "}")
    assert isinstance(found["store"], TooLarge) and found["store"].digits == MAX_DIGITS + 1
    (small,) = scenario_objects('{"store": ' + "9" * MAX_DIGITS + "}")
    assert small["store"] == int("9" * MAX_DIGITS)


def test_a_key_given_twice_is_refused_inside_other_text_too():
    with pytest.raises(JsonLimitError, match=r'^key "budget" given twice in one object$'):
        next(scenario_objects('Falsifying example: {"store": {"messages": []}, "budget": 1, "budget": 2}'))
