"""Run mutmut's mutants from one warm pytest session: collect once, then fork a child per mutant.

mutmut starts a fresh ``pytest.main`` for every mutant (configuration, plugins, collection), which
costs more than the tests most mutants need before one fails. Here one pytest process (``-p
reports.campaign.plugins.warm_session --cm-execute PLAN``, in mutmut's ``mutants/`` folder) collects the suite once
and, for
each planned mutant, forks: the child switches the mutant on (``reports.campaign.mutmut.trampoline.switch_on``,
which the trampolines dispatch on), runs the tests that cover the mutated function (mutmut's stats), quick
ones first, stops at the first failure and exits; the parent keeps ``workers`` children going and kills
one that outlives its time limit. Each child is a fresh copy of the collected session, so no state
passes from one mutant to the next.

The plan is a ``reports.campaign.protocol.WarmPlan``; a mutant named by its function runs that function's tests in
``reports.campaign.mutmut.test_order``'s order, and a test past its own limit ends the mutant's child at once. A
mutant that timed out runs again after the main pass with ``CONFIRM_SCALE`` times its limits, and only then counts as
a timeout (its second run's verdict is the one written). Each result is a line of the protocol: a ``MutantEnded``
with mutmut's exit codes (``MutantExit``), each test a mutant's child starts (``MutantStarted``: a verdict depends on
the code of the tests that ran), a mutmut mutant's first killer (``MutantKiller``), a named mutant's rows
(``MutantRow``, with what each test called under it).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO, Generic, TypeVar

import pytest
from _pytest.runner import runtestprotocol

from reports.campaign.mutmut.test_order import running_order
from reports.campaign.mutmut.trampoline import switch_on
from reports.campaign.plugins import call_recorder
from reports.campaign.plugins.mutant_plugin import MAX_TEXT, apply_mutant, drawn, is_property_test, outcome_of
from reports.campaign.protocol import (
    MutantEnded,
    MutantExit,
    MutantKiller,
    MutantRow,
    MutantStarted,
    PlannedMutant,
    WarmLine,
    WarmPlan,
    encode_line,
    read_plan,
)
from reports.campaign.records import Outcome, TestRow

K = TypeVar("K")
#: A mutant that outlives its limits in the main pass runs again after it with this many times its limits (its own
#: and each test's), and only a second timeout is written: a loaded machine never turns a kill into a timeout.
CONFIRM_SCALE = 3.0


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cm-execute", default=None, help="JSON plan: mutmut mutants and the tests of each")
    parser.addoption("--cm-execute-out", default=None, help="where each mutant's result is written (JSON lines)")


def pytest_configure(config: pytest.Config) -> None:
    plan = config.getoption("--cm-execute")
    if plan:
        warm = read_plan(plan, WarmPlan.from_json)
        config.pluginmanager.register(Executor(warm, config.getoption("--cm-execute-out")), "cmharness-executor")


class Executor:
    def __init__(self, plan: WarmPlan, out: str) -> None:
        self.mutants = list(plan.mutants)
        self.functions = plan.functions
        self.order_durations = plan.durations if plan.order_durations is None else plan.order_durations
        factor, const = plan.per_test
        self.test_limits = {t: factor * d + const for t, d in plan.durations.items()} if factor else {}
        self.workers = plan.workers
        self.out = out
        self.timing = False  # set in a mutmut mutant's child: each test's call then has its own time limit
        self.scale = 1.0  # how many times its limits a mutant is given: CONFIRM_SCALE while timeouts are confirmed

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        """In a mutmut mutant's child, a test call past its limit ends the child as a timeout (``_timed_out``);
        setup and teardown are not timed, so a fixture the child builds anew never counts against a test."""
        limit = self.test_limits.get(item.nodeid, 0.0) * self.scale if self.timing else 0.0
        if limit:
            signal.signal(signal.SIGALRM, _timed_out)
            signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            return (yield)
        finally:
            if limit:
                signal.setitimer(signal.ITIMER_REAL, 0.0)

    def tests_of(self, mutant: PlannedMutant) -> Iterator[str]:
        """The node ids ``mutant`` runs, in running order (ordered as they are reached)."""
        if mutant.tests is not None:
            return iter(mutant.tests)
        fn = self.functions.get(mutant.function)
        return running_order(mutant.name, fn.tests if fn else [], self.order_durations, fn.first if fn else [])

    def covering(self, mutant: PlannedMutant) -> Sequence[str]:
        """The node ids ``mutant`` may run, unordered."""
        if mutant.tests is not None:
            return mutant.tests
        fn = self.functions.get(mutant.function)
        return fn.tests if fn else ()

    def _write(self, message: WarmLine) -> None:
        _append(self.out, message)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        items = {it.nodeid: it for it in session.items}
        settle()
        suspects = self._run_all(list(self.mutants), items)
        if suspects:  # a timeout is confirmed after the main pass, with CONFIRM_SCALE x its limits, before it counts
            self.scale = CONFIRM_SCALE
            self._run_all(suspects, items)
        return True

    def _run_all(self, queue: list[PlannedMutant], items: dict[str, pytest.Item]) -> list[PlannedMutant]:
        """Run ``queue``'s mutants, ``workers`` children at a time, each killed past its limit; the ones that timed
        out, unless they were being confirmed (then their timeout is written)."""
        pool: ForkPool[PlannedMutant] = ForkPool(self.workers)
        suspects: list[PlannedMutant] = []
        while queue or pool.running:
            while queue and not pool.full():
                mutant = queue.pop(0)
                if not any(t in items for t in self.covering(mutant)):
                    self._write(MutantEnded(mutant.name, MutantExit.NO_TESTS, 0.0))
                    continue
                pool.start(mutant, lambda send, m=mutant: self._child(m, items), mutant.limit * self.scale)
            for end in pool.wait():
                code = MutantExit.TIMEOUT if end.exit is None else end.exit
                if code == MutantExit.TIMEOUT and self.scale == 1.0:  # held back as a suspect
                    suspects.append(end.key)
                else:
                    self._write(MutantEnded(end.key.name, code, round(end.ended - end.started, 3), end.started))
        return suspects

    def _child(self, mutant: PlannedMutant, items: dict[str, pytest.Item]) -> int:
        """In a mutant's child: its tests, ordered by the child itself, run under it; the child's exit code."""
        tests = (items[t] for t in self.tests_of(mutant) if t in items)
        if mutant.spec:
            return _named_child(mutant.name, mutant.spec, list(tests), self.out, mutant.known)
        self.timing = True
        return _child(mutant.name, tests, self.out)


@dataclass(frozen=True)
class Ended(Generic[K]):
    """A child of a ``ForkPool`` that ended: its exit code (None: killed at its limit), when it started and ended,
    and what it sent back."""

    key: K
    exit: int | None
    started: float
    ended: float
    sent: bytes = b""


@dataclass
class _Running(Generic[K]):
    key: K
    pid: int
    started: float
    limit: float
    pipe: BinaryIO  # the read end of what the child sends back
    sent: list[bytes] = field(default_factory=list)


class ForkPool(Generic[K]):
    """Children forked from the collected session, at most ``workers`` at a time, each killed past its limit: how
    the warm session runs its mutants (named and mutmut's) and the witness search its candidates. Each child is a
    fresh copy of the session, so no switch, memo or fixture passes from one to the next.

    A child runs ``body(send)`` and exits with the code it returns (``MutantExit.CRASHED`` when it raised); what it
    passes to ``send`` reaches the parent through a pipe, drained while the parent waits (a long result never blocks
    the child). A child dies with the session (``_die_with``).
    """

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)
        self.running: list[_Running[K]] = []

    def full(self) -> bool:
        return len(self.running) >= self.workers

    def start(self, key: K, body: Callable[[Callable[[bytes], object]], int], limit: float) -> None:
        parent = os.getpid()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read_end)
            code: int = MutantExit.CRASHED
            try:
                _die_with(parent)
                with os.fdopen(write_end, "wb") as out:
                    code = body(out.write)
            except BaseException:
                code = MutantExit.CRASHED
            finally:
                os._exit(code)
        os.close(write_end)
        os.set_blocking(read_end, False)
        self.running.append(_Running(key, pid, time.time(), limit, os.fdopen(read_end, "rb")))

    def wait(self) -> list[Ended[K]]:
        """The children that ended, or were killed at their limit, since the last call (after a short sleep when
        none did)."""
        ended = []
        now = time.time()
        for child in list(self.running):
            child.sent.append(child.pipe.read() or b"")
            pid, status = os.waitpid(child.pid, os.WNOHANG)
            if pid:
                code: int | None = os.waitstatus_to_exitcode(status)
            elif now - child.started > child.limit:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGKILL)
                os.waitpid(child.pid, 0)
                code = None
            else:
                continue
            child.sent.append(child.pipe.read() or b"")
            child.pipe.close()
            self.running.remove(child)
            ended.append(Ended(child.key, code, child.started, now, b"".join(child.sent)))
        if not ended:
            time.sleep(0.002)
        return ended


def _append(out: str, message: WarmLine) -> None:
    with open(out, "a", encoding="utf-8") as fh:
        fh.write(encode_line(message))


def _die_with(parent: int) -> None:
    """In a child: SIGKILL when the session dies (Linux; a fork does not inherit the parent's death signal), so a
    killed campaign leaves no child running."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the session died before the signal was set
        os._exit(1)


#: The packages whose functions mutmut mutates: their memo caches are emptied before the first child is forked.
MUTATED_PACKAGES = ("reference", "strategies", "invariants")


def clear_memos() -> None:
    """Empty every ``functools`` cache of the mutated packages, so that a value memoized before the mutant was
    switched on (at collection) never hides it."""
    for name, module in list(sys.modules.items()):
        if name.split(".", 1)[0] in MUTATED_PACKAGES and module is not None:
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def settle() -> None:
    """In the parent, once collected and before the first fork: the memos emptied (what collection memoized; the
    parent runs no test, so every child starts from empty memos without paying to walk the modules itself) and the
    collected session kept out of the children's garbage collections (fewer pages copied on write)."""
    clear_memos()
    gc.collect()
    gc.freeze()


def _timed_out(signum: int, frame: object) -> None:
    os._exit(MutantExit.TIMEOUT)


def _child(name: str, tests: Iterator[pytest.Item], out: str) -> int:
    """Run ``tests`` under mutant ``name`` until one fails; exit 1 (writing the killer) or 0 (36 from
    ``Executor.pytest_runtest_call`` when a test outlives its limit)."""
    code = MutantExit.SURVIVED
    try:
        switch_on(name)
        item = next(tests, None)
        while item is not None:
            following = next(tests, None)  # the next item lets a module's fixtures serve its tests in a row
            _append(out, MutantStarted(name, item.nodeid, time.time()))  # what the verdict depends on
            reports = runtestprotocol(item, nextitem=following, log=False)
            if any(r.failed for r in reports):
                _append(out, MutantKiller(name, item.nodeid))
                code = MutantExit.KILLED
                break
            item = following
    except BaseException:  # a crash of the run itself counts as a kill, as it does for mutmut
        code = MutantExit.KILLED
    return code


def _named_child(name: str, spec: str, tests: list[pytest.Item], out: str, known: Sequence[TestRow] = ()) -> int:
    """A named mutant: its switches on in this process; every example test runs (each failing one a killer),
    the property searches only while nothing has failed; one row per test as ``reports.campaign.plugins.mutant_plugin``
    writes them. A test with a ``known`` row (an earlier run's, its code unchanged) is filed with it instead of run,
    where that run reached it. Exit 1 when a test failed, else 0."""
    code = MutantExit.SURVIVED
    recording = call_recorder.recording()
    try:
        apply_mutant(spec)
        tests = sorted(
            tests,
            key=lambda it: (
                is_property_test(it),
                drawn(spec, it.nodeid.split("::")[0]),
                it.nodeid if is_property_test(it) else drawn(spec, it.nodeid),
            ),
        )
        rows = {r.nodeid: r for r in known}
        filed = {it.nodeid: rows[it.nodeid] for it in tests if _reached(it, rows.get(it.nodeid))}
        with open(out, "a", encoding="utf-8") as fh:
            for k, item in enumerate(tests):
                row, calls, spawned = _row(item.nodeid, Outcome.SKIPPED), None, False
                if not (code == MutantExit.KILLED and is_property_test(item)):
                    if item.nodeid in filed:
                        row = replace(filed[item.nodeid], t=time.time())
                    else:
                        fh.write(encode_line(MutantStarted(name, item.nodeid, time.time())))
                        fh.flush()
                        nextitem = _next_run(tests, k, filed, code == MutantExit.KILLED)
                        if recording:
                            call_recorder.start_test()
                        reports = runtestprotocol(item, nextitem=nextitem, log=False)
                        if recording:
                            calls, spawned = tuple(call_recorder.end_test()), call_recorder.spawned()
                        outcome, text = outcome_of(reports, item.config.rootpath)
                        row = replace(
                            _row(item.nodeid, outcome),
                            duration=round(sum(r.duration for r in reports), 6),
                            text=text[-MAX_TEXT:],
                        )
                    if row.outcome in (Outcome.FAILED, Outcome.ERROR):
                        code = MutantExit.KILLED
                fh.write(encode_line(MutantRow(name, row, calls, spawned)))
                fh.flush()
    except BaseException:
        code = MutantExit.CRASHED
    return code


def _reached(item: pytest.Item, row: TestRow | None) -> bool:
    """Whether an earlier run's ``row`` of ``item`` holds its outcome: a property test skipped there was not reached
    (a test had failed before it), so it runs when it is reached now."""
    return row is not None and not (row.outcome == Outcome.SKIPPED and is_property_test(item))


def _next_run(tests: list[pytest.Item], k: int, filed: Mapping[str, TestRow], killed: bool) -> pytest.Item | None:
    """The test that runs after ``tests[k]`` if it passes (the filed rows are not run; a failing one stops the
    property tests), so that pytest tears down only the fixtures the next test run does not share."""
    for item in tests[k + 1 :]:
        if killed and is_property_test(item):
            return item  # properties come last: none runs any more, so the next in order serves
        row = filed.get(item.nodeid)
        if row is None:
            return item
        killed = killed or row.outcome in (Outcome.FAILED, Outcome.ERROR)
    return None


def _row(nodeid: str, outcome: Outcome) -> TestRow:
    """A named mutant's row for a test just ended: what the parent reads of it (the baseline's row has the rest)."""
    return TestRow(nodeid, outcome, 0.0, time.time(), nodeid, nodeid.split("::")[0], None)
