"""An incremental report against a fresh clone's: after a change that alters what a mutant's tests do under it (not
its function, not its tests), ``cmharness report`` in the checkout with its state writes the outputs a fresh clone of
the changed tree writes, timings aside; and the bookkeeping that decides which mutmut verdicts a change reopens."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest
from campaign_helpers import make_project, settings_for
from test_campaign_mutmut import MUTMUT_CONFIG
from test_report_shards import QUICK, outputs

from reports.campaign import pipeline
from reports.campaign.mutmut.work_copy import record_ran, reopen_rerun
from reports.campaign.settings import ROOT
from reports.cli import main
from reports.cli import report as report_cmd

pytestmark = pytest.mark.harness

#: ``inc`` adds one and hands the sum to ``clamp``; its mutants are killed by ``test_inc`` through ``clamp``.
STEP = """
def clamp(x):
    return x


def inc(x):
    return clamp(x + 1)
"""
#: ``clamp`` now caps at 4: ``test_inc`` still passes, but a mutant of ``inc`` that adds two is capped back to 4.
CAPPED = STEP.replace("    return x\n", "    return min(x, 4)\n", 1)
STEP_TESTS = """
from strategies.step import inc


def test_inc():
    assert inc(3) == 4
"""


def _project(root: Path) -> Path:
    make_project(root)
    (root / "strategies" / "step.py").write_text(STEP)
    (root / "tests" / "test_step.py").write_text(STEP_TESTS)
    shutil.copytree(ROOT / "reports", root / "reports", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml").write_text(MUTMUT_CONFIG.replace('["strategies/", "reference/"]', '["strategies/"]'))
    return root


@pytest.mark.slow  # mutmut's preparation in three runs: about 40 s (run with --cm-slow)
def test_a_change_that_hides_a_mutant_from_its_killer_reads_as_a_fresh_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``clamp`` changes so that a mutant of ``inc`` (whose code and tests are unchanged) survives: the incremental
    report runs that mutant again, because its killer calls ``clamp``, and says so."""
    hashed = ("pyproject.toml", "strategies", "calc.py", "tests")
    said = io.StringIO()
    roots = {"here": _project(tmp_path / "here"), "fresh": tmp_path / "fresh"}
    current = ["here"]
    monkeypatch.setattr(
        report_cmd,
        "Settings",
        lambda: settings_for(roots[current[0]], hashed=hashed, state_dir=roots[current[0]] / ".state", progress=said),
    )
    monkeypatch.setattr(pipeline, "named_mutants", lambda: list(QUICK))

    def report(root: Path) -> int:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return main(["report", "--mutmut-paths", "strategies", "--out", str(root / "out")])

    here = roots["here"]
    assert report(here) in (0, 1)
    first = json.loads((here / "out" / "mutation-report.json").read_text())
    statuses = {m["id"]: m["status"] for f in first["files"].values() for m in f["mutants"]}
    assert "Survived" not in {s for k, s in statuses.items() if ".x_inc__" in k}, statuses
    (here / "strategies" / "step.py").write_text(CAPPED)
    said.seek(0)
    said.truncate()
    assert report(here) in (0, 1)
    assert "mutant(s) whose tests call changed code run again" in said.getvalue(), said.getvalue()
    shutil.copytree(here, roots["fresh"], ignore=shutil.ignore_patterns(".state", "out", "__pycache__"))
    current[0] = "fresh"
    assert report(roots["fresh"]) in (0, 1)
    again = json.loads((here / "out" / "mutation-report.json").read_text())
    survived = {m["id"] for f in again["files"].values() for m in f["mutants"] if m["status"] == "Survived"}
    assert any(".x_inc__" in k for k in survived), survived  # the change hid one of inc's mutants
    assert outputs(here / "out") == outputs(roots["fresh"] / "out")


def _meta(work: Path, codes: dict[str, int | None]) -> Path:
    meta = work / "mutants" / "strategies" / "step.py.meta"
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes, "durations_by_key": {}}))
    return meta


def test_a_verdict_is_reopened_when_a_test_it_ran_ran_again_on_the_baseline_after_it(tmp_path: Path) -> None:
    """Each mutant's verdict remembers the tests it ran and when: a test run again on the baseline since (its code
    changed) reopens the verdicts it took part in, and no other; a pending mutant stays pending."""
    work = tmp_path / "mutmut" / "project"
    keys = ("strategies.step.x_inc__mutmut_1", "strategies.step.x_inc__mutmut_2", "strategies.step.x_clamp__mutmut_1")
    meta = _meta(work, {keys[0]: 1, keys[1]: 0, keys[2]: None})
    record_ran(work, {keys[0]: ["tests/a.py::t1"], keys[1]: ["tests/a.py::t1", "tests/a.py::t2"]}, 100.0)
    record_ran(work, {keys[2]: ["tests/a.py::t2"]}, 200.0)  # a later run's verdict, kept beside the earlier ones
    assert reopen_rerun(work, {"tests/a.py::t1": 50.0, "tests/a.py::t2": 90.0}) == []  # nothing ran again since
    assert reopen_rerun(work, {"tests/a.py::t1": 50.0, "tests/a.py::t2": 150.0}) == [keys[1]]
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    assert codes == {keys[0]: 1, keys[1]: None, keys[2]: None}
    assert reopen_rerun(work, {"tests/a.py::t1": 150.0}) == [keys[0]]  # the one still finished
