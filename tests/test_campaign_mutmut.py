"""The campaign's mutmut runs (issue 6): mutmut in its own copy, read back and rerun incrementally; the runs'
environment and the failure texts they leave."""

from __future__ import annotations

import io
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import make_project, settings_for

from reports.campaign.fingerprint import fingerprint, hashed_files
from reports.campaign.records import BaselineRecord, decode_row
from reports.campaign.settings import ROOT, MutmutEngine, Settings

pytestmark = pytest.mark.harness


# ----------------------------------------------------------------------------- mutmut


MUTMUT_CONFIG = """
[tool.mutmut]
source_paths = ["strategies/", "reference/"]
also_copy = ["reports/", "calc.py"]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "reports.campaign.plugins.mutant_plugin"]
pytest_add_cli_args_test_selection = ["tests/"]
timeout_multiplier = 3.0
timeout_constant = 2.0
"""


#: Without mutmut's command, no campaign test here can run it.
needs_mutmut = pytest.mark.skipif(
    shutil.which("mutmut") is None and not (Path(sys.executable).parent / "mutmut").exists(),
    reason="mutmut is not installed",
)


def with_plugins(root: Path) -> None:
    """Copy into the fake project at ``root`` the plugins a mutmut run loads there, with the packages they sit in."""
    for name in (
        "__init__.py",
        "campaign/__init__.py",
        "campaign/records.py",
        "campaign/plugins/__init__.py",
        "campaign/plugins/mutant_plugin.py",
        "campaign/plugins/warm_session.py",
        "campaign/mutmut/__init__.py",
        "campaign/mutmut/test_order.py",
        "campaign/mutmut/trampoline.py",
    ):
        (root / "reports" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "reports" / name, root / "reports" / name)


@pytest.mark.slow  # about 45 s: two mutmut preparations and three executor runs (run with --cm-slow)
@needs_mutmut
def test_mutmut_runs_in_its_own_copy_and_is_read_back(tmp_path):
    from reports.campaign.mutmut.run import run_mutmut

    root = make_project(tmp_path / "p")
    (root / "reference").mkdir()
    (root / "reference" / "__init__.py").write_text("")
    (root / "reference" / "ops.py").write_text("def double(x):\n    return x * 2\n")
    (root / "strategies" / "step.py").write_text("def inc(x):\n    return x + 1\n")
    (root / "tests" / "test_ops.py").write_text(
        "from reference.ops import double\nfrom strategies.step import inc\n\n\n"
        "def test_double():\n    assert double(3) == 6\n\n\ndef test_inc():\n    assert inc(3) == 4\n"
    )
    with_plugins(root)
    (root / "pyproject.toml").write_text(MUTMUT_CONFIG)
    hashed = ("pyproject.toml", "strategies", "reference", "calc.py", "tests")
    settings = settings_for(root, hashed=hashed)
    before = {f: f.read_bytes() for f in hashed_files(root, (*hashed, "reports"))}
    fp = fingerprint(settings)
    baseline = BaselineRecord(
        fingerprint=fp,
        wall=0.02,
        overhead=0.0,
        exit=1,
        tests=(
            decode_row({"nodeid": "tests/test_calc.py::test_red_on_baseline", "outcome": "failed", "duration": 0.01}),
            decode_row({"nodeid": "tests/test_ops.py::test_double", "outcome": "passed", "duration": 0.01}),
        ),
        finished=0.0,
    )
    from reports.campaign.mutmut.execute import PreparedAhead
    from reports.campaign.mutmut.meta import tests_by_function
    from reports.campaign.mutmut.work_copy import lay_work_copy, work_dir

    settings = replace(settings, progress=io.StringIO())
    ahead = PreparedAhead(settings, lay_work_copy(settings)[0], time.time() + 240)  # as beside a baseline
    first = run_mutmut(settings, fp, baseline, budget=240, paths=("strategies",), ahead=ahead)
    assert first.pending == 0 and first.names, first.note
    said = settings.progress.getvalue()
    assert ahead.code is not None and "incremental" not in said  # a cold copy prepared ahead is still a cold run
    assert "mutmut: prepared in" in said, said  # a test red on the baseline: prepared again without it
    assert all(n.startswith("strategies.step.") for n in first.names)
    assert all(r.key.startswith("mutmut:strategies.") for r in first.records)
    result = run_mutmut(settings, fp, baseline, budget=240, paths=("reference",))
    assert result.pending == 0 and all(n.startswith("reference.") for n in result.names), result.note
    by_name = {r.key: r for r in result.records}
    double = {k: r for k, r in by_name.items() if ".ops." in k}
    assert double and all(r.status == "killed" for r in double.values())
    some = next(iter(double.values()))
    assert some.killed_by == ("tests/test_ops.py::test_double",)
    assert (some.change.file, some.change.line) == ("reference/ops.py", 2)
    assert {f: f.read_bytes() for f in hashed_files(root, (*hashed, "reports"))} == before
    assert not (root / "mutants").exists()
    # incremental: a changed function re-runs its own mutants, a changed test those of the functions it covers
    (root / "strategies" / "step.py").write_text("def inc(x):\n    return 1 + x\n")
    tests = root / "tests" / "test_ops.py"
    tests.write_text(tests.read_text().replace("assert double(3) == 6", "assert double(4) == 8"))
    settings = replace(settings, progress=io.StringIO())
    again = run_mutmut(settings, fingerprint(settings), baseline, budget=240)
    said = settings.progress.getvalue()
    assert "re-runs the mutants of 1 changed function(s) (strategies.step.inc)" in said, said
    assert "1 function(s) whose covering tests changed (reference.ops.x_double)" in said, said
    assert again.pending == 0 and {r.key for r in again.records} >= set(by_name)
    # a new test and nothing else: mutmut's copy, where the mutants' and the witnesses' tests run, is brought up to
    # date and measures it (else a search naming it collects nothing)
    tests.write_text(tests.read_text() + "\n\ndef test_double_again():\n    assert double(5) == 10\n")
    settings = replace(settings, progress=io.StringIO())
    run_mutmut(settings, fingerprint(settings), baseline, budget=240)
    work = work_dir(settings)
    assert "def test_double_again" in (work / "mutants" / "tests" / "test_ops.py").read_text()
    assert "tests/test_ops.py::test_double_again" in tests_by_function(work)["reference.ops.x_double"]


@pytest.mark.slow  # about 15 s an engine: a preparation and a run (run with --cm-slow)
@needs_mutmut
@pytest.mark.parametrize("engine", list(MutmutEngine))
def test_each_engine_mutates_a_memoized_function_and_kills_its_mutants(tmp_path, engine):
    """mutmut alone leaves a decorated function out; both engines mutate it, and a memo filled by the original (the
    stats run's) never answers for a mutant: mutmut's own engine would stop at its set-up check, failing no test."""
    from reports.campaign.mutmut.run import run_mutmut

    root = make_project(tmp_path / "p")
    (root / "reference").mkdir()
    (root / "reference" / "__init__.py").write_text("")
    (root / "reference" / "ops.py").write_text(
        "import functools\n\n\n@functools.cache\ndef double(x):\n    return x * 2\n"
    )
    (root / "tests" / "test_ops.py").write_text(
        "from reference.ops import double\n\n\ndef test_double():\n    assert double(3) == 6\n"
    )
    with_plugins(root)
    (root / "pyproject.toml").write_text(MUTMUT_CONFIG.replace('["tests/"]', '["tests/test_ops.py"]'))
    settings = settings_for(root, hashed=("pyproject.toml", "reference", "calc.py", "tests"), mutmut_engine=engine)
    fp = fingerprint(settings)
    test = decode_row({"nodeid": "tests/test_ops.py::test_double", "outcome": "passed", "duration": 0.01})
    baseline = BaselineRecord(fingerprint=fp, wall=0.02, overhead=0.0, exit=0, tests=(test,), finished=0.0)
    result = run_mutmut(settings, fp, baseline, budget=240, paths=("reference",))
    assert result.pending == 0 and not result.note, result.note
    assert {r.key: (r.status, r.killed_by) for r in result.records} == {
        f"mutmut:reference.ops.x_double__mutmut_{k}": ("killed", ("tests/test_ops.py::test_double",)) for k in (1, 2)
    }


def test_runs_get_a_fixed_hash_seed_and_the_campaign_profile():
    """Set orders inside failure texts are the same in every run, so a resumed campaign rewrites the same report."""
    env = Settings(profile="ci").env()
    assert env["PYTHONHASHSEED"] == "0" and env["CMHARNESS_PROFILE"] == "ci"
    assert "MUTANT_UNDER_TEST" not in env and "PYTEST_ADDOPTS" not in env


def test_the_failure_shown_is_a_scenarios_first_mismatching_field_not_a_matching_one():
    """A scenario item's failure lists every field; the one shown is the first whose values differ."""
    from reports.render.report_model import first_line_of_failure

    text = (
        "x.scenario.json: not as expected on sound: refuses\n"
        '  error: expected "OverBudgetError", got "OverBudgetError"\n'
        '  ✗ refuses.cleared_by: expected [], got ["compression"]\n'
        '  refuses.refused: expected ["m4"], got ["m4"]'
    )
    assert first_line_of_failure(text) == '✗ refuses.cleared_by: expected [], got ["compression"]'
    assert first_line_of_failure("E   ✗ total: expected 3, got 4\nE   more") == "✗ total: expected 3, got 4"


def test_failure_texts_drop_memory_addresses():
    from reports.render.report_model import first_line_of_failure

    text = "E   AssertionError: <function f.<locals>.g at 0x7f24b16c3920> is not None\n"
    assert first_line_of_failure(text) == "AssertionError: <function f.<locals>.g at 0x…> is not None"
    assert first_line_of_failure("E   assert 0x10 == 16") == "assert 0x10 == 16"  # a number, not an address
