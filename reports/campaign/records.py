"""The campaign's records: what the journal holds and the report reads (docs/architecture.md, "Records").

Every status, outcome and kind a journal record carries is named here, once; the journal stores their string
values (``StrEnum``: a member is its string, so a journal written before reads the same). Each kind of record
is a frozen dataclass, and ``encode``/``decode`` below are the only place a journal key is spelt.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from reports.errors import UsageError


class Status(StrEnum):
    """What became of a mutant."""

    KILLED = "killed"
    SURVIVED = "survived"
    TIMEOUT = "timeout"
    ERROR = "error"
    NO_COVERAGE = "no-coverage"
    SKIPPED = "skipped"  # mutmut's: not run (a reviewed equivalent whose line is unchanged)
    TYPE_CHECK = "type-check"
    EQUIVALENT = "equivalent"  # the report's: a reviewed equivalent
    PENDING = "pending"  # not run yet


#: The statuses that leave a mutant alive in the report's eyes (a survivor, or no test could run on it).
ALIVE = frozenset({Status.SURVIVED, Status.NO_COVERAGE, Status.ERROR})


class Outcome(StrEnum):
    """A test's outcome in one run (pytest's words)."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"
    XFAILED = "xfailed"
    XPASSED = "xpassed"


#: Test outcomes that count as red.
RED = frozenset({Outcome.FAILED, Outcome.ERROR, Outcome.XFAILED})
#: Outcomes that kill a mutant.
FAILING = (Outcome.FAILED, Outcome.ERROR)
#: Test outcomes that pass: the tests a mutant's run can turn red.
GREEN = frozenset({Outcome.PASSED, Outcome.XPASSED})


class Kind(StrEnum):
    """What a journal record is the run of."""

    BASELINE = "baseline"
    DEFECT = "defect"  # a named mutant: a known defect alone in sound
    REMOVAL = "removal"  # a named mutant: one of the seed's removals
    EXTRA = "extra"  # a patch file (--extra-mutants)
    MUTMUT = "mutmut"
    WITNESS = "witness"
    INVENTORY = "inventory"
    COVERAGE = "coverage"


NAMED_KINDS = frozenset({Kind.DEFECT, Kind.REMOVAL})

#: The journal key of the baseline run.
BASELINE = "baseline"

#: Why a test has no red-first witness.
NO_CODE = "covers no mutated code (calls no mutated function in its own process)"
ONLY_EQUIVALENT = "covers only code whose mutants are equivalent or survived"
REAL_GAP = "a real gap: passed under every killed mutant of the code it covers"
BROKEN = "fails on the unmutated code (on sound, or with no variant): no mutant runs it"


# ----------------------------------------------------------------------------- the records


@dataclass(frozen=True)
class TestRow:
    """One test's run on the baseline (or under a mutant): pytest's node id, its outcome and where it belongs."""

    nodeid: str
    outcome: Outcome
    duration: float
    t: float
    base: str  # the node id without its variant parameter
    file: str
    variant: str | None
    red_on: tuple[str, ...] = ()  # the variants its ``red_on`` marker names
    variants_used: tuple[str, ...] | None = None  # the variants it looked up (None: not recorded)
    reads_table: bool = False  # marked ``defect_table``: it reads the whole defect table
    text: str = ""  # the failure's text, for a red outcome


@dataclass(frozen=True)
class TestCalls:
    """Which functions of the code under test the baseline's tests called (``reports.campaign.plugins.call_recorder``):
    each function's tests as indexes into the baseline's rows (sorted by node id); the functions whose calls outlive a
    test (``shared``: a change to one re-runs every test); the modules instrumented (a function elsewhere is unseen)."""

    functions: Mapping[str, tuple[int, ...]]
    shared: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    spawned: tuple[int, ...] = ()  # the tests that started a Python process: what they call there is not seen

    @staticmethod
    def of(
        nodeids: Sequence[str],
        calls: Mapping[str, Sequence[str]],
        shared: Sequence[str],
        modules: Sequence[str],
        spawned: Collection[str] = (),
    ) -> TestCalls:
        """From each test's calls by node id (``nodeids``: the rows, in their order)."""
        functions: dict[str, list[int]] = {}
        for i, nodeid in enumerate(nodeids):
            for f in calls.get(nodeid, ()):
                functions.setdefault(f, []).append(i)
        return TestCalls(
            {f: tuple(ix) for f, ix in sorted(functions.items())},
            tuple(sorted(shared)),
            tuple(modules),
            tuple(i for i, nodeid in enumerate(nodeids) if nodeid in spawned),
        )

    def by_test(self, nodeids: Sequence[str]) -> dict[str, set[str]]:
        """Each test's calls by node id (``nodeids``: the rows these indexes point into)."""
        out: dict[str, set[str]] = {n: set() for n in nodeids}
        for f, ix in self.functions.items():
            for i in ix:
                out[nodeids[i]].add(f)
        return out


@dataclass(frozen=True)
class BaselineRecord:
    """Phase 1: every selected test once on the unmutated code."""

    fingerprint: str
    wall: float
    overhead: float  # the run's time outside the tests (start-up, collection)
    exit: int
    tests: tuple[TestRow, ...]
    finished: float
    key: str = BASELINE
    #: What the baseline's results depended on, part by part (``reports.campaign.dependency_keys.baseline_sources``):
    #: the next baseline re-runs only the tests whose parts changed.
    sources: Mapping[str, str] = field(default_factory=dict)
    reused: int = 0  # the rows carried over from an earlier baseline (their parts unchanged)
    calls: TestCalls | None = None  # which functions each test called (None: not recorded)

    @property
    def kind(self) -> Kind:
        return Kind.BASELINE


@dataclass(frozen=True)
class MutantRecord:
    """Phase 2: a named mutant's run (a known defect, one of the seed's removals, or an extra patch file)."""

    key: str
    fingerprint: str
    kind: Kind
    spec: str
    ran: int  # the tests it ran
    status: Status
    finished: float
    duration: float = 0.0
    all_variants: bool = False
    killed_by: tuple[str, ...] = ()
    failures: Mapping[str, str] = field(default_factory=dict)  # killing test -> its failure text
    outcomes: Mapping[str, Outcome] = field(default_factory=dict)  # every test that did not pass -> its outcome
    shrunk: tuple[str, ...] = ()  # the killers whose failure text was shrunk again
    slowest: tuple[tuple[str, float], ...] = ()  # (node id, seconds) of the slowest tests, a second or more
    time_to_kill: float | None = None
    timed_out: bool = False
    timed_out_in: str | None = None
    timeout: float | None = None  # the seconds it was given
    exit: int | None = None
    passed: int | None = None
    shrink_seconds: float = 0.0
    log_tail: str = ""
    engine: str = ""  # "warm" when run from the warm session
    deps: str = ""  # its dependency key (reports.campaign.dependency_keys)
    reason: str = ""  # why it ended as it did, when not by its tests (a patch that does not apply)
    diff: str = ""  # an extra mutant's patch, its file and first changed line
    file: str = ""
    line: int | None = None
    #: The functions of the code under test each test called under the mutant beyond those its baseline run called
    #: (only tests with some), and each such function's key then (``dependency_keys.keys_by_function``): a change to
    #: one can change what the test does under the mutant though the baseline does not run the test again.
    reached: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    reached_keys: Mapping[str, str] = field(default_factory=dict)
    #: The tests that started a Python process under the mutant (every test run, when the baseline recorded no
    #: calls): what they called is not known, so a change to any function runs them again.
    unseen: tuple[str, ...] = ()


@dataclass(frozen=True)
class MutantChange:
    """What a mutmut mutant changed: where (1-based, in the source file), the lines before and after, the diff."""

    file: str
    function: str
    line: int = 1
    column: int = 1
    end_line: int = 1
    end_column: int = 1
    original: str = ""
    replacement: str = ""
    mutator: str = "Mutation"
    diff: str = ""
    #: The exact span (line, column to end_line, end_column, end exclusive) holds ``span_original``; the mutant is
    #: the source with it replaced by ``span_replacement`` (both empty in a journal written before spans).
    span_original: str = ""
    span_replacement: str = ""


@dataclass(frozen=True)
class MutmutRecord:
    """Phase 3: one of mutmut's operator mutants, as mutmut's files left it."""

    key: str
    fingerprint: str
    status: Status
    exit: int | None
    duration: float
    change: MutantChange
    killed_by: tuple[str, ...] = ()

    @property
    def kind(self) -> Kind:
        return Kind.MUTMUT


@dataclass(frozen=True)
class InventoryRecord:
    """Phase 3: every mutmut mutant of one folder (``path``), so the report counts the ones not run yet."""

    key: str
    fingerprint: str
    names: tuple[str, ...]
    path: str
    note: str = ""  # why mutmut stopped short, if it did

    @property
    def kind(self) -> Kind:
        return Kind.INVENTORY


@dataclass(frozen=True)
class CoverageRecord:
    """Phase 3: mutmut's per-function coverage (``mutmut-stats.json``): the tests that call each mutated function,
    as indices into ``tests``, so the report lists what covers each mutant."""

    key: str
    fingerprint: str
    tests: tuple[str, ...]
    functions: Mapping[str, tuple[int, ...]]  # mangled function name (``reference.ops.x_f``) -> test indices

    @property
    def kind(self) -> Kind:
        return Kind.COVERAGE

    def covering(self, function: str) -> tuple[str, ...]:
        return tuple(self.tests[k] for k in self.functions.get(function, ()))


@dataclass(frozen=True)
class WitnessRecord:
    """Phase 4: a never-red test's red-first witness (a killed mutant it kills), or why it has none."""

    key: str
    fingerprint: str
    base: str
    test: str | None  # the node id searched (None: not searched, ``reason`` says why)
    witness: str | None
    tried: int = 0
    failure: str = ""
    reason: str = ""
    deps: str = ""

    @property
    def kind(self) -> Kind:
        return Kind.WITNESS


Record = BaselineRecord | MutantRecord | MutmutRecord | InventoryRecord | CoverageRecord | WitnessRecord
#: A journal's records by key (the last one for a key wins).
Records = dict[str, Record]


def baseline_of(records: Records) -> BaselineRecord:
    """The baseline among ``records`` (``KeyError`` without one: every phase after the first needs it)."""
    baseline = records[BASELINE]
    if not isinstance(baseline, BaselineRecord):
        raise KeyError(f"{BASELINE!r} is a {type(baseline).__name__}, not the baseline")
    return baseline


def finished_at(record: Record) -> float:
    """When a run finished (0 for a record that keeps no time: a mutmut result, an inventory, a witness)."""
    return record.finished if isinstance(record, BaselineRecord | MutantRecord) else 0.0


def witness_key(base: str) -> str:
    return f"witness:{base}"


def inventory_key(journal: str, path: str) -> str:
    return f"mutmut-inventory:{journal}:{path}"


def mutmut_key(name: str) -> str:
    return f"mutmut:{name}"


def coverage_key(journal: str) -> str:
    return f"mutmut-coverage:{journal}"


# ----------------------------------------------------------------------------- the codec

JSON = dict[str, Any]


class RecordError(UsageError, ValueError):
    """A journal line that is not a record this code knows (skipped by the journal's reader; given to a command, a
    bad input)."""


def encode(record: Record) -> JSON:
    """The JSON object the journal stores for ``record`` (the on-disk format of every journal so far)."""
    if isinstance(record, BaselineRecord):
        return {
            "mutant": record.key,
            "fingerprint": record.fingerprint,
            "kind": Kind.BASELINE,
            "wall": record.wall,
            "overhead": record.overhead,
            "exit": record.exit,
            "tests": [encode_row(r) for r in record.tests],
            "finished": record.finished,
            **({"sources": dict(record.sources)} if record.sources else {}),
            **({"reused": record.reused} if record.reused else {}),
            **({"test_calls": _encode_calls(record.calls)} if record.calls is not None else {}),
        }
    if isinstance(record, MutantRecord):
        out: JSON = {
            "mutant": record.key,
            "fingerprint": record.fingerprint,
            "kind": record.kind,
            "spec": record.spec,
            "ran": record.ran,
            "all_variants": record.all_variants,
            "status": record.status,
            "timed_out": record.timed_out,
            "timeout": record.timeout,
            "exit": record.exit,
            "duration": record.duration,
            "shrink_seconds": record.shrink_seconds,
            "time_to_kill": record.time_to_kill,
            "killed_by": list(record.killed_by),
            "failures": dict(record.failures),
            "shrunk": list(record.shrunk),
            "outcomes": dict(record.outcomes),
            "timed_out_in": record.timed_out_in,
            "passed": record.passed,
            "slowest": [[t, s] for t, s in record.slowest],
            "log_tail": record.log_tail,
            "finished": record.finished,
        }
        optional = {
            "engine": record.engine,
            "deps": record.deps,
            "reason": record.reason,
            "reached": {t: list(fs) for t, fs in record.reached.items()},
            "reached_keys": dict(record.reached_keys),
            "unseen": list(record.unseen),
        }
        if record.kind == Kind.EXTRA:
            optional.update(diff=record.diff, file=record.file, line=record.line)
        return out | {k: v for k, v in optional.items() if v or k in ("file", "diff", "line")}
    if isinstance(record, MutmutRecord):
        c = record.change
        return {
            "mutant": record.key,
            "fingerprint": record.fingerprint,
            "kind": Kind.MUTMUT,
            "status": record.status,
            "exit": record.exit,
            "duration": record.duration,
            "killed_by": list(record.killed_by),
            "file": c.file,
            "function": c.function,
            "line": c.line,
            "column": c.column,
            "end_line": c.end_line,
            "end_column": c.end_column,
            "original": c.original,
            "replacement": c.replacement,
            "mutator": c.mutator,
            "diff": c.diff,
        } | (
            {"span_original": c.span_original, "span_replacement": c.span_replacement}
            if c.span_original or c.span_replacement
            else {}
        )
    if isinstance(record, CoverageRecord):
        return {
            "mutant": record.key,
            "fingerprint": record.fingerprint,
            "kind": Kind.COVERAGE,
            "tests": list(record.tests),
            "tests_by_function": {f: list(ix) for f, ix in sorted(record.functions.items())},
        }
    if isinstance(record, InventoryRecord):
        return {
            "mutant": record.key,
            "fingerprint": record.fingerprint,
            "kind": Kind.INVENTORY,
            "names": list(record.names),
            "path": record.path,
            "note": record.note,
        }
    out = {
        "mutant": record.key,
        "fingerprint": record.fingerprint,
        "kind": Kind.WITNESS,
        "base": record.base,
        "test": record.test,
        "witness": record.witness,
        "tried": record.tried,
        "reason": record.reason,
    }
    if record.test is not None:
        out["failure"] = record.failure
    return out | ({"deps": record.deps} if record.deps else {})


def encode_row(row: TestRow) -> JSON:
    out: JSON = {
        "nodeid": row.nodeid,
        "outcome": row.outcome,
        "duration": row.duration,
        "t": row.t,
        "base": row.base,
        "file": row.file,
        "variant": row.variant,
        "red_on": list(row.red_on),
        "reads_table": row.reads_table,
    }
    if row.variants_used is not None:
        out["variants_used"] = list(row.variants_used)
    return out | ({"text": row.text} if row.text else {})


def _encode_calls(calls: TestCalls) -> JSON:
    return {
        "functions": {f: list(ix) for f, ix in calls.functions.items()},
        "shared": list(calls.shared),
        "modules": list(calls.modules),
        "spawned": list(calls.spawned),
    }


def _decode_calls(o: Mapping[str, Any]) -> TestCalls:
    return TestCalls(
        {str(f): tuple(int(i) for i in ix) for f, ix in o["functions"].items()},
        tuple(o.get("shared") or ()),
        tuple(o.get("modules") or ()),
        tuple(int(i) for i in o.get("spawned") or ()),
    )


def decode(obj: Mapping[str, Any]) -> Record:
    """The record a journal's JSON object holds; ``RecordError`` if it is none this code knows."""
    try:
        return _decode(obj)
    except (KeyError, TypeError, ValueError) as e:
        raise RecordError(f"not a journal record: {e!r}") from e


def _decode(o: Mapping[str, Any]) -> Record:
    kind = Kind(o["kind"])
    key, fp = str(o["mutant"]), str(o["fingerprint"])
    if kind == Kind.BASELINE:
        return BaselineRecord(
            key=key,
            fingerprint=fp,
            wall=o.get("wall", 0.0),
            overhead=o.get("overhead", 0.0),
            exit=o.get("exit", 0),
            tests=tuple(decode_row(r) for r in o["tests"]),
            finished=o.get("finished", 0.0),
            sources={str(k): str(v) for k, v in (o.get("sources") or {}).items()},
            reused=int(o.get("reused", 0)),
            calls=_decode_calls(o["test_calls"]) if o.get("test_calls") is not None else None,
        )
    if kind in (Kind.DEFECT, Kind.REMOVAL, Kind.EXTRA):
        return MutantRecord(
            key=key,
            fingerprint=fp,
            kind=kind,
            spec=o.get("spec") or "",
            ran=o.get("ran", 0),
            status=Status(o["status"]),
            finished=o.get("finished", 0.0),
            duration=o.get("duration", 0.0),
            all_variants=bool(o.get("all_variants")),
            killed_by=tuple(o.get("killed_by") or ()),
            failures=dict(o.get("failures") or {}),
            outcomes={t: Outcome(v) for t, v in (o.get("outcomes") or {}).items()},
            shrunk=tuple(o.get("shrunk") or ()),
            slowest=tuple((t, s) for t, s in o.get("slowest") or ()),
            time_to_kill=o.get("time_to_kill"),
            timed_out=bool(o.get("timed_out")),
            timed_out_in=o.get("timed_out_in"),
            timeout=o.get("timeout"),
            exit=o.get("exit"),
            passed=o.get("passed"),
            shrink_seconds=o.get("shrink_seconds", 0.0),
            log_tail=o.get("log_tail") or "",
            engine=o.get("engine") or "",
            deps=o.get("deps") or "",
            reason=o.get("reason") or "",
            diff=o.get("diff") or "",
            file=o.get("file") or "",
            line=o.get("line"),
            reached={str(t): tuple(fs) for t, fs in (o.get("reached") or {}).items()},
            reached_keys={str(f): str(k) for f, k in (o.get("reached_keys") or {}).items()},
            unseen=tuple(o.get("unseen") or ()),
        )
    if kind == Kind.MUTMUT:
        return MutmutRecord(
            key=key,
            fingerprint=fp,
            status=Status(o["status"]),
            exit=o.get("exit"),
            duration=o.get("duration", 0.0),
            killed_by=tuple(o.get("killed_by") or ()),
            change=decode_change(o),
        )
    if kind == Kind.COVERAGE:
        return CoverageRecord(
            key=key,
            fingerprint=fp,
            tests=tuple(o.get("tests") or ()),
            functions={f: tuple(ix) for f, ix in (o.get("tests_by_function") or {}).items()},
        )
    if kind == Kind.INVENTORY:
        return InventoryRecord(
            key=key,
            fingerprint=fp,
            names=tuple(o.get("names") or ()),
            path=o.get("path") or "",
            note=o.get("note") or "",
        )
    return WitnessRecord(
        key=key,
        fingerprint=fp,
        base=o["base"],
        test=o.get("test"),
        witness=o.get("witness"),
        tried=o.get("tried", 0),
        failure=o.get("failure") or "",
        reason=o.get("reason") or "",
        deps=o.get("deps") or "",
    )


def decode_change(o: Mapping[str, Any]) -> MutantChange:
    """A mutmut mutant's change, from its journal record or from ``mutmut.describe``'s fields of the same names."""
    return MutantChange(
        file=o.get("file") or "",
        function=o.get("function") or "",
        line=o.get("line") or 1,
        column=o.get("column") or 1,
        end_line=o.get("end_line") or 1,
        end_column=o.get("end_column") or 1,
        original=o.get("original") or "",
        replacement=o.get("replacement") or "",
        mutator=o.get("mutator") or "Mutation",
        diff=o.get("diff") or "",
        span_original=o.get("span_original") or "",
        span_replacement=o.get("span_replacement") or "",
    )


def decode_row(o: Mapping[str, Any]) -> TestRow:
    """A test's row, from a journal record or from a child session's output (reports.campaign.plugins)."""
    nodeid = o["nodeid"]
    return TestRow(
        nodeid=nodeid,
        outcome=Outcome(o["outcome"]),
        duration=o.get("duration", 0.0),
        t=o.get("t", 0.0),
        base=o.get("base") or nodeid,
        file=o.get("file") or nodeid.split("::")[0],
        variant=o.get("variant"),
        red_on=tuple(o.get("red_on") or ()),
        variants_used=None if o.get("variants_used") is None else tuple(o["variants_used"]),
        reads_table=bool(o.get("reads_table")),
        text=o.get("text") or "",
    )


def dumps(record: Record) -> str:
    """One journal line (without its newline)."""
    return json.dumps(encode(record), sort_keys=True)


def loads(line: str) -> Record | None:
    """The record of one journal line; None for a line cut short by a kill or a record this code does not know."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict):
        return None
    try:
        return decode(obj)
    except RecordError:
        return None


def ordered(records: Sequence[Record]) -> Records:
    """Records by key; the last one for a key wins."""
    return {r.key: r for r in records}
