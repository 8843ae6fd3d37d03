"""Blocks, messages and summaries as values (docs/model.md, The data): each one's own field checks, the
shapes kept as tuples, and how deep a message's content may nest."""

from __future__ import annotations

import math

import pytest
from model_helpers import _summary, refused
from model_helpers import messages as messages  # a fixture

from reference.model import (
    MAX_NESTING,
    InvalidStoreError,
    Message,
    RedactedThinking,
    Store,
    Summary,
    Text,
    ToolResult,
    ToolUse,
    json_depth,
)

# ----------------------------------------------------------------------------- summaries


def test_tokens_none_reads_as_nan():
    s = Summary(
        id="L1-0", level=1, content="x", tokens=None, source_level=0, source_ids=["m1"], source_range=["m1", "m1"]
    )
    assert math.isnan(s.tokens)
    assert s.source_ids == ("m1",) and s.source_range == ("m1", "m1")


def test_source_ids_given_as_a_string_is_refused_by_name():
    """A bare string is not a sequence of ids (it would iterate as characters); the error names the summary."""
    with pytest.raises(InvalidStoreError, match="summary 'L1-0': source_ids must be a sequence of ids, not a string"):
        _summary(source_ids="m1")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"source_level": -1}, "'L1-0': source_level must be an integer >= 0, got -1"),
        ({"source_level": True}, "'L1-0': source_level must be an integer >= 0, got True"),
        ({"source_level": 1.0}, "'L1-0': source_level must be an integer >= 0, got 1.0"),
        ({"source_level": "0"}, "'L1-0': source_level must be an integer >= 0, got '0'"),
        ({"content": 5}, "'L1-0': content must be a string"),
        ({"tokens": "10"}, "'L1-0': tokens must be a number or None, got '10'"),
        ({"tokens": True}, "'L1-0': tokens must be a number or None, got True"),
        (
            {"response_content": (Text("ok"), Message("m9", "User", ()))},
            r"'L1-0': response_content\[1\] must be Thinking, RedactedThinking or Text",
        ),
    ],
)
def test_bad_summary_fields_are_refused_naming_summary_and_field(messages, overrides, message):
    """Each malformed summary field is refused (The data) with a message naming the summary, the field and the value."""
    refused(message, messages=messages, summaries=(_summary(**overrides),))


def test_summary_response_content_is_stored_as_a_tuple():
    """Carriers passed as a list are kept as a tuple (a frozen summary holds no mutable list)."""
    s = _summary(response_content=[Text("a"), Text("b")])
    assert s.response_content == (Text("a"), Text("b"))
    assert isinstance(s.response_content, tuple)


@pytest.mark.parametrize("field", ["source_ids", "source_range"])
@pytest.mark.parametrize("value", [None, 5])
def test_a_summary_id_list_that_is_not_a_sequence_is_a_structural_error(field, value):
    """The data (docs/model.md): every structural error is an InvalidStoreError naming the culprit, not a TypeError."""
    fields = {"source_ids": ("m1",), "source_range": ("m1", "m1"), field: value}
    with pytest.raises(InvalidStoreError, match=rf"^summary 'L1-0': {field} must be a sequence of ids, got {value}$"):
        Summary(id="L1-0", level=1, content="s", tokens=10, source_level=0, **fields)


# ----------------------------------------------------------------------------- blocks and messages


def test_message_content_must_be_a_tuple_naming_the_message_and_the_type():
    """A message whose content is a list is refused with the message id and the type it got."""
    bad = Message(id="m1", participant="User", content=[Text("a")])
    refused("message 'm1': content must be a tuple of blocks, got list", messages=(bad,))


def test_a_non_block_in_content_is_refused_with_its_position():
    """The error points at the offending block by message id and index, and shows it."""
    bad = Message(id="m1", participant="User", content=(Text("a"), "oops"))
    refused(r"message 'm1'\.content\[1\]: not a block: 'oops'", messages=(bad,))


def test_a_non_block_nested_in_a_tool_result_is_refused_with_its_path():
    """Nested tool-result content is checked too; the path runs through the outer block's index."""
    bad = Message(id="m1", participant="User", content=(Text("a"), ToolResult("t1", (Text("b"), 42))))
    refused(r"message 'm1'\.content\[1\]\.content\[1\]: not a block: 42", messages=(bad,))


def test_a_non_message_in_messages_is_refused_with_its_index(messages):
    """Only Message objects may be messages; the error gives the position."""
    refused(r"messages\[2\]: not a Message", messages=(*messages[:2], "m3"))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: RedactedThinking(5), "RedactedThinking.data must be a string or None, got 5"),
        (lambda: ToolResult(5, "x"), "ToolResult.tool_use_id must be a string, got 5"),
        (lambda: ToolUse("t1", 5, {}), "ToolUse.name must be a string, got 5"),
        (lambda: Message("m1", 5, ()), "message 'm1': participant must be a string, got 5"),
    ],
)
def test_a_bad_block_or_message_field_is_refused_naming_it(make, message):
    with pytest.raises(InvalidStoreError) as info:
        make()
    assert str(info.value) == message


def test_redacted_thinking_data_may_be_none():
    assert RedactedThinking(None).data is None


# ----------------------------------------------------------------------------- nesting


def nest(depth: int) -> object:
    """A JSON list nested ``depth`` deep around a scalar."""
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "depth"),
    [
        (5, 0),
        ("s", 0),
        ([], 1),
        ({}, 1),
        ([1, 2], 1),
        ({"a": 1}, 1),
        ([[[1]], 2], 3),
        ([2, [[1]]], 3),
        ({"a": {"b": []}}, 3),
        ({"a": 1, "b": [[]]}, 3),
        (nest(256), 256),
    ],
)
def test_json_depth_counts_the_deepest_list_or_dict(value, depth):
    assert json_depth(value) == depth


def test_json_depth_of_a_value_past_the_limit_is_past_the_limit():
    assert json_depth(nest(300)) > MAX_NESTING


def test_a_tool_use_input_at_the_nesting_limit_is_accepted_and_one_deeper_refused():
    """The message's content is depth 1, so an input 255 deep reaches 256, the limit; 256 deep is over it."""
    Store(messages=(Message("m1", "User", (ToolUse("t1", "f", nest(MAX_NESTING - 1)),)),))
    refused(
        r"^message 'm1': content nested deeper than 256 levels \(the input of tool use 't1'\)$",
        messages=(Message("m1", "User", (ToolUse("t1", "f", nest(MAX_NESTING)),)),),
    )
