"""JavaScript numerics (SPEC section 1): worked values checked by hand against the SPEC."""

from __future__ import annotations

import math

import pytest

from reference.estimator import len16
from reference.numerics import (
    js_ceil,
    js_floor,
    js_max,
    js_min,
    js_number_string,
    js_round,
    js_trim,
    json_stringify,
    slice16,
    units16,
)


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
