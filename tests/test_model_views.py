"""What a valid store derives and keeps (docs/model.md, The data): leaves, unmerged summaries, claimers,
what work folds, its sequences as tuples, its calibration and text estimator, and ``with_calibration``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from model_helpers import IDS, l1, refused
from model_helpers import messages as messages  # a fixture
from model_helpers import tree as tree  # a fixture

from invariants.generators import stores
from reference.model import Store, Work
from reference.numerics import js_blank
from strategies.clearing import compression_work_queued
from strategies.defects import Defects

# ----------------------------------------------------------------------------- derived views


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


def test_what_is_derived_from_a_store_is_computed_once_per_key_and_kept_apart_by_key(tree):
    """``Store.derived`` (the message prices, a judge's companion store): the first caller computes, later callers
    of the same key read, another key is computed on its own; a copy with another calibration starts empty."""
    calls: list[str] = []

    def computed(name: str):
        return lambda: calls.append(name) or len(calls)

    assert tree.derived.value("a", computed("a")) == 1
    assert tree.derived.value("a", computed("again")) == 1
    assert tree.derived.value(("a",), computed("b")) == 2
    assert tree.with_calibration(2).derived.value("a", computed("c")) == 3
    assert calls == ["a", "b", "c"]


# ----------------------------------------------------------------------------- normalised fields


def test_store_sequences_are_stored_as_tuples(messages):
    """Lists passed to the store are kept as tuples, so a store is immutable and hashable."""
    s = Store(
        messages=list(messages),
        summaries=[l1("L1-0", ("m1",))],
        work=[Work(kind="chunk", state="queued", folds=frozenset({"m2"}))],
    )
    assert isinstance(s.messages, tuple) and s.messages == messages
    assert isinstance(s.summaries, tuple) and [x.id for x in s.summaries] == ["L1-0"]
    assert isinstance(s.work, tuple) and len(s.work) == 1
    assert hash(s) == hash(Store(messages=messages, summaries=tuple(s.summaries), work=tuple(s.work)))


# ----------------------------------------------------------------------------- calibration and the text estimator


def test_a_calibration_past_the_largest_double_reads_as_infinity_and_falls_back_to_1(messages):
    """JSON.parse reads 10**400 as Infinity, not a valid calibration: the store keeps 1.0."""
    assert Store(messages=messages, calibration=10**400).calibration == 1.0
    assert Store(messages=messages, calibration=2).calibration == 2


def test_a_non_callable_text_estimator_is_refused(messages):
    """A custom estimator must be callable (docs/model.md, The data); the error names the field."""
    refused(r"^text_estimator must be callable or None, got 5$", messages=messages, text_estimator=5)


def test_a_text_estimator_taking_one_argument_is_accepted(messages):
    assert Store(messages=messages, text_estimator=len).text_estimator is len


def test_a_text_estimator_taking_two_arguments_is_refused_showing_its_signature(messages):
    def two(a, b):
        return 0

    refused(
        r"^text_estimator must take one argument \(the text\), got <function .*two at 0x[0-9a-f]+> "
        r"taking \(a, b\)$",
        messages=messages,
        text_estimator=two,
    )


# ----------------------------------------------------------------------------- with_calibration keeps everything


def test_with_calibration_keeps_every_other_field(tree):
    """A recalibrated store is the same store in every field but the calibration (docs/model.md, The estimator)."""

    def estimator(text: str) -> int:
        return len(text)

    work = (Work(kind="chunk", state="queued", folds=frozenset({"m6"})),)
    s = Store(
        messages=tree.messages,
        summaries=tree.summaries,
        calibration=1.5,
        pricing_epoch=0,
        text_estimator=estimator,
        work=work,
    )
    s2 = s.with_calibration(2.0)
    assert s2.calibration == 2.0
    assert s2.messages == s.messages
    assert s2.summaries == s.summaries
    assert s2.pricing_epoch == 0
    assert s2.text_estimator is estimator
    assert s2.work == work
    assert s2.folds_any(frozenset({"m6"}))
    assert s2.leaves("L2-0") == tree.leaves("L2-0")


@given(stores(), st.data())
def test_the_store_and_the_compile_find_compression_work_alike(store, data):
    """Whether work folds any message of a set (or any at all): the reference's reading and the compile's
    ``cleared_by`` agree on every drawn store and set."""
    ids = [m.id for m in store.messages]
    leaf_sets = [store.leaves(s.id) for s in store.summaries]  # what merge work reaches through its summaries
    within = data.draw(
        st.none()
        | (st.frozensets(st.sampled_from(ids)) if ids else st.just(frozenset()))
        | (st.sampled_from(leaf_sets) if leaf_sets else st.just(frozenset()))
    )
    assert store.folds_any(within) == compression_work_queued(store, within, Defects())


@given(stores())
def test_only_an_unmerged_summary_with_content_claims_its_leaves(store):
    """A message is claimed by the unmerged summary, not blank to JavaScript's trim, whose leaves hold it, and by no
    other summary."""
    claimers = store.claimers()
    for s in store.summaries:
        for m in store.leaves(s.id):
            if s.parent_id is None and not js_blank(s.content):
                assert claimers[m] is s
            elif m in claimers:
                assert claimers[m] is not s
