"""``report.md``: the red-first report as Markdown (the headline in words and a glossary, the scores, the named
mutants, mutmut's by file, the survivors and the reviewed equivalents, every test's witness)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reports.campaign.records import Kind, Status
from reports.render.report_model import Report
from reports.render.summary import (
    GLOSSARY,
    example_title,
    mutmut_by_file,
    plain_headline,
    seconds_text,
    summary_lines,
    variant_matrix,
)


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    def cell(x: Any) -> str:
        return str(x).replace("|", "\\|").replace("\n", "<br>")

    return [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
        *("| " + " | ".join(cell(c) for c in r) + " |" for r in rows),
        "",
    ]


def headline(report: Report) -> list[str]:
    """The verdict in bold, then what ran, what was found and what needs attention as lists, and a glossary."""
    top = plain_headline(report)
    out = [f"**{top.verdict}**", ""]
    for title, items in (("What ran", top.ran), ("What was found", top.found), ("Needs attention", top.attention)):
        out += [f"{title}:", "", *(f"- {x}" for x in items or ("nothing",)), ""]
    out += ["Glossary: " + "; ".join(f"*{term}*: {meaning}" for term, meaning in GLOSSARY) + ".", ""]
    return out


def render(report: Report) -> str:
    out = ["# Red-first mutation report", "", *headline(report), "## Scores", "", "```", *summary_lines(report), "```"]
    out += [""]
    matrix = variant_matrix(report.tests)
    out += ["## Tests by variant (baseline)", ""]
    if not matrix.rows:
        out += ["No test is parametrized over variants.", ""]
    else:
        out += _md_table(
            ["test", *matrix.variants], [[b, *(v if v is not None else "" for v in r)] for b, r in matrix.rows]
        )
    out += ["## Named mutants", ""]
    out += _md_table(
        ["mutant", "what it undoes", "status", "killing tests", "time to kill", "run"],
        [
            [r.id, r.wording, r.status, len(r.killed_by), seconds_text(r.time_to_kill), seconds_text(r.duration)]
            for r in report.named
        ],
    )
    for r in report.named:
        if r.killed_by:
            out += [f"### {r.id}", "", f"Killed by: {', '.join(f'`{t}`' for t in r.killed_by)}", ""]
            if r.failure:
                out += [f"First failure: `{r.failure}`", ""]
            if r.counterexample:
                out += [example_title(r.shrunk) + ":", "", "```", r.counterexample, "```", ""]
    out += ["## mutmut", ""]
    out += _md_table(
        [
            "file",
            Status.KILLED,
            Status.SURVIVED,
            Status.TIMEOUT,
            "no coverage",
            Status.EQUIVALENT,
            Status.PENDING,
            "score",
        ],
        mutmut_by_file(report),
    )
    surv = [r for r in report.mutmut if r.status in (Status.SURVIVED, Status.TIMEOUT, Status.NO_COVERAGE, Status.ERROR)]
    if surv:
        out += ["### Survivors", ""]
        out += _md_table(
            ["mutant", "status", "where", "mutator", "original", "mutated"],
            [
                [
                    r.id.removeprefix("mutmut:"),
                    r.status,
                    f"{r.file}:{r.line}",
                    r.change.mutator if r.change else "",
                    f"`{r.change.original if r.change else ''}`",
                    f"`{r.change.replacement if r.change else ''}`",
                ]
                for r in surv
            ],
        )
    eq = [r for r in report.mutmut if r.status == Status.EQUIVALENT]
    if eq:
        out += ["### Equivalent (reviewed)", ""]
        out += _md_table(
            ["mutant", "where", "reason"],
            [[r.id.removeprefix("mutmut:"), f"{r.file}:{r.line}", r.reason] for r in eq],
        )
    out += ["## Red-first checks", ""]
    checks = report.checks
    witness, without = checks.witness, checks.without
    out += [f"Tests with a red-first witness: {len(witness)} of {checks.tests}.", ""]
    out += _md_table(
        ["test", Kind.WITNESS, "failure"], [[f"`{b}`", f"`{w}`", line] for b, (w, line) in sorted(witness.items())]
    )
    out += [f"Tests without a witness ({len(without)}):", ""]
    out += [f"- `{t}`: {why}" for t, why in sorted(without.items())] or ["- none"]
    out += ["", f"`red_on` violations ({len(checks.red_on_violations)}):", ""]
    out += [f"- `{v.test}`: {v.problem}" for v in checks.red_on_violations] or ["- none"]
    if checks.only_skipped:
        out += ["", f"Skipped in this profile, not checked: {len(checks.only_skipped)} test(s)."]
    return "\n".join(out) + "\n"
