"""``cmharness compare``'s classes judged (reports/compare/classify.py, cells.py): each class is fed a cell one step
away from it, which must land in another class: sends that differ in one character, one block or one participant
are not "the same bytes"; refusals that differ in any one field of what they report (the error's item, refused ids,
actual, limit, stage, every field of its diagnostics, the lost messages) are not "refused the same way"; the note
beside each class names what differs. The classes are mutated by ``cmharness report``: these tests kill their
mutants."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import pytest
from builders import exact_budget, store, summary

from reference.model import Budget, Config, Entry, Image, Text, ToolUse
from reference.scenario import Scenario
from reports.compare.cells import outcome_side
from reports.compare.classify import SPLIT_ONLY, CellClass, Side, classify, detail, differences, side_of
from strategies.defects import Defects
from strategies.errors import Diagnostics, OverBudgetError, UncoveredDropError


class Sent:
    """A compile's result as ``side_of`` reads it."""

    def __init__(self, *entries: Entry) -> None:
        self.entries = entries


def _entry(*blocks, participant: str = "user", kind: str = "raw", mid: str = "m0") -> Entry:
    return Entry(participant, tuple(blocks), kind, message_id=mid)


BASE = (
    _entry(Text("hello"), mid="m0"),
    _entry(Text("fine"), ToolUse("t1", "grep", {"q": 1}), participant="Claude", mid="m1"),
)
#: Sends that differ from ``BASE`` in one thing each: a character, a block, a block's field, a participant, an entry.
ONE_BYTE_OFF = {
    "a character": (_entry(Text("hellO"), mid="m0"), BASE[1]),
    "a trailing space": (_entry(Text("hello "), mid="m0"), BASE[1]),
    "a tool input": (BASE[0], _entry(Text("fine"), ToolUse("t1", "grep", {"q": 2}), participant="Claude", mid="m1")),
    "a block more": (_entry(Text("hello"), Image(data="aGk="), mid="m0"), BASE[1]),
    "a block less": (BASE[0], _entry(Text("fine"), participant="Claude", mid="m1")),
    "the participant": (_entry(Text("hello"), participant="Claude", mid="m0"), BASE[1]),
    "an entry less": (BASE[0],),
    "the order": (BASE[1], BASE[0]),
}


@pytest.mark.parametrize("change", list(ONE_BYTE_OFF))
def test_sends_that_differ_in_one_thing_are_different_bytes(change):
    base, head = side_of(Sent(*BASE), None), side_of(Sent(*ONE_BYTE_OFF[change]), None)
    assert classify(base, head) is CellClass.DIFFERENT_BYTES
    assert classify(head, base) is CellClass.DIFFERENT_BYTES


def test_equal_sends_built_apart_are_the_same_bytes():
    again = tuple(dataclasses.replace(e) for e in BASE)
    assert classify(side_of(Sent(*BASE), None), side_of(Sent(*again), None)) is CellClass.SAME_BYTES


def test_a_compiled_cell_whose_bytes_differ_is_not_the_same():
    """Compiled for real: a header template one character longer, on sound, sends other bytes at the same budget."""
    st = store(5, [summary("L1-1", 1, 3)])
    a = Config(head_window_tokens=10, recall_header_template="[Recall {id}]")
    b = dataclasses.replace(a, recall_header_template="[Recall {id}.]")
    budget = Budget(max_tokens=max(exact_budget(st, a), exact_budget(st, b)))
    base, head = outcome_side(Scenario(st, a, budget), Defects()), outcome_side(Scenario(st, b, budget), Defects())
    assert base.sent and head.sent
    assert classify(base, head) is CellClass.DIFFERENT_BYTES
    assert classify(base, outcome_side(Scenario(st, a, budget), Defects())) is CellClass.SAME_BYTES


# ----------------------------------------------------------------------------- refusals


def _diagnostics(**changed: object) -> Diagnostics:
    values = {
        "head_tokens": 10,
        "tail_tokens": 3,
        "middle_tokens": 40,
        "middle_count": 2,
        "middle_count_unit": "raw-messages",
        "deepest_level": 1,
        "configured_budget": 60,
        "reserve_for_response": 15,
        "input_budget": 45,
        "cleared_by": frozenset({"compression"}),
    }
    names = {f.name for f in dataclasses.fields(Diagnostics)}
    return Diagnostics(**{k: v for k, v in {**values, **changed}.items() if k in names})


def _over(diagnostics: Diagnostics | None = None, **changed: object) -> OverBudgetError:
    values = {"budget": 45, "actual": 53, "stage": "emission", "item": "message 'm3' (middle)", "refused": ("m3",)}
    return OverBudgetError(diagnostics=diagnostics or _diagnostics(), **{**values, **changed})


def _other(value: object, kind: str = "") -> object:
    """Another value of a field's kind (``kind``: its annotation; a field its record leaves unset gets one)."""
    if value is None:
        return {1: 1} if "Mapping" in kind else 1
    if isinstance(value, str):
        return "selection-items" if value == "raw-messages" else value + "x"
    if isinstance(value, (int, float)):
        return value + 1 if math.isfinite(value) else 0
    if isinstance(value, frozenset):
        return value | {"recent-window"}
    if isinstance(value, Mapping):
        return {**value, 99: 1}
    if isinstance(value, tuple):
        return (*value, "m9")
    raise TypeError(f"no other value for {value!r}")


DIAGNOSTIC_FIELDS = {f.name: str(f.type) for f in dataclasses.fields(Diagnostics)}
ERROR_FIELDS = ["budget", "actual", "stage", "item", "refused"]


@pytest.mark.parametrize("name", list(DIAGNOSTIC_FIELDS))
def test_refusals_that_differ_in_one_diagnostic_are_not_refused_the_same(name):
    d = _diagnostics()
    base = side_of(None, _over(d))
    head = side_of(None, _over(dataclasses.replace(d, **{name: _other(getattr(d, name), DIAGNOSTIC_FIELDS[name])})))
    assert classify(base, side_of(None, _over(_diagnostics()))) is CellClass.REFUSED_SAME
    assert classify(base, head) is CellClass.REFUSED_DIFFERENTLY
    assert name in differences(base, head)


@pytest.mark.parametrize("name", ERROR_FIELDS)
def test_refusals_that_differ_in_what_the_error_reports_are_not_refused_the_same(name):
    err = _over()
    base, head = side_of(None, err), side_of(None, _over(**{name: _other(getattr(err, name))}))
    assert classify(base, head) is CellClass.REFUSED_DIFFERENTLY
    assert name in differences(base, head)


@pytest.mark.parametrize(
    "head",
    [
        UncoveredDropError(("m1", "m2"), {"m1": "not-covered", "m2": "not-covered"}),
        UncoveredDropError(("m1",), {"m1": "in-tail-not-rendered"}),
    ],
    ids=["a message more lost", "another category"],
)
def test_lost_messages_that_differ_are_not_refused_the_same(head):
    base = side_of(None, UncoveredDropError(("m1",), {"m1": "not-covered"}))
    assert classify(base, side_of(None, UncoveredDropError(("m1",), {"m1": "not-covered"}))) is CellClass.REFUSED_SAME
    assert classify(base, side_of(None, head)) is CellClass.REFUSED_DIFFERENTLY


# ----------------------------------------------------------------------------- each class, one step away

SENT = side_of(Sent(*BASE), None)
OVER = side_of(None, _over())
LOST = side_of(None, UncoveredDropError(("m1",), {"m1": "not-covered"}))

#: For each class, a cell of it and the cell one step away, with the class that one step leads to.
ONE_STEP = {
    CellClass.SAME_BYTES: ((SENT, SENT), (SENT, side_of(Sent(*ONE_BYTE_OFF["a character"]), None))),
    CellClass.DIFFERENT_BYTES: ((SENT, side_of(Sent(BASE[0]), None)), (SENT, side_of(Sent(*BASE), None))),
    CellClass.REFUSED_SAME: ((OVER, OVER), (OVER, side_of(None, _over(actual=54)))),
    CellClass.REFUSED_DIFFERENTLY: ((OVER, side_of(None, _over(actual=54))), (OVER, side_of(None, _over()))),
    CellClass.BASE_SENT_HEAD_REFUSES: ((SENT, OVER), (OVER, SENT)),
    CellClass.BASE_REFUSED_HEAD_SENDS: ((LOST, SENT), (SENT, SENT)),
    CellClass.OTHER_ERROR_KIND: ((OVER, LOST), (LOST, LOST)),
}


@pytest.mark.parametrize("cls", list(CellClass), ids=lambda c: c.name)
def test_each_class_holds_its_cell_and_not_the_one_a_step_away(cls):
    (a, b), (c, d) = ONE_STEP[cls]
    assert classify(a, b) is cls
    assert classify(c, d) is not cls
    assert cls.differs == (cls not in (CellClass.SAME_BYTES, CellClass.REFUSED_SAME))


def test_a_side_is_what_it_reports_and_nothing_else():
    """Two crashes of one type with other messages are refused differently; a send is never a refusal."""
    assert classify(side_of(None, ValueError("a")), side_of(None, ValueError("b"))) is CellClass.REFUSED_DIFFERENTLY
    assert Side(True, entries="x") != Side(False, error="", report=())


# ----------------------------------------------------------------------------- what the note beside a class says

OVER_AT = "message 'm3' (middle)"
#: A cell of each class (both orders of the refusals), and the note ``compare`` prints beside it.
NOTES = [
    (SENT, SENT, ""),
    (OVER, OVER, ""),
    (SENT, side_of(Sent(BASE[0]), None), "the entries sent differ"),
    (OVER, side_of(None, _over(actual=54, stage="trim")), "differs in actual, stage"),
    (OVER, side_of(None, _over(_diagnostics(head_tokens=0, middle_tokens=50))), SPLIT_ONLY),
    (SENT, OVER, f"head refuses with OverBudgetError at {OVER_AT}"),
    (SENT, LOST, "head refuses with UncoveredDropError at -"),
    (OVER, SENT, f"base refused with OverBudgetError at {OVER_AT}"),
    (LOST, SENT, "base refused with UncoveredDropError at -"),
    (OVER, LOST, f"OverBudgetError at {OVER_AT} became UncoveredDropError at -"),
    (LOST, OVER, f"UncoveredDropError at - became OverBudgetError at {OVER_AT}"),
]


@pytest.mark.parametrize(("base", "head", "note"), NOTES, ids=[n or "same" for *_, n in NOTES])
def test_the_note_beside_each_class_names_what_differs(base, head, note):
    assert detail(base, head) == note


def test_the_note_of_every_class_is_pinned():
    assert {classify(base, head) for base, head, _ in NOTES} == set(CellClass)


@pytest.mark.parametrize(
    ("head", "fields"),
    [
        (UncoveredDropError(("m2",), {"m1": "not-covered", "m2": "not-covered"}), ("dropped", "categories")),
        (UncoveredDropError(("m1",), {"m1": "not-covered", "m2": "not-covered"}), ("categories",)),
        (UncoveredDropError(("m1",), {"m1": "in-tail-not-rendered"}), ("categories",)),
        (UncoveredDropError(("m1", "m2"), {"m1": "not-covered", "m2": "not-covered"}), ("dropped", "categories")),
    ],
    ids=["another message", "a category more", "another category", "a message more"],
)
def test_lost_messages_name_the_field_they_differ_in(head, fields):
    """Both sides read in the test (``LOST`` is read at import, before a mutation run switches a mutant on)."""
    base = side_of(None, UncoveredDropError(("m1",), {"m1": "not-covered"}))
    assert differences(base, side_of(None, head)) == fields
    assert detail(base, side_of(None, head)) == "differs in " + ", ".join(fields)


def test_other_messages_lost_in_the_same_categories_differ_in_the_lost_messages_alone():
    both = {"m1": "not-covered", "m2": "not-covered"}
    base, head = side_of(None, UncoveredDropError(("m1",), both)), side_of(None, UncoveredDropError(("m2",), both))
    assert differences(base, head) == ("dropped",) and detail(base, head) == "differs in dropped"
