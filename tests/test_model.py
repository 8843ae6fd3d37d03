"""Structural validation of the store and its derived views (docs/model.md, The data)."""

from __future__ import annotations

import math

import pytest

from reference.model import (
    MAX_NESTING,
    Budget,
    Config,
    InvalidConfigError,
    InvalidStoreError,
    Message,
    RedactedThinking,
    Store,
    Summary,
    Text,
    ToolResult,
    ToolUse,
    Work,
    json_depth,
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


def test_cycle_through_source_ids_is_refused_by_the_levels(messages):
    # Two level-1 summaries whose sources are each other: an L1 summarizing L1s, refused by its level
    # (a summary's sources are one level below it, so no cycle through source_ids can be built).
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
    refused("'L1-a': level 1 must be one above its source_level 1", messages=messages, summaries=(a, b))


def test_self_cycle_through_source_ids(messages):
    a = Summary(
        id="L1-a", level=1, content="a", tokens=1, source_level=1, source_ids=("L1-a",), source_range=("m1", "m1")
    )
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


# ----------------------------------------------------------------------------- diagnosable store errors


def _summary(**overrides: object) -> Summary:
    """An L1 over m1 whose fields the caller overrides one at a time."""
    fields: dict[str, object] = {
        "id": "L1-0", "level": 1, "content": "x", "tokens": 1, "source_level": 0,
        "source_ids": ("m1",), "source_range": ("m1", "m1"),
    }
    fields.update(overrides)
    return Summary(**fields)


def test_source_ids_given_as_a_string_is_refused_by_name():
    """A bare string is not a sequence of ids (it would iterate as characters); the error names the summary."""
    with pytest.raises(InvalidStoreError, match="summary 'L1-0': source_ids must be a sequence of ids, not a string"):
        _summary(source_ids="m1")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"source_level": -1}, "'L1-0': source_level must be an integer >= 0, got -1"),
        ({"source_level": True}, "'L1-0': source_level must be an integer >= 0, got True"),
        ({"source_level": 1.0}, "'L1-0': source_level must be an integer >= 0, got 1.0"),
        ({"source_level": "0"}, "'L1-0': source_level must be an integer >= 0, got '0'"),
        ({"content": 5}, "'L1-0': content must be a string"),
        ({"tokens": "10"}, "'L1-0': tokens must be a number or None, got '10'"),
        ({"tokens": True}, "'L1-0': tokens must be a number or None, got True"),
        ({"response_content": (Text("ok"), Message("m9", "User", ()))},
         r"'L1-0': response_content\[1\] must be Thinking, RedactedThinking or Text"),
    ],
)
def test_bad_summary_fields_are_refused_naming_summary_and_field(messages, overrides, message):
    """Each malformed summary field is refused (The data) with a message naming the summary, the field and the value."""
    refused(message, messages=messages, summaries=(_summary(**overrides),))


def test_message_content_must_be_a_tuple_naming_the_message_and_the_type():
    """A message whose content is a list is refused with the message id and the type it got."""
    bad = Message(id="m1", participant="User", content=[Text("a")])
    refused("message 'm1': content must be a tuple of blocks, got list", messages=(bad,))


def test_a_non_block_in_content_is_refused_with_its_position():
    """The error points at the offending block by message id and index, and shows it."""
    bad = Message(id="m1", participant="User", content=(Text("a"), "oops"))
    refused(r"message 'm1'\.content\[1\]: not a block: 'oops'", messages=(bad,))


def test_a_non_block_nested_in_a_tool_result_is_refused_with_its_path():
    """Nested tool-result content is checked too; the path runs through the outer block's index."""
    bad = Message(id="m1", participant="User", content=(Text("a"), ToolResult("t1", (Text("b"), 42))))
    refused(r"message 'm1'\.content\[1\]\.content\[1\]: not a block: 42", messages=(bad,))


def test_a_non_message_in_messages_is_refused_with_its_index(messages):
    """Only Message objects may be messages; the error gives the position."""
    refused(r"messages\[2\]: not a Message", messages=(*messages[:2], "m3"))


def test_a_non_callable_text_estimator_is_refused(messages):
    """A custom estimator must be callable (docs/model.md, The data); the error names the field."""
    refused(r"^text_estimator must be callable or None, got 5$", messages=messages, text_estimator=5)


def test_source_range_error_names_the_true_first_and_last_leaf(messages):
    """With three leaves, the message gives (first, last) in store order, not a middle leaf."""
    s = _summary(source_ids=("m1", "m2", "m3"), source_range=("m1", "m2"))
    refused(r"'L1-0': source_range \('m1', 'm2'\) is not its first and last leaf \('m1', 'm3'\)",
            messages=messages, summaries=(s,))


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
    summaries = (l1("L1-0", ("m1",), parent="L1-1"), l1("L1-1", ("m2",), parent="L1-2"),
                 l1("L1-2", ("m3",), parent="L1-1"))
    refused("summary 'L1-0': cycle through parent_id", messages=messages, summaries=summaries)


# ----------------------------------------------------------------------------- normalised fields


def test_store_sequences_are_stored_as_tuples(messages):
    """Lists passed to the store are kept as tuples, so a store is immutable and hashable."""
    s = Store(messages=list(messages), summaries=[l1("L1-0", ("m1",))],
              work=[Work(kind="chunk", state="queued", folds=frozenset({"m2"}))])
    assert isinstance(s.messages, tuple) and s.messages == messages
    assert isinstance(s.summaries, tuple) and [x.id for x in s.summaries] == ["L1-0"]
    assert isinstance(s.work, tuple) and len(s.work) == 1
    assert hash(s) == hash(Store(messages=messages, summaries=tuple(s.summaries), work=tuple(s.work)))


def test_summary_response_content_is_stored_as_a_tuple():
    """Carriers passed as a list are kept as a tuple (a frozen summary holds no mutable list)."""
    s = _summary(response_content=[Text("a"), Text("b")])
    assert s.response_content == (Text("a"), Text("b"))
    assert isinstance(s.response_content, tuple)


# ----------------------------------------------------------------------------- with_calibration keeps everything


def test_with_calibration_keeps_every_other_field(tree):
    """A recalibrated store is the same store in every field but the calibration (docs/model.md, The estimator)."""

    def estimator(text: str) -> int:
        return len(text)

    work = (Work(kind="chunk", state="queued", folds=frozenset({"m6"})),)
    s = Store(messages=tree.messages, summaries=tree.summaries, calibration=1.5, pricing_epoch=0,
              text_estimator=estimator, work=work)
    s2 = s.with_calibration(2.0)
    assert s2.calibration == 2.0
    assert s2.messages == s.messages
    assert s2.summaries == s.summaries
    assert s2.pricing_epoch == 0
    assert s2.text_estimator is estimator
    assert s2.work == work
    assert s2.folds_any(frozenset({"m6"}))
    assert s2.leaves("L2-0") == tree.leaves("L2-0")


# ----------------------------------------------------------------------------- config and budget messages


def test_budget_error_message_names_the_bad_value():
    """The message says what was expected and what came: ``field: must be a number, got 'lots'``."""
    with pytest.raises(InvalidConfigError, match=r"^reserve_for_response: must be a number, got 'lots'$") as info:
        Budget(max_tokens=10, reserve_for_response="lots")
    assert info.value.field == "reserve_for_response"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("l2_budget_tokens", None, "must be a number, got None"),
        ("max_message_tokens", "100", "must be a number or None, got '100'"),
        ("max_message_tokens", True, "must be a number or None, got True"),
        ("positioned_recall_pairs", "yes", "must be a bool, got 'yes'"),
        ("recall_envelope", "json", "must be 'none' or 'xml', got 'json'"),
        ("carrier_policy", "strip", "must be 'full' or 'live-strip', got 'strip'"),
        ("summary_context_label", 5, "must be a string, got 5"),
        ("recall_header_template", None, "must be a string, got None"),
        ("summary_participant", b"Claude", "must be a string, got b'Claude'"),
    ],
)
def test_config_errors_name_field_and_value(field, value, message):
    """Each bad config value is refused with ``field`` set and a message ``field: expectation, got value``."""
    with pytest.raises(InvalidConfigError) as info:
        Config(**{field: value})
    assert info.value.field == field
    assert str(info.value) == f"{field}: {message}"


@pytest.mark.parametrize(
    ("field", "value"),
    [("carrier_policy", "live-strip"), ("carrier_policy", "full"), ("recall_envelope", "xml"),
     ("recall_envelope", "none"), ("max_message_tokens", None), ("max_message_tokens", 2.5)],
)
def test_config_accepts_every_documented_value(field, value):
    """Every value docs/model.md, Config and budget, lists is accepted and kept."""
    assert getattr(Config(**{field: value}), field) == value


# ----------------------------------------------------------------------------- shapes refused as structural errors


@pytest.mark.parametrize("field", ["source_ids", "source_range"])
@pytest.mark.parametrize("value", [None, 5])
def test_a_summary_id_list_that_is_not_a_sequence_is_a_structural_error(field, value):
    """The data (docs/model.md): every structural error is an InvalidStoreError naming the culprit, not a TypeError."""
    fields = {"source_ids": ("m1",), "source_range": ("m1", "m1"), field: value}
    with pytest.raises(InvalidStoreError, match=rf"^summary 'L1-0': {field} must be a sequence of ids, got {value}$"):
        Summary(id="L1-0", level=1, content="s", tokens=10, source_level=0, **fields)


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


@pytest.mark.parametrize(("make", "message"), [
    (lambda: RedactedThinking(5), "RedactedThinking.data must be a string or None, got 5"),
    (lambda: ToolResult(5, "x"), "ToolResult.tool_use_id must be a string, got 5"),
    (lambda: ToolUse("t1", 5, {}), "ToolUse.name must be a string, got 5"),
    (lambda: Message("m1", 5, ()), "message 'm1': participant must be a string, got 5"),
])
def test_a_bad_block_or_message_field_is_refused_naming_it(make, message):
    with pytest.raises(InvalidStoreError) as info:
        make()
    assert str(info.value) == message


def test_redacted_thinking_data_may_be_none():
    assert RedactedThinking(None).data is None


def test_a_non_summary_in_summaries_is_refused(messages):
    refused(r"^summaries: not a Summary: 'L1-0'$", messages=messages, summaries=("L1-0",))


def test_a_bad_parent_id_is_refused_naming_summary_and_value(messages):
    refused(r"^summary 'L1-0': parent_id must be a string or None, got 5$", messages=messages,
            summaries=(_summary(parent_id=5),))


@pytest.mark.parametrize(("level", "source_level", "what"), [
    (1, 1, "an L1 summarizes messages"),
    (2, 0, "an L2 summarizes L1 summaries"),
    (3, 0, "an L3 summarizes L2 summaries"),
])
def test_a_level_not_one_above_its_source_level_says_what_it_summarizes(messages, level, source_level, what):
    s = _summary(level=level, source_level=source_level)
    refused(rf"^summary 'L1-0': level {level} must be one above its source_level {source_level} \({what}\)$",
            messages=messages, summaries=(s,))


def test_a_parent_cycle_is_shown_link_by_link(messages):
    summaries = (l1("L1-0", ("m1",), parent="L1-1"), l1("L1-1", ("m2",), parent="L1-2"),
                 l1("L1-2", ("m3",), parent="L1-1"))
    refused(r"^summary 'L1-0': cycle through parent_id \('L1-0' -> 'L1-1' -> 'L1-2' -> 'L1-1'\)$",
            messages=messages, summaries=summaries)


def test_a_parent_chain_without_a_cycle_is_accepted(tree):
    assert tree.summary("L1-0").parent_id == "L2-0"


def nest(depth: int) -> object:
    """A JSON list nested ``depth`` deep around a scalar."""
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(("value", "depth"), [
    (5, 0), ("s", 0), ([], 1), ({}, 1), ([1, 2], 1), ({"a": 1}, 1), ([[[1]], 2], 3), ([2, [[1]]], 3),
    ({"a": {"b": []}}, 3), ({"a": 1, "b": [[]]}, 3), (nest(256), 256),
])
def test_json_depth_counts_the_deepest_list_or_dict(value, depth):
    assert json_depth(value) == depth


def test_json_depth_of_a_value_past_the_limit_is_past_the_limit():
    assert json_depth(nest(300)) > MAX_NESTING


def test_a_tool_use_input_at_the_nesting_limit_is_accepted_and_one_deeper_refused():
    """The message's content is depth 1, so an input 255 deep reaches 256, the limit; 256 deep is over it."""
    Store(messages=(Message("m1", "User", (ToolUse("t1", "f", nest(MAX_NESTING - 1)),)),))
    refused(r"^message 'm1': content nested deeper than 256 levels \(the input of tool use 't1'\)$",
            messages=(Message("m1", "User", (ToolUse("t1", "f", nest(MAX_NESTING)),)),))


def test_a_calibration_past_the_largest_double_reads_as_infinity_and_falls_back_to_1(messages):
    """JSON.parse reads 10**400 as Infinity, not a valid calibration: the store keeps 1.0."""
    assert Store(messages=messages, calibration=10**400).calibration == 1.0
    assert Store(messages=messages, calibration=2).calibration == 2


def test_a_text_estimator_taking_one_argument_is_accepted(messages):
    assert Store(messages=messages, text_estimator=len).text_estimator is len


@pytest.mark.parametrize(("field", "value", "message"), [
    ("max_live_images", "3", "must be a number, got '3'"),
    ("tool_use_input_max_tokens", None, "must be a number, got None"),
    ("tool_result_max_last_n", "x", "must be None, a number or a mapping tool name -> number, got 'x'"),
    ("tool_result_max_last_n", {"read": "2"}, "must be None, a number or a mapping tool name -> number, "
                                             "got {'read': '2'}"),
])
def test_tool_and_image_field_errors_name_field_and_value(field, value, message):
    with pytest.raises(InvalidConfigError) as info:
        Config(**{field: value})
    assert info.value.field == field
    assert str(info.value) == f"{field}: {message}"


def test_a_summary_that_is_its_own_parent_is_refused(messages):
    refused(r"^summary 'L1-0': parent_id is its own id$", messages=messages, summaries=(_summary(parent_id="L1-0"),))


def test_a_text_estimator_taking_two_arguments_is_refused_showing_its_signature(messages):
    def two(a, b):
        return 0

    refused(r"^text_estimator must take one argument \(the text\), got <function .*two at 0x[0-9a-f]+> "
            r"taking \(a, b\)$", messages=messages, text_estimator=two)
