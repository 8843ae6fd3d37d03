"""The scenario expectations judged (``reference/expect.py``, ``invariants/reproduce.py``): every kind, ``sends``
and ``refuses`` field by field, ``breaks`` and ``holds``, fails on an outcome that contradicts it and passes on one
that matches."""

from __future__ import annotations

import dataclasses
import math

import pytest

from invariants.properties import Violation
from invariants.reproduce import Observed, compare
from reference.expect import Expectation, Refuses, Sends
from reference.model import Image, Text

SENT = Sends(
    entries=3,
    total=30,
    raw_ids=("m0", "m2"),
    summaries=(("L1-0",),),
    images=".I",
    content=((Text("[image omitted]"), Image()), (Text("hello"),)),
)
REFUSED = Refuses(
    error="OverBudgetError",
    site="positioned-pair",
    unit="selection-items",
    cleared_by=("compression",),
    head_tokens=10,
    middle_tokens=56,
    actual=66,
    refused=("L1-0",),
    dropped=("m1",),
    categories={"m1": "not-covered"},
    field="max_tokens",
    budget=50,
    configured_budget=60,
    reserve_for_response=10,
    input_budget=50,
)
#: For each field, a value that contradicts the observed one.
OTHER = {
    "entries": 4,
    "total": 31,
    "raw_ids": ("m0",),
    "summaries": (("L1-1",),),
    "error": "UncoveredDropError",
    "site": "head",
    "unit": "raw-messages",
    "cleared_by": (),
    "head_tokens": 9,
    "middle_tokens": 57,
    "actual": math.nan,
    "refused": ("m1",),
    "dropped": ("m1", "m2"),
    "categories": {"m1": "in-tail-not-rendered"},
    "field": "reserve_for_response",
    "images": "I.",
    "content": ((Text("[image omitted]"), Image()), (Text("hello!"),)),
    "budget": 49,
    "configured_budget": 50,
    "reserve_for_response": 0,
    "input_budget": math.nan,
}


def _observed(sends=None, refuses=None, violations=()) -> Observed:
    return Observed("sound", sends, refuses, "-", tuple(violations))


def _ok(expectation: Expectation, observed: Observed) -> bool:
    return all(line.ok for line in compare(expectation, observed))


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Sends)])
def test_each_sends_field_fails_on_an_outcome_that_contradicts_it(field):
    observed = _observed(sends=SENT)
    assert _ok(Expectation(sends=Sends(**{field: getattr(SENT, field)})), observed)
    lines = compare(Expectation(sends=Sends(**{field: OTHER[field]})), observed)
    assert [line.field for line in lines if not line.ok] == [f"sends.{field}"]


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Refuses)])
def test_each_refuses_field_fails_on_an_outcome_that_contradicts_it(field):
    observed = _observed(refuses=REFUSED)
    assert _ok(Expectation(refuses=Refuses(**{field: getattr(REFUSED, field)})), observed)
    lines = compare(Expectation(refuses=Refuses(**{field: OTHER[field]})), observed)
    assert [line.field for line in lines if not line.ok] == [f"refuses.{field}"]


def test_cleared_by_compares_as_a_set_and_nan_equals_nan():
    both = Refuses(cleared_by=("compression", "budget"), actual=math.nan)
    observed = _observed(refuses=dataclasses.replace(REFUSED, cleared_by=("budget", "compression"), actual=math.nan))
    assert _ok(Expectation(refuses=both), observed)


def test_sends_fails_on_a_refusal_and_refuses_on_a_send():
    assert not _ok(Expectation(sends=Sends()), _observed(refuses=REFUSED))
    assert not _ok(Expectation(refuses=Refuses()), _observed(sends=SENT))
    assert not _ok(Expectation(sends=Sends(), refuses=None), _observed())
    assert _ok(Expectation(sends=Sends()), _observed(sends=SENT))
    assert _ok(Expectation(refuses=Refuses()), _observed(refuses=REFUSED))
    lines = compare(Expectation(sends=Sends(entries=3)), _observed(refuses=REFUSED))
    assert [line.field for line in lines if not line.ok] == ["outcome", "sends.entries"]


def test_breaks_fails_unless_each_named_invariant_breaks():
    observed = _observed(sends=SENT, violations=[Violation("never-over", "x"), Violation("stats-total", "y")])
    assert _ok(Expectation(breaks=("never-over",)), observed)
    assert _ok(Expectation(breaks=("never-over", "stats-total")), observed)
    lines = compare(Expectation(breaks=("never-over", "nothing-lost")), observed)
    assert [line.field for line in lines if not line.ok] == ["breaks nothing-lost"]
    assert not _ok(Expectation(breaks=("never-over",)), _observed(sends=SENT))


def test_holds_fails_when_any_invariant_breaks():
    assert _ok(Expectation(holds=True), _observed(sends=SENT))
    lines = compare(Expectation(holds=True), _observed(sends=SENT, violations=[Violation("determinism", "z")]))
    assert [(line.field, line.actual) for line in lines if not line.ok] == [("holds", "breaks determinism")]
