"""``report.html``: the red-first report for people, self-contained (inline CSS, SVG and a small script; no network).

It opens on the headline in words (the verdict, what ran, what was found, what needs attention), a glossary and
the scores, with a chart (outcomes per folder and per named mutant), then the
named and extra mutants with their killing tests, the kill matrix, mutmut's mutants per file (each with
its diff, status and killing test, collapsible), then every test with its red-first witness and, apart,
the tests without one and why; buttons filter every mutant table by status.
"""

from __future__ import annotations

import html
from typing import Any

from reports.campaign.records import Kind, Status
from reports.render.report_model import Report, score
from reports.render.summary import (
    GLOSSARY,
    by_file,
    example_title,
    in_folder,
    mutmut_by_file,
    mutmut_folders,
    plain_headline,
    seconds_text,
    summary_lines,
    variant_matrix,
)

STATUSES = (
    Status.KILLED,
    Status.TIMEOUT,
    Status.SURVIVED,
    Status.NO_COVERAGE,
    Status.ERROR,
    Status.EQUIVALENT,
    Status.PENDING,
)
COLORS = {
    Status.KILLED: "#3c9a3c",
    Status.TIMEOUT: "#e0a526",
    Status.SURVIVED: "#d9534f",
    Status.NO_COVERAGE: "#9a9a9a",
    Status.ERROR: "#8e44ad",
    Status.EQUIVALENT: "#5b8bd0",
    Status.PENDING: "#cfcfcf",
}

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:110em}
h1,h2,h3{font-weight:600} table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;vertical-align:top}
th{background:#f4f4f4;text-align:left} pre{background:#f8f8f8;padding:6px;white-space:pre-wrap;margin:2px 0}
.killed,.passed{background:#c8ecc8}.survived,.failed,.error{background:#f6c4c4}.timeout{background:#fbe3a6}
.xfailed{background:#f2d0a8}.xpassed{background:#e6c6f0}.skipped,.pending,.no-coverage{background:#e4e4e4}
.equivalent{background:#d8e4f6}.k1{background:#d9534f;color:#fff;text-align:center}
.k0{background:#dff0d8;text-align:center}.kn{background:#fafafa}
.expected{outline:2px solid #a33;outline-offset:-3px} code{font-size:12px} .small{font-size:12px;color:#555}
details summary{cursor:pointer} .headline{font-size:1.3em;font-weight:600;padding:.4em .6em;border-radius:4px}
.complete{background:#dff0d8}.incomplete{background:#fbe3a6} #filters button{margin-right:.3em}
#filters button.off{opacity:.35} tr.hidden{display:none}
.verdict-attention .headline{background:#f6c4c4} #facts{display:flex;flex-wrap:wrap;gap:0 2.5em}
#facts>div{flex:1 1 24em} #facts h2{font-size:1.05em;margin:.7em 0 .2em} #facts ul{margin:0;padding-left:1.2em}
#facts li{margin:.15em 0} #needs-attention li{color:#a33} #needs-attention li.none{color:inherit}
#summary{margin-bottom:1.2em} #summary details{margin:.4em 0}
#glossary{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1em;margin:.4em 0 .4em 1.2em}
#glossary dt{font-weight:600} #glossary dd{margin:0}
"""

SCRIPT = """
(function () {
  var off = {};
  document.querySelectorAll('#filters button').forEach(function (b) {
    b.addEventListener('click', function () {
      var s = b.getAttribute('data-status');
      off[s] = !off[s];
      b.classList.toggle('off', off[s]);
      document.querySelectorAll('tr[data-status]').forEach(function (row) {
        row.classList.toggle('hidden', !!off[row.getAttribute('data-status')]);
      });
    });
  });
})();
"""


MEANING = dict(GLOSSARY)


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _bars(rows: list[tuple[str, dict[str, int]]], title: str) -> str:
    """A horizontal stacked bar per row (label, counts by status), as inline SVG."""
    width, label_w, bar_h, gap = 900, 230, 16, 6
    height = 30 + len(rows) * (bar_h + gap)
    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' role='img' aria-label='{_e(title)}' width='{width}' "
        f"height='{height}' viewBox='0 0 {width} {height}'><title>{_e(title)}</title>"
    ]
    x = label_w
    for status in STATUSES:  # the legend
        out.append(
            f"<rect x='{x}' y='4' width='10' height='10' fill='{COLORS[status]}'/>"
            f"<text x='{x + 13}' y='13' font-size='11'>{status}</text>"
        )
        x += 13 + 7 * len(status) + 14
    for k, (label, counts) in enumerate(rows):
        y = 26 + k * (bar_h + gap)
        total = sum(counts.values()) or 1
        out.append(f"<text x='{label_w - 6}' y='{y + 12}' font-size='11' text-anchor='end'>{_e(label)}</text>")
        x0 = float(label_w)
        for status in STATUSES:
            n = counts.get(status, 0)
            if not n:
                continue
            w = (width - label_w - 60) * n / total
            out.append(
                f"<rect x='{x0:.1f}' y='{y}' width='{w:.1f}' height='{bar_h}' fill='{COLORS[status]}'>"
                f"<title>{_e(label)}: {n} {status}</title></rect>"
            )
            x0 += w
        out.append(f"<text x='{x0 + 4:.1f}' y='{y + 12}' font-size='11'>{sum(counts.values())}</text>")
    out.append("</svg>")
    return "".join(out)


def chart(report: Report) -> str:
    folders = []
    for folder in mutmut_folders(report):
        folders.append((f"mutmut {folder}/", dict(score(r.status for r in in_folder(report, folder)).counts)))
    for kind, label in (
        (Kind.DEFECT, "named: defects alone"),
        (Kind.REMOVAL, "named: seed removals"),
        (Kind.EXTRA, "extra (patches)"),
    ):
        sub = [r.status for r in report.named if r.kind == kind]
        if sub:
            folders.append((label, dict(score(sub).counts)))
    named = [(r.id.split(":", 1)[1][:34], {r.status: 1}) for r in report.named]
    return (
        "<div id='chart'>"
        + _bars(folders, "outcomes per folder and kind")
        + "</div>"
        + "<details><summary>outcomes per named mutant</summary>"
        + _bars(named, "outcomes per named mutant")
        + "</details>"
    )


def _named(report: Report, h: list[str]) -> None:
    h.append(
        "<h2>Named and extra mutants</h2><table id='named'><tr><th>mutant</th><th>switch or patch</th>"
        "<th>what it undoes</th><th>status</th><th>killing tests</th><th>time to kill</th><th>run</th></tr>"
    )
    for r in report.named:
        detail = ""
        if r.killed_by:
            detail = (
                "<details><summary>"
                + _e(f"{len(r.killed_by)} test(s)")
                + "</summary>"
                + "".join(f"<div><code>{_e(t)}</code></div>" for t in r.killed_by)
                + (f"<div class='small'>first failure: {_e(r.failure)}</div>" if r.failure else "")
                + (
                    f"<div class='small'>{_e(example_title(r.shrunk))}</div><pre>{_e(r.counterexample)}</pre>"
                    if r.counterexample
                    else ""
                )
                + "</details>"
            )
        extra = report.extra_locations.get(r.id) if r.kind == Kind.EXTRA else None
        if extra is not None and extra.diff:
            detail += f"<details><summary>diff</summary><pre>{_e(extra.diff)}</pre></details>"
        if r.timed_out_in:
            detail += f"<div class='small'>timed out in <code>{_e(r.timed_out_in)}</code></div>"
        h.append(
            f"<tr data-status='{_e(r.status)}'><td><code>{_e(r.id)}</code></td><td><code>{_e(r.spec)}</code></td>"
            f"<td>{_e(r.wording)}</td><td class='{_e(r.status)}'>{_e(r.status)}</td><td>{detail}</td>"
            f"<td>{seconds_text(r.time_to_kill)}</td><td>{seconds_text(r.duration)}</td></tr>"
        )
    h.append("</table>")


def _kill_matrix(report: Report, h: list[str]) -> None:
    h.append("<h2>Kill matrix (named mutants x tests that killed one)</h2>")
    kills = report.kills
    cols = [c for c in kills.tests if any(row.cells.get(c) for row in kills.rows)]
    if not cols:
        h.append("<p>No named mutant was killed.</p>")
        return
    h.append(
        "<details><summary>the matrix</summary><table><tr><th>mutant</th>"
        + "".join(f"<th title='{_e(c)}'>T{k + 1}</th>" for k, c in enumerate(cols))
        + "</tr>"
    )
    for row in kills.rows:
        cells = "".join(
            "<td class='kn'></td>"
            if (v := row.cells.get(c)) is None
            else f"<td class='k{int(v)}'>{'x' if v else ''}</td>"
            for c in cols
        )
        h.append(f"<tr><td><code>{_e(row.mutant)}</code></td>{cells}</tr>")
    h.append("</table><ol>" + "".join(f"<li><code>{_e(c)}</code></li>" for c in cols) + "</ol></details>")


def _mutmut(report: Report, h: list[str]) -> None:
    h.append(
        "<h2>mutmut's mutants by file</h2><table id='files'><tr><th>file</th><th>killed</th><th>survived</th>"
        "<th>timeout</th><th>no coverage</th><th>equivalent</th><th>pending</th><th>score</th></tr>"
    )
    for row in mutmut_by_file(report):
        h.append("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>")
    h.append("</table>")
    for path, group in by_file(report).items():
        counts = score(r.status for r in group).counts
        shown = ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts.get(s))
        h.append(
            f"<details class='file'><summary><code>{_e(path)}</code>: {shown}</summary><table>"
            "<tr><th>mutant</th><th>status</th><th>line</th><th>mutator</th><th>killing test or reason</th>"
            "<th>diff</th></tr>"
        )
        for r in sorted(group, key=lambda r: (r.line, r.id)):
            who = ", ".join(r.killed_by) if r.status == Status.KILLED else r.reason
            text = r.change.diff if r.change is not None else ""
            diff = f"<details><summary>diff</summary><pre>{_e(text)}</pre></details>" if text else ""
            mutator = r.change.mutator if r.change is not None else ""
            h.append(
                f"<tr data-status='{_e(r.status)}'><td><code>{_e(r.id.removeprefix('mutmut:'))}</code></td>"
                f"<td class='{_e(r.status)}'>{_e(r.status)}</td><td>{r.line}</td><td>{_e(mutator)}</td>"
                f"<td><code>{_e(who)}</code></td><td>{diff}</td></tr>"
            )
        h.append("</table></details>")


def _tests(report: Report, h: list[str]) -> None:
    checks = report.checks
    witness, without = checks.witness, checks.without
    h.append(
        f"<h2>Tests and their red-first witness ({len(witness)} of {checks.tests})</h2>"
        "<details><summary>every test with the variant or mutant it is red on</summary>"
        "<table id='witnesses'><tr><th>test</th><th>witness</th><th>failure</th></tr>"
    )
    for base, (who, line) in sorted(witness.items()):
        h.append(f"<tr><td><code>{_e(base)}</code></td><td><code>{_e(who)}</code></td><td>{_e(line)}</td></tr>")
    h.append("</table></details>")
    h.append(
        f"<h3>Tests without a witness ({len(without)})</h3><table id='without'><tr><th>test</th><th>reason</th>"
        "</tr>"
        + (
            "".join(f"<tr><td><code>{_e(b)}</code></td><td>{_e(why)}</td></tr>" for b, why in sorted(without.items()))
            or "<tr><td>none</td><td></td></tr>"
        )
        + "</table>"
    )
    h.append(
        f"<h3><code>red_on</code> violations ({len(checks.red_on_violations)})</h3><ul>"
        + (
            "".join(f"<li><code>{_e(v.test)}</code>: {_e(v.problem)}</li>" for v in checks.red_on_violations)
            or "<li>none</li>"
        )
        + "</ul>"
    )
    if checks.only_skipped:
        h.append(f"<p class='small'>Skipped in this profile, not checked: {len(checks.only_skipped)} test(s).</p>")


def _variants(report: Report, h: list[str]) -> None:
    matrix = variant_matrix(report.tests)
    h.append(
        "<h2>Tests by variant (baseline run)</h2><details><summary>each test's outcome on each variant (a "
        "framed cell is a variant its <code>red_on</code> marker names)</summary>"
    )
    if matrix.rows:
        red_on: dict[str, tuple[str, ...]] = {}
        for t in report.tests:
            red_on.setdefault(t.base, t.red_on)
        h.append("<table><tr><th>test</th>" + "".join(f"<th>{_e(c)}</th>" for c in matrix.variants) + "</tr>")
        for base, row in matrix.rows:
            marks = red_on.get(base, ())
            cells = "".join(
                f"<td class='{_e(v) if v is not None else 'kn'}{' expected' if c in marks else ''}'>"
                f"{_e(v) if v is not None else ''}</td>"
                for c, v in zip(matrix.variants, row, strict=True)
            )
            h.append(f"<tr><td><code>{_e(base)}</code></td>{cells}</tr>")
        h.append("</table>")
    h.append("</details>")


def _list(id_: str, title: str, items: tuple[str, ...], empty: str) -> str:
    rows = "".join(f"<li>{_e(x)}</li>" for x in items) or f"<li class='none'>{_e(empty)}</li>"
    return f"<div id='{id_}'><h2>{_e(title)}</h2><ul>{rows}</ul></div>"


def headline(report: Report) -> str:
    """The verdict, what ran, what was found, what needs attention; the jargon in a glossary and the figures the
    terminal prints folded beneath."""
    top = plain_headline(report)
    state = "complete" if top.complete else "incomplete"
    tone = "incomplete" if not top.complete else "attention" if top.needs_attention else "ok"
    glossary = "".join(f"<dt>{_e(term)}</dt><dd>{_e(meaning)}</dd>" for term, meaning in GLOSSARY)
    return (
        f"<div id='summary' class='verdict-{tone}'>"
        f"<p id='headline' class='headline {state}'>{_e(top.verdict)}</p><div id='facts'>"
        + _list("what-ran", "What ran", top.ran, "nothing")
        + _list("what-was-found", "What was found", top.found, "nothing")
        + _list("needs-attention", "Needs attention", top.attention, "nothing")
        + "</div><details><summary>glossary: what the report's words mean</summary>"
        + f"<dl id='glossary' class='small'>{glossary}</dl></details>"
        + "<details><summary>the scores in figures (what <code>cmharness report</code> prints)</summary>"
        + f"<pre id='scores'>{_e(chr(10).join(summary_lines(report)))}</pre></details></div>"
    )


def render(report: Report) -> str:
    h: list[str] = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>cmharness red-first mutation report</title>",
        f"<style>{CSS}</style></head><body><h1>Red-first mutation report</h1>",
        headline(report),
        chart(report),
        "<p id='filters'>Show: "
        + "".join(
            f"<button type='button' data-status='{s}' title='{_e(MEANING.get(s, s))}'>{s}</button>" for s in STATUSES
        )
        + "</p>",
    ]
    _named(report, h)
    _mutmut(report, h)
    _tests(report, h)
    _kill_matrix(report, h)
    _variants(report, h)
    h.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(h) + "\n"
