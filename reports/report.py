"""``cmharness report``: run the campaign (or merge its journals) and write the red-first mutation report.

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

import json
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import pandas as pd

from reports.campaign import (
    BASELINE,
    RED,
    tests_for,
)
from reports.mutants import Mutant, named_mutants

EQUIVALENTS = Path(__file__).resolve().parent / "equivalent_mutants.toml"
VARIANT_ORDER = ("main-48bb87a1", "pr-8bb01ab8", "sound")
REPORT_RESERVE = 20.0  # seconds of the budget kept for writing the report



# ----------------------------------------------------------------------------- the data


@dataclass
class Equivalent:
    id: str
    reason: str
    replacement: str | None = None


def load_equivalents(path: Path = EQUIVALENTS) -> dict[str, Equivalent]:
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for entry in data.get("mutant", []):
        out[entry["id"]] = Equivalent(entry["id"], entry["reason"], entry.get("replacement"))
    return out


FALSIFYING = re.compile(r"^(E\s+)?((?:Falsifying (?:explicit )?example|Failing test case)\b.*)$")


def counterexamples(text: str) -> list[str]:
    """The minimal examples Hypothesis printed in a failure's text ("Falsifying example: ..." or, in newer
    Hypothesis, "Failing test case: ..."), each block up to its balanced closing parenthesis."""
    lines = text.splitlines()
    out: list[str] = []
    k = 0
    while k < len(lines):
        m = FALSIFYING.match(lines[k])
        k += 1
        if not m:
            continue
        prefix = m.group(1) or ""
        block = [m.group(2).rstrip()]
        depth = block[0].count("(") - block[0].count(")")
        while depth > 0 and k < len(lines):
            line = lines[k][len(prefix):] if prefix and lines[k].startswith(prefix) else lines[k]
            block.append(line.rstrip())
            depth += line.count("(") - line.count(")")
            k += 1
        if "\n".join(block) not in out:
            out.append("\n".join(block))
    return out


_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def stable(text: str) -> str:
    """A failure text without memory addresses (``<function f at 0x7f...>``), so each run shows it the same."""
    return _ADDRESS.sub("0x…", text)


def first_line_of_failure(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("E "):
            return stable(line[1:].strip())
    return stable(text.strip().splitlines()[-1]) if text.strip() else ""


@dataclass
class Report:
    fp: str
    tests: pd.DataFrame  # the baseline: one row per test (nodeid)
    named: pd.DataFrame  # one row per named mutant
    mutmut: pd.DataFrame  # one row per mutmut mutant (pending ones included)
    kills: pd.DataFrame  # named mutants x tests: 1 failed, 0 passed, NaN not run
    checks: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: The mutmut folders the run was asked to cover (one not started leaves the report incomplete).
    scope: tuple[str, ...] = ()
    #: Each extra mutant's patched file and first changed line.
    extra_locations: dict[str, dict[str, Any]] = field(default_factory=dict)

    # -- scores

    def named_score(self) -> dict[str, Any]:
        return score(self.named["status"])

    def mutmut_score(self) -> dict[str, Any]:
        return score(self.mutmut["status"]) if len(self.mutmut) else score(pd.Series([], dtype=str))


def score(statuses: pd.Series) -> dict[str, Any]:
    """Killed over the mutants that count (equivalent, skipped and pending ones do not), timeouts beside."""
    counts = statuses.value_counts().to_dict()
    excluded = sum(counts.get(s, 0) for s in ("equivalent", "skipped", "pending"))
    counted = int(len(statuses) - excluded)
    killed = int(counts.get("killed", 0))
    timeout = int(counts.get("timeout", 0))
    return {"counts": {k: int(v) for k, v in counts.items()}, "counted": counted, "killed": killed,
            "timeout": timeout, "total": len(statuses),
            "score": 100.0 * killed / counted if counted else float("nan"),
            "with_timeouts": 100.0 * (killed + timeout) / counted if counted else float("nan")}


def build(records: dict[str, dict[str, Any]], fp: str, mutants: Sequence[Mutant] | None = None,
          equivalents: dict[str, Equivalent] | None = None, scope: Sequence[str] = ()) -> Report:
    mutants = list(named_mutants() if mutants is None else mutants)
    equivalents = load_equivalents() if equivalents is None else equivalents
    baseline = records[BASELINE]
    tests = pd.DataFrame(baseline["tests"])
    tests = tests.drop_duplicates("nodeid", keep="last").set_index("nodeid", drop=False)
    notes: list[str] = []

    rows = []
    for m in mutants:
        rec = records.get(m.id)
        failures = (rec or {}).get("failures", {})
        shrunk = set((rec or {}).get("shrunk", []))
        killers = sorted((rec or {}).get("killed_by", []), key=lambda t: t not in shrunk)  # the shrunk one first
        examples = [(t in shrunk, ex) for t in killers for ex in counterexamples(failures.get(t, ""))]
        spec = (rec or {}).get("spec", m.spec) if m.kind == "extra" else m.spec
        rows.append({"id": m.id, "kind": m.kind, "spec": spec,
                     "wording": m.wording + (f" ({rec['reason']})" if rec and rec.get("reason") else ""),
                     "status": rec["status"] if rec else "pending",
                     "killed_by": list((rec or {}).get("killed_by", [])),
                     "time_to_kill": (rec or {}).get("time_to_kill"), "duration": (rec or {}).get("duration"),
                     "ran": (rec or {}).get("ran"), "counterexample": stable(examples[0][1]) if examples else "",
                     "shrunk": bool(examples and examples[0][0]),
                     "slowest": list((rec or {}).get("slowest", [])),
                     "timed_out_in": (rec or {}).get("timed_out_in") or "",
                     "failure": first_line_of_failure(failures[rec["killed_by"][0]]) if rec and rec.get("killed_by")
                     else ""})
    named = pd.DataFrame(rows, columns=["id", "kind", "spec", "wording", "status", "killed_by", "time_to_kill",
                                        "duration", "ran", "counterexample", "shrunk", "failure", "slowest",
                                        "timed_out_in"])
    if (named["status"] == "pending").any():
        notes.append(f"{int((named['status'] == 'pending').sum())} named mutant(s) not run yet (another shard, "
                     "or an interrupted campaign): run the campaign again, or merge every shard's journal")

    # the kill matrix: 1 the test failed under the mutant, 0 it passed, missing: not run
    kill_rows: dict[str, dict[str, float]] = {}
    for m in mutants:
        rec = records.get(m.id)
        if not rec or "killed_by" not in rec:
            continue
        failed = set(rec["killed_by"])
        other = rec.get("outcomes", {})
        kill_rows[m.id] = {r["nodeid"]: 1.0 if r["nodeid"] in failed else 0.0
                           for r in tests_for(m, baseline, bool(rec.get("all_variants")))
                           if other.get(r["nodeid"]) != "skipped"}
    kills = pd.DataFrame.from_dict(kill_rows, orient="index")
    kills = kills.reindex(index=[m.id for m in mutants if m.id in kill_rows])

    mutmut = _mutmut_frame(records, equivalents, notes)
    report = Report(fp, tests, named, mutmut, kills, notes=notes, scope=tuple(scope),
                    extra_locations={m.id: {"file": records[m.id].get("file"), "line": records[m.id].get("line"),
                                            "diff": records[m.id].get("diff", "")}
                                     for m in mutants if m.kind == "extra" and m.id in records})
    report.checks = red_first(report, records)
    return report


def _mutmut_frame(records: dict[str, dict[str, Any]], equivalents: dict[str, Equivalent],
                  notes: list[str]) -> pd.DataFrame:
    columns = ["id", "status", "file", "function", "line", "column", "end_line", "end_column", "mutator",
               "original", "replacement", "killed_by", "duration", "diff", "reason"]
    names: set[str] = set()
    for key, rec in records.items():
        if key.startswith("mutmut-inventory:"):
            names.update(f"mutmut:{n}" for n in rec.get("names", []))
            if rec.get("note"):
                notes.append(f"mutmut ({key.split(':', 1)[1]}): {rec['note']}")
    rows = []
    for key in sorted(names | {k for k, r in records.items() if r.get("kind") == "mutmut"}):
        rec = records.get(key)
        row = {c: None for c in columns}
        row.update(id=key, status="pending", killed_by=[], reason="")
        if rec is not None:
            row.update({c: rec.get(c) for c in columns if c in rec})
            row["status"] = rec["status"]
        eq = equivalents.get(key)
        if eq is not None and row["status"] in ("survived", "timeout", "no-coverage", "skipped"):
            if eq.replacement is not None and rec is not None and eq.replacement != rec.get("replacement"):
                notes.append(f"stale equivalence entry {key}: its mutated line is now {rec.get('replacement')!r}, "
                             f"reviewed as {eq.replacement!r}; counted as a {row['status']} until reviewed again")
            else:
                row["status"], row["reason"] = "equivalent", eq.reason
        rows.append(row)
    frame = pd.DataFrame(rows, columns=columns)
    if len(frame):
        frame["line"] = frame["line"].fillna(1).astype(int)
    return frame


def red_first(report: Report, records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each test's red-first witness (a variant it is red on, or a mutant it kills), the tests without one and
    why; every ``red_on`` red there and green on sound."""
    from reports.witness import NO_CODE, ONLY_EQUIVALENT

    tests = report.tests
    witness: dict[str, tuple[str, str]] = {}
    for row in tests[tests["outcome"].isin(RED)].sort_index().itertuples():
        witness.setdefault(row.base, (f"variant {row.variant or 'baseline'}", first_line_of_failure(row.text)
                                      if isinstance(getattr(row, "text", None), str) else ""))
    for key in sorted(records):
        rec = records[key]
        if rec.get("kind") in ("defect", "removal", "mutmut", "extra"):
            failures = rec.get("failures", {})
            for t in rec.get("killed_by", []) or []:
                b = tests.at[t, "base"] if t in tests.index else t
                witness.setdefault(b, (key, first_line_of_failure(failures.get(t, ""))))
    reasons: dict[str, str] = {}
    for rec in (r for _, r in sorted(records.items()) if r.get("kind") == "witness"):
        if rec.get("witness"):
            witness.setdefault(rec["base"], (rec["witness"], stable(rec.get("failure", ""))))
        else:
            reasons[rec["base"]] = rec.get("reason", "")
    ran = tests[tests["outcome"] != "skipped"]
    bases = sorted(set(ran["base"]))
    never_red = [b for b in bases if b not in witness]
    unsearched = "not searched yet (the witness search runs after a complete main pass over every folder)"
    without = {b: reasons.get(b, unsearched) for b in never_red}
    only_skipped = sorted(set(tests["base"]) - set(ran["base"]))
    violations = []
    for nodeid, row in tests.iterrows():
        red_on = row.get("red_on") or []
        if not red_on or row["outcome"] == "skipped":
            continue
        variant = row["variant"]
        if variant in red_on and row["outcome"] not in RED:
            violations.append({"test": nodeid, "problem": f"marked red_on {variant} but {row['outcome']} there"})
        if variant == "sound" and row["outcome"] != "passed":
            violations.append({"test": nodeid, "problem": f"marked red_on {', '.join(red_on)} but "
                                                          f"{row['outcome']} on sound"})
    marked = tests[tests["red_on"].map(bool)]
    for base, group in marked.groupby("base"):
        if "sound" not in set(group["variant"]):
            violations.append({"test": base, "problem": "marked red_on but never run on sound"})
    return {"never_red": never_red, "only_skipped": only_skipped, "red_on_violations": violations,
            "tests": len(bases), "witness": {b: witness[b] for b in bases if b in witness}, "without": without,
            "gaps": [b for b, why in without.items() if why not in (NO_CODE, ONLY_EQUIVALENT)]}


# ----------------------------------------------------------------------------- the variant matrix


def variant_matrix(tests: pd.DataFrame) -> pd.DataFrame:
    """Tests (without the variant) x variants: each cell the outcome on that variant."""
    with_variant = tests[tests["variant"].notna()]
    if with_variant.empty:
        return pd.DataFrame()
    matrix = with_variant.pivot_table(index="base", columns="variant", values="outcome", aggfunc="first")
    order = [v for v in VARIANT_ORDER if v in matrix.columns] + [v for v in matrix.columns if v not in VARIANT_ORDER]
    return matrix[order]


# ----------------------------------------------------------------------------- rendering


def pct(x: float) -> str:
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
    pending = s["counts"].get("pending", 0)
    if not pending:
        return f"{s['killed']}/{s['counted']} killed = {pct(s['score'])}"
    everything = s["counted"] + pending
    return (f"{s['killed']}/{everything} killed = {pct(100.0 * s['killed'] / everything)} of all to "
            f"{s['killed']}/{s['counted']} = {pct(s['score'])} of the finished ({pending} pending)")


def completeness(report: Report) -> dict[str, Any]:
    """What is left to run: pending mutants, and the folders in the run's scope mutmut has not started."""
    named = int((report.named["status"] == "pending").sum())
    mutmut = int((report.mutmut["status"] == "pending").sum()) if len(report.mutmut) else 0
    started = set(mutmut_folders(report)) if len(report.mutmut) else set()
    not_started = [f for f in report.scope if f not in started]
    return {"named": named, "mutmut": mutmut, "pending": named + mutmut, "not_started": not_started,
            "complete": not (named or mutmut or not_started)}


def headline(report: Report) -> str:
    c = completeness(report)
    if c["complete"]:
        return "COMPLETE: every mutant in scope ran"
    parts = [f"{c['pending']} mutant(s) pending"] if c["pending"] else []
    parts += [f"mutmut over {f}/ not started" for f in c["not_started"]]
    return f"INCOMPLETE: {', '.join(parts)} (stopped at its budget or interrupted); run again to resume"


def survivors(report: Report) -> int:
    """Mutants a test should have killed and none did (timeouts are detected; equivalents are reviewed)."""
    named = int(report.named["status"].isin(["survived", "no-coverage", "error"]).sum())
    mutmut = int(report.mutmut["status"].isin(["survived", "no-coverage", "error"]).sum()) if len(report.mutmut) else 0
    return named + mutmut


EXIT_COMPLETE, EXIT_FOUND, EXIT_INCOMPLETE = 0, 1, 3


def exit_status(report: Report) -> int:
    """0 complete and nothing survived, 1 survivors or red-first gaps, 3 incomplete (2 is a usage error)."""
    if not completeness(report)["complete"]:
        return EXIT_INCOMPLETE
    return EXIT_FOUND if survivors(report) or red_first_gaps(report) else EXIT_COMPLETE


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
    for kind, label in (("defect", "defects alone in sound"), ("removal", "the seed's removals"),
                        ("extra", "extra mutants (patches)")):
        if kind == "extra" and not (report.named["kind"] == "extra").any():
            continue
        sub = score(report.named.loc[report.named["kind"] == kind, "status"])
        by_kind.append(f"  {label}: {range_text(sub)}" + (f", {sub['timeout']} timeout" if sub["timeout"] else ""))
    mc = ms["counts"]
    lines = [
        headline(report),
        f"fingerprint {report.fp}: {len(report.tests)} tests on the baseline",
        f"named mutants: {range_text(ns)} (with timeouts {pct(ns['with_timeouts'])}; {ns['timeout']} timeout)",
        *by_kind,
        f"mutmut ({', '.join(f + '/' for f in mutmut_folders(report)) or 'no folder'}): {range_text(ms)} "
        f"(with timeouts {pct(ms['with_timeouts'])}); survived {mc.get('survived', 0)}, no coverage "
        f"{mc.get('no-coverage', 0)}, timeout {mc.get('timeout', 0)}, equivalent {mc.get('equivalent', 0)}, "
        f"pending {mc.get('pending', 0)}" + ("" if len(report.mutmut) else " (mutmut has not run yet)"),
        *folder_scores(report),
        f"red-first: {report.checks['tests'] - len(report.checks['never_red'])} of {report.checks['tests']} tests "
        f"have a witness (red on a variant or a mutant); {len(report.checks['never_red'])} without "
        f"({_reason_counts(report.checks['without'])}); {len(report.checks['red_on_violations'])} red_on "
        "violation(s)",
    ]
    not_killed = report.named[~report.named["status"].isin(["killed", "pending"])]
    for row in not_killed.itertuples():
        lines.append(f"  not killed: {row.id} ({row.status}): {row.wording}")
    return lines + [f"note: {n}" for n in report.notes]


def _example_title(shrunk: bool) -> str:
    return ("Minimal counterexample (Hypothesis shrank it)" if shrunk
            else "Counterexample as first found (shrinking outlived its time)")


def _secs(x: Any) -> str:
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
        rows.append([path, c.get("killed", 0), c.get("survived", 0), c.get("timeout", 0), c.get("no-coverage", 0),
                     c.get("equivalent", 0), c.get("pending", 0), pct(s["score"])])
    return rows


def _module_file(mutant_id: str) -> str:
    """``mutmut:reference.model.xǁStoreǁleaves__mutmut_3`` -> ``reference/model.py``."""
    return mutant_id.removeprefix("mutmut:").rsplit(".", 1)[0].replace(".", "/") + ".py"


def mte_json(report: Report, root: Path) -> dict[str, Any]:
    from reports.mte import mte_json as to_json

    return to_json(report, root)


def render_md(report: Report) -> str:
    from reports.md_report import render

    return render(report)


def render_html(report: Report) -> str:
    from reports.html_report import render

    return render(report)


def write(report: Report, out: Path, root: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = {"html": out / "report.html", "md": out / "report.md", "csv": out / "matrix.csv",
             "json": out / "mutation-report.json"}
    paths["html"].write_text(render_html(report), encoding="utf-8")
    paths["md"].write_text(render_md(report), encoding="utf-8")
    matrix = report.kills.copy()
    matrix.insert(0, "status", report.named.set_index("id")["status"].reindex(matrix.index))
    matrix.index.name = "mutant"
    matrix.to_csv(paths["csv"], float_format="%.0f")
    paths["json"].write_text(json.dumps(mte_json(report, root), indent=1) + "\n", encoding="utf-8")
    return list(paths.values())


def run(args: Any, stdout: TextIO) -> int:
    from reports.report_run import run as run_report

    return run_report(args, stdout)
