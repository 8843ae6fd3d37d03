"""A pytest plugin for mutation campaigns: switch a named mutant on, and record each test's outcome.

Load it with ``-p reports.campaign.plugins.mutant_plugin``. It does nothing unless asked:

- ``--cm-mutant VARIANT+DEFECT[+DEFECT...]`` (e.g. ``sound+COMBINED_UNCHECKED``,
  ``pr-8bb01ab8+VIEW_NOT_RESTORED``): in ``pytest_configure``, before any test module is imported,
  ``strategies.defects.VARIANTS[VARIANT]`` becomes ``VARIANTS[VARIANT] | {Defect[DEFECT], ...}``. Tests
  build their strategies by variant name, and ``HierarchicalStrategy`` looks the name up at call
  time, so every strategy built for that variant in this process carries the switches. Only this
  process's dict changes; no file is written. Hypothesis's ``explain`` phase is skipped there (it
  runs only after a failure, costs time, and the report shows the shrunk example).
- ``--cm-no-shrink``: Hypothesis neither shrinks nor explains a failure.
- ``--cm-results PATH``: one JSON line per finished test, written as it finishes (so a run killed
  by a timeout still leaves the outcomes it reached): ``nodeid``, ``outcome`` (``passed``,
  ``failed``, ``error``, ``skipped``, ``xfailed``, ``xpassed``), ``duration`` (seconds, all
  phases), ``variant`` (the value of the test's ``variant`` parameter, or null), ``base`` (the
  node id without the variant in its parameter id), ``red_on`` (the variants its ``red_on``
  marker names), ``file``, ``variants_used`` (the variant names the test looked up in
  ``strategies.defects.VARIANTS``), ``reads_table`` (marked ``defect_table``), and for a failure or
  an expected failure ``text`` (the report and captured output, cut to 20,000 characters). A line
  ``{"event": "start", "nodeid": ...}`` is written as each test starts.
- ``--cm-only PATH``: run only the tests whose node ids PATH lists (one a line); the rest are
  deselected. The environment variable ``CMHARNESS_SKIP`` names a file of node ids to deselect
  (how the campaign keeps mutmut off the tests that are red on the unmutated code).
- ``--cm-calls`` (with ``--cm-results``): each row also names the functions of the code under test the test called
  (``calls``; ``spawned`` when it started a Python process, whose calls are not seen), and each process ends its
  results with a line ``{"event": "calls", "shared": [...], "modules": [...]}``: the calls that outlive a test and
  the modules instrumented (``call_recorder``; the baseline's coverage).
- ``--cm-quick-killers``: example tests run first, and once one has failed the property tests are
  skipped (how a named mutant finds every failing example test without paying for the property
  searches; a property test kills only when no example test does).
- With the environment variable ``CMHARNESS_DURATIONS`` naming a JSON file of baseline durations by
  node id, the tests of a mutmut mutant run quick ones first (mutmut stops at the first failure, so a
  killed mutant costs a quick killing test, not the slow property tests before it).
- In mutmut's work copy, the generated modules are given ``reports.campaign.mutmut.trampoline``'s trampolines
  (installed before the conftests import them), which dispatch as mutmut's do with less work per call. In mutmut's
  stats run, the calls made outside every test (imports, collection) are credited to no test, where mutmut would
  credit them to the test that happens to run first.
- With the environment variable ``CMHARNESS_KILLERS`` naming a directory, and mutmut's
  ``MUTANT_UNDER_TEST`` naming a mutant, the first failing test of each mutmut mutant is appended to
  ``$CMHARNESS_KILLERS/<pid>.jsonl`` (mutmut runs with ``-x``, so only the first is known).

The model (``strategies``, ``reference``) is imported when a mutant is switched on, not when the plugin loads:
``-p`` loads it before pytest has read the project's configuration, and a run that switches nothing on never
imports the model through it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from reports.campaign.mutmut import trampoline
from reports.campaign.plugins import call_recorder
from reports.campaign.protocol import CallsEvent, KillerLine, TestFinished, TestStarted, encode_line
from reports.campaign.records import Outcome, TestRow

MAX_TEXT = 20_000
KILLERS_ENV = "CMHARNESS_KILLERS"
SKIP_ENV = "CMHARNESS_SKIP"
DURATIONS_ENV = "CMHARNESS_DURATIONS"


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Before the conftests import the model: mutmut's trampolines become the leaner ones of
    ``reports.campaign.mutmut.trampoline`` (nothing where mutmut is not installed); with ``--cm-calls`` the code under
    test is imported instrumented (``call_recorder``)."""
    trampoline.install()
    if getattr(early_config.known_args_namespace, "cm_calls", False):
        call_recorder.install(early_config.rootpath)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cmharness-mutants", "mutation campaigns")
    group.addoption(
        "--cm-mutant",
        default=None,
        metavar="VARIANT+DEFECT",
        help="switch these defects on in this variant for the whole run (a named mutant)",
    )
    group.addoption("--cm-results", default=None, metavar="PATH", help="write one JSON line per finished test to PATH")
    group.addoption(
        "--cm-no-shrink",
        action="store_true",
        default=False,
        help="Hypothesis neither shrinks nor explains a failure (a quick search for killing tests)",
    )
    group.addoption(
        "--cm-only", default=None, metavar="PATH", help="run only the tests whose node ids PATH lists, one a line"
    )
    group.addoption(
        "--cm-calls",
        action="store_true",
        default=False,
        help="record which functions of the code under test each test calls (with --cm-results)",
    )
    group.addoption(
        "--cm-quick-killers",
        action="store_true",
        default=False,
        help="run the example tests first and, once a test has failed, skip the property tests "
        "(every failing example test is still found)",
    )


def parse_mutant(spec: str) -> tuple[str, tuple[str, ...]]:
    """``"VARIANT+D1+D2"`` as ``("VARIANT", ("D1", "D2"))``; at least one defect."""
    variant, *defects = spec.split("+")
    if not variant or not defects or not all(defects):
        raise ValueError(f"--cm-mutant takes VARIANT+DEFECT[+DEFECT...], got {spec!r}")
    return variant, tuple(defects)


def apply_mutant(spec: str) -> frozenset[Any]:
    """Add the switches to the variant in ``strategies.defects.VARIANTS``; returns the new defect set."""
    from reference.names import unknown
    from strategies import defects as d

    variant, names = parse_mutant(spec)
    if variant not in d.VARIANTS:
        raise ValueError("--cm-mutant: " + unknown("variant", variant, d.VARIANTS))
    for n in names:
        if n not in d.Defect.__members__:
            raise ValueError("--cm-mutant: " + unknown("defect", n, d.Defect.__members__))
    new = d.VARIANTS[variant] | {d.Defect[n] for n in names}
    d.VARIANTS[variant] = new  # type: ignore[index]  # a dict at run time; this process only
    return new


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "red_on(*variants): expected red on these variants (see invariants.plugin)")
    spec = config.getoption("--cm-mutant")
    if spec:
        try:
            apply_mutant(spec)
        except ValueError as err:
            raise pytest.UsageError(str(err)) from None
    _remember_wanted(config)
    if config.getoption("--cm-quick-killers"):
        config.pluginmanager.register(QuickKillers(spec or ""), "cmharness-quick-killers")
    path = config.getoption("--cm-results")
    killers = os.environ.get(KILLERS_ENV)
    if config.getoption("--cm-calls") and not _xdist_controller(config):  # a warm session's children record too
        config.pluginmanager.register(WideFixtures(), "cmharness-wide-fixtures")
    if (path or killers) and not _xdist_controller(config):  # under pytest-xdist each worker records its own tests
        recorder = _Recorder(path, killers, calls=bool(path) and config.getoption("--cm-calls"))
        if path:
            watch_variants(recorder.looked_up)
        config.pluginmanager.register(recorder, "cmharness-mutant-recorder")


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:
    """mutmut's stats run credits a test with the calls recorded since the last test ended: those made outside every
    test are no test's."""
    trampoline.on_test_start()


def _xdist_controller(config: pytest.Config) -> bool:
    """Whether this session hands its tests to pytest-xdist's workers (``-n N``) rather than running them."""
    return bool(getattr(config.option, "numprocesses", None)) and not hasattr(config, "workerinput")


class _Watched(dict):  # type: ignore[type-arg]
    """``VARIANTS`` that reports each name looked up (a named mutant changes one name's defect set, so only
    a test that looks that name up can see it)."""

    def __init__(self, variants: Any, seen: Any) -> None:
        super().__init__(variants)
        self.seen = seen

    def __getitem__(self, name: str) -> Any:
        self.seen(name)
        return super().__getitem__(name)


def watch_variants(seen: Any) -> None:
    """Report every variant looked up in ``strategies.defects.VARIANTS`` to ``seen`` (this process only).

    The table is replaced wherever a loaded module holds it (``from strategies.defects import VARIANTS``);
    modules imported later get the watched one from ``strategies.defects``.
    """
    from strategies import defects as d

    old = d.VARIANTS
    watched = _Watched(old, seen)
    for module in list(sys.modules.values()):
        names = [k for k, v in list(getattr(module, "__dict__", {}).items()) if v is old]
        for name in names:
            setattr(module, name, watched)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under a mutant, Hypothesis skips its ``explain`` phase (slow, and not the minimal example the report
    shows); with ``--cm-no-shrink`` it does not shrink either (the campaign finds the killing tests that way,
    then shrinks one of them alone)."""
    drop = {"explain"} if session.config.getoption("--cm-mutant") else set()
    if session.config.getoption("--cm-no-shrink"):
        drop |= {"explain", "shrink"}
    if not drop:
        return
    try:
        from hypothesis import settings
    except ImportError:
        return
    current = settings()
    kept = [p for p in current.phases if p.name not in drop]
    if len(kept) < len(current.phases):
        settings.register_profile("cm-mutant", parent=current, phases=kept)
        settings.load_profile("cm-mutant")


def _ids(path: str) -> set[str]:
    with open(path, encoding="utf-8") as fh:
        return {line.rstrip("\n") for line in fh if line.strip()}


_WANTED = pytest.StashKey[dict[Path, set[str]]]()


def _remember_wanted(config: pytest.Config) -> None:
    """Under a mutmut mutant (a run of named tests), remember which functions each file is asked for."""
    if "__mutmut_" in os.environ.get(trampoline.ENV, ""):
        config.stash[_WANTED] = requested_functions(list(config.args), config.invocation_params.dir)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> list[Any] | None:
    """Under a mutmut mutant, a test function no argument names is not collected at all: building (and
    parametrizing) the items of a whole module only to drop most of them is most of a mutant's run."""
    wanted = collector.config.stash.get(_WANTED, None)
    if not wanted or not callable(obj) or isinstance(obj, type):
        return None
    names = wanted.get(collector.path)
    if names is None or name in names or not collector.funcnamefilter(name):
        return None
    return []


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    durations = os.environ.get(DURATIONS_ENV)
    mutant = os.environ.get(trampoline.ENV, "")
    if durations and "__mutmut_" in mutant:
        fastest_first(items, _durations(durations), mutant)
    only = config.getoption("--cm-only")
    skip = os.environ.get(SKIP_ENV)
    if not only and not skip:
        return
    keep = _ids(only) if only else None
    drop = _ids(skip) if skip else set()
    selected = [it for it in items if (keep is None or it.nodeid in keep) and it.nodeid not in drop]
    if len(selected) < len(items):
        chosen = {id(it) for it in selected}
        config.hook.pytest_deselected(items=[it for it in items if id(it) not in chosen])
        items[:] = selected


def requested_functions(args: list[str], rootdir: Path) -> dict[Path, set[str]]:
    """The test functions node-id arguments name, by file (``tests/t.py::f[x]`` names ``f`` in ``t.py``).

    A file named whole (no ``::``) maps to no set: everything in it is wanted.
    """
    wanted: dict[Path, set[str]] = {}
    whole: set[Path] = set()
    for arg in args:
        path, sep, rest = arg.partition("::")
        file = (rootdir / path).resolve()
        if not sep:
            whole.add(file)
        else:
            wanted.setdefault(file, set()).update(part.split("[", 1)[0] for part in rest.split("::"))
    return {f: names for f, names in wanted.items() if f not in whole}


def _durations(path: str) -> dict[str, float]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


#: Tests quicker than this (seconds on the baseline) count as quick: their order barely changes a run's time.
QUICK = 0.05


def drawn(mutant: str, nodeid: str) -> str:
    """A test's place in a mutant's drawn order: stable for the pair, different from mutant to mutant."""
    return hashlib.sha1(f"{mutant}\0{nodeid}".encode()).hexdigest()


def fastest_first(items: list[pytest.Item], durations: dict[str, float], mutant: str) -> None:
    """The quick tests first, in an order drawn from the mutant's name, then the others by baseline duration.

    mutmut credits only the first failing test; drawing the quick tests' order per mutant spreads that
    credit over every quick test that can fail (the report's red-first check counts it), and a killed
    mutant still costs only quick tests. Unknown tests go last.
    """
    items.sort(key=lambda item: quick_first(mutant, item.nodeid, durations))


def quick_first(mutant: str, nodeid: str, durations: dict[str, float]) -> tuple[int, float, str]:
    """A test's sort key in ``fastest_first``'s order for ``mutant``."""
    took = durations.get(nodeid, float("inf"))
    if took < QUICK:
        return 0, 0.0, drawn(mutant, nodeid)
    return 1, took, nodeid


def is_property_test(item: pytest.Item) -> bool:
    """A Hypothesis test (``@given`` gives the function a ``hypothesis`` handle), or one marked ``search`` (it
    runs a search inside)."""
    return hasattr(getattr(item, "obj", None), "hypothesis") or item.get_closest_marker("search") is not None


class QuickKillers:
    """A named mutant's run: example tests first, in an order drawn from the mutant; after a failure the
    property tests (the slow searches) are skipped. Which tests run depends on nothing measured."""

    def __init__(self, mutant: str) -> None:
        self.mutant = mutant
        self.killed = False

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        def key(item: pytest.Item) -> tuple[bool, str]:
            if is_property_test(item):
                return True, item.nodeid
            return False, drawn(self.mutant, item.nodeid)

        items.sort(key=key)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if self.killed and is_property_test(item):
            pytest.skip("an example test has already killed this mutant")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.killed = self.killed or report.failed


def variant_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    value = callspec.params.get("variant")
    return value if isinstance(value, str) else None


def base_id(nodeid: str, variant: str | None) -> str:
    """The node id without the variant in its parameter id: ``t[at-pair-sound]`` -> ``t[at-pair]``."""
    if variant is None or not nodeid.endswith("]") or "[" not in nodeid:
        return nodeid
    head, _, params = nodeid[:-1].partition("[")
    parts = params.split("-")
    vparts = variant.split("-")
    for k in range(len(parts) - len(vparts), -1, -1):
        if parts[k : k + len(vparts)] == vparts:
            rest = parts[:k] + parts[k + len(vparts) :]
            return f"{head}[{'-'.join(rest)}]" if rest else head
    return nodeid


class WideFixtures:
    """The calls a fixture wider than one test makes while set up are shared (later tests use its value too), and
    count for each test that uses it, whichever test it was set up for."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef[Any]) -> Any:
        if fixturedef.scope == "function":
            yield
            return
        with call_recorder.wide_fixture(fixturedef):
            yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Any:
        yield
        for fixturedef in wide_fixtures(item):
            call_recorder.uses(fixturedef)


def wide_fixtures(item: pytest.Item) -> list[pytest.FixtureDef[Any]]:
    """The fixtures wider than one test that ``item`` uses, directly or through another fixture (the definition that
    applies to it where one overrides another)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    found = []
    for name in getattr(item, "fixturenames", ()):
        defs = info.name2fixturedefs.get(name)
        if defs and defs[-1].scope != "function":
            found.append(defs[-1])
    return found


class _Recorder:
    def __init__(self, path: str | None, killers: str | None, *, calls: bool = False) -> None:
        self.calls = calls
        self.path = path
        self.killers = killers
        self.meta: dict[str, TestRow] = {}  # each collected test's row, its run's fields filled as it finishes
        self.reports: dict[str, list[pytest.TestReport]] = {}
        self.fh = open(path, "a", encoding="utf-8") if path else None  # noqa: SIM115  # closed at unconfigure
        self.killed: set[str] = set()
        self.current: str | None = None
        self.used: dict[str, set[str]] = {}
        self.root: Path | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.root = session.config.rootpath

    def looked_up(self, variant: str) -> None:
        if self.current is not None:
            self.used.setdefault(self.current, set()).add(variant)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            variant = variant_of(item)
            mark = item.get_closest_marker("red_on")
            self.meta[item.nodeid] = TestRow(
                nodeid=item.nodeid,
                outcome=Outcome.PASSED,
                duration=0.0,
                t=0.0,
                base=base_id(item.nodeid, variant),
                file=item.nodeid.split("::")[0],
                variant=variant,
                red_on=tuple(str(a) for a in mark.args) if mark is not None else (),
                reads_table=item.get_closest_marker("defect_table") is not None,
            )

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.current = nodeid
        if self.calls:
            call_recorder.start_test()
        if self.fh is not None:  # so that a run killed at its timeout tells which test it was in
            self.fh.write(encode_line(TestStarted(nodeid, time.time())))
            self.fh.flush()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reports.setdefault(report.nodeid, []).append(report)
        if report.failed and self.killers:
            self._record_killer(report.nodeid)

    def _record_killer(self, nodeid: str) -> None:
        mutant = os.environ.get(trampoline.ENV, "")
        if "__mutmut_" not in mutant or mutant in self.killed:
            return
        self.killed.add(mutant)
        Path(self.killers).mkdir(parents=True, exist_ok=True)  # type: ignore[arg-type]
        with open(Path(self.killers) / f"{os.getpid()}.jsonl", "a", encoding="utf-8") as fh:  # type: ignore[arg-type]
            fh.write(encode_line(KillerLine(mutant, nodeid)))

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        if self.fh is None:
            return
        reports = self.reports.pop(nodeid, [])
        outcome, text = outcome_of(reports, self.root)
        self.current = None
        known = self.meta.get(nodeid) or TestRow(nodeid, outcome, 0.0, 0.0, nodeid, nodeid.split("::")[0], None)
        row = dataclasses.replace(
            known,
            outcome=outcome,
            duration=round(sum(r.duration for r in reports), 6),
            t=time.time(),
            variants_used=tuple(sorted(self.used.pop(nodeid, ()))),
            text=text[-MAX_TEXT:],
        )
        calls = tuple(call_recorder.end_test()) if self.calls else None
        self.fh.write(encode_line(TestFinished(row, calls, spawned=self.calls and call_recorder.spawned())))
        self.fh.flush()

    def pytest_unconfigure(self) -> None:
        if self.fh is not None and self.calls:
            shared = CallsEvent(tuple(call_recorder.shared_names()), tuple(call_recorder.instrumented_modules()))
            self.fh.write(encode_line(shared))
        if self.fh is not None:
            self.fh.close()
            self.fh = None


def outcome_of(reports: list[pytest.TestReport], root: Path | None) -> tuple[Outcome, str]:
    """The test's outcome over its phases, and the text of its failure (or expected failure), the paths in it from
    the session's ``root``."""
    failed = [r for r in reports if r.failed]
    if failed:
        r = failed[0]
        return (Outcome.FAILED if r.when == "call" else Outcome.ERROR), relative_paths(_text(r), root)
    for r in reports:
        if hasattr(r, "wasxfail"):
            text = relative_paths(_text(r), root) or str(r.wasxfail)
            return (Outcome.XFAILED, text) if r.skipped else (Outcome.XPASSED, "")
    if any(r.skipped for r in reports):
        return Outcome.SKIPPED, ""
    return Outcome.PASSED, ""


def relative_paths(text: str, root: Path | None) -> str:
    """``text`` with the session's root folder left out of the paths in it: a failure names a project's file the same
    whichever folder it ran in (a clone, mutmut's copy of it, a named mutant's)."""
    return text.replace(f"{root}{os.sep}", "") if root is not None else text


def _text(report: pytest.TestReport) -> str:
    parts = [report.longreprtext or ""]
    for title, content in report.sections:
        parts.append(f"----- {title} -----\n{content}")
    return "\n".join(p for p in parts if p)
