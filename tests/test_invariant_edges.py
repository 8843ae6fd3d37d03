"""The invariants on the known edges (``invariants.examples``) and the library's surface: example tests, so that
mutmut's operator mutants meet them too (the property searches of ``tests/test_invariants.py`` stay out of its
runs for speed)."""

from __future__ import annotations

import pytest

from invariants import Case, Counterexample, InvariantViolation, assert_holds, check, find, polish
from invariants import examples as known
from invariants.generators import ESTIMATORS
from invariants.properties import INVARIANTS
from reference.model import Budget, Config, Message, Store, Summary, Text

FAITHFUL = ("main-48bb87a1", "pr-8bb01ab8")


# ----------------------------------------------------------------------------- the edges themselves


@pytest.mark.parametrize("name", list(known.ALL))
def test_sound_holds_every_invariant_on_the_known_edges(name):
    assert check(*known.ALL[name], "sound") == []


def test_the_known_edges_show_what_they_say():
    # Read by hand from docs/model.md (cap, prices, defects); a failure here means an edge no longer shows its defect.
    assert {v.invariant for v in check(*known.COMBINED_OVER_GRACE, "main-48bb87a1")} >= {"never-over"}
    assert check(*known.COMBINED_OVER_GRACE, "pr-8bb01ab8") == []
    for variant in FAITHFUL:
        assert {v.invariant for v in check(*known.RAW_CAP_BELOW_SENT, variant)} >= {"stats-total", "never-over"}
        assert {v.invariant for v in check(*known.NAN_STAMP, variant)} >= {"never-over", "bad-values"}
        assert {v.invariant for v in check(*known.COMBINED_LEAVES_ONE_OUT, variant)} >= {"nothing-lost"}
        assert {v.invariant for v in check(*known.HEAD_REFUSAL_WITH_WORK, variant)} == {"diagnostics"}
        assert {v.invariant for v in check(*known.COMBINED_ORDER_ACROSS_BUDGETS, variant)} >= {"exact-budget"}
        assert {v.invariant for v in check(*known.DEEP_SUMMARY_IN_THE_TAIL, variant)} >= {"exact-budget"}


# ----------------------------------------------------------------------------- the library surface


@pytest.mark.harness
def test_every_invariant_is_named():
    assert set(INVARIANTS) == {
        "stats-total",
        "exact-budget",
        "never-over",
        "nothing-lost",
        "diagnostics",
        "bad-values",
        "determinism",
        "well-formed",
        "rendering",
        "selection",
        "exactly-once",
        "chronological",
        "tail-suffix",
        "diagnostics-full",
        "store-unchanged",
    }


def test_violations_explain_themselves_with_numbers():
    [violation] = INVARIANTS["never-over"](*known.NAN_STAMP, "pr-8bb01ab8")
    assert violation.invariant == "never-over"
    assert "grace limit 5" in violation.message and "reference price" in violation.message
    with pytest.raises(InvariantViolation, match="never-over"):
        assert_holds("never-over", *known.NAN_STAMP, "pr-8bb01ab8")
    assert issubclass(InvariantViolation, AssertionError)


@pytest.mark.harness
def test_polish_keeps_only_the_store_settings_the_break_needs():
    """A break that needs an epoch-0 store keeps epoch 0; the calibration and the estimator it does not need
    go back to the plain store's (1.0, the default estimator)."""
    store = Store(
        (Message("m0", "user", (Text("hello"),)),), calibration=2.0, pricing_epoch=0, text_estimator=ESTIMATORS[0]
    )
    polished = polish(Case(store, Config(), Budget(max_tokens=100)), lambda c: c.store.pricing_epoch == 0)
    assert (polished.store.calibration, polished.store.pricing_epoch, polished.store.text_estimator) == (1.0, 0, None)


@pytest.mark.harness
def test_polish_plainens_the_summary_fields_the_break_does_not_need():
    """A break that needs L1-0's measured tokens keeps them; its carriers and the other summary's tokens go."""
    messages = (Message("m0", "user", (Text("hello"),)), Message("m1", "user", (Text("there"),)))
    summaries = tuple(
        Summary(
            id=f"L1-{k}",
            level=1,
            content="s",
            tokens=40 + k,
            source_level=0,
            source_ids=(f"m{k}",),
            source_range=(f"m{k}", f"m{k}"),
            parent_id=None,
            response_content=(Text("carried"),),
        )
        for k in range(2)
    )
    case = Case(Store(messages, summaries), Config(), Budget(max_tokens=100))
    polished = polish(case, lambda c: any(s.id == "L1-0" and s.tokens == 40 for s in c.store.summaries))
    assert [(s.id, s.tokens, s.response_content) for s in polished.store.summaries] == [("L1-0", 40, None)]


def test_find_returns_a_shrunk_counterexample_or_none():
    found = find("determinism", "main-48bb87a1", max_examples=50)
    assert isinstance(found, Counterexample)
    assert found.violations and all(v.invariant == "determinism" for v in found.violations)
    assert INVARIANTS["determinism"](found.store, found.config, found.budget, "main-48bb87a1")
    assert len(found.store.messages) == 1  # shrunk: one message is enough for a dry run to fill the memo
    assert "determinism breaks on main-48bb87a1" in found.describe()
    assert find("never-over", "sound", max_examples=20) is None
