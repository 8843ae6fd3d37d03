"""The report's four outputs from a committed journal (``tests/data/report/``) are byte for byte the committed
ones: a journal with every kind of record, status and corner the renderers meet (pending named and mutmut
mutants, reviewed and stale equivalents, extra patches, red_on violations, tests without a witness)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from campaign_helpers import MUTANTS

from reports.campaign.equivalents import Equivalent
from reports.campaign.journal import load_journals
from reports.campaign.named_mutants import Mutant
from reports.campaign.records import Kind
from reports.render.outputs import write
from reports.render.report_model import build
from reports.render.summary import exit_status, summary_lines

pytestmark = pytest.mark.harness

DATA = Path(__file__).resolve().parent / "data" / "report"
FP = "feedc0de12345678"
OUTPUTS = ("report.md", "report.html", "matrix.csv", "mutation-report.json")
FIXTURE_MUTANTS = [
    *MUTANTS,
    Mutant("removal:the-guard", Kind.REMOVAL, "pr-8bb01ab8", ("GUARD",), "the guard"),
    Mutant("removal:the-floor", Kind.REMOVAL, "pr-8bb01ab8", ("FLOOR",), "the floor"),
    Mutant("removal:the-split", Kind.REMOVAL, "pr-8bb01ab8", ("SPLIT",), "the split | <not run>"),
    Mutant("extra:sum-plus-one", Kind.EXTRA, "*", (), "adds one to a sum"),
    Mutant("extra:broken", Kind.EXTRA, "*", (), "a patch that does not apply"),
]
EQUIVALENTS = {
    e.id: e
    for e in (
        Equivalent("mutmut:reference.model.x_add__mutmut_3", "reviewed: y is never read", "y = 3"),
        Equivalent("mutmut:reference.model.x_add__mutmut_4", "reviewed on another line", "y = 5"),
        Equivalent("mutmut:reference.model.x_add__mutmut_6", "a timeout that changes nothing"),
        Equivalent("mutmut:reference.model.x_add__mutmut_1", "killed: the review does not apply"),
        Equivalent("mutmut:reference.model.x_add__mutmut_7", "pending: the review waits"),
    )
}


def render(tmp_path: Path, scope: tuple[str, ...] = ("reference", "invariants", "strategies")) -> tuple[str, int]:
    report = build(load_journals(DATA / "journal", FP), FP, FIXTURE_MUTANTS, EQUIVALENTS, scope)
    write(report, tmp_path, DATA / "root")
    return "\n".join(summary_lines(report)) + "\n", exit_status(report)


def test_the_committed_journal_gives_the_committed_report(tmp_path: Path) -> None:
    summary, status = render(tmp_path)
    expected = DATA / "expected"
    assert summary == (expected / "summary.txt").read_text(encoding="utf-8")
    assert status == 3  # pending mutants and a folder not started: incomplete
    for name in OUTPUTS:
        got = (tmp_path / name).read_bytes()
        if name == "mutation-report.json":  # the project's root, which the JSON names, as <root>
            got = got.replace(json.dumps(str(DATA / "root")).encode(), b'"<root>"', 1)
        assert got == (expected / name).read_bytes(), name
