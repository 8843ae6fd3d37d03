"""The report's data, built from the journal's records alone: the tests, the named and mutmut mutants, the kill
matrix, the scores and the red-first checks, each table a tuple of frozen rows."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from invariants.reproduce import MISMATCH
from reference.variant_names import SOUND
from reports.campaign.equivalents import Equivalent, load_equivalents
from reports.campaign.named_mutants import Mutant, named_mutants, tests_for
from reports.campaign.records import (
    BROKEN,
    FAILING,
    NO_CODE,
    ONLY_EQUIVALENT,
    RED,
    CoverageRecord,
    InventoryRecord,
    Kind,
    MutantChange,
    MutantRecord,
    MutmutRecord,
    Outcome,
    Record,
    Records,
    Status,
    TestRow,
    WitnessRecord,
    baseline_of,
    mutmut_key,
)

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
    """The line a reader needs: a scenario's first mismatching field where the failure lists its fields (the others
    match), else the first ``E`` line of an assertion, else the last line."""
    first_error = None
    for raw in text.splitlines():
        line = raw.removeprefix("E").strip()
        if line.startswith(MISMATCH):
            return stable(line)
        if first_error is None and raw.startswith("E "):
            first_error = line
    if first_error is not None:
        return stable(first_error)
    return stable(text.strip().splitlines()[-1]) if text.strip() else ""


def module_file(mutant_id: str) -> str:
    """``mutmut:reference.model.xǁStoreǁleaves__mutmut_3`` -> ``reference/model.py``."""
    return mutant_id.removeprefix("mutmut:").rsplit(".", 1)[0].replace(".", "/") + ".py"


# ----------------------------------------------------------------------------- the report's rows


@dataclass(frozen=True)
class NamedRow:
    """One named mutant (a defect, a seed removal or an extra patch) as the report shows it."""

    id: str
    kind: Kind
    spec: str
    wording: str
    status: Status
    killed_by: tuple[str, ...] = ()
    time_to_kill: float | None = None
    duration: float | None = None  # None: not run yet
    ran: int | None = None
    counterexample: str = ""  # the first killing test's counterexample, if Hypothesis printed one
    shrunk: bool = False  # whether that counterexample was shrunk again
    failure: str = ""  # the first killing test's failure line
    slowest: tuple[tuple[str, float], ...] = ()
    timed_out_in: str = ""


@dataclass(frozen=True)
class MutmutRow:
    """One of mutmut's mutants: its status (a reviewed equivalent's, once reviewed) and its change (None: not run)."""

    id: str
    status: Status
    change: MutantChange | None = None
    killed_by: tuple[str, ...] = ()
    duration: float | None = None
    reason: str = ""  # a reviewed equivalent's reason
    covered_by: tuple[str, ...] = ()  # the tests that call its function (mutmut's coverage), sorted

    @property
    def file(self) -> str:
        """The file it mutates: the one recorded, or the module's for a mutant not run yet."""
        return self.change.file if self.change is not None else module_file(self.id)

    @property
    def line(self) -> int:
        return self.change.line if self.change is not None else 1


@dataclass(frozen=True)
class KillRow:
    """A named mutant's row of the kill matrix: each test it ran, killed (True) or passed (False)."""

    mutant: str
    cells: Mapping[str, bool]


@dataclass(frozen=True)
class KillMatrix:
    """Named mutants x tests; a test a mutant did not run is absent from its row."""

    tests: tuple[str, ...]  # the columns, sorted
    rows: tuple[KillRow, ...]


@dataclass(frozen=True)
class Violation:
    """A test whose ``red_on`` marker its outcomes contradict."""

    test: str
    problem: str


@dataclass(frozen=True)
class Checks:
    """The red-first checks: each test's witness (a variant it is red on, or a mutant it kills) or why it has
    none, and the ``red_on`` markers the outcomes contradict."""

    tests: int  # the tests (without their variant) that ran
    never_red: tuple[str, ...]
    only_skipped: tuple[str, ...]
    red_on_violations: tuple[Violation, ...]
    witness: Mapping[str, tuple[str, str]]  # test -> (its witness, the failure's first line)
    without: Mapping[str, str]  # test -> why it has no witness
    gaps: tuple[str, ...]  # the tests without one for a reason other than covering no (killable) code
    #: The node ids that fail on the unmutated code where nothing excuses it (on sound, or with no variant).
    broken: tuple[str, ...] = ()


@dataclass(frozen=True)
class Score:
    """Killed over the mutants that count (equivalent, skipped and pending ones do not), timeouts beside."""

    counts: Mapping[Status, int]
    counted: int
    killed: int
    timeout: int
    total: int

    @property
    def score(self) -> float:
        return 100.0 * self.killed / self.counted if self.counted else math.nan

    @property
    def with_timeouts(self) -> float:
        return 100.0 * (self.killed + self.timeout) / self.counted if self.counted else math.nan


def score(statuses: Iterable[Status]) -> Score:
    counts = Counter(statuses)
    excluded = sum(counts[s] for s in (Status.EQUIVALENT, Status.SKIPPED, Status.PENDING))
    total = sum(counts.values())
    return Score(dict(counts), total - excluded, counts[Status.KILLED], counts[Status.TIMEOUT], total)


@dataclass(frozen=True)
class Report:
    """The report's tables, each a tuple of frozen rows, and its checks and notes: all the renderers read."""

    fp: str
    tests: tuple[TestRow, ...]  # the baseline: one row per test (node id), the last one recorded
    named: tuple[NamedRow, ...]  # one row per named mutant
    mutmut: tuple[MutmutRow, ...]  # one row per mutmut mutant (pending ones included), by id
    kills: KillMatrix
    checks: Checks
    notes: tuple[str, ...] = ()
    #: The mutmut folders the run was asked to cover (one not started leaves the report incomplete).
    scope: tuple[str, ...] = ()
    #: Each extra mutant's patched file and first changed line.
    extra_locations: Mapping[str, MutantRecord] = field(default_factory=dict)
    #: Each mutant a witness search saw killed: the tests it killed there, sorted.
    witnessed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: The folders mutmut went through and found nothing to mutate in (a project whose settings mutate none of it).
    empty_folders: tuple[str, ...] = ()

    def named_score(self) -> Score:
        return score(r.status for r in self.named)

    def mutmut_score(self) -> Score:
        return score(r.status for r in self.mutmut)


def build(
    records: Records,
    fp: str,
    mutants: Sequence[Mutant] | None = None,
    equivalents: dict[str, Equivalent] | None = None,
    scope: Sequence[str] = (),
) -> Report:
    mutants = list(named_mutants() if mutants is None else mutants)
    equivalents = load_equivalents() if equivalents is None else equivalents
    baseline = baseline_of(records)
    notes: list[str] = []
    named = tuple(_named_row(m, records.get(m.id)) for m in mutants)
    pending = sum(1 for r in named if r.status == Status.PENDING)
    if pending:
        notes.append(
            f"{pending} named mutant(s) not run yet (another shard, "
            "or an interrupted campaign): run the campaign again, or merge every shard's journal"
        )
    tests = _last_of_each(baseline.tests)
    return Report(
        fp,
        tests,
        named,
        _mutmut_rows(records, equivalents, notes),
        _kill_matrix(records, mutants),
        red_first(tests, records),
        notes=tuple(notes),
        scope=tuple(scope),
        extra_locations={
            m.id: rec for m in mutants if m.kind == Kind.EXTRA and isinstance(rec := records.get(m.id), MutantRecord)
        },
        witnessed=_witnessed(records),
        empty_folders=tuple(
            sorted({r.path for r in records.values() if isinstance(r, InventoryRecord) and not r.names and not r.note})
        ),
    )


def _witnessed(records: Records) -> dict[str, tuple[str, ...]]:
    """The tests each mutant killed in the witness search (a test whose witness it is)."""
    out: dict[str, set[str]] = {}
    for rec in records.values():
        if isinstance(rec, WitnessRecord) and rec.witness and rec.test:
            out.setdefault(rec.witness, set()).add(rec.test)
    return {k: tuple(sorted(v)) for k, v in sorted(out.items())}


def _coverage(records: Records) -> dict[str, set[str]]:
    """mutmut's coverage: the tests that call each mangled function, over every coverage record."""
    out: dict[str, set[str]] = {}
    for rec in records.values():
        if isinstance(rec, CoverageRecord):
            for function in rec.functions:
                out.setdefault(function, set()).update(rec.covering(function))
    return out


def _last_of_each(rows: Sequence[TestRow]) -> tuple[TestRow, ...]:
    """One row per node id: the last one recorded, where it stands."""
    last = {r.nodeid: k for k, r in enumerate(rows)}
    return tuple(r for k, r in enumerate(rows) if last[r.nodeid] == k)


def _named_row(m: Mutant, found: Record | None) -> NamedRow:
    rec = found if isinstance(found, MutantRecord) else None
    if rec is None:
        return NamedRow(m.id, Kind(m.kind), m.spec, m.wording, Status.PENDING)
    shrunk = set(rec.shrunk)
    killers = sorted(rec.killed_by, key=lambda t: t not in shrunk)  # the shrunk one first
    examples = [(t in shrunk, ex) for t in killers for ex in counterexamples(rec.failures.get(t, ""))]
    return NamedRow(
        id=m.id,
        kind=Kind(m.kind),
        spec=rec.spec if m.kind == Kind.EXTRA else m.spec,
        wording=m.wording + (f" ({rec.reason})" if rec.reason else ""),
        status=rec.status,
        killed_by=rec.killed_by,
        time_to_kill=rec.time_to_kill,
        duration=rec.duration,
        ran=rec.ran,
        counterexample=stable(examples[0][1]) if examples else "",
        shrunk=bool(examples and examples[0][0]),
        failure=first_line_of_failure(rec.failures[rec.killed_by[0]]) if rec.killed_by else "",
        slowest=rec.slowest,
        timed_out_in=rec.timed_out_in or "",
    )


def _kill_matrix(records: Records, mutants: Sequence[Mutant]) -> KillMatrix:
    """1 the test failed under the mutant, 0 it passed, absent: not run (or skipped)."""
    baseline = baseline_of(records)
    rows: list[KillRow] = []
    for m in mutants:
        rec = records.get(m.id)
        if not isinstance(rec, MutantRecord):
            continue
        failed = set(rec.killed_by)
        rows.append(
            KillRow(
                m.id,
                {
                    r.nodeid: r.nodeid in failed
                    for r in tests_for(m, baseline, rec.all_variants)
                    if rec.outcomes.get(r.nodeid) != Outcome.SKIPPED
                },
            )
        )
    columns = sorted({t for row in rows for t in row.cells})  # sorted: the order tests ran in varies between runs
    return KillMatrix(tuple(columns), tuple(rows))


def _mutmut_rows(records: Records, equivalents: dict[str, Equivalent], notes: list[str]) -> tuple[MutmutRow, ...]:
    names: set[str] = set()
    for key, inv in records.items():
        if isinstance(inv, InventoryRecord):
            names.update(mutmut_key(n) for n in inv.names)
            if inv.note:
                notes.append(f"mutmut ({key.split(':', 1)[1]}): {inv.note}")
    rows = []
    coverage = {function: tuple(sorted(tests)) for function, tests in _coverage(records).items()}
    for key in sorted(names | {k for k, r in records.items() if isinstance(r, MutmutRecord)}):
        found = records.get(key)
        rec = found if isinstance(found, MutmutRecord) else None
        covered = coverage.get(key.removeprefix("mutmut:").rsplit("__mutmut_", 1)[0], ())  # one tuple a function
        row = (
            MutmutRow(key, Status.PENDING, covered_by=covered)
            if rec is None
            else MutmutRow(key, rec.status, rec.change, rec.killed_by, rec.duration, covered_by=covered)
        )
        eq = equivalents.get(key)
        if eq is not None and row.status in (Status.SURVIVED, Status.TIMEOUT, Status.NO_COVERAGE, Status.SKIPPED):
            if eq.replacement is not None and rec is not None and eq.replacement != rec.change.replacement:
                notes.append(
                    f"stale equivalence entry {key}: its mutated line is now {rec.change.replacement!r}, "
                    f"reviewed as {eq.replacement!r}; counted as a {row.status} until reviewed again"
                )
            else:
                row = MutmutRow(key, Status.EQUIVALENT, row.change, row.killed_by, row.duration, eq.reason, covered)
        rows.append(row)
    return tuple(rows)


def red_first(tests: Sequence[TestRow], records: Records) -> Checks:
    """Each test's red-first witness (a variant it is red on, or a mutant it kills), the tests without one and
    why; every ``red_on`` red there and green on sound."""
    base_of = {r.nodeid: r.base for r in tests}
    broken = tuple(sorted(r.nodeid for r in tests if r.outcome in FAILING and r.variant in (None, SOUND)))
    witness: dict[str, tuple[str, str]] = {}
    for row in sorted((r for r in tests if r.outcome in RED and r.nodeid not in broken), key=lambda r: r.nodeid):
        witness.setdefault(row.base, (f"variant {row.variant or 'baseline'}", first_line_of_failure(row.text)))
    for key in sorted(records):
        rec = records[key]
        if isinstance(rec, MutantRecord | MutmutRecord):
            failures = rec.failures if isinstance(rec, MutantRecord) else {}
            for t in rec.killed_by:
                witness.setdefault(base_of.get(t, t), (key, first_line_of_failure(failures.get(t, ""))))
    reasons: dict[str, str] = {}
    for w in (r for _, r in sorted(records.items()) if isinstance(r, WitnessRecord)):
        if w.witness:
            witness.setdefault(w.base, (w.witness, stable(w.failure)))
        else:
            reasons[w.base] = w.reason
    ran = {r.base for r in tests if r.outcome != Outcome.SKIPPED}
    bases = sorted(ran)
    never_red = tuple(b for b in bases if b not in witness)
    unsearched = "not searched yet (the witness search runs after a complete main pass over every folder)"
    broken_bases = {base_of[n] for n in broken}
    without = {b: BROKEN if b in broken_bases else reasons.get(b, unsearched) for b in never_red}
    violations = []
    for row in tests:
        if not row.red_on or row.outcome == Outcome.SKIPPED:
            continue
        if row.variant in row.red_on and row.outcome not in RED:
            violations.append(Violation(row.nodeid, f"marked red_on {row.variant} but {row.outcome} there"))
        if row.variant == SOUND and row.outcome != Outcome.PASSED:
            violations.append(
                Violation(row.nodeid, f"marked red_on {', '.join(row.red_on)} but {row.outcome} on sound")
            )
    marked: dict[str, set[str | None]] = {}
    for row in tests:
        if row.red_on:
            marked.setdefault(row.base, set()).add(row.variant)
    for base in sorted(marked):
        if SOUND not in marked[base]:
            violations.append(Violation(base, "marked red_on but never run on sound"))
    return Checks(
        tests=len(bases),
        never_red=never_red,
        only_skipped=tuple(sorted({r.base for r in tests} - ran)),
        red_on_violations=tuple(violations),
        witness={b: witness[b] for b in bases if b in witness},
        without=without,
        gaps=tuple(b for b, why in without.items() if why not in (NO_CODE, ONLY_EQUIVALENT, BROKEN)),
        broken=broken,
    )
