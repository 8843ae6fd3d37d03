"""One wording for every unknown name (reference/names.py; docs/model.md, "Bad input"): the closest known name
suggested, the known ones listed, and the error under the model's root with the builtin category callers catch."""

from __future__ import annotations

import argparse
import dataclasses
import enum

import pytest
from hypothesis import given
from hypothesis import strategies as st

from invariants import find
from reference.config import Budget, Config
from reference.errors import ModelError, UnknownFieldError, UnknownNameError
from reference.json_input import JsonLimitError
from reference.model import Message, Store, Summary, Work
from reference.names import closest, did_you_mean, lookup, one_of, suggest_fields, unknown
from reference.scenario import ScenarioError
from strategies.defects import resolve_variant


def test_closest_is_the_best_match_above_the_cutoff_and_none_for_a_non_string():
    assert closest("never_over", ["never-over", "tail-suffix"]) == ["never-over"]
    assert closest("xyz", ["never-over"]) == []
    assert closest(3, ["3"]) == []
    assert closest("abcd", ["abxx", "abcx", "zzzz"], n=2, cutoff=0.4) == ["abcx", "abxx"]
    # "ab" against "abcd": ratio 2*2/6 = 0.67, above the default 0.6; with a cutoff of 0.7 it is not close
    assert closest("ab", ["abcd"]) == ["abcd"] and closest("ab", ["abcd"], cutoff=0.7) == []


def test_the_hint_names_each_close_name_quoted_or_nothing():
    assert did_you_mean([]) == ""
    assert did_you_mean(["a"]) == "; did you mean a?"
    assert did_you_mean(["a", "b"], repr) == "; did you mean 'a' or 'b'?"


def test_the_message_names_the_kind_the_name_the_closest_and_the_known():
    assert (
        unknown("invariant", "never_over", ["never-over", "tail-suffix"])
        == "unknown invariant 'never_over'; did you mean 'never-over'? (known: never-over, tail-suffix)"
    )
    assert (
        unknown("field", "x", [], quote=str, listed="allowed", context=" here")
        == "unknown field x here (allowed: none)"
    )
    assert (
        unknown("a", "abcd", ["abxx", "abcx"], n=2, cutoff=0.4)
        == "unknown a 'abcd'; did you mean 'abcx' or 'abxx'? (known: abxx, abcx)"
    )
    assert unknown("a", "ab", ["abcd"], cutoff=0.7) == "unknown a 'ab' (known: abcd)"


def test_lookup_returns_the_value_or_refuses_with_the_one_wording():
    assert lookup("variant", "b", {"a": 1, "b": 2}) == 2
    with pytest.raises(UnknownNameError) as info:
        lookup("variant", "bb", {"a": 1, "b": 2})
    assert str(info.value) == "unknown variant 'bb'; did you mean 'b'? (known: a, b)"
    assert (
        isinstance(info.value, KeyError) and isinstance(info.value, ValueError) and isinstance(info.value, ModelError)
    )
    with pytest.raises(UnknownNameError):
        lookup("variant", ["unhashable"], {"a": 1})  # type: ignore[arg-type]


def test_find_names_the_closest_invariant():
    """Once a bare ``KeyError: 'never-ovr'``."""
    with pytest.raises(KeyError, match=r"^unknown invariant 'never-ovr'; did you mean 'never-over'\? \(known: "):
        find("never-ovr", resolve_variant("sound"), max_examples=1)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Config(head_window=3), "unknown Config field 'head_window'; did you mean 'head_window_tokens'?"),
        (lambda: Budget(max_token=3), "unknown Budget field 'max_token'; did you mean 'max_tokens'?"),
        (lambda: Message(id="m", participant="u", contents=()), "unknown Message field 'contents'; did you mean"),
        (lambda: Summary(id="s", levl=1), "unknown Summary field 'levl'; did you mean 'level'?"),
        (lambda: Store(mesages=()), "unknown Store field 'mesages'; did you mean 'messages'?"),
    ],
)
def test_a_misspelt_constructor_argument_names_the_closest_field(build, message):
    """Once Python's bare ``TypeError: __init__() got an unexpected keyword argument``."""
    with pytest.raises(UnknownFieldError) as info:
        build()
    assert str(info.value).startswith(message) and isinstance(info.value, TypeError)


def test_a_constructor_error_that_is_not_a_misspelling_is_python_s_own():
    """Every keyword given is a field (or none is given), so the error is Python's own, message and all: no field
    is reported unknown and none suggested."""
    with pytest.raises(TypeError, match=r"positional argument") as info:
        Config(*range(60))  # type: ignore[call-arg]  # more positional values than fields
    assert not isinstance(info.value, UnknownFieldError)
    first = dataclasses.fields(Config)[0].name
    with pytest.raises(TypeError, match=rf"^Config\.__init__\(\) got multiple values for argument '{first}'$") as info:
        Config(1, **{first: 2})  # type: ignore[misc]  # a field given by position and by keyword
    assert not isinstance(info.value, UnknownFieldError)


def test_suggest_fields_keeps_a_correct_call_and_the_signature():
    @suggest_fields
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 0

    assert Point(1, y=2) == Point(x=1, y=2)
    assert list(__import__("inspect").signature(Point).parameters) == ["x", "y"]
    with pytest.raises(UnknownFieldError, match=r"^unknown Point field 'z' \(known: x, y\)$"):
        Point(1, z=2)  # type: ignore[call-arg]


def test_the_model_s_errors_share_one_root():
    for cls in (ScenarioError, JsonLimitError, UnknownNameError, UnknownFieldError):
        assert issubclass(cls, ModelError), cls
    from reference.blocks import InvalidStoreError
    from reference.config import InvalidConfigError

    assert issubclass(InvalidStoreError, ModelError) and issubclass(InvalidConfigError, ModelError)


def test_one_name_is_suggested_by_default_even_when_two_are_as_close():
    assert closest("abcd", ["abce", "abcf"]) == ["abcf"]
    assert unknown("a", "abcd", ["abce", "abcf"]) == "unknown a 'abcd'; did you mean 'abcf'? (known: abce, abcf)"


@given(st.sampled_from([Config, Budget, Message, Summary, Store, Work]), st.data())
def test_of_several_unknown_arguments_the_first_given_is_named(cls: type, data: st.DataObject) -> None:
    """However many unknown keywords a constructor gets, among known ones in any order, the message names the
    first unknown one as the call gave it."""
    fields = [f.name for f in dataclasses.fields(cls) if f.init]
    unknown_names = data.draw(
        st.lists(
            st.text("abxyz_", min_size=1, max_size=6).filter(lambda n: n not in fields),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    known_names = data.draw(st.lists(st.sampled_from(fields), max_size=2, unique=True))
    order = data.draw(st.permutations(unknown_names + known_names))
    with pytest.raises(UnknownFieldError) as info:
        cls(**dict.fromkeys(order, 0))
    first = next(n for n in order if n not in fields)
    assert str(info.value).startswith(f"unknown {cls.__name__} field {first!r}")


class _Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


def test_a_command_line_choice_is_taken_as_typed_or_refused_in_the_one_wording():
    parse = one_of("colour", _Colour)
    assert parse("red") == "red" and parse("blue") == "blue" and parse.__name__ == "colour"
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse("rde")
    assert str(refused.value) == "unknown colour 'rde'; did you mean 'red'? (known: red, blue)"
    with pytest.raises(argparse.ArgumentTypeError, match=r"^unknown colour 'Red'; did you mean 'red'\?"):
        parse("Red")  # case counts: the value is taken exactly as typed
