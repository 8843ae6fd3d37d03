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

import contextlib
import json
import os
import signal
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from reports.campaign.mutmut.trampoline import recording, switch_on
from reports.campaign.plugins.mutant_plugin import apply_mutant
from reports.campaign.plugins.warm_session import settle
from reports.campaign.records import Kind

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
        config.pluginmanager.register(
            WitnessSearch(json.loads(Path(path).read_text(encoding="utf-8")), config.getoption("--cm-witness-out")),
            "cmharness-witness",
        )


DISCOVER = "discover"


class WitnessSearch:
    """Runs each planned test under its candidates in turn until one fails; writes what it found.

    The plan is ``{"tests": {node id: [[kind, name, id], ...]}, "killed": {function: [mutmut names]}, "max": N,
    "durations": {node id: baseline seconds}}``;
    a ``discover`` candidate runs the test once recording the mutated functions it calls (``calls``), and their
    killed mutants are tried next, before the rest, up to ``max`` in all.
    """

    def __init__(self, plan: dict[str, Any], out: str) -> None:
        self.todo: dict[str, list[list[str]]] = plan["tests"]
        self.killed: dict[str, list[str]] = plan.get("killed", {})
        self.most = int(plan.get("max", 400))
        self.durations: dict[str, float] = plan.get("durations", {})
        self.out = out

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        settle()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        planned = self.todo.get(item.nodeid)
        if planned is None:
            return None
        cands = list(planned)
        known = sum(c[0] != DISCOVER for c in cands)  # the candidate mutants, the discovered ones included
        limit = run_limit(self.durations.get(item.nodeid, 0.0))
        started, tried, timeouts = time.time(), 0, 0
        row: dict[str, Any] = {"nodeid": item.nodeid, "witness": None, "complete": False}
        while cands and tried < self.most:
            kind, name, mutant_id = cands.pop(0)
            if kind == DISCOVER:
                found = isolated(lambda: functions_called(item), limit)
                calls = found if isinstance(found, list) else []  # a crash or a cut run recorded nothing
                row["calls"] = len(calls)
                room = max(0, self.most - tried - len(cands))
                found_cands = [[Kind.MUTMUT, n, f"mutmut:{n}"] for n in round_robin(calls, self.killed)][:room]
                cands[:0] = found_cands
                known += len(found_cands)
                continue
            failure = isolated(lambda k=kind, n=name: run_under(item, k, n), limit)
            tried += 1
            if failure is None:
                timeouts += 1
            elif failure:
                row.update(witness=mutant_id, failure=failure)
                break
        row["complete"] = row["witness"] is not None or not cands
        row.update(
            tried=tried,
            candidates=known,
            timeouts=timeouts,
            limit=round(limit, 3),
            seconds=round(time.time() - started, 3),
        )
        with open(self.out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        return True


def isolated(run: Callable[[], Any], limit: float) -> Any:
    """``run()`` in a forked child, its JSON result sent back through a pipe: each candidate meets a fresh copy
    of the collected session (no state, memo or fixture left by another mutant), and one that outlives
    ``limit`` seconds (a mutant that loops) is killed and gives None."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        try:
            payload = json.dumps(run()).encode()
        except BaseException as err:  # a crash of the run itself: what it raised
            payload = json.dumps(f"{type(err).__name__}: {err}"[:300]).encode()
        with os.fdopen(write_end, "wb") as out:
            out.write(payload)
        os._exit(0)
    os.close(write_end)
    os.set_blocking(read_end, False)
    end, chunks = time.time() + max(0.5, limit), []
    with os.fdopen(read_end, "rb") as inp:
        while True:
            chunks.append(inp.read() or b"")  # drained while waiting: a long result never fills the pipe
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                break
            if time.time() > end:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None
            time.sleep(0.002)
        chunks.append(inp.read() or b"")
    data = b"".join(chunks)
    return json.loads(data) if data else None


def run_under(item: pytest.Item, kind: str, name: str) -> str:
    """Run ``item`` with the candidate switched on: its failure line, or "" when it passed."""
    with switched(kind, name):
        reports = runtestprotocol(item, nextitem=None, log=False)
    failed = [r for r in reports if r.failed]
    return failure_line(failed[0]) if failed else ""


def round_robin(functions: list[str], killed: dict[str, list[str]]) -> list[str]:
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

    def __init__(self, kind: str, name: str) -> None:
        self.kind, self.name = kind, name
        self.saved: Any = None

    def __enter__(self) -> None:
        if self.kind == Kind.MUTMUT:
            switch_on(self.name)
        else:
            from strategies import defects

            variant = self.name.split("+", 1)[0]
            self.saved = (variant, defects.VARIANTS[variant])
            apply_mutant(self.name)

    def __exit__(self, *exc: object) -> None:
        if self.kind == Kind.MUTMUT:
            switch_on(None)
        else:
            from strategies import defects

            variant, before = self.saved
            defects.VARIANTS[variant] = before


def failure_line(report: pytest.TestReport) -> str:
    """The first line of what the failure raised (``AssertionError: assert 31 == 30``), whatever ``--tb`` said."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else report.longreprtext
    for line in text.splitlines():
        if line.startswith("E "):
            return line[1:].strip()[:300]
    return (text.strip().splitlines() or [""])[0][:300]
