"""Scenario files (reference/scenario.py): round trips, NaN/infinity strings, path-bearing errors."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from reference.model import Budget, Config, Image, Message, Store, Summary, Text, Thinking, ToolResult
from reference.scenario import Scenario, ScenarioError, dump_scenario, dumps_scenario, load_scenario, save_scenario

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "small-store.json"


@pytest.fixture
def minimal() -> dict:
    return {
        "store": {
            "messages": [
                {"id": "m1", "participant": "User", "content": [{"type": "text", "text": "hello"}]},
                {
                    "id": "m2",
                    "participant": "Claude",
                    "content": [
                        {"type": "thinking", "thinking": "hm", "signature": "sig"},
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": [{"type": "text", "text": "a"}, {"type": "image"}],
                        },
                    ],
                },
            ],
            "summaries": [
                {
                    "id": "L1-0",
                    "level": 1,
                    "content": "both",
                    "tokens": 12,
                    "source_level": 0,
                    "source_ids": ["m1", "m2"],
                    "source_range": ["m1", "m2"],
                }
            ],
        }
    }


@pytest.fixture
def example() -> Scenario:
    return load_scenario(EXAMPLE)


# ----------------------------------------------------------------------------- loading and round trips


def test_example_loads(example):
    store = example.store
    assert [m.id for m in store.messages] == [f"m{i}" for i in range(1, 9)]
    assert [s.id for s in store.summaries] == ["L1-0", "L1-1", "L2-0"]
    assert store.leaves("L2-0") == {"m1", "m2", "m3", "m4", "m5"}
    assert store.summary("L2-0").response_content is not None
    assert example.budget == Budget(max_tokens=8000, reserve_for_response=1000)


def test_example_round_trips(example):
    dumped = dump_scenario(example)
    again = load_scenario(dumped)
    assert again == example
    assert dump_scenario(again) == dumped
    json.dumps(dumped, allow_nan=False)  # strict JSON


def test_round_trip_through_a_file(example, tmp_path):
    path = tmp_path / "s.json"
    save_scenario(example, path)
    assert load_scenario(str(path)) == example


def test_defaults(minimal):
    sc = load_scenario(minimal)
    assert sc.config == Config()
    assert sc.budget.max_tokens == math.inf and sc.budget.reserve_for_response == 0
    assert sc.store.calibration == 1.0 and sc.store.pricing_epoch == 1 and sc.store.work == ()
    assert math.isnan(load_scenario(_without_tokens(minimal)).store.summaries[0].tokens)


def _without_tokens(d: dict) -> dict:
    d = copy.deepcopy(d)
    del d["store"]["summaries"][0]["tokens"]
    return d


def test_blocks_are_built_with_their_fields(minimal):
    m2 = load_scenario(minimal).store.messages[1]
    assert m2.content == (
        Thinking("hm", signature="sig", token_estimate=None),
        ToolResult("t1", (Text("a"), Image(token_estimate=None))),
    )


def test_non_finite_number_strings(minimal):
    minimal["store"]["summaries"][0]["tokens"] = "NaN"
    minimal["store"]["messages"][1]["content"][0]["token_estimate"] = "-Infinity"
    minimal["budget"] = {"max_tokens": "Infinity"}
    minimal["config"] = {"max_message_tokens": "NaN"}
    sc = load_scenario(minimal)
    assert math.isnan(sc.store.summaries[0].tokens)
    assert sc.store.messages[1].content[0].token_estimate == -math.inf
    assert sc.budget.max_tokens == math.inf
    dumped = dump_scenario(sc)
    assert dumped["store"]["summaries"][0]["tokens"] == "NaN"
    assert dumped["store"]["messages"][1]["content"][0]["token_estimate"] == "-Infinity"
    assert dumped["budget"]["max_tokens"] == "Infinity"
    assert dumped["config"]["max_message_tokens"] == "NaN"
    assert dump_scenario(load_scenario(dumped)) == dumped


def test_rejected_calibration_reads_as_one(minimal):
    minimal["store"]["calibration"] = "Infinity"
    assert load_scenario(minimal).store.calibration == 1.0


def test_integers_stay_integers(minimal):
    minimal["budget"] = {"max_tokens": 100, "reserve_for_response": 2.5}
    sc = load_scenario(minimal)
    assert isinstance(sc.budget.max_tokens, int) and isinstance(sc.budget.reserve_for_response, float)


def test_custom_estimator_is_dropped(minimal):
    base = load_scenario(minimal).store
    store = Store(messages=base.messages, summaries=base.summaries, text_estimator=len)
    again = load_scenario(dump_scenario(Scenario(store=store)))
    assert again.store.text_estimator is None
    assert again.store.messages == store.messages


def test_lone_surrogate_survives_a_file(tmp_path):
    store = Store(messages=(Message(id="m1", participant="User", content=(Text("bad \ud800 half"),)),))
    path = tmp_path / "s.json"
    save_scenario(Scenario(store=store), path)
    assert "\\ud800" in path.read_text(encoding="utf-8")
    assert load_scenario(path).store == store


def test_work_round_trips(minimal):
    minimal["store"]["work"] = [
        {"kind": "chunk", "state": "queued", "folds": ["m2", "m1"]},
        {"kind": "merge", "state": "running", "folds": None},
    ]
    sc = load_scenario(minimal)
    assert sc.store.work[0].folds == frozenset({"m1", "m2"})
    assert dump_scenario(sc)["store"]["work"][0]["folds"] == ["m1", "m2"]
    assert load_scenario(dump_scenario(sc)) == sc


def test_summary_round_trip_keeps_carriers_and_parent(example):
    l2 = example.store.summary("L2-0")
    dumped = dump_scenario(example)["store"]["summaries"][2]
    assert dumped["response_content"][0]["type"] == "thinking"
    assert load_scenario(dump_scenario(example)).store.summary("L2-0") == l2
    assert example.store.summary("L1-0").parent_id == "L2-0"


def test_dumps_is_text_ending_in_newline(example):
    text = dumps_scenario(example)
    assert text.endswith("}\n") and "🙏" in text


# ----------------------------------------------------------------------------- errors


def _set(d: dict, path: list, value) -> dict:
    d = copy.deepcopy(d)
    target = d
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return d


S, M = "store", "messages"


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
        ([S, "summaries", 0, "source_range"], ["m1"], "summaries[0].source_range: expected [first, last]"),
        ([S, "summaries", 0, "source_ids", 1], 7, "summaries[0].source_ids[1]: expected a string"),
        (
            [S, "summaries", 0, "response_content"],
            [{"type": "tool_use", "id": "t", "name": "n", "input": {}}],
            'summaries[0].response_content[0].type: block type "tool_use" is not allowed here',
        ),
        ([S, "pricing_epoch"], "1", 'pricing_epoch: expected an integer, got "1"'),
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
        load_scenario(_set(minimal, path, value))
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


def test_not_an_object():
    with pytest.raises(ScenarioError, match=r"^scenario: expected an object, got an array$"):
        load_scenario([1, 2])  # type: ignore[arg-type]


def test_summary_fields_match_the_public_names(example):
    dumped = dump_scenario(example)["store"]["summaries"][0]
    assert set(dumped) == {f for f in Summary.__dataclass_fields__}
