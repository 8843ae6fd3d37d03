"""The report in figures and words: the variant matrix, completeness, the headline, scores as ranges, the summary
lines and the exit status, and the helpers the renderers share."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reports.campaign.records import ALIVE, Kind, Outcome, Status, TestRow
from reports.exit_codes import Exit
from reports.render.report_model import MutmutRow, Report, Score, score

VARIANT_ORDER = ("main-48bb87a1", "pr-8bb01ab8", "sound")


# ----------------------------------------------------------------------------- the variant matrix


@dataclass(frozen=True)
class VariantMatrix:
    """Tests (without the variant) x variants: each cell the outcome on that variant (None: not run there)."""

    variants: tuple[str, ...]
    rows: tuple[tuple[str, tuple[Outcome | None, ...]], ...]  # (test, its outcome on each variant), by test


def variant_matrix(tests: Sequence[TestRow]) -> VariantMatrix:
    """The tests parametrized over variants, by test; the known variants first, then the others by name."""
    cells: dict[tuple[str, str], Outcome] = {}
    for r in tests:
        if r.variant is not None:
            cells.setdefault((r.base, r.variant), r.outcome)
    names = sorted({v for _, v in cells})
    order = tuple([v for v in VARIANT_ORDER if v in names] + [v for v in names if v not in VARIANT_ORDER])
    bases = sorted({b for b, _ in cells})
    return VariantMatrix(order, tuple((b, tuple(cells.get((b, v)) for v in order)) for b in bases))


# ----------------------------------------------------------------------------- rendering


def pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.1f}%"


def mutmut_folders(report: Report) -> list[str]:
    """The top folders whose modules mutmut's mutants come from (those some run of the campaign covered)."""
    return sorted({r.id.removeprefix("mutmut:").split(".", 1)[0] for r in report.mutmut})


def in_folder(report: Report, folder: str) -> list[MutmutRow]:
    """mutmut's mutants of one top folder."""
    return [r for r in report.mutmut if r.id.startswith(f"mutmut:{folder}.")]


def folder_scores(report: Report) -> list[str]:
    lines = []
    for folder in mutmut_folders(report):
        sub = score(r.status for r in in_folder(report, folder))
        lines.append(f"  {folder}/: {range_text(sub)} (with timeouts {pct(sub.with_timeouts)})")
    return lines


def range_text(s: Score) -> str:
    """``killed/counted = x%``, or while mutants are pending the range: killed over all, killed over finished."""
    pending = s.counts.get(Status.PENDING, 0)
    if not pending:
        return f"{s.killed}/{s.counted} killed = {pct(s.score)}"
    everything = s.counted + pending
    return (
        f"{s.killed}/{everything} killed = {pct(100.0 * s.killed / everything)} of all to "
        f"{s.killed}/{s.counted} = {pct(s.score)} of the finished ({pending} pending)"
    )


@dataclass(frozen=True)
class Completeness:
    """What is left to run: pending mutants, and the folders in the run's scope mutmut has not started."""

    named: int
    mutmut: int
    not_started: tuple[str, ...]

    @property
    def pending(self) -> int:
        return self.named + self.mutmut

    @property
    def complete(self) -> bool:
        return not (self.pending or self.not_started)


def completeness(report: Report) -> Completeness:
    started = set(mutmut_folders(report))
    return Completeness(
        named=sum(1 for r in report.named if r.status == Status.PENDING),
        mutmut=sum(1 for r in report.mutmut if r.status == Status.PENDING),
        not_started=tuple(f for f in report.scope if f not in started),
    )


def headline(report: Report) -> str:
    c = completeness(report)
    if c.complete:
        return "COMPLETE: every mutant in scope ran"
    parts = [f"{c.pending} mutant(s) pending"] if c.pending else []
    parts += [f"mutmut over {f}/ not started" for f in c.not_started]
    return f"INCOMPLETE: {', '.join(parts)} (stopped at its budget or interrupted); run again to resume"


def survivors(report: Report) -> int:
    """Mutants a test should have killed and none did (timeouts are detected; equivalents are reviewed)."""
    return sum(1 for r in (*report.named, *report.mutmut) if r.status in ALIVE)


def exit_status(report: Report) -> int:
    """0 complete and nothing survived, 1 survivors or red-first gaps, 3 incomplete (2 is a usage error)."""
    if not completeness(report).complete:
        return Exit.INCOMPLETE
    return Exit.SURVIVORS if survivors(report) or red_first_gaps(report) else Exit.OK


def red_first_gaps(report: Report) -> int:
    return len(report.checks.red_on_violations) + len(report.checks.gaps)


def _reason_counts(without: Mapping[str, str]) -> str:
    counts: dict[str, int] = {}
    for why in without.values():
        kind = why.split(":")[0].split(" (")[0]  # the reason's kind, without its details
        counts[kind] = counts.get(kind, 0) + 1
    return "; ".join(f"{n} {why}" for why, n in sorted(counts.items())) or "none"


def summary_lines(report: Report) -> list[str]:
    ns, ms = report.named_score(), report.mutmut_score()
    by_kind = []
    for kind, label in (
        (Kind.DEFECT, "defects alone in sound"),
        (Kind.REMOVAL, "the seed's removals"),
        (Kind.EXTRA, "extra mutants (patches)"),
    ):
        rows = [r for r in report.named if r.kind == kind]
        if kind == Kind.EXTRA and not rows:
            continue
        sub = score(r.status for r in rows)
        by_kind.append(f"  {label}: {range_text(sub)}" + (f", {sub.timeout} timeout" if sub.timeout else ""))
    mc = ms.counts
    checks = report.checks
    lines = [
        headline(report),
        f"fingerprint {report.fp}: {len(report.tests)} tests on the baseline",
        f"named mutants: {range_text(ns)} (with timeouts {pct(ns.with_timeouts)}; {ns.timeout} timeout)",
        *by_kind,
        f"mutmut ({', '.join(f + '/' for f in mutmut_folders(report)) or 'no folder'}): {range_text(ms)} "
        f"(with timeouts {pct(ms.with_timeouts)}); survived {mc.get(Status.SURVIVED, 0)}, no coverage "
        f"{mc.get(Status.NO_COVERAGE, 0)}, timeout {mc.get(Status.TIMEOUT, 0)}, "
        f"equivalent {mc.get(Status.EQUIVALENT, 0)}, "
        f"pending {mc.get(Status.PENDING, 0)}" + ("" if report.mutmut else " (mutmut has not run yet)"),
        *folder_scores(report),
        f"red-first: {checks.tests - len(checks.never_red)} of {checks.tests} tests "
        f"have a witness (red on a variant or a mutant); {len(checks.never_red)} without "
        f"({_reason_counts(checks.without)}); {len(checks.red_on_violations)} red_on "
        "violation(s)",
    ]
    for row in report.named:
        if row.status not in (Status.KILLED, Status.PENDING):
            lines.append(f"  not killed: {row.id} ({row.status}): {row.wording}")
    return lines + [f"note: {n}" for n in report.notes]


def _example_title(shrunk: bool) -> str:
    return (
        "Minimal counterexample (Hypothesis shrank it)"
        if shrunk
        else "Counterexample as first found (shrinking outlived its time)"
    )


def _secs(x: float | None) -> str:
    return "" if x is None else f"{float(x):.1f}s"


def by_file(report: Report) -> dict[str, list[MutmutRow]]:
    """mutmut's mutants by the file they mutate, by file name."""
    files: dict[str, list[MutmutRow]] = {}
    for r in report.mutmut:
        files.setdefault(r.file, []).append(r)
    return dict(sorted(files.items()))


def _mutmut_by_file(report: Report) -> list[list[object]]:
    rows: list[list[object]] = []
    for path, group in by_file(report).items():
        s = score(r.status for r in group)
        c = s.counts
        rows.append(
            [
                path,
                c.get(Status.KILLED, 0),
                c.get(Status.SURVIVED, 0),
                c.get(Status.TIMEOUT, 0),
                c.get(Status.NO_COVERAGE, 0),
                c.get(Status.EQUIVALENT, 0),
                c.get(Status.PENDING, 0),
                pct(s.score),
            ]
        )
    return rows
