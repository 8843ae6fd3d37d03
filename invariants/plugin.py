"""The ``cmharness`` pytest plugin: Hypothesis profiles, the ``variant`` parametrization, ``red_on`` and ``slow``.

Loaded by ``tests/conftest.py`` (``pytest_plugins``), or by ``-p invariants.plugin`` elsewhere.

- Profiles ``ci`` (derandomized, few examples: the suite stays within minutes on two cores),
  ``dev`` (more) and ``deep`` (many). Chosen by ``--cm-profile``, else the ``CMHARNESS_PROFILE``
  environment variable, else Hypothesis' own ``--hypothesis-profile``, else ``ci``.
- A test taking a ``variant`` argument is parametrized over the three variant names
  (``main-48bb87a1``, ``pr-8bb01ab8``, ``sound``); it builds its strategy by that name at call time.
- ``@pytest.mark.red_on("main-48bb87a1", ...)``: on those variants the test is expected to fail
  with an invariant violation (reported as xfailed): an ``InvariantViolation`` as the property
  tests raise, any other ``AssertionError`` or ``pytest.fail`` (an example test's plain ``assert``,
  ``pytest.raises``' "DID NOT RAISE"), or the compile answering with another of its own outcomes
  (``OverBudgetError``, ``UncoveredDropError``, ``InvalidConfigError`` escaping a ``pytest.raises``
  that expected a different one). If it passes there it fails as *stale*; if it fails with any other
  exception (a crash: ``TypeError``, ``KeyError``, ``InvalidStoreError`` from a bad fixture, a flaky
  Hypothesis test...), that exception is the failure. Elsewhere it must pass.
- ``@pytest.mark.slow``: skipped unless ``--cm-slow`` is given or the profile is ``deep``.
- ``--cm-database FOLDER|redis://HOST:PORT`` (or ``$CMHARNESS_DATABASE``): the profile saves to and replays from
  that example database, so a failure the fuzzer (``cmharness fuzz``) found is red again here. Profile ``fuzz``
  is what the fuzzer's workers load (not derandomized, so HypoFuzz takes the tests); profile ``replay`` runs only
  the inputs the database holds (no explicit examples, no new ones).
- Hypothesis's pool of the project's own constants is filled from every module of its packages before any test
  runs (``invariants.local_constants``): a derandomized test draws the same examples whatever else the session
  collected, one test file alone or the whole suite.
- ``--cm-variant SPEC`` (repeatable, or ``$CMHARNESS_VARIANTS``, specs separated by spaces): the ``variant``
  parametrization runs over these specs (``sound+QUESTION_PRICED_AS_LABEL``) instead of the three names.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import Flaky

from invariants import local_constants
from invariants.counterexample_file import counterexample_section
from invariants.database import DATABASE_ENV, DatabaseError, open_database
from invariants.properties.running import Variant
from invariants.scenario_items import ScenarioFile, is_scenario_file
from reference.names import unknown
from reference.variant_names import SEED_VARIANTS
from strategies.defects import parse_variant
from strategies.errors import InvalidConfigError, OverBudgetError, UncoveredDropError

VARIANT_NAMES: tuple[str, ...] = SEED_VARIANTS
PROFILE_ENV = "CMHARNESS_PROFILE"
VARIANTS_ENV = "CMHARNESS_VARIANTS"
DEFAULT_PROFILE = "ci"
PROFILES = ("ci", "dev", "deep", "fuzz", "replay")

_common = {
    "deadline": None,
    "print_blob": True,
    "suppress_health_check": (HealthCheck.too_slow, HealthCheck.data_too_large),
}
settings.register_profile("ci", max_examples=100, derandomize=True, database=None, **_common)
# dev and deep say derandomize=False: under CI=true Hypothesis would otherwise inherit its own derandomized default.
settings.register_profile("dev", max_examples=200, derandomize=False, **_common)
settings.register_profile("deep", max_examples=2000, derandomize=False, **_common)
# What the fuzzer's workers load: HypoFuzz leaves out derandomized tests; it runs until stopped, whatever max_examples.
settings.register_profile("fuzz", max_examples=2000, derandomize=False, **_common)
# Only what the database holds (with --cm-database): a property test fails here only on an input saved before.
settings.register_profile("replay", phases=(Phase.reuse, Phase.shrink), derandomize=False, **_common)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cmharness", "context-manager invariants")
    group.addoption(
        "--cm-profile",
        default=None,
        help=f"Hypothesis profile for the suite, of {', '.join(PROFILES)} "
        f"(default: ${PROFILE_ENV} or {DEFAULT_PROFILE})",
    )
    group.addoption(
        "--cm-slow",
        action="store_true",
        default=False,
        help="run the tests marked slow (the defect search); the deep profile implies it",
    )
    group.addoption(
        "--cm-database",
        default=None,
        metavar="FOLDER|redis://HOST:PORT",
        help=f"save to and replay from this Hypothesis example database (default: ${DATABASE_ENV}, else the profile's)",
    )
    group.addoption(
        "--cm-variant",
        action="append",
        default=None,
        metavar="SPEC",
        help=f"run the variant-parametrized tests on this variant spec (repeatable; default: ${VARIANTS_ENV}, "
        "else the three variants)",
    )


def chosen_profile(config: pytest.Config) -> str:
    """``--cm-profile``, else ``$CMHARNESS_PROFILE``, else ``--hypothesis-profile``, else ``ci``."""
    name = config.getoption("--cm-profile") or os.environ.get(PROFILE_ENV)
    if not name:
        try:
            name = config.getoption("hypothesis_profile")
        except ValueError:
            name = None
    return name or DEFAULT_PROFILE


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "red_on(*variants): the test is expected to fail with an invariant "
        "violation on these variants and to pass on the others",
    )
    config.addinivalue_line("markers", "slow: a long search, run only with --cm-slow or the deep profile")
    config.addinivalue_line(
        "markers",
        "harness: a test of the harness's own tooling, not of the model (the plugin, "
        "the campaign, the CLI's registry, the Z3 corpus, the docs' cross-references); "
        "mutation campaigns and the red-first count leave it out",
    )
    config.addinivalue_line("markers", "scenario: an item collected from a scenario file (tests/scenarios/)")
    config.addinivalue_line(
        "markers",
        "proves(invariant): a judge test that breaks the invariant on a wrong compile (every invariant needs one; "
        "tests/test_judge_catalogue.py collects them)",
    )
    config.addinivalue_line(
        "markers",
        "search: the test runs a Hypothesis search inside it (not through @given); "
        "a named mutant's run treats it as a property test",
    )
    config.addinivalue_line(
        "markers",
        "defect_table: the test reads the variants' defect table itself; a named "
        "mutant edits that table, so its run leaves the test out",
    )
    name = chosen_profile(config)
    try:
        settings.load_profile(name)
    except Exception as err:
        where = f" (from --cm-profile, ${PROFILE_ENV} or --hypothesis-profile)"
        raise pytest.UsageError("cmharness: " + unknown("Hypothesis profile", name, PROFILES, context=where)) from err
    config.stash[_PROFILE_KEY] = name
    spec = config.getoption("--cm-database") or os.environ.get(DATABASE_ENV)
    if spec:
        try:
            database = open_database(spec)
        except DatabaseError as err:
            raise pytest.UsageError(f"cmharness: {err}") from None
        # A child of the profile: it keeps derandomize (ci) and only adds the database to replay and save.
        settings.register_profile(f"{name}+database", settings(settings.get_profile(name), database=database))
        settings.load_profile(f"{name}+database")
    config.stash[_VARIANTS_KEY] = chosen_variants(config)


_PROFILE_KEY = pytest.StashKey[str]()
_VARIANTS_KEY = pytest.StashKey[tuple[tuple[str, Variant], ...]]()


def chosen_variants(config: pytest.Config) -> tuple[tuple[str, Variant], ...]:
    """(id, value) for the ``variant`` parametrization: each ``--cm-variant`` spec as its defects and line
    behaviours, else the three variant names."""
    specs = config.getoption("--cm-variant") or os.environ.get(VARIANTS_ENV, "").split()
    if not specs:
        return tuple((name, name) for name in VARIANT_NAMES)
    chosen: list[tuple[str, Variant]] = []
    for spec in specs:
        if spec in VARIANT_NAMES:
            chosen.append((spec, spec))
            continue
        try:
            chosen.append((spec, parse_variant(spec)))
        except ValueError as err:
            raise pytest.UsageError(f"cmharness: --cm-variant: {err}") from None
    return tuple(chosen)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Before any test is collected, once Hypothesis's own plugin has set up (its storage read then is no side
    effect of the plugin's loading)."""
    local_constants.pin(session.config.rootpath)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """A test failing on an invariant prints its case as a scenario file, and the command that keeps it."""
    report = yield
    if report.when == "call" and report.failed and call.excinfo is not None:
        section = counterexample_section(item, call.excinfo.value)
        if section is not None:
            report.sections.append(("cmharness: the counterexample as a scenario file", section))
    return report


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line for the expected reds (the default options list failures, errors and skips, not each xfail)."""
    xfailed = terminalreporter.stats.get("xfailed", [])
    if xfailed:
        variants = sorted({_variant_of_report(r) for r in xfailed} - {None})
        where = f" on {', '.join(variants)}" if variants else ""
        terminalreporter.write_line(
            f"cmharness: {len(xfailed)} test(s) red{where} as expected (red_on); -rx lists them"
        )


def _variant_of_report(report: pytest.TestReport) -> str | None:
    for name in VARIANT_NAMES:
        if f"[{name}" in report.nodeid or f"-{name}" in report.nodeid:
            return name
    return None


def pytest_report_header(config: pytest.Config) -> str:
    return f"cmharness: hypothesis profile {config.stash.get(_PROFILE_KEY, DEFAULT_PROFILE)!r}"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Scenario files (``tests/scenarios/**/*.scenario.json``) are collected as items, one per variant."""
    return ScenarioFile.from_parent(parent, path=file_path) if is_scenario_file(file_path) else None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "variant" in metafunc.fixturenames and not _already_parametrized(metafunc, "variant"):
        chosen = metafunc.config.stash.get(_VARIANTS_KEY, None) or tuple((n, n) for n in VARIANT_NAMES)
        metafunc.parametrize("variant", [value for _, value in chosen], ids=[name for name, _ in chosen])


def _already_parametrized(metafunc: pytest.Metafunc, name: str) -> bool:
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0] if mark.args else mark.kwargs.get("argnames", "")
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",")]
        if name in names:
            return True
    return False


#: The suite's order, learnt by ``cmharness report``: test functions by the mutants they killed, most first; the
#: state folder holds the last report's (``$CMHARNESS_STATE``, set by the campaign, else ``.cmharness`` in the
#: rootdir), ``mutation/`` the reviewed one.
ORDER_NAME = "test-order.json"
STATE_ENV = "CMHARNESS_STATE"


def order_file(root: Path) -> Path | None:
    """The suite's order file of the project at ``root``: the last report's, else the reviewed one, else none."""
    state = Path(os.environ[STATE_ENV]) if os.environ.get(STATE_ENV) else root / ".cmharness"
    return next((f for f in (state / ORDER_NAME, root / "mutation" / ORDER_NAME) if f.is_file()), None)


def suite_order(items: list[pytest.Item], ranked: list[str]) -> None:
    """The ranked tests first, in rank order (whichever file they are in: few fixtures here are module-scoped, and
    those few are cheap), then the unranked ones in their collected order (file by file); the harness's own tests
    (marked ``harness``) last."""
    rank = {name: k for k, name in enumerate(ranked)}
    worst = len(rank)
    items.sort(
        key=lambda it: (
            it.get_closest_marker("harness") is not None,
            rank.get(it.nodeid.split("[", 1)[0], worst),
            expected_red(it),
        )
    )


def expected_red(item: pytest.Item) -> bool:
    """Whether ``item`` is marked ``red_on`` its own variant: a test that runs after its siblings of the same rank,
    since its failure is expected and a new bug shows first on the variants that must hold."""
    mark = item.get_closest_marker("red_on")
    return mark is not None and _variant_of(item) in mark.args


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ordered = order_file(config.rootpath)
    if ordered is not None:
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):  # unreadable: the collected order stays
            suite_order(items, list(json.loads(ordered.read_text(encoding="utf-8"))["tests"]))
    run_slow = config.getoption("--cm-slow") or config.stash.get(_PROFILE_KEY, DEFAULT_PROFILE) == "deep"
    skip = pytest.mark.skip(reason="slow: run with --cm-slow or --cm-profile=deep")
    for item in items:
        if not run_slow and item.get_closest_marker("slow") is not None:
            item.add_marker(skip)
        mark = item.get_closest_marker("red_on")
        if mark is not None:
            if _variant_of(item) is None:
                raise pytest.UsageError(f"{item.nodeid}: red_on needs the test to take a 'variant' argument")
            unknown = [v for v in mark.args if v not in VARIANT_NAMES]
            if unknown:
                raise pytest.UsageError(f"{item.nodeid}: red_on names unknown variant(s) {unknown}")


def _variant_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None or "variant" not in callspec.params:
        return None
    return callspec.params["variant"]


def _leaves(err: BaseException) -> list[BaseException]:
    if isinstance(err, BaseExceptionGroup):
        return [leaf for sub in err.exceptions for leaf in _leaves(sub)]
    return [err]


#: What counts as a red: a broken expectation or another of the compile's own outcomes, never a crash.
RED_EXCEPTIONS: tuple[type[BaseException], ...] = (
    AssertionError,
    pytest.fail.Exception,
    OverBudgetError,
    UncoveredDropError,
    InvalidConfigError,
)


def is_invariant_violation(err: BaseException) -> bool:
    """An expected red (see ``RED_EXCEPTIONS``), or a group of several distinct failures made only of
    them; never a flaky test."""
    if isinstance(err, Flaky):
        return False
    leaves = _leaves(err)
    return bool(leaves) and all(isinstance(leaf, RED_EXCEPTIONS) for leaf in leaves)


def own_database_key(item: pytest.Item) -> None:
    """A parametrized property test saves and replays under a key of its own node id, as HypoFuzz keys it (and
    Hypothesis does for ``parametrize`` marks, not for the plugin's ``variant``): one variant's failure is not
    replayed on another, and a fuzzer's finding is replayed on its own variant."""
    inner = getattr(getattr(getattr(item, "obj", None), "hypothesis", None), "inner_test", None)
    if inner is not None and getattr(item, "callspec", None) is not None:
        inner._hypothesis_internal_add_digest = item.nodeid.encode()


@contextlib.contextmanager
def unshrunk(item: pytest.Item):
    """A property test run with Hypothesis's shrink phase off: an expected red is reported by its first line, so
    the minimal example would cost seconds (most of a faithful variant's run) and change nothing."""
    test = getattr(item, "obj", None)
    current = getattr(test, "_hypothesis_internal_use_settings", None)  # where ``@given`` reads its settings
    if current is None:
        yield
        return
    test._hypothesis_internal_use_settings = settings(current, phases=[p for p in current.phases if p != Phase.shrink])
    try:
        yield
    finally:
        test._hypothesis_internal_use_settings = current


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    own_database_key(item)
    mark = item.get_closest_marker("red_on")
    if mark is None:
        return (yield)
    variant = _variant_of(item)
    if variant not in mark.args:
        return (yield)
    try:
        with unshrunk(item):
            result = yield
    except (Exception, pytest.fail.Exception) as err:
        if is_invariant_violation(err):
            first = str(_leaves(err)[0]).splitlines()[0]
            raise pytest.xfail.Exception(f"red on {variant} as expected: {first}") from None
        err.add_note(
            f"cmharness: expected an invariant violation on {variant} (red_on), got "
            f"{type(err).__name__} instead: a real error"
        )
        raise
    pytest.fail(
        f"stale red_on: {item.nodeid} passed on {variant}, where it is marked red_on{mark.args}. "
        f"The defect this test pins may be fixed on {variant} (then it belongs to the variants that still "
        "carry it), or a regression masks it: another change stops the case from reaching the break "
        "(a refusal earlier, a generator that no longer builds it). Find out which before changing the "
        "marker: a masked defect is still there.",
        pytrace=False,
    )
    return result
