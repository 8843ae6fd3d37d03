"""The invariants of what is sent and refused (docs/model.md, "The reference rendering" and after).

One property test runs the six over generated cases on every variant (sharing compiles), records
the refusal site, window shape and pair mode with ``event`` and steers toward the grace boundary.
Each invariant then has a red-first test: a hand-made case of the shape that breaks it, the bug
injected with ``monkeypatch`` (a change no named defect makes), the invariant red; without the
bug, green.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given

import strategies.emission as emission
import strategies.hierarchical as hierarchical
import strategies.recall as recall
from invariants.generators import Case, cases
from invariants.properties import InvariantViolation, variant_name
from invariants.reach import observe
from reference.model import Budget, Config, Store, Summary, Text
from strategies.errors import OverBudgetError
from strategies.windows import Windows
from tests.builders import msg, store, summary
from tests.shapes import violations, with_shapes

# ----------------------------------------------------------------------------- the shapes that break them

#: Combined mode, two summaries: the separator and the order of the combined answer are sent.
COMBINED_TWO = Case(
    store(5, [summary("L1-0", 0, 1), summary("L1-1", 2, 3)]),
    Config(positioned_recall_pairs=False),
    Budget(max_tokens=10**6),
)
#: A head window of two messages, a recent window of two, five messages: the tail is m3, m4.
WINDOWS_OVERLAP = Case(store(5), Config(head_window_tokens=35, recent_window_tokens=35), Budget(max_tokens=10**6))
#: A tail of three where the budget cuts into it: m2 and m3 (the oldest two) are evicted.
TAIL_CUT = Case(store(5), Config(recent_window_tokens=35), Budget(max_tokens=30))
#: A refusal in the middle after a head of several messages.
MIDDLE_AFTER_HEAD = Case(
    store(5, [summary("L1-0", 3, 4, tokens=40, content_tokens=40)]),
    Config(head_window_tokens=25),
    Budget(max_tokens=40),
)
#: A summary that straddles the middle and the recent window while the budget cuts into the tail.
STRADDLE_TAIL = Case(store(5, [summary("L1-0", 2, 3)]), Config(recent_window_tokens=15), Budget(max_tokens=45))
#: A summary wholly in the head: no candidate, so the selection leaves it out.
HEAD_ONLY_SUMMARY = Case(
    store(4, [summary("L1-0", 0, 0), summary("L1-1", 2, 3)]), Config(head_window_tokens=15), Budget(max_tokens=10**6)
)

#: The combined pair refused while it holds an L1 before an L2: its deepest level is 2.
COMBINED_LEVELS_REFUSED = Case(
    store(
        5,
        [
            summary("L1-0", 0, 1),
            summary("L1-1", 2, 2, parent="L2-0"),
            summary("L1-2", 3, 3, parent="L2-0"),
            summary("L2-0", 2, 3, level=2, sources=["L1-1", "L1-2"]),
        ],
    ),
    Config(positioned_recall_pairs=False),
    Budget(max_tokens=5),
)
#: The combined pair refused under a cap that leaves its second summary out: it counts both selected.
COMBINED_LEFT_OUT_REFUSED = Case(
    store(5, [summary("L1-0", 0, 1), summary("L1-1", 2, 3)]),
    Config(positioned_recall_pairs=False, recall_envelope="xml", max_message_tokens=2),
    Budget(max_tokens=5),
)
#: A cap of 0.3 tokens: 1.2 characters remain, and the cut keeps floor(1.2) = 1 unit and the marker.
CUT_FRACTIONAL = Case(Store(messages=(msg(0), msg(1))), Config(max_message_tokens=0.3), Budget(max_tokens=10**6))
#: A positioned xml answer longer than a cap of 5: the prose is capped, then wrapped (the tags pass whole).
CAPPED_ENVELOPE = Case(
    store(4, [summary("L1-0", 1, 2, content_tokens=40)]),
    Config(recall_envelope="xml", max_message_tokens=5),
    Budget(max_tokens=10**6),
)
#: A header template with every placeholder.
FULL_HEADER = Case(
    store(4, [summary("L1-0", 1, 2)]),
    Config(recall_header_template="[Recall {id} L{level} {first}..{last}]"),
    Budget(max_tokens=10**6),
)
SHAPES = (
    CAPPED_ENVELOPE,
    FULL_HEADER,
    CUT_FRACTIONAL,
    COMBINED_TWO,
    WINDOWS_OVERLAP,
    TAIL_CUT,
    MIDDLE_AFTER_HEAD,
    STRADDLE_TAIL,
    HEAD_ONLY_SUMMARY,
    COMBINED_LEVELS_REFUSED,
    COMBINED_LEFT_OUT_REFUSED,
)


@pytest.mark.red_on("main-48bb87a1", "pr-8bb01ab8")
@given(case=cases())
@with_shapes(SHAPES)
def test_what_is_sent_and_refused_follows_the_reference(case, variant):
    observe(case)
    found = violations(case, variant)
    if found:
        raise InvariantViolation(found, f"variant {variant_name(variant)}")


@pytest.mark.parametrize("case", SHAPES, ids=lambda c: f"{len(c.store.messages)}msg")
def test_the_shapes_hold_on_sound(case):
    assert violations(case, "sound") == []


def test_the_combined_refusals_are_the_shapes_they_say():
    for case, held in ((COMBINED_LEVELS_REFUSED, ("L1-0", "L2-0")), (COMBINED_LEFT_OUT_REFUSED, ("L1-0",))):
        strategy = hierarchical.HierarchicalStrategy(case.config, "sound")
        strategy.initialize(case.store)
        with pytest.raises(OverBudgetError) as err:
            strategy.compile(case.budget)
        assert err.value.refused == held


# ----------------------------------------------------------------------------- red first, one per invariant


def test_rendering_sees_a_changed_separator(monkeypatch):
    assert violations(COMBINED_TWO, "sound", ["rendering"]) == []
    monkeypatch.setattr(recall, "SEPARATOR", "\n---\n")
    [v] = violations(COMBINED_TWO, "sound", ["rendering"])
    assert "reference rendering" in v.message


def test_rendering_sees_a_close_tag_on_the_wrong_block(monkeypatch):
    two_texts = (Text("first part"), Text("second part"))
    st = store(4, [dataclasses.replace(summary("L1-0", 1, 2), response_content=two_texts)])
    case = Case(st, Config(recall_envelope="xml"), Budget(max_tokens=10**6))
    assert violations(case, "sound", ["rendering"]) == []

    def misplaced(content, s, config):
        out = list(content)
        out[0] = Text(recall.open_tag(s) + "\n" + out[0].text + "\n" + recall.CLOSE_TAG)
        return tuple(out)

    monkeypatch.setattr(recall, "wrap", misplaced)
    assert violations(case, "sound", ["rendering"])


def test_selection_sees_a_summary_wholly_in_a_window(monkeypatch):
    assert violations(HEAD_ONLY_SUMMARY, "sound", ["selection"]) == []
    monkeypatch.setattr(hierarchical, "candidates", lambda store, win, defects: list(store.unmerged()))
    [v] = violations(HEAD_ONLY_SUMMARY, "sound", ["selection"])
    assert "L1-0" in v.message


def test_exactly_once_sees_overlapping_windows(monkeypatch):
    assert violations(WINDOWS_OVERLAP, "sound", ["exactly-once"]) == []
    monkeypatch.setattr(hierarchical, "windows", lambda prices, h, r, **kw: Windows(3, 2))
    [v] = violations(WINDOWS_OVERLAP, "sound", ["exactly-once"])
    assert "m2 (2 raw" in v.message


def test_exactly_once_sees_a_pair_sent_twice(monkeypatch):
    case = Case(store(4, [summary("L1-0", 1, 2)]), Config(), Budget(max_tokens=10**6))
    assert violations(case, "sound", ["exactly-once"]) == []
    original = hierarchical.complete

    def twice(store_, chosen, win, claimers):
        sel = original(store_, chosen, win, claimers)
        return dataclasses.replace(sel, summaries=sel.summaries * 2)

    monkeypatch.setattr(hierarchical, "complete", twice)
    assert violations(case, "sound", ["exactly-once"])


def _tail_newest_first(run, tail_items, config):
    accepted, evicted = ORIGINAL_ACCEPT(run, tail_items, config)
    return accepted[::-1], evicted


ORIGINAL_ACCEPT = emission.accept_tail


def test_chronological_sees_a_tail_sent_newest_first(monkeypatch):
    case = Case(store(4), Config(recent_window_tokens=25), Budget(max_tokens=10**6))
    assert violations(case, "sound", ["chronological"]) == []
    monkeypatch.setattr(hierarchical, "accept_tail", _tail_newest_first)
    [v] = violations(case, "sound", ["chronological"])
    assert "entry" in v.message


def test_chronological_sees_a_combined_answer_newest_first(monkeypatch):
    assert violations(COMBINED_TWO, "sound", ["chronological"]) == []
    monkeypatch.setattr(
        emission,
        "combined_order",
        lambda store_, sel, d: tuple(reversed(sorted(sel.summaries, key=lambda s: store_.index(s.source_range[0])))),
    )
    assert violations(COMBINED_TWO, "sound", ["chronological"])


def test_tail_suffix_sees_a_tail_with_a_hole(monkeypatch):
    def skipping(run, tail_items, config):
        accepted, total = [], 0
        for item in reversed(tail_items):
            if run.total + total + item.price <= run.limit:
                accepted.append(item)
                total += item.price
        return accepted[::-1], []

    case = Case(Store(messages=(msg(0), msg(1, 40), msg(2))), Config(recent_window_tokens=1000), Budget(max_tokens=25))
    assert violations(case, "sound", ["tail-suffix"]) == []
    monkeypatch.setattr(hierarchical, "accept_tail", skipping)
    [v] = violations(case, "sound", ["tail-suffix"])
    assert "['m1'] are dropped as ['not-covered']" in v.message


def test_tail_suffix_sees_an_eviction_that_is_not_the_oldest_run(monkeypatch):
    def only_first(run, tail_items, config):
        accepted, evicted = ORIGINAL_ACCEPT(run, tail_items, config)
        return accepted, evicted[-1:]

    assert violations(TAIL_CUT, "sound", ["tail-suffix"]) == []
    monkeypatch.setattr(hierarchical, "accept_tail", only_first)
    [v] = violations(TAIL_CUT, "sound", ["tail-suffix"])
    assert "['m2'] are dropped" in v.message


@pytest.mark.parametrize(
    "field, value",
    [
        ("middle_count", 99),
        ("middle_count_unit", "raw-messages"),
        ("deepest_level", 7),
        ("configured_budget", 1),
        ("head_tokens", -1),
    ],
)
def test_diagnostics_full_sees_each_field(monkeypatch, field, value):
    assert violations(MIDDLE_AFTER_HEAD, "sound", ["diagnostics-full"]) == []
    original = emission._diagnostics

    def wrong(*args, **kwargs):
        return dataclasses.replace(original(*args, **kwargs), **{field: value})

    monkeypatch.setattr(emission, "_diagnostics", wrong)
    [v] = violations(MIDDLE_AFTER_HEAD, "sound", ["diagnostics-full"])
    assert field in v.message


def test_the_middle_refusal_shape_is_what_it_says():
    out = hierarchical.HierarchicalStrategy(MIDDLE_AFTER_HEAD.config, "sound")
    out.initialize(MIDDLE_AFTER_HEAD.store)
    with pytest.raises(OverBudgetError) as err:
        out.compile(MIDDLE_AFTER_HEAD.budget)
    d = err.value.diagnostics
    assert d.head_tokens > 10 and d.middle_count > 0 and d.deepest_level == 1


def test_a_straddling_summary_is_the_one_exception_to_exactly_once():
    st = STRADDLE_TAIL.store
    s: Summary = st.summary("L1-0")
    assert {st.index(m) for m in st.leaves(s.id)} == {2, 3}
    assert violations(Case(st, STRADDLE_TAIL.config, Budget(max_tokens=10**6)), "sound", ["exactly-once"]) == []
