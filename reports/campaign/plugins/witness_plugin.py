"""The red-first witness search's pytest plugin (``-p reports.campaign.plugins.witness_plugin``; see
``reports.campaign.witness_search``).

Each planned test is collected once and run again under each of its candidate mutants in turn until
one fails, each run in a forked child of the collected session (``isolated``): a mutmut mutant through
``reports.campaign.mutmut.trampoline.switch_on`` (the trampolines dispatch on it), a named mutant through its
switches in ``strategies.defects.VARIANTS``. At load it imports only the campaign's other plugins and its
trampolines, none of the model, so it loads in any project the campaign runs in; ``strategies`` is imported when a
named mutant is switched on.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from reports.campaign.mutmut.trampoline import recording, switch_on
from reports.campaign.plugins.mutant_plugin import apply_mutant, relative_paths
from reports.campaign.plugins.warm_session import Ended, ForkPool, settle
from reports.campaign.protocol import Candidate, CandidateKind, WitnessFound, WitnessPlan, encode_line, read_plan
from reports.campaign.records import mutmut_key

#: The search is bounded by candidates (the plan's ``max``), never by a clock, so its outcome does not depend on
#: the machine's speed. One candidate's run may take ``RUN_FACTOR`` times the test's baseline duration plus
#: ``RUN_CONST`` seconds (a test runs slower through the trampolines, and under a mutant): past it the mutant is taken
#: to loop, the run is cut and counted (``timeouts``), and the next candidate runs.
RUN_FACTOR = 10.0
RUN_CONST = 2.0


def run_limit(duration: float) -> float:
    """The seconds one candidate's run of a test may take, given the test's baseline duration."""
    return RUN_CONST + RUN_FACTOR * duration


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cm-witness", default=None, help="JSON: each node id's candidate mutants, tried in order")
    parser.addoption("--cm-witness-out", default=None, help="where each test's witness is written (JSON lines)")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--cm-witness")
    if path:
        plan = read_plan(path, WitnessPlan.from_json)
        config.pluginmanager.register(WitnessSearch(plan, config.getoption("--cm-witness-out")), "cmharness-witness")


class WitnessSearch:
    """Runs each planned test under its candidates in turn until one fails; writes what it found.

    The plan is a ``reports.campaign.protocol.WitnessPlan``; a ``discover`` candidate runs the test once recording
    the mutated functions it calls (``calls``), and their killed mutants are tried next, before the rest, up to the
    plan's ``most`` in all.
    """

    def __init__(self, plan: WitnessPlan, out: str) -> None:
        self.todo = plan.tests
        self.killed = plan.killed
        self.most = plan.most
        self.durations = plan.durations
        self.out = out

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        settle()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        planned = self.todo.get(item.nodeid)
        if planned is None:
            return None
        cands = list(planned)
        known = sum(c.kind != CandidateKind.DISCOVER for c in cands)  # the candidate mutants, the discovered included
        limit = run_limit(self.durations.get(item.nodeid, 0.0))
        started, tried, timeouts = time.time(), 0, 0
        witness: str | None = None
        calls: int | None = None
        failure = ""
        while cands and tried < self.most:
            cand = cands.pop(0)
            if cand.kind == CandidateKind.DISCOVER:
                found = isolated(lambda: functions_called(item), limit)
                called = found if isinstance(found, list) else []  # a crash or a cut run recorded nothing
                calls = len(called)
                room = max(0, self.most - tried - len(cands))
                found_cands = [
                    Candidate(CandidateKind.MUTMUT, n, mutmut_key(n)) for n in round_robin(called, self.killed)
                ][:room]
                cands[:0] = found_cands
                known += len(found_cands)
                continue
            failed = isolated(lambda c=cand: run_under(item, c.kind, c.name), limit)
            tried += 1
            if failed is None:
                timeouts += 1
            elif failed:
                witness, failure = cand.mutant, failed
                break
        found_row = WitnessFound(
            nodeid=item.nodeid,
            witness=witness,
            complete=witness is not None or not cands,
            tried=tried,
            candidates=known,
            timeouts=timeouts,
            limit=round(limit, 3),
            seconds=round(time.time() - started, 3),
            failure=failure,
            calls=calls,
        )
        with open(self.out, "a", encoding="utf-8") as fh:
            fh.write(encode_line(found_row))
        return True


def isolated(run: Callable[[], Any], limit: float) -> Any:
    """``run()`` in a forked child (``warm_session.ForkPool``), its JSON result sent back: each candidate meets a
    fresh copy of the collected session (no state, memo or fixture left by another mutant), and one that outlives
    ``limit`` seconds (a mutant that loops) is killed and gives None."""

    def body(send: Callable[[bytes], object]) -> int:
        try:
            payload = json.dumps(run()).encode()
        except BaseException as err:  # a crash of the run itself: what it raised
            payload = json.dumps(f"{type(err).__name__}: {err}"[:300]).encode()
        send(payload)
        return 0

    pool: ForkPool[None] = ForkPool()
    pool.start(None, body, max(0.5, limit))
    ended: list[Ended[None]] = []
    while not ended:
        ended = pool.wait()
    end = ended[0]
    return json.loads(end.sent) if end.exit is not None and end.sent else None


def run_under(item: pytest.Item, kind: CandidateKind, name: str) -> str:
    """Run ``item`` with the candidate switched on: its failure line, or "" when it passed."""
    with switched(kind, name):
        reports = runtestprotocol(item, nextitem=None, log=False)
    failed = [r for r in reports if r.failed]
    return failure_line(failed[0], item.config.rootpath) if failed else ""


def round_robin(functions: Sequence[str], killed: Mapping[str, Sequence[str]]) -> list[str]:
    """The killed mutants of ``functions``, one of each function in turn: the first function's first mutant,
    the second's first, ..., then each one's second (a witness is likelier among many functions' mutants)."""
    queues = [list(killed.get(fn, [])) for fn in functions]
    out: list[str] = []
    while any(queues):
        out += [q.pop(0) for q in queues if q]
    return out


def functions_called(item: pytest.Item) -> list[str]:
    """The mutated functions (mutmut's mangled names) ``item`` calls in this process, the least called first
    (the functions that steer a compile, whose mutants change what a test sees; the most called are shared
    primitives, which move both sides of a comparison together): one run of it with the trampolines recording
    their hits, as mutmut's stats run does (nothing when mutmut is not there)."""
    hits: Counter[str] = Counter()
    with recording(lambda name: hits.update((name,))):
        runtestprotocol(item, nextitem=None, log=False)
    return sorted(hits, key=lambda fn: (hits[fn], fn))


class switched:  # a context manager read as a phrase: ``with switched(kind, name):``
    """One candidate mutant switched on in this process, and off again after."""

    def __init__(self, kind: CandidateKind, name: str) -> None:
        self.kind, self.name = kind, name
        self.saved: Any = None

    def __enter__(self) -> None:
        if self.kind == CandidateKind.MUTMUT:
            switch_on(self.name)
        else:
            from strategies import defects

            variant = self.name.split("+", 1)[0]
            self.saved = (variant, defects.VARIANTS[variant])
            apply_mutant(self.name)

    def __exit__(self, *exc: object) -> None:
        if self.kind == CandidateKind.MUTMUT:
            switch_on(None)
        else:
            from strategies import defects

            variant, before = self.saved
            defects.VARIANTS[variant] = before


def failure_line(report: pytest.TestReport, root: Path) -> str:
    """The first line of what the failure raised (``AssertionError: assert 31 == 30``), whatever ``--tb`` said, its
    paths from the session's ``root``."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = relative_paths(crash.message if crash is not None else report.longreprtext, root)
    for line in text.splitlines():
        if line.startswith("E "):
            return line[1:].strip()[:300]
    return (text.strip().splitlines() or [""])[0][:300]
