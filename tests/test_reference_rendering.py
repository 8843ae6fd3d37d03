"""The reference rendering's rules on small hand-built inputs (docs/model.md, Recall answers and the envelope;
The reference rendering): the combined answers' shared cap, the open tag, the header, the layout's order and sites.

Each expected value is written out from those sections; summaries carry plain ASCII text so that the cap's
estimate is ``ceil(len / 4)``.
"""

from __future__ import annotations

import math

from hypothesis import example, given
from hypothesis import strategies as st

from reference.model import Config, Entry, Image, Message, Store, Summary, Text
from reference.rendering import (
    ASKER,
    CLOSE,
    SEPARATOR_TEXT,
    Selection,
    Switches,
    combined_pair,
    combined_sequence,
    layout,
    opening,
    planned_raw,
    positioned_pair,
    recall_header,
    render,
)

XML = {"recall_envelope": "xml", "positioned_recall_pairs": False}


def s1(sid: str, text: str, first: str = "m0", last: str = "m0", sources: tuple[str, ...] | None = None) -> Summary:
    """An L1 over ``first..last`` whose content is ``text``."""
    return Summary(sid, 1, text, 10, 0, sources or tuple(dict.fromkeys((first, last))), (first, last))


def marker(original: str) -> str:
    return f"\n\n[truncated — original was {math.ceil(len(original) / 4)} tokens]"


def wrapped(s: Summary, text: str) -> Text:
    return Text(opening(s) + "\n" + text + "\n" + CLOSE)


# ----------------------------------------------------------------------------- the xml combined answer


def test_xml_combined_first_whole_second_cut_to_remaining_less_its_separator_third_left_out() -> None:
    """Cap 10: the first (estimate 5) fits whole, leaving 5; the second is cut to 5 - 2 = 3 tokens (12 units)
    and takes more than is left, so the third is left out and not held."""
    a, b, c = s1("a", "a" * 20), s1("b", "b" * 20), s1("c", "c" * 20)
    question, answer = combined_pair([a, b, c], Config(max_message_tokens=10, **XML))
    assert question == Entry(ASKER, (Text("What do you remember from earlier?"),), "question")
    assert answer.content == (wrapped(a, "a" * 20), Text(SEPARATOR_TEXT), wrapped(b, "b" * 12 + marker("b" * 20)))
    assert answer.summary_ids == ("a", "b")
    assert answer.participant == "Claude"


def test_xml_combined_takes_each_summarys_estimate_and_separator_off_remaining() -> None:
    """Cap 20: a (5) leaves 15; b (5 + separator 2) leaves 8; c gets 8 - 2 = 6 tokens, 24 units."""
    a, b, c = s1("a", "a" * 20), s1("b", "b" * 20), s1("c", "c" * 40)
    _, answer = combined_pair([a, b, c], Config(max_message_tokens=20, **XML))
    assert answer.content == (
        wrapped(a, "a" * 20),
        Text(SEPARATOR_TEXT),
        wrapped(b, "b" * 20),
        Text(SEPARATOR_TEXT),
        wrapped(c, "c" * 24 + marker("c" * 40)),
    )
    assert answer.summary_ids == ("a", "b", "c")


def test_xml_combined_stops_when_remaining_less_the_separator_is_zero() -> None:
    """Cap 10: a (estimate 8) leaves 2, and 2 - 2 <= 0: b is left out."""
    a, b = s1("a", "a" * 32), s1("b", "b" * 4)
    _, answer = combined_pair([a, b], Config(max_message_tokens=10, **XML))
    assert answer.content == (wrapped(a, "a" * 32),)
    assert answer.summary_ids == ("a",)


def test_xml_combined_cuts_to_one_token_when_one_is_left_after_the_separator() -> None:
    """Cap 10: a (estimate 7) leaves 3; b is cut to 3 - 2 = 1 token, 4 units."""
    a, b = s1("a", "a" * 28), s1("b", "b" * 20)
    _, answer = combined_pair([a, b], Config(max_message_tokens=10, **XML))
    assert answer.content == (wrapped(a, "a" * 28), Text(SEPARATOR_TEXT), wrapped(b, "bbbb" + marker("b" * 20)))
    assert answer.summary_ids == ("a", "b")


def test_xml_combined_with_the_cap_off_sends_everything() -> None:
    a, b = s1("a", "a" * 100), s1("b", "b" * 100)
    _, answer = combined_pair([a, b], Config(max_message_tokens=0, **XML))
    assert answer.content == (wrapped(a, "a" * 100), Text(SEPARATOR_TEXT), wrapped(b, "b" * 100))
    assert answer.summary_ids == ("a", "b")


# ----------------------------------------------------------------------------- the flat combined answer


def test_flat_combined_joins_with_separators_and_caps_the_whole() -> None:
    """Under "none" the proses are joined by separator blocks and cut as one content: cap 5 is 20 units;
    a (15) fits, the separator is cut at 5 units, b is dropped and so not held."""
    a, b = s1("a", "a" * 15), s1("b", "b" * 20)
    _, answer = combined_pair([a, b], Config(max_message_tokens=5, positioned_recall_pairs=False))
    assert answer.content == (Text("a" * 15), Text(SEPARATOR_TEXT[:5] + marker(SEPARATOR_TEXT)))
    assert answer.summary_ids == ("a",)


def test_flat_combined_under_the_cap_is_every_prose_with_separators() -> None:
    a, b = s1("a", "a" * 15), s1("b", "b" * 20)
    _, answer = combined_pair([a, b], Config(positioned_recall_pairs=False))
    assert answer.content == (Text("a" * 15), Text(SEPARATOR_TEXT), Text("b" * 20))
    assert answer.summary_ids == ("a", "b")


# ----------------------------------------------------------------------------- the open tag and the header


def test_the_open_tag_has_a_span_only_when_both_ends_are_non_empty() -> None:
    assert opening(s1("a", "x", "m0", "m3")) == '<cm-recall id="a" level="1" span="m0..m3">'
    assert opening(s1("a", "x", "m0", "")) == '<cm-recall id="a" level="1">'
    assert opening(s1("a", "x", "", "m3")) == '<cm-recall id="a" level="1">'


@given(sid=st.text(max_size=3))
@example(sid="")
@example(sid="0")
def test_the_open_tag_names_an_id_exactly_when_there_is_one(sid: str) -> None:
    """Recall answers and the envelope: the open tag says `` id="ID"`` for a non-empty id and nothing for ``""``."""
    tag = opening(s1(sid, "x", "m0", "m3"))
    assert tag == (f'<cm-recall id="{sid}" ' if sid else "<cm-recall ") + 'level="1" span="m0..m3">'


def test_the_header_names_the_first_and_the_last_leaf() -> None:
    s = s1("L1-0", "x", "m0", "m3")
    config = Config(recall_header_template="[{id} L{level} {first}..{last}]")
    assert recall_header(s, config) == "[L1-0 L1 m0..m3]"
    assert recall_header(s, config, chained=True) == "[L1-0 L1 m0..m3]"


def test_a_positioned_pair_reads_the_chained_header_switch() -> None:
    """HEADER_REPLACE_CHAINED: an id ``{level}`` is scanned again by the later replace; in one pass it stays."""
    s = s1("{level}", "text")
    config = Config(recall_header_template="[{id}]")
    question, answer = positioned_pair(s, config, Switches(header_replace_chained=True))
    assert question == Entry(ASKER, (Text("[1]"),), "question")
    assert answer == Entry("Claude", (Text("text"),), "answer", summary_ids=("{level}",))
    assert positioned_pair(s, config)[0].content == (Text("[{level}]"),)


# ----------------------------------------------------------------------------- order and layout


def test_the_combined_order_is_by_first_leaf_not_last() -> None:
    """X (m0 and m3) stands before Y (m1..m2) though Y's last leaf comes first; the selection order aside."""
    x = s1("X", "x", "m0", "m3", ("m0", "m3"))
    y = s1("Y", "y", "m1", "m2")
    st = Store(tuple(Message(f"m{i}", "user", (Text("t"),)) for i in range(4)), (y, x))
    assert [s.id for s in combined_sequence(st, [y, x], Switches())] == ["X", "Y"]
    assert [s.id for s in combined_sequence(st, [y, x], Switches(combined_selection_order=True))] == ["Y", "X"]


def gap_store() -> Store:
    """m0..m4 at one token a unit (10 each); S over m0 and m2 (not m1), T over m3; both unmerged."""
    messages = tuple(Message(f"m{i}", "user", (Text(c * 10),)) for i, c in enumerate("abcde"))
    return Store(messages, (s1("S", "sss", "m0", "m2", ("m0", "m2")), s1("T", "ttt", "m3", "m3")), text_estimator=len)


def test_positioned_pairs_stand_at_their_first_leaf_before_a_raw_message_there() -> None:
    """Head m0, middle m1..m3, tail m4: S stands at m0 (its first leaf, not m2), before m1; a raw message at a
    pair's index comes after it; each item carries its site."""
    st = gap_store()
    config = Config(head_window_tokens=10, recent_window_tokens=10)
    items = layout(st, config, [0, 1, 3, 4], [st.summary("S"), st.summary("T")], (1, 4))
    assert [(it.site, it.raw, [s.id for s in it.held]) for it in items] == [
        ("head", ("m0",), []),
        ("positioned", (), ["S"]),
        ("positioned", ("m1",), []),
        ("positioned", (), ["T"]),
        ("positioned", ("m3",), []),
        ("tail", ("m4",), []),
    ]


def test_a_blank_selected_summary_sends_no_positioned_pair() -> None:
    st = Store(
        (Message("m0", "user", (Text("a"),)), Message("m1", "user", (Text("b"),))),
        (s1("B", " \n ", "m0", "m0"), s1("S", "sss", "m1", "m1")),
    )
    items = layout(st, Config(), [], [st.summary("B"), st.summary("S")], (0, 2))
    assert [[s.id for s in it.held] for it in items] == [["S"]]


def test_combined_layout_sites() -> None:
    """Combined: the head, the combined pair, the raw middle messages after it, the tail."""
    st = gap_store()
    config = Config(head_window_tokens=10, recent_window_tokens=10, positioned_recall_pairs=False)
    items = layout(st, config, [0, 1, 4], [st.summary("T")], (1, 4))
    assert [(it.site, it.raw, [s.id for s in it.held]) for it in items] == [
        ("head", ("m0",), []),
        ("combined-pair", (), ["T"]),
        ("raw-after-combined", ("m1",), []),
        ("tail", ("m4",), []),
    ]


def test_render_recomputes_the_windows_under_the_stamp_switch() -> None:
    """STAMPS_VERBATIM: m1's stamp -5 is read as given, so m0 and m1 are all head (m1 sent before S's pair);
    by the reference rule the image costs 1600, the head is m0 alone, and S's pair at m0 comes first."""
    messages = (Message("m0", "user", (Text("a" * 10),)), Message("m1", "user", (Image(token_estimate=-5),)))
    st = Store(messages, (s1("S", "sss", "m0", "m0"),), text_estimator=len)
    config = Config(head_window_tokens=100, recent_window_tokens=0)
    selection = Selection(frozenset({"m1"}), ("S",))
    kinds = [e.kind for e in render(st, config, selection)]
    assert kinds == ["question", "answer", "raw"]
    assert [e.kind for e in render(st, config, selection, Switches(verbatim_stamps=True))] == [
        "raw",
        "question",
        "answer",
    ]


def test_render_passes_the_header_switch_to_the_pairs() -> None:
    st = Store((Message("m0", "user", (Text("a"),)),), (s1("{level}", "sss", "m0", "m0"),))
    config = Config(recall_header_template="[{id}]")
    chained = render(st, config, Selection(frozenset(), ("{level}",)), Switches(header_replace_chained=True))
    assert chained[0].content == (Text("[1]"),)
    assert render(st, config, Selection(frozenset(), ("{level}",)))[0].content == (Text("[{level}]"),)


def test_render_strips_images_by_depth_under_the_stamp_switch() -> None:
    """STAMPS_VERBATIM also prices the image depth: with m0's stamp -5 read as given, m0 lies within 20 tokens of
    the newest and its image is sent; by the reference rule it costs 1600, is deep, and is sent as the placeholder."""
    messages = (Message("m0", "user", (Image(token_estimate=-5),)), Message("m1", "user", (Text("a" * 10),)))
    st = Store(messages, text_estimator=len)
    config = Config(image_strip_depth_tokens=20, recent_window_tokens=1000)
    selection = Selection(frozenset({"m0", "m1"}), ())
    assert render(st, config, selection, Switches(verbatim_stamps=True))[0].content == (Image(token_estimate=-5),)
    assert render(st, config, selection)[0].content == (Text("[image omitted]"),)


def test_the_plan_under_the_trim_is_what_was_sent_and_every_head_tail_and_unclaimed_middle_message() -> None:
    """Head m0, middle m1..m2, tail m3..m4; S claims m2 and m3. With TRIM_DROPS_TRAILING_TOOL_USE the plan the passes
    ran over holds every message sent (m2 here) and every head, tail (m3 too, though claimed) and unclaimed middle
    message (m1); without it, just those sent."""
    st = Store(tuple(Message(f"m{i}", "user", (Text("a"),)) for i in range(5)), (s1("S", "sss", "m2", "m3"),))
    selection = Selection(frozenset({"m2"}), ("S",))
    assert planned_raw(st, selection, (1, 3), Switches(trim_trailing_calls=True)) == {0, 1, 2, 3, 4}
    assert planned_raw(st, Selection(frozenset(), ("S",)), (1, 3), Switches(trim_trailing_calls=True)) == {0, 1, 3, 4}
    assert planned_raw(st, selection, (1, 3), Switches()) == {2}
