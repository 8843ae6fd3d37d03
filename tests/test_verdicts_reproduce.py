"""``cmharness reproduce``'s verdict judged (reports/cli/reproduce.py, invariants/reproduce.py): an expectation wrong
in exactly one field is NOT as expected, on that field alone, and the command exits 1 naming it; right in every
field, it is as expected and exits 0. Every field of ``Sends`` and ``Refuses`` is tried, so a comparison that skips
one (or a field added to the records and not to the comparison) turns its case red."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import fields, replace
from pathlib import Path

import pytest
from builders import exact_budget, store, summary

from invariants.reproduce import Observed, compare, observe
from reference.expect import ERRORS, SITES, Expectation, Refuses, Sends
from reference.model import Budget, Config, Text
from reference.numerics import is_number
from reference.scenario import Scenario, save_scenario
from reports import cli
from reports.exit_codes import Exit

SENDS_FIELDS = [f.name for f in fields(Sends)]
REFUSES_FIELDS = [f.name for f in fields(Refuses)]

#: One value for every field an observed refusal can carry (an over-budget refusal's and a lost message's at once:
#: the comparison does not ask which error reports what).
REFUSED_VALUES: dict[str, object] = {
    "error": "OverBudgetError",
    "site": "positioned-pair",
    "unit": "selection-items",
    "cleared_by": ("compression", "recent-window"),
    "head_tokens": 10,
    "middle_tokens": 56.5,
    "middle_count": 3,
    "actual": 66.5,
    "refused": ("L1-0",),
    "dropped": ("m1", "m2"),
    "categories": {"m1": "not-covered", "m2": "in-tail-not-rendered"},
    "field": "head_window_tokens",
    "budget": 50,
    "configured_budget": 60,
    "reserve_for_response": 10,
    "input_budget": 50,
    "deepest_available_level": 2,
    "summary_counts_by_level": {1: 3, 2: 1},
    "message": "Hierarchical emission overran the budget: recall pair 'L1-0' takes the context to 66.5 tokens",
}
SENT = Sends(
    entries=2,
    total=30.5,
    raw_ids=("m0", "m2"),
    summaries=(("L1-0", "L1-1"),),
    images=".I",
    content=((Text("a"),), (Text("b"), Text("c"))),
)
#: Fields an expectation states that the observed record does not carry (checked another way).
PATTERN_FIELDS = {"message_matches"}


#: Fields whose values a scenario file restricts to a set: the wrong value is another member.
CHOICES: dict[str, tuple[str, ...]] = {
    "error": ERRORS,
    "site": SITES,
    "unit": ("selection-items", "raw-messages"),
}


def _wrong(value: object, name: str = "") -> object:
    """A value ``same`` tells apart from ``value``, of its kind (and one a scenario file accepts for ``name``)."""
    if name in CHOICES:
        return next(c for c in CHOICES[name] if c != value)
    if name == "images":
        return f"{value}I"
    if isinstance(value, bool):
        return not value
    if is_number(value):
        return value + 1 if math.isfinite(value) else 0
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple):
        return value[:-1] if value else ("x",)
    if isinstance(value, Mapping) and value:
        key = next(iter(value))
        return {**value, (key + 1000 if isinstance(key, int) else f"{key}x"): next(iter(value.values()))}
    raise TypeError(f"no wrong value for {value!r}")


def _refused() -> Refuses:
    missing = [f for f in REFUSES_FIELDS if f not in REFUSED_VALUES and f not in PATTERN_FIELDS]
    assert not missing, f"Refuses has field(s) {missing}: give each a value in REFUSED_VALUES"
    return Refuses(**{f: v for f, v in REFUSED_VALUES.items() if f in REFUSES_FIELDS})


def _right(observed: Sends | Refuses) -> Sends | Refuses:
    """The expectation that states every field as observed (a pattern matching the whole message)."""
    if isinstance(observed, Sends):
        return observed
    return replace(observed, **{f: (re.escape(observed.message),) for f in PATTERN_FIELDS if f in REFUSES_FIELDS})


def _one_wrong(right: Sends | Refuses, name: str) -> Sends | Refuses:
    if name in PATTERN_FIELDS:
        return replace(right, **{name: ("a pattern no message matches",)})
    return replace(right, **{name: _wrong(getattr(right, name), name)})


def _mismatches(expectation: Expectation, observed: Observed) -> list[str]:
    return [ln.field for ln in compare(expectation, observed) if not ln.ok]


# ----------------------------------------------------------------------------- the comparison, field by field


def test_an_expectation_right_in_every_field_is_as_expected():
    sent, refused = Observed("sound", SENT, None, "sends"), Observed("sound", None, _refused(), "refuses")
    assert _mismatches(Expectation(sends=_right(SENT)), sent) == []
    assert _mismatches(Expectation(refuses=_right(_refused())), refused) == []
    lines = compare(Expectation(refuses=_right(_refused())), refused)
    assert {ln.field for ln in lines} >= {f"refuses.{f}" for f in REFUSES_FIELDS}, "a field went uncompared"


@pytest.mark.parametrize("name", SENDS_FIELDS)
def test_a_sends_expectation_wrong_in_one_field_mismatches_on_that_field(name):
    observed = Observed("sound", SENT, None, "sends")
    assert _mismatches(Expectation(sends=_one_wrong(SENT, name)), observed) == [f"sends.{name}"]


@pytest.mark.parametrize("name", REFUSES_FIELDS)
def test_a_refuses_expectation_wrong_in_one_field_mismatches_on_that_field(name):
    observed = Observed("sound", None, _refused(), "refuses")
    wrong = _one_wrong(_right(_refused()), name)
    assert _mismatches(Expectation(refuses=wrong), observed) == [f"refuses.{name}"]


# ----------------------------------------------------------------------------- the command, on compiled scenarios


@pytest.fixture
def cases() -> dict[str, tuple[Scenario, Sends | Refuses]]:
    """#305's store on sound: at its exact budget it sends, one token below it refuses; each with what it did
    (compiled in each test that reads it: a wider fixture's compile would count as every test's call in the report's
    baseline, so a change to any function it runs would re-run the whole suite)."""
    config = Config(over_budget_grace_ratio=0, head_window_tokens=10, recall_header_template="[Recall {id}: {first}]")
    st = store(5, [summary("L1-1", 1, 3)])
    price = exact_budget(st, config)
    out = {}
    for kind, budget in (("sends", Budget(max_tokens=price)), ("refuses", Budget(max_tokens=price - 1))):
        sc = Scenario(st, config, budget)
        seen = observe(sc, "sound", invariants=False)
        out[kind] = (sc, seen.sends if kind == "sends" else seen.refuses)
    assert out["sends"][1] is not None and out["refuses"][1] is not None
    return out


def _reproduce(capsys, tmp_path: Path, scenario: Scenario, expected: Expectation) -> tuple[int, dict]:
    path = tmp_path / "case.scenario.json"
    save_scenario(replace(scenario, expect={"sound": expected}), path)
    code = cli.main(["reproduce", str(path), "--json"])
    out, err = capsys.readouterr()
    assert err == "", err
    return code, json.loads(out)


def _failed_fields(doc: dict) -> list[str]:
    assert not doc["errors"], doc["errors"]
    (variant,) = doc["scenarios"][0]["variants"]
    return [f["field"] for f in variant["fields"] if not f["ok"]]


@pytest.mark.parametrize("kind", ["sends", "refuses"])
def test_reproduce_exits_0_on_an_expectation_right_in_every_field(capsys, tmp_path, cases, kind):
    scenario, seen = cases[kind]
    code, doc = _reproduce(capsys, tmp_path, scenario, Expectation(**{kind: _right(seen)}))
    assert _failed_fields(doc) == [] and doc["ok"] and code == Exit.OK


def _observed_fields(kind: str) -> list[str]:
    names = SENDS_FIELDS if kind == "sends" else REFUSES_FIELDS
    return [(kind, n) for n in names]


@pytest.mark.parametrize(("kind", "name"), _observed_fields("sends") + _observed_fields("refuses"))
def test_reproduce_names_the_one_field_an_expectation_gets_wrong_and_exits_1(capsys, tmp_path, cases, kind, name):
    scenario, seen = cases[kind]
    right = _right(seen)
    if getattr(right, name) is None and name not in PATTERN_FIELDS:  # a field this refusal does not report
        right = replace(right, **{name: REFUSED_VALUES[name]})
        code, doc = _reproduce(capsys, tmp_path, scenario, Expectation(**{kind: right}))
    else:
        code, doc = _reproduce(capsys, tmp_path, scenario, Expectation(**{kind: _one_wrong(right, name)}))
    assert _failed_fields(doc) == [f"{kind}.{name}"]
    assert not doc["ok"] and doc["not_as_expected"] == 1 and code == Exit.NOT_AS_EXPECTED


def test_reproduce_prints_the_wrong_field_as_a_mismatch(capsys, tmp_path, cases):
    scenario, seen = cases["sends"]
    path = tmp_path / "case.scenario.json"
    save_scenario(replace(scenario, expect={"sound": Expectation(sends=replace(seen, total=seen.total + 1))}), path)
    assert cli.main(["reproduce", str(path)]) == Exit.NOT_AS_EXPECTED
    out = capsys.readouterr().out
    assert "sound: NOT as expected" in out
    (line,) = [ln for ln in out.splitlines() if "[MISMATCH]" in ln]
    assert line.split()[:3] == ["sends.total", str(seen.total + 1), str(seen.total)]
