"""``cmharness fuzz``: search the property tests with HypoFuzz on N processes; findings go to an example database.

Exit codes (``reports.exit_codes``): 0 no failure beyond the expected reds (``red_on``), 1 a test failed that
should pass (its replay command is printed), 2 a bad option value (one line).
"""

from __future__ import annotations

import argparse
import importlib.util
import shlex
from typing import TextIO

from invariants.database import DatabaseError, open_database
from reports.arguments import add_workers_option, seconds_argument
from reports.campaign.settings import STATE
from reports.errors import UsageError
from reports.fuzz.engine import ROOT, TARGET_FILES, Outcome, Plan
from reports.fuzz.engine import run as fuzz
from reports.fuzz.verdict import exit_code, expected_reds, inside_fuzzer, new_findings
from reports.progress_line import ProgressLine
from strategies.defects import parse_variant

#: The embedded database, under the project's state folder.
DEFAULT_DATABASE = STATE / "fuzz-db"


def configure(parser: argparse.ArgumentParser) -> None:
    add_workers_option(parser)
    parser.add_argument(
        "--time",
        type=seconds_argument,
        default=None,
        metavar="SECONDS",
        help="stop after this long (default: Ctrl-C or SIGTERM)",
    )
    parser.add_argument(
        "--database",
        default=None,
        metavar="FOLDER|redis://HOST:PORT",
        help=f"the example database the findings go to (default: {DEFAULT_DATABASE.relative_to(ROOT)}); "
        "pytest --cm-database replays them",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=None,
        metavar="SPEC",
        help="fuzz the variant-parametrized tests on this variant (repeatable), e.g. sound+QUESTION_PRICED_AS_LABEL "
        "to search for a planted defect (default: the three variants)",
    )
    parser.add_argument(
        "--stop-on-failure",
        action="store_true",
        help="stop at the first failure that is not an expected red (found here or by another process sharing "
        "the database)",
    )
    parser.add_argument(
        "--tests",
        nargs="+",
        default=list(TARGET_FILES),
        metavar="FILE",
        help=f"test files to fuzz (default: {' '.join(TARGET_FILES)})",
    )


def plan_of(args: argparse.Namespace) -> Plan:
    """The campaign the options ask for; a bad value raises ``ValueError`` with one line naming it."""
    if importlib.util.find_spec("hypofuzz") is None:
        raise ValueError("HypoFuzz is not installed: pip install -e '.[fuzz]'")
    variants = tuple(args.variant or ())
    for spec in variants:
        parse_variant(spec)
    for name in args.tests:
        if not (ROOT / name).is_file():
            raise ValueError(f"--tests {name}: no such test file under {ROOT}")
    database = args.database if args.database is not None else str(DEFAULT_DATABASE)
    open_database(database)  # a bad or unreachable database is reported before any worker starts
    return Plan(database, variants, args.workers, args.time, tuple(args.tests), stop_on_failure=args.stop_on_failure)


def replay_command(plan: Plan, nodeid: str) -> str:
    """The ordinary test run that replays a finding from the database (its failure prints the scenario file)."""
    words = ["python", "-m", "pytest", "--cm-database", plan.database]
    for spec in plan.variants:
        words += ["--cm-variant", spec]
    return shlex.join([*words, nodeid])


def summary(plan: Plan, outcome: Outcome) -> list[str]:
    rate = outcome.cases / outcome.fuzzing_seconds if outcome.fuzzing_seconds else 0.0
    lines = [
        f"fuzz: stopped ({outcome.stopped_by}) after {outcome.seconds:.0f} s: {outcome.cases} cases "
        f"({rate:.1f}/s over {outcome.fuzzing_seconds:.0f} s of fuzzing), {outcome.behaviours} distinct behaviours, "
        f"{len(outcome.findings)} target(s) with a failure in {plan.database}"
    ]
    new = new_findings(outcome.findings)
    expected = expected_reds(outcome.findings)
    if expected:
        lines.append(f"  {len(expected)} expected red (red_on on their variant)")
    for f in inside_fuzzer(outcome.findings):
        lines.append(f"  not a finding: {f.target.nodeid} failed inside HypoFuzz itself ({f.origin})")
    for f in new:
        state = "shrunk to a minimal case" if f.shrunk else "not yet shrunk"
        lines.append(f"  FAILED {f.target.nodeid} ({state}); replay it:")
        lines.append(f"    {replay_command(plan, f.target.nodeid)}")
    if new:
        lines.append(
            "  the replayed failure prints its case as a scenario file; pipe its output to "
            "`cmharness export -` to keep it"
        )
    return lines


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    try:
        plan = plan_of(args)
    except (ValueError, DatabaseError) as err:
        raise UsageError(str(err)) from None
    line = ProgressLine(stdout)

    def progress(elapsed: float, fuzzing: float, cases: int, behaviours: int, failures: int) -> None:
        line.show(
            f"fuzz: {elapsed:4.0f} s  {cases / fuzzing if fuzzing else 0:7.1f} cases/s  "
            f"{behaviours} behaviours  {failures} failing target(s)"
        )

    stdout.write(f"fuzz: collecting {' '.join(plan.files)} ...\n")
    stdout.flush()
    outcome = fuzz(plan, on_progress=progress)
    line.close()
    if not outcome.targets:
        raise UsageError(f"no fuzzable property test in {' '.join(plan.files)}")
    left_out = f", {len(outcome.skipped)} left out (not property tests, or derandomized)" if outcome.skipped else ""
    stdout.write(f"fuzz: {len(outcome.targets)} target(s) on {plan.workers} worker(s){left_out}\n")
    stdout.write("\n".join(summary(plan, outcome)) + "\n")
    return exit_code(outcome.findings)
