"""Shared pieces of the scenario files' tests (tests/test_scenario*.py): the example and a minimal scenario,
the JSON paths into them and ``_edit``. A test module takes a fixture by importing it under its own name."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from reference.scenario import Scenario, load_scenario

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "small-store.json"


def minimal_scenario() -> dict:
    """Two messages (text; thinking and a tool result) and one L1 over both, as a scenario file's JSON."""
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
def minimal() -> dict:
    return minimal_scenario()


@pytest.fixture
def example() -> Scenario:
    return load_scenario(EXAMPLE)


S, M = "store", "messages"

SUM = [S, "summaries", 0]

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
