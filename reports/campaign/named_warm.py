"""The named mutants from one warm pytest session (``reports.campaign.plugins.warm_session``): collect the suite
once, fork a child
per mutant with its switches on, instead of a fresh pytest process of several seconds per mutant.

Each child runs what ``reports.campaign.run_named`` would (the baseline's passing tests that look its
variant up; example tests first in an order drawn from the mutant, every failing one a killer; the
property searches only while nothing failed) and writes one row per test; the parent keeps
``Settings.workers`` children going and kills one that outlives its timeout. Each child is a fresh copy
of the collected session, so no switch or memo passes from one mutant to the next.
``--named-engine process`` runs each mutant in a process of its own instead.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reports.campaign.named_mutants import Mutant, tests_for
from reports.campaign.processes import CALLS, PYTEST_ARGS, RunOutcome, kill_group, run_failed, spawn
from reports.campaign.protocol import (
    MutantEnded,
    MutantExit,
    MutantRow,
    MutantStarted,
    PlannedMutant,
    WarmPlan,
    decode_warm,
    read_lines,
    write_plan,
)
from reports.campaign.records import FAILING, BaselineRecord, MutantRecord, Status, TestRow
from reports.campaign.runs import mutant_record, not_covered, timeout_for
from reports.campaign.settings import Settings

#: What each mutant's child has written so far: its tests by node id, each its row, or None while it runs (a test
#: started again, when a timeout is confirmed, runs again).
Written = dict[str, dict[str, TestRow | None]]
#: What each test a mutant's child ran called under it, and whether it started a Python process, by mutant and node id.
Reached = dict[str, dict[str, tuple[tuple[str, ...], bool]]]


@dataclass(frozen=True)
class Earlier:
    """What an earlier run of a named mutant still tells, its sites and tests unchanged: the rows of its tests
    whose code has not changed since (filed again instead of run), the shrunk failure texts among them, and what
    they reached under the mutant beyond their baseline calls."""

    rows: tuple[TestRow, ...]
    shrunk: Mapping[str, str]
    reached: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def run_warm(
    settings: Settings,
    mutants: Sequence[Mutant],
    baseline: BaselineRecord,
    fp: str,
    deadline: float | None,
    earlier: Mapping[str, Earlier] | None = None,
) -> Iterator[MutantRecord]:
    """Each mutant's journal record, as it finishes; those unfinished at ``deadline`` are not yielded. A mutant in
    ``earlier`` runs only its tests whose code changed since that run (the rest are filed as it saw them)."""
    earlier = earlier or {}
    planned, meta = [], {}
    for m in mutants:
        rows = tests_for(m, baseline, settings.all_variants)
        meta[m.id] = (m, rows, timeout_for(rows, baseline, settings))
        if not rows:
            yield not_covered(m, settings, fp)
            continue
        known = earlier[m.id].rows if m.id in earlier else ()
        planned.append(PlannedMutant(m.id, meta[m.id][2], tuple(r.nodeid for r in rows), spec=m.spec, known=known))
    if not planned:
        return
    with tempfile.TemporaryDirectory(prefix="cm-named-") as tmp:
        plan, out, log = Path(tmp) / "plan.json", Path(tmp) / "out.jsonl", Path(tmp) / "log"
        write_plan(plan, WarmPlan(tuple(planned), workers=max(1, settings.workers)))
        cmd = [
            settings.python,
            "-m",
            "pytest",
            *PYTEST_ARGS,
            "--capture=sys",
            "--tb=short",
            "--cm-no-shrink",
            CALLS,
            "-p",
            "reports.campaign.plugins.warm_session",
            f"--cm-execute={plan}",
            f"--cm-execute-out={out}",
            *settings.selection,
        ]
        with open(log, "wb") as sink:
            proc = spawn(cmd, settings.root, settings.env(), sink)
        seen, offset = set(), 0
        written: Written = {}
        reached: Reached = {}
        try:
            while True:
                running = proc.poll() is None
                offset, finished = _read(out, offset, written, reached)
                for end in finished:
                    if end.name not in seen:
                        seen.add(end.name)
                        m, rows, limit = meta[end.name]
                        before = earlier.get(m.id, Earlier((), {}))
                        ran = Ran(written.get(end.name, {}), reached.get(end.name, {}))
                        yield _record(m, ran, end, limit, baseline, settings, fp, before)
                if not running:
                    break
                if deadline is not None and time.time() >= deadline:
                    break
                time.sleep(0.2)
        finally:
            kill_group(proc)
            proc.wait()
        if len(seen) < len(planned) and (deadline is None or time.time() < deadline):
            tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
            raise run_failed(settings, "the warm named-mutant session", proc.returncode, tail)


def _read(path: Path, offset: int, written: Written, reached: Reached) -> tuple[int, list[MutantEnded]]:
    """New complete lines of the executor's output: tests started and rows filed by mutant, with what each test run
    called; the mutants that ended."""
    lines, offset = read_lines(path, decode_warm, offset)
    ended = []
    for message in lines:
        tests = written.setdefault(message.name, {})
        if isinstance(message, MutantStarted):
            tests[message.nodeid] = None
        elif isinstance(message, MutantRow):
            tests[message.row.nodeid] = message.row
            if message.calls is not None:
                reached.setdefault(message.name, {})[message.row.nodeid] = (message.calls, message.spawned)
        elif isinstance(message, MutantEnded):
            ended.append(message)
    return offset, ended


@dataclass(frozen=True)
class Ran:
    """What a mutant's child wrote: its tests' rows by node id (None: started, never finished), and what each test it
    ran called under the mutant, with whether it started a Python process."""

    tests: Mapping[str, TestRow | None]
    calls: Mapping[str, tuple[tuple[str, ...], bool]]


def _record(
    mutant: Mutant,
    ran: Ran,
    end: MutantEnded,
    limit: float,
    baseline: BaselineRecord,
    settings: Settings,
    fp: str,
    before: Earlier,
) -> MutantRecord:
    """A mutant's record from the rows its child wrote (a test started and never finished was running); ``before``:
    the failure texts shrunk before, and what the filed tests reached, of tests whose code is unchanged."""
    tests = ran.tests
    rows = [r for r in tests.values() if r is not None]
    running = [nodeid for nodeid, r in tests.items() if r is None]
    timed_out = end.exit == MutantExit.TIMEOUT
    status = (
        Status.KILLED
        if any(r.outcome in FAILING for r in rows)
        else Status.TIMEOUT
        if timed_out
        else Status.SURVIVED
        if end.exit == MutantExit.SURVIVED
        else Status.ERROR
    )
    calls = {t: c for t, (c, _) in ran.calls.items()}
    spawned = frozenset(t for t, (_, s) in ran.calls.items() if s)
    run = RunOutcome(rows, running, end.exit, end.seconds, timed_out, "", end.started or 0.0, calls, spawned=spawned)
    return mutant_record(
        mutant,
        baseline,
        settings,
        fp,
        run,
        status,
        limit,
        ran=len(tests),
        engine="warm",
        shrunk_before=before.shrunk,
        reached_before=before.reached,
    )
