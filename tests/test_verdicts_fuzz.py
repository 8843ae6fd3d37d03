"""``cmharness fuzz``'s verdict judged (reports/fuzz/verdict.py, read by the engine and the command): a failure is
excused as an expected red only on a variant its test's ``red_on`` names; on any other variant it is a finding,
printed with its replay command, and the command exits 1; a failure raised inside HypoFuzz itself is no finding;
``--stop-on-failure`` stops on a finding only. The targets come from a real collection of a small property test marked
``red_on`` one variant, so an "excuse any variant" rule, or an exit that ignores the rule, turns these red.

Not marked ``harness``: the verdict rules are mutated by ``cmharness report`` (``[tool.mutmut] only_mutate``), and
these are the tests that kill their mutants."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest
from hypothesis import settings

from reports.cli import fuzz as fuzz_command
from reports.exit_codes import Exit
from reports.fuzz.engine import Finding, Outcome, Plan, Target, collect
from reports.fuzz.verdict import exit_code, expected_red, stops, unexpected

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


@pytest.mark.harness  # the engine's collection, which mutmut does not mutate: seen red on it, not on a mutant
def test_the_collection_can_run_again_on_another_project_in_the_same_process(tmp_path_factory, targets) -> None:
    """A second collection, of another project whose test module has the same name, finds its tests: the first
    leaves no module of its project behind (pytest's order can set the module's fixture up twice in one session)."""
    root = tmp_path_factory.mktemp("fuzz-project")
    (root / "conftest.py").write_text('pytest_plugins = ["invariants.plugin"]\n', encoding="utf-8")
    (root / "test_pinned.py").write_text(PINNED, encoding="utf-8")
    profile = settings.get_current_profile_name()
    try:
        found, _ = collect(Plan(str(root / "db"), files=("test_pinned.py",), root=root))
    finally:
        settings.load_profile(profile)
    assert sorted(t.nodeid.split("::", 1)[1] for t in found) == sorted(targets)


def _run(monkeypatch, tmp_path: Path, failed: list[Target], in_fuzzer: bool = False) -> tuple[int, str]:
    """``cmharness fuzz`` whose campaign reports a shrunk failure on each of ``failed`` (raised inside HypoFuzz
    itself with ``in_fuzzer``)."""

    def campaign(plan: Plan, on_progress=None) -> Outcome:
        found = [Finding(t, shrunk=1, unshrunk=0, in_fuzzer=in_fuzzer, origin="hypofuzz/x.py") for t in failed]
        return Outcome(list(failed), {}, findings=found)

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


@pytest.mark.parametrize(
    ("red_on", "variant", "excused"),
    [
        ((RED_ON,), RED_ON, True),
        ((RED_ON, "sound"), "sound", True),
        ((RED_ON,), "sound", False),
        ((RED_ON,), f"{RED_ON}+MEMO_SURVIVES_INITIALIZE", False),
        ((), RED_ON, False),
        ((RED_ON,), None, False),
    ],
)
def test_the_rule_excuses_exactly_the_variants_red_on_names(red_on, variant, excused):
    assert expected_red(red_on, variant) is excused


def test_a_failure_inside_hypofuzz_is_no_finding_and_exits_0(monkeypatch, tmp_path, targets):
    """HypoFuzz's own error (a RecursionError of its tracer) on a test that should pass is shown, not counted."""
    unmarked = next(t for name, t in targets.items() if name.startswith("test_unmarked["))
    code, out = _run(monkeypatch, tmp_path, [unmarked], in_fuzzer=True)
    assert code == Exit.OK, out
    assert f"not a finding: {unmarked.nodeid} failed inside HypoFuzz itself (hypofuzz/x.py)" in out
    assert "FAILED" not in out and "expected red" not in out


def test_an_expected_red_inside_hypofuzz_is_counted_as_an_expected_red_only(monkeypatch, tmp_path, targets):
    pinned = targets[f"test_pinned[{RED_ON}]"]
    code, out = _run(monkeypatch, tmp_path, [pinned], in_fuzzer=True)
    assert code == Exit.OK, out
    assert "1 expected red" in out and "not a finding" not in out and "FAILED" not in out


def test_stop_on_failure_stops_on_a_failure_that_is_not_excused_only(targets):
    pinned, other = targets[f"test_pinned[{RED_ON}]"], targets["test_pinned[sound]"]
    not_excused = unexpected(targets.values())
    assert pinned.nodeid not in not_excused and other.nodeid in not_excused
    assert not stops(not_excused, [pinned.nodeid])
    assert stops(not_excused, [pinned.nodeid, other.nodeid])
    assert not stops(not_excused, [])


def test_the_exit_code_is_1_for_a_finding_among_excused_failures(targets):
    pinned, other = targets[f"test_pinned[{RED_ON}]"], targets["test_pinned[sound]"]
    excused = [Finding(pinned, 1, 0), Finding(other, 0, 1, in_fuzzer=True)]
    assert exit_code([]) == exit_code(excused) == Exit.OK
    assert exit_code([*excused, Finding(other, 0, 1)]) == Exit.FAILURE_FOUND
