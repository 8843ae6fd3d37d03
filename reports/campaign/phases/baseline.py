"""Phase 1, the baseline: every selected test once on the unmutated code, each test's outcome and the functions it
calls; after a change, only the tests the change can reach run again (``reports.campaign.dependency_keys``)."""

from __future__ import annotations

import importlib.util
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from reports.campaign.dependency_keys import (
    Rerun,
    at_import,
    baseline_sources,
    coverage_of,
    rerun,
    settings_part,
)
from reports.campaign.journal import read_records
from reports.campaign.plugins.mutant_plugin import SKIP_ENV
from reports.campaign.processes import CALLS, RunOutcome, run_failed, run_pytest
from reports.campaign.records import BASELINE, FAILING, BaselineRecord, Records, TestCalls, TestRow
from reports.campaign.run_context import RunContext
from reports.campaign.settings import Settings


def run(settings: Settings, ctx: RunContext, done: Records) -> BaselineRecord:
    """The baseline of the run's fingerprint: journaled, or run again for what changed since the last one, or run."""
    if isinstance(found := done.get(BASELINE), BaselineRecord):
        return found
    files = list(ctx.code)
    sources = baseline_sources(
        settings.root, files, settings_part(settings.selection, settings.profile, settings.all_variants)
    )
    previous = previous_baseline(settings.journal_dir)
    code = [f for f in files if f"code:{f.relative_to(settings.root).as_posix()}" in sources]
    plan = rerun(previous.sources, sources, coverage_of(previous), at_import(code)) if previous is not None else None
    started = time.time()
    if plan is not None and previous is not None and not plan.everything:
        baseline = rerun_baseline(settings, ctx.fp, sources, previous, plan)
        if settings.progress:
            settings.progress.write(
                f"baseline: {len(baseline.tests) - baseline.reused} test(s) run again, {baseline.reused} kept "
                f"({_what_changed(plan)}; {time.time() - started:.1f}s)\n"
            )
    else:
        if settings.progress:
            why = f" ({plan.everything})" if plan is not None else ""
            settings.progress.write(f"baseline: running the selected tests on the unmutated code{why}...\n")
            settings.progress.flush()
        baseline = run_baseline(settings, ctx.fp, sources)
        if settings.progress:
            counts: dict[str, int] = {}
            for r in baseline.tests:
                counts[r.outcome] = counts.get(r.outcome, 0) + 1
            settings.progress.write(
                f"baseline: {len(baseline.tests)} tests in {baseline.wall:.1f}s "
                f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})\n"
            )
            if baseline.calls is not None and baseline.calls.shared:
                settings.progress.write(
                    f"baseline: {len(baseline.calls.shared)} function(s) of the code under test ran outside one test "
                    "(at import or collection, in a fixture wider than a test, or in a cached property): a change to "
                    "one re-runs every test\n"
                )
    ctx.journal.write(baseline)
    done[BASELINE] = baseline
    return baseline


def run_baseline(settings: Settings, fp: str, sources: Mapping[str, str] | None = None) -> BaselineRecord:
    """Every selected test once on the unmutated code (rows sorted by node id: the order they ran in varies)."""
    run = run_pytest(settings, [CALLS, *settings.selection], timeout=None)
    if run.returncode not in (0, 1) or not run.rows:
        raise run_failed(settings, "the baseline run", run.returncode, run.stderr_tail)
    measured = sum(r.duration for r in run.rows)
    rows = tuple(sorted(run.rows, key=lambda r: r.nodeid))
    return BaselineRecord(
        fingerprint=fp,
        wall=round(run.wall, 3),
        overhead=round(max(0.0, run.wall - measured), 3),
        exit=run.returncode,
        tests=rows,
        finished=time.time(),
        sources=dict(sources or {}),
        calls=_calls(rows, run, None),
    )


def _calls(rows: Sequence[TestRow], run: RunOutcome | None, previous: BaselineRecord | None) -> TestCalls | None:
    """The baseline's calls: the run's for the tests it ran, ``previous``'s for the rows it kept (None where either
    did not record them)."""
    nodeids = [r.nodeid for r in rows]
    by_test: dict[str, set[str]] = {}
    shared: set[str] = set()
    spawned: set[str] = set()
    modules: frozenset[str] | None = None
    if previous is not None:
        if previous.calls is None:
            return None
        before = [r.nodeid for r in previous.tests]
        by_test = previous.calls.by_test(before)
        shared.update(previous.calls.shared)
        spawned.update(before[i] for i in previous.calls.spawned)
        modules = frozenset(previous.calls.modules)
    if run is not None:
        if run.modules is None:
            return None
        by_test.update({n: set(c) for n, c in run.calls.items()})
        shared.update(run.shared)
        spawned = (spawned - set(run.calls)) | run.spawned
        modules = run.modules if modules is None else modules & run.modules
    if any(n not in by_test for n in nodeids):
        return None
    calls = {n: sorted(by_test[n]) for n in nodeids}
    return TestCalls.of(nodeids, calls, sorted(shared), sorted(modules or ()), spawned)


def rerun_baseline(
    settings: Settings, fp: str, sources: Mapping[str, str], previous: BaselineRecord, plan: Rerun
) -> BaselineRecord:
    """The baseline after a change: ``previous``'s rows of the tests ``plan`` leaves alone, and the others run again
    (with any new test); no pytest at all when no test and no function changed."""
    before = [r.nodeid for r in previous.tests]
    spawned = {before[i] for i in previous.calls.spawned} if previous.calls is not None else set(before)

    def is_traced(nodeid: str) -> bool:  # a test that started a Python process may call anything there
        return nodeid not in spawned

    again = {r.nodeid for r in previous.tests if plan.affected(r.nodeid, is_traced)}
    kept = [r for r in previous.tests if r.nodeid not in again]
    files = {n.split("::", 1)[0] for n in again} | plan.modules | {d.split("::", 1)[0] for d in plan.defs}
    run: RunOutcome | None = None
    if not any((settings.root / f).is_file() for f in files):  # no test of the selection can run again
        rows, wall, overhead = kept, 0.0, previous.overhead
    else:
        took = sum(r.duration for r in previous.tests if r.nodeid in again)
        run = _run_all_but(settings, [r.nodeid for r in kept], took)
        if run.returncode not in (0, 1, 5):
            raise run_failed(settings, "the baseline run", run.returncode, run.stderr_tail)
        rows, wall = [*kept, *run.rows], run.wall
        overhead = max(0.0, run.wall - sum(r.duration for r in run.rows))
    rows = sorted(rows, key=lambda r: r.nodeid)
    red = any(r.outcome in FAILING for r in rows)
    return BaselineRecord(
        fingerprint=fp,
        wall=round(wall, 3),
        overhead=round(overhead, 3),
        exit=1 if red else 0,
        tests=tuple(rows),
        finished=time.time(),
        sources=dict(sources),
        reused=len(kept),
        calls=_calls(rows, run, previous),
    )


#: A partial baseline whose tests took this many seconds or more on the last baseline runs them on ``Settings.workers``
#: pytest-xdist workers (nothing runs beside it then; the first, whole baseline shares the machine with mutmut's
#: preparation). Below it, starting the workers costs more than they save.
XDIST_FROM = 4.0
#: Whether pytest-xdist is installed (the test extra has it).
XDIST = importlib.util.find_spec("xdist") is not None


def _run_all_but(settings: Settings, nodeids: Sequence[str], expected: float) -> RunOutcome:
    """The whole selection, collected as the first baseline collects it (a test module's import can change what
    another test sees), less ``nodeids`` (deselected through the recording plugin's skip list), recording calls; on
    several workers when the tests are expected to take ``expected`` seconds or more and pytest-xdist is installed."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as fh:
        fh.write("".join(n + "\n" for n in nodeids))
        skip = fh.name
    spread = ["-n", str(settings.workers)] if expected >= XDIST_FROM and settings.workers > 1 and XDIST else []
    try:
        return run_pytest(settings, [*spread, CALLS, *settings.selection], timeout=None, env={SKIP_ENV: skip})
    finally:
        os.unlink(skip)


def previous_baseline(directory: Path) -> BaselineRecord | None:
    """The baseline the next one starts from: the last one journaled with its sources, of any fingerprint."""
    found: BaselineRecord | None = None
    for record in read_records(directory):
        if not isinstance(record, BaselineRecord) or not record.sources:
            continue
        if found is None or record.finished >= found.finished:
            found = record
    return found


def _what_changed(plan: Rerun) -> str:
    """The changes a partial baseline answers, in a few words."""
    if not plan.changed:
        return "no test or function changed"
    shown = [p.partition(":")[2] for p in plan.changed[:4]]
    return "changed: " + ", ".join(shown) + (f" and {len(plan.changed) - 4} more" if len(plan.changed) > 4 else "")
