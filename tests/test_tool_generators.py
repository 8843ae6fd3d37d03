"""The tool generators (invariants/generators/tool_cycles.py) draw every shape their docstrings promise: each kind of
turn, each fate of a parallel call, each tool and image setting both off and on.

The draws are the ``ci`` profile's first (derandomized, the same on every run); a shape the generator stops drawing
fails here even where another path still reaches what the compile does with it (tests/test_reach.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from invariants.generators.tool_cycles import tool_configs, tool_stores
from invariants.reach import first_draws
from reference.model import Image, Store, Text, ToolResult, ToolUse

pytestmark = pytest.mark.search

DRAWS = 300


def _answered_at(store: Store, call: str) -> list[int]:
    """The indices of the messages that hold a result for ``call``."""
    return [
        i
        for i, m in enumerate(store.messages)
        if any(isinstance(b, ToolResult) and b.tool_use_id == call for b in m.content)
    ]


def _fate(store: Store, i: int, call: str, siblings: int) -> str:
    """Where message ``i``'s call ``call`` is answered: next, a message late (after text, or beside a sibling's result)
    or never."""
    at = _answered_at(store, call)
    if not at:
        return "never"
    if at[0] == i + 1:
        return "next"
    if at[0] == i + 2 and any(isinstance(b, Text) for b in store.messages[i + 1].content):
        return "late, after text"
    if at[0] == i + 2 and siblings == 2:
        return "late, beside a sibling's result"
    return "other"


def turn_shapes(store: Store) -> Iterator[str]:
    """The shape of each call in ``store`` with two messages after it, as ``tool_turns`` documents them."""
    called = {b.id for m in store.messages for b in m.content if isinstance(b, ToolUse)}
    for i, m in enumerate(store.messages):
        if any(isinstance(b, ToolResult) and b.tool_use_id not in called for b in m.content):
            yield "orphan result"
        if any(isinstance(b, Image) for b in m.content):
            yield "image"
        calls = [b for b in m.content if isinstance(b, ToolUse)]
        if i + 2 >= len(store.messages):
            continue  # the store may end before an answer comes
        for k, call in enumerate(calls):
            who = "first of two" if len(calls) == 2 and k == 0 else "one"
            yield f"{who} call answered {_fate(store, i, call.id, len(calls))}"
            if len(call.input) > 4:
                yield "wide call"


@pytest.mark.parametrize(
    ("parallel", "promised"),
    [
        (
            False,
            {
                "one call answered next",
                "one call answered late, after text",
                "one call answered never",
                "orphan result",
                "wide call",
                "image",
            },
        ),
        (True, {"first of two call answered late, beside a sibling's result", "first of two call answered never"}),
    ],
    ids=["tool stores", "parallel tool stores"],
)
def test_tool_stores_draw_every_turn_they_document(parallel, promised):
    """Calls answered in the next message, a message late or never, results answering nothing, wide inputs, images;
    with ``parallel``, a message making two calls whose first is answered beside the second's result or never."""
    got = Counter(shape for store in first_draws(tool_stores(parallel=parallel), DRAWS) for shape in turn_shapes(store))
    missing = promised - set(got)
    assert not missing, f"in {DRAWS} draws, never: {sorted(missing)} (drawn: {dict(got)})"


def _on_off(value: object) -> str:
    return "off" if value in (0, None) else "on"


def test_tool_configs_draw_each_window_and_each_tool_and_image_setting_off_and_on():
    """Head and recent windows of 0 and among the cycles; image count, strip depth, input cap and result limit
    each off and on (a result limit as one for every tool and per tool)."""
    drawn = first_draws(tool_configs(), DRAWS)
    fields = (
        "head_window_tokens",
        "recent_window_tokens",
        "max_live_images",
        "image_strip_depth_tokens",
        "tool_use_input_max_tokens",
        "tool_result_max_last_n",
    )
    got = {(f, _on_off(getattr(c, f))) for c in drawn for f in fields}
    got |= {("tool_result_max_last_n", "per tool") for c in drawn if isinstance(c.tool_result_max_last_n, tuple)}
    promised = {(f, state) for f in fields for state in ("off", "on")} | {("tool_result_max_last_n", "per tool")}
    assert not promised - got, f"in {DRAWS} draws, never: {sorted(promised - got)}"
