"""The report in figures and words: the variant matrix, completeness, the headline, scores as ranges, the summary
lines and the exit status, and the helpers the renderers share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reports.campaign.records import Kind, Status
from reports.exit_codes import Exit
from reports.render.report_model import Report, score

if TYPE_CHECKING:
    import pandas as pd  # imported where used: see reports/__init__.py

VARIANT_ORDER = ("main-48bb87a1", "pr-8bb01ab8", "sound")


# ----------------------------------------------------------------------------- the variant matrix


def variant_matrix(tests: pd.DataFrame) -> pd.DataFrame:
    """Tests (without the variant) x variants: each cell the outcome on that variant."""
    import pandas as pd

    with_variant = tests[tests["variant"].notna()]
    if with_variant.empty:
        return pd.DataFrame()
    matrix = with_variant.pivot_table(index="base", columns="variant", values="outcome", aggfunc="first")
    order = [v for v in VARIANT_ORDER if v in matrix.columns] + [v for v in matrix.columns if v not in VARIANT_ORDER]
    return matrix[order]


# ----------------------------------------------------------------------------- rendering


def pct(x: float) -> str:
    import pandas as pd

    return "n/a" if pd.isna(x) else f"{x:.1f}%"


def mutmut_folders(report: Report) -> list[str]:
    """The top folders whose modules mutmut's mutants come from (those some run of the campaign covered)."""
    return sorted({str(i).removeprefix("mutmut:").split(".", 1)[0] for i in report.mutmut["id"]})


def folder_scores(report: Report) -> list[str]:
    lines = []
    for folder in mutmut_folders(report):
        sub = score(report.mutmut.loc[report.mutmut["id"].str.startswith(f"mutmut:{folder}."), "status"])
        lines.append(f"  {folder}/: {range_text(sub)} (with timeouts {pct(sub['with_timeouts'])})")
    return lines


def range_text(s: dict[str, Any]) -> str:
    """``killed/counted = x%``, or while mutants are pending the range: killed over all, killed over finished."""
    pending = s["counts"].get(Status.PENDING, 0)
    if not pending:
        return f"{s[Status.KILLED]}/{s['counted']} killed = {pct(s['score'])}"
    everything = s["counted"] + pending
    return (
        f"{s[Status.KILLED]}/{everything} killed = {pct(100.0 * s[Status.KILLED] / everything)} of all to "
        f"{s[Status.KILLED]}/{s['counted']} = {pct(s['score'])} of the finished ({pending} pending)"
    )


def completeness(report: Report) -> dict[str, Any]:
    """What is left to run: pending mutants, and the folders in the run's scope mutmut has not started."""
    named = int((report.named["status"] == Status.PENDING).sum())
    mutmut = int((report.mutmut["status"] == Status.PENDING).sum()) if len(report.mutmut) else 0
    started = set(mutmut_folders(report)) if len(report.mutmut) else set()
    not_started = [f for f in report.scope if f not in started]
    return {
        "named": named,
        "mutmut": mutmut,
        Status.PENDING: named + mutmut,
        "not_started": not_started,
        "complete": not (named or mutmut or not_started),
    }


def headline(report: Report) -> str:
    c = completeness(report)
    if c["complete"]:
        return "COMPLETE: every mutant in scope ran"
    parts = [f"{c[Status.PENDING]} mutant(s) pending"] if c[Status.PENDING] else []
    parts += [f"mutmut over {f}/ not started" for f in c["not_started"]]
    return f"INCOMPLETE: {', '.join(parts)} (stopped at its budget or interrupted); run again to resume"


def survivors(report: Report) -> int:
    """Mutants a test should have killed and none did (timeouts are detected; equivalents are reviewed)."""
    named = int(report.named["status"].isin([Status.SURVIVED, Status.NO_COVERAGE, Status.ERROR]).sum())
    mutmut = (
        int(report.mutmut["status"].isin([Status.SURVIVED, Status.NO_COVERAGE, Status.ERROR]).sum())
        if len(report.mutmut)
        else 0
    )
    return named + mutmut


def exit_status(report: Report) -> int:
    """0 complete and nothing survived, 1 survivors or red-first gaps, 3 incomplete (2 is a usage error)."""
    if not completeness(report)["complete"]:
        return Exit.INCOMPLETE
    return Exit.SURVIVORS if survivors(report) or red_first_gaps(report) else Exit.OK


def red_first_gaps(report: Report) -> int:
    return len(report.checks["red_on_violations"]) + len(report.checks.get("gaps", report.checks["never_red"]))


def _reason_counts(without: dict[str, str]) -> str:
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
        if kind == Kind.EXTRA and not (report.named["kind"] == Kind.EXTRA).any():
            continue
        sub = score(report.named.loc[report.named["kind"] == kind, "status"])
        by_kind.append(
            f"  {label}: {range_text(sub)}" + (f", {sub[Status.TIMEOUT]} timeout" if sub[Status.TIMEOUT] else "")
        )
    mc = ms["counts"]
    lines = [
        headline(report),
        f"fingerprint {report.fp}: {len(report.tests)} tests on the baseline",
        f"named mutants: {range_text(ns)} (with timeouts {pct(ns['with_timeouts'])}; {ns[Status.TIMEOUT]} timeout)",
        *by_kind,
        f"mutmut ({', '.join(f + '/' for f in mutmut_folders(report)) or 'no folder'}): {range_text(ms)} "
        f"(with timeouts {pct(ms['with_timeouts'])}); survived {mc.get(Status.SURVIVED, 0)}, no coverage "
        f"{mc.get(Status.NO_COVERAGE, 0)}, timeout {mc.get(Status.TIMEOUT, 0)}, "
        f"equivalent {mc.get(Status.EQUIVALENT, 0)}, "
        f"pending {mc.get(Status.PENDING, 0)}" + ("" if len(report.mutmut) else " (mutmut has not run yet)"),
        *folder_scores(report),
        f"red-first: {report.checks['tests'] - len(report.checks['never_red'])} of {report.checks['tests']} tests "
        f"have a witness (red on a variant or a mutant); {len(report.checks['never_red'])} without "
        f"({_reason_counts(report.checks['without'])}); {len(report.checks['red_on_violations'])} red_on "
        "violation(s)",
    ]
    not_killed = report.named[~report.named["status"].isin([Status.KILLED, Status.PENDING])]
    for row in not_killed.itertuples():
        lines.append(f"  not killed: {row.id} ({row.status}): {row.wording}")
    return lines + [f"note: {n}" for n in report.notes]


def _example_title(shrunk: bool) -> str:
    return (
        "Minimal counterexample (Hypothesis shrank it)"
        if shrunk
        else "Counterexample as first found (shrinking outlived its time)"
    )


def _secs(x: Any) -> str:
    import pandas as pd

    return "" if x is None or pd.isna(x) else f"{float(x):.1f}s"


def _mutmut_by_file(report: Report) -> list[list[Any]]:
    frame = report.mutmut
    if frame.empty:
        return []
    frame = frame.assign(file=frame["file"].fillna(frame["id"].map(_module_file)))
    rows = []
    for path, group in frame.groupby("file"):
        s = score(group["status"])
        c = s["counts"]
        rows.append(
            [
                path,
                c.get(Status.KILLED, 0),
                c.get(Status.SURVIVED, 0),
                c.get(Status.TIMEOUT, 0),
                c.get(Status.NO_COVERAGE, 0),
                c.get(Status.EQUIVALENT, 0),
                c.get(Status.PENDING, 0),
                pct(s["score"]),
            ]
        )
    return rows


def _module_file(mutant_id: str) -> str:
    """``mutmut:reference.model.xǁStoreǁleaves__mutmut_3`` -> ``reference/model.py``."""
    return mutant_id.removeprefix("mutmut:").rsplit(".", 1)[0].replace(".", "/") + ".py"
