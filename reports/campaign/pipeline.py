"""The campaign behind ``cmharness report``, its phases composed in order (``reports.campaign.phases``): the
baseline, the named mutants, mutmut's mutants (prepared beside the baseline), and the red-first witness search.

A shard is the same pipeline over its slice of the mutants, without the witness search; ``--merge`` runs no phase
and reads every shard's journal, then, when they hold a complete main pass, runs the pipeline once more: every
verdict is journaled, so only what a single run does after its main pass runs (mutmut's coverage, the search).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from reports.campaign.dependency_keys import MEMO
from reports.campaign.extra_mutants import extra_mutants
from reports.campaign.fingerprint import fingerprint
from reports.campaign.hints import NAME as HINTS_NAME
from reports.campaign.hints import learn as learn_hints
from reports.campaign.hints import write as write_hints
from reports.campaign.journal import compact, forget_journals, journal_name, load_journals
from reports.campaign.named_mutants import Mutant, named_mutants
from reports.campaign.options import DEFAULT_BUDGET, DEFAULT_MUTMUT_PATHS, covers_default
from reports.campaign.phases import baseline, mutmut, named, witness
from reports.campaign.records import BASELINE, Kind, Records, WitnessRecord
from reports.campaign.run_context import RunContext
from reports.campaign.settings import Settings
from reports.campaign.suite_order import NAME as ORDER_NAME
from reports.campaign.suite_order import order_file
from reports.errors import UsageError

#: The keys of the project's sources worked out in earlier runs (``reports.campaign.dependency_keys.KeyMemo``), in
#: the state folder.
KEYS_NAME = "source-keys.json"


@dataclass(frozen=True)
class Plan:
    """What a report run asks for: its shard, its seconds, whether mutmut runs and over which folders, a merge, a cold
    start, the extra mutants' folder."""

    shard: tuple[int, int] | None = None
    seconds: float = DEFAULT_BUDGET
    mutmut: bool = True
    merge: bool = False
    mutmut_paths: Sequence[str] = DEFAULT_MUTMUT_PATHS
    full: bool = False
    extra: Path | None = None

    @property
    def scope(self) -> tuple[str, ...]:
        """The folders whose mutmut results the report is about (none without mutmut)."""
        return tuple(self.mutmut_paths) if self.mutmut else ()

    def mutants(self) -> list[Mutant]:
        """The named mutants and the extra ones: what the report expects a verdict for."""
        return named_mutants() + (extra_mutants(self.extra) if self.extra else [])


@dataclass(frozen=True)
class Outcome:
    """A campaign's end: the fingerprint, every journaled record of it, and whether Ctrl-C or SIGTERM stopped it."""

    fp: str
    records: Records
    interrupted: bool = False


def run(settings: Settings, plan: Plan, main_pass_complete: Callable[[Records, str], bool]) -> Outcome:
    """Run what the journal does not hold yet (with ``plan.merge``, nothing, then what a merge of a complete main pass
    needs: ``main_pass_complete`` says whether the records hold one). Interrupted, what finished is journaled."""
    MEMO.load(settings.state_dir / KEYS_NAME)
    try:
        fp, records = _campaign(settings, plan)
        if plan.merge and _needs_search(records, fp, plan, main_pass_complete):
            fp, records = _campaign(settings, replace(plan, merge=False, shard=None, mutmut=True, full=False))
        return Outcome(fp, records)
    except KeyboardInterrupt:
        fp = fingerprint(settings)
        return Outcome(fp, load_journals(settings.journal_dir, fp), interrupted=True)
    finally:
        MEMO.save()


def _campaign(settings: Settings, plan: Plan) -> tuple[str, Records]:
    if plan.full and not plan.merge:
        forget(settings)
    ctx = RunContext.start(settings, plan.shard, time.time() + plan.seconds)
    if not plan.merge:
        mutants = plan.mutants()
        patches = {
            m.id: Path(plan.extra, m.id.removeprefix("extra:") + ".patch")
            for m in mutants
            if plan.extra and m.kind == Kind.EXTRA
        }
        done = load_journals(settings.journal_dir, ctx.fp)
        ahead = mutmut.prepare_ahead(settings, ctx) if plan.mutmut else None
        try:  # the preparation beside the baseline is stopped however the runs end
            base = baseline.run(settings, ctx, done)
            named.run(settings, ctx, mutants, base, done, patches=patches)
            result = mutmut.run(settings, ctx, base, done, plan.mutmut_paths, ahead) if plan.mutmut else None
        finally:
            if ahead is not None:
                ahead.stop()
        main_pass = (
            result is not None
            and covers_default(plan.mutmut_paths)
            and not result.pending
            and all(m.id in done for m in mutants)
        )
        if main_pass and plan.shard is None:  # the search reads every result: it runs on a finished main pass only
            witness.run(settings, ctx, done, plan.mutmut)
    records = load_journals(settings.journal_dir, ctx.fp)
    if BASELINE not in records:
        raise UsageError(f"no baseline journaled for fingerprint {ctx.fp} in {settings.journal_dir}: run the campaign")
    return ctx.fp, records


def _needs_search(records: Records, fp: str, plan: Plan, main_pass_complete: Callable[[Records, str], bool]) -> bool:
    """Whether merged shards hold a complete main pass over every folder that no witness search has followed."""
    if not covers_default(plan.scope) or any(isinstance(r, WitnessRecord) for r in records.values()):
        return False
    return main_pass_complete(records, fp)


def forget(settings: Settings) -> None:
    """``--full``: drop every journal and mutmut's work copy, so that everything runs cold."""
    forget_journals(settings.journal_dir)
    shutil.rmtree(settings.mutmut_dir, ignore_errors=True)


def learn(settings: Settings, records: Records, fp: str) -> list[Path]:
    """After a complete full report: the journal compacted to its records, and what the next runs read (the suite's
    order, where verdicts were found) written to the state folder (``mutation/`` has the reviewed copies)."""
    compact(settings.journal_dir, journal_name(None), fp)
    settings.state_dir.mkdir(parents=True, exist_ok=True)
    order = settings.state_dir / ORDER_NAME
    order.write_text(json.dumps(order_file(records, fp), indent=1) + "\n", encoding="utf-8")
    return [order, write_hints(learn_hints(records), settings.state_dir / HINTS_NAME)]
