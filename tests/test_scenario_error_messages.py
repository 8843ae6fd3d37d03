"""The whole text of scenario error messages (reference/scenario.py): every block, message, summary, work,
store, config and budget field's ``<path>: expected <what>, got <value>``, the value shown short."""

from __future__ import annotations

import pytest
from scenario_helpers import _DELETE, SUM, M, S, _edit
from scenario_helpers import minimal as minimal  # a fixture

from reference.scenario import ScenarioError, load_scenario

# ----------------------------------------------------------------------------- whole error messages
#
# The message format is the tool's user-facing contract: "<JSON path>: expected <what>, got <value>",
# the value rendered as JSON (non-ASCII kept), an object as "an object", an array as "an array", a
# non-JSON value by its repr, and anything longer than 60 characters cut to 57 plus "...".


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
        (
            {"type": "text", "text": "a", "colour": "red"},
            f'{P}: unknown field "colour" (allowed: type, text, raw_item)',
        ),
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
        ({"type": "image", "data": "x"}, f'{P}: unknown field "data" (allowed: type, token_estimate, source)'),
        ({"type": "document", "token_estimate": 1}, f'{P}: unknown field "token_estimate" (allowed: type)'),
    ],
)
def test_block_errors_give_the_whole_message(minimal: dict, block: object, message: str) -> None:
    """Every block field names its own path, the expectation (nullable or not) and the bad value."""
    assert _error(_edit(minimal, B0, block)) == message


def test_carrier_type_error_lists_the_allowed_types(minimal: dict) -> None:
    """A non-carrier block in response_content names the carrier types it could have been."""
    raw = _edit(
        minimal, [S, "summaries", 0, "response_content"], [{"type": "tool_use", "id": "t", "name": "n", "input": {}}]
    )
    assert _error(raw) == (
        'summaries[0].response_content[0].type: block type "tool_use" is not allowed here'
        " (expected one of text, thinking, redacted_thinking)"
    )


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
        (
            [*SUM, "colour"],
            "red",
            'summaries[0]: unknown field "colour" (allowed: id, level, content, tokens, source_level, '
            "source_ids, source_range, parent_id, merged_into, response_content, created, provenance)",
        ),
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
        (
            [S, "work"],
            [{"kind": "chunk", "state": "queued", "x": 1}],
            'work[0]: unknown field "x" (allowed: kind, state, folds)',
        ),
        ([S, "work"], [{"kind": 5, "state": "queued"}], "work[0].kind: expected a string, got 5"),
        ([S, "work"], [{"kind": "chunk", "state": None}], "work[0].state: expected a string, got null"),
        (
            [S, "work"],
            [{"kind": "chunk", "state": "queued", "folds": "m1"}],
            'work[0].folds: expected an array, got "m1"',
        ),
        # the store object
        ([S], 5, "store: expected an object, got 5"),
        (
            [S, "colour"],
            "red",
            'store: unknown field "colour" (allowed: messages, summaries, calibration, pricing_epoch, work)',
        ),
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
        'messages[0]: unknown field "größe" '
        "(allowed: id, participant, content, sequence, timestamp, metadata, caused_by)"
    )
