"""The shared readers of the scenario format: scalars, arrays, choices, camelCase names, unknown keys.

The factories (``one_of``, ``Array``, ``scalar``, the camelCase alias) are called here, inside the
tests, on purpose: the file's models are built once at import, so only a type built in a test shows
what the factory does now.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from reference.format_base import Array, Int, Str, Strict, accepted_names, fail, one_of, scalar, show, unknown_field
from reference.scenario import ScenarioError, load_scenario

SITES = ("head", "middle-raw", "positioned-pair")


def problem(tp: Any, raw: object) -> tuple[str, str]:
    """The one error ``raw`` gets under ``tp``: the message pydantic shows, and the path suffix it adds."""
    with pytest.raises(ValidationError) as info:
        TypeAdapter(tp).validate_python(raw)
    err = info.value.errors()[0]
    return err["msg"], err["ctx"]["suffix"]


def minimal(**extra: object) -> dict:
    return {
        "store": {"messages": [{"id": "m1", "participant": "User", "content": [{"type": "text", "text": "hi"}]}]},
        **extra,
    }


def load_error(raw: dict) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(raw)
    return str(info.value)


# ----------------------------------------------------------------------------- show


def test_show_escapes_a_lone_surrogate_and_keeps_other_text_readable():
    assert show("\ud800") == '"\\ud800"'
    assert show("é") == '"é"'
    assert show(5) == "5"
    assert show({"a": 1}) == "an object"
    assert show("x" * 70) == '"' + "x" * 56 + "..."


def test_show_names_an_integer_past_the_limit_by_its_digits():
    assert show(10**400) == "a 401-digit integer (at most 308 digits)"


# ----------------------------------------------------------------------------- fail and scalar


def test_fail_says_the_message_itself_and_carries_the_suffix():
    def positive(raw: object) -> Any:
        return raw if isinstance(raw, int) and raw > 0 else fail(f"expected a positive integer, got {show(raw)}", ".n")

    assert problem(scalar(positive, {"type": "integer"}), -1) == ("expected a positive integer, got -1", ".n")


def test_scalar_validates_with_its_check_and_documents_its_schema():
    double = scalar(lambda raw: raw * 2, {"type": "integer", "minimum": 0})
    assert TypeAdapter(double).validate_python(21) == 42
    assert TypeAdapter(double).json_schema() == {"type": "integer", "minimum": 0}


def test_integers_past_the_limit_are_refused_as_integers():
    assert problem(Int, 10**309) == ("expected an integer, got a 310-digit integer (at most 308 digits)", "")
    assert TypeAdapter(Int).validate_python(10**307) == 10**307


# ----------------------------------------------------------------------------- arrays


def test_an_array_reads_a_list_and_names_what_it_holds_when_refusing():
    assert TypeAdapter(Array(Str, " of ids")).validate_python(["a", "b"]) == ["a", "b"]
    assert TypeAdapter(Array(Str, " of ids")).validate_python(("a",)) == ["a"]
    assert problem(Array(Str, " of ids"), "a") == ('expected an array of ids, got "a"', "")
    assert problem(Array(Str), {"a": 1}) == ("expected an array, got an object", "")


# ----------------------------------------------------------------------------- choices


def test_one_of_accepts_exactly_its_choices():
    site = one_of(SITES)
    assert [TypeAdapter(site).validate_python(s) for s in SITES] == list(SITES)
    assert TypeAdapter(site).json_schema() == {"enum": list(SITES)}


def test_one_of_suggests_the_closest_choice():
    assert problem(one_of(SITES), "haed") == (
        'expected one of head, middle-raw, positioned-pair, got "haed"; did you mean "head"?',
        "",
    )


def test_one_of_suggests_nothing_when_nothing_is_close():
    assert problem(one_of(SITES), "zzz") == ('expected one of head, middle-raw, positioned-pair, got "zzz"', "")


def test_one_of_suggests_nothing_for_a_value_that_is_not_a_string():
    # str(["head"]) is close to "head", but a non-string is never a near miss of a name.
    assert problem(one_of(SITES), ["head"]) == ("expected one of head, middle-raw, positioned-pair, got an array", "")
    assert problem(one_of(SITES), None) == ("expected one of head, middle-raw, positioned-pair, got null", "")


# ----------------------------------------------------------------------------- field names


def test_a_file_object_accepts_snake_case_and_camel_case_names():
    class Part(Strict):
        source_ids: Int
        level: Int = 0

    assert Part.model_validate({"source_ids": 1}).source_ids == 1
    assert Part.model_validate({"sourceIds": 2, "level": 3}) == Part(source_ids=2, level=3)
    assert accepted_names(Part) == ["source_ids", "sourceIds", "level"]


def test_accepted_names_fall_back_to_the_field_name_then_its_validation_alias():
    class Plain(BaseModel):
        plain: int
        renamed: int = Field(alias="shown", validation_alias="read")

    assert accepted_names(Plain) == ["plain", "read"]


def test_an_object_without_fields_allows_none():
    class Empty(Strict):
        pass

    assert unknown_field("x", Empty) == 'unknown field "x" (allowed: none)'


def test_unknown_field_suggests_only_a_close_name():
    class Part(Strict):
        source_ids: Int

    assert unknown_field("sourceId", Part) == (
        'unknown field "sourceId"; did you mean "sourceIds"? (allowed: source_ids)'
    )
    assert unknown_field("xyz", Part) == 'unknown field "xyz" (allowed: source_ids)'


# ----------------------------------------------------------------------------- numbers per tool name


def test_a_number_per_tool_name_is_read_with_the_number_strings():
    sc = load_scenario(minimal(config={"toolResultMaxLastN": {"bash": 2, "grep": "Infinity", "ls": 0.5}}))
    assert sc.config.tool_result_max_last_n == (("bash", 2), ("grep", float("inf")), ("ls", 0.5))


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("x", '"x"'),
        (10**400, "a 401-digit integer (at most 308 digits)"),
        (True, "true"),
        (None, "null"),
        ([1], "an array"),
        ({"n": 1}, "an object"),
    ],
)
def test_a_bad_number_per_tool_name_is_refused_at_the_tool_name(value: object, shown: str):
    assert load_error(minimal(config={"toolResultMaxLastN": {"bash": 1, "grep": value}})) == (
        f"config.toolResultMaxLastN.grep: expected a number, got {shown}"
    )
