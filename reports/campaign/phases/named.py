"""Phase 2, the named mutants in parallel: what the journal holds is skipped, what its dependency key shows
unchanged is kept, the rest runs (warm children by default) until done or the deadline."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import replace
from pathlib import Path
from typing import Any

from reports.campaign.dependency_keys import named_key, settings_part
from reports.campaign.extra_mutants import key, run_extra
from reports.campaign.journal import read_records
from reports.campaign.named_mutants import Mutant, in_shard, tests_for
from reports.campaign.named_warm import run_warm
from reports.campaign.processes import kill_all, terminate_as_interrupt
from reports.campaign.progress import Progress
from reports.campaign.records import BaselineRecord, MutantRecord, Outcome, Records
from reports.campaign.run_context import RunContext
from reports.campaign.runs import run_named
from reports.campaign.settings import NamedEngine, Settings


def _key(settings: Settings, mutant: Mutant, baseline: BaselineRecord, patch: Path | None) -> str:
    if patch is not None:
        return key(
            settings,
            patch.read_text(encoding="utf-8"),
            [r.nodeid for r in baseline.tests if r.outcome == Outcome.PASSED],
        )
    nodeids = [r.nodeid for r in tests_for(mutant, baseline, settings.all_variants)]
    return named_key(
        settings.root, mutant.spec, nodeids, settings_part(settings.selection, settings.profile, settings.all_variants)
    )


def reuse_unchanged(directory: Path, pending: Sequence[Mutant], keys: dict[str, str], fp: str) -> list[MutantRecord]:
    """Records of earlier runs (any fingerprint) of the pending named mutants whose dependency key is unchanged,
    carried over to fingerprint ``fp``."""
    wanted = {(m.id, keys[m.id]) for m in pending}
    found = {r.key: r for r in read_records(directory) if isinstance(r, MutantRecord) and (r.key, r.deps) in wanted}
    return [replace(found[m.id], fingerprint=fp) for m in pending if m.id in found]


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
    keys = {m.id: _key(settings, m, baseline, patches.get(m.id)) for m in pending}
    kept = reuse_unchanged(settings.journal_dir, pending, keys, ctx.fp)
    for rec in kept:
        journal.write(rec)
        done[rec.key] = rec
    if settings.progress and kept:
        rerun = [m.id for m in pending if m.id not in done]
        settings.progress.write(
            f"incremental: {len(kept)} named mutant(s) kept (their switch sites and tests are "
            f"unchanged); {len(rerun)} re-run" + (f": {', '.join(rerun)}" if rerun else "") + "\n"
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
        for record in run_warm(settings, warm, baseline, ctx.fp, deadline):
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
