"""Scenario files: a store, a config and a budget as JSON (SPEC sections 2 and 5).

A scenario file is one JSON object::

    {
      "description": "optional free text",
      "store": {
        "messages": [{"id": "m1", "participant": "User", "content": [{"type": "text", "text": "hi"}]}],
        "summaries": [{"id": "L1-0", "level": 1, "content": "...", "tokens": 42, "source_level": 0,
                       "source_ids": ["m1"], "source_range": ["m1", "m1"], "parent_id": null,
                       "response_content": null}],
        "calibration": 1.0,
        "pricing_epoch": 1,
        "work": [{"kind": "chunk", "state": "queued", "folds": ["m1"]}]
      },
      "config": {"max_message_tokens": 0, ...},
      "budget": {"max_tokens": 8000, "reserve_for_response": 0}
    }

Blocks are objects with a ``"type"`` (``text``, ``thinking``, ``redacted_thinking``, ``tool_use``,
``tool_result``, ``image``, ``document``) and the fields of SPEC section 2 under the same names:
``text``; ``thinking``, ``signature``, ``token_estimate``; ``data``, ``token_estimate``; ``id``,
``name``, ``input`` (any JSON value, kept as is); ``tool_use_id``, ``content`` (a string or a list of
blocks); ``token_estimate``. Optional block fields (``signature``, ``token_estimate``) default to
null; so do a summary's ``tokens`` (read as NaN, as the model does), ``parent_id`` and
``response_content`` (a list of text / thinking / redacted_thinking blocks, or null).
``summaries``, ``calibration`` (1.0), ``pricing_epoch`` (1) and ``work`` are optional; a work's
``folds`` is a list of ids or null. ``config`` (default ``Config()``, any subset of its fields) and
``budget`` (default an unlimited ``Budget(max_tokens=inf)``; ``max_tokens`` is required inside it)
are optional.

Numbers: JSON has no NaN or infinities, so wherever a number is expected the strings ``"NaN"``,
``"Infinity"`` and ``"-Infinity"`` are accepted too, and ``dump_scenario`` writes non-finite numbers
that way. (Python's ``json`` module also reads the bare literals ``NaN`` / ``Infinity``; they are
accepted as well.) Integers stay integers and floats stay floats. Fields that must be integers
(``level``, ``source_level``, ``pricing_epoch``) refuse floats.

A custom text estimator (``Store.text_estimator``) is code and cannot be written in JSON: a store
loaded from a scenario has none, and ``dump_scenario`` leaves it out silently.

Errors are ``ScenarioError`` (a ``ValueError``) whose message starts with the JSON path of the bad
field. Paths inside the store are written from the store (``messages[0].content[2].type``,
``summaries[3].tokens``); config and budget fields start with ``config.`` / ``budget.``; the top
level object is ``scenario``. A structural error the model finds (``InvalidStoreError``) or a bad
config or budget value (``InvalidConfigError``) is re-raised as ``ScenarioError`` prefixed by its
section: ``store: ...``, ``config: ...``, ``budget: ...``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference.model import (
    Block,
    Budget,
    Config,
    Document,
    Image,
    InvalidConfigError,
    InvalidStoreError,
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
from reference.numerics import Number, is_number

__all__ = [
    "Scenario",
    "ScenarioError",
    "dump_scenario",
    "dumps_scenario",
    "load_scenario",
    "save_scenario",
]


class ScenarioError(ValueError):
    """A scenario that cannot be read; the message starts with the JSON path of the culprit."""


def _unlimited() -> Budget:
    return Budget(max_tokens=math.inf)


@dataclass(frozen=True)
class Scenario:
    """A store with the config and budget to compile it under."""

    store: Store
    config: Config = field(default_factory=Config)
    budget: Budget = field(default_factory=_unlimited)
    description: str | None = None


# ----------------------------------------------------------------------------- reading helpers

_NUMBER_STRINGS: dict[str, float] = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _show(value: object) -> str:
    """A short JSON-ish rendering of a bad value for an error message."""
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _at(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _object(raw: object, path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    """``raw`` checked to be an object with exactly the allowed keys (all ``required`` ones present)."""
    if not isinstance(raw, Mapping):
        raise ScenarioError(f"{path}: expected an object, got {_show(raw)}")
    allowed = set(required) | set(optional)
    for key in raw:
        if key not in allowed:
            raise ScenarioError(f"{path}: unknown field {_show(key)}")
    for key in required:
        if key not in raw:
            raise ScenarioError(f"{path}: missing field {_show(key)}")
    return dict(raw)


def _number(raw: object, path: str, *, nullable: bool = False) -> Number | None:
    if raw is None and nullable:
        return None
    if is_number(raw):
        # One NaN object, so that stores read from the same file compare equal.
        return math.nan if isinstance(raw, float) and math.isnan(raw) else raw
    if isinstance(raw, str) and raw in _NUMBER_STRINGS:
        return _NUMBER_STRINGS[raw]
    raise ScenarioError(f"{path}: expected a number, got {_show(raw)}")


def _integer(raw: object, path: str) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    raise ScenarioError(f"{path}: expected an integer, got {_show(raw)}")


def _string(raw: object, path: str, *, nullable: bool = False) -> str | None:
    if raw is None and nullable:
        return None
    if isinstance(raw, str):
        return raw
    raise ScenarioError(f"{path}: expected a string{' or null' if nullable else ''}, got {_show(raw)}")


def _boolean(raw: object, path: str) -> bool:
    if isinstance(raw, bool):
        return raw
    raise ScenarioError(f"{path}: expected true or false, got {_show(raw)}")


def _array(raw: object, path: str) -> list:
    if isinstance(raw, list):
        return raw
    raise ScenarioError(f"{path}: expected an array, got {_show(raw)}")


def _strings(raw: object, path: str) -> tuple[str, ...]:
    return tuple(_string(v, _at(path, i)) for i, v in enumerate(_array(raw, path)))


# ----------------------------------------------------------------------------- blocks

BLOCK_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "text": (("text",), ()),
    "thinking": (("thinking",), ("signature", "token_estimate")),
    "redacted_thinking": (("data",), ("token_estimate",)),
    "tool_use": (("id", "name", "input"), ()),
    "tool_result": (("tool_use_id", "content"), ()),
    "image": ((), ("token_estimate",)),
    "document": ((), ()),
}
CARRIER_TYPES = ("text", "thinking", "redacted_thinking")


def _block(raw: object, path: str, allowed: tuple[str, ...] = tuple(BLOCK_FIELDS)) -> Block:
    if not isinstance(raw, Mapping):
        raise ScenarioError(f"{path}: expected a block object, got {_show(raw)}")
    if "type" not in raw:
        raise ScenarioError(f'{path}: missing field "type"')
    kind = raw["type"]
    if not isinstance(kind, str) or kind not in BLOCK_FIELDS:
        raise ScenarioError(f"{path}.type: unknown block type {_show(kind)}")
    if kind not in allowed:
        raise ScenarioError(
            f"{path}.type: block type {_show(kind)} is not allowed here (expected one of {', '.join(allowed)})"
        )
    required, optional = BLOCK_FIELDS[kind]
    obj = _object(raw, path, ("type", *required), optional)
    match kind:
        case "text":
            return Text(text=_string(obj["text"], _at(path, "text")))
        case "thinking":
            return Thinking(
                thinking=_string(obj["thinking"], _at(path, "thinking")),
                signature=_string(obj.get("signature"), _at(path, "signature"), nullable=True),
                token_estimate=_number(obj.get("token_estimate"), _at(path, "token_estimate"), nullable=True),
            )
        case "redacted_thinking":
            return RedactedThinking(
                data=_string(obj["data"], _at(path, "data"), nullable=True),
                token_estimate=_number(obj.get("token_estimate"), _at(path, "token_estimate"), nullable=True),
            )
        case "tool_use":
            return ToolUse(
                id=_string(obj["id"], _at(path, "id")),
                name=_string(obj["name"], _at(path, "name")),
                input=obj["input"],
            )
        case "tool_result":
            content = obj["content"]
            cpath = _at(path, "content")
            if not isinstance(content, str):
                content = _content(content, cpath)
            return ToolResult(tool_use_id=_string(obj["tool_use_id"], _at(path, "tool_use_id")), content=content)
        case "image":
            return Image(token_estimate=_number(obj.get("token_estimate"), _at(path, "token_estimate"), nullable=True))
        case _:
            return Document()


def _content(raw: object, path: str, allowed: tuple[str, ...] = tuple(BLOCK_FIELDS)) -> tuple[Block, ...]:
    if not isinstance(raw, list):
        raise ScenarioError(f"{path}: expected an array of blocks, got {_show(raw)}")
    return tuple(_block(b, _at(path, i), allowed) for i, b in enumerate(raw))


# ----------------------------------------------------------------------------- store

SUMMARY_FIELDS = ("id", "level", "content", "source_level", "source_ids", "source_range")
SUMMARY_OPTIONAL = ("tokens", "parent_id", "response_content")


def _message(raw: object, path: str) -> Message:
    obj = _object(raw, path, ("id", "participant", "content"))
    return Message(
        id=_string(obj["id"], _at(path, "id")),
        participant=_string(obj["participant"], _at(path, "participant")),
        content=_content(obj["content"], _at(path, "content")),
    )


def _summary(raw: object, path: str) -> Summary:
    obj = _object(raw, path, SUMMARY_FIELDS, SUMMARY_OPTIONAL)
    rng = _strings(obj["source_range"], _at(path, "source_range"))
    if len(rng) != 2:
        raise ScenarioError(f"{_at(path, 'source_range')}: expected [first, last], got {len(rng)} ids")
    carriers = obj.get("response_content")
    if carriers is not None:
        carriers = _content(carriers, _at(path, "response_content"), CARRIER_TYPES)
    return Summary(
        id=_string(obj["id"], _at(path, "id")),
        level=_integer(obj["level"], _at(path, "level")),
        content=_string(obj["content"], _at(path, "content")),
        tokens=_number(obj.get("tokens"), _at(path, "tokens"), nullable=True),
        source_level=_integer(obj["source_level"], _at(path, "source_level")),
        source_ids=_strings(obj["source_ids"], _at(path, "source_ids")),
        source_range=(rng[0], rng[1]),
        parent_id=_string(obj.get("parent_id"), _at(path, "parent_id"), nullable=True),
        response_content=carriers,
    )


def _work(raw: object, path: str) -> Work:
    obj = _object(raw, path, ("kind", "state"), ("folds",))
    folds = obj.get("folds")
    return Work(
        kind=_string(obj["kind"], _at(path, "kind")),
        state=_string(obj["state"], _at(path, "state")),
        folds=None if folds is None else frozenset(_strings(folds, _at(path, "folds"))),
    )


def _store(raw: object) -> Store:
    if isinstance(raw, Mapping) and "text_estimator" in raw:
        raise ScenarioError("store.text_estimator: a custom text estimator cannot be written in JSON")
    obj = _object(raw, "store", ("messages",), ("summaries", "calibration", "pricing_epoch", "work"))
    messages = tuple(_message(m, _at("messages", i)) for i, m in enumerate(_array(obj["messages"], "messages")))
    summaries = tuple(
        _summary(s, _at("summaries", i)) for i, s in enumerate(_array(obj.get("summaries", []), "summaries"))
    )
    work = tuple(_work(w, _at("work", i)) for i, w in enumerate(_array(obj.get("work", []), "work")))
    calibration = _number(obj.get("calibration", 1.0), "calibration")
    epoch = _integer(obj.get("pricing_epoch", 1), "pricing_epoch")
    try:
        return Store(messages=messages, summaries=summaries, calibration=calibration, pricing_epoch=epoch, work=work)
    except InvalidStoreError as err:
        raise ScenarioError(f"store: {err}") from err


# ----------------------------------------------------------------------------- config and budget


def _config_reader(f: dataclasses.Field) -> Callable[[object, str], Any]:
    """How a config field is read, from its default's type (so a new field needs no change here)."""
    if f.name in ("max_message_tokens", "tool_result_max_last_n"):  # the fields where None is a value (off)
        return lambda raw, path: _number(raw, path, nullable=True)
    if isinstance(f.default, bool):
        return _boolean
    if isinstance(f.default, str):
        return _string
    return _number


def _config(raw: object) -> Config:
    readers = {f.name: _config_reader(f) for f in dataclasses.fields(Config)}
    obj = _object(raw, "config", (), tuple(readers))
    kwargs = {k: readers[k](v, _at("config", k)) for k, v in obj.items()}
    try:
        return Config(**kwargs)
    except InvalidConfigError as err:
        raise ScenarioError(f"config: {err}") from err


def _budget(raw: object) -> Budget:
    obj = _object(raw, "budget", ("max_tokens",), ("reserve_for_response",))
    kwargs = {k: _number(v, _at("budget", k)) for k, v in obj.items()}
    try:
        return Budget(**kwargs)
    except InvalidConfigError as err:
        raise ScenarioError(f"budget: {err}") from err


# ----------------------------------------------------------------------------- public API


def load_scenario(source: str | os.PathLike[str] | Mapping[str, Any]) -> Scenario:
    """Read a scenario from a JSON file path (str or path-like) or from an already-parsed JSON value.

    A file that is not valid JSON raises ``ScenarioError``; a file that cannot be opened raises
    ``OSError`` as usual.
    """
    if isinstance(source, (str, os.PathLike)):
        text = Path(source).read_text(encoding="utf-8")
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as err:
            raise ScenarioError(f"scenario: invalid JSON at line {err.lineno} column {err.colno}: {err.msg}") from err
    else:
        raw = source
    obj = _object(raw, "scenario", ("store",), ("config", "budget", "description"))
    description = _string(obj.get("description"), "description", nullable=True)
    store = _store(obj["store"])
    config = _config(obj["config"]) if obj.get("config") is not None else Config()
    budget = _budget(obj["budget"]) if obj.get("budget") is not None else _unlimited()
    return Scenario(store=store, config=config, budget=budget, description=description)


def _dump_number(x: Number | None) -> int | float | str | None:
    if x is None or isinstance(x, bool) or not isinstance(x, float) or math.isfinite(x):
        return x
    if math.isnan(x):
        return "NaN"
    return "Infinity" if x > 0 else "-Infinity"


def _dump_block(b: Block) -> dict[str, Any]:
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
            return {"type": "image", "token_estimate": _dump_number(b.token_estimate)}
        case Document():
            return {"type": "document"}
    raise TypeError(f"not a block: {b!r}")


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


def dump_scenario(scenario: Scenario) -> dict[str, Any]:
    """The JSON object of a scenario (every field written; non-finite numbers as strings).

    ``load_scenario(dump_scenario(s))`` gives back an equal scenario, except that a custom text
    estimator is dropped.
    """
    store = scenario.store
    out: dict[str, Any] = {}
    if scenario.description is not None:
        out["description"] = scenario.description
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
    out["config"] = {
        f.name: _dump_number(v) if is_number(v := getattr(scenario.config, f.name)) else v
        for f in dataclasses.fields(Config)
    }
    out["budget"] = {
        "max_tokens": _dump_number(scenario.budget.max_tokens),
        "reserve_for_response": _dump_number(scenario.budget.reserve_for_response),
    }
    return out


def dumps_scenario(scenario: Scenario, indent: int | None = 2) -> str:
    """The scenario as JSON text (UTF-8 safe: ASCII-escaped when a string holds a lone surrogate)."""
    obj = dump_scenario(scenario)
    text = json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, indent=indent, ensure_ascii=True, allow_nan=False)
    return text + "\n"


def save_scenario(scenario: Scenario, path: str | os.PathLike[str]) -> None:
    """Write ``dumps_scenario(scenario)`` to ``path``."""
    Path(path).write_text(dumps_scenario(scenario), encoding="utf-8")
