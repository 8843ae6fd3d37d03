"""Scenario files (reference/scenario.py): round trips, NaN/infinity strings, path-bearing errors."""

from __future__ import annotations

import codecs
import copy
import json
import math
from pathlib import Path

import pytest

from reference.model import (
    Budget,
    Config,
    Document,
    Image,
    Message,
    RedactedThinking,
    Store,
    Summary,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)
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


# ----------------------------------------------------------------------------- whole error messages
#
# The message format is the tool's user-facing contract: "<JSON path>: expected <what>, got <value>",
# the value rendered as JSON (non-ASCII kept), an object as "an object", an array as "an array", a
# non-JSON value by its repr, and anything longer than 60 characters cut to 57 plus "...".

_DELETE = object()


def _edit(d: dict, path: list, value: object) -> dict:
    """A deep copy of ``d`` with ``value`` at ``path`` (``_DELETE`` removes the key)."""
    d = copy.deepcopy(d)
    target = d
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return d


def _error(raw: object) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(raw)  # type: ignore[arg-type]
    return str(info.value)


B0 = [S, M, 0, "content", 0]  # the first block of the first message
P = "messages[0].content[0]"


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (5, f"{P}: expected a block object, got 5"),
        ({"type": 5}, f"{P}.type: unknown block type 5"),
        ({"type": "text", "text": "a", "colour": "red"}, f'{P}: unknown field "colour" (allowed: type, text)'),
        ({"type": "text"}, f'{P}: missing field "text"'),
        ({"type": "text", "text": None}, f"{P}.text: expected a string, got null"),
        ({"type": "thinking", "thinking": 5}, f"{P}.thinking: expected a string, got 5"),
        ({"type": "thinking", "thinking": "t", "signature": 5}, f"{P}.signature: expected a string or null, got 5"),
        (
            {"type": "thinking", "thinking": "t", "token_estimate": "x"},
            f'{P}.token_estimate: expected a number, got "x"',
        ),
        ({"type": "redacted_thinking", "data": 5}, f"{P}.data: expected a string or null, got 5"),
        ({"type": "redacted_thinking"}, f'{P}: missing field "data"'),
        (
            {"type": "redacted_thinking", "data": "d", "token_estimate": "x"},
            f'{P}.token_estimate: expected a number, got "x"',
        ),
        ({"type": "tool_use", "id": 5, "name": "n", "input": {}}, f"{P}.id: expected a string, got 5"),
        ({"type": "tool_use", "id": "t", "name": 5, "input": {}}, f"{P}.name: expected a string, got 5"),
        ({"type": "tool_use", "id": "t", "name": "n"}, f'{P}: missing field "input"'),
        ({"type": "tool_result", "tool_use_id": 5, "content": "ok"}, f"{P}.tool_use_id: expected a string, got 5"),
        ({"type": "tool_result", "tool_use_id": "t", "content": 5}, f"{P}.content: expected an array of blocks, got 5"),
        ({"type": "image", "token_estimate": "x"}, f'{P}.token_estimate: expected a number, got "x"'),
        ({"type": "image", "data": "x"}, f'{P}: unknown field "data" (allowed: type, token_estimate)'),
        ({"type": "document", "token_estimate": 1}, f'{P}: unknown field "token_estimate" (allowed: type)'),
    ],
)
def test_block_errors_give_the_whole_message(minimal: dict, block: object, message: str) -> None:
    """Every block field names its own path, the expectation (nullable or not) and the bad value."""
    assert _error(_edit(minimal, B0, block)) == message


def test_carrier_type_error_lists_the_allowed_types(minimal: dict) -> None:
    """A non-carrier block in response_content names the carrier types it could have been."""
    raw = _edit(minimal, [S, "summaries", 0, "response_content"], [{"type": "tool_use", "id": "t", "name": "n",
                                                                    "input": {}}])
    assert _error(raw) == (
        'summaries[0].response_content[0].type: block type "tool_use" is not allowed here'
        " (expected one of text, thinking, redacted_thinking)"
    )


SUM = [S, "summaries", 0]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        # messages
        ([S, M, 0], 5, "messages[0]: expected an object, got 5"),
        ([S, M, 0, "id"], 5, "messages[0].id: expected a string, got 5"),
        ([S, M, 0, "participant"], None, "messages[0].participant: expected a string, got null"),
        ([S, M, 0, "participant"], _DELETE, 'messages[0]: missing field "participant"'),
        ([S, M, 0, "content"], "hello", 'messages[0].content: expected an array of blocks, got "hello"'),
        ([S, M, 0, "content"], {"type": "text"}, "messages[0].content: expected an array of blocks, got an object"),
        # summaries
        ([*SUM, "colour"], "red",
         'summaries[0]: unknown field "colour" (allowed: id, level, content, tokens, source_level, '
         'source_ids, source_range, parent_id, response_content)'),
        ([*SUM, "content"], _DELETE, 'summaries[0]: missing field "content"'),
        ([*SUM, "id"], 5, "summaries[0].id: expected a string, got 5"),
        ([*SUM, "content"], 5, "summaries[0].content: expected a string, got 5"),
        ([*SUM, "source_level"], "0", 'summaries[0].source_level: expected an integer, got "0"'),
        ([*SUM, "source_level"], True, "summaries[0].source_level: expected an integer, got true"),
        ([*SUM, "parent_id"], 5, "summaries[0].parent_id: expected a string or null, got 5"),
        ([*SUM, "source_range"], "m1", 'summaries[0].source_range: expected an array, got "m1"'),
        ([*SUM, "source_range"], ["m1", 5], "summaries[0].source_range[1]: expected a string, got 5"),
        ([*SUM, "source_range"], ["m1", "m2", "m2"], "summaries[0].source_range: expected [first, last], got 3 ids"),
        ([*SUM, "source_ids"], {"m1": 1}, "summaries[0].source_ids: expected an array, got an object"),
        ([*SUM, "tokens"], [12], "summaries[0].tokens: expected a number, got an array"),
        # work
        ([S, "work"], 5, "work: expected an array, got 5"),
        ([S, "work"], [{"kind": "chunk", "state": "queued", "x": 1}],
         'work[0]: unknown field "x" (allowed: kind, state, folds)'),
        ([S, "work"], [{"kind": 5, "state": "queued"}], "work[0].kind: expected a string, got 5"),
        ([S, "work"], [{"kind": "chunk", "state": None}], "work[0].state: expected a string, got null"),
        (
            [S, "work"],
            [{"kind": "chunk", "state": "queued", "folds": "m1"}],
            'work[0].folds: expected an array, got "m1"',
        ),
        # the store object
        ([S], 5, "store: expected an object, got 5"),
        ([S, "colour"], "red",
         'store: unknown field "colour" (allowed: messages, summaries, calibration, pricing_epoch, work)'),
        ([S, M], _DELETE, 'store: missing field "messages"'),
        ([S, M], "m1", 'messages: expected an array, got "m1"'),
        ([S, "summaries"], 5, "summaries: expected an array, got 5"),
        ([S, "calibration"], "x", 'calibration: expected a number, got "x"'),
        ([S, "calibration"], None, "calibration: expected a number, got null"),
        ([S, "pricing_epoch"], 1.0, "pricing_epoch: expected an integer, got 1.0"),
        ([S, "text_estimator"], "len", "store.text_estimator: a custom text estimator cannot be written in JSON"),
        # config, budget, top level
        (["config"], 5, "config: expected an object, got 5"),
        (["config"], {"max_message_tokens": "x"}, 'config.max_message_tokens: expected a number, got "x"'),
        (["config"], {"head_window_tokens": None}, "config.head_window_tokens: expected a number, got null"),
        (["config"], {"recall_envelope": 5}, "config.recall_envelope: expected a string, got 5"),
        (
            ["config"],
            {"positioned_recall_pairs": "yes"},
            'config.positioned_recall_pairs: expected true or false, got "yes"',
        ),
        (["budget"], [8000], "budget: expected an object, got an array"),
        (["budget"], {"max_tokens": None}, "budget.max_tokens: expected a number, got null"),
        (
            ["budget"],
            {"max_tokens": 1, "reserve_for_response": "x"},
            'budget.reserve_for_response: expected a number, got "x"',
        ),
        (["description"], 5, "description: expected a string or null, got 5"),
    ],
)
def test_errors_give_the_whole_message(minimal: dict, path: list, value: object, message: str) -> None:
    """Each field's error is exactly '<path>: <expectation>, got <value>' with the right path."""
    assert _error(_edit(minimal, path, value)) == message


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        ("zwölf", '"zwölf"'),  # non-ASCII is shown as written, not \u-escaped
        ("a" * 57, '"' + "a" * 57 + '"'),  # 59 characters: shown whole
        ("a" * 58, '"' + "a" * 58 + '"'),  # 60 characters: the longest shown whole
        ("a" * 59, '"' + "a" * 56 + "..."),  # 61 characters: cut to 57 plus "..."
        ("b" * 200, '"' + "b" * 56 + "..."),
        (True, "true"),
        ({"n": 1}, "an object"),
        ((1, 2), "an array"),  # a tuple from a Python caller is an array too
        ({1}, "{1}"),  # not JSON: its repr
        (b"ab", "b'ab'"),
        (b"x" * 70, repr(b"x" * 70)[:57] + "..."),  # the repr is cut like any other rendering
    ],
)
def test_bad_values_are_shown_short_and_readable(minimal: dict, bad: object, shown: str) -> None:
    """The value in a message is its JSON rendering (or repr), at most 60 characters."""
    assert _error(_edit(minimal, [*SUM, "tokens"], bad)) == f"summaries[0].tokens: expected a number, got {shown}"


def test_unknown_field_names_are_shown_unescaped(minimal: dict) -> None:
    """An unknown key is rendered as JSON text with its non-ASCII characters kept."""
    assert _error(_edit(minimal, [S, M, 0, "größe"], 1)) == (
        'messages[0]: unknown field "größe" (allowed: id, participant, content)')


# ----------------------------------------------------------------------------- every field read and written


def _all_blocks() -> tuple[list[dict], tuple, list[dict]]:
    """Raw blocks of every type (with and without optional fields), the blocks they read as, and their dump."""
    raw: list[dict] = [
        {"type": "text", "text": "t"},
        {"type": "thinking", "thinking": "th", "signature": "sig", "token_estimate": 7},
        {"type": "thinking", "thinking": "th2"},
        {"type": "thinking", "thinking": "th3", "signature": None, "token_estimate": None},
        {"type": "redacted_thinking", "data": "enc", "token_estimate": 9},
        {"type": "redacted_thinking", "data": None},
        {"type": "tool_use", "id": "tu", "name": "nm", "input": {"a": [1, 2.5, None], "b": "é"}},
        {"type": "tool_result", "tool_use_id": "tu", "content": "ok"},
        {"type": "tool_result", "tool_use_id": "tu", "content": [{"type": "document"}, {"type": "image"}]},
        {"type": "image", "token_estimate": 1200},
        {"type": "image"},
        {"type": "document"},
    ]
    blocks = (
        Text(text="t"),
        Thinking(thinking="th", signature="sig", token_estimate=7),
        Thinking(thinking="th2", signature=None, token_estimate=None),
        Thinking(thinking="th3", signature=None, token_estimate=None),
        RedactedThinking(data="enc", token_estimate=9),
        RedactedThinking(data=None, token_estimate=None),
        ToolUse(id="tu", name="nm", input={"a": [1, 2.5, None], "b": "é"}),
        ToolResult(tool_use_id="tu", content="ok"),
        ToolResult(tool_use_id="tu", content=(Document(), Image(token_estimate=None))),
        Image(token_estimate=1200),
        Image(token_estimate=None),
        Document(),
    )
    dumped: list[dict] = [
        {"type": "text", "text": "t"},
        {"type": "thinking", "thinking": "th", "signature": "sig", "token_estimate": 7},
        {"type": "thinking", "thinking": "th2", "signature": None, "token_estimate": None},
        {"type": "thinking", "thinking": "th3", "signature": None, "token_estimate": None},
        {"type": "redacted_thinking", "data": "enc", "token_estimate": 9},
        {"type": "redacted_thinking", "data": None, "token_estimate": None},
        {"type": "tool_use", "id": "tu", "name": "nm", "input": {"a": [1, 2.5, None], "b": "é"}},
        {"type": "tool_result", "tool_use_id": "tu", "content": "ok"},
        {
            "type": "tool_result",
            "tool_use_id": "tu",
            "content": [{"type": "document"}, {"type": "image", "token_estimate": None}],
        },
        {"type": "image", "token_estimate": 1200},
        {"type": "image", "token_estimate": None},
        {"type": "document"},
    ]
    return raw, blocks, dumped


def test_every_block_type_reads_and_writes_every_field(minimal: dict) -> None:
    """Each block type is built with its own class and fields (optional ones default to None) and is
    written back with every field present; the round trip gives the same blocks."""
    raw, blocks, dumped = _all_blocks()
    sc = load_scenario(_edit(minimal, [S, M, 0, "content"], raw))
    assert sc.store.messages[0].content == blocks
    assert [type(b) for b in sc.store.messages[0].content] == [type(b) for b in blocks]
    out = dump_scenario(sc)
    assert out["store"]["messages"][0] == {"id": "m1", "participant": "User", "content": dumped}
    assert load_scenario(out) == sc


def test_store_fields_are_read_and_written(minimal: dict) -> None:
    """calibration, pricing_epoch, description and summary fields are read as given and written back."""
    raw = _edit(minimal, [S, "calibration"], 2.0)
    raw[S]["pricing_epoch"] = 0
    raw["description"] = "a store"
    raw[S]["summaries"][0]["parent_id"] = None
    raw[S]["summaries"][0]["response_content"] = [{"type": "text", "text": "both"}]
    sc = load_scenario(raw)
    assert sc.description == "a store"
    assert sc.store.calibration == 2.0 and sc.store.pricing_epoch == 0
    assert sc.store.summaries[0] == Summary(
        id="L1-0", level=1, content="both", tokens=12, source_level=0, source_ids=("m1", "m2"),
        source_range=("m1", "m2"), parent_id=None, response_content=(Text("both"),),
    )
    out = dump_scenario(sc)
    assert out["description"] == "a store"
    assert out["store"]["calibration"] == 2.0 and out["store"]["pricing_epoch"] == 0
    assert out["store"]["summaries"][0] == {
        "id": "L1-0", "level": 1, "content": "both", "tokens": 12, "source_level": 0,
        "source_ids": ["m1", "m2"], "source_range": ["m1", "m2"], "parent_id": None,
        "response_content": [{"type": "text", "text": "both"}],
    }
    assert load_scenario(out) == sc


def test_no_description_is_not_written(minimal: dict) -> None:
    """A scenario without a description (or with a null one) has None and dumps no description key."""
    for raw in (minimal, _edit(minimal, ["description"], None)):
        sc = load_scenario(raw)
        assert sc.description is None
        assert "description" not in dump_scenario(sc)


def test_every_config_field_is_read_and_written(minimal: dict) -> None:
    """Any subset of Config's fields is read with its own type and the whole config is written back."""
    values = {
        "head_window_tokens": 11, "recent_window_tokens": 12.5, "max_message_tokens": 300,
        "positioned_recall_pairs": False, "recall_envelope": "xml", "carrier_policy": "live-strip",
        "summary_context_label": "Earlier?", "recall_header_template": "<{id}>", "summary_participant": "Bot",
        "l1_budget_tokens": 1, "l2_budget_tokens": 2, "l3_budget_tokens": 3, "over_budget_grace_ratio": 0.5,
        "enforce_budget": False, "max_live_images": 6, "image_strip_depth_tokens": 30000,
        "tool_use_input_max_tokens": 50, "tool_result_max_last_n": 2,
    }
    assert set(values) == {f for f in Config.__dataclass_fields__}
    sc = load_scenario(_edit(minimal, ["config"], values))
    assert sc.config == Config(**values)
    assert dump_scenario(sc)["config"] == values


@pytest.mark.parametrize("cap", [None, 0, 5, -1, math.inf])
def test_the_cap_accepts_null_and_numbers(minimal: dict, cap: float | None) -> None:
    """max_message_tokens is the one config field where null is a value (no cap); numbers are kept."""
    sc = load_scenario(_edit(minimal, ["config"], {"max_message_tokens": cap}))
    assert sc.config.max_message_tokens == cap
    assert load_scenario(dump_scenario(sc)).config == Config(max_message_tokens=cap)


def test_huge_integers_are_read_as_javascript_doubles(minimal: dict) -> None:
    """A JSON integer is a double, as ``JSON.parse`` reads it: up to the loader's limit (308 digits) 10**307
    reads as 1e307, and 2**53 + 1 rounds to 2**53 (docs/model.md, Numerics)."""
    sc = load_scenario(_edit(minimal, ["budget"], {"max_tokens": 10**307, "reserve_for_response": 2**53 + 1}))
    assert sc.budget == Budget(max_tokens=1e307, reserve_for_response=2.0**53)
    assert json.loads(dumps_scenario(sc))["budget"] == {"max_tokens": 1e307, "reserve_for_response": 2**53}


def test_nan_values_read_as_one_object(minimal: dict) -> None:
    """Two loads of data holding distinct NaN objects give equal stores (NaN != NaN otherwise)."""
    a = load_scenario(_edit(minimal, [*SUM, "tokens"], float("nan")))
    b = load_scenario(_edit(minimal, [*SUM, "tokens"], float("nan")))
    assert a.store.summaries[0].tokens is math.nan
    assert a == b


# ----------------------------------------------------------------------------- JSON text and files


def test_dumps_is_indented_utf8_json(example: Scenario) -> None:
    """dumps_scenario writes the dump as JSON indented by 2 (or by the given indent), non-ASCII kept."""
    obj = dump_scenario(example)
    assert dumps_scenario(example) == json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
    assert dumps_scenario(example, indent=None) == json.dumps(obj, ensure_ascii=False) + "\n"
    assert dumps_scenario(example, indent=4) == json.dumps(obj, indent=4, ensure_ascii=False) + "\n"


def test_dumps_escapes_only_when_a_lone_surrogate_forces_it() -> None:
    """A lone surrogate cannot be UTF-8: the text is then ASCII-escaped, still indented as asked."""
    store = Store(messages=(Message(id="m1", participant="User", content=(Text("é \ud800"),)),))
    sc = Scenario(store=store)
    obj = dump_scenario(sc)
    assert dumps_scenario(sc) == json.dumps(obj, indent=2, ensure_ascii=True) + "\n"
    assert dumps_scenario(sc, indent=None) == json.dumps(obj, ensure_ascii=True) + "\n"


def test_dumps_never_writes_bare_nan(minimal: dict) -> None:
    """A tool input is kept as is, so a NaN inside it cannot be written as strict JSON: refused."""
    minimal[S][M][0]["content"] = [{"type": "tool_use", "id": "t", "name": "n", "input": [float("nan")]}]
    sc = load_scenario(minimal)
    with pytest.raises(ValueError, match="not JSON compliant"):
        dumps_scenario(sc)


def test_dump_block_refuses_a_non_block() -> None:
    """The block writer names what it was given when it is not a block."""
    from reference.scenario import _dump_block

    with pytest.raises(TypeError, match=r"^not a block: 'x'$"):
        _dump_block("x")  # type: ignore[arg-type]


def test_files_are_read_and_written_as_utf8_whatever_the_locale(tmp_path, monkeypatch):
    """load_scenario and save_scenario name UTF-8 themselves rather than take the locale's encoding."""
    seen: list[str | None] = []
    real_read, real_write = Path.read_text, Path.write_text

    def read_text(self, encoding=None, errors=None):
        seen.append(encoding)
        return real_read(self, encoding=encoding, errors=errors)

    def write_text(self, data, encoding=None, errors=None, newline=None):
        seen.append(encoding)
        return real_write(self, data, encoding=encoding, errors=errors, newline=newline)

    monkeypatch.setattr(Path, "read_text", read_text)
    monkeypatch.setattr(Path, "write_text", write_text)
    store = Store(messages=(Message(id="m1", participant="User", content=(Text("naïve 🙏"),)),))
    save_scenario(Scenario(store=store), tmp_path / "s.json")
    assert load_scenario(tmp_path / "s.json").store == store
    assert len(seen) == 2 and all(e is not None and codecs.lookup(e).name == "utf-8" for e in seen)


# ----------------------------------------------------------------------------- error lines and paths


def test_pydantic_errors_of_other_kinds_are_one_line_at_their_path() -> None:
    """What pydantic itself reports (the format's own readers say more) still reads ``<path>: <what>``."""
    from reference.scenario import _message

    assert _message({"loc": ("config", "x"), "type": "int_type", "msg": "Input should be a valid integer"}) == (
        "config.x: Input should be a valid integer")
    assert _message({"loc": (), "type": "int_type", "msg": "Input should be a valid integer"}) == (
        "scenario: Input should be a valid integer")
    assert _message({"loc": ("store", "messages", 0), "type": "dict_type", "msg": "Input should be a dict"}) == (
        "messages[0]: expected an object")
    assert _message({"loc": (), "type": "model_type", "msg": "Input should be an object"}) == (
        "scenario: expected an object")
    assert _message({"loc": ("budget",), "type": "cmharness", "msg": "m",
                     "ctx": {"message": "expected a number, got null", "suffix": ".x"}}) == (
        "budget.x: expected a number, got null")


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


# ----------------------------------------------------------------------------- writing expectations and config


def test_expectations_are_written_with_only_their_checked_fields() -> None:
    from types import MappingProxyType

    from reference.expect import Expectation, Refuses, Sends
    from reference.scenario import dump_expectation

    sends = Expectation(sends=Sends(entries=2, total=math.inf, raw_ids=("m1",), summaries=(("L1-0", "L1-1"),)))
    assert dump_expectation(sends) == {"sends": {"entries": 2, "total": "Infinity", "raw_ids": ["m1"],
                                                 "summaries": [["L1-0", "L1-1"]]}}
    refuses = Expectation(refuses=Refuses(head_tokens=math.nan, actual=10**400, dropped=("m2",),
                                          categories=MappingProxyType({"m2": "not-covered"})), holds=True)
    out = dump_expectation(refuses)
    assert out == {"refuses": {"head_tokens": "NaN", "actual": 10**400, "dropped": ["m2"],
                               "categories": {"m2": "not-covered"}}, "holds": True}
    assert type(out["refuses"]["categories"]) is dict  # JSON can write it


def test_a_number_per_tool_name_is_written_as_an_object(minimal: dict) -> None:
    minimal["config"] = {"tool_result_max_last_n": {"grep": "Infinity", "bash": 2}}
    sc = load_scenario(minimal)
    assert dump_scenario(sc)["config"]["tool_result_max_last_n"] == {"bash": 2, "grep": "Infinity"}
    assert load_scenario(json.loads(dumps_scenario(sc))) == sc


def test_description_source_and_expect_are_read(minimal: dict) -> None:
    from reference.expect import Expectation

    minimal.update(description="d", source=307, expect={"sound": {"holds": True}})
    sc = load_scenario(minimal)
    assert (sc.description, sc.source, dict(sc.expect)) == ("d", 307, {"sound": Expectation(holds=True)})
