"""Structural validation of the store (SPEC section 2) and its derived views (sections 2 and 13)."""

from __future__ import annotations

import math

import pytest

from reference.model import (
    Budget,
    Config,
    InvalidConfigError,
    InvalidStoreError,
    Message,
    Store,
    Summary,
    Text,
    Work,
)

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


# ----------------------------------------------------------------------------- structural errors


def test_valid_tree_is_accepted(tree):
    assert len(tree.summaries) == 4


def test_invalid_store_error_is_a_value_error():
    assert issubclass(InvalidStoreError, ValueError)


def test_duplicate_message_id(messages):
    refused("duplicate message id 'm2'", messages=(*messages, messages[1]))


def test_duplicate_summary_id(messages):
    refused("duplicate summary id 'L1-0'", messages=messages, summaries=(l1("L1-0", ("m1",)), l1("L1-0", ("m2",))))


def test_source_id_naming_no_message(messages):
    refused("'L1-0'.*'zz' names no message", messages=messages, summaries=(l1("L1-0", ("m1", "zz")),))


def test_source_id_naming_no_summary_of_the_source_level(messages):
    summaries = (l1("L1-0", ("m1",), parent="L2-0"), merge("L2-0", 2, ("L1-0", "L1-9"), ("m1", "m1")))
    refused("'L2-0'.*'L1-9' names no L1 summary", messages=messages, summaries=summaries)


def test_source_of_the_wrong_level(messages):
    summaries = (l1("L1-0", ("m1",)), merge("L3-0", 3, ("L1-0",), ("m1", "m1")))
    refused("'L1-0' names no L2 summary", messages=messages, summaries=summaries)


def test_cycle_through_source_ids(messages):
    # Two level-1 summaries whose sources are each other (source_level 1 names L1 summaries).
    a = Summary(
        id="L1-a",
        level=1,
        content="a",
        tokens=1,
        source_level=1,
        source_ids=("L1-b",),
        source_range=("m1", "m1"),
        parent_id=None,
    )
    b = Summary(
        id="L1-b",
        level=1,
        content="b",
        tokens=1,
        source_level=1,
        source_ids=("L1-a",),
        source_range=("m1", "m1"),
        parent_id=None,
    )
    refused("cycle through source_ids", messages=messages, summaries=(a, b))


def test_self_cycle_through_source_ids(messages):
    a = Summary(
        id="L1-a", level=1, content="a", tokens=1, source_level=1, source_ids=("L1-a",), source_range=("m1", "m1")
    )
    refused("'L1-a': cycle through source_ids", messages=messages, summaries=(a,))


def test_parent_cycle(messages):
    summaries = (l1("L1-0", ("m1",), parent="L1-1"), l1("L1-1", ("m2",), parent="L1-0"))
    refused("cycle through parent_id", messages=messages, summaries=summaries)


def test_parent_naming_nothing(messages):
    refused("parent_id 'L9-9' names no summary", messages=messages, summaries=(l1("L1-0", ("m1",), "L9-9"),))


@pytest.mark.parametrize("level", [0, -1, 1.0, True, "1"])
def test_bad_level(messages, level):
    s = Summary(
        id="L1-0", level=level, content="x", tokens=1, source_level=0, source_ids=("m1",), source_range=("m1", "m1")
    )
    refused("'L1-0': level must be an integer >= 1", messages=messages, summaries=(s,))


@pytest.mark.parametrize("rng", [("m1", "m3"), ("m2", "m1"), ("m1",), ("m1", "m2", "m2")])
def test_wrong_source_range(messages, rng):
    s = Summary(id="L1-0", level=1, content="x", tokens=1, source_level=0, source_ids=("m1", "m2"), source_range=rng)
    refused("'L1-0': source_range", messages=messages, summaries=(s,))


def test_source_range_follows_store_order_not_source_order(messages):
    s = Summary(
        id="L1-0", level=1, content="x", tokens=1, source_level=0, source_ids=("m3", "m1"), source_range=("m1", "m3")
    )
    assert Store(messages=messages, summaries=(s,)).leaves("L1-0") == {"m1", "m3"}


def test_message_leaf_of_two_unmerged_summaries(messages):
    summaries = (l1("L1-0", ("m1", "m2")), l1("L1-1", ("m2", "m3")))
    refused("'m2' is a leaf of two unmerged summaries, 'L1-0' and 'L1-1'", messages=messages, summaries=summaries)


def test_shared_leaf_through_a_merge_is_still_refused(messages):
    summaries = (
        l1("L1-0", ("m1", "m2"), parent="L2-0"),
        merge("L2-0", 2, ("L1-0",), ("m1", "m2")),
        l1("L1-1", ("m2", "m3")),
    )
    refused("'m2' is a leaf of two unmerged summaries", messages=messages, summaries=summaries)


@pytest.mark.parametrize("epoch", [2, -1, True, math.nan, "1"])
def test_bad_pricing_epoch(messages, epoch):
    refused("pricing_epoch must be 0 or 1", messages=messages, pricing_epoch=epoch)


def test_queued_work_must_record_its_folds(messages):
    refused(
        r"work\[0\]: queued work must record what it folds",
        messages=messages,
        work=(Work(kind="chunk", state="queued", folds=None),),
    )


def test_running_work_may_record_nothing(messages):
    s = Store(messages=messages, work=(Work(kind="merge", state="running", folds=None),))
    assert s.folds_any(frozenset({"m1"}))


def test_chunk_folding_an_unknown_message(messages):
    refused(
        "folds 'zz', which names no message",
        messages=messages,
        work=(Work(kind="chunk", state="queued", folds=frozenset({"m1", "zz"})),),
    )


def test_merge_folding_a_message_id(messages):
    refused(
        "folds 'm1', which names no summary",
        messages=messages,
        work=(Work(kind="merge", state="queued", folds=frozenset({"m1"})),),
    )


@pytest.mark.parametrize(("kind", "state"), [("split", "queued"), ("chunk", "done")])
def test_bad_work_kind_or_state(messages, kind, state):
    refused("work\\[0\\]", messages=messages, work=(Work(kind=kind, state=state, folds=frozenset()),))


def test_empty_source_ids(messages):
    s = Summary(id="L1-0", level=1, content="x", tokens=1, source_level=0, source_ids=(), source_range=("", ""))
    refused("'L1-0': source_ids is empty", messages=messages, summaries=(s,))


# ----------------------------------------------------------------------------- helpers


def test_leaves_expand_through_levels(tree):
    assert tree.leaves("L2-0") == {"m1", "m2", "m3", "m4"}
    assert tree.leaves("L1-1") == {"m3", "m4"}


def test_unmerged_in_creation_order(tree):
    assert [s.id for s in tree.unmerged()] == ["L2-0", "L1-2"]


def test_claimers_map_messages_to_their_live_summary(tree):
    claim = tree.claimers()
    assert {m: s.id for m, s in claim.items()} == {"m1": "L2-0", "m2": "L2-0", "m3": "L2-0", "m4": "L2-0", "m5": "L1-2"}


def test_summary_without_content_claims_nothing(messages):
    s = Store(messages=messages, summaries=(l1("L1-0", ("m1",), content=""), l1("L1-1", ("m2",))))
    assert set(s.claimers()) == {"m2"}


def test_folds_any(tree):
    chunk = Work(kind="chunk", state="queued", folds=frozenset({"m6"}))
    merge_work = Work(kind="merge", state="running", folds=frozenset({"L1-2"}))
    s = Store(messages=tree.messages, summaries=tree.summaries, work=(chunk, merge_work))
    assert s.folds_any(None)
    assert s.folds_any(frozenset({"m6"}))
    assert s.folds_any(frozenset({"m5"}))  # through the merge's leaves
    assert not s.folds_any(frozenset({"m1", "m2"}))
    assert not tree.folds_any(None)
    assert not tree.folds_any(frozenset({"m1"}))


def test_empty_folds_fold_nothing(tree):
    s = Store(
        messages=tree.messages, summaries=tree.summaries, work=(Work(kind="chunk", state="queued", folds=frozenset()),)
    )
    assert s.folds_any(None)
    assert not s.folds_any(frozenset(IDS))


def test_index_and_has_message(tree):
    assert tree.index("m3") == 2
    assert tree.has_message("m6") and not tree.has_message("L1-0")


def test_tokens_none_reads_as_nan():
    s = Summary(
        id="L1-0", level=1, content="x", tokens=None, source_level=0, source_ids=["m1"], source_range=["m1", "m1"]
    )
    assert math.isnan(s.tokens)
    assert s.source_ids == ("m1",) and s.source_range == ("m1", "m1")


# ----------------------------------------------------------------------------- config and budget


def test_budget_input_budget():
    assert Budget(max_tokens=1000, reserve_for_response=200).input_budget == 800


def test_budget_refuses_non_numbers():
    with pytest.raises(InvalidConfigError, match="max_tokens") as info:
        Budget(max_tokens="lots")
    assert info.value.field == "max_tokens"


@pytest.mark.parametrize(
    ("cap", "on"),
    [(None, None), (0, None), (-5, None), (math.nan, None), (-math.inf, None), (math.inf, math.inf), (100, 100)],
)
def test_cap_is_on_only_above_zero(cap, on):
    assert Config(max_message_tokens=cap).cap == on


@pytest.mark.parametrize(
    ("field", "value"),
    [("recall_envelope", "json"), ("carrier_policy", "strip"), ("enforce_budget", 1), ("head_window_tokens", "0")],
)
def test_config_refuses_bad_values(field, value):
    with pytest.raises(InvalidConfigError) as info:
        Config(**{field: value})
    assert info.value.field == field
