"""``cmharness report``: run the campaign (or merge its journals), the witness search, and write the report and the
suite's order. Exit 0 complete with nothing left alive, 1 survivors or red-first gaps, 2 usage, 3 incomplete."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from reports.campaign.dependency_keys import MEMO
from reports.campaign.extra_mutants import extra_mutants
from reports.campaign.hints import NAME as HINTS_NAME
from reports.campaign.hints import learn as learn_hints
from reports.campaign.hints import write as write_hints
from reports.campaign.journal import (
    Journal,
    compact,
    fingerprint,
    forget_journals,
    journal_name,
    load_journals,
    read_records,
)
from reports.campaign.mutmut.execute import PreparedAhead
from reports.campaign.mutmut.results import journal_records
from reports.campaign.mutmut.run import run_mutmut
from reports.campaign.mutmut.work_copy import lay_work_copy, test_keys, work_dir
from reports.campaign.named_mutants import named_mutants
from reports.campaign.named_scheduler import run_named_mutants
from reports.campaign.options import DEFAULT_BUDGET, DEFAULT_MUTMUT_PATHS, add_report_arguments, covers_default
from reports.campaign.processes import terminate_as_interrupt
from reports.campaign.progress import fmt_time
from reports.campaign.records import (
    BASELINE,
    NO_CODE,
    BaselineRecord,
    InventoryRecord,
    MutantRecord,
    MutmutRecord,
    Records,
    Status,
    WitnessRecord,
    baseline_of,
    inventory_key,
    witness_key,
)
from reports.campaign.settings import MutmutEngine, NamedEngine, Settings
from reports.campaign.suite_order import NAME as ORDER_NAME
from reports.campaign.suite_order import order_file
from reports.campaign.witness import never_red, search
from reports.errors import UsageError
from reports.exit_codes import Exit
from reports.render.outputs import REPORT_RESERVE, write
from reports.render.report_model import Report, build
from reports.render.summary import completeness, exit_status, summary_lines

#: The keys of the project's sources worked out in earlier runs (``reports.campaign.dependency_keys.KeyMemo``), in
#: the state folder.
KEYS_NAME = "source-keys.json"


def configure(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)


def run_campaign(
    settings: Settings,
    *,
    shard: tuple[int, int] | None = None,
    budget: float = DEFAULT_BUDGET,
    mutmut: bool = True,
    merge: bool = False,
    mutmut_paths: Sequence[str] = DEFAULT_MUTMUT_PATHS,
    full: bool = False,
    extra: Path | None = None,
) -> tuple[str, Records]:
    """Run what the journal does not hold yet (unless ``merge``); the fingerprint and every record."""
    start = time.time()
    deadline = start + budget - REPORT_RESERVE
    if full and not merge:
        forget(settings)
    fp = fingerprint(settings)
    if not merge:
        extras = extra_mutants(extra) if extra else []
        patches = {m.id: extra / f"{m.id.removeprefix('extra:')}.patch" for m in extras} if extra else {}
        ahead = prepare_ahead(settings, fp, deadline) if mutmut else None
        try:  # the preparation beside the baseline is stopped however the runs end
            done = run_named_mutants(
                settings, named_mutants() + extras, shard=shard, fp=fp, deadline=deadline, patches=patches
            )
            if mutmut:
                journaled = [r for r in done.values() if isinstance(r, MutmutRecord)]
                result = run_mutmut(
                    settings,
                    fp,
                    baseline_of(done),
                    deadline - time.time(),
                    shard,
                    mutmut_paths,
                    ahead=ahead,
                    journaled=journaled,
                )
        finally:
            if ahead is not None:
                ahead.stop()
        if mutmut:
            journal = Journal(settings.journal_dir, journal_name(shard))
            journal_records(journal, result.records, done)
            for path in mutmut_paths:  # one inventory per folder: runs over other folders add to the report
                key = inventory_key(journal_name(shard), path)
                names = sorted(n for n in result.names if n.split(".", 1)[0] == path)
                inventory = InventoryRecord(key, fp, tuple(names), path, result.note)
                old = done.get(key)
                if not isinstance(old, InventoryRecord) or (old.names, old.note) != (inventory.names, inventory.note):
                    journal.write(inventory)
            if settings.progress:
                checked = (
                    f"{len(result.names) - result.pending} of {len(result.names)} mutants checked"
                    if result.names
                    else "not started"
                )
                settings.progress.write(
                    f"mutmut: {checked} ({fmt_time(result.seconds)})"
                    + (f"; {result.note}" if result.note else "")
                    + "\n"
                )
            if result.interrupted:
                raise KeyboardInterrupt
        complete = (
            mutmut
            and covers_default(mutmut_paths)
            and not result.pending
            and all(m.id in done for m in named_mutants() + extras)
        )
        if complete and shard is None:  # the search reads every result: it runs on a finished full main pass only
            witnesses(settings, fp, done, journal_name(shard), deadline, mutmut)
    records = load_journals(settings.journal_dir, fp)
    if BASELINE not in records:
        raise UsageError(f"no baseline journaled for fingerprint {fp} in {settings.journal_dir}: run the campaign")
    return fp, records


def prepare_ahead(settings: Settings, fp: str, deadline: float) -> Any:
    """A cold mutmut work copy is prepared beside the baseline (``reports.campaign.mutmut.execute.PreparedAhead``); a
    warm
    one (an incremental run) is brought up to date where mutmut runs, after the baseline."""
    if (work_dir(settings) / "mutants").is_dir() or settings.mutmut_engine is MutmutEngine.MUTMUT:
        return None
    work, _ = lay_work_copy(settings)
    if settings.progress:
        settings.progress.write("mutmut: generating the mutants and their coverage beside the baseline\n")
    return PreparedAhead(settings, work, deadline)


def witnesses(settings: Settings, fp: str, done: Records, journal: str, deadline: float, mutmut: bool) -> None:
    """The red-first witness search over the tests the main pass never saw red (``reports.campaign.witness``)."""
    pending = {b for b in never_red(done) if witness_key(b) not in done}
    out = Journal(settings.journal_dir, journal)
    for rec in kept_witnesses(settings, done, pending, fp):
        out.write(rec)
        done[rec.key] = rec
        pending.discard(rec.base)
    if not pending or deadline - time.time() < 10:
        return
    if settings.progress:
        settings.progress.write(f"witnesses: searching a red-first witness for {len(pending)} never-red test(s)\n")
        settings.progress.flush()
    started = time.time()
    work = work_dir(settings) if mutmut and work_dir(settings).is_dir() else None
    found = 0
    for rec in search(settings, done, fp, work, deadline):
        if rec.test:
            rec = replace(rec, deps=test_keys(settings, [rec.test])[rec.test])
        if done.get(rec.key) != rec:
            out.write(rec)
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


def forget(settings: Settings) -> None:
    """``--full``: drop every journal and mutmut's work copy, so that everything runs cold."""
    forget_journals(settings.journal_dir)
    shutil.rmtree(settings.mutmut_dir, ignore_errors=True)


def searched_after_merge(records: Records, fp: str, scope: Sequence[str], extra: Path | None) -> bool:
    """Whether merged shards hold a complete main pass over every folder that no witness search has followed.

    Then ``--merge`` does what one run does after its main pass, and only that (every result is journaled, so
    nothing runs again): mutmut's preparation, for the coverage the search reads, and the red-first witness
    search; so the merged report is the one a single run writes.
    """
    if not covers_default(scope) or any(isinstance(r, WitnessRecord) for r in records.values()):
        return False
    report = build(records, fp, named_mutants() + (extra_mutants(extra) if extra else []), scope=scope)
    return completeness(report).complete


def order_by_kills(report: Report, records: Records) -> dict[str, Any]:
    """The suite's order for the next runs (read by ``invariants.plugin``), see ``reports.campaign.suite_order``."""
    return order_file(records, report.fp)


def write_order(report: Report, records: Records, path: Path) -> Path:
    path.write_text(json.dumps(order_by_kills(report, records), indent=1) + "\n", encoding="utf-8")
    return path


def run(args: Any, stdout: TextIO) -> int:
    """The subcommand: exit 0 complete with nothing left alive, 1 survivors or red-first gaps, 3 incomplete."""
    settings = Settings()
    if getattr(args, "named_engine", None):
        settings.named_engine = NamedEngine(args.named_engine)
    if getattr(args, "mutmut_engine", None):
        settings.mutmut_engine = MutmutEngine(args.mutmut_engine)
    if getattr(args, "state_dir", None):
        settings.state_dir = Path(args.state_dir).resolve()
    if args.out:
        settings.out = Path(args.out).resolve()
    if args.workers:
        settings.workers = args.workers
    settings.all_variants = bool(args.all_variants)
    shard = args.shard  # parsed by reports.campaign.shard_argument
    scope = () if args.no_mutmut else tuple(args.mutmut_paths)
    extra = Path(args.extra_mutants).resolve() if getattr(args, "extra_mutants", None) else None
    if extra is not None and not extra.is_dir():
        raise UsageError(f"--extra-mutants {args.extra_mutants}: not a folder")
    start = time.time()
    interrupted = False
    MEMO.load(settings.state_dir / KEYS_NAME)
    try:
        with terminate_as_interrupt():
            fp, records = run_campaign(
                settings,
                shard=shard,
                budget=args.budget,
                mutmut=not args.no_mutmut,
                merge=args.merge,
                mutmut_paths=tuple(args.mutmut_paths),
                full=bool(getattr(args, "full", False)),
                extra=extra,
            )
            if args.merge and searched_after_merge(records, fp, scope, extra):
                fp, records = run_campaign(
                    settings, budget=args.budget, mutmut_paths=tuple(args.mutmut_paths), extra=extra
                )
    except KeyboardInterrupt:
        print("cmharness report: interrupted; what finished is journaled, run it again to resume", file=sys.stderr)
        interrupted = True
        fp = fingerprint(settings)
        records = load_journals(settings.journal_dir, fp)
        if BASELINE not in records:
            return Exit.INCOMPLETE
    MEMO.save()
    report = build(records, fp, named_mutants() + (extra_mutants(extra) if extra else []), scope=scope)
    paths = write(report, settings.out, settings.root)
    if completeness(report).complete and shard is None and covers_default(scope):
        compact(settings.journal_dir, journal_name(None), fp)  # what a later run reads: this report's records
        # only a full report ranks the tests and leaves hints, in the state folder (mutation/ has the reviewed copies)
        settings.state_dir.mkdir(parents=True, exist_ok=True)
        paths.append(write_order(report, records, settings.state_dir / ORDER_NAME))
        paths.append(write_hints(learn_hints(records), settings.state_dir / HINTS_NAME))
    stdout.write("\n".join(summary_lines(report)) + "\n")
    shown = [str(p.relative_to(settings.root)) if p.is_relative_to(settings.root) else str(p) for p in paths]
    stdout.write(f"wrote {', '.join(shown)} in {fmt_time(time.time() - start)}\n")
    return Exit.INCOMPLETE if interrupted else exit_status(report)
