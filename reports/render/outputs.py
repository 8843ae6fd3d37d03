"""The red-first report's output files, written from the report built from the journal.

Outputs, in ``reports/out/`` (never committed):

- ``report.html``: self-contained (inline CSS, no script): the headline scores; the tests-by-variant
  matrix; the named mutants with their killing tests, time to kill and the falsifying example
  Hypothesis printed; the kill matrix (named mutants x killing tests), colored; mutmut's mutants by
  file, its survivors and the reviewed equivalents; the red-first checks.
- ``report.md``: the same, as Markdown.
- ``matrix.csv``: named mutants x tests (1: the test failed under the mutant, 0: it passed, empty:
  not run), with each mutant's status.
- ``mutation-report.json``: the mutation-testing-elements report (schemaVersion "1"), every mutant
  of every kind, for the standard viewers.

The report is a function of the journal alone (no clock in it), so a campaign that was interrupted
and resumed writes the same report as one that was not.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from reports.render import html, markdown
from reports.render.mutation_testing_elements import mte_json
from reports.render.report_model import Report

REPORT_RESERVE = 20.0  # seconds of the budget kept for writing the report


def write(report: Report, out: Path, root: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "html": out / "report.html",
        "md": out / "report.md",
        "csv": out / "matrix.csv",
        "json": out / "mutation-report.json",
    }
    paths["html"].write_text(html.render(report), encoding="utf-8")
    paths["md"].write_text(markdown.render(report), encoding="utf-8")
    write_matrix(report, paths["csv"])
    # compact: every mutant lists the tests that cover it, tens of megabytes at two spaces a level
    paths["json"].write_text(json.dumps(mte_json(report, root), separators=(",", ":")) + "\n", encoding="utf-8")
    return list(paths.values())


def write_matrix(report: Report, path: Path) -> None:
    """``matrix.csv``: a row per named mutant that ran, its status, then 1 (killed), 0 (passed) or empty (not run)
    for each test."""
    status = {r.id: r.status for r in report.named}
    with open(path, "w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["mutant", "status", *report.kills.tests])
        for row in report.kills.rows:
            cells = ("" if (v := row.cells.get(t)) is None else str(int(v)) for t in report.kills.tests)
            out.writerow([row.mutant, status.get(row.mutant, ""), *cells])
