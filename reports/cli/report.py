"""``cmharness report``: parse the options, run the campaign (``reports.campaign.pipeline``), write the report and print
its verdict. Exit 0 complete with nothing left alive, 1 something needs attention, 2 usage, 3 incomplete."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from reports.campaign import pipeline
from reports.campaign.extra_mutants import not_a_patch
from reports.campaign.hints import NAME as HINTS_NAME
from reports.campaign.hints import committed_hints, committed_path, gone_tests
from reports.campaign.named_mutants import Mutant
from reports.campaign.options import add_report_arguments, covers_default
from reports.campaign.processes import terminate_as_interrupt
from reports.campaign.progress import fmt_time
from reports.campaign.records import BASELINE, Records
from reports.campaign.settings import MutmutEngine, NamedEngine, Settings
from reports.errors import UsageError
from reports.exit_codes import Exit
from reports.render.outputs import REPORT_RESERVE, write
from reports.render.report_model import build
from reports.render.summary import completeness, exit_status, summary_lines


def configure(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)


def settings_from(args: Any) -> Settings:
    """Where and how the campaign runs, from the options (an option not given keeps its default)."""
    base = Settings()
    named, engine, state = getattr(args, "named_engine", None), getattr(args, "mutmut_engine", None), args.state_dir
    return replace(
        base,
        named_engine=NamedEngine(named) if named else base.named_engine,
        mutmut_engine=MutmutEngine(engine) if engine else base.mutmut_engine,
        state_dir=Path(state).resolve() if state else base.state_dir,
        out=Path(args.out).resolve() if args.out else base.out,
        workers=args.workers or base.workers,
        all_variants=bool(args.all_variants),
    )


def plan_from(args: Any) -> pipeline.Plan:
    """What the run asks for, from the options (``--shard`` is parsed by ``reports.campaign.options``)."""
    extra = Path(args.extra_mutants).resolve() if getattr(args, "extra_mutants", None) else None
    if extra is not None and not extra.is_dir():
        raise UsageError(f"--extra-mutants {args.extra_mutants}: not a folder")
    if extra is not None and not any(extra.glob("*.patch")):
        raise UsageError(f"--extra-mutants {args.extra_mutants}: no *.patch file in the folder")
    for patch in sorted(extra.glob("*.patch")) if extra is not None else ():
        problem = not_a_patch(patch)
        if problem is not None:
            raise UsageError(f"--extra-mutants {Path(args.extra_mutants) / patch.name}: {problem}")
    return pipeline.Plan(
        shard=args.shard,
        seconds=args.budget - REPORT_RESERVE,
        mutmut=not args.no_mutmut,
        merge=args.merge,
        mutmut_paths=tuple(args.mutmut_paths),
        full=bool(getattr(args, "full", False)),
        extra=extra,
    )


def main_pass_complete(mutants: list[Mutant], scope: tuple[str, ...]) -> Callable[[Records, str], bool]:
    """Whether records hold a complete main pass: every verdict of the report (its ``completeness``)."""

    def complete(records: Records, fp: str) -> bool:
        return completeness(build(records, fp, mutants, scope=scope)).complete

    return complete


def run(args: Any, stdout: TextIO) -> int:
    """The subcommand: exit 0 complete with nothing left alive, 1 something needs attention, 3 incomplete."""
    settings = settings_from(args)
    plan = plan_from(args)
    start = time.time()
    mutants = plan.mutants()
    with terminate_as_interrupt():
        outcome = pipeline.run(settings, plan, main_pass_complete(mutants, plan.scope))
    if outcome.interrupted:
        print("cmharness report: interrupted; what finished is journaled, run it again to resume", file=sys.stderr)
        if BASELINE not in outcome.records:
            return Exit.INCOMPLETE
    report = build(outcome.records, outcome.fp, mutants, scope=plan.scope)
    paths = write(report, settings.out, settings.root)
    if completeness(report).complete and plan.shard is None and covers_default(plan.scope):
        paths += pipeline.learn(settings, outcome.records, outcome.fp)
        if gone := gone_tests(committed_hints(), outcome.records):
            print(
                f"cmharness report: the committed hints name {len(gone)} test(s) the suite no longer has (such as "
                f"{gone[0]}), so mutants run other tests before their killer; to order the next runs by this "
                f"report's, copy {settings.state_dir / HINTS_NAME} to {committed_path()} and commit",
                file=sys.stderr,
            )
    stdout.write("\n".join(summary_lines(report)) + "\n")
    shown = [str(p.relative_to(settings.root)) if p.is_relative_to(settings.root) else str(p) for p in paths]
    stdout.write(f"wrote {', '.join(shown)} in {fmt_time(time.time() - start)}\n")
    return Exit.INCOMPLETE if outcome.interrupted else exit_status(report)
