"""The report's data, built from the journal alone: the tests, the named and mutmut mutants, the kill matrix, the
scores and the red-first checks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from reports.campaign.equivalents import Equivalent, load_equivalents
from reports.campaign.named_mutants import Mutant, named_mutants, tests_for
from reports.campaign.records import (
    NO_CODE,
    ONLY_EQUIVALENT,
    RED,
    InventoryRecord,
    Kind,
    MutantRecord,
    MutmutRecord,
    Outcome,
    Records,
    Status,
    WitnessRecord,
    baseline_of,
    encode_row,
    mutmut_key,
)

if TYPE_CHECKING:
    import pandas as pd  # imported where used: see reports/__init__.py


# ----------------------------------------------------------------------------- the data


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
            line = lines[k][len(prefix) :] if prefix and lines[k].startswith(prefix) else lines[k]
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


@dataclass(frozen=True)
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
    extra_locations: dict[str, MutantRecord] = field(default_factory=dict)

    # -- scores

    def named_score(self) -> dict[str, Any]:
        return score(self.named["status"])

    def mutmut_score(self) -> dict[str, Any]:
        import pandas as pd

        return score(self.mutmut["status"]) if len(self.mutmut) else score(pd.Series([], dtype=str))


def score(statuses: pd.Series) -> dict[str, Any]:
    """Killed over the mutants that count (equivalent, skipped and pending ones do not), timeouts beside."""
    counts = statuses.value_counts().to_dict()
    excluded = sum(counts.get(s, 0) for s in (Status.EQUIVALENT, Status.SKIPPED, Status.PENDING))
    counted = int(len(statuses) - excluded)
    killed = int(counts.get(Status.KILLED, 0))
    timeout = int(counts.get(Status.TIMEOUT, 0))
    return {
        "counts": {k: int(v) for k, v in counts.items()},
        "counted": counted,
        Status.KILLED: killed,
        Status.TIMEOUT: timeout,
        "total": len(statuses),
        "score": 100.0 * killed / counted if counted else float("nan"),
        "with_timeouts": 100.0 * (killed + timeout) / counted if counted else float("nan"),
    }


def build(
    records: Records,
    fp: str,
    mutants: Sequence[Mutant] | None = None,
    equivalents: dict[str, Equivalent] | None = None,
    scope: Sequence[str] = (),
) -> Report:
    import pandas as pd

    mutants = list(named_mutants() if mutants is None else mutants)
    equivalents = load_equivalents() if equivalents is None else equivalents
    baseline = baseline_of(records)
    tests = pd.DataFrame([encode_row(r) for r in baseline.tests])
    tests = tests.drop_duplicates("nodeid", keep="last").set_index("nodeid", drop=False)
    notes: list[str] = []

    rows = []
    for m in mutants:
        found = records.get(m.id)
        rec = found if isinstance(found, MutantRecord) else None
        failures = rec.failures if rec else {}
        shrunk = set(rec.shrunk if rec else ())
        killers = sorted(rec.killed_by if rec else (), key=lambda t: t not in shrunk)  # the shrunk one first
        examples = [(t in shrunk, ex) for t in killers for ex in counterexamples(failures.get(t, ""))]
        spec = rec.spec if rec and m.kind == Kind.EXTRA else m.spec
        rows.append(
            {
                "id": m.id,
                "kind": m.kind,
                "spec": spec,
                "wording": m.wording + (f" ({rec.reason})" if rec and rec.reason else ""),
                "status": rec.status if rec else Status.PENDING,
                "killed_by": list(rec.killed_by) if rec else [],
                "time_to_kill": rec.time_to_kill if rec else None,
                "duration": rec.duration if rec else None,
                "ran": rec.ran if rec else None,
                "counterexample": stable(examples[0][1]) if examples else "",
                "shrunk": bool(examples and examples[0][0]),
                "slowest": [list(s) for s in rec.slowest] if rec else [],
                "timed_out_in": (rec.timed_out_in if rec else None) or "",
                "failure": first_line_of_failure(failures[rec.killed_by[0]]) if rec and rec.killed_by else "",
            }
        )
    named = pd.DataFrame(
        rows,
        columns=[
            "id",
            "kind",
            "spec",
            "wording",
            "status",
            "killed_by",
            "time_to_kill",
            "duration",
            "ran",
            "counterexample",
            "shrunk",
            "failure",
            "slowest",
            "timed_out_in",
        ],
    )
    if (named["status"] == Status.PENDING).any():
        notes.append(
            f"{int((named['status'] == Status.PENDING).sum())} named mutant(s) not run yet (another shard, "
            "or an interrupted campaign): run the campaign again, or merge every shard's journal"
        )

    # the kill matrix: 1 the test failed under the mutant, 0 it passed, missing: not run
    kill_rows: dict[str, dict[str, float]] = {}
    for m in mutants:
        rec = records.get(m.id)
        if not isinstance(rec, MutantRecord):
            continue
        failed = set(rec.killed_by)
        kill_rows[m.id] = {
            r.nodeid: 1.0 if r.nodeid in failed else 0.0
            for r in tests_for(m, baseline, rec.all_variants)
            if rec.outcomes.get(r.nodeid) != Outcome.SKIPPED
        }
    kills = pd.DataFrame.from_dict(kill_rows, orient="index")
    kills = kills.reindex(index=[m.id for m in mutants if m.id in kill_rows])

    mutmut = _mutmut_frame(records, equivalents, notes)
    report = Report(
        fp,
        tests,
        named,
        mutmut,
        kills,
        notes=notes,
        scope=tuple(scope),
        extra_locations={
            m.id: rec for m in mutants if m.kind == Kind.EXTRA and isinstance(rec := records.get(m.id), MutantRecord)
        },
    )
    return replace(report, checks=red_first(report, records))


def _mutmut_frame(records: Records, equivalents: dict[str, Equivalent], notes: list[str]) -> pd.DataFrame:
    import pandas as pd

    columns = [
        "id",
        "status",
        "file",
        "function",
        "line",
        "column",
        "end_line",
        "end_column",
        "mutator",
        "original",
        "replacement",
        "killed_by",
        "duration",
        "diff",
        "reason",
    ]
    names: set[str] = set()
    for key, inv in records.items():
        if isinstance(inv, InventoryRecord):
            names.update(mutmut_key(n) for n in inv.names)
            if inv.note:
                notes.append(f"mutmut ({key.split(':', 1)[1]}): {inv.note}")
    rows = []
    for key in sorted(names | {k for k, r in records.items() if isinstance(r, MutmutRecord)}):
        found = records.get(key)
        rec = found if isinstance(found, MutmutRecord) else None
        row = {c: None for c in columns}
        row.update(id=key, status=Status.PENDING, killed_by=[], reason="")
        if rec is not None:
            row.update(
                {c: getattr(rec.change, c) for c in columns if hasattr(rec.change, c)},
                status=rec.status,
                killed_by=list(rec.killed_by),
                duration=rec.duration,
            )
        eq = equivalents.get(key)
        if eq is not None and row["status"] in (Status.SURVIVED, Status.TIMEOUT, Status.NO_COVERAGE, Status.SKIPPED):
            if eq.replacement is not None and rec is not None and eq.replacement != rec.change.replacement:
                notes.append(
                    f"stale equivalence entry {key}: its mutated line is now {rec.change.replacement!r}, "
                    f"reviewed as {eq.replacement!r}; counted as a {row['status']} until reviewed again"
                )
            else:
                row["status"], row["reason"] = Status.EQUIVALENT, eq.reason
        rows.append(row)
    frame = pd.DataFrame(rows, columns=columns)
    if len(frame):
        frame["line"] = frame["line"].fillna(1).astype(int)
    return frame


def red_first(report: Report, records: Records) -> dict[str, Any]:
    """Each test's red-first witness (a variant it is red on, or a mutant it kills), the tests without one and
    why; every ``red_on`` red there and green on sound."""

    tests = report.tests
    witness: dict[str, tuple[str, str]] = {}
    for row in tests[tests["outcome"].isin(RED)].sort_index().itertuples():
        witness.setdefault(
            row.base,
            (
                f"variant {row.variant or 'baseline'}",
                first_line_of_failure(row.text) if isinstance(getattr(row, "text", None), str) else "",
            ),
        )
    for key in sorted(records):
        rec = records[key]
        if isinstance(rec, MutantRecord | MutmutRecord):
            failures = rec.failures if isinstance(rec, MutantRecord) else {}
            for t in rec.killed_by:
                b = tests.at[t, "base"] if t in tests.index else t
                witness.setdefault(b, (key, first_line_of_failure(failures.get(t, ""))))
    reasons: dict[str, str] = {}
    for w in (r for _, r in sorted(records.items()) if isinstance(r, WitnessRecord)):
        if w.witness:
            witness.setdefault(w.base, (w.witness, stable(w.failure)))
        else:
            reasons[w.base] = w.reason
    ran = tests[tests["outcome"] != Outcome.SKIPPED]
    bases = sorted(set(ran["base"]))
    never_red = [b for b in bases if b not in witness]
    unsearched = "not searched yet (the witness search runs after a complete main pass over every folder)"
    without = {b: reasons.get(b, unsearched) for b in never_red}
    only_skipped = sorted(set(tests["base"]) - set(ran["base"]))
    violations = []
    for nodeid, row in tests.iterrows():
        red_on = row.get("red_on") or []
        if not red_on or row["outcome"] == Outcome.SKIPPED:
            continue
        variant = row["variant"]
        if variant in red_on and row["outcome"] not in RED:
            violations.append({"test": nodeid, "problem": f"marked red_on {variant} but {row['outcome']} there"})
        if variant == "sound" and row["outcome"] != Outcome.PASSED:
            violations.append(
                {"test": nodeid, "problem": f"marked red_on {', '.join(red_on)} but {row['outcome']} on sound"}
            )
    marked = tests[tests["red_on"].map(bool)]
    for base, group in marked.groupby("base"):
        if "sound" not in set(group["variant"]):
            violations.append({"test": base, "problem": "marked red_on but never run on sound"})
    return {
        "never_red": never_red,
        "only_skipped": only_skipped,
        "red_on_violations": violations,
        "tests": len(bases),
        "witness": {b: witness[b] for b in bases if b in witness},
        "without": without,
        "gaps": [b for b, why in without.items() if why not in (NO_CODE, ONLY_EQUIVALENT)],
    }
