"""The mutation campaign (issue 6): the runner, its journal, shards, timeouts, the report and its JSON.

The runner is exercised on a tiny fake project in ``tmp_path`` (its own ``strategies.defects`` with
three switches: one a test catches, one that hangs, one no test sees), so these tests stay fast and
never depend on the real suite.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from reports import mutant_plugin
from reports.campaign import (
    BASELINE,
    ROOT,
    Journal,
    Settings,
    fingerprint,
    hashed_files,
    load_journals,
    run_named_mutants,
)
from reports.mutants import SEED_REMOVALS, Mutant, in_shard, named_mutants, parse_shard, shard_of
from reports.report import (
    mte_json,
    render_html,
    render_md,
    write,
)
from reports.report_build import (
    Equivalent,
    build,
    counterexamples,
    load_equivalents,
    score,
)
from strategies import defects

pytestmark = pytest.mark.harness

FAKE_DEFECTS = '''
from enum import Enum


class Defect(Enum):
    OFF_BY_ONE = ("test", "adds one")
    HANGS = ("test", "never returns")
    HARMLESS = ("test", "changes nothing a test sees")
    OFF_FOR_LARGE = ("test", "adds one to a first operand of 5 or more")


VARIANTS = {"sound": frozenset(), "pr-8bb01ab8": frozenset()}
'''

FAKE_CALC = '''
import time

from strategies.defects import VARIANTS, Defect


def add(a, b, variant="sound"):
    active = VARIANTS[variant]
    if Defect.HANGS in active:
        time.sleep(120)
    off = Defect.OFF_BY_ONE in active or (Defect.OFF_FOR_LARGE in active and a >= 5)
    return a + b + (1 if off else 0)
'''

FAKE_TESTS = '''
import pytest
from hypothesis import given, settings, strategies as st

from calc import add


@pytest.mark.parametrize("variant", ["pr-8bb01ab8", "sound"])
def test_add(variant):
    assert add(1, 2, variant) == 3


@pytest.mark.red_on("pr-8bb01ab8")
@pytest.mark.parametrize("variant", ["pr-8bb01ab8", "sound"])
def test_marked_but_never_red(variant):
    assert add(0, 0, variant) == 0


@settings(database=None, derandomize=True, max_examples=20)
@given(st.integers(min_value=0, max_value=10))
def test_add_zero(x):
    assert add(x, 0) == x


def test_plain():
    assert 1 + 1 == 2


@pytest.mark.defect_table
def test_table():
    from strategies.defects import VARIANTS

    assert VARIANTS["sound"] == frozenset()


def test_red_on_baseline():
    assert False, "red on the unmutated code"
'''

MUTANTS = [
    Mutant("defect:OFF_BY_ONE", "defect", "sound", ("OFF_BY_ONE",), "adds one"),
    Mutant("defect:HANGS", "defect", "sound", ("HANGS",), "never returns"),
    Mutant("defect:HARMLESS", "defect", "sound", ("HARMLESS",), "changes nothing a test sees"),
    Mutant("defect:OFF_FOR_LARGE", "defect", "sound", ("OFF_FOR_LARGE",), "adds one to a first operand of 5 or more"),
]
FAKE_HASHED = ("strategies", "calc.py", "tests")


def make_project(root: Path) -> Path:
    (root / "strategies").mkdir(parents=True)
    (root / "strategies" / "__init__.py").write_text("")
    (root / "strategies" / "defects.py").write_text(FAKE_DEFECTS)
    (root / "calc.py").write_text(FAKE_CALC)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(FAKE_TESTS)
    return root


def settings_for(root: Path, **kw) -> Settings:
    kw.setdefault("progress", io.StringIO())
    kw.setdefault("hashed", FAKE_HASHED)
    return Settings(root=root, out=root / "out", mutmut_dir=root / ".work", selection=("tests",), workers=2,
                    timeout_factor=1.0, timeout_const=4.0, **kw)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """One campaign over the fake project: (settings, fingerprint, records)."""
    root = make_project(tmp_path_factory.mktemp("fake"))
    settings = settings_for(root)
    fp = fingerprint(settings)
    records = run_named_mutants(settings, MUTANTS, fp=fp)
    return settings, fp, records


# ----------------------------------------------------------------------------- the runner


def test_statuses_killed_survived_timeout(campaign):
    _, _, records = campaign
    assert records["defect:OFF_BY_ONE"]["status"] == "killed"
    assert records["defect:HARMLESS"]["status"] == "survived"
    assert records["defect:HANGS"]["status"] == "timeout"
    assert records["defect:HANGS"]["timed_out"] is True


def test_a_kill_names_every_killing_test_of_its_variant_only(campaign):
    _, _, records = campaign
    killed = records["defect:OFF_BY_ONE"]
    # every failing example test; the property test is skipped once one has failed
    assert sorted(killed["killed_by"]) == ["tests/test_calc.py::test_add[sound]",
                                           "tests/test_calc.py::test_marked_but_never_red[sound]"]
    assert killed["outcomes"]["tests/test_calc.py::test_add_zero"] == "skipped"
    assert killed["time_to_kill"] is not None and 0 <= killed["time_to_kill"] <= killed["duration"]
    assert killed["shrunk"] == []
    # no example test fails: the property test kills, found without shrinking, then shrunk alone
    large = records["defect:OFF_FOR_LARGE"]
    assert large["killed_by"] == ["tests/test_calc.py::test_add_zero"]
    assert large["shrunk"] == ["tests/test_calc.py::test_add_zero"]
    examples = counterexamples(large["failures"]["tests/test_calc.py::test_add_zero"])
    assert len(examples) == 1 and "test_add_zero(\n    x=5," in examples[0]


def test_a_named_mutant_runs_only_the_tests_that_look_its_variant_up(campaign):
    _, _, records = campaign
    rows = {r["nodeid"]: r for r in records[BASELINE]["tests"]}
    assert rows["tests/test_calc.py::test_add[pr-8bb01ab8]"]["variants_used"] == ["pr-8bb01ab8"]
    assert rows["tests/test_calc.py::test_add_zero"]["variants_used"] == ["sound"]  # the default argument
    assert rows["tests/test_calc.py::test_plain"]["variants_used"] == []
    assert rows["tests/test_calc.py::test_table"]["reads_table"] is True  # sees every named mutant: left out
    # test_add[sound], test_marked_but_never_red[sound] and test_add_zero; not test_plain nor pr's
    assert records["defect:HARMLESS"]["ran"] == 3


def test_quick_tests_run_first_in_an_order_drawn_from_the_mutant():
    class Item:
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid

    durations = {f"t{i}": 0.001 * i for i in range(20)} | {"slow": 2.0, "slower": 5.0}
    names = ["slower", "unknown", "slow", *(f"t{i}" for i in range(20))]

    def order(mutant: str) -> list[str]:
        items = [Item(n) for n in names]
        mutant_plugin.fastest_first(items, durations, mutant)  # type: ignore[arg-type]
        return [it.nodeid for it in items]

    first, second = order("m.x_f__mutmut_1"), order("m.x_f__mutmut_2")
    assert first[-3:] == second[-3:] == ["slow", "slower", "unknown"]
    assert sorted(first[:20]) == sorted(second[:20]) == sorted(f"t{i}" for i in range(20))
    assert first[:20] != second[:20]
    assert first == order("m.x_f__mutmut_1")


def test_quick_killers_run_every_example_test_and_skip_the_property_tests_after_a_failure(pytester):
    pytester.makepyfile(test_k="""
        from hypothesis import given, strategies as st

        @given(st.integers())
        def test_property_pass(x):
            pass

        def test_example_fail():
            assert False

        @given(st.integers())
        def test_property_fail(x):
            assert False

        def test_example_fail_too():
            assert False
    """)
    result = pytester.runpytest("-p", "reports.mutant_plugin", "--cm-quick-killers", "-rs")
    result.assert_outcomes(failed=2, skipped=2)
    result.stdout.fnmatch_lines(["*an example test has already killed this mutant*"])
    without = pytester.runpytest("-p", "reports.mutant_plugin")
    without.assert_outcomes(failed=3, passed=1)


def test_under_a_mutmut_mutant_only_the_named_test_functions_are_collected(pytester, monkeypatch):
    pytester.makepyfile(test_k="""
        def pytest_generate_tests(metafunc):
            if metafunc.function.__name__ == "test_other":
                raise RuntimeError("test_other was collected")

        def test_named():
            pass

        def test_other():
            pass
    """)
    monkeypatch.setenv("MUTANT_UNDER_TEST", "m.x_f__mutmut_1")
    pytester.runpytest("-p", "reports.mutant_plugin", "test_k.py::test_named").assert_outcomes(passed=1)
    pytester.runpytest("-p", "reports.mutant_plugin", "test_k.py").assert_outcomes(errors=1)  # a whole file
    monkeypatch.delenv("MUTANT_UNDER_TEST")
    pytester.runpytest("-p", "reports.mutant_plugin", "test_k.py::test_named").assert_outcomes(errors=1)


def test_requested_functions_by_file(tmp_path):
    wanted = mutant_plugin.requested_functions(
        ["tests/a.py::test_x[1-sound]", "tests/a.py::test_y", "tests/b.py::TestC::test_z", "tests/c.py",
         "tests/c.py::test_w"], tmp_path)
    assert wanted == {(tmp_path / "tests/a.py").resolve(): {"test_x", "test_y"},
                      (tmp_path / "tests/b.py").resolve(): {"TestC", "test_z"}}


def test_baseline_records_outcome_variant_and_red_on(campaign):
    _, _, records = campaign
    rows = {r["nodeid"]: r for r in records[BASELINE]["tests"]}
    add_pr = rows["tests/test_calc.py::test_add[pr-8bb01ab8]"]
    assert (add_pr["outcome"], add_pr["variant"]) == ("passed", "pr-8bb01ab8")
    assert add_pr["base"] == "tests/test_calc.py::test_add"
    assert rows["tests/test_calc.py::test_red_on_baseline"]["outcome"] == "failed"
    assert rows["tests/test_calc.py::test_marked_but_never_red[sound]"]["red_on"] == ["pr-8bb01ab8"]


def test_journal_resumes_without_rerunning(campaign):
    settings, fp, records = campaign
    journal = settings.journal_dir / "all.jsonl"
    lines = journal.read_text().count("\n")
    again = run_named_mutants(settings, MUTANTS, fp=fp)
    assert journal.read_text().count("\n") == lines
    assert {k: v["status"] for k, v in again.items() if k != BASELINE} == \
        {k: v["status"] for k, v in records.items() if k != BASELINE}


def test_interrupted_journal_runs_only_what_is_missing(campaign, tmp_path):
    settings, fp, records = campaign
    out = tmp_path / "out"
    (out / "journal").mkdir(parents=True)
    keep = [records[BASELINE], records["defect:HANGS"], records["defect:HARMLESS"], records["defect:OFF_FOR_LARGE"]]
    text = "".join(json.dumps(r) + "\n" for r in keep) + '{"mutant": "defect:OFF_BY'  # a line cut by the kill
    (out / "journal" / "all.jsonl").write_text(text)
    seen = []
    resumed = settings_for(settings.root)
    resumed.out = out
    done = run_named_mutants(resumed, MUTANTS, fp=fp, on_record=lambda r: seen.append(r["mutant"]))
    assert seen == ["defect:OFF_BY_ONE"]
    assert done["defect:OFF_BY_ONE"]["status"] == "killed"


def test_the_budget_stops_runs_without_journaling_them(campaign, tmp_path):
    settings, fp, records = campaign
    budgeted = settings_for(settings.root)
    budgeted.out = tmp_path / "out"
    Journal(budgeted.journal_dir, "all").write(records[BASELINE])
    start = time.time()
    done = run_named_mutants(budgeted, [m for m in MUTANTS if m.id == "defect:HANGS"], fp=fp,
                             deadline=start + 2)
    assert time.time() - start < 15
    assert "defect:HANGS" not in done
    assert "defect:HANGS" not in load_journals(budgeted.journal_dir, fp)
    assert "budget reached: 1 named mutant(s) left" in budgeted.progress.getvalue()


def test_a_changed_test_changes_the_fingerprint(tmp_path):
    root = make_project(tmp_path / "p")
    settings = settings_for(root)
    before = fingerprint(settings)
    (root / "tests" / "test_calc.py").write_text(FAKE_TESTS + "\n\ndef test_new():\n    pass\n")
    assert fingerprint(settings) != before
    (root / "out").mkdir()
    (root / "out" / "report.html").write_text("not hashed")
    assert all("out" not in f.relative_to(root).parts for f in hashed_files(root, FAKE_HASHED))


def test_shards_partition_the_mutants_stably():
    ids = [m.id for m in named_mutants()]
    for n in (1, 2, 3, 5):
        parts = [in_shard(ids, (i, n)) for i in range(1, n + 1)]
        assert sorted(x for p in parts for x in p) == sorted(ids)
        assert parts == [in_shard(list(reversed(ids)), (i, n))[::-1] for i in range(1, n + 1)]
    assert shard_of("defect:COMBINED_UNCHECKED", 4) == shard_of("defect:COMBINED_UNCHECKED", 4)
    assert parse_shard("2/3") == (2, 3)
    for bad in ("0/2", "3/2", "x", "1/0"):
        with pytest.raises(ValueError):
            parse_shard(bad)


def test_shards_journal_apart_and_merge(campaign, tmp_path):
    settings, fp, records = campaign
    quick = [m for m in MUTANTS if m.id != "defect:HANGS"]
    sharded = settings_for(settings.root)
    sharded.out = tmp_path / "out"
    Journal(sharded.journal_dir, "baseline").write(records[BASELINE])  # as if each machine had run it
    for i in (1, 2):
        run_named_mutants(sharded, quick, shard=(i, 2), fp=fp)
        written = [json.loads(x)["mutant"] for x in (sharded.journal_dir / f"shard-{i}-of-2.jsonl").read_text()
                   .splitlines()] if (sharded.journal_dir / f"shard-{i}-of-2.jsonl").exists() else []
        assert written == in_shard([m.id for m in quick], (i, 2))
    merged = load_journals(sharded.journal_dir, fp)
    assert set(merged) == {BASELINE, *(m.id for m in quick)}
    assert {k: merged[k]["status"] for k in merged if k != BASELINE} == \
        {m.id: records[m.id]["status"] for m in quick}
    assert load_journals(sharded.journal_dir, "another-fingerprint") == {}


def _hanging_campaign(root: Path, tmp: Path) -> subprocess.Popen:
    """A campaign over the fake project running its hanging mutant, its temp files under ``tmp``; started
    once the baseline is journaled and the hanging mutant's run has begun."""
    script = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(ROOT)!r}]
        from pathlib import Path
        from reports.campaign import Settings, run_named_mutants
        from reports.mutants import Mutant
        s = Settings(root=Path({str(root)!r}), out=Path({str(root / 'out')!r}), selection=("tests",),
                     workers=1, timeout_const=100, hashed={FAKE_HASHED!r}, progress=None)
        run_named_mutants(s, [Mutant("defect:HANGS", "defect", "sound", ("HANGS",), "")])
    """)
    tmp.mkdir(exist_ok=True)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=root.parent, start_new_session=True,
                            env={**os.environ, "TMPDIR": str(tmp)}, stderr=subprocess.DEVNULL)
    journal = root / "out" / "journal" / "all.jsonl"
    deadline = time.time() + 60
    while not (journal.exists() and journal.read_text()) and time.time() < deadline:  # the baseline is in
        time.sleep(0.2)
    deadline = time.time() + 30
    while not list(tmp.glob("cm-*")) and time.time() < deadline:  # the hanging mutant's run (or warm session)
        time.sleep(0.1)
    time.sleep(1.0)
    return proc


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_campaign_removes_its_temp_folders(tmp_path, sig):
    """SIGTERM (as Ctrl-C) stops the runs and removes every ``cm-*`` folder the campaign made (a run's
    ``cm-run-*``, the warm session's ``cm-named-*``)."""
    root = make_project(tmp_path / "p")
    proc = _hanging_campaign(root, tmp_path / "tmp")
    assert list((tmp_path / "tmp").glob("cm-*")), "the hanging mutant's run did not start"
    os.kill(proc.pid, sig)
    assert proc.wait(timeout=30) != 0
    assert not list((tmp_path / "tmp").glob("cm-*"))
    assert not _processes_mentioning(str(root)), "a run outlived the stopped campaign"


def test_campaign_killed_leaves_the_source_tree_unchanged(tmp_path):
    root = make_project(tmp_path / "p")
    before = {f: f.read_bytes() for f in hashed_files(root, FAKE_HASHED)}
    proc = _hanging_campaign(root, tmp_path / "tmp")  # a SIGKILL leaves its temp folder: under tmp_path
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)
    after = {f: f.read_bytes() for f in hashed_files(root, FAKE_HASHED)}
    assert after == before
    assert not _processes_mentioning(str(root)), "a run outlived the killed campaign"


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                cwd = os.readlink(entry / "cwd")
            except OSError:
                continue
            if text in cmdline or cwd.startswith(text):
                found.append(int(entry.name))
    return found


# ----------------------------------------------------------------------------- the plugin


def test_plugin_switches_a_defect_on_in_one_variant(monkeypatch):
    monkeypatch.setitem(defects.VARIANTS, "pr-8bb01ab8", defects.VARIANTS["pr-8bb01ab8"])
    new = mutant_plugin.apply_mutant("pr-8bb01ab8+VIEW_NOT_RESTORED")
    assert defects.VARIANTS["pr-8bb01ab8"] == new == defects.SEED_LEFT | {defects.Defect.VIEW_NOT_RESTORED}
    assert defects.VARIANTS["sound"] == frozenset()


@pytest.mark.parametrize("spec", ["sound", "sound+", "nope+COMBINED_UNCHECKED", "sound+NOT_A_DEFECT"])
def test_plugin_refuses_a_bad_mutant(spec):
    with pytest.raises(ValueError):
        mutant_plugin.apply_mutant(spec)


@pytest.mark.parametrize(("nodeid", "variant", "base"), [
    ("t.py::f[sound]", "sound", "t.py::f"),
    ("t.py::f[at-pair-main-48bb87a1]", "main-48bb87a1", "t.py::f[at-pair]"),
    ("t.py::f[pr-8bb01ab8-nan]", "pr-8bb01ab8", "t.py::f[nan]"),
    ("t.py::f[x]", None, "t.py::f[x]"),
])
def test_base_id_drops_the_variant(nodeid, variant, base):
    assert mutant_plugin.base_id(nodeid, variant) == base


# ----------------------------------------------------------------------------- the named mutants


def test_named_mutants_are_each_known_defect_and_the_fourteen_removals():
    mutants = named_mutants()
    kinds = {k: [m for m in mutants if m.kind == k] for k in ("defect", "removal")}
    assert {m.defects[0] for m in kinds["defect"]} == {d.name for d in defects.KNOWN}
    assert all(m.variant == "sound" for m in kinds["defect"])
    assert len(kinds["removal"]) == len(SEED_REMOVALS) == 14
    assert all(m.variant == "pr-8bb01ab8" for m in kinds["removal"])
    switches = {defects.Defect[m.defects[0]] for m in kinds["removal"]}
    assert defects.REMOVALS <= switches <= defects.REMOVALS | defects.SEED_FIXED
    assert len({m.id for m in mutants}) == len(mutants)


# ----------------------------------------------------------------------------- the report


def test_report_renders_every_output(campaign, tmp_path):
    settings, fp, records = campaign
    report = build(records, fp, MUTANTS, equivalents={})
    paths = write(report, tmp_path, settings.root)
    assert [p.name for p in paths] == ["report.html", "report.md", "matrix.csv", "mutation-report.json"]
    html = (tmp_path / "report.html").read_text()
    assert "Kill matrix" in html and "class='k1'" in html and "test_add_zero(\n    x=5," in html
    assert "<svg" in html and "id='headline'" in html and "http" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "defect:OFF_BY_ONE" in (tmp_path / "report.md").read_text()
    csv = (tmp_path / "matrix.csv").read_text().splitlines()
    assert csv[0].startswith("mutant,status,")
    assert any(line.startswith("defect:OFF_BY_ONE,killed,") for line in csv)
    s = report.named_score()
    assert (s["killed"], s["timeout"], s["counted"]) == (2, 1, 4)


def test_report_is_the_same_from_the_same_journal(campaign):
    _, fp, records = campaign
    one, two = build(records, fp, MUTANTS, equivalents={}), build(dict(records), fp, MUTANTS, equivalents={})
    assert render_html(one) == render_html(two) and render_md(one) == render_md(two)


def test_red_first_checks_flag_never_red_and_stale_red_on(campaign):
    _, fp, records = campaign
    checks = build(records, fp, MUTANTS, equivalents={}).checks
    assert "tests/test_calc.py::test_plain" in checks["never_red"]
    assert "tests/test_calc.py::test_add" not in checks["never_red"]  # killed OFF_BY_ONE
    assert "tests/test_calc.py::test_red_on_baseline" not in checks["never_red"]
    problems = {(v["test"], v["problem"]) for v in checks["red_on_violations"]}
    assert ("tests/test_calc.py::test_marked_but_never_red[pr-8bb01ab8]",
            "marked red_on pr-8bb01ab8 but passed there") in problems


MTE_STATUSES = {"Killed", "Survived", "NoCoverage", "CompileError", "RuntimeError", "Timeout", "Ignored", "Pending"}


def test_mutation_testing_elements_json_shape(campaign):
    settings, fp, records = campaign
    records = dict(records)
    records["mutmut:calc.x_add__mutmut_1"] = {
        "mutant": "mutmut:calc.x_add__mutmut_1", "kind": "mutmut", "status": "survived", "file": "calc.py",
        "function": "add", "line": 11, "column": 12, "end_line": 11, "end_column": 13, "mutator": "ArithmeticOperator",
        "original": "return a + b", "replacement": "return a - b", "killed_by": [], "duration": 0.5, "diff": ""}
    records["mutmut-inventory:all"] = {"mutant": "mutmut-inventory:all", "kind": "inventory",
                                       "names": ["calc.x_add__mutmut_1", "calc.x_add__mutmut_2"], "note": ""}
    report = build(records, fp, MUTANTS, equivalents={})
    doc = json.loads(json.dumps(mte_json(report, settings.root)))
    assert doc["schemaVersion"] == "1"
    ids = set()
    for entry in doc["files"].values():
        assert entry["language"] == "python" and isinstance(entry["source"], str)
        for m in entry["mutants"]:
            assert {"id", "mutatorName", "location", "status"} <= set(m)
            assert m["status"] in MTE_STATUSES
            start, end = m["location"]["start"], m["location"]["end"]
            assert start["line"] >= 1 and start["column"] >= 1 and (end["line"], end["column"]) >= \
                (start["line"], start["column"])
            assert all(isinstance(t, str) for t in m.get("killedBy", []))
            ids.add(m["id"])
    assert {"defect:OFF_BY_ONE", "mutmut:calc.x_add__mutmut_1"} <= ids
    statuses = {m["id"]: m["status"] for e in doc["files"].values() for m in e["mutants"]}
    assert statuses["defect:HANGS"] == "Timeout" and statuses["mutmut:calc.x_add__mutmut_1"] == "Survived"
    test_ids = {t["id"] for f in doc["testFiles"].values() for t in f["tests"]}
    killed_by = {t for e in doc["files"].values() for m in e["mutants"] for t in m.get("killedBy", [])}
    assert killed_by <= test_ids
    assert report.mutmut_score()["counts"]["pending"] == 1


def test_reviewed_equivalents_leave_the_score_and_go_stale_when_the_line_changes(campaign):
    _, fp, records = campaign
    records = dict(records)
    for n, line in ((1, "return a - b"), (2, "return a + b + 0")):
        records[f"mutmut:calc.x_add__mutmut_{n}"] = {
            "mutant": f"mutmut:calc.x_add__mutmut_{n}", "kind": "mutmut", "status": "survived", "file": "calc.py",
            "line": 11, "column": 12, "end_line": 11, "end_column": 13, "mutator": "ArithmeticOperator",
            "original": "return a + b", "replacement": line, "killed_by": [], "duration": 0.5, "diff": ""}
    equivalents = {"mutmut:calc.x_add__mutmut_2": Equivalent("mutmut:calc.x_add__mutmut_2", "adds zero",
                                                             "return a + b + 0"),
                   "mutmut:calc.x_add__mutmut_1": Equivalent("mutmut:calc.x_add__mutmut_1", "stale", "return b")}
    report = build(records, fp, MUTANTS, equivalents=equivalents)
    status = dict(zip(report.mutmut["id"], report.mutmut["status"], strict=True))
    assert status == {"mutmut:calc.x_add__mutmut_1": "survived", "mutmut:calc.x_add__mutmut_2": "equivalent"}
    assert any("stale equivalence entry mutmut:calc.x_add__mutmut_1" in n for n in report.notes)
    assert report.mutmut_score()["counted"] == 1


def test_the_reviewed_equivalents_file_parses():
    assert all(e.id.startswith("mutmut:") and e.reason for e in load_equivalents().values())


def test_score_counts_only_failing_kills_with_timeouts_beside():
    import pandas as pd

    s = score(pd.Series(["killed", "timeout", "survived", "equivalent", "pending"]))
    assert (s["killed"], s["counted"], round(s["score"], 1), round(s["with_timeouts"], 1)) == (1, 3, 33.3, 66.7)


def test_counterexamples_are_read_from_the_failure_text():
    text = ("E   AssertionError: no\nE   Falsifying example: test_x(\nE       variant='sound',\n"
            "E       store=Store(a=(1, 2)),\nE   )\nmore\nFalsifying explicit example: test_y(x=1)\n"
            "E       Failing test case: test_z(\nE           x=0,  # or any other generated value\nE       )\n")
    assert counterexamples(text) == [
        "Falsifying example: test_x(\n    variant='sound',\n    store=Store(a=(1, 2)),\n)",
        "Falsifying explicit example: test_y(x=1)",
        "Failing test case: test_z(\n    x=0,  # or any other generated value\n)"]


# ----------------------------------------------------------------------------- mutmut


MUTMUT_CONFIG = '''
[tool.mutmut]
source_paths = ["strategies/", "reference/"]
also_copy = ["reports/", "calc.py"]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "reports.mutant_plugin"]
pytest_add_cli_args_test_selection = ["tests/"]
timeout_multiplier = 3.0
timeout_constant = 2.0
'''


@pytest.mark.slow  # about 45 s: two mutmut preparations and three executor runs (run with --cm-slow)
@pytest.mark.skipif(shutil.which("mutmut") is None and not (Path(sys.executable).parent / "mutmut").exists(),
                    reason="mutmut is not installed")
def test_mutmut_runs_in_its_own_copy_and_is_read_back(tmp_path):
    from reports.mutmut_run import run_mutmut

    root = make_project(tmp_path / "p")
    (root / "reference").mkdir()
    (root / "reference" / "__init__.py").write_text("")
    (root / "reference" / "ops.py").write_text("def double(x):\n    return x * 2\n")
    (root / "strategies" / "step.py").write_text("def inc(x):\n    return x + 1\n")
    (root / "tests" / "test_ops.py").write_text(
        "from reference.ops import double\nfrom strategies.step import inc\n\n\n"
        "def test_double():\n    assert double(3) == 6\n\n\ndef test_inc():\n    assert inc(3) == 4\n")
    (root / "reports").mkdir()
    for name in ("__init__.py", "mutant_plugin.py"):
        shutil.copy(ROOT / "reports" / name, root / "reports" / name)
    (root / "pyproject.toml").write_text(MUTMUT_CONFIG)
    hashed = ("pyproject.toml", "strategies", "reference", "calc.py", "tests")
    settings = settings_for(root, hashed=hashed)
    before = {f: f.read_bytes() for f in hashed_files(root, (*hashed, "reports"))}
    fp = fingerprint(settings)
    baseline = {"tests": [{"nodeid": "tests/test_calc.py::test_red_on_baseline", "outcome": "failed", "duration": 0.01},
                          {"nodeid": "tests/test_ops.py::test_double", "outcome": "passed", "duration": 0.01}]}
    from reports.mutmut_exec import PreparedAhead
    from reports.mutmut_work import lay_work_copy

    settings.progress = io.StringIO()
    ahead = PreparedAhead(settings, lay_work_copy(settings, fp)[0], time.time() + 240)  # as beside a baseline
    first = run_mutmut(settings, fp, baseline, budget=240, paths=("strategies",), ahead=ahead)
    assert first.pending == 0 and first.names, first.note
    said = settings.progress.getvalue()
    assert ahead.code is not None and "incremental" not in said  # a cold copy prepared ahead is still a cold run
    assert "mutmut: prepared in" in said, said  # a test red on the baseline: prepared again without it
    assert all(n.startswith("strategies.step.") for n in first.names)
    assert all(r["mutant"].startswith("mutmut:strategies.") for r in first.records)
    result = run_mutmut(settings, fp, baseline, budget=240, paths=("reference",))
    assert result.pending == 0 and all(n.startswith("reference.") for n in result.names), result.note
    by_name = {r["mutant"]: r for r in result.records}
    double = {k: r for k, r in by_name.items() if ".ops." in k}
    assert double and all(r["status"] == "killed" for r in double.values())
    some = next(iter(double.values()))
    assert some["killed_by"] == ["tests/test_ops.py::test_double"]
    assert (some["file"], some["line"]) == ("reference/ops.py", 2)
    assert {f: f.read_bytes() for f in hashed_files(root, (*hashed, "reports"))} == before
    assert not (root / "mutants").exists()
    # incremental: a changed function re-runs its own mutants, a changed test those of the functions it covers
    (root / "strategies" / "step.py").write_text("def inc(x):\n    return 1 + x\n")
    tests = root / "tests" / "test_ops.py"
    tests.write_text(tests.read_text().replace("assert double(3) == 6", "assert double(4) == 8"))
    settings.progress = io.StringIO()
    again = run_mutmut(settings, fingerprint(settings), baseline, budget=240)
    said = settings.progress.getvalue()
    assert "re-runs the mutants of 1 changed function(s) (strategies.step.inc)" in said, said
    assert "1 function(s) whose covering tests changed (reference.ops.x_double)" in said, said
    assert again.pending == 0 and {r["mutant"] for r in again.records} >= set(by_name)


def test_runs_get_a_fixed_hash_seed_and_the_campaign_profile():
    """Set orders inside failure texts are the same in every run, so a resumed campaign rewrites the same report."""
    env = Settings(profile="ci").env()
    assert env["PYTHONHASHSEED"] == "0" and env["CMHARNESS_PROFILE"] == "ci"
    assert "MUTANT_UNDER_TEST" not in env and "PYTEST_ADDOPTS" not in env


def test_failure_texts_drop_memory_addresses():
    from reports.report_build import first_line_of_failure

    text = "E   AssertionError: <function f.<locals>.g at 0x7f24b16c3920> is not None\n"
    assert first_line_of_failure(text) == "AssertionError: <function f.<locals>.g at 0x…> is not None"
    assert first_line_of_failure("E   assert 0x10 == 16") == "assert 0x10 == 16"  # a number, not an address


# ----------------------------------------------------------------------------- completeness and exit codes


def test_a_report_with_pending_mutants_says_incomplete_with_the_score_as_a_range(campaign):
    from reports.report_summary import EXIT_INCOMPLETE, exit_status, summary_lines

    _, fp, records = campaign
    partial = {k: v for k, v in records.items() if k != "defect:OFF_FOR_LARGE"}
    report = build(partial, fp, MUTANTS, equivalents={})
    lines = summary_lines(report)
    assert lines[0].startswith("INCOMPLETE: 1 mutant(s) pending")
    # killed over all (pending counted), then killed over the finished
    assert "1/4 killed = 25.0% of all to 1/3 = 33.3% of the finished (1 pending)" in lines[2]
    assert exit_status(report) == EXIT_INCOMPLETE


def test_a_folder_in_scope_mutmut_never_started_leaves_the_report_incomplete(campaign):
    from reports.report_summary import EXIT_FOUND, EXIT_INCOMPLETE, exit_status, summary_lines

    _, fp, records = campaign
    assert exit_status(build(records, fp, MUTANTS, equivalents={}, scope=("reference",))) == EXIT_INCOMPLETE
    assert "mutmut over reference/ not started" in summary_lines(
        build(records, fp, MUTANTS, equivalents={}, scope=("reference",)))[0]
    complete = build(records, fp, MUTANTS, equivalents={})
    assert summary_lines(complete)[0].startswith("COMPLETE")
    assert exit_status(complete) == EXIT_FOUND  # HARMLESS survived


def test_a_complete_report_with_nothing_alive_exits_zero(campaign):
    from reports.report_summary import EXIT_COMPLETE, exit_status

    _, fp, records = campaign
    killed = [m for m in MUTANTS if records[m.id]["status"] in ("killed", "timeout")]
    report = build(records, fp, killed, equivalents={})
    report.checks = {**report.checks, "never_red": [], "gaps": [], "red_on_violations": []}
    assert exit_status(report) == EXIT_COMPLETE


# ----------------------------------------------------------------------------- red-first witnesses


def test_a_never_red_test_gets_a_killed_mutant_of_its_code_as_witness_or_a_reason(campaign):
    from reports.witness import NO_CODE, REAL_GAP, never_red, search

    settings, fp, records = campaign
    records = dict(records)
    off = dict(records["defect:OFF_BY_ONE"])
    off["killed_by"] = ["tests/test_calc.py::test_add[sound]"]  # as if only its first killer were known
    records["defect:OFF_BY_ONE"] = off
    assert "tests/test_calc.py::test_marked_but_never_red" in never_red(records)
    found = {r["base"]: r for r in search(settings, records, fp, None, time.time() + 60)}
    marked = found["tests/test_calc.py::test_marked_but_never_red"]
    assert marked["witness"] == "defect:OFF_BY_ONE" and marked["test"].endswith("[sound]")
    assert "assert" in marked["failure"]
    assert found["tests/test_calc.py::test_plain"]["reason"] == NO_CODE  # looks no variant up, covers nothing
    records.update({r["mutant"]: r for r in found.values()})
    checks = build(records, fp, MUTANTS, equivalents={}).checks
    assert checks["witness"]["tests/test_calc.py::test_marked_but_never_red"][0] == "defect:OFF_BY_ONE"
    assert checks["without"]["tests/test_calc.py::test_plain"] == NO_CODE
    assert "tests/test_calc.py::test_plain" not in checks["gaps"]  # explained, not a gap
    assert REAL_GAP not in checks["without"].values()


@pytest.mark.parametrize("tb", ["native", "short", "line"])
def test_a_witness_failure_is_the_first_line_raised_whatever_the_traceback_style(pytester, tb):
    from reports.witness_plugin import failure_line

    pytester.makepyfile(test_x="def test_x():\n    assert 1 + 1 == 3, 'arithmetic'\n")
    failed = [r for r in pytester.inline_run(f"--tb={tb}").getreports("pytest_runtest_logreport") if r.failed]
    assert failure_line(failed[0]) == "AssertionError: arithmetic"


_LEAKED: list[int] = []


def test_each_witness_candidate_runs_in_a_fresh_child_and_a_hang_is_cut():
    from reports.witness_plugin import isolated

    assert isolated(lambda: 41 + 1, 5.0) == 42
    assert isolated(lambda: _LEAKED.append(1), 5.0) is None and _LEAKED == []  # the child's state stays there
    started = time.time()
    assert isolated(lambda: time.sleep(30), 0.5) is None  # a mutant that loops
    assert time.time() - started < 10
    assert isolated(lambda: 1 / 0, 5.0) == "ZeroDivisionError: division by zero"
    assert isolated(lambda: ["f" * 100] * 5000, 5.0) == ["f" * 100] * 5000  # more than a pipe holds


def test_switching_a_mutant_on_empties_the_mutated_packages_memos():
    from reference.estimator import text_tokens
    from reports.executor import clear_memos

    text_tokens("a memoized text")
    assert text_tokens.cache_info().currsize > 0
    clear_memos()
    assert text_tokens.cache_info().currsize == 0


DISCOVERED = """
from mutmut.mutation import trampoline


def _called(name):
    under = trampoline.get_mutant_under_test()
    if under == "stats":
        trampoline.record_trampoline_hit(name)
    return 1 if under.startswith(name + "__mutmut_") else 0


def inc(a):
    return a + 1 + _called("calc.x_inc")


def add(a, b):
    return sum(inc(0) for _ in range(a + b)) + _called("calc.x_add")
"""


def test_a_slow_test_may_spend_about_five_of_its_runs_on_its_candidates():
    from reports.witness_plugin import PER_TEST, budget_of

    assert budget_of(0.01) == PER_TEST and budget_of(2.0) == 30.0


def test_discovered_functions_give_their_killed_mutants_in_turn():
    from reports.witness_plugin import round_robin

    killed = {"a": ["a1", "a2", "a3"], "b": ["b1"], "c": []}
    assert round_robin(["a", "b", "c"], killed) == ["a1", "b1", "a2", "a3"]
    assert round_robin(["b", "a"], killed) == ["b1", "a1", "a2", "a3"]


def test_a_test_mutmuts_coverage_misses_finds_its_witness_by_recording_its_calls(pytester, monkeypatch):
    pytest.importorskip("mutmut", reason="mutmut is not installed (the mutation extra)")
    from reports.witness import DISCOVER, NO_CODE, ONLY_EQUIVALENT, REAL_GAP, _reason

    pytester.makepyfile(calc=DISCOVERED, test_c="from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
                        test_none="def test_nothing():\n    assert 1 + 1 == 2\n")
    plan = pytester.path / "plan.json"
    first = [[DISCOVER, "", ""], ["named", "sound", "defect:NONE"]]  # the discovered mutants come before the rest
    plan.write_text(json.dumps({"tests": {"test_c.py::test_add": first,
                                          "test_none.py::test_nothing": [[DISCOVER, "", ""]]},
                                "killed": {"calc.x_add": ["calc.x_add__mutmut_1"],
                                           "calc.x_inc": ["calc.x_inc__mutmut_1"]}, "max": 400}))
    monkeypatch.delenv("MUTANT_UNDER_TEST", raising=False)
    out = pytester.path / "found.jsonl"
    pytester.runpytest_inprocess("-p", "reports.witness_plugin", f"--cm-witness={plan}", f"--cm-witness-out={out}")
    rows = {r["nodeid"]: r for r in map(json.loads, out.read_text().splitlines())}
    # add is called once, inc three times: the least called function's mutant is tried first
    assert rows["test_c.py::test_add"]["witness"] == "mutmut:calc.x_add__mutmut_1"
    assert rows["test_c.py::test_add"]["calls"] == 2 and "assert 4 == 3" in rows["test_c.py::test_add"]["failure"]
    assert rows["test_c.py::test_add"]["tried"] == 1
    assert rows["test_c.py::test_add"]["candidates"] == 3  # the named mutant and the two discovered
    nothing = rows["test_none.py::test_nothing"]
    assert nothing["witness"] is None and nothing["calls"] == 0 and nothing["complete"] and nothing["tried"] == 0
    assert _reason(nothing, 1) == NO_CODE and _reason({**nothing, "calls": 3}, 1) == ONLY_EQUIVALENT
    assert _reason({**nothing, "calls": 3, "tried": 2}, 2) == REAL_GAP
    uncounted = {k: v for k, v in nothing.items() if k != "candidates"}  # a row that does not count them
    assert _reason({**uncounted, "complete": False, "tried": 2}, 9).startswith("not searched to the end: 2 of 9")
    cut = {**nothing, "complete": False, "tried": 7, "candidates": 12}  # a discover step planned 1, found 12
    assert _reason(cut, 1).startswith("not searched to the end: 7 of 12 candidates")


def test_the_witness_plan_reads_mutmuts_coverage_for_candidates(campaign):
    from reports.witness import ONLY_EQUIVALENT, plan

    _, _, records = campaign
    records = {k: v for k, v in records.items() if k == BASELINE}
    for n, status in ((1, "killed"), (2, "survived"), (3, "equivalent")):
        records[f"mutmut:calc.x_add__mutmut_{n}"] = {"mutant": f"mutmut:calc.x_add__mutmut_{n}", "kind": "mutmut",
                                                     "status": status, "killed_by": []}
    records["mutmut:calc.x_sub__mutmut_1"] = {"kind": "mutmut", "status": "survived", "killed_by": []}
    coverage = {"calc.x_add": {"tests/test_calc.py::test_plain"}, "calc.x_sub": {"tests/test_calc.py::test_table"}}
    todo, reasons = plan(records, coverage)
    assert todo["tests/test_calc.py::test_plain"] == [["mutmut", "calc.x_add__mutmut_1", "mutmut:calc.x_add__mutmut_1"]]
    assert "tests/test_calc.py::test_table" not in todo  # reads the defect table: no named candidate, no coverage
    assert reasons.get("tests/test_calc.py::test_add") is None or reasons["tests/test_calc.py::test_add"] != \
        ONLY_EQUIVALENT


# ----------------------------------------------------------------------------- incremental


def test_after_a_change_only_the_named_mutants_it_touches_run_again(campaign, tmp_path):
    settings, fp, records = campaign
    root = tmp_path / "copy"
    shutil.copytree(settings.root, root)
    again = settings_for(root)
    tests = root / "tests" / "test_calc.py"
    tests.write_text(tests.read_text().replace("assert 1 + 1 == 2", "assert 2 + 2 == 4"))  # no mutant runs it
    defects_py = root / "strategies" / "defects.py"
    defects_py.write_text(defects_py.read_text().replace('"changes nothing a test sees"', '"still nothing"'))
    seen: list[str] = []
    new_fp = fingerprint(again)
    assert new_fp != fp
    done = run_named_mutants(again, MUTANTS, fp=new_fp, on_record=lambda r: seen.append(r["mutant"]))
    assert seen == ["defect:HARMLESS"]  # its switch's site changed; the others are kept
    assert "incremental: 3 named mutant(s) kept" in again.progress.getvalue()
    assert {k: v["status"] for k, v in done.items() if k != BASELINE} == \
        {k: v["status"] for k, v in records.items() if k != BASELINE}
    tests.write_text(tests.read_text().replace("assert add(1, 2, variant) == 3", "assert add(2, 1, variant) == 3"))
    seen.clear()
    quick = [m for m in MUTANTS if m.id != "defect:HANGS"]
    run_named_mutants(again, quick, fp=fingerprint(again), on_record=lambda r: seen.append(r["mutant"]))
    assert sorted(seen) == sorted(m.id for m in quick)  # test_add[sound] runs under every sound mutant


# ----------------------------------------------------------------------------- the suite's order


def test_the_suite_runs_the_ranked_tests_in_rank_order_then_the_others_file_by_file_and_the_harness_last(pytester):
    from invariants.plugin import suite_order

    pytester.makepyfile(test_a="import pytest\n\ndef test_weak():\n    pass\n\n"
                               "@pytest.mark.harness\ndef test_tool():\n    pass\n\ndef test_strong():\n    pass\n\n"
                               "def test_unranked():\n    pass\n",
                        test_b="def test_mid():\n    pass\n\ndef test_other():\n    pass\n")
    items, _ = pytester.inline_genitems()
    suite_order(items, ["test_a.py::test_strong", "test_b.py::test_mid", "test_a.py::test_weak"])
    assert [it.nodeid for it in items] == ["test_a.py::test_strong", "test_b.py::test_mid", "test_a.py::test_weak",
                                           "test_a.py::test_unranked", "test_b.py::test_other", "test_a.py::test_tool"]


def test_the_order_file_ranks_test_functions_by_mutants_killed(campaign):
    from reports.report_run import order_by_kills

    _, fp, records = campaign
    order = order_by_kills(build(records, fp, MUTANTS, equivalents={}), records)
    assert order["tests"][0] == "tests/test_calc.py::test_add"  # kills OFF_BY_ONE
    assert "tests/test_calc.py::test_plain" not in order["tests"]
    assert len(order["kills"]) == len(order["tests"]) and all(n > 0 for n in order["kills"])


# ----------------------------------------------------------------------------- extra mutants (patches)


EXTRA_KILLED = """Adds one to every sum.
--- a/calc.py
+++ b/calc.py
@@ -11,2 +11,2 @@
     off = Defect.OFF_BY_ONE in active or (Defect.OFF_FOR_LARGE in active and a >= 5)
-    return a + b + (1 if off else 0)
+    return a + b + 1
"""
EXTRA_SURVIVES = """Renames a local variable.
--- a/calc.py
+++ b/calc.py
@@ -10,3 +10,3 @@
         time.sleep(120)
-    off = Defect.OFF_BY_ONE in active or (Defect.OFF_FOR_LARGE in active and a >= 5)
-    return a + b + (1 if off else 0)
+    bump = Defect.OFF_BY_ONE in active or (Defect.OFF_FOR_LARGE in active and a >= 5)
+    return a + b + (1 if bump else 0)
"""


def test_extra_mutants_are_patches_run_with_the_named_mutants(campaign, tmp_path):
    from reports.extra import extra_mutants

    settings, fp, records = campaign
    folder = tmp_path / "patches"
    folder.mkdir()
    (folder / "sum-plus-one.patch").write_text(EXTRA_KILLED)
    (folder / "rename.patch").write_text(EXTRA_SURVIVES)
    (folder / "stale.patch").write_text(EXTRA_KILLED.replace("return a + b + (1", "return a * b + (1"))
    extras = extra_mutants(folder)
    assert [m.id for m in extras] == ["extra:rename", "extra:stale", "extra:sum-plus-one"]
    run = settings_for(settings.root)
    run.out = tmp_path / "out"
    Journal(run.journal_dir, "all").write(records[BASELINE])
    before = (settings.root / "calc.py").read_text()
    done = run_named_mutants(run, extras, fp=fp, patches={m.id: folder / f"{m.id[6:]}.patch" for m in extras})
    assert (settings.root / "calc.py").read_text() == before  # patched in a copy only
    killed = done["extra:sum-plus-one"]
    assert killed["status"] == "killed" and "tests/test_calc.py::test_add[sound]" in killed["killed_by"]
    assert (killed["file"], killed["line"]) == ("calc.py", 11)
    assert done["extra:rename"]["status"] == "survived"
    assert done["extra:stale"]["status"] == "error" and "does not apply" in done["extra:stale"]["reason"]
    report = build({**records, **done}, fp, MUTANTS + extras, equivalents={})
    row = report.named.set_index("id").loc["extra:sum-plus-one"]
    assert row["wording"] == "Adds one to every sum." and row["status"] == "killed"
    assert any("extra mutants (patches): 1/3 killed" in line for line in __import__("reports.report_summary")
               .report_summary.summary_lines(report))
    doc = mte_json(report, settings.root)
    assert {m["id"]: m["mutatorName"] for m in doc["files"]["calc.py"]["mutants"]}["extra:sum-plus-one"] == "Patch"


# ----------------------------------------------------------------------------- the report in a browser, the schema


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCHEMA = ROOT / "reports" / "schema" / "mutation-testing-report-schema.json"


def headless(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
             "--enable-logging=stderr", "--v=0", *extra]
    return subprocess.run([CHROMIUM, *flags, page.as_uri()], capture_output=True, text=True, timeout=120)


def console_errors(stderr: str) -> list[str]:
    """Chromium's console lines for the page's errors (an uncaught exception, console.error)."""
    return [line for line in stderr.splitlines() if "CONSOLE" in line
            and re.search(r"Uncaught|Error|console\.error", line)]


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium; .ci/run does)")
def test_the_html_report_renders_in_headless_chromium_without_console_errors(campaign, tmp_path):
    settings, fp, records = campaign
    write(build(records, fp, MUTANTS, equivalents={}), tmp_path, settings.root)
    page = tmp_path / "report.html"
    run = headless(page, tmp_path / "profile", "--dump-dom")
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    assert console_errors(run.stderr) == []
    assert re.search(r'<p id="headline" class="headline complete">COMPLETE', dom)
    assert '<table id="named">' in dom and dom.count('data-status="killed"') >= 2 and "<svg" in dom
    assert '<table id="without">' in dom and "tests/test_calc.py::test_plain" in dom.split('id="without"')[1]
    shot = tmp_path / "report.png"
    headless(page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,1600")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot: {shot}")
    # the check can fail: a page whose script throws is caught
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>")
    assert console_errors(headless(broken, tmp_path / "profile", "--dump-dom").stderr)


def test_the_mutation_testing_elements_json_is_valid_against_the_published_schema(campaign):
    jsonschema = pytest.importorskip("jsonschema")
    settings, fp, records = campaign
    records = dict(records)
    records["mutmut:calc.x_add__mutmut_1"] = {
        "mutant": "mutmut:calc.x_add__mutmut_1", "kind": "mutmut", "status": "survived", "file": "calc.py",
        "function": "add", "line": 11, "column": 12, "end_line": 11, "end_column": 13, "mutator": "ArithmeticOperator",
        "original": "return a + b", "replacement": "return a - b", "killed_by": [], "duration": 0.5, "diff": ""}
    doc = json.loads(json.dumps(mte_json(build(records, fp, MUTANTS, equivalents={}), settings.root)))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema, format_checker=jsonschema.FormatChecker())
    doc["files"]["calc.py"]["mutants"][0]["status"] = "Murdered"  # and the check can fail
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
