"""The cmharness pytest plugin: red_on, the variant parametrization, profiles, slow, single registration.

Inner sessions run in-process (the outer profile is loaded again afterwards), except the conftest
check, which runs in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from invariants.plugin import chosen_profile

pytestmark = pytest.mark.harness

ROOT = Path(__file__).resolve().parents[1]
CONFTEST = (ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")

RED_TESTS = """
import pytest
from invariants import InvariantViolation, Violation

@pytest.mark.red_on("main-48bb87a1", "pr-8bb01ab8")
def test_red_where_marked(variant):
    if variant != "sound":
        raise InvariantViolation([Violation("never-over", f"broken on {variant}")])

@pytest.mark.red_on("main-48bb87a1")
def test_stale(variant):
    pass

@pytest.mark.red_on("main-48bb87a1")
def test_other_error(variant):
    if variant == "main-48bb87a1":
        raise KeyError("not an invariant")

@pytest.mark.red_on("main-48bb87a1")
def test_plain_assert_counts_as_red(variant):
    assert variant != "main-48bb87a1", "an example test's plain assert"

@pytest.mark.red_on("main-48bb87a1")
def test_did_not_raise_counts_as_red(variant):
    if variant == "main-48bb87a1":
        with pytest.raises(ValueError):
            pass

@pytest.mark.red_on("pr-8bb01ab8")
def test_red_elsewhere_is_a_failure(variant):
    if variant == "sound":
        raise InvariantViolation([Violation("never-over", "sound broke")])
"""


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.delenv("CMHARNESS_PROFILE", raising=False)

    def go(*args: str, subprocess: bool = False) -> pytest.RunResult:
        if subprocess:
            return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
        return pytester.runpytest_inprocess("-p", "no:cacheprovider", *args)

    yield go
    settings.load_profile(chosen_profile(request.config))


def test_red_on_expects_an_invariant_violation_on_the_marked_variants(pytester, run):
    pytester.makepyfile(RED_TESTS)
    result = run("-p", "invariants.plugin", "-rxXf")
    result.assert_outcomes(passed=10, xfailed=4, failed=4)
    result.stdout.fnmatch_lines(["*test_red_where_marked?main-48bb87a1?*red on main-48bb87a1 as expected*"])
    result.stdout.fnmatch_lines(["*stale red_on*test_stale?main-48bb87a1?*"])
    result.stdout.fnmatch_lines(["*defect this test pins may be fixed on main-48bb87a1*regression masks it*"])
    result.stdout.fnmatch_lines(["cmharness: 4 test(s) red on main-48bb87a1* as expected (red_on); -rx lists them"])
    result.stdout.fnmatch_lines(["*KeyError*"])
    result.stdout.fnmatch_lines(["*FAILED*test_red_elsewhere_is_a_failure?sound?*"])


GROUPED_TESTS = """
import pytest
from hypothesis.errors import FlakyFailure
from invariants import InvariantViolation, Violation

def broken(variant):
    return InvariantViolation([Violation("never-over", f"broken on {variant}")])

@pytest.mark.red_on("main-48bb87a1")
def test_group_of_breaks(variant):
    if variant == "main-48bb87a1":
        raise ExceptionGroup("two", [broken(variant), AssertionError("and a plain assert")])

@pytest.mark.red_on("main-48bb87a1")
def test_nested_group_of_breaks(variant):
    if variant == "main-48bb87a1":
        raise ExceptionGroup("outer", [ExceptionGroup("inner", [broken(variant)]), AssertionError("beside it")])

@pytest.mark.red_on("main-48bb87a1")
def test_group_with_a_crash(variant):
    if variant == "main-48bb87a1":
        raise ExceptionGroup("two", [broken(variant), ExceptionGroup("inner", [KeyError("a crash")])])

@pytest.mark.red_on("main-48bb87a1")
def test_flaky_break(variant):
    if variant == "main-48bb87a1":
        raise FlakyFailure("red once, green on replay", [broken(variant)])
"""


def test_red_on_reads_every_failure_of_a_group(pytester, run):
    """Several failures at once are an expected red only when each of them, however deeply grouped, is one; a
    crash among them, or a flaky failure, is a real error."""
    pytester.makepyfile(GROUPED_TESTS)
    result = run("-p", "invariants.plugin", "-rxXf")
    result.assert_outcomes(passed=8, xfailed=2, failed=2)
    for outcome, test in [
        ("XFAIL", "test_group_of_breaks"),
        ("XFAIL", "test_nested_group_of_breaks"),
        ("FAILED", "test_group_with_a_crash"),
        ("FAILED", "test_flaky_break"),
    ]:
        result.stdout.fnmatch_lines([f"*{outcome}*{test}?main-48bb87a1?*"])


def test_red_on_needs_a_variant_argument(pytester, run):
    pytester.makepyfile("""
        import pytest
        @pytest.mark.red_on("sound")
        def test_no_variant():
            pass
    """)
    result = run("-p", "invariants.plugin")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*red_on needs the test to take a 'variant' argument*"])


def test_variant_parametrizes_over_the_three_names(pytester, run):
    pytester.makepyfile("""
        def test_names(variant):
            assert variant in ("main-48bb87a1", "pr-8bb01ab8", "sound")
    """)
    result = run("-p", "invariants.plugin", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*test_names?main-48bb87a1?*", "*test_names?pr-8bb01ab8?*", "*test_names?sound?*"])


def test_a_cm_variant_spec_keeps_its_lines_behaviours(pytester, run):
    """``--cm-variant`` parametrizes with what the spec names: a newer line with its behaviours (what it does by
    design), and ``sound+BEHAVIOUR`` with that behaviour, not their defects alone."""
    pytester.makepyfile("""
        from strategies.defects import LINE_BEHAVIOURS, Behaviour, resolve_variant

        def test_spec(variant, request):
            spec = request.node.callspec.id
            got = resolve_variant(variant).behaviours
            if spec == "sound+IMAGE_STRIP_HYSTERESIS":
                assert got == {Behaviour.IMAGE_STRIP_HYSTERESIS}
            else:
                assert got == LINE_BEHAVIOURS[spec]
    """)
    specs = ("hysteresis-a95eb55b", "raw-forms-cbe7032a", "sound+IMAGE_STRIP_HYSTERESIS")
    result = run("-p", "invariants.plugin", *(f"--cm-variant={s}" for s in specs))
    result.assert_outcomes(passed=3)


PROFILE_TEST = """
from hypothesis import settings
def test_profile():
    print("MAX", settings().max_examples, "DERANDOMIZE", settings().derandomize)
"""


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        ((), None, "MAX 100 DERANDOMIZE True"),
        (("--cm-profile=dev",), None, "MAX 200 DERANDOMIZE False"),
        ((), "deep", "MAX 2000 DERANDOMIZE False"),
        (("--cm-profile=ci",), "deep", "MAX 100 DERANDOMIZE True"),
        (("--hypothesis-profile=dev",), None, "MAX 200 DERANDOMIZE False"),
    ],
)
def test_profiles(pytester, run, monkeypatch, args, env, expected):
    if env:
        monkeypatch.setenv("CMHARNESS_PROFILE", env)
    pytester.makepyfile(PROFILE_TEST)
    result = run("-p", "invariants.plugin", "-s", *args)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"*{expected}*"])


@pytest.mark.parametrize(
    ("args", "env", "typed", "meant"), [(("--cm-profile=deeep",), None, "deeep", "deep"), ((), "cii", "cii", "ci")]
)
def test_an_unknown_profile_is_one_line_naming_the_closest(pytester, run, monkeypatch, args, env, typed, meant):
    pytester.makepyfile(PROFILE_TEST)
    with monkeypatch.context() as patch:  # the variable is gone again when the fixture loads the suite's profile
        if env:
            patch.setenv("CMHARNESS_PROFILE", env)
        result = run("-p", "invariants.plugin", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if "error" in line.lower()]
    assert len(errors) == 1 and f"unknown Hypothesis profile '{typed}'" in errors[0], errors
    assert f"did you mean '{meant}'?" in errors[0] and "Traceback" not in result.stderr.str()


def test_slow_runs_only_when_asked(pytester, run):
    pytester.makepyfile("""
        import pytest
        @pytest.mark.slow
        def test_long():
            pass
    """)
    run("-p", "invariants.plugin").assert_outcomes(skipped=1)
    run("-p", "invariants.plugin", "--cm-slow").assert_outcomes(passed=1)
    run("-p", "invariants.plugin", "--cm-profile=deep").assert_outcomes(passed=1)


def test_conftest_loads_the_plugin(pytester, run):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(RED_TESTS)
    result = run(subprocess=True)
    result.assert_outcomes(passed=10, xfailed=4, failed=4)
    assert "already registered" not in result.stdout.str() + result.stderr.str()


def test_collecting_the_suite_loads_no_numpy():
    """Collecting imports every test module and what it imports; none may load numpy, or Hypothesis reseeds
    numpy's global random state around every example of the session (reports/__init__.py)."""
    code = (
        "import sys, pytest; pytest.main(['--collect-only', '-q', '-p', 'no:cacheprovider', 'tests']); "
        "print('numpy loaded:', 'numpy' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.stdout.splitlines()[-1] == "numpy loaded: False", done.stdout[-2000:] + done.stderr[-2000:]


SHRINK_TEST = """
import pytest
from hypothesis import given, strategies as st
from invariants import InvariantViolation, Violation

CALLS = []

@pytest.mark.red_on("main-48bb87a1")
@given(st.lists(st.integers(0, 1000), min_size=5))
def test_red_on_main(variant, xs):
    CALLS.append(variant)
    if variant == "main-48bb87a1" and sum(xs) > 50:
        raise InvariantViolation([Violation("never-over", f"broken on {variant}")])

def test_count():
    print(f"calls on main: {CALLS.count('main-48bb87a1')}")
"""


def test_an_expected_red_is_not_shrunk(pytester, run):
    """Hypothesis reports it at its first failing example: a failing list of five numbers shrunk to the smallest
    would take dozens of calls more (and a property test's faithful variants seconds)."""
    pytester.makepyfile(SHRINK_TEST)
    result = run("-p", "invariants.plugin", "-s")
    result.assert_outcomes(xfailed=1, passed=3)
    calls = int(next(line for line in result.outlines if "calls on main:" in line).split(":")[1])
    assert calls <= 5, f"the expected red ran {calls} examples"


def test_an_expected_red_runs_after_its_siblings_of_the_same_rank(pytester, run):
    """Within one rank of the suite's order, the variants that must hold first: a new bug shows there first."""
    pytester.makepyfile(test_red=RED_TESTS)
    (pytester.path / "mutation").mkdir()
    (pytester.path / "mutation" / "test-order.json").write_text(
        '{"tests": ["test_red.py::test_red_where_marked"]}', encoding="utf-8"
    )
    result = run("-p", "invariants.plugin", "--collect-only", "-q", "-k", "test_red_where_marked")
    names = [line for line in result.outlines if "::" in line]
    assert names == [
        "test_red.py::test_red_where_marked[sound]",
        "test_red.py::test_red_where_marked[main-48bb87a1]",
        "test_red.py::test_red_where_marked[pr-8bb01ab8]",
    ], names


DRAWS = """
from hypothesis import given, strategies as st

def test_draws(record_property):
    seen = []

    @given(st.integers())
    def inner(x):
        seen.append(x)

    inner()
    with open("draws.txt", "a") as fh:
        fh.write(repr(seen) + "\\n")
"""


def test_a_derandomized_test_draws_the_same_examples_whatever_else_its_session_imports(pytester, run):
    """Hypothesis draws some integers from the literals of the project's modules imported at the time: with the pool
    filled from every module up front, a test draws the same whether or not another test file imported a module
    full of literals first."""
    pytester.makeconftest("pytest_plugins = ['invariants.plugin']\n")
    pkg = pytester.mkpydir("pkg")
    (pkg / "literals.py").write_text("VALUES = (" + ", ".join(str(7_000_003 + 13 * k) for k in range(200)) + ")\n")
    pytester.makepyfile(test_draws=DRAWS, test_imports="import pkg.literals\n\ndef test_nothing():\n    pass\n")
    for args in (["test_draws.py"], ["test_imports.py", "test_draws.py"]):
        assert run(*args, "--cm-profile", "ci", subprocess=True).ret == 0
    alone, beside = (pytester.path / "draws.txt").read_text().splitlines()
    assert alone == beside
    assert any(7_000_003 <= x <= 7_000_003 + 13 * 199 for x in eval(alone))  # the module's literals are drawn


def test_the_pool_is_read_from_the_roots_packages_wherever_the_root_lies(tmp_path):
    """A root inside a hidden folder (mutmut's work copy is under ``.cmharness``) still has its packages read; hidden
    folders below it, its tests and loose folders are left out."""
    from invariants.local_constants import package_files

    root = tmp_path / ".state" / "project"
    for name in (
        "pkg/__init__.py",
        "pkg/a.py",
        "pkg/.cache/b.py",
        "tests/__init__.py",
        "tests/test_a.py",
        "loose/c.py",
    ):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("X = 1\n")
    (root / ".venv" / "lib").mkdir(parents=True)
    (root / ".venv" / "__init__.py").write_text("")
    assert [p.relative_to(root).as_posix() for p in package_files(root)] == ["pkg/__init__.py", "pkg/a.py"]
