"""``cmharness defects``: every known defect, the variants that carry it, and the tests that cover it.

Coverage comes from the campaign's journal (``reports/out/journal``, written by ``cmharness report``):
the named mutant ``defect:NAME`` (the defect alone in ``sound``) or ``removal:SLUG`` records the tests
that killed it, and the baseline records which variants each test looked up. Nothing is guessed:
without a journal the command says that no report has run yet; a journal written for other code
(another fingerprint) is used and marked stale.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from reports.campaign.fingerprint import fingerprint
from reports.campaign.journal import read_records
from reports.campaign.named_mutants import named_mutants
from reports.campaign.records import BASELINE, BaselineRecord, MutantRecord, Records, finished_at
from reports.campaign.settings import Settings
from reports.cli.defect_report import run_report
from reports.cli.terminal import format_table
from strategies.defects import VARIANTS, Defect

DEFAULT_JOURNAL = Settings().journal_dir


@dataclass(frozen=True)
class Coverage:
    """What the journal says about one defect's mutant."""

    mutant: str
    status: str
    killed_by: tuple[str, ...]


@dataclass(frozen=True)
class DefectRow:
    defect: Defect
    carried_by: tuple[str, ...]
    coverage: tuple[Coverage, ...]
    #: Tests on the baseline that looked up a variant carrying the defect (None without a baseline).
    seen_by: int | None


def read_journal(directory: Path) -> tuple[Records, str | None]:
    """The newest journaled record per mutant id, all of one fingerprint (the newest baseline's), and it."""
    records = list(read_records(directory))
    baselines = [r for r in records if isinstance(r, BaselineRecord)]
    if not baselines:
        return {}, None
    fp = max(baselines, key=lambda r: r.finished).fingerprint
    latest: Records = {}
    for r in records:
        if r.fingerprint == fp and (r.key not in latest or finished_at(r) >= finished_at(latest[r.key])):
            latest[r.key] = r
    return latest, fp


def defect_rows(journal: Records) -> list[DefectRow]:
    mutants_of: dict[Defect, list[str]] = {}
    for m in named_mutants():
        for name in m.defects:
            mutants_of.setdefault(Defect[name], []).append(m.id)
    baseline = journal.get(BASELINE)
    rows = []
    for d in Defect:
        carried = tuple(v for v, ds in VARIANTS.items() if d in ds)
        coverage = tuple(
            Coverage(rec.key, rec.status, rec.killed_by)
            for mid in mutants_of.get(d, ())
            if isinstance(rec := journal.get(mid), MutantRecord)
        )
        seen = None
        if isinstance(baseline, BaselineRecord):
            seen = sum(1 for t in baseline.tests if set(t.variants_used or ()) & set(carried))
        rows.append(DefectRow(d, carried, coverage, seen))
    return rows


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--journal",
        type=Path,
        default=DEFAULT_JOURNAL,
        metavar="DIR",
        help="the campaign's journal folder (default: reports/out/journal)",
    )
    parser.add_argument("--tests", action="store_true", help="list every covering test, not only the count")
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    parser.add_argument(
        "--report",
        metavar="NAME",
        help="write a markdown bug report for the TypeScript defect NAME (or all of them) instead of the table",
    )
    parser.add_argument("--out", type=Path, metavar="DIR", help="with --report: write NAME.md files into DIR")
    parser.add_argument(
        "--source",
        type=Path,
        metavar="CLONE",
        help="with --report: a git clone of the TypeScript; each function is cited at its file and lines there, at "
        "each tip's commit",
    )


def status_line(fp: str | None, journal_dir: Path) -> str:
    if fp is None:
        return (
            f"no report has run yet (no baseline in {journal_dir}): the tests that cover each defect are "
            "unknown; run `cmharness report --no-mutmut` to find them"
        )
    current = fingerprint(Settings())
    state = "current" if fp == current else f"stale: the code or tests changed since (now {current})"
    return f"coverage from the journal in {journal_dir}, fingerprint {fp} ({state})"


def row_json(r: DefectRow) -> dict[str, Any]:
    return {
        "defect": r.defect.name,
        "source": r.defect.source,
        "description": r.defect.description,
        "variants": list(r.carried_by),
        "tests_looking_up_a_carrier": r.seen_by,
        "mutants": [{"mutant": c.mutant, "status": c.status, "killed_by": list(c.killed_by)} for c in r.coverage],
    }


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    if args.report is not None or args.out is not None or args.source is not None:
        return run_report(args.report, args.out, stdout, args.source, sys.stderr)
    journal, fp = read_journal(args.journal)
    rows = defect_rows(journal)
    status = status_line(fp, args.journal)
    if args.json:
        doc = {
            "journal": str(args.journal),
            "fingerprint": fp,
            "status": status,
            "defects": [row_json(r) for r in rows],
        }
        stdout.write(json.dumps(doc, indent=2) + "\n")
        return 0
    table = []
    for r in rows:
        if fp is None:
            covered = "?"
        elif not r.coverage:
            covered = "not run"
        else:
            covered = "; ".join(f"{c.mutant.split(':')[0]} {c.status}, {len(c.killed_by)} test(s)" for c in r.coverage)
        table.append([r.defect.name, r.defect.source, ", ".join(r.carried_by) or "(mutants only)", covered])
    lines = [status, ""]
    lines += format_table(["defect", "source", "variants", "covered by"], table, [False] * 4)
    lines += ["", "descriptions:"] + [f"  {r.defect.name}: {r.defect.description}" for r in rows]
    if args.tests and fp is not None:
        lines += ["", "covering tests:"]
        for r in rows:
            tests = sorted({t for c in r.coverage for t in c.killed_by})
            lines.append(f"  {r.defect.name} ({len(tests)}):")
            lines += [f"    {t}" for t in tests] or ["    none"]
    stdout.write("\n".join(lines) + "\n")
    return 0
