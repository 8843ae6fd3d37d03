"""Phase 3, mutmut's operator mutants over the chosen folders (``reports.campaign.mutmut``): prepared beside the
baseline when the work copy is cold, run until done or the deadline, each folder's inventory journaled."""

from __future__ import annotations

from collections.abc import Sequence

from reports.campaign.journal import journal_name
from reports.campaign.mutmut.execute import PreparedAhead
from reports.campaign.mutmut.results import coverage_record, journal_records
from reports.campaign.mutmut.run import MutmutResult, run_mutmut
from reports.campaign.mutmut.work_copy import lay_work_copy, work_dir
from reports.campaign.progress import fmt_time
from reports.campaign.records import (
    BaselineRecord,
    InventoryRecord,
    MutmutRecord,
    Records,
    coverage_key,
    inventory_key,
)
from reports.campaign.run_context import RunContext
from reports.campaign.settings import MutmutEngine, Settings


def prepare_ahead(settings: Settings, ctx: RunContext) -> PreparedAhead | None:
    """A cold work copy is prepared beside the baseline; a warm one (an incremental run) is brought up to date where
    mutmut runs, after the baseline."""
    if (work_dir(settings) / "mutants").is_dir() or settings.mutmut_engine is MutmutEngine.MUTMUT:
        return None
    work, _ = lay_work_copy(settings)
    if settings.progress:
        settings.progress.write("mutmut: generating the mutants and their coverage beside the baseline\n")
    return PreparedAhead(settings, work, ctx.deadline if ctx.deadline is not None else float("inf"))


def run(
    settings: Settings,
    ctx: RunContext,
    baseline: BaselineRecord,
    done: Records,
    paths: Sequence[str],
    ahead: PreparedAhead | None,
) -> MutmutResult:
    """mutmut over ``paths`` (the mutants of the run's shard) until done or the deadline; its records and one inventory
    a folder journaled and added to ``done``. Ctrl-C or SIGTERM re-raises as ``KeyboardInterrupt`` once journaled."""
    journaled = [r for r in done.values() if isinstance(r, MutmutRecord)]
    result = run_mutmut(
        settings, ctx.fp, baseline, ctx.seconds_left(), ctx.shard, paths, ahead=ahead, journaled=journaled
    )
    journal_records(ctx.journal, result.records, done)
    coverage = coverage_key(journal_name(ctx.shard))
    measured = coverage_record(work_dir(settings), ctx.fp, coverage, baseline)
    if measured is not None and measured != done.get(coverage):  # for the report's coveredBy
        ctx.journal.write(measured)
        done[coverage] = measured
    for path in paths:  # one inventory per folder: runs over other folders add to the report
        key = inventory_key(journal_name(ctx.shard), path)
        names = sorted(n for n in result.names if n.split(".", 1)[0] == path)
        inventory = InventoryRecord(key, ctx.fp, tuple(names), path, result.note)
        old = done.get(key)
        if not isinstance(old, InventoryRecord) or (old.names, old.note) != (inventory.names, inventory.note):
            ctx.journal.write(inventory)
    if settings.progress:
        checked = (
            f"{len(result.names) - result.pending} of {len(result.names)} mutants checked"
            if result.names
            else "not started"
        )
        settings.progress.write(
            f"mutmut: {checked} ({fmt_time(result.seconds)})" + (f"; {result.note}" if result.note else "") + "\n"
        )
    if result.interrupted:
        raise KeyboardInterrupt
    return result
