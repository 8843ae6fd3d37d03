"""The scenario file format's additions: camelCase names, suggestions, limits, expectations, the schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from invariants import INVARIANTS
from invariants.reproduce import judge
from reference.errors import UnknownNameError
from reference.expect import Expectation, Refuses, Sends, expectation_for, variants_named
from reference.json_input import MAX_DEPTH, MAX_DIGITS
from reference.model import Budget, Config
from reference.scenario import ScenarioError, dump_scenario, load_scenario, loads_scenario
from reference.scenario_format import ConfigModel, json_schema

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "docs" / "scenario.schema.json"


def minimal(**extra: object) -> dict:
    return {
        "store": {"messages": [{"id": "m1", "participant": "User", "content": [{"type": "text", "text": "hi"}]}]},
        **extra,
    }


def error(raw: object) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(raw)  # type: ignore[arg-type]
    return str(info.value)


def text_error(text: str) -> str:
    with pytest.raises(ScenarioError) as info:
        loads_scenario(text)
    return str(info.value)


def test_typescript_names_are_accepted():
    raw = {
        "store": {
            "messages": [
                {
                    "id": "m1",
                    "participant": "User",
                    "content": [
                        {"type": "thinking", "thinking": "t", "tokenEstimate": 5},
                        {"type": "tool_result", "toolUseId": "t1", "content": "ok"},
                    ],
                }
            ],
            "summaries": [
                {
                    "id": "L1",
                    "level": 1,
                    "content": "c",
                    "sourceLevel": 0,
                    "sourceIds": ["m1"],
                    "sourceRange": {"first": "m1", "last": "m1"},
                    "parentId": None,
                    "responseContent": None,
                }
            ],
            "pricingEpoch": 0,
        },
        "config": {
            "maxMessageTokens": 10,
            "positionedRecallPairs": False,
            "overBudgetGraceRatio": 0,
            "l1BudgetTokens": 5,
        },
        "budget": {"maxTokens": 100, "reserveForResponse": 10},
    }
    sc = load_scenario(raw)
    assert sc.config == Config(
        max_message_tokens=10, positioned_recall_pairs=False, over_budget_grace_ratio=0, l1_budget_tokens=5
    )
    assert sc.budget == Budget(max_tokens=100, reserve_for_response=10)
    assert sc.store.summaries[0].source_range == ("m1", "m1")
    assert sc.store.messages[0].content[0].token_estimate == 5
    assert sc.store.pricing_epoch == 0


def _pasted(summary_fields: dict) -> dict:
    """A store as the TypeScript's records hold it: a ``StoredMessage`` and a merged ``SummaryEntry``, with their
    bookkeeping fields."""
    message = {"id": "m1", "participant": "User", "content": [{"type": "text", "text": "hi"}]}
    meta = {"sequence": 1, "timestamp": 1733500000000, "metadata": {"tags": ["x"]}, "causedBy": []}
    l1 = {"id": "L1-0", "level": 1, "content": "c", "tokens": 3, "sourceLevel": 0, "sourceIds": ["m1"]}
    l1 |= {"sourceRange": {"first": "m1", "last": "m1"}, "created": 1733500000001, **summary_fields}
    l2 = {"id": "L2-1", "level": 2, "content": "d", "tokens": 2, "sourceLevel": 1, "sourceIds": ["L1-0"]}
    l2 |= {"sourceRange": {"first": "m1", "last": "m1"}, "created": 0, "provenance": {"model": "m", "stopReason": "x"}}
    return {"store": {"messages": [message | meta], "summaries": [l1, l2] if summary_fields else [l1]}}


@pytest.mark.parametrize(
    ("pointer", "parent"),
    [({"mergedInto": "L2-1"}, "L2-1"), ({"parentId": "L2-1", "mergedInto": "L9"}, "L2-1"), ({}, None)],
    ids=["merged-into", "parent-id-first", "neither"],
)
def test_a_store_pasted_from_the_typescripts_records_loads(pointer, parent):
    """The records' bookkeeping (a message's sequence, timestamp, metadata, causedBy; a summary's created and
    provenance) is read and dropped: the hierarchical compile never reads it. ``mergedInto``, the parent pointer
    merges still write, is the parent where ``parentId`` is absent (the TypeScript's ``parentId ?? mergedInto``)."""
    sc = load_scenario(_pasted(pointer))
    assert sc.store.summaries[0].parent_id == parent
    plain = _pasted(pointer)
    del plain["store"]["messages"][0]["timestamp"], plain["store"]["summaries"][-1]["created"]
    assert load_scenario(plain).store == sc.store


def test_a_field_the_compile_would_read_is_still_refused():
    """Shards of one body are joined at render (not modelled): refused as unknown, like a typo."""
    raw = minimal()
    raw["store"]["messages"][0]["bodyGroupId"] = "g"
    assert error(raw).startswith('messages[0]: unknown field "bodyGroupId"')


def test_unknown_field_suggests_the_closest_name():
    msg = error(minimal(config={"positionedRecallPair": True}))
    assert msg.startswith(
        'config: unknown field "positionedRecallPair"; did you mean "positionedRecallPairs"? '
        "(allowed: head_window_tokens, "
    )
    assert "\n" not in msg


def test_source_range_object_errors_name_the_member():
    raw = minimal()
    raw["store"]["summaries"] = [
        {
            "id": "L1",
            "level": 1,
            "content": "c",
            "source_level": 0,
            "source_ids": ["m1"],
            "source_range": {"first": "m1", "last": 5},
        }
    ]
    assert error(raw) == "summaries[0].source_range.last: expected a string, got 5"


def test_schema_key_description_and_source_are_accepted():
    sc = load_scenario(minimal(**{"$schema": "../docs/scenario.schema.json", "source": 307, "description": "d"}))
    assert sc.source == 307 and sc.description == "d"
    assert dump_scenario(sc)["source"] == 307


# ----------------------------------------------------------------------------- limits


def test_an_integer_past_the_digit_limit_in_text_names_its_path():
    text = json.dumps(minimal(budget={"max_tokens": 1})).replace('"max_tokens": 1', '"max_tokens": ' + "9" * 5000)
    assert text_error(text) == (
        f"budget.max_tokens: expected a number, got a 5000-digit integer (at most {MAX_DIGITS} digits)"
    )


def test_an_integer_of_hundreds_of_digits_names_its_path():
    assert error(minimal(config={"head_window_tokens": 10**400})) == (
        f"config.head_window_tokens: expected a number, got a 401-digit integer (at most {MAX_DIGITS} digits)"
    )


def test_a_huge_integer_inside_a_tool_input_names_its_path():
    raw = minimal()
    tool = {"type": "tool_use", "id": "t", "name": "n", "input": {"a": [1, 10**500]}}
    raw["store"]["messages"][0]["content"] = [tool]
    assert error(raw) == "messages[0].content[0].input.a[1]: expected a number, got an integer of more than 308 digits"


def _nested_tool_results(depth: int) -> dict:
    block: dict = {"type": "text", "text": "x"}
    for _ in range(depth):
        block = {"type": "tool_result", "tool_use_id": "t", "content": [block]}
    return block


@pytest.mark.parametrize("depth", [300, 5000])
def test_nesting_past_the_limit_in_text_is_refused_before_parsing(depth):
    raw = minimal()
    raw["store"]["messages"][0]["content"] = ["HERE"]
    opening = '{"type": "tool_result", "tool_use_id": "t", "content": ['
    deep = opening * depth + '{"type": "text", "text": "x"}' + "]}" * depth
    text = json.dumps(raw).replace('"HERE"', deep)
    assert text_error(text).startswith(f"scenario: nested deeper than {MAX_DEPTH} arrays and objects at line 1 column ")


def test_nesting_past_the_limit_from_python_names_its_path():
    raw = minimal()
    raw["store"]["messages"][0]["content"] = [_nested_tool_results(5000)]
    msg = error(raw)
    assert msg.startswith("messages[0].content[0].content[0].content[0]") and msg.endswith(
        f": nested deeper than {MAX_DEPTH} arrays and objects"
    )


def test_brackets_inside_strings_do_not_count():
    raw = minimal()
    raw["store"]["messages"][0]["content"] = [{"type": "text", "text": "[" * 1000 + "{" * 1000}]
    assert loads_scenario(json.dumps(raw)).store.messages[0].content[0].text.startswith("[[[")


def test_nesting_at_the_limit_loads():
    raw = minimal()
    # scenario{ store{ messages[ message{ content[ block{ ... : 6 levels before the first block's content.
    raw["store"]["messages"][0]["content"] = [_nested_tool_results((MAX_DEPTH - 6) // 2)]
    loads_scenario(json.dumps(raw))


def test_a_lone_surrogate_is_kept():
    raw = minimal()
    raw["store"]["messages"][0]["id"] = "m\ud800"
    assert load_scenario(raw).store.messages[0].id == "m\ud800"


# ----------------------------------------------------------------------------- expectations


def test_expectations_are_read_per_variant_and_group():
    sc = load_scenario(
        minimal(
            expect={
                "sound": {
                    "refuses": {"site": "positioned-pair", "refused": ["L1-1"], "clearedBy": [], "headTokens": 10}
                },
                "faithful": {"sends": {"entries": 3, "rawIds": ["m1"]}, "breaks": ["never-over"]},
                "all": {"holds": True},
            }
        )
    )
    assert sc.expect["sound"] == Expectation(
        refuses=Refuses(site="positioned-pair", refused=("L1-1",), cleared_by=(), head_tokens=10)
    )
    assert sc.expect["faithful"] == Expectation(sends=Sends(entries=3, raw_ids=("m1",)), breaks=("never-over",))
    assert expectation_for(sc.expect, "pr-8bb01ab8") is sc.expect["faithful"]
    assert variants_named(sc.expect) == ("main-48bb87a1", "pr-8bb01ab8", "sound")
    again = load_scenario(dump_scenario(sc))
    assert again.expect == sc.expect


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        ({"sond": {"holds": True}}, 'expect: unknown variant "sond"; did you mean "sound"?'),
        (
            {"sound": {"breaks": ["never_over"]}},
            "expect.sound.breaks[0]: expected an invariant's name (lower-case words joined by hyphens), "
            'got "never_over"; did you mean "never-over"?',
        ),
        ({"sound": {"breaks": [7]}}, "expect.sound.breaks[0]: expected an invariant's name (lower-case words"),
        ({"sound": {"refuses": {"site": "pair"}}}, "expect.sound.refuses.site: expected one of head, "),
        ({"sound": {"refuses": {"clearedBy": "compression"}}}, "expect.sound.refuses.clearedBy: expected an array"),
        ({"sound": {}}, "expect.sound: expects nothing; give sends, refuses, breaks or holds"),
        ({"sound": {"sends": {}, "refuses": {}}}, "expect.sound: expects both sends and refuses; give one"),
        (
            {"sound": {"breaks": ["never-over"], "holds": True}},
            "expect.sound: expects both breaks and holds; give one",
        ),
        ({"sound": {"sends": {"entries": "3"}}}, 'expect.sound.sends.entries: expected an integer, got "3"'),
        ({"sound": {"sends": {"count": 3}}}, 'expect.sound.sends: unknown field "count"'),
        # An expected entry's blocks: a missing field names the block, others the field, in the file's spelling.
        (
            {"sound": {"sends": {"content": [[{"type": "text"}]]}}},
            'expect.sound.sends.content[0][0]: missing field "text"',
        ),
        (
            {"sound": {"sends": {"content": [[], [{"type": "tool_result", "toolUseId": "t", "content": [{}]}]]}}},
            'expect.sound.sends.content[1][0].content[0]: missing field "type"',
        ),
        (
            {"sound": {"sends": {"content": [[{"type": "document"}, {"type": "tool_use", "id": "t", "name": "n"}]]}}},
            'expect.sound.sends.content[0][1]: missing field "input"',
        ),
        (
            {
                "sound": {
                    "sends": {"content": [[{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text"}]}]]}
                }
            },
            'expect.sound.sends.content[0][0].content[0]: missing field "text"',
        ),
        (
            {"sound": {"sends": {"content": [[{"type": "image", "source": {"type": "png", "data": "x"}}]]}}},
            "expect.sound.sends.content[0][0].source.type: Input should be 'base64'",
        ),
    ],
)
def test_bad_expectations_are_path_precise(expect, message):
    assert error(minimal(expect=expect)).startswith(message)


@pytest.mark.parametrize("name, shown", [(7, "7"), ("Never over!", '"Never over!"'), ("", '""')])
def test_a_name_that_no_respelling_makes_an_invariants_name_gets_no_suggestion(name, shown):
    assert error(minimal(expect={"sound": {"breaks": [name]}})) == (
        f"expect.sound.breaks[0]: expected an invariant's name (lower-case words joined by hyphens), got {shown}"
    )


def test_an_invariant_name_is_checked_for_its_shape_by_the_format_and_for_its_existence_by_the_judges():
    """The file format knows an invariant name's shape only (so a new invariant changes no file of the reference
    layer); ``invariants.reproduce.judge`` refuses a name no judge declares, with the closest one."""
    assert error(minimal(expect={"sound": {"breaks": ["Never over"]}})).startswith(
        "expect.sound.breaks[0]: expected an invariant's name"
    )
    misspelt = load_scenario(minimal(expect={"sound": {"breaks": ["never-ovr"]}}))
    with pytest.raises(
        UnknownNameError, match=r"unknown invariant 'never-ovr' at expect.sound.breaks\[0\]; did you mean 'never-over'"
    ):
        judge(misspelt)
    assert [v.ok for v in judge(load_scenario(minimal(expect={"sound": {"breaks": list(INVARIANTS)[:1]}})))] == [False]


# ----------------------------------------------------------------------------- the schema


def test_the_shipped_schema_is_up_to_date():
    """docs/scenario.schema.json is what ``cmharness schema`` writes; rerun it after changing the format."""
    assert json.loads(SCHEMA.read_text(encoding="utf-8")) == json_schema(), (
        "docs/scenario.schema.json is stale: run `cmharness schema --out docs/scenario.schema.json`"
    )


@pytest.fixture(scope="module")
def schema_validator():
    """A validator of the scenario schema, the schema itself checked once (the check is most of a validation's
    cost, and ``jsonschema.validate`` repeats it on every call)."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json_schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_the_schema_accepts_the_example_and_both_spellings(schema_validator):
    example = json.loads((ROOT / "examples" / "small-store.json").read_text(encoding="utf-8"))
    schema_validator.validate(example)
    schema_validator.validate(minimal(config={"maxMessageTokens": 5}, budget={"maxTokens": 9}))
    assert not schema_validator.is_valid(minimal(config={"maxMessageToken": 5}))


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "scenarios").rglob("*.scenario.json")), ids=lambda p: p.name)
def test_every_shipped_scenario_validates_against_the_schema_it_names(path, schema_validator):
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert (path.parent / doc["$schema"]).resolve() == SCHEMA
    schema_validator.validate(doc)


def test_the_schema_accepts_every_spelling_of_a_refusal_field(schema_validator):
    doc = minimal(
        expect={"sound": {"refuses": {"droppedIds": ["m1"], "middleCountUnit": "raw-messages", "clearedBy": []}}}
    )
    schema_validator.validate(doc)
    load_scenario(doc)


# ----------------------------------------------------------------------------- the models, built in the test
# The file's models are built once, at import; these tests build them again from their factories so
# that what the factories do now is what is checked.


def line(tp: object, raw: object) -> str:
    """The error line ``raw`` gets under ``tp`` (path relative to ``tp``), as a scenario error says it."""
    from pydantic import TypeAdapter, ValidationError

    from reference.scenario import _message

    with pytest.raises(ValidationError) as info:
        TypeAdapter(tp).validate_python(raw)
    return _message(info.value.errors()[0])


def test_a_block_union_reads_each_allowed_type():
    from pydantic import TypeAdapter

    from reference.scenario_format import ImageBlock, TextBlock, _block_union

    blocks = TypeAdapter(list[_block_union(("text", "image"))])
    assert blocks.validate_python([{"type": "text", "text": "a"}, {"type": "image", "tokenEstimate": 3}]) == [
        TextBlock(type="text", text="a"),
        ImageBlock(type="image", token_estimate=3),
    ]


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (5, "[1]: expected a block object, got 5"),
        ({"text": "a"}, '[1]: missing field "type"'),
        ({"type": "video"}, '[1].type: unknown block type "video"'),
        ({"type": 5}, "[1].type: unknown block type 5"),
        (
            {"type": "tool_use", "id": "t", "name": "n", "input": {}},
            '[1].type: block type "tool_use" is not allowed here (expected one of text, image)',
        ),
        ({"type": "image", "tokenEstimate": "x"}, '[1].tokenEstimate: expected a number, got "x"'),
    ],
)
def test_a_block_union_refuses_each_kind_of_bad_block_at_its_path(block: object, message: str):
    from reference.scenario_format import _block_union

    assert line(list[_block_union(("text", "image"))], [{"type": "text", "text": "a"}, block]) == message


def test_the_config_model_is_built_from_config_and_reads_every_field():
    from reference.scenario import Scenario
    from reference.scenario_format import _config_model, build_config

    config = Config(
        head_window_tokens=5,
        recent_window_tokens=6,
        max_message_tokens=None,
        positioned_recall_pairs=False,
        recall_envelope="xml",
        carrier_policy="live-strip",
        summary_context_label="L",
        recall_header_template="[R {id}]",
        summary_participant="P",
        l1_budget_tokens=1,
        l2_budget_tokens=2,
        l3_budget_tokens=3,
        over_budget_grace_ratio=0.5,
        enforce_budget=False,
        max_live_images=4,
        image_strip_depth_tokens=7,
        tool_use_input_max_tokens=8,
        tool_result_max_last_n={"bash": 2},
    )
    raw = dump_scenario(Scenario(store=load_scenario(minimal()).store, config=config))["config"]
    fresh = _config_model()
    assert build_config(fresh.model_validate(raw)) == config
    assert build_config(fresh.model_validate({"maxMessageTokens": None, "toolResultMaxLastN": 3})) == Config(
        max_message_tokens=None, tool_result_max_last_n=3
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"head_window_tokens": None}, "head_window_tokens: expected a number, got null"),
        ({"tool_result_max_last_n": "x"}, 'tool_result_max_last_n: expected a number, got "x"'),
        ({"positioned_recall_pairs": "yes"}, 'positioned_recall_pairs: expected true or false, got "yes"'),
        ({"recall_envelope": 5}, "recall_envelope: expected a string, got 5"),
        ({"summary_participant": None}, "summary_participant: expected a string, got null"),
    ],
)
def test_the_config_model_reads_each_field_by_the_type_of_its_default(raw: dict, message: str):
    from reference.scenario_format import _config_model

    assert line(_config_model(), raw) == message


@pytest.mark.parametrize(
    "given",
    [{"hierarchical": True}, {"hierarchical": False}, {"adaptiveResolution": False}, {"adaptive_resolution": False}],
)
def test_a_config_pasted_from_an_upstream_test_names_the_path_it_takes(given):
    """``hierarchical`` (either value routes to the hierarchical select) and ``adaptiveResolution: false`` (the
    hierarchical select, which is what the model is) load and change nothing."""
    sc = load_scenario(minimal(config={"headWindowTokens": 3, **given}))
    assert sc.config == Config(head_window_tokens=3)
    read = ConfigModel.model_validate(given)
    assert [getattr(read, name) for name in read.model_fields_set] == list(given.values())


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"adaptiveResolution": True}, "config.adaptiveResolution: the adaptive select is not modelled: the model "),
        ({"adaptiveResolution": "no"}, "config.adaptiveResolution: the adaptive select is not modelled: the model "),
        ({"hierarchical": 1}, "config.hierarchical: expected true or false, got 1"),
    ],
)
def test_the_adaptive_path_is_refused_naming_the_field(given, message):
    said = error(minimal(config=given))
    assert said.startswith(message)
    if "adaptiveResolution" in given:
        assert said.endswith(f"got {json.dumps(given['adaptiveResolution'])}")


def test_the_config_model_refuses_unknown_fields():
    from reference.scenario_format import _config_model

    assert line(_config_model(), {"maxMessageTokns": 1}).startswith(
        'scenario: unknown field "maxMessageTokns"; did you mean "maxMessageTokens"? (allowed: head_window_tokens, '
    )


def test_the_config_model_is_the_one_the_shipped_schema_documents():
    from reference.scenario_format import _config_model

    schema = _config_model().model_json_schema()
    shipped = json.loads(SCHEMA.read_text(encoding="utf-8"))["$defs"]["ConfigModel"]
    assert schema == shipped
    assert schema["properties"]["recall_envelope"]["enum"] == ["none", "xml"]
    assert schema["properties"]["summary_participant"]["type"] == "string"


@pytest.mark.parametrize(
    ("source_range", "message"),
    [
        ({"first": "m1", "lst": "m1"}, 'summaries[0].source_range: unknown field "lst" (allowed: first, last)'),
        ({"first": "m1"}, 'summaries[0].source_range: missing field "last"'),
        ({"first": "m1", "last": 5}, "summaries[0].source_range.last: expected a string, got 5"),
        (["m1", 5], "summaries[0].source_range[1]: expected a string, got 5"),
        (["m1"], "summaries[0].source_range: expected [first, last], got 1 ids"),
        ("m1", 'summaries[0].source_range: expected an array, got "m1"'),
    ],
)
def test_a_bad_source_range_is_refused_at_its_path(source_range: object, message: str):
    raw = minimal()
    raw["store"]["summaries"] = [
        {"id": "L1", "level": 1, "content": "c", "source_level": 0, "source_ids": ["m1"], "source_range": source_range}
    ]
    assert error(raw) == message
