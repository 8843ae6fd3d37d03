"""JavaScript numerics (docs/model.md, Numerics): worked values checked by hand."""

from __future__ import annotations

import math
from typing import Any

import pytest

from reference.estimator import len16
from reference.numerics import (
    _escape_lone_surrogates,
    js_ceil,
    js_floor,
    js_max,
    js_min,
    js_number,
    js_number_string,
    js_replace_all,
    js_round,
    js_safe_slice,
    js_slice,
    js_trim,
    json_stringify,
    slice16,
    units16,
)
from reference.numerics import len16 as numerics_len16


def test_len16_counts_astral_characters_twice():
    assert len16("😀" * 10) == 20
    assert len("😀" * 10) == 10  # why Python's len is wrong here


def test_len16_bmp_and_lone_surrogate_count_once():
    assert len16("é€a") == 3
    assert len16("\ud800") == 1
    assert len16("") == 0


def test_units16_splits_astral_into_a_surrogate_pair():
    assert units16("a😀") == [0x61, 0xD83D, 0xDE00]


def test_slice16_never_cuts_inside_a_pair():
    assert slice16("a😀b", 2) == "a"
    assert slice16("a😀b", 3) == "a😀"


@pytest.mark.parametrize(
    ("x", "expected"),
    [(4.5, 5), (-2.5, -2), (0.49999999999999994, 0), (2.5, 3), (-0.5, 0), (-2.6, -3), (7, 7)],
)
def test_js_round_halves_go_up(x, expected):
    assert js_round(x) == expected


def test_js_round_differs_from_python_round_at_even_halves():
    assert js_round(4.5) != round(4.5)


@pytest.mark.parametrize("fn", [js_round, js_floor, js_ceil])
@pytest.mark.parametrize("x", [math.inf, -math.inf])
def test_infinities_pass_through(fn, x):
    assert fn(x) == x


@pytest.mark.parametrize("fn", [js_round, js_floor, js_ceil])
def test_nan_passes_through(fn):
    assert math.isnan(fn(math.nan))


def test_float_division_is_ieee():
    assert 69 / 2.3 == 30.000000000000004
    assert js_ceil(69 / 2.3) == 31
    assert js_floor(-0.5) == -1


def test_js_max_min_are_nan_with_any_nan():
    assert math.isnan(js_max(1, math.nan, 3))
    assert math.isnan(js_min(math.nan, 1))
    assert js_max(1, 3, 2) == 3
    assert js_min(1, 3, -2) == -2


def test_json_stringify_is_compact():
    assert json_stringify({"a": [1, 2], "b": None, "c": True}) == '{"a":[1,2],"b":null,"c":true}'


def test_json_stringify_keeps_non_ascii():
    text = json_stringify({"k": "é😀"})
    assert text == '{"k":"é😀"}'
    assert len16(text) == 11  # the emoji is 2 units; ASCII-escaped it would be 27


def test_json_stringify_escapes_lone_surrogate_to_six_units():
    text = json_stringify("\ud800")
    assert text == '"\\ud800"'
    assert len16(text) == 8  # 6 for the escape, 2 quotes


def test_json_stringify_keeps_a_surrogate_pair_made_of_halves():
    assert len16(json_stringify("\ud83d\ude00")) == 4


def test_json_stringify_writes_integral_floats_and_non_finite_as_js():
    assert json_stringify([1.0, math.nan, math.inf]) == "[1,null,null]"


def test_js_trim_removes_js_whitespace_only():
    assert js_trim("\u00a0\ufeff x \u2028") == "x"
    assert js_trim("\u200b") == "\u200b"  # zero-width space is not whitespace in JavaScript


@pytest.mark.parametrize(
    ("x", "expected"), [(3, "3"), (3.0, "3"), (math.nan, "NaN"), (-math.inf, "-Infinity"), (1.5, "1.5")]
)
def test_js_number_string(x, expected):
    assert js_number_string(x) == expected


# ----------------------------------------------------------------------------- UTF-16 boundaries


@pytest.mark.parametrize("s", ["", "a", "\uffff", "a\U00010000b", "😀" * 3, "\ud800x"])
def test_len16_is_an_integer_count_of_the_units(s: str) -> None:
    """String.prototype.length is an integer: it counts units16(s) and indexes its last unit."""
    n = numerics_len16(s)
    assert type(n) is int
    assert n == len(units16(s))
    if s:
        assert units16(s)[n - 1] == units16(s)[-1]


@pytest.mark.parametrize(
    ("s", "units"),
    [
        ("\ud7ff", [0xD7FF]),  # last code point below the surrogate block
        ("\ue000", [0xE000]),  # first code point above it
        ("\uffff", [0xFFFF]),  # the last BMP code point is one unit: "\uffff".length === 1
        ("\U00010000", [0xD800, 0xDC00]),  # the first astral code point is a pair: "\u{10000}".length === 2
        ("\U0010ffff", [0xDBFF, 0xDFFF]),  # the last code point: the highest pair
        ("\udc00", [0xDC00]),  # a lone surrogate is one unit
    ],
)
def test_units16_at_the_bmp_astral_boundary(s: str, units: list[int]) -> None:
    """charCodeAt of each unit: BMP code points (up to U+FFFF) are one unit, U+10000 and above a surrogate pair."""
    assert units16(s) == units


@pytest.mark.parametrize(
    ("s", "end", "expected"),
    [
        ("\uffffa", 1, "\uffff"),  # U+FFFF is one unit, so it fits in one
        ("\uffff\uffff", 1, "\uffff"),
        ("\U00010000a", 1, ""),  # cutting after the high half of U+10000 moves the cut before the pair
        ("\U00010000a", 2, "\U00010000"),
        ("a\U00010000", 2, "a"),
        ("\U00010000\uffff", 3, "\U00010000\uffff"),
    ],
)
def test_slice16_at_the_bmp_astral_boundary(s: str, end: int, expected: str) -> None:
    """s.slice(0, end) in UTF-16 units: U+FFFF is 1 unit, U+10000 is 2, and a cut never splits a pair."""
    assert slice16(s, end) == expected
    assert numerics_len16(slice16(s, end)) <= end


# ----------------------------------------------------------------------------- JSON.stringify and lone surrogates


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        # A high-low pair written as two halves is one astral character in JavaScript: kept as is.
        ("\ud800\udc00", '"\ud800\udc00"'),  # lowest high + lowest low (U+10000)
        ("\udbff\udfff", '"\udbff\udfff"'),  # highest high + highest low (U+10FFFF)
        ("\ud800\udfff", '"\ud800\udfff"'),
        # A pair not at the start of the text: kept whole, nothing dropped.
        (["\ud83d\ude00"], '["\ud83d\ude00"]'),
        ("a\ud83d\ude00b", '"a\ud83d\ude00b"'),
        ({"k": ["x", "\ud83d\ude00\ud83d\ude00"]}, '{"k":["x","\ud83d\ude00\ud83d\ude00"]}'),
        # Two lows, or a low before a high, are not a pair: both escaped.
        ("\udc00\udc00", '"\\udc00\\udc00"'),
        ("\udc00\ud800", '"\\udc00\\ud800"'),
        # A high followed by U+E000 (just past the low range) is lone; U+E000 itself is an ordinary character.
        ("\ud800\ue000", '"\\ud800\ue000"'),
        # Lone surrogates at both ends of the range, escaped in lower-case hex.
        ("\udfff", '"\\udfff"'),
        ("\udbff", '"\\udbff"'),
        ("x\udc00y\ud800", '"x\\udc00y\\ud800"'),
        ({"\udc00": "\ud800"}, '{"\\udc00":"\\ud800"}'),  # keys are strings too
    ],
)
def test_json_stringify_escapes_exactly_the_lone_surrogates(x: Any, expected: str) -> None:
    """Well-formed JSON.stringify: a high-low pair passes through, every other surrogate becomes \\udXXX."""
    assert json_stringify(x) == expected


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        ("\ud800", "\\ud800"),  # a high half at the very end has no low to pair with
        ("a\udbff", "a\\udbff"),
        ("\ud83d\ude00", "\ud83d\ude00"),  # a pair that ends the text is still a pair
        ("\ud800\udc00\ud800", "\ud800\udc00\\ud800"),
    ],
)
def test_escape_lone_surrogates_at_the_end_of_the_text(s: str, expected: str) -> None:
    """The helper's contract holds for any text, including a surrogate in its last position.

    json_stringify always hands it quoted text (so a closing quote follows every surrogate); these pin the edge
    directly, so the helper stays correct for a caller that passes unquoted text.
    """
    assert _escape_lone_surrogates(s) == expected


@pytest.mark.parametrize(("x", "expected"), [(1e21, "1e+21"), (-1e21, "-1e+21"), (1e20, "100000000000000000000")])
def test_json_stringify_switches_to_exponent_at_1e21(x: float, expected: str) -> None:
    """Number::toString writes integers below 1e21 in full and from 1e21 on in exponent form (JSON.stringify(1e21))."""
    assert json_stringify(x) == expected
    assert json_stringify([x]) == f"[{expected}]"


# ----------------------------------------------------------------------------- String(x)


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (True, "true"),
        (False, "false"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        (1e21, "1e+21"),
        (-1e21, "-1e+21"),
        (1e20, "100000000000000000000"),
        (-0.0, "0"),
    ],
)
def test_js_number_string_matches_string_of_x(x: Any, expected: str) -> None:
    """String(x) as JavaScript writes it: booleans in lower case, infinities spelled out, exponent from 1e21 on."""
    assert js_number_string(x) == expected


# ----------------------------------------------------------------------------- the edges the operator mutants probe


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (2**53, 2**53),
        (-(2**53), -(2**53)),  # exact integers stay ints
        (2**53 + 1, float(2**53)),  # beyond: the nearest double
        (-(2**53) - 1, -float(2**53)),
        (10**400, math.inf),
        (-(10**400), -math.inf),  # past the largest double: +-Infinity, as JSON.parse reads it
    ],
)
def test_js_number_holds_integers_as_javascript_does(x: int | float, expected: int | float) -> None:
    """Integers up to 2**53 in magnitude are kept as they are (ints), larger ones become doubles."""
    got = js_number(x)
    assert got == expected
    assert type(got) is type(expected)


@pytest.mark.parametrize(
    ("s", "end", "expected"),
    [
        ("\udbff\udfffz", 1, ""),  # 0xDFFF, the last low surrogate: one unit earlier
        ("\udbff\udc00z", 1, ""),  # 0xDC00, the first
        ("a\ue000", 1, "a"),  # 0xE000 is no surrogate
        ("a\udbffb", 1, "a"),  # nor is a high one
    ],
)
def test_js_safe_slice_steps_back_off_exactly_the_low_surrogates(s: str, end: int, expected: str) -> None:
    assert js_safe_slice(s, end) == expected


@pytest.mark.parametrize(
    ("s", "end", "expected"),
    [
        ("\U00010000", 1, "\ud800"),  # the first astral character: a cut inside keeps its high half
        ("\U00010000ab", 2, "\U00010000"),  # it is two units
        ("\uffffab", 2, "\uffffa"),  # U+FFFF, the last BMP character, is one unit
        ("\uffffa", 1, "\uffff"),
        ("ab", 0, ""),
    ],
)
def test_js_slice_counts_astral_characters_as_two_units(s: str, end: int, expected: str) -> None:
    assert js_slice(s, end) == expected


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (0.05, "0.05"),
        (0.000123, "0.000123"),
        (0.5, "0.5"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (123.25, "123.25"),
        (-0.05, "-0.05"),
        (0, "0"),
        (-5, "-5"),
        (123, "123"),
        (2**53 - 1, "9007199254740991"),
        (2**53 + 1, "9007199254740992"),  # an int is read as the double JavaScript would hold
        (10**21, "1e+21"),
        (1.5e300, "1.5e+300"),
    ],
)
def test_js_number_string_lays_out_digits_as_javascript(x: int | float, expected: str) -> None:
    """Number::toString: plain from 1e-6 up to 1e21 (leading zeros after the point counted), else exponent form."""
    assert js_number_string(x) == expected


def test_json_stringify_refuses_a_value_json_cannot_hold() -> None:
    with pytest.raises(TypeError, match=r"^not a JSON value: <object object at"):
        json_stringify({"a": [object()]})


@pytest.mark.parametrize(
    ("subject", "pattern", "replacement", "expected"),
    [
        ("a-b-c", "-", "[$`|$']", "a[a|b-c]b[a-b|c]c"),  # what precedes and follows each match in the subject
        ("a-b", "-", "<$&>", "a<->b"),
        ("a-b", "-", "$$&", "a$&b"),  # $$ is $, then & is literal
        ("a-b", "-", "$X$1$<$", "a$X$1$<$b"),  # anything else after $ (or nothing) stays literal
        ("aaa", "aa", "X", "Xa"),  # matches do not overlap
        ("abc", "-", "X", "abc"),
        ("", "-", "X", ""),
        ("--", "-", "$'", "-"),
    ],
)
def test_js_replace_all_is_get_substitution_at_every_match(
    subject: str, pattern: str, replacement: str, expected: str
) -> None:
    assert js_replace_all(subject, pattern, replacement) == expected


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        ("\ud83d\ude00", "\ud83d\ude00"),
        ("x\ud83d\ude00y", "x\ud83d\ude00y"),
        ("\ud83d\ud83d\ude00", "\\ud83d\ud83d\ude00"),  # a high half followed by a pair
        ("\ud83d\ude00\ude00", "\ud83d\ude00\\ude00"),  # a pair followed by a low half
        ("\ude00\ud83d", "\\ude00\\ud83d"),  # low then high is no pair
        ("plain", "plain"),
    ],
)
def test_escape_lone_surrogates_pairs_each_high_with_the_low_after_it(s: str, expected: str) -> None:
    assert _escape_lone_surrogates(s) == expected


def test_json_stringify_lists_index_keys_first_in_numeric_order() -> None:
    """An object's array-index keys come first, ascending as integers ("9" before "10", not as strings), then the
    other keys in insertion order; "01" and "4294967295" (2**32 - 1) are no index."""
    value = {"b": 0, "10": 1, "01": 2, "9": 3, "4294967295": 4, "4294967294": 5, "a": 6}
    assert json_stringify(value) == '{"9":3,"10":1,"4294967294":5,"b":0,"01":2,"4294967295":4,"a":6}'
