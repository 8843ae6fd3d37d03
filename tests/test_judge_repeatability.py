"""The determinism and store-unchanged invariants judged (``invariants/properties/repeatability.py``): the state
defects break them alone in ``sound``, a compile that changes on one call breaks each of their comparisons, and a
strategy that rewrites the store it holds breaks store-unchanged; sound holds."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given

import invariants.properties.repeatability as repeatability
from invariants import examples as known
from invariants.generators import Case, stores
from invariants.properties import Violation, history_store
from reference.estimator import content_tokens
from reference.model import Budget, Config, Store, Text, Work
from reference.numerics import is_finite_nonneg
from strategies import HierarchicalStrategy
from strategies.defects import Defect
from tests import judge_cases as cases
from tests.builders import store
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
@pytest.mark.proves("determinism")
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


@pytest.mark.proves("store-unchanged")
def test_store_unchanged_breaks_on_a_strategy_that_rewrites_its_store(monkeypatch):
    """A strategy that changes the first stored message after each compile: named by id, even where the second
    compile (over the rewritten store) is what tells it."""
    case = known.ONE_PAIR
    assert judged("store-unchanged", case) == []
    tamper(monkeypatch, held=_first_text_rewritten)
    found = broken("store-unchanged", case, "sound", "rewrote the stored messages")
    assert f"[{case.store.messages[0].id!r}]" in found.message


# ----------------------------------------------------------------------------- what each comparison reports

#: ONE_PAIR at a budget its pair does not fit: sound refuses (OverBudgetError), the same way every time.
ONE_PAIR_REFUSED = replace(known.ONE_PAIR, budget=Budget(max_tokens=1))


@pytest.mark.parametrize("case, outcome", [(known.ONE_PAIR, "sent"), (ONE_PAIR_REFUSED, "refused")])
def test_determinism_names_each_call_after_which_the_view_stays_bound(case, outcome):
    """A strategy that never unbinds its view: after the dry run, the compile (named by what it did) and the second
    compile; the compiles themselves agree."""
    assert judged("determinism", case) == []
    assert judged("determinism", case, frozenset({Defect.VIEW_NOT_RESTORED})) == [
        Violation("determinism", f"after {what} the strategy's view is still bound (it was unbound before)")
        for what in ("a dry run", f"a compile that {outcome}", "a second compile")
    ]


def test_determinism_counts_the_memo_entries_a_dry_run_adds():
    assert judged("determinism", known.ONE_PAIR, frozenset({Defect.DRY_RUN_FILLS_MEMO})) == [
        Violation("determinism", "a dry run changed the answer-price memo (0 entries before, 1 after)")
    ]


def test_determinism_sees_a_dry_run_reprice_an_answer_the_memo_already_held(monkeypatch):
    """A strategy that starts with an answer priced in its memo and whose dry run prices it again, differently: the
    memo holds as many entries after as before, and the dry run still changed it."""

    class Repricing(HierarchicalStrategy):
        def initialize(self, s: Store) -> None:
            super().initialize(s)
            self._memo["an answer"] = 5

        def compile(self, b: Budget, dry_run: bool = False):
            if dry_run:
                self._memo["an answer"] = 6
            return super().compile(b, dry_run=dry_run)

    monkeypatch.setattr(repeatability, "HierarchicalStrategy", Repricing)
    assert Violation("determinism", "a dry run changed the answer-price memo (1 entries before, 1 after)") in judged(
        "determinism", known.ONE_PAIR
    )


def test_determinism_compares_with_a_compile_after_another_store_only():
    """A memo surviving ``initialize`` shows only in the compile after the other store: what it did fresh and what it
    did after."""
    [v] = judged("determinism", known.ONE_PAIR, frozenset({Defect.MEMO_SURVIVES_INITIALIZE}))
    assert v.invariant == "determinism"
    assert v.message.startswith(
        "a strategy that first compiled another store with the same summary ids and tokens gives another outcome "
        "after initialize: fresh, it sent 2 entries (stats total 8); after the other store, it raised OverBudgetError"
    )


CRASHED = (
    "the compile crashed with RuntimeError: boom (only OverBudgetError, UncoveredDropError or InvalidConfigError "
    "may refuse)"
)


def _boom(result, b):
    raise RuntimeError("boom")


@pytest.mark.parametrize("invariant", ["determinism", "store-unchanged"])
def test_a_compile_that_always_crashes_is_reported_once_as_a_crash(monkeypatch, invariant):
    """Every compile crashes alike: nothing differs between them, the crash is the one violation."""
    tamper(monkeypatch, sent=_boom)
    assert judged(invariant, known.ONE_PAIR) == [Violation(invariant, CRASHED)]


class _ViewLeftBound(HierarchicalStrategy):
    """A strategy whose ``initialize`` binds the view to the store (and so every compile restores it bound)."""

    def initialize(self, store) -> None:
        super().initialize(store)
        self._view = store


def test_determinism_breaks_when_initialize_leaves_a_view_bound(monkeypatch):
    monkeypatch.setattr(repeatability, "HierarchicalStrategy", _ViewLeftBound)
    found = judged("determinism", known.ONE_PAIR)
    assert Violation("determinism", "initialize left a view bound") in found
    assert all(v.invariant == "determinism" for v in found)


def test_the_other_store_is_built_once_per_store():
    store = known.ONE_PAIR.store
    assert history_store(store) is history_store(store)


def test_the_other_store_keeps_the_summary_tree_and_tokens_and_changes_every_text():
    """Same messages, work and settings, same summary ids, levels, tree and measured tokens; every non-empty summary
    text and every carrier text other (an empty one stays empty, blank as before), and another estimator."""
    case = cases.HEAD_THEN_PAIR_REFUSED
    blank = replace(case.store.summaries[0], id="L1-1", content="", source_ids=("m3",), source_range=("m3", "m3"))
    original = replace(
        case.store,
        summaries=(*case.store.summaries, blank),
        calibration=1.5,
        pricing_epoch=0,
        work=(Work("chunk", "queued", frozenset({"m3"})),),
    )
    other = history_store(original)
    assert other.messages == original.messages
    assert (other.work, other.calibration, other.pricing_epoch) == (
        original.work,
        original.calibration,
        original.pricing_epoch,
    )
    assert [(s.id, s.level, s.tokens, s.source_ids, s.parent_id) for s in other.summaries] == [
        (s.id, s.level, s.tokens, s.source_ids, s.parent_id) for s in original.summaries
    ]
    first, empty = other.summaries
    assert first.content != original.summaries[0].content and first.content.strip()
    assert empty.content == ""
    texts = [b.text for b in first.response_content if isinstance(b, Text)]
    was = [b.text for b in original.summaries[0].response_content if isinstance(b, Text)]
    assert len(texts) == len(was) == 1 and texts != was
    assert [type(b) for b in first.response_content] == [type(b) for b in original.summaries[0].response_content]
    assert original.text_estimator is None and other.text_estimator is not None
    text = "a" * 8
    assert other.text_estimator(text) != content_tokens((Text(text),), original)
    assert all(is_finite_nonneg(other.text_estimator("a" * n)) for n in range(5))  # an ordinary estimator
    assert history_store(Store(original.messages, text_estimator=other.text_estimator)).text_estimator is None


def test_store_unchanged_breaks_on_a_strategy_that_drops_a_stored_message(monkeypatch):
    three = Case(store(3), Config(), Budget(max_tokens=100))
    assert judged("store-unchanged", three) == []
    tamper(monkeypatch, held=lambda s: replace(s, messages=s.messages[:-1]))
    broken("store-unchanged", three, "sound", "rewrote the stored messages")


@given(store_=stores())
def test_the_other_store_keeps_the_tree_and_tokens_and_changes_every_text(store_):
    """Determinism's other store has each summary's id, level, tree and tokens, and other texts wherever there is
    text (its prose, its carriers' Text) or another estimator: a memo keyed by id and tokens that survives
    ``initialize`` would give it away."""
    other = history_store(store_)
    assert other.messages == store_.messages
    assert [s.id for s in other.summaries] == [s.id for s in store_.summaries]
    for s, o in zip(store_.summaries, other.summaries, strict=True):
        assert (o.level, o.parent_id, o.source_ids, o.source_range) == (
            s.level,
            s.parent_id,
            s.source_ids,
            s.source_range,
        )
        assert repr(o.tokens) == repr(s.tokens)
        if s.content:
            assert o.content != s.content, s.id
        carried = [b.text for b in s.response_content or () if isinstance(b, Text)]
        assert [b.text for b in o.response_content or () if isinstance(b, Text)] != carried or not carried, s.id
    assert other.text_estimator is not store_.text_estimator
