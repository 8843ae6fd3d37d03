"""The budget diagnostics of 57b92494 on the newer lines (``Behaviour.BUDGET_DIAGNOSTICS``; docs/model.md, Emission
and the grace check): the summary inventory every refusal reports, the message's labelled wording, the invariant that
judges both, and the conformance files that transcribe upstream's test of them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given

from invariants.generators import Case, cases
from invariants.reproduce import compare, judge_variant, observe
from reference.expect import expectation_for
from reference.model import Budget, Config
from reference.scenario import load_scenario
from reference.variant_names import HYSTERESIS, MAIN, PR, RAW_FORMS, SOUND
from strategies import HierarchicalStrategy, OverBudgetError
from strategies.defects import LINE_BEHAVIOURS, Behaviour, parse_variant
from strategies.provenance import MODELS
from tests.builders import store, summary
from tests.judge_helpers import broken, judged, tamper, with_diagnostics

LINES = (HYSTERESIS, RAW_FORMS)
WITHOUT = {line: parse_variant(f"{line}-BUDGET_DIAGNOSTICS") for line in LINES}
CORPUS = sorted((Path(__file__).parent / "scenarios" / "typescript").glob("overbudget-diagnostics*.scenario.json"))
#: Three L1s, two of them merged into an L2: the inventory counts the merged ones too.
PYRAMID = store(
    6,
    [
        summary("L1-0", 0, 1, parent="L2-0"),
        summary("L1-1", 2, 3, parent="L2-0"),
        summary("L2-0", 0, 3, level=2, sources=["L1-0", "L1-1"]),
        summary("L1-2", 4, 5),
    ],
)
#: The words of each violation ``diagnostics-full`` reports of the inventory or of the message that states it.
INVENTORY_WORDS = ("deepest_available_level is", "summary_counts_by_level is", "does not end with")
#: A refusal of the pyramid at its first recall pair (no head, no tail).
PYRAMID_CASE = Case(PYRAMID, Config(), Budget(max_tokens=30, reserve_for_response=5))
#: A refusal of a store without summaries, at its head: an empty inventory, deepest level 0.
EMPTY_CASE = Case(store(1), Config(head_window_tokens=10**6), Budget(max_tokens=5))


def refusal(case: Case, variant) -> OverBudgetError:
    strategy = HierarchicalStrategy(case.config, variant)
    strategy.initialize(case.store)
    with pytest.raises(OverBudgetError) as info:
        strategy.compile(case.budget)
    return info.value


def about_inventory(violation: str) -> bool:
    return any(w in violation for w in INVENTORY_WORDS)


def test_the_newer_lines_carry_the_budget_diagnostics_and_declare_its_commit():
    for line in LINES:
        assert Behaviour.BUDGET_DIAGNOSTICS in LINE_BEHAVIOURS[line], line
        assert "57b92494" in MODELS[line].commits, line
    for seed in (MAIN, PR, SOUND):
        assert Behaviour.BUDGET_DIAGNOSTICS not in LINE_BEHAVIOURS.get(seed, frozenset()), seed


@pytest.mark.parametrize("line", LINES)
def test_the_inventory_counts_every_stored_summary_merged_ones_too(line):
    d = refusal(PYRAMID_CASE, line).diagnostics
    assert (d.deepest_available_level, dict(d.summary_counts_by_level)) == (2, {1: 3, 2: 1})
    empty = refusal(EMPTY_CASE, line).diagnostics
    assert (empty.deepest_available_level, dict(empty.summary_counts_by_level)) == (0, {})


@pytest.mark.parametrize("variant", [MAIN, PR, SOUND, *WITHOUT.values()], ids=[MAIN, PR, SOUND, *WITHOUT])
def test_a_variant_without_the_behaviour_reports_no_inventory_and_keeps_its_wording(variant):
    err = refusal(PYRAMID_CASE, variant)
    assert (err.diagnostics.deepest_available_level, err.diagnostics.summary_counts_by_level) == (None, None)
    assert "cleared by: " in str(err) and "summary inventory" not in str(err)


def test_the_lines_message_is_the_typescript_template():
    """picker.ts at 731e2707: the stage, the totals, the unit's count, the attempted level, the inventory (levels
    ascending), then configured, response reserve and input budget, numbers as JavaScript writes them."""
    err = refusal(PYRAMID_CASE, HYSTERESIS)
    d = err.diagnostics
    assert str(err) == (
        f"Hierarchical emission overran the budget but {err.actual} tokens still exceed hard budget 25 "
        f"(head=0, tail=0, middle={d.middle_tokens}, selected middle representations={d.middle_count}, "
        f"attempted representation level=L{d.deepest_level}, deepest available level=L2, "
        "summary inventory: L1=3 L2=1, configured=30, response reserve=5, input budget=25)"
    )
    raw = refusal(Case(store(2), Config(positioned_recall_pairs=False), Budget(max_tokens=15)), RAW_FORMS)
    assert "middle raw messages=2, attempted representation level=L0, deepest available level=L0, " in str(raw)
    assert str(raw).endswith("summary inventory: empty, configured=15, response reserve=0, input budget=15)")
    half = OverBudgetError(
        budget=1.5,
        actual=float("nan"),
        stage="s",
        diagnostics=dataclasses.replace(d, deepest_available_level=None),
        item="x",
    )
    assert str(half).startswith("s but NaN tokens still exceed hard budget 1.5 (")
    assert "deepest available level" not in str(half) and "summary inventory: L1=3 L2=1, configured" in str(half)


# ----------------------------------------------------------------------------- the invariant


@pytest.mark.parametrize("case", [PYRAMID_CASE, EMPTY_CASE], ids=["pyramid", "empty"])
def test_diagnostics_full_holds_on_the_inventory_and_its_message(case):
    assert judged("diagnostics-full", case, parse_variant("sound+BUDGET_DIAGNOSTICS")) == []
    for line in LINES:  # the lines' defects may break it; their inventory never does
        assert not [v for v in judged("diagnostics-full", case, line) if about_inventory(v.message)], line


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"deepest_available_level": 3}, "deepest_available_level is 3, expected 2"),
        ({"deepest_available_level": None}, "deepest_available_level is None, expected 2"),
        ({"deepest_available_level": 2.0}, "deepest_available_level is 2.0, expected 2"),
        ({"summary_counts_by_level": {1: 2, 2: 1}}, "summary_counts_by_level is [(1, 2), (2, 1)]"),
        ({"summary_counts_by_level": {1: 3}}, "summary_counts_by_level is [(1, 3)]"),
        ({"summary_counts_by_level": {1: 3, 2: 1, 3: 0}}, "summary_counts_by_level is [(1, 3), (2, 1), (3, 0)]"),
        ({"reserve_for_response": 6}, "response reserve=6, input budget=25)' does not end with"),
    ],
)
def test_diagnostics_full_breaks_on_a_wrong_inventory_or_a_message_that_misstates_it(monkeypatch, changes, words):
    line = parse_variant("sound+BUDGET_DIAGNOSTICS")
    tamper(monkeypatch, refused=lambda err, _: with_diagnostics(err, **changes))
    broken("diagnostics-full", PYRAMID_CASE, line, words)


def test_diagnostics_full_breaks_on_an_inventory_off_the_line(monkeypatch):
    tamper(monkeypatch, refused=lambda err, _: with_diagnostics(err, deepest_available_level=2))
    broken("diagnostics-full", PYRAMID_CASE, "sound", "deepest_available_level is 2, expected None")


@given(case=cases())
def test_the_lines_refusals_state_the_stores_inventory(case):
    """Over generated cases, every refusal of the hysteresis line reports the inventory the reference counts."""
    for v in judged("diagnostics-full", case, HYSTERESIS):
        assert not about_inventory(v.message), v.message


# ----------------------------------------------------------------------------- the conformance files


def test_the_corpus_transcribes_the_diagnostics_tests():
    assert [f.name.removesuffix(".scenario.json") for f in CORPUS] == [
        "overbudget-diagnostics-combined",
        "overbudget-diagnostics-hierarchical-labels",
        "overbudget-diagnostics-hierarchical",
        "overbudget-diagnostics-positioned",
    ]


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("path", CORPUS, ids=[f.name.removesuffix(".scenario.json") for f in CORPUS])
def test_each_diagnostics_file_holds_on_the_line_and_is_red_without_the_behaviour(path, line):
    """The line's expectation holds there; on the same line without the behaviour, exactly the line-specific
    fields (the inventory, the message) fail."""
    scenario = load_scenario(path)
    assert judge_variant(scenario, line).ok
    expectation = expectation_for(scenario.expect, line)
    lines = compare(expectation, observe(scenario, WITHOUT[line], invariants=False))
    failed = {ln.field for ln in lines if not ln.ok}
    assert failed and failed <= {
        "refuses.deepest_available_level",
        "refuses.summary_counts_by_level",
        "refuses.message_matches",
    }, failed
    assert "refuses.message_matches" in failed
