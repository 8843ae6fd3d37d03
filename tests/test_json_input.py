"""Reading untrusted JSON within its limits: 500 levels of nesting, integers of at most 308 digits."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.json_input import (
    MAX_DEPTH,
    JsonLimitError,
    TooLarge,
    check_depth,
    check_text_depth,
    is_too_large,
    parse_json,
)

# ----------------------------------------------------------------------------- integers


def test_an_integer_of_308_digits_is_read_and_one_of_309_is_not():
    assert parse_json("9" * 308) == int("9" * 308)
    assert parse_json("-" + "9" * 308) == -int("9" * 308)  # the sign is not a digit
    big = parse_json("[1" + "0" * 308 + "]")[0]
    assert isinstance(big, TooLarge) and big.digits == 309
    assert parse_json("-" + "1" * 309).digits == 309


def test_the_limit_is_ten_to_the_308():
    assert is_too_large(10**308) and is_too_large(-(10**308))
    assert not is_too_large(10**308 - 1)
    assert not is_too_large(True)


# ----------------------------------------------------------------------------- nesting in text


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_text_nested_to_the_limit_passes():
    check_text_depth(nested(MAX_DEPTH))
    check_text_depth(nested(MAX_DEPTH - 1) + " " + nested(3))


def test_brackets_inside_strings_do_not_nest():
    check_text_depth('"' + "[" * (MAX_DEPTH + 1) + '"')
    check_text_depth('["' + "{" * MAX_DEPTH + '", ' + nested(MAX_DEPTH - 1) + "]")


def test_closing_brackets_count_against_the_depth():
    check_text_depth("[]" * (MAX_DEPTH + 1))
    check_text_depth("[[]" + "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 1))


def depth_error(text: str) -> str:
    with pytest.raises(JsonLimitError) as info:
        check_text_depth(text)
    return str(info.value)


def test_too_deep_text_is_refused_at_the_line_and_column_of_the_first_bracket_past_the_limit():
    assert depth_error("[" * (MAX_DEPTH + 1)) == "nested deeper than 500 arrays and objects at line 1 column 501"
    assert depth_error("\n" + "{" * (MAX_DEPTH + 1)) == "nested deeper than 500 arrays and objects at line 2 column 501"


def test_the_position_counts_lines_and_columns_around_closed_brackets():
    # Two lines before the culprit (one of them empty), one after; the closed pair leaves the depth at 0.
    text = "\n[]\n " + "[" * (MAX_DEPTH + 1) + "\n]\n"
    assert depth_error(text) == "nested deeper than 500 arrays and objects at line 3 column 502"


def test_a_closed_bracket_lowers_the_depth_by_one():
    # Nesting 2, back to 1, then 500 more: the culprit is the 500th of the run, at column 503.
    assert depth_error("[[]" + "[" * MAX_DEPTH) == "nested deeper than 500 arrays and objects at line 1 column 503"


# ----------------------------------------------------------------------------- nesting in a parsed value


def deep_list(depth: int) -> list:
    v: list = []
    for _ in range(depth - 1):
        v = [v]
    return v


def test_a_value_nested_to_the_limit_passes_and_one_level_more_is_refused_at_its_path():
    check_depth(deep_list(MAX_DEPTH))
    with pytest.raises(JsonLimitError) as info:
        check_depth({"a": deep_list(MAX_DEPTH)})
    assert info.value.loc == ("a",) + (0,) * (MAX_DEPTH - 1)
    assert str(info.value) == "nested deeper than 500 arrays and objects"


def test_scalars_beside_a_deep_value_do_not_end_the_walk():
    with pytest.raises(JsonLimitError):
        check_depth({"deep": deep_list(MAX_DEPTH + 1), "after": 1})


@st.composite
def nested_near_the_limit(draw: st.DrawFn) -> tuple[object, int]:
    """A value nested two levels either side of the limit along one path of lists and objects (a drawn pattern of
    the two, repeated), a scalar or an empty container innermost, scalars beside it at drawn levels; its depth."""
    levels = draw(st.integers(MAX_DEPTH - 2, MAX_DEPTH + 2), label="levels")
    pattern = draw(st.lists(st.booleans(), min_size=1, max_size=6), label="list or object, repeated")
    beside = draw(st.sets(st.integers(0, levels - 1), max_size=3), label="levels with a scalar beside")
    inner = draw(st.sampled_from([1, "[{", None, [], {}]), label="innermost")
    value: object = inner
    for level in reversed(range(levels)):
        if pattern[level % len(pattern)]:
            value = [value, 0] if level in beside else [value]
        else:
            value = {"k": value, "z": 0} if level in beside else {"k": value}
    return value, levels + isinstance(inner, (list, dict))


@given(nested_near_the_limit())
def test_the_walk_of_a_parsed_value_and_the_scan_of_its_text_refuse_exactly_past_the_limit(drawn):
    """A parsed value and its JSON text are refused alike, exactly when they nest deeper than the limit."""
    value, depth = drawn
    refused = []
    for check, arg in ((check_depth, value), (check_text_depth, json.dumps(value))):
        try:
            check(arg)
        except JsonLimitError:
            refused.append(True)
        else:
            refused.append(False)
    assert refused == [depth > MAX_DEPTH] * 2


# ----------------------------------------------------------------------------- each key once


@pytest.mark.parametrize(
    "text, key",
    [
        ('{"store": {}, "store": {}}', "store"),
        ('{"messages": [{"id": "m1", "content": [], "id": "m2"}]}', "id"),
        ('[{"a": 1}, {"b": 2, "c": 3, "b": 4}]', "b"),
    ],
)
def test_a_key_given_twice_in_one_object_is_refused_naming_it(text, key):
    with pytest.raises(JsonLimitError, match=f'^key "{key}" given twice in one object$'):
        parse_json(text)


def test_the_same_key_in_two_objects_is_read_in_order():
    assert parse_json('{"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]}') == {
        "a": {"x": 1},
        "b": {"x": 2},
        "c": [{"x": 3}, {"x": 4}],
    }
    assert list(parse_json('{"z": 1, "a": 2, "m": 3}')) == ["z", "a", "m"]
