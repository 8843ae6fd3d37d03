"""Scenario files: a store, a config, a budget and what each variant should do, as JSON (docs/model.md).

A scenario file (``*.scenario.json``) is one JSON object::

    {
      "$schema": "../../../docs/scenario.schema.json",
      "description": "optional free text", "source": "a link or an issue number",
      "store": {
        "messages": [{"id": "m1", "participant": "User", "content": [{"type": "text", "text": "hi"}]}],
        "summaries": [{"id": "L1-0", "level": 1, "content": "...", "tokens": 42, "source_level": 0,
                       "source_ids": ["m1"], "source_range": ["m1", "m1"], "parent_id": null,
                       "response_content": null}],
        "calibration": 1.0, "pricing_epoch": 1,
        "work": [{"kind": "chunk", "state": "queued", "folds": ["m1"]}]
      },
      "config": {"max_message_tokens": 0, ...},
      "budget": {"max_tokens": 8000, "reserve_for_response": 0},
      "expect": {"sound": {"refuses": {"site": "positioned-pair", "refused": ["L1-1"]}},
                 "faithful": {"sends": {"entries": 7}, "breaks": ["never-over"]}}
    }

The format is the pydantic models of ``reference.scenario_format`` (its JSON Schema is
``docs/scenario.schema.json``, written by ``cmharness schema``). Every field is accepted in its
snake_case name or the TypeScript's camelCase one (``maxMessageTokens``, ``sourceIds``,
``tokenEstimate``, ``toolUseId``, ...); ``source_range`` is ``[first, last]`` or ``{"first", "last"}``.
Blocks are objects with a ``"type"`` (``text``, ``thinking``, ``redacted_thinking``, ``tool_use``,
``tool_result``, ``image``, ``document``). Optional fields default to null; a summary's null
``tokens`` reads as NaN, as the model does. ``config`` (default ``Config()``, any subset of its
fields) and ``budget`` (default unlimited; ``max_tokens`` required inside it) are optional.

Numbers: wherever a number is expected the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"``
are accepted, and ``dump_scenario`` writes non-finite numbers that way. Integers stay integers and
floats stay floats; ``level``, ``source_level`` and ``pricing_epoch`` refuse floats. Limits
(``reference.json_input``): at most 500 levels of nesting and integers of at most 308 digits.

A custom text estimator (``Store.text_estimator``) is code and cannot be written in JSON: a store
loaded from a scenario has none, and ``dump_scenario`` leaves it out silently.

Errors are ``ScenarioError`` (a ``ValueError``), one line starting with the JSON path of the bad
field. Paths inside the store are written from the store (``messages[0].content[2].type``,
``summaries[3].tokens``); others start with their section (``config.``, ``budget.``,
``expect.sound.refuses.``); the top level object is ``scenario``. An unknown field's error lists the
allowed names and suggests the closest. A structural error the model finds (``InvalidStoreError``)
or a bad config value (``InvalidConfigError``) is re-raised prefixed by its section:
``store: ...``, ``config: ...``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from reference.errors import ModelError
from reference.expect import Expectation, Refuses, Sends
from reference.format_base import accepted_names, show
from reference.json_input import JsonLimitError, check_depth, parse_json
from reference.model import (
    Block,
    Budget,
    Config,
    Content,
    Document,
    Image,
    InvalidConfigError,
    InvalidStoreError,
    RedactedThinking,
    Store,
    Summary,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)
from reference.numerics import Number, is_number
from reference.scenario_format import TAG, ScenarioModel, StoreModel, build_config, read_blocks

__all__ = [
    "Scenario",
    "ScenarioError",
    "camel_keys",
    "dump_content",
    "dump_scenario",
    "dumps_scenario",
    "load_scenario",
    "loads_scenario",
    "save_scenario",
    "scenario_json",
    "store_prefix",
]


class ScenarioError(ModelError, ValueError):
    """A scenario that cannot be read; the message starts with the JSON path of the culprit."""


def _unlimited() -> Budget:
    return Budget(max_tokens=math.inf)


@dataclass(frozen=True)
class Scenario:
    """A store with the config and budget to compile it under, and what each variant should do."""

    store: Store
    config: Config = field(default_factory=Config)
    budget: Budget = field(default_factory=_unlimited)
    description: str | None = None
    source: str | int | None = None
    expect: Mapping[str, Expectation] = field(default_factory=dict)
    compiles_before: tuple[int, ...] = ()

    def prefix(self, n: int) -> Store:
        """The store as it stood with its first ``n`` messages (a compile of ``compiles_before``)."""
        return store_prefix(self.store, n)


def store_prefix(st: Store, n: int) -> Store:
    """``st`` with its first ``n`` messages: the summaries and work within them, a parent past them dropped."""
    kept = {m.id for m in st.messages[:n]}
    summaries = [s for s in st.summaries if st.leaves(s.id) <= kept]
    ids = {s.id for s in summaries}
    summaries = [s if s.parent_id in ids or s.parent_id is None else replace(s, parent_id=None) for s in summaries]
    work = [w for w in st.work if w.folds is not None and w.folds <= (kept if w.kind == "chunk" else ids)]
    return Store(st.messages[:n], tuple(summaries), st.calibration, st.pricing_epoch, st.text_estimator, tuple(work))


# ----------------------------------------------------------------------------- errors

_STORE_KEYS = frozenset(accepted_names(StoreModel))


def json_path(loc: Sequence[int | str]) -> str:
    """pydantic's error location as the file's path: ``summaries[3].tokens``, ``config.x``, ``scenario``."""
    parts = [p for p in loc if not (isinstance(p, str) and p.startswith(TAG))]
    if len(parts) >= 2 and parts[0] == "store" and parts[1] in _STORE_KEYS:
        parts = parts[1:]
    out = ""
    for p in parts:
        out = f"{out}[{p}]" if isinstance(p, int) else f"{out}.{p}" if out else str(p)
    return out


def _message(err: Any) -> str:
    """One pydantic error as one line: ``<path>: <what was wrong>``."""
    loc, kind, ctx = tuple(err["loc"]), err["type"], err.get("ctx") or {}
    if kind == "missing":
        return f"{json_path(loc[:-1]) or 'scenario'}: missing field {show(loc[-1])}"
    if kind == "cmharness":
        return f"{(json_path(loc) or 'scenario') + ctx['suffix']}: {ctx['message']}"
    if kind in ("dict_type", "model_type"):
        return f"{json_path(loc) or 'scenario'}: expected an object"
    return f"{json_path(loc) or 'scenario'}: {err['msg']}"


# ----------------------------------------------------------------------------- reading


def scenario_json(text: str) -> Any:
    """A scenario file's text parsed within the JSON limits, not yet read as a scenario; ``ScenarioError`` where it
    is not JSON or passes a limit. A byte order mark before it is ignored, as RFC 8259 allows (editors add one)."""
    try:
        return parse_json(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as err:
        raise ScenarioError(f"scenario: invalid JSON at line {err.lineno} column {err.colno}: {err.msg}") from err
    except JsonLimitError as err:
        raise ScenarioError(f"scenario: {err}") from err


def loads_scenario(text: str) -> Scenario:
    """Read a scenario from JSON text (a file's contents, standard input)."""
    return _scenario_from(scenario_json(text))


def load_scenario(source: str | os.PathLike[str] | Mapping[str, Any]) -> Scenario:
    """Read a scenario from a JSON file path (str or path-like) or from an already-parsed JSON value.

    A file that is not valid JSON raises ``ScenarioError``; a file that cannot be opened raises
    ``OSError`` as usual.
    """
    if isinstance(source, (str, os.PathLike)):
        return _scenario_from(scenario_json(Path(source).read_text(encoding="utf-8")))
    try:
        check_depth(source)
    except JsonLimitError as err:
        raise ScenarioError(f"{json_path(err.loc)}: {err}") from err  # a path 500 deep, never empty
    return _scenario_from(source)


def _scenario_from(raw: object) -> Scenario:
    """A parsed JSON value (within the depth limit) as a scenario."""
    try:
        parsed = ScenarioModel.model_validate(raw)
    except ValidationError as err:
        raise ScenarioError(_message(err.errors()[0])) from None
    try:
        store = parsed.store.build()
    except InvalidStoreError as err:
        raise ScenarioError(f"store: {err}") from err
    try:
        config = Config() if parsed.config is None else build_config(parsed.config)
    except InvalidConfigError as err:
        raise ScenarioError(f"config: {err}") from err
    budget = _unlimited() if parsed.budget is None else parsed.budget.build()  # its model refuses what Budget would
    expect = {k: v.build(_blocks_at(f"expect.{k}.sends.content")) for k, v in (parsed.expect or {}).items()}
    before = tuple(parsed.compiles_before or ())
    for i, n in enumerate(before):
        if not 0 <= n <= len(store.messages):
            raise ScenarioError(
                f"compiles_before[{i}]: expected a message count from 0 to {len(store.messages)}, got {n}"
            )
    return Scenario(
        store=store,
        config=config,
        budget=budget,
        description=parsed.description,
        source=parsed.source,
        expect=expect,
        compiles_before=before,
    )


def _blocks_at(path: str) -> Callable[[int, list[Any]], Content]:
    """A reader of an expectation's blocks whose errors name their path in the file."""

    def read(k: int, raw: list[Any]) -> Content:
        try:
            return read_blocks(raw)
        except ValidationError as err:
            first = err.errors()[0]
            inner = json_path((k, *first["loc"]))
            where = f"{path}{inner if inner.startswith('[') else '.' + inner}"
            ctx = first.get("ctx") or {}
            if first["type"] == "cmharness":
                return _raise(f"{where}{ctx['suffix']}: {ctx['message']}")
            if first["type"] == "missing":
                return _raise(f"{where.rsplit('.', 1)[0]}: missing field {show(first['loc'][-1])}")
            return _raise(f"{where}: {first['msg']}")
        except InvalidStoreError as err:
            return _raise(f"{path}[{k}]: {err}")

    return read


def _raise(message: str) -> Content:
    raise ScenarioError(message)


# ----------------------------------------------------------------------------- writing


def _dump_number(x: Number | None) -> int | float | str | None:
    if x is None or isinstance(x, bool) or not isinstance(x, float) or math.isfinite(x):
        return x
    if math.isnan(x):
        return "NaN"
    return "Infinity" if x > 0 else "-Infinity"


def _dump_block(b: Block) -> dict[str, Any]:
    out = _dump_fields(b)
    for name in ("raw_xml", "raw_item"):
        if getattr(b, name, None) is not None:
            out[name] = getattr(b, name)
    return out


def _dump_fields(b: Block) -> dict[str, Any]:
    match b:
        case Text():
            return {"type": "text", "text": b.text}
        case Thinking():
            return {
                "type": "thinking",
                "thinking": b.thinking,
                "signature": b.signature,
                "token_estimate": _dump_number(b.token_estimate),
            }
        case RedactedThinking():
            return {
                "type": "redacted_thinking",
                "data": b.data,
                "token_estimate": _dump_number(b.token_estimate),
            }
        case ToolUse():
            return {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input}
        case ToolResult():
            content = b.content if isinstance(b.content, str) else [_dump_block(c) for c in b.content]
            return {"type": "tool_result", "tool_use_id": b.tool_use_id, "content": content}
        case Image():
            out: dict[str, Any] = {"type": "image", "token_estimate": _dump_number(b.token_estimate)}
            if b.data is not None:
                out["source"] = {"type": "base64", "data": b.data}
            return out
        case Document():
            return {"type": "document"}
    raise TypeError(f"not a block: {b!r}")


def dump_content(content: Sequence[Block], *, camel: bool = False) -> list[dict[str, Any]]:
    """Blocks as a scenario file writes them (``camel``: with the TypeScript's field names)."""
    blocks = [_dump_block(b) for b in content]
    return camel_keys(blocks) if camel else blocks


def _dump_summary(s: Summary) -> dict[str, Any]:
    return {
        "id": s.id,
        "level": s.level,
        "content": s.content,
        "tokens": _dump_number(s.tokens),
        "source_level": s.source_level,
        "source_ids": list(s.source_ids),
        "source_range": list(s.source_range),
        "parent_id": s.parent_id,
        "response_content": (None if s.response_content is None else [_dump_block(b) for b in s.response_content]),
    }


def _dump_config_value(v: Any) -> Any:
    """A config value as JSON: numbers as ``_dump_number`` writes them, per-tool pairs as an object."""
    if is_number(v):
        return _dump_number(v)
    if isinstance(v, tuple):
        return {name: _dump_number(n) for name, n in v}
    return v


#: Keys whose values are data, not the model's fields: their own keys are never renamed.
_DATA_KEYS = frozenset({"input", "raw_item", "tool_result_max_last_n"})


def camel_keys(obj: Any) -> Any:
    """A dumped store, config or budget with the TypeScript's camelCase keys (``toolUseId``, ``sourceIds``).

    Only the model's own keys are renamed: a tool call's ``input``, a block's ``raw_item`` and a per-tool config
    map are data.
    """
    if isinstance(obj, list):
        return [camel_keys(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    return {to_camel(k): v if k in _DATA_KEYS else camel_keys(v) for k, v in obj.items()}


def dump_scenario(scenario: Scenario, *, camel: bool = False) -> dict[str, Any]:
    """The JSON object of a scenario (every field written; non-finite numbers as strings).

    ``load_scenario(dump_scenario(s))`` gives back an equal scenario, except that a custom text
    estimator is dropped. ``camel``: the store, config and budget with the TypeScript's names.
    """
    store = scenario.store
    out: dict[str, Any] = {}
    if scenario.description is not None:
        out["description"] = scenario.description
    if scenario.source is not None:
        out["source"] = scenario.source
    if scenario.compiles_before:
        out["compiles_before"] = list(scenario.compiles_before)
    out["store"] = {
        "messages": [
            {"id": m.id, "participant": m.participant, "content": [_dump_block(b) for b in m.content]}
            for m in store.messages
        ],
        "summaries": [_dump_summary(s) for s in store.summaries],
        "calibration": _dump_number(store.calibration),
        "pricing_epoch": store.pricing_epoch,
        "work": [
            {"kind": w.kind, "state": w.state, "folds": None if w.folds is None else sorted(w.folds)}
            for w in store.work
        ],
    }
    out["config"] = {f.name: _dump_config_value(getattr(scenario.config, f.name)) for f in dataclasses.fields(Config)}
    out["budget"] = {
        "max_tokens": _dump_number(scenario.budget.max_tokens),
        "reserve_for_response": _dump_number(scenario.budget.reserve_for_response),
    }
    if camel:
        out.update({k: camel_keys(out[k]) for k in ("store", "config", "budget")})
    if scenario.expect:
        out["expect"] = {k: dump_expectation(v) for k, v in scenario.expect.items()}
    return out


def _given(obj: Sends | Refuses) -> dict[str, Any]:
    """The fields of an expectation part that are checked (not None), numbers as the file writes them."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if v is None:
            continue
        if f.name == "content":
            v = [[_dump_block(b) for b in entry] for entry in v]
        elif isinstance(v, tuple):
            v = [list(x) if isinstance(x, tuple) else x for x in v]
        elif isinstance(v, Mapping):
            v = dict(v)
        elif is_number(v):
            v = _dump_number(v)
        out[f.name] = v
    return out


def dump_expectation(e: Expectation) -> dict[str, Any]:
    """An expectation as the file writes it."""
    out: dict[str, Any] = {}
    if e.sends is not None:
        out["sends"] = _given(e.sends)
    if e.refuses is not None:
        out["refuses"] = _given(e.refuses)
    if e.breaks is not None:
        out["breaks"] = list(e.breaks)
    if e.holds:
        out["holds"] = True
    return out


def dumps_scenario(scenario: Scenario, indent: int | None = 2, *, camel: bool = False) -> str:
    """The scenario as JSON text (UTF-8 safe: ASCII-escaped when a string holds a lone surrogate)."""
    obj = dump_scenario(scenario, camel=camel)
    text = json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, indent=indent, ensure_ascii=True, allow_nan=False)
    return text + "\n"


def save_scenario(scenario: Scenario, path: str | os.PathLike[str]) -> None:
    """Write ``dumps_scenario(scenario)`` to ``path``."""
    Path(path).write_text(dumps_scenario(scenario), encoding="utf-8")
