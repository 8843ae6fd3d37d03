"""One named mutant's run in a pytest process of its own, over the tests that can kill it, its quickest Hypothesis
killer shrunk again; the baseline's red tests and the time limits the other phases share."""

from __future__ import annotations

import bisect
import os
import tempfile
import time
from collections.abc import Mapping, Sequence

from reports.campaign.dependency_keys import keys_by_function
from reports.campaign.named_mutants import Mutant, tests_for
from reports.campaign.processes import CALLS, RunOutcome, run_pytest
from reports.campaign.records import (
    FAILING,
    RED,
    BaselineRecord,
    MutantRecord,
    Outcome,
    Status,
    TestRow,
)
from reports.campaign.settings import Settings


def red_tests(baseline: BaselineRecord) -> list[str]:
    """The node ids red on the baseline run, less the expected reds (xfailed): the tests no mutant runs."""
    return [r.nodeid for r in baseline.tests if r.outcome in RED - {Outcome.XFAILED}]


def timeout_for(rows: Sequence[TestRow], baseline: BaselineRecord, settings: Settings) -> float:
    return settings.timeout_factor * (sum(r.duration for r in rows) + baseline.overhead) + settings.timeout_const


def not_covered(mutant: Mutant, settings: Settings, fp: str) -> MutantRecord:
    """The record of a named mutant no test can see (no baseline test it would run)."""
    return MutantRecord(
        key=mutant.id,
        fingerprint=fp,
        kind=mutant.kind,
        spec=mutant.spec,
        ran=0,
        all_variants=settings.all_variants,
        status=Status.NO_COVERAGE,
        finished=time.time(),
    )


def run_named(mutant: Mutant, baseline: BaselineRecord, settings: Settings, fp: str) -> MutantRecord:
    """Run one named mutant; the journal record of its outcome."""
    rows = tests_for(mutant, baseline, settings.all_variants)
    if not rows:
        return not_covered(mutant, settings, fp)
    timeout = timeout_for(rows, baseline, settings)
    mutant_args = [*settings.selection, f"--cm-mutant={mutant.spec}"]
    run = run_only(
        settings, [*mutant_args, "--cm-no-shrink", "--cm-quick-killers", CALLS], [r.nodeid for r in rows], timeout
    )
    if any(r.outcome in FAILING for r in run.rows):
        status = Status.KILLED
    elif run.timed_out:
        status = Status.TIMEOUT
    elif run.returncode in (0, 5):
        status = Status.SURVIVED
    else:
        status = Status.ERROR
    return mutant_record(mutant, baseline, settings, fp, run, status, timeout, ran=len(rows), engine="")


def mutant_record(
    mutant: Mutant,
    baseline: BaselineRecord,
    settings: Settings,
    fp: str,
    run: RunOutcome,
    status: Status,
    limit: float,
    *,
    ran: int,
    engine: str,
    shrunk_before: Mapping[str, str] | None = None,
    reached_before: Mapping[str, tuple[str, ...]] | None = None,
) -> MutantRecord:
    """The journal record of a named mutant's finished run, its quickest Hypothesis killer shrunk again (unless
    ``shrunk_before`` holds that test's shrunk text: an earlier run's, its code unchanged); ``reached_before``: what
    the tests filed from an earlier run reached beyond their baseline calls there."""
    failed = [r for r in run.rows if r.outcome in FAILING]
    reached, unseen = reached_beyond(baseline, run, reached_before or {})
    keys = keys_by_function(baseline.sources)
    shrink_started = time.time()
    args = [*settings.selection, f"--cm-mutant={mutant.spec}"]
    shrunk = _shrink_one(settings, args, failed, baseline, shrunk_before or {}) if failed else {}
    shrink_seconds = time.time() - shrink_started
    return MutantRecord(
        key=mutant.id,
        fingerprint=fp,
        kind=mutant.kind,
        spec=mutant.spec,
        ran=ran,
        all_variants=settings.all_variants,
        status=status,
        timed_out=run.timed_out,
        timeout=round(limit, 1),
        exit=run.returncode,
        duration=round(run.wall + shrink_seconds, 3),
        shrink_seconds=round(shrink_seconds, 3),
        time_to_kill=round(min(r.t for r in failed) - run.started, 3) if failed else None,
        killed_by=tuple(r.nodeid for r in failed),
        failures={r.nodeid: shrunk.get(r.nodeid, r.text) for r in failed},
        shrunk=tuple(sorted(shrunk)),
        outcomes={r.nodeid: r.outcome for r in run.rows if r.outcome != Outcome.PASSED},
        timed_out_in=run.running[0] if run.timed_out and run.running else None,
        passed=sum(1 for r in run.rows if r.outcome == Outcome.PASSED),
        slowest=tuple(
            (r.nodeid, round(r.duration, 2))
            for r in sorted(run.rows, key=lambda r: -r.duration)[:5]
            if r.duration >= 1.0
        ),
        log_tail=run.stderr_tail if status == Status.ERROR else "",
        finished=time.time(),
        engine=engine,
        reached=reached,
        reached_keys={f: keys.get(f, "") for fs in reached.values() for f in fs},
        unseen=unseen,
    )


def reached_beyond(
    baseline: BaselineRecord, run: RunOutcome, before: Mapping[str, tuple[str, ...]]
) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """What each test of ``run`` called under the mutant beyond its baseline calls and the shared ones (``before``'s
    entries for the tests the run filed instead of running), and the tests whose calls went unseen: those that
    started a Python process, or every test run when the baseline recorded no calls."""
    if baseline.calls is None:
        return {}, tuple(sorted(run.calls))
    index = {r.nodeid: i for i, r in enumerate(baseline.tests)}
    functions, shared = baseline.calls.functions, set(baseline.calls.shared)

    def on_baseline(f: str, i: int | None) -> bool:
        tests = functions.get(f, ())
        k = bisect.bisect_left(tests, i) if i is not None else len(tests)
        return k < len(tests) and tests[k] == i

    reached = {t: fs for t, fs in before.items() if t not in run.calls}
    for nodeid, calls in run.calls.items():
        beyond = tuple(f for f in calls if f not in shared and not on_baseline(f, index.get(nodeid)))
        if beyond:
            reached[nodeid] = beyond
    return dict(sorted(reached.items())), tuple(sorted(run.spawned))


def run_only(settings: Settings, args: list[str], nodeids: Sequence[str], timeout: float | None) -> RunOutcome:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as fh:
        fh.write("\n".join(nodeids) + "\n")
        only = fh.name
    try:
        return run_pytest(settings, [*args, f"--cm-only={only}"], timeout)
    finally:
        os.unlink(only)


def _shrink_one(
    settings: Settings, args: list[str], failed: list[TestRow], baseline: BaselineRecord, before: Mapping[str, str]
) -> dict[str, str]:
    """Run the quickest killing test that printed a Hypothesis example again, shrinking: its minimal example
    (``before``'s text of it, when it holds one).

    Shrinking stops at ``settings.shrink_timeout`` seconds; the report then shows the example unshrunk.
    """
    durations = {r.nodeid: r.duration for r in baseline.tests}
    found = [r for r in failed if "Falsifying" in r.text or "Failing test case" in r.text]
    if not found:
        return {}
    nodeid = min(found, key=lambda r: durations.get(r.nodeid, 0.0)).nodeid
    if nodeid in before:
        return {nodeid: before[nodeid]}
    again = run_only(settings, args, [nodeid], settings.shrink_timeout)
    texts = {r.nodeid: r.text for r in again.rows if r.outcome in FAILING}
    return {nodeid: texts[nodeid]} if nodeid in texts else {}
