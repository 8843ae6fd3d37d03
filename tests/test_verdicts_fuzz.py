"""``cmharness fuzz``'s verdict judged (reports/fuzz/engine.py, reports/cli/fuzz.py): a failure is excused as an
expected red only on a variant its test's ``red_on`` names; on any other variant it is a finding, printed with its
replay command, and the command exits 1. The targets come from a real collection of a small property test marked
``red_on`` one variant, so an "excuse any variant" rule, or an exit that ignores the rule, turns these red."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest
from hypothesis import settings

from reports.cli import fuzz as fuzz_command
from reports.exit_codes import Exit
from reports.fuzz.engine import Finding, Outcome, Plan, Target, collect

#: Only reports/ code runs here (a synthetic test file, no compile): no mutant of the model can turn these red.
pytestmark = pytest.mark.harness

RED_ON = "main-48bb87a1"
PINNED = """
import pytest
from hypothesis import given, strategies as st


@pytest.mark.red_on("main-48bb87a1")
@given(st.integers())
def test_pinned(variant, n):
    assert variant == "sound"


@given(st.integers())
def test_unmarked(variant, n):
    assert n == n
"""


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Target]:
    """The fuzz targets HypoFuzz collects from a test red on one variant and one with no ``red_on``."""
    root = tmp_path_factory.mktemp("fuzz-project")
    (root / "conftest.py").write_text('pytest_plugins = ["invariants.plugin"]\n', encoding="utf-8")
    (root / "test_pinned.py").write_text(PINNED, encoding="utf-8")
    profile = settings.get_current_profile_name()
    try:  # HypoFuzz's collection loads the plugin's fuzz profile in this process
        found, _ = collect(Plan(str(root / "db"), files=("test_pinned.py",), root=root))
    finally:
        settings.load_profile(profile)
    return {t.nodeid.split("::", 1)[1]: t for t in found}


def test_a_failure_is_an_expected_red_only_on_a_variant_its_red_on_names(targets):
    marked = {name: t.expected_red for name, t in targets.items() if name.startswith("test_pinned[")}
    assert marked[f"test_pinned[{RED_ON}]"] is True
    assert len(marked) >= 3 and not any(red for name, red in marked.items() if name != f"test_pinned[{RED_ON}]")
    assert not any(t.expected_red for name, t in targets.items() if name.startswith("test_unmarked["))


def _run(monkeypatch, tmp_path: Path, failed: list[Target]) -> tuple[int, str]:
    """``cmharness fuzz`` whose campaign reports a shrunk failure on each of ``failed``."""

    def campaign(plan: Plan, on_progress=None) -> Outcome:
        return Outcome(list(failed), {}, findings=[Finding(t, shrunk=1, unshrunk=0) for t in failed])

    monkeypatch.setattr(fuzz_command, "fuzz", campaign)
    args = argparse.Namespace(
        workers=1,
        time=1.0,
        database=str(tmp_path / "db"),
        variant=None,
        stop_on_failure=False,
        tests=["tests/test_invariants.py"],
    )
    out = io.StringIO()
    return fuzz_command.run(args, out), out.getvalue()


def test_a_failure_on_the_variant_red_on_names_is_excused_and_exits_0(monkeypatch, tmp_path, targets):
    pinned = targets[f"test_pinned[{RED_ON}]"]
    code, out = _run(monkeypatch, tmp_path, [pinned])
    assert code == Exit.OK, out
    assert "1 expected red" in out and "FAILED" not in out


@pytest.mark.parametrize("variant", ["pr-8bb01ab8", "sound"])
def test_a_failure_on_a_variant_red_on_does_not_name_is_a_finding_and_exits_1(monkeypatch, tmp_path, targets, variant):
    failed = [targets[f"test_pinned[{RED_ON}]"], targets[f"test_pinned[{variant}]"]]
    code, out = _run(monkeypatch, tmp_path, failed)
    assert code == Exit.FAILURE_FOUND, out
    assert f"FAILED test_pinned.py::test_pinned[{variant}]" in out
    assert f"FAILED test_pinned.py::test_pinned[{RED_ON}]" not in out
    assert "1 expected red" in out


def test_a_failure_of_a_test_without_red_on_is_a_finding_on_every_variant(monkeypatch, tmp_path, targets):
    unmarked = [t for name, t in targets.items() if name.startswith("test_unmarked[")]
    for t in unmarked:
        code, out = _run(monkeypatch, tmp_path, [t])
        assert code == Exit.FAILURE_FOUND and f"FAILED {t.nodeid}" in out, out
