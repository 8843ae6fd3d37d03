"""The reviewer's loop: after a change the campaign re-runs only what the change can reach, and a comment or a
docstring re-runs nothing; a report's verdicts do not depend on the machine's speed."""

from __future__ import annotations

import json
import shutil
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import FAKE_HASHED, make_project, mutmut_result, settings_for

from reports.campaign import settings as campaign_settings
from reports.campaign.dependency_keys import (
    Coverage,
    KeyMemo,
    baseline_sources,
    coverage_of,
    function_keys,
    named_at_import,
    rerun,
    semantic,
)
from reports.campaign.fingerprint import fingerprint, hashed_files
from reports.campaign.hints import Hints
from reports.campaign.hints import write as write_hints
from reports.campaign.journal import (
    Journal,
    compact,
    forget_journals,
    load_journals,
    read_records,
)
from reports.campaign.mutmut.execute import UNKNOWN_DURATION, plan
from reports.campaign.mutmut.meta import tests_by_function as covered_by
from reports.campaign.mutmut.meta import unmangled
from reports.campaign.mutmut.results import coverage_record, described
from reports.campaign.mutmut.run import MutmutResult
from reports.campaign.mutmut.work_copy import (
    COVERING,
    canonical_stats,
    covering_digests,
    keep_verdicts,
    lay_work_copy,
    mark_prepared,
    needs_preparing,
    reopen_for_new_hints,
    reopen_recovered,
    save_test_keys,
    verdicts,
    work_dir,
)
from reports.campaign.phases import baseline as baseline_phase
from reports.campaign.phases import mutmut as mutmut_phase
from reports.campaign.phases.baseline import previous_baseline
from reports.campaign.phases.witness import kept_witnesses, witness_deps
from reports.campaign.processes import run_pytest
from reports.campaign.records import (
    BASELINE,
    NO_CODE,
    BaselineRecord,
    CoverageRecord,
    MutantChange,
    Outcome,
    WitnessRecord,
    coverage_key,
    dumps,
    witness_key,
)
from reports.campaign.records import TestCalls as Calls
from reports.campaign.records import TestRow as Row
from reports.campaign.run_context import RunContext
from reports.errors import CampaignError

pytestmark = pytest.mark.harness


def ensure_baseline(settings, fp: str, journal: Journal, done) -> BaselineRecord:
    """The baseline phase as a run of fingerprint ``fp`` writing to ``journal`` meets it."""
    return baseline_phase.run(
        settings, RunContext(fp, journal, tuple(hashed_files(settings.root, settings.hashed))), done
    )


ROOT = Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------------------- what a key sees

CODE = '''
"""A module."""

LIMIT = 3  # the limit


def f(x):
    """Adds one."""
    return x + 1


class C:
    """A class."""

    def m(self):
        return LIMIT
'''


def test_comments_docstrings_and_layout_change_no_key():
    reworded = CODE.replace("Adds one.", "Adds one to x.").replace("# the limit", "# the upper limit")
    relaid = CODE.replace("return x + 1", "return (x\n            + 1)")
    assert semantic(reworded) == semantic(CODE) and function_keys(reworded) == function_keys(CODE)
    assert semantic(relaid) == semantic(CODE) and function_keys(relaid) == function_keys(CODE)
    changed = CODE.replace("x + 1", "x + 2")
    assert semantic(changed) != semantic(CODE)
    assert function_keys(changed)["f"] != function_keys(CODE)["f"]
    assert function_keys(changed)["C.m"] == function_keys(CODE)["C.m"]
    # with positions, a docstring that grows by a line moves the code after it; one that does not, moves nothing
    longer = CODE.replace('"""Adds one."""', '"""Adds one.\n\n    To x."""')
    assert semantic(reworded, positions=True) == semantic(CODE, positions=True)
    assert semantic(longer, positions=True) != semantic(CODE, positions=True)


def test_the_fingerprint_ignores_a_reworded_docstring_and_follows_code_that_moves(tmp_path):
    root = make_project(tmp_path)
    calc = root / "strategies" / "calc_helpers.py"
    calc.write_text(CODE)
    settings = settings_for(root)
    fp = fingerprint(settings)
    calc.write_text(CODE.replace("Adds one.", "Adds one to x.").replace("# the limit", "# the upper limit"))
    assert fingerprint(settings) == fp
    calc.write_text(CODE.replace('"""Adds one."""', '"""Adds one.\n\n    To x."""'))
    assert fingerprint(settings) != fp  # the mutants' places moved: the report must say where they are now
    calc.write_text(CODE.replace("x + 1", "x - 1"))
    assert fingerprint(settings) != fp


# ----------------------------------------------------------------------------- which baseline tests run again

SOURCES = {
    "settings": "s",
    "code:strategies/calc.py": "m",
    "code:strategies/calc.py::f": "f1",
    "code:strategies/calc.py::C.m": "cm1",
    "code:strategies/calc.py::cached": "c1",
    "code:strategies/other.py::g": "g1",
    "test:tests/test_calc.py": "t",
    "test:tests/test_calc.py::test_f": "tf",
    "test:tests/test_calc.py::test_m": "tm",
    "test:tests/test_other.py": "o",
    "test:tests/test_other.py::test_o": "to",
    "file:tests/helpers.py": "h",
}
COVERAGE = Coverage(
    {
        "strategies.calc.f": frozenset({"tests/test_calc.py::test_f[a]", "tests/test_calc.py::test_f[b]"}),
        "strategies.calc.C.m": frozenset({"tests/test_calc.py::test_m"}),
        "strategies.calc.cached": frozenset({"tests/test_calc.py::test_m"}),
    },
    modules=frozenset({"strategies.calc"}),  # strategies.other was imported before the recording began
    shared=frozenset({"strategies.calc.cached"}),
)
#: The last test runs the project in another process: what it calls there is not seen.
TRACED = {t for tests in COVERAGE.tests_of.values() for t in tests}
ALL = [
    "tests/test_calc.py::test_f[a]",
    "tests/test_calc.py::test_f[b]",
    "tests/test_calc.py::test_m",
    "tests/test_other.py::test_o",
]


def affected(now: dict[str, str], coverage: Coverage | None = COVERAGE) -> tuple[str, list[str]]:
    plan = rerun(SOURCES, now, coverage)
    return plan.everything, [t for t in ALL if plan.affected(t, TRACED.__contains__)]


def test_a_changed_function_reruns_the_tests_that_call_it_and_the_untraced_ones():
    why, tests = affected({**SOURCES, "code:strategies/calc.py::f": "f2"})
    assert why == "" and tests == ["tests/test_calc.py::test_f[a]", "tests/test_calc.py::test_f[b]", ALL[3]]
    why, tests = affected({**SOURCES, "code:strategies/calc.py::C.m": "cm2"})
    assert why == "" and tests == ["tests/test_calc.py::test_m", ALL[3]]


def test_nothing_changed_reruns_nothing():
    assert affected(dict(SOURCES)) == ("", [])
    plan = rerun(SOURCES, dict(SOURCES), None)  # without coverage too
    assert plan.changed == () and not plan.everything


@pytest.mark.parametrize(
    ("part", "reason"),
    [
        ("settings", "settings changed"),
        ("code:strategies/calc.py", "strategies/calc.py changed outside its functions"),
        ("file:tests/helpers.py", "tests/helpers.py changed"),
        ("code:strategies/other.py::g", "did not see strategies.other.g's calls"),
        ("code:strategies/calc.py::cached", "strategies.calc.cached's result outlives a test"),
    ],
)
def test_a_change_no_test_can_be_traced_to_reruns_everything(part, reason):
    why, tests = affected({**SOURCES, part: "changed"})
    assert reason in why and tests == ALL


def test_a_removed_file_part_or_function_counts_as_changed():
    gone = {k: v for k, v in SOURCES.items() if k != "file:tests/helpers.py"}
    assert "tests/helpers.py changed" in affected(gone)[0]
    gone = {k: v for k, v in SOURCES.items() if k != "code:strategies/calc.py::f"}
    assert affected(gone)[1] == ["tests/test_calc.py::test_f[a]", "tests/test_calc.py::test_f[b]", ALL[3]]


def test_a_new_function_calls_nothing_yet_and_reruns_only_the_untraced_tests():
    why, tests = affected({**SOURCES, "code:strategies/calc.py::g": "g1"})
    assert why == "" and tests == [ALL[3]]


def test_a_changed_test_reruns_itself_and_a_changed_module_all_of_its_tests():
    assert affected({**SOURCES, "test:tests/test_calc.py::test_m": "tm2"}) == ("", ["tests/test_calc.py::test_m"])
    assert affected({**SOURCES, "test:tests/test_calc.py::test_new": "n"}) == ("", [])  # a new test: not a row yet
    why, tests = affected({**SOURCES, "test:tests/test_calc.py": "t2"})
    assert why == "" and tests == ALL[:3]
    # test changes need no coverage; a function change does
    assert affected({**SOURCES, "test:tests/test_calc.py::test_m": "tm2"}, None) == ("", ["tests/test_calc.py::test_m"])
    assert "no per-function coverage" in affected({**SOURCES, "code:strategies/calc.py::f": "f2"}, None)[0]


def test_the_sources_name_every_part(tmp_path):
    root = make_project(tmp_path)
    (root / "strategies" / "calc.py").write_text(CODE)
    (root / "tests" / "data.json").write_text("{}")
    parts = baseline_sources(root, hashed_files(root, ("strategies", "tests", "docs")), "settings")
    assert {"code:strategies/calc.py", "code:strategies/calc.py::f", "code:strategies/calc.py::C.m"} <= set(parts)
    assert {"test:tests/test_calc.py", "test:tests/test_calc.py::test_add", "file:tests/data.json"} <= set(parts)
    assert "settings" in parts and not any(p.startswith("docs") for p in parts)


def test_mutmuts_names_unmangled():
    assert unmangled("strategies.cap.x_units") == "strategies.cap.units"
    assert unmangled("strategies.cap.x__units") == "strategies.cap._units"
    assert unmangled("strategies.cap.xǁCapǁunits") == "strategies.cap.Cap.units"
    assert unmangled("invariants.__init__.x_find") == "invariants.find"


# ----------------------------------------------------------------------------- the baseline, run again in part

HELPER = '''
def double(x):
    """Twice x."""
    return 2 * x


def unused(x):
    return x
'''

MORE_TESTS = """
from strategies.helper import double


def test_double():
    assert double(2) == 4


def test_double_zero():
    assert double(0) == 0
"""


SPAWNING = """
import subprocess
import sys


def test_spawn():
    assert subprocess.run([sys.executable, "-c", "import calc"], check=False).returncode == 0


def test_no_python_spawned():
    assert subprocess.run(["true"], check=False).returncode == 0
"""


@pytest.fixture
def project(tmp_path):
    root = make_project(tmp_path / "p")
    (root / "strategies" / "helper.py").write_text(HELPER)
    (root / "tests" / "test_helper.py").write_text(MORE_TESTS)
    # runs the project in another process (as a test of the command line does): what it calls there is not traced
    (root / "tests" / "test_spawn.py").write_text(SPAWNING)
    settings = settings_for(root)
    fp = fingerprint(settings)
    journal = Journal(settings.journal_dir)
    first = ensure_baseline(settings, fp, journal, {})
    assert first.reused == 0 and first.sources and first.calls is not None
    return settings, journal, first


def baseline_after(settings, journal) -> BaselineRecord:
    fp = fingerprint(settings)
    return ensure_baseline(settings, fp, journal, load_journals(settings.journal_dir, fp))


def test_a_changed_function_reruns_only_its_tests_and_keeps_the_rest(project):
    settings, journal, first = project
    helper = settings.root / "strategies" / "helper.py"
    helper.write_text(HELPER.replace("return 2 * x", "return x + x + 1"))
    again = baseline_after(settings, journal)
    outcomes = {r.nodeid: r.outcome for r in again.tests}
    assert outcomes["tests/test_helper.py::test_double"] == Outcome.FAILED  # run again: it sees the change
    assert outcomes["tests/test_helper.py::test_double_zero"] == Outcome.FAILED
    # a test that started a Python process is seen doing so (the other one ran only a program that is not Python)
    assert [first.tests[i].nodeid for i in first.calls.spawned] == ["tests/test_spawn.py::test_spawn"]
    assert again.reused == len(first.tests) - 3  # its two tests and the one that spawns
    assert [r.nodeid for r in again.tests] == sorted(r.nodeid for r in first.tests)
    untraced = {"tests/test_spawn.py::test_spawn"}
    kept = {r.nodeid: r for r in first.tests if "test_helper" not in r.nodeid and r.nodeid not in untraced}
    assert kept and all(r.t == kept[r.nodeid].t for r in again.tests if r.nodeid in kept)
    assert all(r.t > first.finished for r in again.tests if r.nodeid in untraced)
    assert all(r == kept[r.nodeid] for r in again.tests if r.nodeid in kept)  # carried over as they were
    assert "3 test(s) run again" in settings.progress.getvalue()
    assert again.calls is not None and again.calls.by_test([r.nodeid for r in again.tests]) == first.calls.by_test(
        [r.nodeid for r in first.tests]
    )  # the rows kept keep their calls; those run again recorded theirs


VERDICT = """
def passes(x):
    return x > 0


def label(x):
    return "yes" if passes(x) else "no"
"""

VERDICT_TESTS = """
from tools.verdict import label, passes


def test_passes():
    assert passes(1)


def test_label():
    assert label(-1) == "no"
"""

#: The fake project's mutmut scope: the model's folder and, of its tools, the verdict module alone (as this
#: project's ``[tool.mutmut]`` names its verdict rules).
VERDICT_SCOPE = """
[tool.mutmut]
source_paths = ["strategies/", "tools/"]
only_mutate = ["strategies/*", "tools/verdict.py"]
"""


@pytest.fixture
def verdict_project(tmp_path):
    root = make_project(tmp_path / "p")
    (root / "tools").mkdir()
    (root / "tools" / "__init__.py").write_text("")
    (root / "tools" / "verdict.py").write_text(VERDICT)
    (root / "tools" / "other.py").write_text("def helper():\n    return 1\n")
    (root / "tests" / "test_verdict.py").write_text(VERDICT_TESTS)
    (root / "pyproject.toml").write_text(VERDICT_SCOPE)
    settings = settings_for(root, hashed=(*FAKE_HASHED, "tools", "pyproject.toml"))
    journal = Journal(settings.journal_dir)
    first = ensure_baseline(settings, fingerprint(settings), journal, {})
    return settings, journal, first


def test_a_module_mutmut_mutates_outside_the_models_folders_is_keyed_and_traced_function_by_function(verdict_project):
    """A verdict rule of the tools (``only_mutate`` names it) is code under test: a change to one of its functions
    re-runs the tests that call it, not the whole baseline; another module of the same folder is a plain file."""
    settings, journal, first = verdict_project
    parts = set(first.sources)
    assert {"code:tools/verdict.py::passes", "code:tools/verdict.py::label", "file:tools/other.py"} <= parts
    assert "tools.verdict" in first.calls.modules
    verdict = settings.root / "tools" / "verdict.py"
    verdict.write_text(VERDICT.replace('"yes" if', '"YES" if'))
    again = baseline_after(settings, journal)
    ran = sorted(r.nodeid for r in again.tests if r.t > first.finished)
    assert ran == ["tests/test_verdict.py::test_label"]  # test_passes calls passes only
    assert again.reused == len(first.tests) - 1


def test_the_sources_key_only_what_mutmut_mutates_of_a_tools_folder(tmp_path):
    root = make_project(tmp_path / "p")
    (root / "tools").mkdir()
    (root / "tools" / "verdict.py").write_text(VERDICT)
    (root / "tools" / "other.py").write_text("def helper():\n    return 1\n")
    (root / "pyproject.toml").write_text(VERDICT_SCOPE)
    parts = baseline_sources(root, hashed_files(root, ("strategies", "tools", "tests")), "settings")
    assert {"code:tools/verdict.py", "code:tools/verdict.py::passes", "file:tools/other.py"} <= set(parts)
    (root / "pyproject.toml").write_text(VERDICT_SCOPE.replace("tools/verdict.py", "tools/nothing.py"))
    parts = baseline_sources(root, hashed_files(root, ("strategies", "tools", "tests")), "settings")
    assert "file:tools/verdict.py" in parts and not any(p.startswith("code:tools/") for p in parts)


SHARING_HELPER = HELPER + "\n\ndef triple(x):\n    return 3 * x\n\n\ndef quadruple(x):\n    return 4 * x\n"

SHARING = """
import functools

import pytest

from reference.model import Derived
from strategies.helper import double, quadruple, triple, unused

KEPT = Derived()  # as a store built at import keeps what is derived from it for every test that reads it


@functools.cache
def _memo():
    return triple(1)


@pytest.fixture(scope="module")
def wide():
    return unused(7)


def test_memo_first():
    assert _memo() == 3


def test_memo_again():
    assert _memo() == 3


def test_wide(wide):
    assert wide == 7


def test_wide_again(wide):
    assert wide + 0 == 7


def test_double_plain():
    assert double(1) == 2


def test_kept_first():
    assert KEPT.value("four", lambda: quadruple(1)) == 4


def test_kept_again():
    assert KEPT.value("four", lambda: quadruple(1)) == 4
"""


MEMO_TESTS = {"tests/test_sharing.py::testmemo_first", "tests/test_sharing.py::testmemo_again"}  # "_memo" renamed


@pytest.mark.parametrize(
    ("function", "why", "rerun"),
    [
        ("triple", "", MEMO_TESTS),  # a cache credits the test that filled it and the one that read it after
        ("unused", "outlives a test", None),  # a module fixture's value: one test set it up, another reads it
        ("double", "", {"tests/test_sharing.py::test_double_plain"}),
        ("quadruple", "", {"tests/test_sharing.py::test_kept_first", "tests/test_sharing.py::test_kept_again"}),
    ],
)
def test_a_change_reruns_every_test_that_read_a_cached_value_and_every_test_after_a_wide_fixtures(
    tmp_path, function, why, rerun
):
    root = make_project(tmp_path / "p")
    (root / "strategies" / "helper.py").write_text(SHARING_HELPER)
    (root / "tests" / "test_sharing.py").write_text(SHARING.replace("_memo", "memo"))  # cached in the test module
    settings = settings_for(root)
    journal = Journal(settings.journal_dir)
    first = ensure_baseline(settings, fingerprint(settings), journal, {})
    assert first.calls is not None and "strategies.helper.unused" in first.calls.shared
    shared = len(first.calls.shared)  # with the model's functions that ran at import (``Derived()``, decorators)
    assert f"baseline: {shared} function(s) of the code under test ran outside one test" in settings.progress.getvalue()
    helper = root / "strategies" / "helper.py"
    body = {
        "triple": "return 3 * x\n",
        "unused": "return x\n",
        "double": "return 2 * x\n",
        "quadruple": "return 4 * x\n",
    }[function]
    helper.write_text(helper.read_text().replace(body, body.rstrip() + " + 0\n"))
    again = baseline_after(settings, journal)
    if why:
        assert again.reused == 0 and why in settings.progress.getvalue()
    else:
        assert {r.nodeid for r in again.tests if r.t > first.finished} == rerun


def test_a_wide_fixtures_calls_count_for_every_test_that_uses_it_whichever_set_it_up(tmp_path):
    """A module fixture is set up for the first test that asks for it; the per-test coverage (and so the report's
    coveredBy) credits its calls to each test using it, so a partial baseline credits them as a whole one does."""
    root = make_project(tmp_path / "p")
    (root / "strategies" / "helper.py").write_text(SHARING_HELPER)
    (root / "tests" / "test_sharing.py").write_text(SHARING)
    settings = settings_for(root)
    first = ensure_baseline(settings, fingerprint(settings), Journal(settings.journal_dir), {})
    cover = coverage_of(first)
    assert cover is not None and "strategies.helper.unused" in cover.shared  # a change to it still re-runs all
    users = {"tests/test_sharing.py::test_wide", "tests/test_sharing.py::test_wide_again"}
    assert cover.tests_of["strategies.helper.unused"] == users


def test_a_docstring_or_comment_change_runs_no_test(project):
    settings, journal, first = project
    helper = settings.root / "strategies" / "helper.py"
    helper.write_text(HELPER.replace('"""Twice x."""', '"""Twice x.\n\n    Doubled."""').replace("2 * x", "2 * x  # !"))
    assert fingerprint(settings) != first.fingerprint  # the code below the docstring moved
    started = time.time()
    again = baseline_after(settings, journal)
    assert again.reused == len(first.tests) and again.wall == 0.0
    assert [(r.nodeid, r.outcome) for r in again.tests] == [(r.nodeid, r.outcome) for r in first.tests]
    assert time.time() - started < 5  # no pytest session was started
    assert "no test or function changed" in settings.progress.getvalue()


def test_a_new_test_and_a_changed_test_run_and_nothing_else(project):
    settings, journal, first = project
    tests = settings.root / "tests" / "test_helper.py"
    tests.write_text(
        MORE_TESTS.replace("assert double(0) == 0", "assert double(0) == 1")
        + "\n\ndef test_double_one():\n    assert double(1) == 2\n"
    )
    again = baseline_after(settings, journal)
    outcomes = {r.nodeid: r.outcome for r in again.tests}
    assert outcomes["tests/test_helper.py::test_double_zero"] == Outcome.FAILED
    assert outcomes["tests/test_helper.py::test_double_one"] == Outcome.PASSED
    assert again.reused == len(first.tests) - 1
    assert BASELINE in load_journals(settings.journal_dir, again.fingerprint)


def test_a_change_to_an_untraced_function_reruns_the_whole_baseline(project):
    settings, journal, first = project
    (settings.root / "strategies" / "defects.py").write_text(
        (settings.root / "strategies" / "defects.py").read_text() + "\n\ndef extra():\n    return 1\n"
    )
    again = baseline_after(settings, journal)  # defects.py changed outside its functions (a new def is module code)
    assert again.reused == 0 and len(again.tests) == len(first.tests)


def test_a_baseline_that_recorded_no_calls_lets_a_function_change_rerun_everything(project):
    settings, journal, first = project
    journal.write(replace(first, calls=None, finished=time.time()))
    helper = settings.root / "strategies" / "helper.py"
    helper.write_text(HELPER.replace("return x\n", "return -x\n"))
    again = baseline_after(settings, journal)
    assert again.reused == 0
    assert "no per-function coverage" in settings.progress.getvalue()


# ----------------------------------------------------------------------------- mutmut's verdicts of unchanged code

MUTATED = '''
def x_f__mutmut_orig(x):
    """Adds one."""
    return x + 1


def x_f__mutmut_1(x):
    """Adds one."""
    return x - 1


def x_f__mutmut_2(x):
    """Adds one."""
    return x + 2
'''


def test_a_mutant_whose_code_reads_as_before_keeps_its_verdict(tmp_path):
    work = tmp_path / "project"
    (work / "mutants" / "strategies").mkdir(parents=True)
    module, meta = work / "mutants" / "strategies" / "m.py", work / "mutants" / "strategies" / "m.py.meta"
    module.write_text(MUTATED)
    codes = {"strategies.m.x_f__mutmut_1": 1, "strategies.m.x_f__mutmut_2": 0}
    meta.write_text(json.dumps({"exit_code_by_key": codes, "durations_by_key": {"strategies.m.x_f__mutmut_1": 0.5}}))
    before = verdicts(work, ["strategies/m.py"])
    assert verdicts(work, ["strategies/other.py"]) == {}
    # mutmut mutates the file again after a docstring change (its hash moved) and forgets both verdicts; the second
    # mutant's code changed for real
    module.write_text(MUTATED.replace("Adds one.", "Adds one to x.").replace("x + 2", "x * 2"))
    meta.write_text(json.dumps({"exit_code_by_key": dict.fromkeys(codes)}))
    assert keep_verdicts(work, before) == 1
    data = json.loads(meta.read_text())
    assert data["exit_code_by_key"] == {"strategies.m.x_f__mutmut_1": 1, "strategies.m.x_f__mutmut_2": None}
    assert data["durations_by_key"] == {"strategies.m.x_f__mutmut_1": 0.5}


# ----------------------------------------------------------------------------- the same verdicts on any machine


def test_a_mutants_test_order_reads_no_time_measured_in_this_run(tmp_path):
    """The order's durations come from the hints alone: a test they do not know is ordered by a fixed time, whatever
    this run's baseline measured (the limits do follow this run's times)."""
    work = tmp_path / "project"
    (work / "mutants" / "strategies").mkdir(parents=True)
    tests = ["tests/test_new.py::test_a", "tests/test_new.py::test_b"]
    stats = {"tests_by_mangled_function_name": {"strategies.new.x_f": tests}}
    (work / "mutants" / "mutmut-stats.json").write_text(json.dumps(stats))
    meta = {"exit_code_by_key": {"strategies.new.x_f__mutmut_1": None}}
    (work / "mutants" / "strategies" / "new.py.meta").write_text(json.dumps(meta))
    rows = tuple(
        Row(n, Outcome.PASSED, d, 0.0, n, "tests/test_new.py", None) for n, d in zip(tests, (0.001, 9.0), strict=True)
    )
    the_plan = plan(work, ["strategies.new"], BaselineRecord("fp", 1.0, 0.1, 0, rows, 0.0), Hints())
    assert [m.name for m in the_plan.warm.mutants] == ["strategies.new.x_f__mutmut_1"]
    assert the_plan.warm.order_durations == dict.fromkeys(tests, UNKNOWN_DURATION)
    assert the_plan.warm.durations == {tests[0]: 0.001, tests[1]: 9.0}


def test_a_timeout_is_confirmed_with_longer_limits_before_it_counts(pytester, monkeypatch):
    """A test slowed down once (a loaded machine) times out in the main pass; run again with longer limits it
    fails, and the mutant is recorded killed by it, not timed out. A test that never ends is still a timeout."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    marker = pytester.path / "slowed-once"
    pytester.makepyfile(
        test_load=textwrap.dedent(f"""
            import time
            from pathlib import Path

            MARKER = Path({str(marker)!r})

            def test_slowed_once():
                if not MARKER.exists():
                    MARKER.write_text("slowed")
                    time.sleep(3)
                assert False, "killed"

            def test_hangs():
                time.sleep(60)
        """)
    )
    plan_path, out = pytester.path / "plan.json", pytester.path / "out.jsonl"
    plan_path.write_text(
        json.dumps(
            {
                "workers": 1,
                "per_test": [10.0, 0.5],
                "durations": {"test_load.py::test_slowed_once": 0.05, "test_load.py::test_hangs": 0.05},
                "mutants": [
                    {"name": "m.x_f__mutmut_1", "tests": ["test_load.py::test_slowed_once"], "limit": 50.0},
                    {"name": "m.x_g__mutmut_1", "tests": ["test_load.py::test_hangs"], "limit": 50.0},
                ],
            }
        )
    )
    pytester.runpytest_subprocess(
        "-p", "reports.campaign.plugins.warm_session", f"--cm-execute={plan_path}", f"--cm-execute-out={out}"
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    ends = {r["name"]: r["exit"] for r in rows if "exit" in r}
    assert ends == {"m.x_f__mutmut_1": 1, "m.x_g__mutmut_1": 36}
    assert [r["exit"] for r in rows if "exit" in r].count(36) == 1  # no timeout written before it was confirmed
    assert {"name": "m.x_f__mutmut_1", "killer": "test_load.py::test_slowed_once"} in rows


def test_the_kill_matrix_columns_are_sorted(campaign):
    from campaign_helpers import MUTANTS

    from reports.render.report_model import build

    _, fp, records = campaign
    report = build(records, fp, MUTANTS, equivalents={})
    assert list(report.kills.tests) == sorted(report.kills.tests) and report.kills.tests


def test_the_baseline_rows_are_sorted_by_node_id(campaign):
    records = campaign[2]
    nodeids = [r.nodeid for r in records[BASELINE].tests]
    assert nodeids == sorted(nodeids) and len(nodeids) > 3


def test_a_copied_project_keeps_its_fingerprint(tmp_path):
    root = make_project(tmp_path / "a")
    other = tmp_path / "b"
    shutil.copytree(root, other)
    assert fingerprint(settings_for(root)) == fingerprint(settings_for(other))


# ----------------------------------------------------------------------------- the journal, read and kept small


def baseline_record(fp: str, finished: float, sources: dict[str, str] | None = None) -> BaselineRecord:
    return BaselineRecord(fp, 1.0, 0.1, 0, (), finished, sources={"settings": "s"} if sources is None else sources)


def test_a_journal_read_again_sees_what_was_added_and_a_line_only_once_whole(tmp_path):
    journal = Journal(tmp_path)
    journal.write(baseline_record("a", 1.0))
    assert [r.fingerprint for r in read_records(tmp_path)] == ["a"]
    journal.write_all([baseline_record("b", 2.0), baseline_record("c", 3.0)])
    line = dumps(baseline_record("d", 3.5)) + "\n"
    with open(journal.path, "a", encoding="utf-8") as fh:
        fh.write(line[:25])  # a line still being written
    assert [r.fingerprint for r in read_records(tmp_path)] == ["a", "b", "c"]
    with open(journal.path, "a", encoding="utf-8") as fh:
        fh.write(line[25:])
    journal.write(baseline_record("e", 4.0))
    assert [r.fingerprint for r in read_records(tmp_path)] == ["a", "b", "c", "d", "e"]


def test_compacting_keeps_the_last_record_of_each_key_of_one_fingerprint(tmp_path):
    journal = Journal(tmp_path)
    journal.write_all([baseline_record("old", 1.0), baseline_record("new", 2.0), baseline_record("new", 3.0)])
    assert len(list(read_records(tmp_path))) == 3
    compact(tmp_path, "all", "new")
    assert [(r.fingerprint, r.finished) for r in read_records(tmp_path)] == [("new", 3.0)]
    assert load_journals(tmp_path, "new")[BASELINE].finished == 3.0
    forget_journals(tmp_path)
    assert list(read_records(tmp_path)) == [] and not journal.path.exists()


def test_the_next_baseline_starts_from_the_last_one_journaled_with_its_sources(tmp_path):
    journal = Journal(tmp_path)
    journal.write_all(
        [baseline_record("later", 2.0), baseline_record("covered", 1.0), baseline_record("bare", 3.0, {})]
    )
    assert previous_baseline(tmp_path).fingerprint == "later"
    assert previous_baseline(tmp_path / "none") is None


def test_the_key_memo_is_kept_between_runs_and_answers_without_working(tmp_path):
    memo = KeyMemo()
    memo.load(tmp_path / "keys.json")  # none yet: empty
    assert memo.get("s", "x = 1", lambda t: "worked") == "worked"
    memo.save()
    again = KeyMemo()
    again.load(tmp_path / "keys.json")
    assert again.get("s", "x = 1", lambda t: "worked again") == "worked"
    assert again.get("s", "x = 2", lambda t: "new") == "new"
    (tmp_path / "keys.json").write_text("not json")
    broken = KeyMemo()
    broken.load(tmp_path / "keys.json")
    assert broken.known == {}


def test_a_files_mutants_are_described_once_until_what_describing_reads_changes(tmp_path, monkeypatch):
    work = tmp_path / "project"
    (work / "strategies").mkdir(parents=True)
    (work / "mutants" / "strategies").mkdir(parents=True)
    (work / "strategies" / "m.py").write_text("def f(x):\n    return x + 1\n")
    (work / "mutants" / "strategies" / "m.py").write_text(MUTATED)
    calls: list[list[str]] = []

    def counting(w: Path, source: str, names):
        calls.append(list(names))
        return {n: MutantChange(source, "f", mutator=f"seen {len(calls)}") for n in names}

    monkeypatch.setattr("reports.campaign.mutmut.results.describe", counting)
    names = ["strategies.m.x_f__mutmut_1", "strategies.m.x_f__mutmut_2"]
    first = described(work, "strategies/m.py", names)
    assert described(work, "strategies/m.py", names[:1]) == {names[0]: first[names[0]]}
    assert len(calls) == 1
    (work / "mutants" / "strategies" / "m.py").write_text(MUTATED.replace("x + 2", "x * 2"))
    assert described(work, "strategies/m.py", names)[names[1]].mutator == "seen 2"
    assert described(work, "strategies/m.py", [*names, "strategies.m.x_f__mutmut_3"])  # one it never saw
    assert len(calls) == 3


def _row(nodeid: str, t: float) -> Row:
    return Row(nodeid, Outcome.PASSED, 0.1, t, nodeid, nodeid.split("::")[0], None)


def test_a_test_that_calls_no_mutated_function_keeps_that_finding_while_only_traced_functions_change(tmp_path):
    root = make_project(tmp_path / "p")
    settings = settings_for(root)
    plain, gone = "tests/test_calc.py::test_plain", "tests/test_calc.py::test_table"
    rows = (_row(plain, 1.0), _row(gone, 2.0))
    keys = witness_deps(settings, BaselineRecord("old", 1.0, 0.1, 0, rows, 1.0), [plain, gone])
    journal = Journal(settings.journal_dir)
    found = [
        WitnessRecord(witness_key(plain), "old", plain, plain, None, reason=NO_CODE, deps=keys[plain]),
        WitnessRecord(witness_key(gone), "old", gone, gone, None, reason=NO_CODE, deps="another"),
    ]
    journal.write_all(found)
    pending = {plain, gone}

    def kept(reused: int) -> list[str]:
        done = {BASELINE: BaselineRecord("new", 1.0, 0.1, 0, rows, 1.0, reused=reused)}
        return [r.base for r in kept_witnesses(settings, done, pending, "new", {})]

    assert kept(reused=5) == [plain]  # its sources unchanged; the other's changed
    assert kept(reused=0) == []  # the whole baseline ran again: something outside the traced functions changed


def test_a_witness_is_kept_only_where_a_fresh_search_would_find_it_first(tmp_path):
    """A fresh clone's search tries each test's first candidate first: an earlier witness is kept only when it is
    that mutant, still killed, and the test did not run again on this baseline (its code under test unchanged)."""
    root = make_project(tmp_path / "p")
    settings = settings_for(root)
    kept_one, other_first, ran_again = (f"tests/test_calc.py::test_{n}" for n in ("plain", "table", "double"))
    mutant = "mutmut:calc.x_f__mutmut_1"
    before = BaselineRecord("old", 1.0, 0.1, 0, tuple(_row(n, 1.0) for n in (kept_one, other_first, ran_again)), 1.0)
    keys = witness_deps(settings, before, [kept_one, other_first, ran_again])
    Journal(settings.journal_dir).write_all(
        [WitnessRecord(witness_key(n), "old", n, n, mutant, deps=keys[n]) for n in (kept_one, other_first, ran_again)]
    )
    now = replace(before, fingerprint="new", tests=(*before.tests[:2], _row(ran_again, 9.0)), reused=2)
    done = {BASELINE: now, mutant: mutmut_result(mutant, "killed")}
    first = {kept_one: mutant, other_first: "mutmut:calc.x_f__mutmut_2", ran_again: mutant}
    pending = {kept_one, other_first, ran_again}
    assert [r.base for r in kept_witnesses(settings, done, pending, "new", first)] == [kept_one]
    assert kept_witnesses(settings, {BASELINE: now}, pending, "new", first) == []  # the witness no longer killed


def test_a_partial_baseline_of_many_tests_runs_on_several_workers_and_records_each_test_once(project, monkeypatch):
    settings, journal, first = project
    calls: list[list[str]] = []

    def recording(settings, args, timeout, env=None):
        calls.append(list(args))
        return run_pytest(settings, args, timeout, env)

    monkeypatch.setattr("reports.campaign.phases.baseline.run_pytest", recording)
    monkeypatch.setattr("reports.campaign.phases.baseline.XDIST_FROM", 0.0)  # seconds of the tests run again
    helper = settings.root / "strategies" / "helper.py"
    helper.write_text(HELPER.replace("return 2 * x", "return x + x + 1"))
    calc = settings.root / "tests" / "test_calc.py"
    calc.write_text(calc.read_text() + "\n\nLIMIT = 1\n")  # its module changed: every test of it runs again
    again = baseline_after(settings, journal)
    assert calls and calls[0][:2] == ["-n", "2"]
    assert [r.nodeid for r in again.tests] == [r.nodeid for r in first.tests]  # each once, none lost
    outcomes = {r.nodeid: r.outcome for r in again.tests}
    assert outcomes["tests/test_helper.py::test_double"] == Outcome.FAILED
    assert outcomes["tests/test_spawn.py::test_spawn"] == Outcome.PASSED
    variant = next(r for r in again.tests if r.nodeid == "tests/test_calc.py::test_add[sound]")
    assert variant.t > first.finished  # run again, and recorded by the worker that ran it, not by xdist's controller
    assert (variant.variant, variant.base, variant.variants_used) == (
        "sound",
        "tests/test_calc.py::test_add",
        ("sound",),
    )


IMPORT_TIME = """
from dataclasses import dataclass, field


def _build(x):
    return x * 2


def _check(f):
    return f


def used_later(x):
    return x


@_check
def decorated():
    return 1


TABLE = tuple(map(_build, (1, 2)))


@dataclass
class Holder:
    used_later: int = 0  # a field of that name: no call
    items: tuple = field(default_factory=tuple)
"""


def test_a_function_run_at_import_reruns_every_test_when_it_changes():
    assert set(named_at_import(IMPORT_TIME)) >= {"_build", "_check", "map", "tuple", "field", "dataclass"}
    assert "used_later" not in named_at_import(IMPORT_TIME) and "decorated" not in named_at_import(IMPORT_TIME)
    imported = frozenset(named_at_import(IMPORT_TIME))
    changed = {**SOURCES, "code:strategies/calc.py::f": "f2"}
    assert rerun(SOURCES, changed, COVERAGE, frozenset({"f"})).everything == (
        "strategies.calc.f may run at import (called outside any function)"
    )
    assert rerun(SOURCES, changed, COVERAGE, imported).everything == ""


def test_a_baseline_that_cannot_run_is_a_one_line_campaign_error_with_its_output_kept(tmp_path):
    root = make_project(tmp_path / "p")
    (root / "tests" / "test_broken.py").write_text("def test_x(:\n    pass\n")  # the suite does not collect
    settings = settings_for(root, state_dir=tmp_path / "state")
    with pytest.raises(CampaignError) as err:
        ensure_baseline(settings, fingerprint(settings), Journal(settings.journal_dir), {})
    message = str(err.value)
    assert "\n" not in message and message.startswith("the baseline run failed (exit 2:")
    log = tmp_path / "state" / "baseline-run-failure.log"
    assert str(log) in message and "SyntaxError" in log.read_text()


def test_mutmuts_coverage_is_the_baselines_calls_where_the_baseline_could_see_them(tmp_path):
    """After a rename mutmut measures again only the tests of the functions it knew: the new name held 2 of the 1,715
    tests that call it, and its mutants survived an incremental run that a cold one kills. And a test mutmut credits
    with a value another test would have computed first in another order is not kept: each covering set is the
    baseline's, except where the baseline could not see the calls (a shared function, a module not instrumented)."""
    work = tmp_path / "project"
    (work / "mutants" / "reference").mkdir(parents=True)
    stats = {
        "tests_by_mangled_function_name": {
            "reference.blocks.x_require": ["t::a"],
            "reference.blocks.x_cached": ["t::a", "t::first"],  # t::first computed the value t::a reads
            "reference.blocks.x_at_import": ["t::first"],
            "reference.loose.x_f": ["t::first"],
        },
        "duration_by_test": {"t::a": 0.1, "t::b": 0.1, "t::c": 0.1, "t::first": 0.1},
    }
    (work / "mutants" / "mutmut-stats.json").write_text(json.dumps(stats))
    codes = {"reference.blocks.x_require__mutmut_1": 0, "reference.blocks.xǁBoxǁsize__mutmut_1": None}  # 0: survived
    (work / "mutants" / "reference" / "blocks.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    calls = {
        "reference.blocks.require": frozenset({"t::a", "t::b", "t::outside"}),  # t::outside: not mutmut's selection
        "reference.blocks.Box.size": frozenset({"t::c"}),
        "reference.blocks.cached": frozenset({"t::a", "t::b"}),
    }
    coverage = Coverage(calls, frozenset({"reference.blocks"}), frozenset({"reference.blocks.at_import"}))
    assert canonical_stats(work, coverage) == [
        "reference.blocks.x_cached",
        "reference.blocks.x_require",
        "reference.blocks.xǁBoxǁsize",
    ]
    covered = json.loads((work / "mutants" / "mutmut-stats.json").read_text())["tests_by_mangled_function_name"]
    assert covered == {
        "reference.blocks.x_require": ["t::a", "t::b"],
        "reference.blocks.xǁBoxǁsize": ["t::c"],
        "reference.blocks.x_cached": ["t::a", "t::b"],
        "reference.blocks.x_at_import": ["t::first"],  # shared: the baseline credits no test with its calls
        "reference.loose.x_f": ["t::first"],  # a module the baseline did not instrument
    }
    meta = json.loads((work / "mutants" / "reference" / "blocks.py.meta").read_text())
    assert meta["exit_code_by_key"]["reference.blocks.x_require__mutmut_1"] == 0  # reopen_recovered's question
    assert canonical_stats(work, coverage) == []  # the baseline's already


def test_the_reports_coverage_holds_every_green_test_the_baseline_saw_call_a_function(tmp_path):
    """mutmut measures its own selection only; a test it leaves out (a property search over every variant) still
    runs a mutant's code, and the report's coveredBy lists it. A test red or skipped on the baseline runs no mutant."""
    work = tmp_path / "project"
    (work / "mutants" / "reference").mkdir(parents=True)
    stats = {"tests_by_mangled_function_name": {"reference.blocks.x_require": ["t::a"]}, "duration_by_test": {}}
    (work / "mutants" / "mutmut-stats.json").write_text(json.dumps(stats))
    codes = {"reference.blocks.x_require__mutmut_1": 1, "reference.blocks.xǁBoxǁsize__mutmut_1": 5}
    (work / "mutants" / "reference" / "blocks.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    rows = (
        _row("t::a", 1.0),
        _row("t::outside", 1.0),
        replace(_row("t::red", 1.0), outcome=Outcome.FAILED),
        replace(_row("t::skipped", 1.0), outcome=Outcome.SKIPPED),
    )
    calls = {n.nodeid: ["reference.blocks.require", "reference.blocks.Box.size"] for n in rows[1:]}
    baseline = replace(
        BaselineRecord("fp", 1.0, 0.1, 0, rows, 1.0),
        calls=Calls.of([r.nodeid for r in rows], calls, (), ("reference.blocks",)),
    )
    record = coverage_record(work, "fp", "cov", baseline)
    assert record is not None
    assert record.covering("reference.blocks.x_require") == ("t::a", "t::outside")
    assert record.covering("reference.blocks.xǁBoxǁsize") == ("t::outside",)  # no test of mutmut's selection calls it


def test_a_functions_mutants_run_again_when_its_covering_tests_change(tmp_path):
    """A test added after a mutant survived would kill it in a cold run: the mutants of a function whose covering set
    changed since their verdicts run again; a work copy with no record of it reopens its survivors."""
    work = tmp_path / "project"
    (work / "mutants" / "reference").mkdir(parents=True)

    def lay(tests: list[str]) -> None:
        stats = {"tests_by_mangled_function_name": {"reference.ops.x_f": tests, "reference.ops.x_g": ["t::a"]}}
        (work / "mutants" / "mutmut-stats.json").write_text(json.dumps(stats))

    codes = {"reference.ops.x_f__mutmut_1": 0, "reference.ops.x_f__mutmut_2": 1, "reference.ops.x_g__mutmut_1": 1}
    meta = work / "mutants" / "reference" / "ops.py.meta"
    meta.write_text(json.dumps({"exit_code_by_key": codes}))
    lay(["t::a"])
    assert reopen_recovered(work) == ["reference.ops.x_f"]  # no record yet: the survivor's function
    assert json.loads(meta.read_text())["exit_code_by_key"]["reference.ops.x_f__mutmut_1"] is None
    meta.write_text(json.dumps({"exit_code_by_key": codes}))
    (tmp_path / COVERING).write_text(json.dumps(covering_digests(covered_by(work))))
    assert reopen_recovered(work) == []  # nothing changed since
    lay(["t::a", "t::new"])
    assert reopen_recovered(work) == ["reference.ops.x_f"]
    assert json.loads(meta.read_text())["exit_code_by_key"] == {
        "reference.ops.x_f__mutmut_1": None,
        "reference.ops.x_f__mutmut_2": None,
        "reference.ops.x_g__mutmut_1": 1,
    }


def test_the_work_copy_needs_preparing_from_any_change_until_mutmut_has_prepared_it(tmp_path):
    """mutmut runs its mutants and the witness search runs its tests from the copy it prepares (``mutants/``): any
    change of the work copy, a test's included, calls for a preparation, and so does a change an interrupted run
    laid but never prepared."""
    root = make_project(tmp_path / "p")
    settings = settings_for(root)
    work, previous = lay_work_copy(settings)
    assert previous and needs_preparing(work)  # the first copy
    mark_prepared(work)
    assert lay_work_copy(settings)[1] == {} and not needs_preparing(work)
    test = root / "tests" / "test_calc.py"
    test.write_text(test.read_text() + "\n\ndef test_new():\n    assert True\n")
    assert list(lay_work_copy(settings)[1]) == ["tests/test_calc.py"] and needs_preparing(work)
    assert lay_work_copy(settings)[1] == {} and needs_preparing(work)  # laid, not prepared: still stale
    mark_prepared(work)
    assert not needs_preparing(work)


def test_a_new_fingerprints_journal_holds_mutmuts_coverage_even_when_no_mutant_runs(tmp_path, monkeypatch):
    """The report's coveredBy comes from the journal of its fingerprint: a run with nothing for mutmut to run (a
    changed setting, say) still journals the coverage it has, once."""
    settings = settings_for(make_project(tmp_path / "p"))
    work = work_dir(settings)
    (work / "mutants").mkdir(parents=True)
    stats = {"tests_by_mangled_function_name": {"calc.x_add": ["tests/test_calc.py::test_plain"]}}
    (work / "mutants" / "mutmut-stats.json").write_text(json.dumps(stats))
    monkeypatch.setattr(mutmut_phase, "run_mutmut", lambda *a, **k: MutmutResult([], [], 0, False, 0.0))
    ctx = RunContext.start(settings, None, None)
    baseline = BaselineRecord(fingerprint=ctx.fp, wall=0.0, overhead=0.0, exit=0, tests=(), finished=0.0)
    done: dict = {}
    mutmut_phase.run(settings, ctx, baseline, done, ("strategies",), None)
    coverage = done.get(coverage_key("all"))
    assert isinstance(coverage, CoverageRecord) and coverage.covering("calc.x_add") == (
        "tests/test_calc.py::test_plain",
    )
    assert load_journals(settings.journal_dir, ctx.fp)[coverage_key("all")] == coverage
    mutmut_phase.run(settings, ctx, baseline, done, ("strategies",), None)
    assert sum(isinstance(r, CoverageRecord) for r in read_records(settings.journal_dir)) == 1  # not again


def test_every_mutant_runs_again_in_the_new_order_when_other_hints_are_committed(tmp_path, monkeypatch):
    """The committed hints order each mutant's tests, so they name its first killer: a work copy whose verdicts were
    given under other hints (or that does not say under which) runs every mutant again; under the same, none."""
    committed = tmp_path / "mutation"
    committed.mkdir()
    monkeypatch.setattr(campaign_settings, "COMMITTED", committed)
    work = tmp_path / "state" / "project"
    (work / "mutants" / "reference").mkdir(parents=True)
    codes = {"reference.ops.x_f__mutmut_1": 1, "reference.ops.x_g__mutmut_1": 0, "reference.ops.x_g__mutmut_2": None}
    meta = work / "mutants" / "reference" / "ops.py.meta"
    meta.write_text(json.dumps({"exit_code_by_key": codes}))
    assert reopen_for_new_hints(work) == ["reference.ops.x_f", "reference.ops.x_g"]  # not said: every one
    assert set(json.loads(meta.read_text())["exit_code_by_key"].values()) == {None}
    meta.write_text(json.dumps({"exit_code_by_key": codes}))
    write_hints(Hints(killers={"reference.ops.x_f": ("t::a",)}), committed / "hints.json")
    save_test_keys(settings_for(tmp_path, state_dir=tmp_path / "state"), work)
    assert reopen_for_new_hints(work) == []  # the hints its verdicts were given under
    fp = fingerprint(settings_for(tmp_path))
    write_hints(Hints(killers={"reference.ops.x_f": ("t::b", "t::a")}), committed / "hints.json")
    assert fingerprint(settings_for(tmp_path)) != fp  # a new campaign: the journal's verdicts are not this order's
    assert reopen_for_new_hints(work) == ["reference.ops.x_f", "reference.ops.x_g"]
    assert json.loads(meta.read_text())["exit_code_by_key"]["reference.ops.x_f__mutmut_1"] is None
