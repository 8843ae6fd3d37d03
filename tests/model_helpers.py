"""Shared pieces of the model's tests (tests/test_model*.py): six prose messages, a small summary tree over
them, summary builders and the refusal check. A test module takes a fixture by importing it under its own name."""

from __future__ import annotations

import pytest

from reference.model import InvalidStoreError, Message, Store, Summary, Text

IDS = ("m1", "m2", "m3", "m4", "m5", "m6")


@pytest.fixture
def messages() -> tuple[Message, ...]:
    return tuple(Message(id=i, participant="User", content=(Text(f"message {i}"),)) for i in IDS)


def l1(sid: str, ids: tuple[str, ...], parent: str | None = None, content: str = "summary") -> Summary:
    return Summary(
        id=sid,
        level=1,
        content=content,
        tokens=10,
        source_level=0,
        source_ids=ids,
        source_range=(ids[0], ids[-1]),
        parent_id=parent,
    )


def merge(sid: str, level: int, sources: tuple[str, ...], rng: tuple[str, str], parent=None) -> Summary:
    return Summary(
        id=sid,
        level=level,
        content="merged",
        tokens=10,
        source_level=level - 1,
        source_ids=sources,
        source_range=rng,
        parent_id=parent,
    )


@pytest.fixture
def tree(messages) -> Store:
    """L1-0 (m1, m2) and L1-1 (m3, m4) merged into L2-0; L1-2 (m5) unmerged; m6 unsummarized."""
    return Store(
        messages=messages,
        summaries=(
            l1("L1-0", ("m1", "m2"), parent="L2-0"),
            l1("L1-1", ("m3", "m4"), parent="L2-0"),
            merge("L2-0", 2, ("L1-0", "L1-1"), ("m1", "m4")),
            l1("L1-2", ("m5",)),
        ),
    )


def refused(match: str, **kwargs) -> None:
    with pytest.raises(InvalidStoreError, match=match):
        Store(**kwargs)


def _summary(**overrides: object) -> Summary:
    """An L1 over m1 whose fields the caller overrides one at a time."""
    fields: dict[str, object] = {
        "id": "L1-0",
        "level": 1,
        "content": "x",
        "tokens": 1,
        "source_level": 0,
        "source_ids": ("m1",),
        "source_range": ("m1", "m1"),
    }
    fields.update(overrides)
    return Summary(**fields)
