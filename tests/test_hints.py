"""What a complete report leaves for the next cold run (``reports.campaign.hints``), the order a mutmut mutant runs its
tests in (``reports.campaign.mutmut.test_order``), and the executor's per-test time limit."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import pytest
from campaign_helpers import as_records

from reports.campaign.hints import Hints, function_of, gone_tests, learn, read, write
from reports.campaign.mutmut.test_order import own_test_files, running_order
from reports.campaign.records import BASELINE, MutantChange
from reports.campaign.settings import ROOT

pytestmark = pytest.mark.harness


def _killed(*tests: str) -> dict[str, object]:
    return {"kind": "mutmut", "status": "killed", "killed_by": list(tests)}


def test_hints_rank_each_functions_killers_and_keep_each_tests_witness():
    records = {
        "mutmut:reference.cap.x_walk__mutmut_1": _killed("tests/test_cap.py::test_b"),
        "mutmut:reference.cap.x_walk__mutmut_2": _killed("tests/test_cap.py::test_a"),
        "mutmut:reference.cap.x_walk__mutmut_3": _killed("tests/test_cap.py::test_a"),
        "mutmut:reference.cap.x_walk__mutmut_4": {"kind": "mutmut", "status": "survived", "killed_by": []},
        "mutmut:reference.cap.x_other__mutmut_1": {"kind": "mutmut", "status": "survived", "killed_by": []},
        "defect:X": {"kind": "defect", "status": "killed", "killed_by": ["tests/test_x.py::test_x"]},
        "witness:tests/test_cap.py::test_c": {
            "kind": "witness",
            "test": "tests/test_cap.py::test_c",
            "witness": "mutmut:reference.cap.x_walk__mutmut_4",
        },
        "witness:tests/test_cap.py::test_d": {"kind": "witness", "test": None, "witness": None},
    }
    hints = learn(as_records(records))
    assert hints.killers == {"reference.cap.x_walk": ("tests/test_cap.py::test_a", "tests/test_cap.py::test_b")}
    assert hints.witnesses == {"tests/test_cap.py::test_c": "mutmut:reference.cap.x_walk__mutmut_4"}


def test_the_tests_hints_name_that_the_suite_no_longer_has_are_told():
    """Hints naming renamed tests cost a cold run minutes (a function's mutants run its other tests before their
    killer), so a complete report says which of the committed hints' tests its baseline no longer has."""
    hints = Hints(
        killers={"reference.cap.x_walk": ("tests/test_cap.py::test_a", "tests/test_cap.py::test_renamed")},
        witnesses={"tests/test_cap.py::test_gone": "mutmut:reference.cap.x_walk__mutmut_1"},
    )
    rows = [
        {"nodeid": n, "duration": 0.1, "t": 0.0, "base": n, "file": "tests/test_cap.py", "variant": None}
        for n in ("tests/test_cap.py::test_a", "tests/test_cap.py::test_b")
    ]
    records = as_records({BASELINE: {"wall": 1.0, "overhead": 0.0, "exit": 0, "finished": 1.0, "tests": rows}})
    assert gone_tests(hints, records) == ("tests/test_cap.py::test_gone", "tests/test_cap.py::test_renamed")
    assert gone_tests(Hints(killers={"reference.cap.x_walk": ("tests/test_cap.py::test_b",)}), records) == ()


def test_hints_keep_every_killer_of_a_function_most_kills_first():
    """A mutant killed only by a function's fifth killer runs the four before it, not every covering test."""
    counts = {"test_e": 1, "test_a": 5, "test_c": 3, "test_b": 4, "test_d": 2, "test_f": 1}
    records = {
        f"mutmut:reference.cap.x_walk__mutmut_{test}_{k}": _killed(f"tests/test_cap.py::{test}")
        for test, n in counts.items()
        for k in range(n)
    }
    hints = learn(as_records(records))
    ranked = ["test_a", "test_b", "test_c", "test_d", "test_e", "test_f"]  # ties by name
    assert hints.killers == {"reference.cap.x_walk": tuple(f"tests/test_cap.py::{t}" for t in ranked)}


def test_hints_keep_a_mutant_each_test_killed_first_by_the_tests_base():
    """Next time the test may be searched on another variant, or beaten to that kill: the mutant is its witness."""
    records = {
        "baseline": {
            "tests": [
                {"nodeid": f"tests/test_cap.py::test_a[{v}]", "base": "tests/test_cap.py::test_a"}
                for v in ("pr-8bb01ab8", "sound")
            ]
        },
        "mutmut:reference.cap.x_walk__mutmut_2": _killed("tests/test_cap.py::test_a[pr-8bb01ab8]"),
        "mutmut:reference.cap.x_walk__mutmut_3": _killed("tests/test_cap.py::test_a[sound]"),
        "mutmut:reference.cap.x_walk__mutmut_4": {"kind": "mutmut", "status": "survived", "killed_by": []},
        "defect:X": {"kind": "defect", "status": "killed", "killed_by": ["tests/test_x.py::test_x"]},
    }
    assert learn(as_records(records)).kills == {
        "tests/test_cap.py::test_a": "mutmut:reference.cap.x_walk__mutmut_2",
        "tests/test_x.py::test_x": "defect:X",
    }


def test_hints_keep_each_tests_baseline_time_to_the_millisecond():
    """The next cold run orders a mutant's tests by these, whatever its own machine's speed."""
    records = {
        "baseline": {
            "tests": [
                {"nodeid": "tests/test_cap.py::test_a", "base": "tests/test_cap.py::test_a", "duration": 1.23456},
                {"nodeid": "tests/test_cap.py::test_b", "base": "tests/test_cap.py::test_b", "duration": 0.0004},
            ]
        },
    }
    assert learn(as_records(records)).durations == {
        "tests/test_cap.py::test_a": 1.235,
        "tests/test_cap.py::test_b": 0.0,
    }


def test_hints_round_trip_and_an_unreadable_file_gives_none(tmp_path):
    hints = Hints({"m.x_f": ("t1", "t2")}, {"t3": "mutmut:m.x_f__mutmut_2"}, {"t4": "defect:X"}, {"t1": 0.25})
    assert read(write(hints, tmp_path / "h.json")) == hints
    (tmp_path / "bad.json").write_text("{not json")
    assert read(tmp_path / "bad.json") == Hints() == read(tmp_path / "missing.json")
    (tmp_path / "wrong.json").write_text(json.dumps({"killers": [1, 2]}))
    assert read(tmp_path / "wrong.json") == Hints()


def test_function_of_strips_the_mutant_number_and_the_journal_prefix():
    assert function_of("mutmut:reference.cap.x__units__mutmut_12") == "reference.cap.x__units"
    assert function_of("strategies.pricing.xǁPricesǁmessages__mutmut_3") == "strategies.pricing.xǁPricesǁmessages"
    assert own_test_files("strategies.pricing.xǁPricesǁmessages__mutmut_3") == {
        "tests/test_pricing.py",
        "tests/test_strategies_pricing.py",
        "tests/test_judge_pricing.py",
    }
    assert "tests/test_reference_cap.py" in own_test_files("reference.cap.x__units__mutmut_1")
    assert "tests/test_judge_prices.py" in own_test_files("invariants.properties.prices.x_never_over__mutmut_1")


def test_known_killers_run_first_then_the_modules_own_tests_then_the_rest():
    durations = {
        "tests/test_other.py::q1": 0.001,
        "tests/test_other.py::q2": 0.002,
        "tests/test_cap.py::own": 0.001,
        "tests/test_other.py::slow": 3.0,
        "tests/test_other.py::slower": 9.0,
        "tests/test_other.py::killer": 2.0,
        "tests/test_cap.py::own_slow": 1.0,
    }
    tests = sorted(durations)
    order = list(
        running_order("reference.cap.x_walk__mutmut_1", tests, durations, first=["tests/test_other.py::killer"])
    )
    assert order[0] == "tests/test_other.py::killer"  # a known killer first, however slow
    assert order[1:3] == ["tests/test_cap.py::own", "tests/test_cap.py::own_slow"]  # the module's own file next
    assert order[-2:] == ["tests/test_other.py::slow", "tests/test_other.py::slower"]  # the slow ones last
    assert sorted(order) == tests
    other = list(
        running_order("reference.cap.x_walk__mutmut_2", tests, durations, first=["tests/test_other.py::killer"])
    )
    assert {order[3], order[4]} == {other[3], other[4]} == {"tests/test_other.py::q1", "tests/test_other.py::q2"}


def test_a_mutants_later_tests_are_ordered_only_when_it_reaches_them():
    """A mutant its known killer kills never pays for ordering the function's other covering tests."""
    asked: list[str] = []

    class Durations(dict):
        def get(self, key, default=None):
            asked.append(key)
            return super().get(key, default)

    tests = ["tests/test_other.py::killer", "tests/test_cap.py::own", *(f"tests/test_x.py::t{k}" for k in range(50))]
    order = running_order("reference.cap.x_walk__mutmut_1", tests, Durations(), first=["tests/test_other.py::killer"])
    assert next(order) == "tests/test_other.py::killer" and asked == ["tests/test_other.py::killer"]
    assert next(order) == "tests/test_cap.py::own" and "tests/test_x.py::t0" not in asked
    assert len(list(order)) == 50 and "tests/test_x.py::t0" in asked


def test_the_witness_plan_tries_the_known_witness_first(campaign_records_for_witness):
    from reports.campaign.witness_search import plan

    records, coverage, nodeid = campaign_records_for_witness
    todo, _ = plan(as_records(records), coverage)
    assert [c.mutant for c in todo[nodeid]][:2] == ["mutmut:calc.x_add__mutmut_1", "mutmut:calc.x_add__mutmut_2"]
    todo, _ = plan(as_records(records), coverage, {nodeid: "mutmut:calc.x_add__mutmut_2"})
    assert [c.mutant for c in todo[nodeid]][:2] == ["mutmut:calc.x_add__mutmut_2", "mutmut:calc.x_add__mutmut_1"]


def test_a_test_without_coverage_discovers_its_calls_first_after_its_known_witness(campaign_records_for_witness):
    from reports.campaign.protocol import CandidateKind
    from reports.campaign.records import NO_CODE
    from reports.campaign.witness_search import plan

    records, _, nodeid = campaign_records_for_witness
    records = {**records, "defect:X": {"kind": "defect", "status": "killed", "spec": "sound+X"}}
    row = {**records["baseline"]["tests"][0], "variants_used": ["sound"]}
    records["baseline"] = {"kind": "baseline", "tests": [row]}
    todo, reasons = plan(as_records(records), {}, discover=True)
    assert [c.kind for c in todo[nodeid]] == [CandidateKind.DISCOVER, CandidateKind.NAMED]
    todo, _ = plan(as_records(records), {}, {nodeid: "mutmut:calc.x_add__mutmut_2"}, discover=True)
    assert [c.mutant for c in todo[nodeid]][:1] == ["mutmut:calc.x_add__mutmut_2"]
    assert todo[nodeid][1].kind == CandidateKind.DISCOVER
    todo, reasons = plan(as_records({"baseline": records["baseline"]}), {}, discover=False)
    assert nodeid not in todo and reasons == {nodeid: NO_CODE}


@pytest.fixture
def campaign_records_for_witness():
    nodeid = "tests/test_calc.py::test_plain"
    records = {
        "baseline": {
            "kind": "baseline",
            "tests": [{"nodeid": nodeid, "outcome": "passed", "duration": 0.01, "variants_used": []}],
        }
    }
    for n in (1, 2):
        records[f"mutmut:calc.x_add__mutmut_{n}"] = {
            "kind": "mutmut",
            "status": "killed",
            "killed_by": ["tests/test_calc.py::test_other"],
        }
    return records, {"calc.x_add": {nodeid}}, nodeid


def test_a_test_past_its_own_limit_ends_the_mutant_as_a_timeout_at_once(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(
        test_slow=textwrap.dedent("""
        import time

        def test_quick():
            pass

        def test_hangs():
            time.sleep(60)
    """)
    )
    plan = pytester.path / "plan.json"
    out = pytester.path / "out.jsonl"
    plan.write_text(
        json.dumps(
            {
                "workers": 1,
                "per_test": [10.0, 0.5],
                "durations": {"test_slow.py::test_quick": 0.01, "test_slow.py::test_hangs": 0.01},
                "functions": {
                    "m.x_f": {"tests": ["test_slow.py::test_quick", "test_slow.py::test_hangs"], "first": []}
                },
                "mutants": [
                    {"name": "m.x_f__mutmut_1", "function": "m.x_f", "limit": 50.0},
                    {"name": "m.x_g__mutmut_1", "tests": ["test_slow.py::test_quick"], "limit": 50.0},
                ],
            }
        )
    )
    started = time.time()
    pytester.runpytest_subprocess(
        "-p",
        "reports.campaign.plugins.warm_session",
        f"--cm-execute={plan}",
        f"--cm-execute-out={out}",
        "-p",
        "no:cacheprovider",
    )
    took = time.time() - started
    rows = {r["name"]: r for r in map(json.loads, out.read_text().splitlines()) if "exit" in r}
    assert rows["m.x_f__mutmut_1"]["exit"] == 36 and rows["m.x_f__mutmut_1"]["seconds"] < 20
    assert rows["m.x_g__mutmut_1"]["exit"] == 0  # a test within its limit runs to the end
    assert took < 40, took  # the whole-mutant limit (50 s) never had to act


def test_a_mutants_tests_run_in_the_order_of_the_hinted_times_not_this_runs(pytester, monkeypatch):
    """Two slow tests that both fail: the one the hinted times put first is the killer named, though this run's
    baseline times (which set the limits) would put the other first."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_two="def test_a():\n    assert False\n\ndef test_b():\n    assert False\n")
    plan = pytester.path / "plan.json"
    out = pytester.path / "out.jsonl"
    tests = ["test_two.py::test_a", "test_two.py::test_b"]
    plan.write_text(
        json.dumps(
            {
                "workers": 1,
                "per_test": [10.0, 5.0],
                "durations": {"test_two.py::test_a": 5.0, "test_two.py::test_b": 6.0},
                "order_durations": {"test_two.py::test_a": 7.0, "test_two.py::test_b": 6.0},
                "functions": {"m.x_f": {"tests": tests, "first": []}},
                "mutants": [{"name": "m.x_f__mutmut_1", "function": "m.x_f", "limit": 50.0}],
            }
        )
    )
    pytester.runpytest_subprocess(
        "-p", "reports.campaign.plugins.warm_session", f"--cm-execute={plan}", f"--cm-execute-out={out}"
    )
    rows = list(map(json.loads, out.read_text().splitlines()))
    assert [r["exit"] for r in rows if "exit" in r] == [1]
    assert [r["killer"] for r in rows if "killer" in r] == ["test_two.py::test_b"]
    assert [r["start"] for r in rows if "start" in r] == ["test_two.py::test_b"]  # the tests its verdict rests on


def _fake_work(tmp_path: Path, codes: dict[str, int | None]) -> Path:
    work = tmp_path / "work"
    (work / "mutants" / "reference").mkdir(parents=True)
    (work / "mutants" / "reference" / "ops.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    (work / "mutants" / "mutmut-stats.json").write_text(
        json.dumps({"tests_by_mangled_function_name": {"reference.ops.x_f": ["tests/test_ops.py::test_f"]}})
    )
    return work


def test_reviewed_equivalents_are_not_run_unless_their_line_changed(tmp_path, monkeypatch):
    from reports.campaign.equivalents import Equivalent
    from reports.campaign.mutmut import execute as mutmut_exec

    listed = {
        "mutmut:reference.ops.x_f__mutmut_1": Equivalent("mutmut:reference.ops.x_f__mutmut_1", "same", "x = 1"),
        "mutmut:reference.ops.x_f__mutmut_2": Equivalent("mutmut:reference.ops.x_f__mutmut_2", "same", "y = 2"),
        "mutmut:reference.ops.x_f__mutmut_4": Equivalent("mutmut:reference.ops.x_f__mutmut_4", "same", "w = 4"),
    }
    lines = {
        "reference.ops.x_f__mutmut_1": "x = 1",
        "reference.ops.x_f__mutmut_2": "y = 3",
        "reference.ops.x_f__mutmut_4": "w = 4",
    }
    monkeypatch.setattr(
        mutmut_exec,
        "described",
        lambda work, source, names: {n: MutantChange("", "", replacement=lines.get(n, "z = 0")) for n in names},
    )
    monkeypatch.setattr(mutmut_exec, "load_equivalents", lambda: listed)
    work = _fake_work(
        tmp_path,
        {
            "reference.ops.x_f__mutmut_1": None,
            "reference.ops.x_f__mutmut_2": None,
            "reference.ops.x_f__mutmut_3": None,
            "reference.ops.x_f__mutmut_4": 34,
        },
    )
    baseline = as_records({"baseline": {"tests": [{"nodeid": "tests/test_ops.py::test_f", "duration": 0.01}]}})[
        "baseline"
    ]
    planned = mutmut_exec.plan(work, ["reference.ops"], baseline, Hints())
    assert list(planned.reviewed) == ["reference.ops.x_f__mutmut_1"]  # 4 was skipped already
    assert [m.name for m in planned.warm.mutants] == ["reference.ops.x_f__mutmut_2", "reference.ops.x_f__mutmut_3"]
    assert planned.warm.functions["reference.ops.x_f"].tests == ("tests/test_ops.py::test_f",)
    del listed["mutmut:reference.ops.x_f__mutmut_4"]  # an entry taken out: the mutant it skipped runs again
    again = mutmut_exec.plan(work, ["reference.ops"], baseline, Hints())
    assert "reference.ops.x_f__mutmut_4" in [m.name for m in again.warm.mutants]


def test_a_test_marked_search_counts_as_a_property_test_for_the_named_mutants(pytester):
    from reports.campaign.plugins.mutant_plugin import is_property_test

    pytester.makepyfile(
        test_s=textwrap.dedent("""
        import pytest
        from hypothesis import given, strategies as st

        @given(st.integers())
        def test_given(x):
            pass

        @pytest.mark.search
        def test_searches_inside():
            pass

        def test_plain():
            pass
    """)
    )
    items, _ = pytester.inline_genitems()
    assert {it.name: is_property_test(it) for it in items} == {
        "test_given": True,
        "test_searches_inside": True,
        "test_plain": False,
    }
