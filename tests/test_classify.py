"""The seed's seven classes of a compared cell (reports/compare/classify.py), pinned on hand-built sides."""

from __future__ import annotations

import pytest

from reference.model import Entry, Text
from reports.compare.classify import SPLIT_ONLY, CellClass, Side, classify, detail, differences, side_of
from strategies.errors import Diagnostics, OverBudgetError, UncoveredDropError
from strategies.stats import RenderStats


class Sent:
    def __init__(self, *texts: str) -> None:
        self.entries = tuple(Entry("user", (Text(t),), "raw", message_id=f"m{k}") for k, t in enumerate(texts))
        self.stats = RenderStats()


def over(item: str = "message 'm3' (middle)", head: int = 10, middle: int = 40, cleared=()) -> OverBudgetError:
    d = Diagnostics(
        head_tokens=head,
        tail_tokens=0,
        middle_tokens=middle,
        middle_count=2,
        middle_count_unit="raw-messages",
        deepest_level=0,
        configured_budget=45,
        reserve_for_response=0,
        input_budget=45,
        cleared_by=frozenset(cleared),
    )
    return OverBudgetError(budget=45, actual=head + middle, stage="stage", diagnostics=d, item=item, refused=("m3",))


def lost(*ids: str) -> UncoveredDropError:
    return UncoveredDropError(ids, {m: "in-tail-not-rendered" for m in ids})


SENT_A = side_of(Sent("a", "b"), None)
SENT_B = side_of(Sent("a", "c"), None)

CASES = [
    (SENT_A, side_of(Sent("a", "b"), None), CellClass.SAME_BYTES),
    (SENT_A, SENT_B, CellClass.DIFFERENT_BYTES),
    (side_of(None, over()), side_of(None, over()), CellClass.REFUSED_SAME),
    (side_of(None, lost("m1")), side_of(None, lost("m1")), CellClass.REFUSED_SAME),
    (side_of(None, over()), side_of(None, over(item="message 'm4' (middle)")), CellClass.REFUSED_DIFFERENTLY),
    (side_of(None, over(head=0, middle=50)), side_of(None, over()), CellClass.REFUSED_DIFFERENTLY),
    (side_of(None, lost("m1")), side_of(None, lost("m1", "m2")), CellClass.REFUSED_DIFFERENTLY),
    (SENT_A, side_of(None, over()), CellClass.BASE_SENT_HEAD_REFUSES),
    (side_of(None, lost("m1")), SENT_A, CellClass.BASE_REFUSED_HEAD_SENDS),
    (side_of(None, over()), side_of(None, lost("m1")), CellClass.OTHER_ERROR_KIND),
]


@pytest.mark.harness
@pytest.mark.parametrize(("base", "head", "expected"), CASES, ids=[f"{c[2].name}-{k}" for k, c in enumerate(CASES)])
def test_every_class_on_hand_built_cells(base, head, expected):
    assert classify(base, head) is expected
    assert expected.differs == (expected not in (CellClass.SAME_BYTES, CellClass.REFUSED_SAME))


@pytest.mark.harness
def test_every_class_is_pinned():
    assert {c[2] for c in CASES} == set(CellClass)


def test_a_split_only_refusal_is_named_so():
    base, head = side_of(None, over(head=0, middle=50)), side_of(None, over(head=10, middle=40))
    assert set(differences(base, head)) == {"head_tokens", "middle_tokens"}
    assert detail(base, head) == SPLIT_ONLY


def test_cleared_by_is_a_difference_of_its_own():
    base, head = side_of(None, over(cleared=("compression",))), side_of(None, over())
    assert differences(base, head) == ("cleared_by",)
    assert detail(base, head) == "differs in cleared_by"


def test_a_crash_is_a_refusal_of_its_own_kind():
    assert classify(side_of(None, ValueError("x")), side_of(None, over())) is CellClass.OTHER_ERROR_KIND
    assert side_of(None, ValueError("x")) == Side(False, error="ValueError", report=(("message", "x"),))
