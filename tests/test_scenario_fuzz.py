"""Random mutations of valid scenario files: every outcome is a scenario or a clean one-line error.

The mutations (Hypothesis): change a field's type, drop a field, add one, nest a value deeper,
insert huge numbers and lone surrogates. The loader must answer with a ``Scenario`` or a
``ScenarioError`` whose one line starts with a path; the CLI (``check``, ``price``, ``reproduce``)
must exit 0, 1 or 2 with, for 2, one line on stderr: never a traceback.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.scenario import Scenario, ScenarioError, load_scenario, loads_scenario
from reports.cli import main

ROOT = Path(__file__).resolve().parents[1]
BASES = [
    json.loads(p.read_text(encoding="utf-8"))
    for p in (
        ROOT / "examples" / "small-store.json",
        ROOT / "tests" / "scenarios" / "seed" / "cleared-by-positioned-pair-chunk-after.scenario.json",
        ROOT / "tests" / "scenarios" / "reports" / "307-coverage-counts-left-out.scenario.json",
    )
]
#: "<path>: <what>", the path free of spaces (ids and keys here have none).
ONE_LINE_ERROR = re.compile(r"^\S+: \S")

NAMES = [
    "id",
    "type",
    "text",
    "content",
    "tokens",
    "level",
    "source_ids",
    "sourceRange",
    "maxMessageTokens",
    "budget",
    "config",
    "expect",
    "sound",
    "refuses",
    "sends",
    "breaks",
    "x",
    "größe",
]
HUGE = st.integers(min_value=300, max_value=6000).map(lambda d: 10**d)
ODD_TEXT = st.sampled_from(["\ud800", "a\udfffb", "NaN", "Infinity", "", "m1", "💥"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True), HUGE, ODD_TEXT)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)),
    max_leaves=6,
)


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*path, i))
    return out


def _get(value: Any, path: tuple) -> Any:
    for key in path:
        value = value[key]
    return value


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """A valid scenario with one to three random mutations."""
    doc = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        kind = draw(st.sampled_from(["retype", "drop", "add", "nest", "huge", "surrogate"]))
        if not path:
            if kind == "retype":
                doc = draw(VALUES)
            continue
        parent, key = _get(doc, path[:-1]), path[-1]
        if kind == "retype":
            parent[key] = draw(VALUES)
        elif kind == "drop":
            del parent[key]
        elif kind == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(NAMES))] = draw(VALUES)
        elif kind == "nest":
            value = parent[key]
            for _ in range(draw(st.integers(1, 120))):
                value = draw(
                    st.sampled_from(
                        [[value], {"content": [value]}, {"type": "tool_result", "tool_use_id": "t", "content": [value]}]
                    )
                )
            parent[key] = value
        elif kind == "huge":
            parent[key] = draw(HUGE) * draw(st.sampled_from([1, -1]))
        elif kind == "surrogate":
            parent[key] = draw(ODD_TEXT)
        if not _paths(doc):
            break
    return doc


def _loads_or_error(load: Any, arg: Any) -> Scenario | str:
    try:
        return load(arg)
    except ScenarioError as err:
        return str(err)


def _dumps(doc: Any) -> str | None:
    try:
        return json.dumps(doc, ensure_ascii=True)
    except (ValueError, RecursionError):  # Python's own encoder: past its recursion limit, or NaN in strict mode
        return None


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_the_loader_answers_every_mutation_cleanly(doc: Any) -> None:
    # A string is a file name to load_scenario: the parsed-object form only applies to other values.
    outcomes = [_loads_or_error(load_scenario, doc)] if not isinstance(doc, str) else []
    text = _dumps(doc)
    if text is not None:
        outcomes.append(_loads_or_error(loads_scenario, text))
    for got in outcomes:
        if isinstance(got, str):
            assert "\n" not in got and ONE_LINE_ERROR.match(got), got
    if text is not None and len(outcomes) == 2:
        # The text and the parsed object agree on whether the file is valid.
        assert isinstance(outcomes[0], Scenario) == isinstance(outcomes[1], Scenario), outcomes


def _run(args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(args)
    return code, err.getvalue()


CLI_EXAMPLES = max(5, settings.default.max_examples // 10)


@pytest.mark.parametrize("command", ["check", "price", "reproduce"])
@settings(
    max_examples=CLI_EXAMPLES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(doc=mutated())
def test_the_cli_answers_every_mutation_cleanly(command: str, doc: Any) -> None:
    text = _dumps(doc)
    if text is None:
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.scenario.json"
        path.write_text(text, encoding="utf-8")
        code, err = _run([command, str(path)])
    assert code in (0, 1, 2)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("cmharness: error: "), err
