"""Phase 4, the red-first witness search (``reports.campaign.witness_search``) over the tests the main pass never saw
red; an earlier run's witness is kept while the test's sources are unchanged and its witness still killed."""

from __future__ import annotations

import time
from dataclasses import replace

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
    witness_key,
)
from reports.campaign.run_context import RunContext
from reports.campaign.settings import Settings
from reports.campaign.witness_search import never_red, search

#: Below this many seconds left the search does not start.
MIN_SECONDS = 10


def run(settings: Settings, ctx: RunContext, done: Records, mutmut: bool) -> None:
    """A witness for each never-red test without one, journaled and added to ``done``; ``mutmut`` whether mutmut's
    work copy (its coverage) may be read."""
    pending = {b for b in never_red(done) if witness_key(b) not in done}
    for rec in kept_witnesses(settings, done, pending, ctx.fp):
        ctx.journal.write(rec)
        done[rec.key] = rec
        pending.discard(rec.base)
    if not pending or ctx.seconds_left() < MIN_SECONDS:
        return
    if settings.progress:
        settings.progress.write(f"witnesses: searching a red-first witness for {len(pending)} never-red test(s)\n")
        settings.progress.flush()
    started = time.time()
    work = work_dir(settings) if mutmut and work_dir(settings).is_dir() else None
    found = 0
    for rec in search(settings, done, ctx.fp, work, ctx.deadline if ctx.deadline is not None else float("inf")):
        if rec.test:
            rec = replace(rec, deps=test_keys(settings, [rec.test])[rec.test])
        if done.get(rec.key) != rec:
            ctx.journal.write(rec)
            done[rec.key] = rec
            found += bool(rec.witness)
    if settings.progress:
        settings.progress.write(f"witnesses: {found} found ({fmt_time(time.time() - started)})\n")


def kept_witnesses(settings: Settings, done: Records, pending: set[str], fp: str) -> list[WitnessRecord]:
    """Witnesses of earlier runs still good: the test's sources unchanged and its witness still killed. So is a test's
    finding that it calls no mutated function, when its sources are unchanged and the baseline was carried over in
    part: then only functions the coverage traces changed, and a test that calls none of them runs the same code."""
    partial = isinstance(base := done.get(BASELINE), BaselineRecord) and base.reused > 0
    previous = {
        rec.base: rec
        for rec in read_records(settings.journal_dir)
        if isinstance(rec, WitnessRecord)
        and rec.test
        and rec.base in pending
        and (rec.witness or (partial and rec.reason == NO_CODE))
    }
    keys = test_keys(settings, [r.test for r in previous.values() if r.test])
    return [
        replace(rec, fingerprint=fp)
        for rec in previous.values()
        if rec.test
        and keys.get(rec.test) == rec.deps
        and (
            rec.witness is None
            or (
                isinstance(witness := done.get(rec.witness), MutantRecord | MutmutRecord)
                and witness.status == Status.KILLED
            )
        )
    ]
