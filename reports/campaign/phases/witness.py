"""Phase 4, the red-first witness search (``reports.campaign.witness_search``) over the tests the main pass never saw
red; an earlier run's witness is kept where this run's search would find it again: the test and the code it runs
unchanged, and its witness still killed and the mutant the search tries first."""

from __future__ import annotations

import time
from dataclasses import replace

from reports.campaign.dependency_keys import digest
from reports.campaign.journal import read_records
from reports.campaign.mutmut.work_copy import test_keys, work_dir
from reports.campaign.progress import fmt_time
from reports.campaign.records import (
    BASELINE,
    NO_CODE,
    BaselineRecord,
    MutantRecord,
    MutmutRecord,
    Records,
    Status,
    WitnessRecord,
    baseline_of,
    witness_key,
)
from reports.campaign.run_context import RunContext
from reports.campaign.settings import Settings
from reports.campaign.witness_search import never_red, planned, search

#: Below this many seconds left the search does not start.
MIN_SECONDS = 10


def run(settings: Settings, ctx: RunContext, done: Records, mutmut: bool) -> None:
    """A witness for each never-red test without one, journaled and added to ``done``; ``mutmut`` whether mutmut's
    work copy (its coverage) may be read."""
    pending = {b for b in never_red(done) if witness_key(b) not in done}
    work = work_dir(settings) if mutmut and work_dir(settings).is_dir() else None
    the_search = planned(done, work, pending)
    for rec in kept_witnesses(settings, done, pending, ctx.fp, the_search.first_tried()):
        ctx.journal.write(rec)
        done[rec.key] = rec
        pending.discard(rec.base)
    if not pending or ctx.seconds_left() < MIN_SECONDS:
        return
    if settings.progress:
        settings.progress.write(f"witnesses: searching a red-first witness for {len(pending)} never-red test(s)\n")
        settings.progress.flush()
    started = time.time()
    found = 0
    deadline = ctx.deadline if ctx.deadline is not None else float("inf")
    results = search(settings, done, ctx.fp, work, deadline, the_search.only(pending))
    deps = witness_deps(settings, baseline_of(done), [r.test for r in results if r.test])
    for rec in results:
        if rec.test:
            rec = replace(rec, deps=deps[rec.test])
        if done.get(rec.key) != rec:
            ctx.journal.write(rec)
            done[rec.key] = rec
            found += bool(rec.witness)
    if settings.progress:
        settings.progress.write(f"witnesses: {found} found ({fmt_time(time.time() - started)})\n")


def witness_deps(settings: Settings, baseline: BaselineRecord, nodeids: list[str]) -> dict[str, str]:
    """What a witness search's finding for each test depends on: the test's sources and its baseline run (a test
    whose code under test changed ran again on the baseline, at another time; a kept row keeps its time)."""
    keys = test_keys(settings, nodeids)
    started = {r.nodeid: r.t for r in baseline.tests}
    return {n: digest(keys[n], repr(started.get(n))) for n in nodeids}


def kept_witnesses(
    settings: Settings, done: Records, pending: set[str], fp: str, first: dict[str, str]
) -> list[WitnessRecord]:
    """Witnesses of earlier runs that this run's search would find again: the test and the code it runs unchanged
    (``witness_deps``), its witness still killed and the mutant its search tries first (``first``, by base), so that
    a report carried over from earlier runs names the witness a fresh clone's names. So is a test's finding that it
    calls no mutated function, when it is unchanged and the baseline was carried over in part: then only functions
    the coverage traces changed, and a test that calls none of them runs the same code."""
    partial = isinstance(base := done.get(BASELINE), BaselineRecord) and base.reused > 0
    previous = {
        rec.base: rec
        for rec in read_records(settings.journal_dir)
        if isinstance(rec, WitnessRecord)
        and rec.test
        and rec.base in pending
        and (rec.witness or (partial and rec.reason == NO_CODE))
    }
    keys = witness_deps(settings, baseline_of(done), [r.test for r in previous.values() if r.test])
    return [
        replace(rec, fingerprint=fp)
        for rec in previous.values()
        if rec.test
        and keys.get(rec.test) == rec.deps
        and (
            rec.witness is None
            or (
                first.get(rec.base) == rec.witness
                and isinstance(witness := done.get(rec.witness), MutantRecord | MutmutRecord)
                and witness.status == Status.KILLED
            )
        )
    ]
