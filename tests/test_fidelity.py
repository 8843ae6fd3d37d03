"""Byte-for-byte fidelity to the TypeScript where the model once departed from it (docs/model.md, Numerics;
Recall answers and the envelope; Selection).

Each test quotes the TypeScript it pins (anima-research/context-manager; ``src/recall-envelope.ts`` at
4eb1ab89, ``src/strategies/autobiographical.ts`` at 1c779181).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from builders import FAITHFUL, SOUND, VARIANT_NAMES, compile_with, msg, store, summary

from reference.model import Config, Store, Text, Thinking
from reference.numerics import js_replace_all, js_safe_slice, js_trim
from strategies import UncoveredDropError
from strategies.cap import truncate
from strategies.defects import VARIANTS, Defect, Defects
from strategies.recall import CLOSE_TAG, header, open_tag, wrap

XML = Config(recall_envelope="xml")
COMBINED = Config(positioned_recall_pairs=False)
#: Blank to JavaScript's ``trim`` (U+FEFF is WhiteSpace there), not to Python's ``str.strip``.
BLANK = " \ufeff\u3000\n"


def _answers(outcome) -> list:
    return [e for e in outcome.result.entries if e.kind == "answer"]


# ----------------------------------------------------------------------------- 1. carriers-only answer, xml


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_a_carriers_only_answer_gets_open_newline_close(variant: str) -> None:
    """``wrapRecallAnswerContent`` (recall-envelope.ts@4eb1ab89): an answer with no text block keeps its blocks and
    gains one text block after them, the open tag, one newline and the close tag; one newline, not two (two is
    ``recallEnvelopeAddedText``, what is priced mint-side).
    """
    reasoning = (Thinking("pondering", "sig"),)
    s = summary("L1-1", 1, 2, carriers=reasoning)
    assert wrap(reasoning, s, XML) == (*reasoning, Text(open_tag(s) + "\n" + CLOSE_TAG))
    out = compile_with(variant, store(4, [s]), XML, math.inf)
    assert _answers(out)[0].content == (*reasoning, Text(open_tag(s) + "\n" + CLOSE_TAG))


# ----------------------------------------------------------------------------- 2. the positioned question


def _over(first: str, last: str, sid: str = "L1-1") -> tuple[Store, Config]:
    """A store whose L1 spans messages ``first..last`` (ids as given), and its summary."""
    messages = (msg(0), replace(msg(1), id=first), replace(msg(2), id=last), msg(3))
    s = replace(summary(sid, 1, 2), source_ids=(first, last), source_range=(first, last))
    return Store(messages=messages, summaries=(s,)), s


CHAINED = Defects(frozenset({Defect.HEADER_REPLACE_CHAINED}))


@pytest.mark.parametrize(
    ("template", "first", "last", "sid", "chained", "one_pass"),
    [
        # A value inserted by an earlier replace is scanned by the later ones.
        ("{first}", "a{last}", "z", "L1-1", "az", "a{last}"),
        ("{id}|{level}", "m1", "m2", "L1-{level}", "L1-1|1", "L1-{level}|1"),
        # Replacement patterns in a value: $& the match, $$ a dollar, $` before, $' after; $1 and $< literal.
        ("[{first}]", "m$&", "m2", "L1-1", "[m{first}]", "[m$&]"),
        ("[{first}]", "m$$", "m2", "L1-1", "[m$]", "[m$$]"),
        ("<{first}>", "m$`", "m2", "L1-1", "<m<>", "<m$`>"),
        ("<{first}>", "m$'", "m2", "L1-1", "<m>>", "<m$'>"),
        ("{first}", "m$1$<n>", "m2", "L1-1", "m$1$<n>", "m$1$<n>"),
    ],
)
def test_the_header_is_four_chained_js_replaces_faithfully_and_one_pass_in_sound(
    template: str, first: str, last: str, sid: str, chained: str, one_pass: str
) -> None:
    """``buildRecallHeader`` (autobiographical.ts@1c779181) fills the four placeholders (id, level, first, last) by
    four global replaces in a row, each given the value as a replacement *string*: JavaScript's substitution patterns
    (``$&``, ``$$``, ``$```, ``$'``) apply, and each replace scans what the one before it wrote. ``sound`` fills each
    placeholder once, literally (``HEADER_REPLACE_CHAINED``).
    """
    st, s = _over(first, last, sid)
    config = Config(recall_header_template=template)
    assert header(s, config, CHAINED) == chained
    assert header(s, config, Defects()) == one_pass
    for variant in VARIANT_NAMES:
        out = compile_with(variant, st, config, math.inf)
        question = next(e for e in out.result.entries if e.kind == "question")
        assert question.content == (Text(one_pass if variant == SOUND else chained),)


@pytest.mark.parametrize(
    ("subject", "pattern", "replacement", "expected"),
    [
        ("x{a}y{a}z", "{a}", "$&$&", "x{a}{a}y{a}{a}z"),
        ("x{a}y", "{a}", "[$`|$']", "x[x|y]y"),
        ("x{a}y{a}", "{a}", "$`", "xxyx{a}y"),
        ("ab", "b", "$", "a$"),
        ("ab", "b", "$$$", "a$$"),
        ("ab", "b", "$0$9$10$<x>", "a$0$9$10$<x>"),
        ("aaa", "aa", "b", "ba"),
        ("none", "{a}", "$&", "none"),
    ],
)
def test_js_replace_all_follows_get_substitution(subject: str, pattern: str, replacement: str, expected: str) -> None:
    """``subject.replace(/pattern/g, replacement)`` for a literal pattern (no groups): ECMA-262 GetSubstitution."""
    assert js_replace_all(subject, pattern, replacement) == expected


# ----------------------------------------------------------------------------- 3. blank summaries


def test_js_trim_is_javascripts_whitespace_not_pythons() -> None:
    """``String.prototype.trim``: U+FEFF is whitespace in JavaScript, U+001C..U+001F and U+0085 are not."""
    assert js_trim(BLANK) == ""
    assert "\ufeff".strip() != ""  # why Python's strip is wrong here
    assert js_trim("\x1c\x85") == "\x1c\x85"


def _blank_middle() -> Store:
    return store(6, [summary("L1-1", 1, 2), replace(summary("L1-2", 3, 4), content=BLANK)])


@pytest.mark.parametrize("config", [Config(), COMBINED], ids=["positioned", "combined"])
def test_sound_sends_a_blank_summarys_messages_raw(config: Config) -> None:
    """A blank summary represents nothing: in ``sound`` it is neither a candidate nor a claimer, so its
    messages go raw (the coverage rule's "send it raw")."""
    out = compile_with(SOUND, _blank_middle(), config, math.inf)
    raw = [e.message_id for e in out.result.entries if e.kind == "raw"]
    assert raw == ["m0", "m3", "m4", "m5"]
    assert all("L1-2" not in e.summary_ids for e in _answers(out))


@pytest.mark.parametrize("variant", FAITHFUL)
def test_faithful_positioned_skips_a_blank_summary_and_refuses_its_messages(variant: str) -> None:
    """``selectHierarchical`` (autobiographical.ts@1c779181): ``getAntiRedundantSummaries`` has no content
    test, so the waterfall takes a blank summary; positioned emission then skips a summary whose content is missing or
    blank once trimmed (no pair, no ``rsSummary``), and ``assertFullCoverage`` refuses its leaves."""
    out = compile_with(variant, _blank_middle(), Config(), math.inf)
    assert isinstance(out.error, UncoveredDropError)
    assert out.error.categories == {"m3": "covered-by-unemitted-summary", "m4": "covered-by-unemitted-summary"}


@pytest.mark.parametrize("variant", FAITHFUL)
@pytest.mark.parametrize("content", [BLANK, ""])
def test_faithful_combined_sends_a_blank_summary_and_counts_it_as_covering(variant: str, content: str) -> None:
    """The combined branch of ``selectHierarchical`` has no blank test: ``renderCombinedRecallAnswer``
    renders every selected summary (one text block holding its content) and each is recorded as
    rendered, so the blank one's messages are sent as nothing (``BLANK_SUMMARIES_SELECTED``)."""
    st = store(6, [summary("L1-1", 1, 2), replace(summary("L1-2", 3, 4), content=content)])
    out = compile_with(variant, st, COMBINED, math.inf)
    (answer,) = _answers(out)
    assert answer.summary_ids == ("L1-1", "L1-2")
    assert answer.content[-1] == Text(content)
    assert [e.message_id for e in out.result.entries if e.kind == "raw"] == ["m0", "m5"]


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_a_blank_summary_is_no_claimer(variant: str) -> None:
    """Phase 3c of ``selectHierarchical``: a summary whose content is missing or blank once trimmed claims nothing.
    An L2 over L1-1 that the waterfall cannot afford (L2 and L3 budgets 0) would join as the claimer
    of m1 and m2; blank, it does not, and they go raw."""
    l1 = summary("L1-1", 1, 2, parent="L2-1")
    l2 = replace(summary("L2-1", 1, 2, level=2, sources=("L1-1",)), content=BLANK)
    out = compile_with(variant, store(4, [l1, l2]), Config(l2_budget_tokens=0, l3_budget_tokens=0), math.inf)
    assert [e.message_id for e in out.result.entries if e.kind == "raw"] == ["m0", "m1", "m2", "m3"]
    assert not _answers(out)


def test_blank_summaries_selected_is_a_faithful_defect() -> None:
    """The TypeScript's treatment can send a blank answer for history: a named defect, in both faithful variants."""
    assert Defect.BLANK_SUMMARIES_SELECTED.source == "TypeScript"
    assert all(Defect.BLANK_SUMMARIES_SELECTED in VARIANTS[v] for v in FAITHFUL)
    assert Defect.BLANK_SUMMARIES_SELECTED not in VARIANTS[SOUND]


# ----------------------------------------------------------------------------- 4. a cut at a lone low surrogate


@pytest.mark.parametrize(
    ("s", "end", "expected"),
    [
        ("a\udc00bc", 1, ""),  # the unit at the cut is a lone low surrogate: one unit earlier
        ("a\udc00bc", 2, "a\udc00"),
        ("\U0001f600\udc00", 2, "\ud83d"),  # one unit earlier splits the pair before it
        ("a\U0001f600b", 2, "a"),  # a real pair: as before
        ("a\U0001f600b", 3, "a\U0001f600"),
        ("ab", 5, "ab"),
        ("\ud800\udc00x", 1, ""),  # a pair written as two halves is a pair
    ],
)
def test_js_safe_slice_moves_back_at_any_low_surrogate(s: str, end: int, expected: str) -> None:
    """``safeSlice`` (autobiographical.ts@1c779181): a cut that reaches the end of the string keeps all of it; a cut
    whose end falls on a low surrogate (0xDC00 to 0xDFFF) moves back one code unit; any other cut is where it is.
    """
    assert js_safe_slice(s, end) == expected


def test_the_cap_cuts_before_a_lone_low_surrogate() -> None:
    """``truncateContent`` cuts with ``safeSlice(block.text, 0, remaining)``: ``"a\\udc00…"`` cut at 1 keeps ``""``."""
    out = truncate((Text("a\udc00" + "b" * 10),), 0.25)  # remaining = 1 unit
    assert out[0].text.startswith("\n\n[truncated — original was 3 tokens]")
