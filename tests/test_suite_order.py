"""The suite's order (``reports.campaign.suite_order``): named mutants covered greedily per second, then kills per
second."""

from __future__ import annotations

import pytest
from campaign_helpers import as_records

from reports.campaign.suite_order import baseline_seconds, kills_by_function, named_killers, order_file, rank

pytestmark = pytest.mark.harness


def test_a_quick_test_that_kills_a_named_mutant_runs_before_a_slow_one_that_kills_more():
    kills = {"t.py::slow": 3, "t.py::quick": 1, "u.py::other": 1}
    named = {
        "defect:A": frozenset({"t.py::slow", "t.py::quick"}),
        "defect:B": frozenset({"t.py::slow"}),
        "defect:C": frozenset({"t.py::slow"}),
    }
    seconds = {"t.py::slow": 10.0, "t.py::quick": 0.1, "u.py::other": 0.1}
    # quick: 1 named per 0.1 s; slow: 3 per 10 s; then B and C are left, only slow kills them
    assert rank(kills, named, seconds) == ["t.py::quick", "t.py::slow", "u.py::other"]


def test_once_every_named_mutant_is_covered_the_rest_go_by_kills_per_second():
    kills = {"a.py::many": 10, "a.py::few": 2, "b.py::cover": 1}
    named = {"removal:x": frozenset({"b.py::cover"})}
    seconds = {"a.py::many": 20.0, "a.py::few": 1.0, "b.py::cover": 5.0}
    assert rank(kills, named, seconds) == ["b.py::cover", "a.py::few", "a.py::many"]


def test_a_test_covering_nothing_new_waits_behind_one_that_does():
    named = {"defect:A": frozenset({"t.py::f", "t.py::g"}), "defect:B": frozenset({"t.py::h"})}
    seconds = {"t.py::f": 0.1, "t.py::g": 0.1, "t.py::h": 1.0}
    assert rank({}, named, seconds) == ["t.py::f", "t.py::h", "t.py::g"]


def test_the_order_file_reads_kills_killers_and_seconds_from_the_records():
    records = {
        "baseline": {
            "kind": "baseline",
            "tests": [
                {"nodeid": "t.py::f[sound]", "duration": 0.5},
                {"nodeid": "t.py::f[main]", "duration": 0.5},
                {"nodeid": "t.py::g", "duration": 0.01},
            ],
        },
        "defect:A": {"kind": "defect", "status": "killed", "killed_by": ["t.py::f[sound]", "t.py::g"]},
        "defect:B": {"kind": "defect", "status": "survived", "killed_by": []},
        "mutmut:m1": {"kind": "mutmut", "status": "killed", "killed_by": ["t.py::f[main]"]},
        "witness:t.py::h": {"kind": "witness", "witness": "mutmut:m1", "test": "t.py::h[x]"},
    }
    records = as_records(records)
    assert baseline_seconds(records) == {"t.py::f": 1.0, "t.py::g": 0.01}
    assert named_killers(records) == {"defect:A": frozenset({"t.py::f", "t.py::g"})}
    assert kills_by_function(records) == {"t.py::f": 2, "t.py::g": 1, "t.py::h": 1}
    order = order_file(records, "fp")
    assert order["tests"][0] == "t.py::g" and order["fingerprint"] == "fp"
    assert dict(zip(order["tests"], order["kills"], strict=True)) == {"t.py::f": 2, "t.py::g": 1, "t.py::h": 1}
