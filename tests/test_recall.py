"""Recall answers as sent (docs/model.md): the ``xml`` open tag, and the combined pair's ``xml`` answer.

Expected texts are spelled out from docs/model.md: the open tag's attributes appear only when their value
is there; the combined ``xml`` answer spends ``remaining = cap`` summary by summary, charging 2 for
each separator after the first, and stops at the first summary with nothing left.
"""

from __future__ import annotations

import math

import pytest
from builders import SOUND, compile_with, store, summary

from reference.model import Config, Summary, Text
from strategies.recall import combined_answer, open_tag, wrap

SEP = Text("\n\n---\n\n")
CLOSE = "</cm-recall>"


def bare(sid: str = "L1-1", level: float = 1, span: tuple[str, str] = ("m0", "m1"), content: str = "x") -> Summary:
    """A summary built without a store, so that the open tag's empty and non-finite cases can be shown."""
    return Summary(
        id=sid, level=level, content=content, tokens=10, source_level=0, source_ids=("m0",), source_range=span
    )


def cut(text: str, units: int) -> str:
    """The cap's cut of an ASCII text to ``units`` code units, with its marker (N = ceil(len / 4))."""
    return text[:units] + f"\n\n[truncated — original was {math.ceil(len(text) / 4)} tokens]"


def tagged(s: Summary, body: str) -> Text:
    """One Text block that gets both tags (Recall answers: the first and the last Text may be the same block)."""
    return Text(
        f'<cm-recall id="{s.id}" level="{s.level}" span="{s.source_range[0]}..{s.source_range[1]}">\n{body}\n{CLOSE}'
    )


# ----------------------------------------------------------------------------- the open tag


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        (bare(), '<cm-recall id="L1-1" level="1" span="m0..m1">'),
        (bare(sid=""), '<cm-recall level="1" span="m0..m1">'),
        (bare(level=math.nan), '<cm-recall id="L1-1" span="m0..m1">'),
        (bare(level=math.inf), '<cm-recall id="L1-1" span="m0..m1">'),
        (bare(level=-math.inf), '<cm-recall id="L1-1" span="m0..m1">'),
        (bare(span=("", "m1")), '<cm-recall id="L1-1" level="1">'),
        (bare(span=("m0", "")), '<cm-recall id="L1-1" level="1">'),
        (bare(span=("", "")), '<cm-recall id="L1-1" level="1">'),
        (bare(sid="", level=math.nan, span=("", "")), "<cm-recall>"),
        (bare(sid='a"b<c', level=2, span=("m&0", "m>1")), '<cm-recall id="a"b<c" level="2" span="m&0..m>1">'),
    ],
)
def test_open_tag_has_each_attribute_only_when_its_value_is_there(s: Summary, expected: str) -> None:
    """``id`` when non-empty, ``level`` when finite, ``span`` when both ends are non-empty; nothing escaped."""
    assert open_tag(s) == expected


def test_wrap_uses_the_open_tag_without_absent_attributes() -> None:
    """The envelope of a summary without an id or span carries the shortened tag."""
    s = bare(sid="", span=("", "m1"))
    expected = (Text('<cm-recall level="1">\nbody\n</cm-recall>'),)
    assert wrap((Text("body"),), s, Config(recall_envelope="xml")) == expected


# ----------------------------------------------------------------------------- the combined xml answer

XML_OFF = Config(positioned_recall_pairs=False, recall_envelope="xml")


def xml(cap: float) -> Config:
    return Config(positioned_recall_pairs=False, recall_envelope="xml", max_message_tokens=cap)


def test_combined_xml_without_a_cap_wraps_every_summary_with_separators_between() -> None:
    """Cap off: each summary whole in its own envelope, a separator block between consecutive ones only."""
    a, b, c = bare("L1-1", content="alpha " * 30), bare("L1-2", content="beta"), bare("L1-3", content="gamma " * 50)
    answer = combined_answer((a, b, c), XML_OFF)
    assert answer.content == (tagged(a, a.content), SEP, tagged(b, b.content), SEP, tagged(c, c.content))
    assert answer.held == (a, b, c)


def test_combined_xml_first_summary_gets_the_whole_cap() -> None:
    """The first summary has no separator charge: text_only == cap is kept whole; nothing is left for the next."""
    a, b = bare("L1-1", content="a" * 40), bare("L1-2", content="b")  # a: text_only 10 == cap
    answer = combined_answer((a, b), xml(10))
    assert answer.content == (tagged(a, a.content),)
    assert answer.held == (a,)


def test_combined_xml_a_fraction_of_a_token_left_still_cuts() -> None:
    """``remaining - sep`` of 1 is > 0: the summary is cut to 4 units with its marker and held."""
    a = bare("L1-1", content="abcdefgh")
    answer = combined_answer((a,), xml(1))
    assert answer.content == (tagged(a, cut("abcdefgh", 4)),)
    assert answer.held == (a,)


def test_combined_xml_second_summary_is_cut_to_remaining_less_its_separator() -> None:
    """cap 13: the first takes 10, leaving 3; the second is cut at 3 - 2 = 1 token (4 units)."""
    a, b = bare("L1-1", content="a" * 40), bare("L1-2", content="b" * 40)
    answer = combined_answer((a, b), xml(13))
    assert answer.content == (tagged(a, a.content), SEP, tagged(b, cut(b.content, 4)))
    assert answer.held == (a, b)


def test_combined_xml_charges_each_summary_and_its_separator() -> None:
    """cap 12: 12 - 5 = 7; the second (2) costs 2 + 2, leaving 3; the third is cut at 3 - 2 = 1 token."""
    a, b, c = bare("L1-1", content="a" * 20), bare("L1-2", content="b" * 8), bare("L1-3", content="c" * 40)
    answer = combined_answer((a, b, c), xml(12))
    assert answer.content == (tagged(a, a.content), SEP, tagged(b, b.content), SEP, tagged(c, cut(c.content, 4)))
    assert answer.held == (a, b, c)


def test_combined_xml_stops_at_the_first_summary_with_nothing_left() -> None:
    """cap 12: 12 - 10 = 2 left, 2 - 2 <= 0: the second and every later summary are left out."""
    a, b, c = bare("L1-1", content="a" * 40), bare("L1-2", content="b"), bare("L1-3", content="c")
    answer = combined_answer((a, b, c), xml(12))
    assert answer.content == (tagged(a, a.content),)
    assert answer.held == (a,)


def test_sound_compile_sends_the_combined_xml_answer() -> None:
    """Through the sound compile: the combined answer entry is the envelopes joined by separators, holding both."""
    st = store(4, [summary("L1-1", 0, 1), summary("L1-2", 2, 3, content_tokens=20)])
    outcome = compile_with(SOUND, st, XML_OFF, math.inf)
    assert outcome.result is not None
    entries = outcome.result.entries
    assert [e.kind for e in entries] == ["question", "answer"]
    assert entries[0].content == (Text(XML_OFF.summary_context_label),)
    a, b = st.summaries
    assert entries[1].content == (tagged(a, a.content), SEP, tagged(b, b.content))
    assert entries[1].summary_ids == ("L1-1", "L1-2")
