"""The report in figures and words: the variant matrix, completeness, the headline, scores as ranges, the summary
lines and the exit status, and the helpers the renderers share."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reference.variant_names import SEED_VARIANTS
from reports.campaign.records import ALIVE, NO_CODE, ONLY_EQUIVALENT, Kind, Outcome, Status, TestRow
from reports.exit_codes import Exit
from reports.render.report_model import MutmutRow, Report, Score, score

VARIANT_ORDER = SEED_VARIANTS


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
    started = {*mutmut_folders(report), *report.empty_folders}
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


# ----------------------------------------------------------------------------- the headline in plain words

#: The words the report's figures use, each with what it means; the renderers show them as a glossary.
GLOSSARY = (
    (
        "mutant",
        "a copy of the code with one deliberate bug: a known defect switched on, a removal, a patch, or an "
        "operator mutmut changed",
    ),
    (Status.KILLED, "a test failed on the mutant: the suite caught it"),
    (Status.SURVIVED, "every test passed on the mutant: a bug the suite does not notice"),
    (
        Status.TIMEOUT,
        "the mutant's run outlived its time limit (the bug makes the code hang): counted as caught, "
        "apart from the killed",
    ),
    (Status.NO_COVERAGE, "no test runs the mutated code"),
    (
        Status.EQUIVALENT,
        "reviewed by hand as changing nothing a test could see (mutation/equivalent_mutants.toml); not counted",
    ),
    (Status.PENDING, "not run yet (the budget ran out, or the run was interrupted)"),
    (
        "score",
        'killed over the mutants that count (all but equivalent and pending ones); "with timeouts" counts '
        "the timed out as caught too; while mutants are pending, a range from killed over all to killed over the "
        "finished",
    ),
    ("red-first", "every test must be seen to fail on something before its passing counts"),
    (Kind.WITNESS, "the variant or mutant a test was seen to fail on"),
    (
        "red_on",
        "a test's marker naming the variants it must fail on; a violation is such a test passing there or "
        "failing on sound",
    ),
    (
        "fingerprint",
        "a hash of the code and tests the results belong to; after a change only what it touches runs again",
    ),
)

#: Each status that is not caught, as the headline words it (counted by ``survivors``).
NOT_CAUGHT = (
    (Status.SURVIVED, f"{Status.SURVIVED}", "every test passed with the bug in place"),
    (Status.NO_COVERAGE, "not covered by any test", "no test runs the mutated code"),
    (Status.ERROR, "errored", "a patch that did not apply, or a run that crashed before the tests judged it"),
)


def plural(k: int, noun: str, nouns: str = "") -> str:
    """``1 mutant``, ``2,467 tests``: a count and its noun."""
    return f"{k:,} {noun if k == 1 else nouns or noun + 's'}"


def and_list(parts: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _folders(folders: Sequence[str]) -> str:
    return and_list([f"{f}/" for f in folders])


@dataclass(frozen=True)
class Headline:
    """The headline a reviewer reads once: the verdict, then what ran, what was found and what needs attention."""

    complete: bool
    verdict: str  # a sentence opening on COMPLETE or INCOMPLETE
    needs_attention: bool
    ran: tuple[str, ...]
    found: tuple[str, ...]
    attention: tuple[str, ...]


def _unseen(report: Report) -> str:
    """Tests without a witness: never seen to fail once the report is complete, not yet while it is not."""
    return "never seen to fail" if completeness(report).complete else "not yet seen to fail"


def _failing_unmutated(k: int) -> str:
    """``1 test fails on the unmutated code``: the verdict's phrase for the tests red without a bug."""
    return f"{plural(k, 'test')} {'fails' if k == 1 else 'fail'} on the unmutated code"


def _problems(report: Report) -> list[str]:
    """What keeps the report from passing, each a short phrase with its count (the verdict's list)."""
    counts = score(r.status for r in (*report.named, *report.mutmut)).counts
    out = [f"{plural(counts[s], 'mutant')} {word}" for s, word, _ in NOT_CAUGHT if counts.get(s)]
    checks = report.checks
    if checks.broken:
        out.append(_failing_unmutated(len(checks.broken)))
    if checks.gaps:
        out.append(f"{plural(len(checks.gaps), 'test')} {_unseen(report)}")
    if checks.red_on_violations:
        out.append(plural(len(checks.red_on_violations), "red_on violation"))
    return out


def _ran(report: Report) -> list[str]:
    checks = report.checks
    variants = variant_matrix(report.tests).variants
    tests = f"{plural(checks.tests, 'test')} on the unmutated code"
    if variants:
        tests += (
            f" as {plural(len(report.tests), 'test case')} (a test parametrized by variant runs once on each) over "
            f"{plural(len(variants), 'variant')}: {', '.join(variants)}"
        )
    if checks.only_skipped:
        tests += f"; {plural(len(checks.only_skipped), 'more test')} skipped in this profile"
    kinds = [
        plural(n, label, labels)
        for kind, label, labels in (
            (Kind.DEFECT, "known defect, alone in sound", "known defects, each alone in sound"),
            (Kind.REMOVAL, "of the seed's removals", "of the seed's removals"),
            (Kind.EXTRA, "extra patch", "extra patches"),
        )
        if (n := sum(1 for r in report.named if r.kind == kind))
    ]
    named = f"{plural(len(report.named), 'named mutant')}" + (f": {'; '.join(kinds)}" if kinds else "")
    started = mutmut_folders(report)
    not_started = [f for f in report.scope if f not in started]
    mutmut = [f"{plural(len(report.mutmut), 'mutmut operator mutant')} over {_folders(started)}"] if started else []
    mutmut += [f"mutmut not started over {_folders(not_started)}"] if not_started else []
    return [tests, named, "; ".join(mutmut) or "no mutmut operator mutant (mutmut was not asked to run)"]


def _outcomes(label: str, statuses: Sequence[Status]) -> str:
    counts = score(statuses).counts
    words = {s: word for s, word, _ in NOT_CAUGHT} | {
        Status.TIMEOUT: "timed out",
        Status.EQUIVALENT: f"{Status.EQUIVALENT}",
    }
    order = dict.fromkeys((Status.KILLED, Status.TIMEOUT, *words))
    parts = [f"{counts[s]:,} {words.get(s, s)}" for s in order if counts.get(s)]
    parts += [f"{n:,} {s}" for s, n in sorted(counts.items()) if s not in words and s != Status.KILLED]
    return f"{label} ({len(statuses):,}): {', '.join(parts) if parts else 'none'}"


def _found(report: Report) -> list[str]:
    out = [_outcomes("Named mutants", [r.status for r in report.named])]
    if report.mutmut:
        out.append(_outcomes("mutmut's mutants", [r.status for r in report.mutmut]))
    defects = [r for r in report.named if r.kind == Kind.DEFECT]
    if defects:
        killed = sum(1 for r in defects if r.status == Status.KILLED)
        hung = sum(1 for r in defects if r.status == Status.TIMEOUT)
        out.append(
            f"Known defects caught: {killed + hung:,} of {len(defects):,}"
            + (f" ({killed:,} failed a test, {hung:,} timed out)" if hung else "")
        )
    ns, ms = report.named_score(), report.mutmut_score()
    scores = [f"named {pct(ns.score)}"] + ([f"mutmut's {pct(ms.score)}"] if report.mutmut else [])
    timeouts = [pct(ns.with_timeouts)] + ([pct(ms.with_timeouts)] if report.mutmut else [])
    pending = ", pending ones left out" if completeness(report).pending else ""
    out.append(
        f"Mutation score (killed over the mutants that count{pending}): {', '.join(scores)}; "
        f"counting the timed out as caught {' and '.join(timeouts)}"
    )
    checks = report.checks
    out.append(f"Tests seen to fail at least once: {checks.tests - len(checks.never_red):,} of {checks.tests:,}")
    cannot = sum(1 for t in checks.never_red if checks.without[t] in (NO_CODE, ONLY_EQUIVALENT))
    if cannot:
        out.append(
            f"{plural(cannot, 'test')} that no mutant can turn red: "
            f"{'it covers' if cannot == 1 else 'they cover'} no mutated code, or only equivalent or surviving mutants"
        )
    return out


def _attention(report: Report) -> list[str]:
    counts = score(r.status for r in (*report.named, *report.mutmut)).counts
    out = []
    for status, word, why in NOT_CAUGHT:
        if counts.get(status):
            named = [r.id for r in report.named if r.status == status]
            which = f" (named: {', '.join(named)})" if named else ""
            out.append(f"{plural(counts[status], 'mutant')} {word}: {why}{which}")
    checks = report.checks
    if checks.broken:
        shown = ", ".join(checks.broken[:3]) + (
            f" and {len(checks.broken) - 3:,} more" if len(checks.broken) > 3 else ""
        )
        out.append(
            f"{_failing_unmutated(len(checks.broken))}: the suite is red without a bug, so no mutant "
            f"is judged by {'it' if len(checks.broken) == 1 else 'them'} ({shown})"
        )
    if checks.gaps:
        out.append(
            f"{plural(len(checks.gaps), 'test')} {_unseen(report)} "
            f"({_reason_counts({t: checks.without[t] for t in checks.gaps}, grouped=True)})"
        )
    if checks.red_on_violations:
        out.append(
            f"{plural(len(checks.red_on_violations), 'red_on violation')}: a test marked to fail on a variant "
            "passed there, or failed on sound"
        )
    c = completeness(report)
    if c.pending:
        out.append(f"{plural(c.pending, 'mutant')} pending: not run yet")
    if c.not_started:
        out.append(f"mutmut not started over {_folders(c.not_started)}")
    return out


def _all_caught(report: Report) -> str:
    """A clean report's mutants: how many were caught (killed or timed out), and how many were set aside."""
    counts = score(r.status for r in (*report.named, *report.mutmut)).counts
    total, caught = sum(counts.values()), counts.get(Status.KILLED, 0) + counts.get(Status.TIMEOUT, 0)
    aside = [f"{counts[Status.EQUIVALENT]:,} reviewed as equivalent"] if counts.get(Status.EQUIVALENT) else []
    aside += [
        f"{n:,} {s}" for s, n in sorted(counts.items()) if s not in (Status.KILLED, Status.TIMEOUT, Status.EQUIVALENT)
    ]
    if aside:
        return f"every mutant was caught ({caught:,} of {total:,}; {and_list(aside)})"
    return f"every mutant was caught (all {total:,})"


def _all_seen_red(report: Report) -> str:
    """A clean report's tests: all seen to fail, or all those a mutant can turn red."""
    checks = report.checks
    cannot = len(checks.never_red)
    if not cannot:
        return f"every test was seen to fail at least once (all {checks.tests:,})"
    return (
        f"every test that covers mutated code was seen to fail at least once ({checks.tests - cannot:,} of "
        f"{checks.tests:,}; {cannot:,} no mutant can turn red)"
    )


def plain_headline(report: Report) -> Headline:
    """The headline in words, each figure with its count; the verdict agrees with ``exit_status``."""
    c = completeness(report)
    problems = _problems(report)
    if not c.complete:
        left = [f"{plural(c.pending, 'mutant')} pending"] if c.pending else []
        left += [f"mutmut not started over {_folders(c.not_started)}"] if c.not_started else []
        verdict = (
            f"INCOMPLETE: {and_list(left)} (the budget ran out or the run was interrupted); run again to resume."
            + (f" So far: {and_list(problems)}." if problems else "")
        )
    elif problems:
        verdict = f"COMPLETE, needs attention: {and_list(problems)}."
    else:
        verdict = f"COMPLETE: {_all_caught(report)}, and {_all_seen_red(report)}."
    return Headline(
        c.complete,
        verdict,
        bool(problems) or not c.complete,
        tuple(_ran(report)),
        tuple(_found(report)),
        tuple(_attention(report)),
    )


def survivors(report: Report) -> int:
    """Mutants a test should have killed and none did (timeouts are detected; equivalents are reviewed)."""
    return sum(1 for r in (*report.named, *report.mutmut) if r.status in ALIVE)


def exit_status(report: Report) -> int:
    """0 complete and nothing survived, 1 survivors, red-first gaps or tests failing on the unmutated code, 3
    incomplete (2 is a usage error)."""
    if not completeness(report).complete:
        return Exit.INCOMPLETE
    return Exit.SURVIVORS if survivors(report) or red_first_gaps(report) else Exit.OK


def red_first_gaps(report: Report) -> int:
    """The tests the red-first checks fault: ``red_on`` contradicted, no witness, or red on the unmutated code."""
    return len(report.checks.red_on_violations) + len(report.checks.gaps) + len(report.checks.broken)


def _reason_counts(without: Mapping[str, str], grouped: bool = False) -> str:
    """How many tests lack a witness for each kind of reason (``grouped``: counts with thousands separators)."""
    counts: dict[str, int] = {}
    for why in without.values():
        kind = why.split(":")[0].split(" (")[0]  # the reason's kind, without its details
        counts[kind] = counts.get(kind, 0) + 1
    return "; ".join(f"{n:,} {why}" if grouped else f"{n} {why}" for why, n in sorted(counts.items())) or "none"


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


def example_title(shrunk: bool) -> str:
    return (
        "Minimal counterexample (Hypothesis shrank it)"
        if shrunk
        else "Counterexample as first found (shrinking outlived its time)"
    )


def seconds_text(x: float | None) -> str:
    return "" if x is None else f"{float(x):.1f}s"


def by_file(report: Report) -> dict[str, list[MutmutRow]]:
    """mutmut's mutants by the file they mutate, by file name."""
    files: dict[str, list[MutmutRow]] = {}
    for r in report.mutmut:
        files.setdefault(r.file, []).append(r)
    return dict(sorted(files.items()))


def mutmut_by_file(report: Report) -> list[list[object]]:
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
