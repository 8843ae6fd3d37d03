"""The expectation checks on generated cases: what a variant did, written to a scenario file and read back, is
what it did; every field of that pin, made wrong alone, fails the verdict on that field; a variant's own key wins
over its group's.
"""

from __future__ import annotations

import math
from dataclasses import fields, replace

from hypothesis import given
from hypothesis import strategies as st

from invariants.generators import Case, cases
from invariants.reproduce import expectation_of, judge, observe
from reference.expect import ERRORS, SITES, Expectation, Refuses, Sends
from reference.numerics import is_number
from reference.scenario import Scenario, dumps_scenario, loads_scenario

MAIN = "main-48bb87a1"


def written(case: Case) -> Scenario:
    """The case as a scenario file can hold it (a custom text estimator cannot be written in JSON)."""
    store, config, budget = case
    return Scenario(replace(store, text_estimator=None), config, budget)


def read_back(scenario: Scenario, expect: dict[str, Expectation]) -> Scenario:
    """``scenario`` with ``expect``, through its file's text."""
    return loads_scenario(dumps_scenario(replace(scenario, expect=expect)))


def other(name: str, value: object, data: st.DataObject) -> object:
    """A value of field ``name`` that contradicts ``value``."""
    if name in ("entries", "middle_count", "deepest_available_level"):  # integers: a NaN would not read
        return value + 1
    if name == "summary_counts_by_level":
        return {**value, 9: 1}
    if is_number(value):
        if not math.isfinite(value):
            return 0
        return data.draw(st.sampled_from([value + 1, math.nan]), label=f"wrong {name}")
    if name == "error":
        return next(e for e in ERRORS if e != value)
    if name == "site":
        return next(s for s in SITES if s != value)
    if name == "unit":
        return "raw-messages" if value == "selection-items" else "selection-items"
    if name == "cleared_by":
        return () if value else ("compression",)
    if name == "summaries":
        return (*value, ("nope",))
    if name == "categories":
        return {**value, "nope": "not-covered"}
    if isinstance(value, tuple):
        return (*value, "nope")
    return f"{value}-not"


@given(case=cases(), data=st.data())
def test_each_field_of_a_pinned_outcome_made_wrong_fails_its_verdict_on_that_field(case, data):
    scenario = written(case)
    pin = expectation_of(observe(scenario, "sound", invariants=False))
    (verdict,) = judge(read_back(scenario, {"sound": pin}), ["sound"])
    assert verdict.ok, verdict.explain()
    part_name = "sends" if pin.sends is not None else "refuses"
    part: Sends | Refuses | None = getattr(pin, part_name)
    if part is None:  # a crash pins nothing to compare
        return
    for f in fields(part):
        value = getattr(part, f.name)
        if value is None:
            continue
        wrong = replace(pin, **{part_name: replace(part, **{f.name: other(f.name, value, data)})})
        (verdict,) = judge(read_back(scenario, {"sound": wrong}), ["sound"])
        failed = [ln.field for ln in verdict.lines if not ln.ok]
        assert f"{part_name}.{f.name}" in failed, f"{f.name} made wrong, yet:\n{verdict.explain()}"


@given(case=cases())
def test_a_variants_own_expectation_wins_over_its_groups(case):
    scenario = written(case)
    pin = expectation_of(observe(scenario, MAIN, invariants=False))
    if pin.sends is None and pin.refuses is None:
        return
    contrary = Expectation(refuses=Refuses()) if pin.sends is not None else Expectation(sends=Sends())
    for group in ("faithful", "all"):
        (verdict,) = judge(read_back(scenario, {group: contrary, MAIN: pin}), [MAIN])
        assert verdict.ok, f"{group}'s expectation overrode {MAIN}'s own:\n{verdict.explain()}"
