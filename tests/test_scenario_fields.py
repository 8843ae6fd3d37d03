"""Every field of a scenario file read and written under its public name: blocks, store, summaries, config,
budget, description and expectations."""

from __future__ import annotations

import json
import math

import pytest
from scenario_helpers import SUM, M, S, _edit
from scenario_helpers import example as example  # a fixture
from scenario_helpers import minimal as minimal  # a fixture

from reference.model import (
    Budget,
    Config,
    Document,
    Image,
    RedactedThinking,
    Summary,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)
from reference.scenario import dump_scenario, dumps_scenario, load_scenario

# ----------------------------------------------------------------------------- every field read and written


def test_summary_fields_match_the_public_names(example):
    dumped = dump_scenario(example)["store"]["summaries"][0]
    assert set(dumped) == {f for f in Summary.__dataclass_fields__}


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
        id="L1-0",
        level=1,
        content="both",
        tokens=12,
        source_level=0,
        source_ids=("m1", "m2"),
        source_range=("m1", "m2"),
        parent_id=None,
        response_content=(Text("both"),),
    )
    out = dump_scenario(sc)
    assert out["description"] == "a store"
    assert out["store"]["calibration"] == 2.0 and out["store"]["pricing_epoch"] == 0
    assert out["store"]["summaries"][0] == {
        "id": "L1-0",
        "level": 1,
        "content": "both",
        "tokens": 12,
        "source_level": 0,
        "source_ids": ["m1", "m2"],
        "source_range": ["m1", "m2"],
        "parent_id": None,
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
        "head_window_tokens": 11,
        "recent_window_tokens": 12.5,
        "max_message_tokens": 300,
        "positioned_recall_pairs": False,
        "recall_envelope": "xml",
        "carrier_policy": "live-strip",
        "summary_context_label": "Earlier?",
        "recall_header_template": "<{id}>",
        "summary_participant": "Bot",
        "l1_budget_tokens": 1,
        "l2_budget_tokens": 2,
        "l3_budget_tokens": 3,
        "over_budget_grace_ratio": 0.5,
        "enforce_budget": False,
        "max_live_images": 6,
        "image_strip_depth_tokens": 30000,
        "tool_use_input_max_tokens": 50,
        "tool_result_max_last_n": 2,
        "max_live_image_bytes": 400,
        "image_strip_hysteresis_ratio": 0.5,
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


# ----------------------------------------------------------------------------- writing expectations and config


def test_expectations_are_written_with_only_their_checked_fields() -> None:
    from types import MappingProxyType

    from reference.expect import Expectation, Refuses, Sends
    from reference.scenario import dump_expectation

    sends = Expectation(sends=Sends(entries=2, total=math.inf, raw_ids=("m1",), summaries=(("L1-0", "L1-1"),)))
    assert dump_expectation(sends) == {
        "sends": {"entries": 2, "total": "Infinity", "raw_ids": ["m1"], "summaries": [["L1-0", "L1-1"]]}
    }
    refuses = Expectation(
        refuses=Refuses(
            head_tokens=math.nan, actual=10**400, dropped=("m2",), categories=MappingProxyType({"m2": "not-covered"})
        ),
        holds=True,
    )
    out = dump_expectation(refuses)
    assert out == {
        "refuses": {"head_tokens": "NaN", "actual": 10**400, "dropped": ["m2"], "categories": {"m2": "not-covered"}},
        "holds": True,
    }
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
