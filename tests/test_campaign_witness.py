"""The red-first witness search (issue 6): a never-red test's witness among the killed mutants of its code, or
the reason it has none; candidates in fresh children, their budget and order."""

from __future__ import annotations

import gc
import json
import time
from dataclasses import replace

import pytest
from campaign_helpers import MUTANTS, mutmut_result

from reports.campaign.records import BASELINE
from reports.render.report_model import build

pytestmark = pytest.mark.harness


# ----------------------------------------------------------------------------- red-first witnesses


def test_a_never_red_test_gets_a_killed_mutant_of_its_code_as_witness_or_a_reason(campaign):
    from reports.campaign.records import NO_CODE, REAL_GAP
    from reports.campaign.witness_search import never_red, search

    settings, fp, records = campaign
    records = dict(records)
    # as if only its first killer were known
    records["defect:OFF_BY_ONE"] = replace(
        records["defect:OFF_BY_ONE"], killed_by=("tests/test_calc.py::test_add[sound]",)
    )
    assert "tests/test_calc.py::test_marked_but_never_red" in never_red(records)
    found = {r.base: r for r in search(settings, records, fp, None, time.time() + 60)}
    marked = found["tests/test_calc.py::test_marked_but_never_red"]
    assert marked.witness == "defect:OFF_BY_ONE" and marked.test.endswith("[sound]")
    assert "assert" in marked.failure
    assert found["tests/test_calc.py::test_plain"].reason == NO_CODE  # looks no variant up, covers nothing
    records.update({r.key: r for r in found.values()})
    checks = build(records, fp, MUTANTS, equivalents={}).checks
    assert checks.witness["tests/test_calc.py::test_marked_but_never_red"][0] == "defect:OFF_BY_ONE"
    assert checks.without["tests/test_calc.py::test_plain"] == NO_CODE
    assert "tests/test_calc.py::test_plain" not in checks.gaps  # explained, not a gap
    assert REAL_GAP not in checks.without.values()


@pytest.mark.parametrize("tb", ["native", "short", "line"])
def test_a_witness_failure_is_the_first_line_raised_whatever_the_traceback_style(pytester, tb):
    from reports.campaign.plugins.witness_plugin import failure_line

    pytester.makepyfile(test_x="def test_x():\n    assert 1 + 1 == 3, 'arithmetic'\n")
    failed = [r for r in pytester.inline_run(f"--tb={tb}").getreports("pytest_runtest_logreport") if r.failed]
    assert failure_line(failed[0], pytester.path) == "AssertionError: arithmetic"


def test_a_failure_names_the_projects_files_from_its_root_whichever_folder_it_ran_in(pytester):
    """Two clones of one commit (or mutmut's copy of each) must write the same report: a failure that names a file
    of the project names it from the session's root, in the witness line and in the text a row keeps."""
    from reports.campaign.plugins.mutant_plugin import outcome_of
    from reports.campaign.plugins.witness_plugin import failure_line

    pytester.makepyfile(
        test_x="from pathlib import Path\n\n\ndef test_x():\n    open(Path(__file__).parent / 'data' / 'gone.json')\n"
    )
    failed = [r for r in pytester.inline_run("--tb=native").getreports("pytest_runtest_logreport") if r.failed]
    said = "FileNotFoundError: [Errno 2] No such file or directory: 'data/gone.json'"
    assert failure_line(failed[0], pytester.path) == said
    outcome, text = outcome_of(failed, pytester.path)
    assert outcome == "failed" and said in text and str(pytester.path) not in text


_LEAKED: list[int] = []


def test_each_witness_candidate_runs_in_a_fresh_child_and_a_hang_is_cut():
    from reports.campaign.plugins.witness_plugin import isolated

    assert isolated(lambda: 41 + 1, 5.0) == 42
    assert isolated(lambda: _LEAKED.append(1), 5.0) is None and _LEAKED == []  # the child's state stays there
    started = time.time()
    assert isolated(lambda: time.sleep(30), 0.5) is None  # a mutant that loops
    assert time.time() - started < 10
    assert isolated(lambda: 1 / 0, 5.0) == "ZeroDivisionError: division by zero"
    assert isolated(lambda: ["f" * 100] * 5000, 5.0) == ["f" * 100] * 5000  # more than a pipe holds


def test_settling_the_parent_empties_every_mutated_packages_memos_and_freezes_the_session():
    """The children start from the parent's memos: a value memoized at collection must not hide a mutant, in the
    model or in the judges."""
    from invariants.generators.store_shapes import tree_shapes
    from reference.estimator import text_tokens
    from reports.campaign.plugins.warm_session import settle

    text_tokens("a memoized text")
    tree_shapes(2)
    assert text_tokens.cache_info().currsize > 0 and tree_shapes.cache_info().currsize > 0
    try:
        settle()
        assert text_tokens.cache_info().currsize == 0 and tree_shapes.cache_info().currsize == 0
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


DISCOVERED = """
from mutmut.mutation.trampoline import wrap_in_trampoline as _mutmut_mutated

mutants_x_inc__mutmut = {}
mutants_x_add__mutmut = {}


@_mutmut_mutated(mutants_x_inc__mutmut)
def inc(a):
    return a + 1


def x_inc__mutmut_orig(a):
    return a + 1


def x_inc__mutmut_1(a):
    return a + 2


@_mutmut_mutated(mutants_x_add__mutmut)
def add(a, b):
    return sum(inc(0) for _ in range(a + b))


def x_add__mutmut_orig(a, b):
    return sum(inc(0) for _ in range(a + b))


def x_add__mutmut_1(a, b):
    return sum(inc(0) for _ in range(a + b + 1))


mutants_x_inc__mutmut["_mutmut_orig"] = x_inc__mutmut_orig
mutants_x_inc__mutmut["x_inc__mutmut_1"] = x_inc__mutmut_1
mutants_x_add__mutmut["_mutmut_orig"] = x_add__mutmut_orig
mutants_x_add__mutmut["x_add__mutmut_1"] = x_add__mutmut_1
"""


def test_a_candidate_run_may_take_ten_times_the_baseline_plus_two_seconds():
    from reports.campaign.plugins.witness_plugin import run_limit

    assert run_limit(0.0) == 2.0 and run_limit(1.5) == 17.0


def test_discovered_functions_give_their_killed_mutants_in_turn():
    from reports.campaign.plugins.witness_plugin import round_robin

    killed = {"a": ["a1", "a2", "a3"], "b": ["b1"], "c": []}
    assert round_robin(["a", "b", "c"], killed) == ["a1", "b1", "a2", "a3"]
    assert round_robin(["b", "a"], killed) == ["b1", "a1", "a2", "a3"]


def test_a_test_mutmuts_coverage_misses_finds_its_witness_by_recording_its_calls(pytester, monkeypatch):
    pytest.importorskip("mutmut", reason="mutmut is not installed (the mutation extra)")
    from reports.campaign.protocol import CandidateKind, WitnessFound
    from reports.campaign.records import NO_CODE, ONLY_EQUIVALENT, REAL_GAP
    from reports.campaign.witness_search import _reason

    DISCOVER = CandidateKind.DISCOVER

    pytester.makepyfile(
        calc=DISCOVERED,
        test_c="from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        test_none="def test_nothing():\n    assert 1 + 1 == 2\n",
    )
    plan = pytester.path / "plan.json"
    first = [[DISCOVER, "", ""], ["named", "sound", "defect:NONE"]]  # the discovered mutants come before the rest
    plan.write_text(
        json.dumps(
            {
                "tests": {"test_c.py::test_add": first, "test_none.py::test_nothing": [[DISCOVER, "", ""]]},
                "killed": {"calc.x_add": ["calc.x_add__mutmut_1"], "calc.x_inc": ["calc.x_inc__mutmut_1"]},
                "max": 400,
            }
        )
    )
    monkeypatch.delenv("MUTANT_UNDER_TEST", raising=False)
    from mutmut.mutation import trampoline

    monkeypatch.setattr(trampoline, "wrap_in_trampoline", trampoline.wrap_in_trampoline)  # restored after the run
    out = pytester.path / "found.jsonl"
    pytester.runpytest_inprocess(
        "-p",
        "reports.campaign.plugins.mutant_plugin",  # as the search runs: it installs the trampolines
        "-p",
        "reports.campaign.plugins.witness_plugin",
        f"--cm-witness={plan}",
        f"--cm-witness-out={out}",
    )
    rows = {r["nodeid"]: r for r in map(json.loads, out.read_text().splitlines())}
    # add is called once, inc three times: the least called function's mutant is tried first
    assert rows["test_c.py::test_add"]["witness"] == "mutmut:calc.x_add__mutmut_1"
    assert rows["test_c.py::test_add"]["calls"] == 2 and "assert 4 == 3" in rows["test_c.py::test_add"]["failure"]
    assert rows["test_c.py::test_add"]["tried"] == 1
    assert rows["test_c.py::test_add"]["candidates"] == 3  # the named mutant and the two discovered
    nothing = WitnessFound.from_json(rows["test_none.py::test_nothing"])
    assert nothing.witness is None and nothing.calls == 0 and nothing.complete and nothing.tried == 0
    assert _reason(nothing, 1) == NO_CODE and _reason(replace(nothing, calls=3), 1) == ONLY_EQUIVALENT
    assert _reason(replace(nothing, calls=3, tried=2), 2) == REAL_GAP
    uncounted = replace(nothing, candidates=None)  # a row that does not count them
    assert _reason(replace(uncounted, complete=False, tried=2), 9).startswith("not searched to the end: 2 of 9")
    cut = replace(nothing, complete=False, tried=7, candidates=12)  # a discover step planned 1, found 12
    assert _reason(cut, 1) == "not searched to the end: 7 of 12 candidates (at most 400 a test)"
    looped = replace(nothing, calls=3, tried=4, timeouts=1)  # a run past its limit is no witness, and is said
    assert _reason(looped, 4) == f"{REAL_GAP} (1 of its 4 runs cut as loops)"


def test_the_witness_plan_reads_mutmuts_coverage_for_candidates(campaign):
    from reports.campaign.protocol import Candidate, CandidateKind
    from reports.campaign.records import ONLY_EQUIVALENT
    from reports.campaign.witness_search import plan

    _, _, records = campaign
    records = {k: v for k, v in records.items() if k == BASELINE}
    for n, status in ((1, "killed"), (2, "survived"), (3, "equivalent")):
        records[f"mutmut:calc.x_add__mutmut_{n}"] = mutmut_result(f"mutmut:calc.x_add__mutmut_{n}", status)
    records["mutmut:calc.x_sub__mutmut_1"] = mutmut_result("mutmut:calc.x_sub__mutmut_1", "survived")
    coverage = {"calc.x_add": {"tests/test_calc.py::test_plain"}, "calc.x_sub": {"tests/test_calc.py::test_table"}}
    todo, reasons = plan(records, coverage)
    assert todo["tests/test_calc.py::test_plain"] == [
        Candidate(CandidateKind.MUTMUT, "calc.x_add__mutmut_1", "mutmut:calc.x_add__mutmut_1")
    ]
    assert "tests/test_calc.py::test_table" not in todo  # reads the defect table: no named candidate, no coverage
    assert (
        reasons.get("tests/test_calc.py::test_add") is None
        or reasons["tests/test_calc.py::test_add"] != ONLY_EQUIVALENT
    )


def test_the_witness_plan_tries_first_the_mutants_of_what_a_test_killed_in_the_last_report(campaign):
    """A test that killed ``calc.x_sub``'s mutants last time on ``pr-8bb01ab8`` and is never red now (another test
    killed them first) tries them before the mutants of the other code it covers, on whichever variant it is
    searched."""
    from reports.campaign.witness_search import never_red, plan

    _, _, records = campaign
    records = {k: v for k, v in records.items() if k == BASELINE}
    for fn in ("x_add", "x_sub"):
        records[f"mutmut:calc.{fn}__mutmut_1"] = mutmut_result(f"mutmut:calc.{fn}__mutmut_1", "killed")
    test = never_red(records)["tests/test_calc.py::test_marked_but_never_red"]
    assert test == "tests/test_calc.py::test_marked_but_never_red[sound]"
    coverage = {"calc.x_add": {test}, "calc.x_sub": {test}}
    cold, _ = plan(records, coverage)
    assert [c.name for c in cold[test]] == ["calc.x_add__mutmut_1", "calc.x_sub__mutmut_1"]
    killer = "tests/test_calc.py::test_marked_but_never_red[pr-8bb01ab8]"
    hinted, _ = plan(records, coverage, killers={"calc.x_sub": (killer, "tests/test_calc.py::test_other")})
    assert [c.name for c in hinted[test]] == ["calc.x_sub__mutmut_1", "calc.x_add__mutmut_1"]


def test_the_witness_plan_tries_first_the_mutant_a_test_killed_first_in_the_last_report(campaign):
    """A test that killed ``calc.x_sub__mutmut_1`` first last time, on ``pr-8bb01ab8``, and is never red now tries
    that mutant first on ``sound``."""
    from reports.campaign.witness_search import never_red, plan

    _, _, records = campaign
    records = {k: v for k, v in records.items() if k == BASELINE}
    for fn in ("x_add", "x_sub"):
        records[f"mutmut:calc.{fn}__mutmut_1"] = mutmut_result(f"mutmut:calc.{fn}__mutmut_1", "killed")
    test = never_red(records)["tests/test_calc.py::test_marked_but_never_red"]
    coverage = {"calc.x_add": {test}, "calc.x_sub": {test}}
    hinted, _ = plan(
        records, coverage, kills={"tests/test_calc.py::test_marked_but_never_red": "mutmut:calc.x_sub__mutmut_1"}
    )
    assert [c.name for c in hinted[test]] == ["calc.x_sub__mutmut_1", "calc.x_add__mutmut_1"]


def test_a_mutant_outside_the_runs_scope_is_a_candidate_after_the_killed_ones(campaign):
    """A test of a judge, in a run over the model only: the judge's mutants have no result in the journal, yet a
    run of the test under one of them is a witness; they come after the killed mutants of its code, and a test
    they alone cover is searched instead of called one that covers no mutated code."""
    from reports.campaign.witness_search import plan

    _, _, records = campaign
    records = {k: v for k, v in records.items() if k == BASELINE}
    records["mutmut:calc.x_add__mutmut_1"] = mutmut_result("mutmut:calc.x_add__mutmut_1", "killed")
    plain, judged = "tests/test_calc.py::test_plain", "tests/test_calc.py::test_table"
    unrun = {"judges.check.x_holds": ["judges.check.x_holds__mutmut_1", "judges.check.x_holds__mutmut_2"]}
    coverage = {"calc.x_add": {plain}, "judges.check.x_holds": {plain, judged}}
    todo, reasons = plan(records, coverage, unrun=unrun)
    assert [c.name for c in todo[plain]] == [
        "calc.x_add__mutmut_1",
        "judges.check.x_holds__mutmut_1",
        "judges.check.x_holds__mutmut_2",
    ]
    assert [c.name for c in todo[judged]] == ["judges.check.x_holds__mutmut_1", "judges.check.x_holds__mutmut_2"]
    assert judged.split("::")[1] not in str(reasons)
    without, reasons = plan(records, coverage)
    assert judged not in without and reasons  # before: no candidate, so "covers no mutated code"


def test_a_tests_candidates_come_in_the_search_order_and_a_plan_over_some_tests_is_theirs_in_the_whole(campaign):
    """Its last witness first; then the mutants the journal holds, those of the functions it killed last time
    first, then the named mutants, then the other functions'; then the unrun mutants in the same order. Planned
    over some tests, each test's candidates are those of the whole plan."""
    from reports.campaign.witness_search import never_red, plan

    _, _, records = campaign
    killed = [k for k, v in records.items() if k.startswith("defect:") and v.status == "killed"]
    named = {k: replace(records[k], killed_by=()) for k in killed}
    records = {BASELINE: records[BASELINE], **named}  # killing nothing: the tests stay never red
    for fn in ("x_add", "x_sub", "x_mul"):
        for n in (1, 2):
            records[f"mutmut:calc.{fn}__mutmut_{n}"] = mutmut_result(f"mutmut:calc.{fn}__mutmut_{n}", "killed")
    test = never_red(records)["tests/test_calc.py::test_marked_but_never_red"]
    coverage = {"calc.x_add": {test}, "calc.x_sub": {test}, "calc.x_mul": {test, "tests/test_calc.py::test_plain"}}
    unrun = {"calc.x_add": ["calc.x_add__mutmut_9"], "calc.x_sub": ["calc.x_sub__mutmut_9"]}
    killers = {"calc.x_sub": ("tests/test_calc.py::test_marked_but_never_red[pr-8bb01ab8]",)}
    todo, _ = plan(records, coverage, killers=killers, unrun=unrun, hints={test: "mutmut:calc.x_mul__mutmut_2"})
    assert [c.mutant for c in todo[test]] == [
        "mutmut:calc.x_mul__mutmut_2",
        "mutmut:calc.x_sub__mutmut_1",
        "mutmut:calc.x_sub__mutmut_2",
        *sorted(named),
        "mutmut:calc.x_add__mutmut_1",
        "mutmut:calc.x_add__mutmut_2",
        "mutmut:calc.x_mul__mutmut_1",
        "mutmut:calc.x_sub__mutmut_9",
        "mutmut:calc.x_add__mutmut_9",
    ]
    assert named and len(todo) > 1
    for base in never_red(records):
        part, why = plan(records, coverage, killers=killers, unrun=unrun, bases={base})
        whole, reasons = plan(records, coverage, killers=killers, unrun=unrun)
        assert part == {n: c for n, c in whole.items() if n.split("[")[0] == base}
        assert why == {b: r for b, r in reasons.items() if b == base}


def test_the_mutants_no_run_tried_are_read_from_mutmuts_work_copy(tmp_path):
    from reports.campaign.witness_search import unrun_by_function

    meta = tmp_path / "mutants" / "invariants" / "properties" / "prices.py.meta"
    meta.parent.mkdir(parents=True)
    keys = {f"invariants.properties.prices.x_never_over__mutmut_{n}": None for n in (1, 2)}
    meta.write_text(json.dumps({"exit_code_by_key": keys}))
    init = tmp_path / "mutants" / "invariants" / "__init__.py.meta"
    init.write_text(json.dumps({"exit_code_by_key": {"invariants.x_polish__mutmut_1": None}}))
    records = {"mutmut:invariants.properties.prices.x_never_over__mutmut_2": object()}
    assert unrun_by_function(tmp_path, records) == {
        "invariants.x_polish": ["invariants.x_polish__mutmut_1"],
        "invariants.properties.prices.x_never_over": ["invariants.properties.prices.x_never_over__mutmut_1"],
    }
    assert unrun_by_function(None, records) == {}
