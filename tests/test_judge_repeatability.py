"""The determinism and store-unchanged invariants judged (``invariants/properties/repeatability.py``): the state
defects break them alone in ``sound``, a compile that changes on one call breaks each of their comparisons, and a
strategy that rewrites the store it holds breaks store-unchanged; sound holds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from invariants import examples as known
from reference.model import Text
from strategies.defects import Defect
from tests import judge_cases as cases
from tests.judge_helpers import broken, judged, tamper, with_entries

DEFECT_BREAKS = [
    ("determinism", Defect.DRY_RUN_FILLS_MEMO, known.ONE_PAIR, "a dry run changed the answer-price memo"),
    ("determinism", Defect.MEMO_SURVIVES_INITIALIZE, known.ONE_PAIR, "after the other store"),
    ("determinism", Defect.VIEW_NOT_RESTORED, known.ONE_PAIR, "view is still bound"),
    ("store-unchanged", Defect.PRUNE_WRITES_STORE, cases.CAPPED_TOOL_INPUT, "rewrote the stored messages ['m0']"),
    ("store-unchanged", Defect.PRUNE_WRITES_STORE, cases.MARKED_TOOL_RESULT, "rewrote the stored messages ['m1']"),
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


# ----------------------------------------------------------------------------- store-unchanged


def test_store_unchanged_breaks_when_the_second_of_two_compiles_differs(monkeypatch):
    """A compile that drops its last entry on its second call only (the store left as it was)."""
    assert judged("store-unchanged", known.ONE_PAIR) == []
    tamper(monkeypatch, sent=_OnCall(2))
    found = broken("store-unchanged", known.ONE_PAIR, "sound", "the second of two compiles in a row differs")
    assert "rewrote" not in found.message


def _first_text_rewritten(store):
    """The store with its first message's first text block changed (what a compile writing into it leaves)."""
    first = store.messages[0]
    content = tuple(replace(b, text=b.text + "!") if isinstance(b, Text) else b for b in first.content)
    return replace(store, messages=(replace(first, content=content), *store.messages[1:]))


def test_store_unchanged_breaks_on_a_strategy_that_rewrites_its_store(monkeypatch):
    """A strategy that changes the first stored message after each compile: named by id, even where the second
    compile (over the rewritten store) is what tells it."""
    case = known.ONE_PAIR
    assert judged("store-unchanged", case) == []
    tamper(monkeypatch, held=_first_text_rewritten)
    found = broken("store-unchanged", case, "sound", "rewrote the stored messages")
    assert f"[{case.store.messages[0].id!r}]" in found.message
