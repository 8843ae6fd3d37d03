"""The invariants of what is sent judged (``invariants/properties/what_is_sent.py``): rendering, selection,
exactly-once, chronological and tail-suffix each break on every named defect they exist to catch, alone in ``sound``
over a small store, and on hand-built wrong compiles; each holds on ``sound`` there."""

from __future__ import annotations

import dataclasses

import pytest

import reports.cli as cli
from invariants import examples as known
from invariants.generators import Case
from invariants.properties import Violation
from reference.model import Budget, Config, Entry, Image, Message, Store, Text
from reference.scenario import Scenario, save_scenario
from reference.variant_names import RAW_FORMS
from strategies import CompileResult, HierarchicalStrategy, UncoveredDropError
from strategies.defects import Defect
from tests import judge_cases as cases
from tests.builders import msg, store, summary
from tests.judge_helpers import broken, judged, tamper, with_entries

DEFECT_BREAKS = [
    ("rendering", Defect.HEADER_REPLACE_CHAINED, cases.DOLLAR_HEADER, "entry 1 differs"),
    ("rendering", Defect.COMBINED_SELECTION_ORDER, known.COMBINED_ORDER_ACROSS_BUDGETS, "reference rendering"),
    (
        "selection",
        Defect.DEEP_WINDOW_CANDIDATES,
        cases.DEEP_IN_THE_TAIL,
        "selected ['L2-0'], the reference selection []",
    ),
    ("selection", Defect.BLANK_SUMMARIES_SELECTED, cases.BLANK_IN_COMBINED, "selected ['L1-0', 'L1-1']"),
    ("exactly-once", Defect.DEEP_WINDOW_CANDIDATES, cases.DEEP_IN_THE_TAIL, "m3 (1 raw, 1 through summaries)"),
    ("chronological", Defect.COMBINED_SELECTION_ORDER, known.COMBINED_ORDER_ACROSS_BUDGETS, "out of chronological"),
    ("tail-suffix", Defect.TRIM_DROPS_TRAILING_TOOL_USE, cases.TRAILING_CALL, "the tail is [0, 2) but"),
]


@pytest.mark.parametrize(
    "invariant, defect, case, words", DEFECT_BREAKS, ids=[f"{i}-{d.name}" for i, d, _, _ in DEFECT_BREAKS]
)
def test_each_invariant_of_what_is_sent_breaks_on_the_defects_it_exists_to_catch(invariant, defect, case, words):
    assert judged(invariant, case, "sound") == []
    broken(invariant, case, frozenset({defect}), words)


#: m0 head, L1-0 over m1 and m2 in the middle, m3 and m4 the tail.
FIVE = Case(
    store(5, [summary("L1-0", 1, 2)]), Config(head_window_tokens=15, recent_window_tokens=25), Budget(max_tokens=10**6)
)


def _compiled(case: Case) -> CompileResult:
    """What the sound compile returns for ``case``."""
    s = HierarchicalStrategy(case.config, "sound")
    s.initialize(case.store)
    return s.compile(case.budget)


def _sent(case: Case) -> tuple[Entry, ...]:
    return _compiled(case).entries


def test_the_five_message_case_sends_what_the_tests_below_assume():
    assert [(e.kind, e.message_id, e.summary_ids) for e in _sent(FIVE)] == [
        ("raw", "m0", ()),
        ("question", None, ()),
        ("answer", None, ("L1-0",)),
        ("raw", "m3", ()),
        ("raw", "m4", ()),
    ]
    for name in ("rendering", "selection", "exactly-once", "chronological", "tail-suffix", "well-formed"):
        assert judged(name, FIVE) == [], name


# ----------------------------------------------------------------------------- rendering and selection


@pytest.mark.proves("rendering")
def test_rendering_breaks_on_one_changed_byte(monkeypatch):
    def changed(r, b):
        e = r.entries[0]
        return dataclasses.replace(
            r, entries=(dataclasses.replace(e, content=(Text(e.content[0].text + "!"),)), *r.entries[1:])
        )

    tamper(monkeypatch, sent=changed)
    broken("rendering", FIVE, "sound", "entry 0 differs")


def test_rendering_breaks_on_an_answer_sent_without_its_question(monkeypatch):
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, lambda k: k != 1))
    broken("rendering", FIVE, "sound", "the compile sends 4 entries", "selection (3 raw, summaries ['L1-0']) 5")


@pytest.mark.proves("selection")
def test_selection_breaks_on_a_selection_the_reference_does_not_make(monkeypatch):
    tamper(monkeypatch, sent=lambda r, b: dataclasses.replace(r, selected=()))
    broken("selection", FIVE, "sound", "the compile selected [], the reference selection ['L1-0']")


def test_selection_breaks_on_the_reference_selection_in_another_order(monkeypatch):
    """The selection is a list, its order the reference's: the same summaries in another order is another one."""
    assert _compiled(cases.TWO_PAIRS).selected == ("L1-0", "L1-1") and judged("selection", cases.TWO_PAIRS) == []
    tamper(monkeypatch, sent=lambda r, b: dataclasses.replace(r, selected=r.selected[::-1]))
    broken(
        "selection",
        cases.TWO_PAIRS,
        "sound",
        "the compile selected ['L1-1', 'L1-0'], the reference selection ['L1-0', ",
    )


# ----------------------------------------------------------------------------- exactly-once


@pytest.mark.proves("exactly-once")
def test_exactly_once_breaks_on_a_message_sent_raw_twice(monkeypatch):
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, extra=r.entries[4:]))
    broken("exactly-once", FIVE, "sound", "m4 (2 raw, 0 through summaries)")


def test_exactly_once_breaks_on_a_middle_message_sent_raw_and_through_a_summary(monkeypatch):
    m1 = FIVE.store.messages[1]
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, extra=(Entry("user", m1.content, "raw", "m1"),)))
    broken("exactly-once", FIVE, "sound", "m1 (1 raw, 1 through summaries)")


def test_exactly_once_breaks_on_a_summary_held_twice(monkeypatch):
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, extra=r.entries[1:3]))
    broken("exactly-once", FIVE, "sound", "summaries held twice: ['L1-0']")


def test_exactly_once_allows_only_the_straddling_claimer():
    """L1-0 over m2 (middle) and m3 (tail) is held while m3 is sent raw: the contract's one exception."""
    straddle = Case(store(5, [summary("L1-0", 2, 3)]), Config(recent_window_tokens=25), Budget(max_tokens=10**6))
    sent = _sent(straddle)
    assert [e.summary_ids for e in sent if e.kind == "answer"] == [("L1-0",)]
    assert "m3" in {e.message_id for e in sent if e.kind == "raw"}
    assert judged("exactly-once", straddle) == []


def holding(*summary_ids: str):
    """A change to what is sent: every answer holds ``summary_ids``."""

    def sent(r, b):
        answers = (dataclasses.replace(e, summary_ids=summary_ids) if e.kind == "answer" else e for e in r.entries)
        return dataclasses.replace(r, entries=tuple(answers))

    return sent


#: FIVE with L1-t over its tail (m3 and m4) too, which a sound compile never holds.
TAIL_SUMMARISED = Case(store(5, [summary("L1-0", 1, 2), summary("L1-t", 3, 4)]), FIVE.config, FIVE.budget)


def test_exactly_once_breaks_on_a_window_message_held_by_a_summary_with_no_middle_leaf(monkeypatch):
    tamper(monkeypatch, sent=holding("L1-0", "L1-t"))
    broken(
        "exactly-once", TAIL_SUMMARISED, "sound", "m3 (1 raw, 1 through summaries)", "m4 (1 raw, 1 through summaries)"
    )


# ----------------------------------------------------------------------------- chronological


@pytest.mark.proves("chronological")
def test_chronological_breaks_on_two_entries_swapped(monkeypatch):
    tamper(monkeypatch, sent=lambda r, b: dataclasses.replace(r, entries=r.entries[:3] + r.entries[3:][::-1]))
    broken("chronological", FIVE, "sound", "entry 4 stands for ['m3'], whose first is not after m4")


def test_chronological_breaks_on_a_pair_sent_before_the_head(monkeypatch):
    tamper(
        monkeypatch, sent=lambda r, b: dataclasses.replace(r, entries=r.entries[1:3] + r.entries[:1] + r.entries[3:])
    )
    broken("chronological", FIVE, "sound", "stands for ['m0']")


#: m0 head, m1 raw and L1-0 over m2 and m3 in the middle, m4 and m5 the tail; L1-0's pair has no leaf in the head.
RAW_THEN_PAIR = Case(
    store(6, [summary("L1-0", 2, 3)]), Config(head_window_tokens=15, recent_window_tokens=25), Budget(max_tokens=10**6)
)


def test_chronological_breaks_on_a_middle_message_sent_after_a_later_pair(monkeypatch):
    """Only a pair that straddles the head may stand first in the middle (docs/model.md, Invariants): m1 sent
    after the pair over m2 and m3 is out of order."""
    sent = _sent(RAW_THEN_PAIR)
    assert [(e.kind, e.message_id) for e in sent[1:4]] == [("raw", "m1"), ("question", None), ("answer", None)]
    assert judged("chronological", RAW_THEN_PAIR) == []
    tamper(
        monkeypatch,
        sent=lambda r, b: dataclasses.replace(
            r, entries=r.entries[:1] + r.entries[2:4] + r.entries[1:2] + r.entries[4:]
        ),
    )
    broken("chronological", RAW_THEN_PAIR, "sound", "entry 3 stands for ['m1'], whose first is not after m2")


# ----------------------------------------------------------------------------- tail-suffix: every eviction rule

#: Five messages of 10 and a tail of three (m2, m3, m4) under a budget of 30: the oldest two (m2, m3) are evicted.
TAIL_CUT = Case(store(5), Config(recent_window_tokens=35), Budget(max_tokens=30))


def _uncovered(categories):
    return lambda err, b: (
        UncoveredDropError(tuple(categories), categories) if isinstance(err, UncoveredDropError) else err
    )


def test_tail_suffix_breaks_when_a_sent_context_leaves_out_a_tail_message(monkeypatch):
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, lambda k: r.entries[k].message_id != "m3"))
    broken("tail-suffix", FIVE, "sound", "the tail is [3, 5) but the compile sends of it ['m4']")


def test_tail_suffix_holds_when_the_oldest_run_of_the_tail_is_evicted():
    evicted = {m for m, c in _refusal(TAIL_CUT).categories.items() if c == "in-tail-not-rendered"}
    assert evicted == {"m2", "m3"}
    assert judged("tail-suffix", TAIL_CUT) == []


def _refusal(case: Case) -> UncoveredDropError:
    s = HierarchicalStrategy(case.config, "sound")
    s.initialize(case.store)
    with pytest.raises(UncoveredDropError) as err:
        s.compile(case.budget)
    return err.value


@pytest.mark.proves("tail-suffix")
def test_tail_suffix_breaks_when_the_evicted_are_not_the_oldest_run(monkeypatch):
    kept = {m: c for m, c in _refusal(TAIL_CUT).categories.items() if m != "m2"}
    tamper(monkeypatch, refused=_uncovered(kept))
    broken("tail-suffix", TAIL_CUT, "sound", "the evicted messages ['m3'] are not the oldest run of the tail [2, 5)")


def test_tail_suffix_breaks_when_a_tail_message_is_dropped_as_anything_but_evicted(monkeypatch):
    moved = {**_refusal(TAIL_CUT).categories, "m3": "not-covered"}
    tamper(monkeypatch, refused=_uncovered(moved))
    broken("tail-suffix", TAIL_CUT, "sound", "tail messages ['m3'] are dropped as ['not-covered']")


def test_check_says_a_deep_summary_sent_beside_its_window_leaves_breaks_exactly_once(tmp_path, capsys):
    """As a new user pins it: an L2 whose leaves are all in the recent window, sent beside them."""
    path = tmp_path / "deep.scenario.json"
    save_scenario(Scenario(*cases.DEEP_IN_THE_TAIL), path)
    assert cli.main(["check", str(path), "--variant", "sound+DEEP_WINDOW_CANDIDATES"]) == 1
    out = capsys.readouterr().out
    assert "breaks exactly-once: messages represented more than once: m3 (1 raw, 1 through summaries)" in out
    assert cli.main(["check", str(path), "--variant", "sound"]) == 0


@pytest.mark.parametrize("first, dropped", [("m2", ["m2"]), ("m4", ["m4"])])
def test_tail_suffix_breaks_on_the_tails_first_or_last_message_dropped_as_anything_but_evicted(
    monkeypatch, first, dropped
):
    """The tail's first message (at the middle's end) and its last count as tail messages too."""
    moved = {**_refusal(TAIL_CUT).categories, first: "not-covered"}
    tamper(monkeypatch, refused=_uncovered(moved))
    [v] = judged("tail-suffix", TAIL_CUT)
    assert v.message == (
        f"tail messages {dropped} are dropped as ['not-covered']; a tail message is sent or evicted "
        "(in-tail-not-rendered)"
    )


# ----------------------------------------------------------------------------- chronological in combined mode

#: Combined mode over six messages: head m0, the middle m1..m4 with L1-0 over m3, tail m5. Sound sends m0, the pair
#: for L1-0, then the middle's raw m1, m2 (older than m3, as combined mode orders them) and m4, then the tail.
COMBINED = Case(
    store(6, [summary("L1-0", 3, 3)]),
    Config(head_window_tokens=15, recent_window_tokens=15, positioned_recall_pairs=False),
    Budget(max_tokens=10**6),
)


def test_chronological_takes_the_combined_pair_and_the_middles_raw_messages_after_it_as_one():
    assert [(e.kind, e.message_id or e.summary_ids) for e in _sent(COMBINED)] == [
        ("raw", "m0"),
        ("question", ()),
        ("answer", ("L1-0",)),
        ("raw", "m1"),
        ("raw", "m2"),
        ("raw", "m4"),
        ("raw", "m5"),
    ]
    assert judged("chronological", COMBINED) == []


def test_chronological_holds_on_a_combined_mode_send_without_a_pair():
    plain = Case(store(4), COMBINED.config, COMBINED.budget)
    assert all(e.kind == "raw" for e in _sent(plain))
    assert judged("chronological", plain) == []


def test_chronological_breaks_on_the_middles_raw_messages_out_of_order_after_the_pair(monkeypatch):
    def swapped(r, b):
        e = r.entries
        return dataclasses.replace(r, entries=(*e[:3], e[4], e[3], *e[5:]))

    tamper(monkeypatch, sent=swapped)
    assert judged("chronological", COMBINED) == [
        Violation(
            "chronological", "the middle's raw messages after the combined pair are out of order: ['m2', 'm1', 'm4']"
        )
    ]


def test_chronological_breaks_on_a_tail_message_sent_among_the_middles_raw_messages_after_the_pair(monkeypatch):
    """m5 (the tail) sent before m4 (the middle's last raw message, after the pair): the tail no longer follows the
    middle the pair and its raw messages stand for."""

    def tail_first(r, b):
        e = r.entries
        return dataclasses.replace(r, entries=(*e[:5], e[6], e[5]))

    tamper(monkeypatch, sent=tail_first)
    assert judged("chronological", COMBINED) == [
        Violation(
            "chronological",
            "entry 5 stands for ['m5'], sent among the middle's raw messages after the combined pair (the last at "
            "entry 6)",
        )
    ]


def test_chronological_holds_on_a_combined_pair_with_no_raw_message_after_it():
    """L1-0 covers the whole middle: m0, the pair, then the tail."""
    covered = Case(store(6, [summary("L1-0", 1, 4)]), COMBINED.config, COMBINED.budget)
    assert [e.kind for e in _sent(covered)] == ["raw", "question", "answer", "raw"]
    assert judged("chronological", covered) == []


def test_chronological_names_the_first_message_the_combined_pair_and_its_raw_messages_stand_for(monkeypatch):
    """m0 (the head) sent after the middle's raw messages: not after m1, the first the pair and they stand for."""

    def head_after_middle(r, b):
        e = r.entries
        return dataclasses.replace(r, entries=(*e[1:6], e[0], e[6]))

    tamper(monkeypatch, sent=head_after_middle)
    assert judged("chronological", COMBINED) == [
        Violation(
            "chronological", "entry 5 stands for ['m0'], whose first is not after m1, the first of an entry before it"
        )
    ]


def test_chronological_judges_raw_entries_and_answers_only(monkeypatch):
    """A repair entry carrying a message's id stands for nothing: sent first, it breaks no order."""

    def repair_first(r, b):
        last = dataclasses.replace(r.entries[-1], kind="repair")
        return dataclasses.replace(r, entries=(last, *r.entries[:-1]))

    tamper(monkeypatch, sent=repair_first)
    assert judged("chronological", Case(store(3), Config(), Budget(max_tokens=100))) == []


# ----------------------------------------------------------------------------- the judges' boundaries

#: m0 and m1 the head, L1-b over m2 and m3 in the middle, m4 the tail; L1-a over m0 alone (it touches the head, so
#: sound never selects it): an answer holding both stands for m0, m2 and m3 but not m1.
HEAD_OF_TWO = Case(
    store(5, [summary("L1-a", 0, 0), summary("L1-b", 2, 3)]),
    Config(head_window_tokens=25, recent_window_tokens=15),
    Budget(max_tokens=10**6),
)


def test_chronological_breaks_on_a_head_message_sent_after_a_pair_straddling_the_head(monkeypatch):
    """A pair standing for m0 (the head) stands first in the middle: m1, the head's last message, sent after it is
    out of order though m1 is neither the pair's first message nor among those it stands for."""
    assert [(e.kind, e.message_id) for e in _sent(HEAD_OF_TWO)] == [
        ("raw", "m0"),
        ("raw", "m1"),
        ("question", None),
        ("answer", None),
        ("raw", "m4"),
    ]

    def pair_before_m1(r, b):
        m0, m1, question, answer, m4 = r.entries
        both = dataclasses.replace(answer, summary_ids=("L1-a", "L1-b"))
        return dataclasses.replace(r, entries=(m0, question, both, m1, m4))

    tamper(monkeypatch, sent=pair_before_m1)
    assert judged("chronological", HEAD_OF_TWO) == [
        Violation(
            "chronological",
            "entry 3 stands for ['m1'], whose first is not after m1, the last of the head, which a pair before it "
            "straddles",
        )
    ]


def test_chronological_names_a_straddling_pairs_own_first_message_when_it_is_the_heads_last(monkeypatch):
    """L1-s over m1 (the head's last) and m2: m0 sent again after it comes before m1, which is both the first of the
    pair and the last of the head; the finding names the entry's first message, as everywhere else."""
    case = Case(store(5, [summary("L1-s", 1, 2)]), HEAD_OF_TWO.config, HEAD_OF_TWO.budget)

    def m0_after_the_pair(r, b):
        m0, question, answer = r.entries[0], *(e for e in r.entries if e.kind in ("question", "answer"))
        return dataclasses.replace(r, entries=(m0, question, dataclasses.replace(answer, summary_ids=("L1-s",)), m0))

    tamper(monkeypatch, sent=m0_after_the_pair)
    assert judged("chronological", case) == [
        Violation("chronological", "entry 3 stands for ['m0'], all of them before m1, the first of an entry before it")
    ]


def test_chronological_leaves_a_message_sent_twice_in_a_row_to_exactly_once(monkeypatch):
    """m4 sent again right after itself is in order: the repeat is exactly-once's to judge, not chronological's."""
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, extra=r.entries[4:]))
    assert judged("chronological", FIVE) == []
    assert judged("exactly-once", FIVE) != []


def test_chronological_breaks_on_a_message_sent_again_after_a_later_one(monkeypatch):
    """m3 sent again after m4: all it stands for was sent before m4, the first of the entry before it."""
    tamper(monkeypatch, sent=lambda r, b: with_entries(r, extra=r.entries[3:4]))
    assert judged("chronological", FIVE) == [
        Violation("chronological", "entry 5 stands for ['m3'], all of them before m4, the first of an entry before it")
    ]


def test_chronological_breaks_on_a_head_message_sent_again_after_a_pair_that_starts_the_middle(monkeypatch):
    """L1-0's pair stands for m1 and m2, the middle's first messages, and for nothing in the head: it does not straddle
    the head, so m0 sent again after it is out of order."""
    tamper(monkeypatch, sent=lambda r, b: dataclasses.replace(r, entries=r.entries[:3] + r.entries[:1] + r.entries[3:]))
    assert judged("chronological", FIVE) == [
        Violation("chronological", "entry 3 stands for ['m0'], all of them before m1, the first of an entry before it")
    ]


def test_chronological_names_the_pairs_first_message_when_the_head_is_sent_after_it(monkeypatch):
    """The pair over m1 and m2 sent before the head: m0 is not after m1, the pair's first message."""
    tamper(
        monkeypatch, sent=lambda r, b: dataclasses.replace(r, entries=r.entries[1:3] + r.entries[:1] + r.entries[3:])
    )
    assert judged("chronological", FIVE) == [
        Violation(
            "chronological", "entry 2 stands for ['m0'], whose first is not after m1, the first of an entry before it"
        )
    ]


def _with_empty_pair(tail_swapped: bool):
    """Sound's send with a positioned pair holding no summary right after m0 (and its tail swapped)."""

    def sent(r, b):
        m0, question, answer, *rest = r.entries
        empty = dataclasses.replace(answer, summary_ids=())
        rest = rest[:-2] + rest[-2:][::-1] if tail_swapped else rest
        return dataclasses.replace(r, entries=(m0, question, empty, question, answer, *rest))

    return sent


def test_chronological_holds_around_a_positioned_answer_holding_no_summary(monkeypatch):
    """An answer holding no summary stands for no message: the rest, in order, breaks no order."""
    tamper(monkeypatch, sent=_with_empty_pair(tail_swapped=False))
    assert judged("chronological", FIVE) == []


def test_chronological_breaks_on_the_tail_swapped_after_a_positioned_answer_holding_no_summary(monkeypatch):
    tamper(monkeypatch, sent=_with_empty_pair(tail_swapped=True))
    assert judged("chronological", FIVE) == [
        Violation(
            "chronological", "entry 6 stands for ['m3'], whose first is not after m4, the first of an entry before it"
        )
    ]


def test_a_positioned_answer_holding_no_summary_does_not_make_chronological_forget_the_order(monkeypatch):
    """An answer that holds nothing stands for no message, so it straddles no head: a pair sent after a later
    message than its own must still break the order, whatever empty pair comes between."""

    def sent(r, b):
        m0, question, answer, m3, m4 = r.entries
        empty = dataclasses.replace(answer, summary_ids=())
        return dataclasses.replace(r, entries=(m0, m3, question, empty, question, answer, m4))

    tamper(monkeypatch, sent=sent)
    assert judged("chronological", FIVE) == [
        Violation(
            "chronological",
            "entry 5 stands for ['m1', 'm2'], whose first is not after m3, the first of an entry before it",
        )
    ]


#: m0 head, L2-0 over L1-a (m1) and L1-b (m2) in the middle, m3 and m4 the tail: sound selects L2-0.
MERGED = Case(
    store(
        5,
        [
            summary("L1-a", 1, 1, parent="L2-0"),
            summary("L1-b", 2, 2, parent="L2-0"),
            summary("L2-0", 1, 2, level=2, sources=["L1-a", "L1-b"]),
        ],
    ),
    Config(head_window_tokens=15, recent_window_tokens=25),
    Budget(max_tokens=10**6),
)


def test_chronological_orders_an_answers_summaries_by_their_first_messages(monkeypatch):
    """L1-b (m2) before L2-0 (m1 to m2): they end on the same message, but L2-0 begins first."""
    assert _compiled(MERGED).selected == ("L2-0",) and judged("chronological", MERGED) == []

    tamper(monkeypatch, sent=holding("L1-b", "L2-0"))
    assert judged("chronological", MERGED) == [
        Violation("chronological", "the answer at entry 2 holds ['L1-b', 'L2-0'] out of chronological order")
    ]


def test_exactly_once_counts_raw_entries_only(monkeypatch):
    """A repair entry carrying m4's id represents no message: m4 sent raw once is sent once."""

    def repair_after(r, b):
        return with_entries(r, extra=(dataclasses.replace(r.entries[-1], kind="repair"),))

    tamper(monkeypatch, sent=repair_after)
    assert judged("exactly-once", FIVE) == []


def test_exactly_once_says_each_message_represented_twice_and_the_windows(monkeypatch):
    """Two tail messages held by a summary while sent raw, no summary held twice: the message names both, in order,
    and the windows, and nothing of repeated summaries."""
    tamper(monkeypatch, sent=holding("L1-0", "L1-t"))
    assert judged("exactly-once", TAIL_SUMMARISED) == [
        Violation(
            "exactly-once",
            "messages represented more than once: m3 (1 raw, 1 through summaries); m4 (1 raw, 1 through summaries) "
            "(windows: head [0, 1), tail [3, 5))",
        )
    ]


#: m0 head, m1, m2 (L1-0), then m3: an image of 100 tokens with two base64 characters. Under the contract's image
#: rules the image is live, m3 alone passes the recent window and L1-0 is selected; under the newer lines' byte wall
#: of 1 it is stripped, the recent window takes m2 and m3, and L1-0, touching the tail, is no candidate.
WALLED_IMAGE = Case(
    Store(
        (*(msg(i) for i in range(3)), Message("m3", "assistant", (Image(token_estimate=100, data="xx"),))),
        (summary("L1-0", 2, 2),),
    ),
    Config(head_window_tokens=15, recent_window_tokens=25, max_live_image_bytes=1),
    Budget(max_tokens=10**6),
)


def test_selection_judges_a_line_by_its_own_image_rules():
    """The raw-forms line strips m3's image at its byte wall and selects nothing, as the reference does by that
    line's rules; sound, without the wall, selects L1-0."""
    assert _compiled(WALLED_IMAGE).selected == ("L1-0",) and judged("selection", WALLED_IMAGE) == []
    s = HierarchicalStrategy(WALLED_IMAGE.config, RAW_FORMS)
    s.initialize(WALLED_IMAGE.store)
    assert s.compile(WALLED_IMAGE.budget).selected == ()
    assert judged("selection", WALLED_IMAGE, RAW_FORMS) == []
