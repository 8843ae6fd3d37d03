"""The scenario expectations judged (``reference/expect.py``, ``invariants/reproduce.py``): every kind, ``sends``
and ``refuses`` field by field, ``breaks`` and ``holds``, fails on an outcome that contradicts it and passes on one
that matches."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from invariants.properties import INVARIANTS, Violation
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
    middle_count=3,
    deepest_available_level=2,
    summary_counts_by_level={1: 3, 2: 1},
    message="Hierarchical emission overran the budget but 66 tokens still exceed hard budget 50 (...)",
    message_matches=("still exceed hard budget 50",),
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
    "middle_count": 2,
    "deepest_available_level": 1,
    "summary_counts_by_level": {1: 3},
    "message": "Hierarchical emission overran the budget",
    "message_matches": ("hard budget 49",),
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


@given(
    broken=st.lists(st.sampled_from(sorted(INVARIANTS)), unique=True),
    named=st.lists(st.sampled_from(sorted(INVARIANTS)), min_size=1, unique=True),
)
def test_each_breaks_line_passes_exactly_when_its_own_invariant_breaks(broken, named):
    """Whatever else breaks, ``breaks X`` passes when X breaks and fails when it holds; ``holds`` passes only when
    nothing breaks."""
    observed = _observed(sends=SENT, violations=[Violation(name, "x") for name in broken])
    lines = {line.field: line.ok for line in compare(Expectation(breaks=tuple(named)), observed)}
    assert lines == {f"breaks {name}": name in broken for name in named}
    assert _ok(Expectation(holds=True), observed) == (not broken)


@given(compressions=st.lists(st.sampled_from(["compression", "reset", "summarize", "x"]), min_size=2, unique=True))
def test_cleared_by_passes_in_any_order_of_the_same_compressions(compressions):
    observed = _observed(refuses=dataclasses.replace(REFUSED, cleared_by=tuple(sorted(compressions))))
    assert _ok(Expectation(refuses=Refuses(cleared_by=tuple(compressions))), observed)
    assert not _ok(Expectation(refuses=Refuses(cleared_by=tuple(compressions[1:]))), observed)


def test_holds_fails_when_any_invariant_breaks():
    assert _ok(Expectation(holds=True), _observed(sends=SENT))
    lines = compare(Expectation(holds=True), _observed(sends=SENT, violations=[Violation("determinism", "z")]))
    assert [(line.field, line.actual) for line in lines if not line.ok] == [("holds", "breaks determinism")]


# ----------------------------------------------------------------------------- a failed line shows two values

#: Values the check tells apart that a looser wording shows as one: an id holding the list's own separator, a
#: string of digits against the number, integers the doubles cannot tell apart, a string against a one-item list.
LOOK_ALIKE = [
    ("refused", ('L1-0", "L1-1',), ("L1-0", "L1-1")),
    ("refused", ("1",), (1,)),
    ("actual", 2**53 + 1, 2.0**53),
    ("site", "head", ("head",)),
    ("categories", {"m1": "1"}, {"m1": 1}),
]


def _line(field: str, want: object, got: object):
    """The one compared line of ``refuses.field``, ``want`` expected and ``got`` observed."""
    observed = _observed(refuses=dataclasses.replace(REFUSED, **{field: got}))
    (line,) = [ln for ln in compare(Expectation(refuses=Refuses(**{field: want})), observed) if ln.field != "outcome"]
    return line


@pytest.mark.parametrize(
    ("field", "want", "got"), LOOK_ALIKE, ids=[f"{f}-{k}" for k, (f, _, _) in enumerate(LOOK_ALIKE)]
)
def test_a_field_that_fails_shows_two_different_values(field, want, got):
    line = _line(field, want, got)
    assert not line.ok
    assert line.expected != line.actual, f"{line.field}: expected {line.expected}, got {line.actual}"


def test_content_with_a_nan_stamp_compares_as_javascript_compares_it():
    """Two NaN stamps are one JavaScript value: the content they sit in agrees, as the line reads."""
    want = ((Text("x"), Image(token_estimate=math.nan)),)
    observed = _observed(sends=dataclasses.replace(SENT, content=((Text("x"), Image(token_estimate=float("nan"))),)))
    (line,) = [ln for ln in compare(Expectation(sends=Sends(content=want)), observed) if ln.field != "outcome"]
    assert line.ok, f"{line.field}: expected {line.expected}, got {line.actual}"


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from((2**53, 2**53 + 1, 2.0**53, -0.0, math.nan, 0.5)),
    st.text('a1", \\', max_size=4),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text("ab", max_size=2), inner, max_size=2),
    ),
    max_leaves=6,
)


@given(want=_values.filter(lambda v: v is not None), got=_values)
def test_a_line_that_fails_never_reads_the_same_on_both_sides(want, got):
    """Whatever two values meet, the line agrees, or it shows them apart."""
    line = _line("refused", want, got)
    assert line.ok or line.expected != line.actual, f"{line.field}: expected {line.expected}, got {line.actual}"
