"""Structural validation of the store (docs/model.md, The data): unique ids, the summary tree (levels,
sources, source ranges, parents) and the queued work, each refusal naming its culprit."""

from __future__ import annotations

import math

import pytest
from model_helpers import _summary, l1, merge, refused
from model_helpers import messages as messages  # a fixture
from model_helpers import tree as tree  # a fixture

from reference.model import InvalidStoreError, Message, Store, Summary, Text, Work

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


def test_cycle_through_source_ids_is_refused_by_the_levels(messages):
    # Two level-1 summaries whose sources are each other: an L1 summarizing L1s, refused by its level
    # (a summary's sources are one level below it, so no cycle through source_ids can be built).
    a = _summary(id="L1-a", content="a", source_level=1, source_ids=("L1-b",), parent_id=None)
    b = _summary(id="L1-b", content="b", source_level=1, source_ids=("L1-a",), parent_id=None)
    refused("'L1-a': level 1 must be one above its source_level 1", messages=messages, summaries=(a, b))


def test_self_cycle_through_source_ids(messages):
    a = _summary(id="L1-a", content="a", source_level=1, source_ids=("L1-a",))
    refused("'L1-a': level 1 must be one above its source_level 1", messages=messages, summaries=(a,))


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


# ----------------------------------------------------------------------------- diagnosable store errors


def test_source_range_error_names_the_true_first_and_last_leaf(messages):
    """With three leaves, the message gives (first, last) in store order, not a middle leaf."""
    s = _summary(source_ids=("m1", "m2", "m3"), source_range=("m1", "m2"))
    refused(
        r"'L1-0': source_range \('m1', 'm2'\) is not its first and last leaf \('m1', 'm3'\)",
        messages=messages,
        summaries=(s,),
    )


@pytest.fixture
def unsorted_messages() -> tuple[Message, ...]:
    """Message ids whose store order is the reverse of their string order."""
    return tuple(Message(id=i, participant="User", content=(Text(i),)) for i in ("m9", "m5", "m1"))


def test_source_range_uses_store_order_even_against_string_order(unsorted_messages):
    """``source_range`` is (first, last) leaf in store order (docs/model.md, The data): m9 comes before m1 here."""
    s = _summary(source_ids=("m1", "m9"), source_range=("m9", "m1"))
    st = Store(messages=unsorted_messages, summaries=(s,))
    assert st.leaves("L1-0") == {"m1", "m9"}


def test_source_range_in_string_order_is_refused_when_store_order_differs(unsorted_messages):
    """The lexically sorted pair is not the store-order range, so it is refused."""
    s = _summary(source_ids=("m1", "m9"), source_range=("m1", "m9"))
    refused(r"is not its first and last leaf \('m9', 'm1'\)", messages=unsorted_messages, summaries=(s,))


def test_parent_chain_running_into_a_cycle_is_refused(messages):
    """A summary whose parent chain enters a cycle it is not part of is refused (a loop here is a campaign timeout)."""
    summaries = (
        l1("L1-0", ("m1",), parent="L1-1"),
        l1("L1-1", ("m2",), parent="L1-2"),
        l1("L1-2", ("m3",), parent="L1-1"),
    )
    refused("summary 'L1-0': cycle through parent_id", messages=messages, summaries=summaries)


# ----------------------------------------------------------------------------- shapes refused as structural errors


def test_work_folds_given_as_a_list_is_kept_as_a_frozenset(messages):
    """A list of folded ids is read as the set it names, so the store can ask what the work folds."""
    work = Work(kind="chunk", state="queued", folds=["m2", "m1"])  # type: ignore[arg-type]
    assert work.folds == frozenset({"m1", "m2"}) and isinstance(work.folds, frozenset)
    store = Store(messages=messages, work=(work,))
    assert store.folds_any(frozenset({"m2"})) and not store.folds_any(frozenset({"m3"}))


@pytest.mark.parametrize(("folds", "got"), [("m1", "a string"), (5, "5")])
def test_work_folds_that_are_not_a_set_of_ids_are_a_structural_error(folds, got):
    """A string would be read letter by letter and a number cannot be iterated: both are refused up front."""
    with pytest.raises(InvalidStoreError, match=rf"^work: folds must be a set of ids or None, got {got}$"):
        Work(kind="chunk", state="queued", folds=folds)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- each refusal's exact words


def test_a_non_summary_in_summaries_is_refused(messages):
    refused(r"^summaries: not a Summary: 'L1-0'$", messages=messages, summaries=("L1-0",))


def test_a_bad_parent_id_is_refused_naming_summary_and_value(messages):
    refused(
        r"^summary 'L1-0': parent_id must be a string or None, got 5$",
        messages=messages,
        summaries=(_summary(parent_id=5),),
    )


@pytest.mark.parametrize(
    ("level", "source_level", "what"),
    [
        (1, 1, "an L1 summarizes messages"),
        (2, 0, "an L2 summarizes L1 summaries"),
        (3, 0, "an L3 summarizes L2 summaries"),
    ],
)
def test_a_level_not_one_above_its_source_level_says_what_it_summarizes(messages, level, source_level, what):
    s = _summary(level=level, source_level=source_level)
    refused(
        rf"^summary 'L1-0': level {level} must be one above its source_level {source_level} \({what}\)$",
        messages=messages,
        summaries=(s,),
    )


def test_a_parent_cycle_is_shown_link_by_link(messages):
    summaries = (
        l1("L1-0", ("m1",), parent="L1-1"),
        l1("L1-1", ("m2",), parent="L1-2"),
        l1("L1-2", ("m3",), parent="L1-1"),
    )
    refused(
        r"^summary 'L1-0': cycle through parent_id \('L1-0' -> 'L1-1' -> 'L1-2' -> 'L1-1'\)$",
        messages=messages,
        summaries=summaries,
    )


def test_a_parent_chain_without_a_cycle_is_accepted(tree):
    assert tree.summary("L1-0").parent_id == "L2-0"


def test_a_summary_that_is_its_own_parent_is_refused(messages):
    refused(r"^summary 'L1-0': parent_id is its own id$", messages=messages, summaries=(_summary(parent_id="L1-0"),))
