"""Writing scenario files (reference/scenario.py; docs/model.md, Scenario files): a scenario written and read
back is the same scenario, in snake_case and in the TypeScript's camelCase; the text is the dump as JSON indented
by 2, non-ASCII kept unless a lone surrogate forces escapes; camelCase renames the model's own keys only, never
data (a tool call's input, a raw item, a per-tool map)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic.alias_generators import to_snake

from invariants.generators.config_mix import configs
from invariants.generators.store_shapes import stores
from invariants.properties import INVARIANTS
from reference.expect import ERRORS, SITES, VARIANT_NAMES, Expectation, Refuses, Sends
from reference.expect_format import DROP_CATEGORIES
from reference.model import (
    Block,
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
    Work,
)
from reference.scenario import Scenario, dump_content, dump_scenario, dumps_scenario, load_scenario, loads_scenario
from reference.scenario_format import read_blocks

SLOW_DRAWS = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ----------------------------------------------------------------------------- comparing and walking


def same(a: object, b: object) -> bool:
    """Equal field by field with NaN equal to NaN (a number read back from ``"NaN"`` is another NaN object), and
    each value of the same type: integers stay integers, floats stay floats."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(
            same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a) if f.compare
        )
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping):
        return isinstance(b, Mapping) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


#: The keys whose values are data, whatever their spelling: written as they are, their own keys never renamed.
DATA = {"input", "raw_item", "rawItem", "tool_result_max_last_n", "toolResultMaxLastN"}


def model_keys(obj: object) -> Iterator[str]:
    """Every key of the model's own objects in a dump, not the keys inside data."""
    if isinstance(obj, list):
        for x in obj:
            yield from model_keys(x)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            if k not in DATA:
                yield from model_keys(v)


def snake_keys(obj: Any) -> Any:
    """A camelCase dump with the model's keys spelt in snake_case again (``l1BudgetTokens`` as ``l1_budget_tokens``;
    data left as it is)."""
    if isinstance(obj, list):
        return [snake_keys(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    return {re.sub(r"_(?=\d)", "", to_snake(k)): v if k in DATA else snake_keys(v) for k, v in obj.items()}


def has_lone_surrogate(obj: object) -> bool:
    if isinstance(obj, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in obj)
    if isinstance(obj, dict):
        return any(has_lone_surrogate(k) or has_lone_surrogate(v) for k, v in obj.items())
    if isinstance(obj, list):
        return any(has_lone_surrogate(x) for x in obj)
    return False


# ----------------------------------------------------------------------------- scenarios

TEXT = st.one_of(st.text(max_size=5), st.sampled_from(["é", "🙏", "a\ud800b"]))
#: Stamps and other numbers: integers, floats, NaN and infinities (written as "NaN", "Infinity", "-Infinity").
NUMBER = st.one_of(st.integers(-10, 10**6), st.floats())
STAMP = st.none() | NUMBER
#: JSON data as a tool input or a raw item holds it; keys in snake_case, which camelCase must leave alone.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["call_id", "type", "id", "file_path", "encrypted_content"]), inner, max_size=3
        )
    ),
    max_leaves=6,
)
INPUT = st.dictionaries(st.sampled_from(["file_path", "old_string", "n"]), JSON, max_size=3) | st.lists(
    JSON, max_size=2
)
LEAF = st.one_of(
    st.builds(Text, TEXT, raw_item=JSON),
    st.builds(Thinking, TEXT, signature=st.none() | TEXT, token_estimate=STAMP),
    st.builds(RedactedThinking, st.none() | TEXT, token_estimate=STAMP, raw_item=JSON),
    st.builds(ToolUse, TEXT, TEXT, INPUT, raw_xml=st.none() | TEXT, raw_item=JSON),
    st.builds(Image, token_estimate=STAMP, data=st.none() | TEXT),
    st.just(Document()),
)
BLOCK = LEAF | st.builds(
    ToolResult, TEXT, TEXT | st.lists(LEAF, max_size=3).map(tuple), raw_xml=st.none() | TEXT, raw_item=JSON
)
CONTENT = st.lists(BLOCK, max_size=3).map(tuple)
PER_TOOL = (
    st.none() | NUMBER | st.dictionaries(st.sampled_from(["read_file", "web_search", "bash"]), NUMBER, max_size=2)
)
IDS = st.lists(TEXT, max_size=2).map(tuple)


@st.composite
def expectations(draw: st.DrawFn) -> Expectation:
    """An expectation the file format accepts: sends or refuses or neither, breaks or holds (something given)."""
    sends = refuses = None
    part = draw(st.sampled_from(["sends", "refuses", "neither"]))
    if part == "sends":
        sends = Sends(
            entries=draw(st.none() | st.integers(0, 9)),
            total=draw(STAMP),
            raw_ids=draw(st.none() | IDS),
            summaries=draw(st.none() | st.lists(IDS, max_size=2).map(tuple)),
            images=draw(st.none() | st.text("I.", max_size=3)),
            content=draw(st.none() | st.lists(CONTENT, max_size=2).map(tuple)),
        )
    elif part == "refuses":
        refuses = Refuses(
            error=draw(st.none() | st.sampled_from(ERRORS)),
            site=draw(st.none() | st.sampled_from(SITES)),
            unit=draw(st.none() | st.sampled_from(["selection-items", "raw-messages"])),
            cleared_by=draw(st.none() | IDS),
            head_tokens=draw(STAMP),
            actual=draw(STAMP),
            refused=draw(st.none() | IDS),
            categories=draw(st.none() | st.dictionaries(TEXT, st.sampled_from(DROP_CATEGORIES), max_size=2)),
            field=draw(st.none() | TEXT),
            reserve_for_response=draw(STAMP),
        )
    breaks = draw(st.none() | st.lists(st.sampled_from(tuple(INVARIANTS)), min_size=1, max_size=2).map(tuple))
    holds = breaks is None and (part == "neither" or draw(st.booleans()))
    return Expectation(sends=sends, refuses=refuses, breaks=breaks, holds=holds)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    """A scenario with every part drawn: a store (summary tree, work, settings) plus messages holding every block
    type and optional field, any config and budget, description, source, compiles_before and expectations."""
    base = draw(stores(max_messages=4, estimator=st.none()))
    extra = draw(st.lists(CONTENT, max_size=2))
    messages = base.messages + tuple(
        Message(f"x{k}", draw(st.sampled_from(["User", "Claude"])), c) for k, c in enumerate(extra)
    )
    store = Store(messages, base.summaries, base.calibration, base.pricing_epoch, None, base.work)
    config = dataclasses.replace(
        draw(configs()),
        tool_result_max_last_n=draw(PER_TOOL),
        max_live_image_bytes=draw(STAMP),
        image_strip_hysteresis_ratio=draw(STAMP),
    )
    keys = st.sampled_from([*VARIANT_NAMES, "faithful", "all"])
    return Scenario(
        store=store,
        config=config,
        budget=Budget(draw(NUMBER), draw(NUMBER)),
        description=draw(st.none() | TEXT),
        source=draw(st.none() | TEXT | st.integers(0, 10**6)),
        expect=draw(st.dictionaries(keys, expectations(), max_size=2)),
        compiles_before=tuple(draw(st.lists(st.integers(0, len(messages)), max_size=3))),
    )


#: Every block type with every optional field set, raw forms holding snake_case keys.
EVERY_BLOCK = (
    Text("héllo 🙏", raw_item={"type": "message", "call_id": "c1"}),
    Thinking("hm", signature="sig", token_estimate=math.nan),
    ToolUse("u1", "read_file", {"file_path": "a.txt"}, raw_xml="<invoke/>", raw_item={"call_id": "u1"}),
    ToolResult(
        "u1",
        (Text("ok"), Image(token_estimate=1200, data="QUJD")),
        raw_xml="<result/>",
        raw_item={"call_id": "u1", "output": "ok"},
    ),
    RedactedThinking("enc", token_estimate=-math.inf, raw_item={"encrypted_content": "x"}),
    Document(),
)

#: A scenario with every part set, as a pinned example of each property.
EVERYTHING = Scenario(
    store=Store(
        messages=(
            Message("m1", "User", EVERY_BLOCK[:1]),
            Message("m2", "Claude", EVERY_BLOCK[1:3]),
            Message("m3", "User", EVERY_BLOCK[3:]),
        ),
        summaries=(
            Summary("L1-0", 1, "first", 12, 0, ("m1", "m2"), ("m1", "m2"), parent_id="L2-0"),
            Summary("L1-1", 1, "second", math.nan, 0, ("m3",), ("m3", "m3"), parent_id="L2-0"),
            Summary("L2-0", 2, "both", 20.5, 1, ("L1-0", "L1-1"), ("m1", "m3"), response_content=(Text("both"),)),
        ),
        calibration=2.0,
        pricing_epoch=0,
        work=(Work("chunk", "queued", frozenset({"m3", "m2"})), Work("merge", "running", None)),
    ),
    config=Config(
        max_message_tokens=None,
        tool_result_max_last_n={"read_file": 1, "web_search": math.inf},
        max_live_image_bytes=0,
        image_strip_hysteresis_ratio=0.5,
        over_budget_grace_ratio=math.nan,
    ),
    budget=Budget(8000, 1000.5),
    description="héllo",
    source=307,
    expect={
        "sound": Expectation(
            sends=Sends(
                entries=3,
                total=math.inf,
                raw_ids=("m3",),
                summaries=(("L2-0",),),
                images="I.",
                content=((Text("a"),), (ToolResult("u1", "ok", raw_xml="<r/>"),)),
            ),
            holds=True,
        ),
        "faithful": Expectation(
            refuses=Refuses(error="OverBudgetError", site="head", categories={"m1": "not-covered"}, budget=math.nan),
            breaks=("never-over",),
        ),
    },
    compiles_before=(0, 2),
)


# ----------------------------------------------------------------------------- properties


@SLOW_DRAWS
@given(sc=scenarios())
@example(sc=EVERYTHING)
def test_a_scenario_written_and_read_back_is_the_same_scenario(sc: Scenario) -> None:
    """load_scenario(dump_scenario(s)) and loads_scenario(dumps_scenario(s)) give ``s`` back, field by field (NaN
    as NaN, integers as integers), whether the file spells the fields in snake_case or in camelCase."""
    for camel in (False, True):
        assert same(load_scenario(dump_scenario(sc, camel=camel)), sc), camel
        assert same(loads_scenario(dumps_scenario(sc, camel=camel)), sc), camel


@SLOW_DRAWS
@given(sc=scenarios())
@example(sc=EVERYTHING)
def test_the_text_is_the_dump_as_json_indented_by_two(sc: Scenario) -> None:
    """dumps_scenario is the dump as strict JSON indented by 2 and ending in a newline; non-ASCII is written as
    is, unless a lone surrogate (not UTF-8) makes the whole text ASCII-escaped."""
    for camel in (False, True):
        dumped = dump_scenario(sc, camel=camel)
        text = dumps_scenario(sc, camel=camel)
        escape = has_lone_surrogate(dumped)
        assert text == json.dumps(dumped, indent=2, ensure_ascii=escape, allow_nan=False) + "\n"
        assert text.isascii() or not escape
        text.encode("utf-8")


@SLOW_DRAWS
@given(sc=scenarios())
@example(sc=EVERYTHING)
def test_camel_case_renames_the_models_keys_of_store_config_and_budget_only(sc: Scenario) -> None:
    """With camel the store, config and budget spell every field of the model in camelCase and hold the same
    values; data keeps its keys; the other sections (description, source, compiles_before, expect) are as the
    snake_case dump writes them."""
    snake, camel = dump_scenario(sc), dump_scenario(sc, camel=True)
    assert list(camel) == list(snake)
    for section in ("store", "config", "budget"):
        assert not [k for k in model_keys(camel[section]) if "_" in k], section
        assert not [k for k in model_keys(snake[section]) if k != k.lower()], section
        assert snake_keys(camel[section]) == snake[section], section
    for section in set(snake) - {"store", "config", "budget"}:
        assert camel[section] == snake[section], section
    assert json.loads(dumps_scenario(sc, camel=True)) == json.loads(json.dumps(camel))


@SLOW_DRAWS
@given(content=CONTENT)
@example(content=EVERY_BLOCK)
def test_dump_content_writes_blocks_as_a_scenario_file_does(content: tuple[Block, ...]) -> None:
    """dump_content is a message's content as the file writes it (snake_case, or camelCase with camel), and the
    format's block reader gives the same blocks back from either spelling."""
    snake, camel = dump_content(content), dump_content(content, camel=True)
    sc = Scenario(store=Store((Message("m1", "User", content),)))
    assert snake == dump_scenario(sc)["store"]["messages"][0]["content"]
    assert camel == dump_scenario(sc, camel=True)["store"]["messages"][0]["content"]
    assert same(read_blocks(snake), content) and same(read_blocks(camel), content)
    assert not [k for k in model_keys(camel) if "_" in k]
    assert snake_keys(camel) == snake


# ----------------------------------------------------------------------------- pinned bytes


def test_blocks_are_written_with_the_documented_names() -> None:
    """Each block's fields under their documented names: an image's payload as a base64 source, raw forms as
    ``raw_xml``/``raw_item`` (``rawXml``/``rawItem``), the raw item and a tool's input as data."""
    blocks = (EVERY_BLOCK[2], EVERY_BLOCK[3])
    assert dump_content(blocks) == [
        {
            "type": "tool_use",
            "id": "u1",
            "name": "read_file",
            "input": {"file_path": "a.txt"},
            "raw_xml": "<invoke/>",
            "raw_item": {"call_id": "u1"},
        },
        {
            "type": "tool_result",
            "tool_use_id": "u1",
            "content": [
                {"type": "text", "text": "ok"},
                {"type": "image", "token_estimate": 1200, "source": {"type": "base64", "data": "QUJD"}},
            ],
            "raw_xml": "<result/>",
            "raw_item": {"call_id": "u1", "output": "ok"},
        },
    ]
    assert dump_content(blocks, camel=True) == [
        {
            "type": "tool_use",
            "id": "u1",
            "name": "read_file",
            "input": {"file_path": "a.txt"},
            "rawXml": "<invoke/>",
            "rawItem": {"call_id": "u1"},
        },
        {
            "type": "tool_result",
            "toolUseId": "u1",
            "content": [
                {"type": "text", "text": "ok"},
                {"type": "image", "tokenEstimate": 1200, "source": {"type": "base64", "data": "QUJD"}},
            ],
            "rawXml": "<result/>",
            "rawItem": {"call_id": "u1", "output": "ok"},
        },
    ]


def test_a_small_scenario_is_written_byte_for_byte_as_documented() -> None:
    """The optional top-level fields first, then the store with every field, the config, the budget (non-finite
    numbers as strings), two-space indents, non-ASCII as is, a final newline."""
    sc = Scenario(
        store=Store((Message("m1", "User", (Text("héllo"),)),), work=(Work("chunk", "queued", frozenset({"m1"})),)),
        config=Config(tool_result_max_last_n={"read_file": 2}),
        budget=Budget(math.inf, 10),
        description="d",
        source=307,
        compiles_before=(0, 1),
    )
    text = dumps_scenario(sc)
    head = """{
  "description": "d",
  "source": 307,
  "compiles_before": [
    0,
    1
  ],
  "store": {
    "messages": [
      {
        "id": "m1",
        "participant": "User",
        "content": [
          {
            "type": "text",
            "text": "héllo"
          }
        ]
      }
    ],
    "summaries": [],
    "calibration": 1.0,
    "pricing_epoch": 1,
    "work": [
      {
        "kind": "chunk",
        "state": "queued",
        "folds": [
          "m1"
        ]
      }
    ]
  },
  "config": {
"""
    tail = """
  },
  "budget": {
    "max_tokens": "Infinity",
    "reserve_for_response": 10
  }
}
"""
    assert text.startswith(head) and text.endswith(tail)
    assert '\n    "tool_result_max_last_n": {\n      "read_file": 2\n    },\n' in text
    camel = dumps_scenario(sc, camel=True)
    assert '\n    "pricingEpoch": 1,\n' in camel and '\n    "toolResultMaxLastN": {\n      "read_file": 2\n' in camel
    assert camel.endswith('\n  "budget": {\n    "maxTokens": "Infinity",\n    "reserveForResponse": 10\n  }\n}\n')
    assert '\n  "compiles_before": [\n' in camel
