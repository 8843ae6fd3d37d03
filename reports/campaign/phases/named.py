"""Phase 2, the named mutants in parallel: what the journal holds is skipped, what its dependency key shows
unchanged is kept, the rest runs (warm children by default) until done or the deadline."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import replace
from pathlib import Path
from typing import Any

from reports.campaign.dependency_keys import keys_by_function, named_key, settings_part
from reports.campaign.extra_mutants import key, run_extra
from reports.campaign.journal import read_records
from reports.campaign.named_mutants import Mutant, in_shard, tests_for
from reports.campaign.named_warm import Earlier, run_warm
from reports.campaign.processes import kill_all, terminate_as_interrupt
from reports.campaign.progress import Progress
from reports.campaign.records import FAILING, BaselineRecord, MutantRecord, Outcome, Records, Status, TestRow
from reports.campaign.run_context import RunContext
from reports.campaign.runs import run_named
from reports.campaign.settings import NamedEngine, Settings


def _rows(settings: Settings, mutant: Mutant, baseline: BaselineRecord, patched: bool) -> list[TestRow]:
    """The baseline rows a mutant runs: an extra patch every test that passed, a named mutant ``tests_for``'s."""
    if patched:
        return [r for r in baseline.tests if r.outcome == Outcome.PASSED]
    return tests_for(mutant, baseline, settings.all_variants)


def _key(settings: Settings, mutant: Mutant, rows: Sequence[TestRow], patch: Path | None) -> str:
    nodeids = [r.nodeid for r in rows]
    if patch is not None:
        return key(settings, patch.read_text(encoding="utf-8"), nodeids)
    return named_key(
        settings.root, mutant.spec, nodeids, settings_part(settings.selection, settings.profile, settings.all_variants)
    )


def earlier_runs(directory: Path, pending: Sequence[Mutant], keys: dict[str, str]) -> dict[str, MutantRecord]:
    """The last record of an earlier run (any fingerprint) of each pending named mutant whose dependency key (its
    switches' sites, its tests, the settings) is unchanged, by id."""
    wanted = {(m.id, keys[m.id]) for m in pending}
    found: dict[str, MutantRecord] = {}
    for r in read_records(directory):
        newer = isinstance(r, MutantRecord) and (r.key not in found or r.finished >= found[r.key].finished)
        if newer and (r.key, r.deps) in wanted:
            found[r.key] = r
    return found


def changed_since(record: MutantRecord, rows: Sequence[TestRow], keys: Mapping[str, str], rerun: float) -> set[str]:
    """The tests of ``rows`` (a mutant's, on this baseline) whose code changed since ``record`` was made, so that
    what they do under the mutant may have too: those that ran again on the baseline after it, those that reached a
    function under the mutant, beyond their baseline calls, whose key (``keys``, now) differs from the record's, and
    those whose calls it could not see, when any test ran again on the baseline after it (``rerun``: the last time
    one did)."""
    moved = {f for f, k in record.reached_keys.items() if keys.get(f) != k}
    unseen = set(record.unseen) if rerun > record.finished else set()
    return {
        r.nodeid
        for r in rows
        if r.t > record.finished or r.nodeid in unseen or not moved.isdisjoint(record.reached.get(r.nodeid, ()))
    }


def earlier_of(record: MutantRecord, rows: Sequence[TestRow], changed: set[str]) -> Earlier:
    """What ``record`` tells a run of its mutant again: its rows of the tests not ``changed`` (a shrunk failure's
    test runs again too, for its own text), and its shrunk texts of unchanged tests."""
    again = changed | set(record.shrunk)
    slowest = dict(record.slowest)
    known = []
    for r in rows:
        if r.nodeid in again:
            continue
        outcome = record.outcomes.get(r.nodeid, Outcome.PASSED)
        text = record.failures.get(r.nodeid, "") if outcome in FAILING else ""
        known.append(TestRow(r.nodeid, outcome, slowest.get(r.nodeid, 0.0), 0.0, r.nodeid, r.file, None, text=text))
    shrunk = {n: record.failures[n] for n in record.shrunk if n not in changed and n in record.failures}
    reached = {r.nodeid: record.reached[r.nodeid] for r in known if r.nodeid in record.reached}
    return Earlier(tuple(known), shrunk, reached)


def _carried_over(
    settings: Settings,
    baseline: BaselineRecord,
    pending: Sequence[Mutant],
    keys: dict[str, str],
    rows_of: dict[str, list[TestRow]],
    patches: dict[str, Path],
    fp: str,
) -> tuple[list[MutantRecord], dict[str, Earlier], list[str]]:
    """The earlier records kept as they are (no test of theirs ran again on the baseline since), carried over to
    ``fp``; what the others tell a run that files the rows of their unchanged tests (the warm engine's named
    mutants that ended killed or survived); and the ids of the rest, which run again whole."""
    kept: list[MutantRecord] = []
    replay: dict[str, Earlier] = {}
    whole: list[str] = []
    earlier = earlier_runs(settings.journal_dir, pending, keys)
    now = keys_by_function(baseline.sources)
    rerun = max((r.t for r in baseline.tests), default=0.0)
    for m, rec in ((m, earlier[m.id]) for m in pending if m.id in earlier):
        rows = rows_of[m.id]
        changed = changed_since(rec, rows, now, rerun)
        if not changed:
            kept.append(replace(rec, fingerprint=fp))
        elif (
            settings.named_engine is NamedEngine.WARM
            and m.id not in patches
            and rec.status in (Status.KILLED, Status.SURVIVED)
            and not rec.timed_out
        ):
            replay[m.id] = earlier_of(rec, rows, changed)
        else:
            whole.append(m.id)
    return kept, replay, whole


def run(
    settings: Settings,
    ctx: RunContext,
    mutants: Sequence[Mutant],
    baseline: BaselineRecord,
    done: Records,
    *,
    on_record: Callable[[MutantRecord], None] | None = None,
    patches: dict[str, Path] | None = None,
) -> Records:
    """Every pending named mutant of the run's shard, in parallel, each journaled as it finishes; ``done`` (the
    journaled records of the fingerprint, all shards, by id) gains them and is returned.

    At the run's deadline the runs still going are stopped and not journaled: the next campaign runs them.
    """
    with terminate_as_interrupt():
        return _run(settings, ctx, mutants, baseline, done, on_record, patches or {})


def _run(
    settings: Settings,
    ctx: RunContext,
    mutants: Sequence[Mutant],
    baseline: BaselineRecord,
    done: Records,
    on_record: Callable[[MutantRecord], None] | None,
    patches: dict[str, Path],
) -> Records:
    journal, deadline = ctx.journal, ctx.deadline
    mine = in_shard([m.id for m in mutants], ctx.shard) if ctx.shard else [m.id for m in mutants]
    pending = [m for m in mutants if m.id in set(mine) and m.id not in done]
    if settings.progress and len(pending) < len(mine):
        settings.progress.write(
            f"resuming: {len(mine) - len(pending)} of {len(mine)} named mutants already journaled\n"
        )
    rows_of = {m.id: _rows(settings, m, baseline, m.id in patches) for m in pending}
    keys = {m.id: _key(settings, m, rows_of[m.id], patches.get(m.id)) for m in pending}
    kept, replay, whole = _carried_over(settings, baseline, pending, keys, rows_of, patches, ctx.fp)
    for rec in kept:
        journal.write(rec)
        done[rec.key] = rec
    if settings.progress and (kept or replay or whole):
        rerun = [m.id for m in pending if m.id not in done and m.id not in replay]
        settings.progress.write(
            f"incremental: {len(kept)} named mutant(s) kept (their switch sites and tests are unchanged, and the "
            f"code their tests call); {len(replay)} run again on the tests whose code changed"
            + (f" ({sum(len(e.rows) for e in replay.values())} test run(s) filed as before)" if replay else "")
            + f"; {len(rerun)} re-run"
            + (f": {', '.join(rerun)}" if rerun else "")
            + "\n"
        )
    pending = [m for m in pending if m.id not in done]
    progress = Progress(len(pending), settings.workers, settings.progress, "named mutants")
    workers = max(1, min(settings.workers, len(pending)))
    halted = threading.Event()

    def one(mutant: Mutant) -> MutantRecord | None:
        if halted.is_set():
            return None
        if mutant.id in patches:
            return run_extra(mutant, patches[mutant.id], baseline, settings, ctx.fp)
        return replace(run_named(mutant, baseline, settings, ctx.fp), deps=keys[mutant.id])

    def halt() -> None:
        halted.set()
        for fut in futures:
            fut.cancel()
        kill_all()

    if settings.named_engine is NamedEngine.WARM:
        warm = [m for m in pending if m.id not in patches]
        for record in run_warm(settings, warm, baseline, ctx.fp, deadline, replay):
            record = replace(record, deps=keys[record.key])
            journal.write(record)
            done[record.key] = record
            progress.finished(record.key, record)
            if on_record:
                on_record(record)
        left = [m.id for m in warm if m.id not in done]
        if left and settings.progress:
            settings.progress.write(f"budget reached: {len(left)} named mutant(s) left for the next run\n")
        pending = [m for m in pending if m.id in patches]
        if left:
            return done
    pool = ThreadPoolExecutor(max_workers=workers)
    futures: dict[Any, Mutant] = {}
    try:
        futures = {pool.submit(one, m): m for m in pending}
        wait = None if deadline is None else max(0.0, deadline - time.time())
        try:
            for fut in as_completed(futures, timeout=wait):
                record = fut.result()
                if record is None:
                    continue
                journal.write(record)
                done[record.key] = record
                progress.finished(record.key, record)
                if on_record:
                    on_record(record)
        except FuturesTimeout:
            if settings.progress:
                left = sum(1 for f in futures if not f.done())
                settings.progress.write(f"budget reached: {left} named mutant(s) left for the next run\n")
            halt()
    except BaseException:
        halt()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return done
