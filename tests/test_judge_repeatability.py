"""The determinism invariant judged (``invariants/properties/repeatability.py``): the state defects break it alone in
``sound``, and a compile that changes on one call breaks each of its comparisons; sound holds."""

from __future__ import annotations

import pytest

from invariants import examples as known
from strategies.defects import Defect
from tests.judge_helpers import broken, judged, tamper, with_entries

DEFECT_BREAKS = [
    ("determinism", Defect.DRY_RUN_FILLS_MEMO, known.ONE_PAIR, "a dry run changed the answer-price memo"),
    ("determinism", Defect.MEMO_SURVIVES_INITIALIZE, known.ONE_PAIR, "after the other store"),
    ("determinism", Defect.VIEW_NOT_RESTORED, known.ONE_PAIR, "view is still bound"),
]


@pytest.mark.parametrize(
    "invariant, defect, case, words", DEFECT_BREAKS, ids=[f"{i}-{d.name}" for i, d, _, _ in DEFECT_BREAKS]
)
def test_each_defect_of_the_strategys_state_breaks_it(invariant, defect, case, words):
    assert judged(invariant, case, "sound") == []
    broken(invariant, case, frozenset({defect}), words)


# ----------------------------------------------------------------------------- determinism


class _OnCall:
    """A compile that drops its last entry on its ``n``-th call only (what a leaking cache could do)."""

    def __init__(self, n: int) -> None:
        self.n, self.calls = n, 0

    def __call__(self, r, b):
        self.calls += 1
        return r if self.calls != self.n else with_entries(r, lambda k: k < len(r.entries) - 1)


#: determinism's compiles that send, in order: a dry run, the compile, a second compile, then one after initialize
#: over this store again (the compile over the other store, with its measured tokens, refuses).
@pytest.mark.parametrize(
    "call, words",
    [
        (1, "the dry run's outcome differs from the committing compile's"),
        (3, "a second compile on the same strategy differs from the first"),
        (4, "after the other store, it sent 1 entries"),
    ],
)
def test_determinism_breaks_on_a_compile_that_changes_between_calls(monkeypatch, call, words):
    assert judged("determinism", known.ONE_PAIR) == []
    tamper(monkeypatch, sent=_OnCall(call))
    broken("determinism", known.ONE_PAIR, "sound", words)
