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

The plan is JSON: ``{"workers": N, "mutants": [{"name", "limit": seconds, and "tests": [node ids] or
"function": F}], "functions": {F: {"tests", "first"}}, "durations": {node id: baseline seconds},
"order_durations": {node id: seconds the tests are ordered by}, "per_test": [factor, constant]}``; a mutant named by
its function runs that function's tests in ``reports.campaign.mutmut.test_order``'s order, and a test past its own limit
ends the mutant's child at once. A mutant that timed out runs again after the main pass with ``CONFIRM_SCALE`` times
its limits, and only then counts as a timeout (its second run's verdict is the one written). Each result is a JSON
line ``{"name", "exit", "seconds", "killer"}`` with mutmut's exit codes (1 killed, 0 survived, 36 timeout, 33 no test).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from reports.campaign.mutmut.test_order import running_order
from reports.campaign.mutmut.trampoline import switch_on
from reports.campaign.plugins.mutant_plugin import apply_mutant, drawn, is_property_test, outcome_of
from reports.campaign.records import Outcome

KILLED, SURVIVED, TIMEOUT, NO_TESTS = 1, 0, 36, 33
#: A mutant that outlives its limits in the main pass runs again after it with this many times its limits (its own
#: and each test's), and only a second timeout is written: a loaded machine never turns a kill into a timeout.
CONFIRM_SCALE = 3.0


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cm-execute", default=None, help="JSON plan: mutmut mutants and the tests of each")
    parser.addoption("--cm-execute-out", default=None, help="where each mutant's result is written (JSON lines)")


def pytest_configure(config: pytest.Config) -> None:
    plan = config.getoption("--cm-execute")
    if plan:
        data = json.loads(Path(plan).read_text(encoding="utf-8"))
        config.pluginmanager.register(Executor(data, config.getoption("--cm-execute-out")), "cmharness-executor")


class Executor:
    def __init__(self, plan: dict[str, Any], out: str) -> None:
        self.mutants: list[dict[str, Any]] = list(plan["mutants"])
        self.functions: dict[str, dict[str, Any]] = plan.get("functions", {})
        self.durations: dict[str, float] = plan.get("durations", {})
        self.order_durations: dict[str, float] = plan.get("order_durations", self.durations)
        factor, const = plan.get("per_test", (0.0, 0.0))
        self.test_limits = {t: factor * d + const for t, d in self.durations.items()} if factor else {}
        self.workers = max(1, int(plan.get("workers", 1)))
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

    def tests_of(self, mutant: dict[str, Any]) -> Iterator[str]:
        """The node ids ``mutant`` runs, in running order (ordered as they are reached)."""
        if "tests" in mutant:
            return iter(mutant["tests"])
        fn = self.functions.get(mutant["function"], {})
        return running_order(mutant["name"], fn.get("tests", []), self.order_durations, fn.get("first", []))

    def covering(self, mutant: dict[str, Any]) -> list[str]:
        """The node ids ``mutant`` may run, unordered."""
        return mutant["tests"] if "tests" in mutant else self.functions.get(mutant["function"], {}).get("tests", [])

    def _write(self, row: dict[str, Any]) -> None:
        with open(self.out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        items = {it.nodeid: it for it in session.items}
        settle()
        suspects = self._run_all(list(self.mutants), items)
        if suspects:  # a timeout is confirmed after the main pass, with CONFIRM_SCALE x its limits, before it counts
            self.scale = CONFIRM_SCALE
            self._run_all(suspects, items)
        return True

    def _run_all(self, queue: list[dict[str, Any]], items: dict[str, pytest.Item]) -> list[dict[str, Any]]:
        """Run ``queue``'s mutants, ``workers`` children at a time; the ones that timed out, unless they were being
        confirmed (then their timeout is written)."""
        running: dict[int, tuple[dict[str, Any], float]] = {}
        suspects: list[dict[str, Any]] = []
        while queue or running:
            while queue and len(running) < self.workers:
                mutant = queue.pop(0)
                if not any(t in items for t in self.covering(mutant)):
                    self._write({"name": mutant["name"], "exit": NO_TESTS, "seconds": 0.0, "killer": None})
                    continue
                parent = os.getpid()
                pid = os.fork()
                if pid == 0:  # the child orders its tests itself, and never returns
                    _die_with(parent)
                    tests = (items[t] for t in self.tests_of(mutant) if t in items)
                    if mutant.get("spec"):
                        _named_child(mutant["name"], mutant["spec"], list(tests), self.out)
                    self.timing = True
                    _child(mutant["name"], tests, self.out)
                running[pid] = (mutant, time.time())
            self._reap(running, suspects)
        return suspects

    def _reap(self, running: dict[int, tuple[dict[str, Any], float]], suspects: list[dict[str, Any]]) -> None:
        """Wait a moment for a child: write its result, or kill it past its limit (a suspect, or a confirmed
        timeout when it was already one)."""
        pid, status = os.waitpid(-1, os.WNOHANG)
        now = time.time()
        if pid == 0:
            for child, (mutant, started) in list(running.items()):
                if now - started > mutant["limit"] * self.scale:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(child, signal.SIGKILL)
                    os.waitpid(child, 0)
                    del running[child]
                    self._ended(mutant, TIMEOUT, now, started, suspects)
            time.sleep(0.002)
            return
        if pid not in running:
            return
        mutant, started = running.pop(pid)
        code = os.waitstatus_to_exitcode(status)
        self._ended(mutant, KILLED if code == KILLED else SURVIVED if code == 0 else code, now, started, suspects)

    def _ended(
        self, mutant: dict[str, Any], code: int, now: float, started: float, suspects: list[dict[str, Any]]
    ) -> None:
        """A child's end: a first timeout is held back as a suspect, anything else written."""
        if code == TIMEOUT and self.scale == 1.0:
            suspects.append(mutant)
            return
        seconds = round(now - started, 3)
        self._write({"name": mutant["name"], "exit": code, "seconds": seconds, "killer": None, "started": started})


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
    os._exit(TIMEOUT)


def _child(name: str, tests: Iterator[pytest.Item], out: str) -> None:
    """Run ``tests`` under mutant ``name`` until one fails; exit 1 (writing the killer) or 0 (36 from
    ``Executor.pytest_runtest_call`` when a test outlives its limit)."""
    code = SURVIVED
    try:
        switch_on(name)
        item = next(tests, None)
        while item is not None:
            following = next(tests, None)  # the next item lets a module's fixtures serve its tests in a row
            reports = runtestprotocol(item, nextitem=following, log=False)
            if any(r.failed for r in reports):
                with open(out, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"name": name, "killer": item.nodeid}) + "\n")
                code = KILLED
                break
            item = following
    except BaseException:  # a crash of the run itself counts as a kill, as it does for mutmut
        code = KILLED
    finally:
        os._exit(code)


def _named_child(name: str, spec: str, tests: list[pytest.Item], out: str) -> None:
    """A named mutant: its switches on in this process; every example test runs (each failing one a killer),
    the property searches only while nothing has failed; one row per test as ``reports.campaign.plugins.mutant_plugin``
    writes them. Exit 1 when a test failed, else 0."""
    code = SURVIVED
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
        with open(out, "a", encoding="utf-8") as fh:
            for k, item in enumerate(tests):
                if code == KILLED and is_property_test(item):
                    row = {"nodeid": item.nodeid, "outcome": Outcome.SKIPPED, "duration": 0.0, "t": time.time()}
                else:
                    fh.write(json.dumps({"name": name, "start": item.nodeid, "t": time.time()}) + "\n")
                    fh.flush()
                    reports = runtestprotocol(item, nextitem=tests[k + 1] if k + 1 < len(tests) else None, log=False)
                    outcome, text = outcome_of(reports)
                    row = {
                        "nodeid": item.nodeid,
                        "outcome": outcome,
                        "t": time.time(),
                        "duration": round(sum(r.duration for r in reports), 6),
                    }
                    if text:
                        row["text"] = text[-20_000:]
                    if outcome in (Outcome.FAILED, Outcome.ERROR):
                        code = KILLED
                fh.write(json.dumps({"name": name, "row": row}) + "\n")
                fh.flush()
    except BaseException:
        code = 2
    finally:
        os._exit(code)
