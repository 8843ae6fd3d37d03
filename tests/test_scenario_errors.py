"""Scenario errors (reference/scenario.py): each names its JSON path, the model's own errors come prefixed,
and bad JSON, a non-object and values nested too deep are refused in one line."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scenario_helpers import SUM, M, S, _edit, minimal_scenario
from scenario_helpers import minimal as minimal  # a fixture

from reference.scenario import ScenarioError, load_scenario, loads_scenario

# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ([S, "summaries", 0, "tokens"], "x", 'summaries[0].tokens: expected a number, got "x"'),
        ([S, M, 0, "content", 0, "type"], "foo", 'messages[0].content[0].type: unknown block type "foo"'),
        ([S, M, 1, "content", 1, "content", 0, "text"], 5, "messages[1].content[1].content[0].text: expected a string"),
        ([S, M, 1, "content", 0, "token_estimate"], True, "messages[1].content[0].token_estimate: expected a number"),
        ([S, M, 0, "content"], "hello", "messages[0].content: expected an array of blocks"),
        ([S, M, 0, "colour"], "red", 'messages[0]: unknown field "colour"'),
        ([S, "summaries", 0, "level"], 1.5, "summaries[0].level: expected an integer, got 1.5"),
        ([S, "summaries", 0, "level"], 1.0, "summaries[0].level: expected an integer, got 1.0"),
        ([S, "summaries", 0, "tokens"], "12", 'summaries[0].tokens: expected a number, got "12"'),
        ([S, "summaries", 0, "tokens"], "inf", 'summaries[0].tokens: expected a number, got "inf"'),
        ([S, "summaries", 0, "source_range"], ["m1"], "summaries[0].source_range: expected [first, last]"),
        ([S, "summaries", 0, "source_ids", 1], 7, "summaries[0].source_ids[1]: expected a string"),
        (
            [S, "summaries", 0, "response_content"],
            [{"type": "tool_use", "id": "t", "name": "n", "input": {}}],
            'summaries[0].response_content[0].type: block type "tool_use" is not allowed here',
        ),
        ([S, "pricing_epoch"], "1", 'pricing_epoch: expected an integer, got "1"'),
        ([S, "pricing_epoch"], 0.0, "pricing_epoch: expected an integer, got 0.0"),
        ([S, "work"], [{"kind": "chunk", "state": "queued", "folds": "m1"}], "work[0].folds: expected an array"),
        ([S, "text_estimator"], "len", "store.text_estimator: a custom text estimator cannot be written"),
        (["config"], {"head_window_tokens": "big"}, 'config.head_window_tokens: expected a number, got "big"'),
        (["config"], {"enforce_budget": 1}, "config.enforce_budget: expected true or false, got 1"),
        (["config"], {"heads": 1}, 'config: unknown field "heads"'),
        (["budget"], {"reserve_for_response": 1}, 'budget: missing field "max_tokens"'),
        (["extra"], 1, 'scenario: unknown field "extra"'),
    ],
)
def test_errors_name_the_json_path(minimal, path, value, message):
    with pytest.raises(ScenarioError) as info:
        load_scenario(_edit(minimal, path, value))
    assert str(info.value).startswith(message)


def test_missing_block_type(minimal):
    del minimal["store"]["messages"][0]["content"][0]["type"]
    with pytest.raises(ScenarioError, match=r'^messages\[0\].content\[0\]: missing field "type"$'):
        load_scenario(minimal)


def test_missing_store():
    with pytest.raises(ScenarioError, match=r'^scenario: missing field "store"$'):
        load_scenario({"config": {}})


def test_model_store_errors_are_prefixed(minimal):
    minimal["store"]["messages"].append(minimal["store"]["messages"][0])
    with pytest.raises(ScenarioError, match=r"^store: messages\[2\]: duplicate message id 'm1'$"):
        load_scenario(minimal)


def test_model_structural_error_in_summaries_is_prefixed(minimal):
    minimal["store"]["summaries"][0]["source_ids"] = ["m1", "zz"]
    with pytest.raises(ScenarioError, match=r"^store: summary 'L1-0': source id 'zz' names no message$"):
        load_scenario(minimal)


def test_model_config_errors_are_prefixed(minimal):
    minimal["config"] = {"recall_envelope": "json"}
    with pytest.raises(ScenarioError, match=r"^config: recall_envelope: must be 'none' or 'xml'"):
        load_scenario(minimal)


def test_scenario_error_is_a_value_error():
    assert issubclass(ScenarioError, ValueError)


def test_invalid_json_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"store": {', encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"^scenario: invalid JSON at line 1 column 12"):
        load_scenario(path)


def test_a_byte_order_mark_before_the_json_is_ignored(tmp_path):
    text = '{"store": {"messages": [{"id": "m1", "participant": "user", "content": [{"type": "text", "text": "hi"}]}]}}'
    plain, marked = tmp_path / "plain.json", tmp_path / "marked.json"
    plain.write_text(text, encoding="utf-8")
    marked.write_text(text, encoding="utf-8-sig")
    assert marked.read_bytes().startswith(b"\xef\xbb\xbf")
    assert load_scenario(marked) == load_scenario(plain) and loads_scenario("\ufeff" + text) == loads_scenario(text)
    with pytest.raises(ScenarioError, match=r"^scenario: invalid JSON at line 1 column 1"):
        loads_scenario("\ufeff\ufeff" + text)  # one mark, at the start only


def test_not_an_object():
    with pytest.raises(ScenarioError, match=r"^scenario: expected an object, got an array$"):
        load_scenario([1, 2])  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- error lines and paths


def test_pydantic_errors_of_other_kinds_are_one_line_at_their_path() -> None:
    """What pydantic itself reports (the format's own readers say more) still reads ``<path>: <what>``."""
    from reference.scenario import _message

    assert _message({"loc": ("config", "x"), "type": "int_type", "msg": "Input should be a valid integer"}) == (
        "config.x: Input should be a valid integer"
    )
    assert _message({"loc": (), "type": "int_type", "msg": "Input should be a valid integer"}) == (
        "scenario: Input should be a valid integer"
    )
    assert _message({"loc": ("store", "messages", 0), "type": "dict_type", "msg": "Input should be a dict"}) == (
        "messages[0]: expected an object"
    )
    assert _message({"loc": (), "type": "model_type", "msg": "Input should be an object"}) == (
        "scenario: expected an object"
    )
    assert _message(
        {
            "loc": ("budget",),
            "type": "cmharness",
            "msg": "m",
            "ctx": {"message": "expected a number, got null", "suffix": ".x"},
        }
    ) == ("budget.x: expected a number, got null")


def test_json_paths_drop_the_store_section_and_write_indices_in_brackets() -> None:
    from reference.scenario import json_path

    assert json_path(("store", "messages", 0, "content", 2, "type")) == "messages[0].content[2].type"
    assert json_path(("store",)) == "store"
    assert json_path(("config", "max_message_tokens")) == "config.max_message_tokens"
    assert json_path((0, "a", 1)) == "[0].a[1]"
    assert json_path(()) == ""


def test_a_parsed_value_nested_past_the_limit_is_refused_at_its_path(minimal: dict) -> None:
    deep: list = []
    for _ in range(500):
        deep = [deep]
    minimal["description"] = deep
    with pytest.raises(ScenarioError) as info:
        load_scenario(minimal)
    assert str(info.value) == "description" + "[0]" * 499 + ": nested deeper than 500 arrays and objects"


# ----------------------------------------------------------------------------- numbers and integers


@given(raw=st.floats())
@example(raw=1.0)
def test_an_integer_field_refuses_every_float(raw: float) -> None:
    """docs/model.md, Scenario files: ``level`` refuses floats, an integral one (``1.0``) too."""
    with pytest.raises(ScenarioError, match=r"^summaries\[0\]\.level: expected an integer, got "):
        load_scenario(_edit(minimal_scenario(), [*SUM, "level"], raw))


@given(
    text=st.one_of(st.text(max_size=6), st.floats().map(str), st.integers().map(str)).filter(
        lambda t: t not in ("NaN", "Infinity", "-Infinity")
    )
)
@example(text="12")
def test_a_number_field_takes_no_string_but_the_three_names(text: str) -> None:
    """docs/model.md, Scenario files: the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"`` stand for numbers;
    any other string, one Python's ``float`` reads (``"12"``, ``"inf"``) too, is refused."""
    with pytest.raises(ScenarioError, match=r"^summaries\[0\]\.tokens: expected a number, got "):
        load_scenario(_edit(minimal_scenario(), [*SUM, "tokens"], text))
