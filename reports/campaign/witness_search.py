"""Every test shown red: a red-first witness for each test the main pass never saw fail.

mutmut names only a mutant's first killing test and a named mutant's run stops the property searches
once an example test failed, so after the main pass most tests have been seen red nowhere. For each
such test this pass runs it against the already-killed mutants of the code it covers (mutmut's
per-function coverage from its stats run, and the named mutants of the variants it looks up) until
one kills it; that mutant is the test's *witness*. A test with none gets a reason: it covers no
mutated code, the code it covers has only equivalent or surviving mutants, or it is a real gap (it
passed under every killed mutant of that code).

The search runs in one pytest process per worker (``-p reports.campaign.plugins.witness_plugin``, ``--cm-witness
PLAN``): each
test is collected once and run again under each candidate in a forked child, Hypothesis not shrinking and
failures formatted natively (a witness needs the failure, not its minimal example or every frame's source),
the mutant switched in that child (``reports.campaign.mutmut.trampoline.switch_on``, which the trampolines
dispatch on; a named mutant's switches in ``strategies.defects.VARIANTS``), in mutmut's work copy so that its
mutants are there to switch.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path

from reference.variant_names import SOUND
from reports.campaign.hints import committed_hints, function_of
from reports.campaign.mutmut.meta import load_meta, mutant_name, tests_by_function
from reports.campaign.processes import run_process
from reports.campaign.protocol import (
    MAX_CANDIDATES,
    Candidate,
    CandidateKind,
    WitnessFound,
    WitnessPlan,
    read_lines,
    write_plan,
)
from reports.campaign.records import (
    NO_CODE,
    ONLY_EQUIVALENT,
    REAL_GAP,
    RED,
    Kind,
    MutantRecord,
    MutmutRecord,
    Outcome,
    Records,
    Status,
    WitnessRecord,
    baseline_of,
    mutmut_key,
    witness_key,
)
from reports.campaign.settings import Settings

# ----------------------------------------------------------------------------- what to search


def red_bases(records: Records) -> set[str]:
    """The tests (node ids without their variant) seen red: on the baseline, killing a mutant, or witnessed."""
    rows = baseline_of(records).tests
    base = {r.nodeid: r.base for r in rows}
    red = {r.base for r in rows if r.outcome in RED}
    for rec in records.values():
        if isinstance(rec, MutantRecord | MutmutRecord):
            red.update(base.get(t, t) for t in rec.killed_by)
        if isinstance(rec, WitnessRecord) and rec.witness:
            red.add(rec.base)
    return red


def never_red(records: Records) -> dict[str, str]:
    """Each never-red test's representative node id (a passing run, on ``sound`` where it has one), by base."""
    red = red_bases(records)
    chosen: dict[str, str] = {}
    for r in baseline_of(records).tests:
        if r.outcome != Outcome.PASSED or r.base in red:
            continue
        if r.base not in chosen or r.variant == SOUND:
            chosen[r.base] = r.nodeid
    return dict(sorted(chosen.items()))


def load_coverage(work: Path | None) -> dict[str, set[str]]:
    """mutmut's stats: the tests that call each mutated function, by its mangled name."""
    return {k: set(v) for k, v in ((tests_by_function(work) if work else None) or {}).items()}


def unrun_by_function(work: Path | None, records: Records) -> dict[str, list[str]]:
    """The mutants mutmut made that this journal holds no result for (a folder outside every run's scope), by
    mangled function name: a witness may be any mutant the test is red under, and the search runs each candidate
    itself."""
    out: dict[str, list[str]] = {}
    for _source, (_, data) in sorted(load_meta(work).items()) if work else []:
        for key in data.get("exit_code_by_key", {}):
            name = mutant_name(key)
            if f"mutmut:{name}" not in records:
                out.setdefault(function_of(name), []).append(name)
    return out


def killed_by_function(records: Records) -> dict[str, list[str]]:
    """The killed mutmut mutants of each mutated function, by its mangled name."""
    out: dict[str, list[str]] = {}
    for key, rec in sorted(records.items()):
        if isinstance(rec, MutmutRecord) and rec.status == Status.KILLED:
            name = key.removeprefix("mutmut:")
            out.setdefault(function_of(name), []).append(name)
    return out


def plan(
    records: Records,
    coverage: dict[str, set[str]],
    hints: dict[str, str] | None = None,
    discover: bool = False,
    killed: dict[str, list[str]] | None = None,
    killers: dict[str, tuple[str, ...]] | None = None,
    kills: dict[str, str] | None = None,
    unrun: dict[str, list[str]] | None = None,
    bases: set[str] | None = None,
) -> tuple[dict[str, list[Candidate]], dict[str, str]]:
    """(candidates by node id, the reason of each test that has none), for the never-red tests (those of ``bases``
    alone when given: each test's plan is its own); a test's
    witness in ``hints`` (``reports.campaign.hints``) is tried first (else the mutant it killed first in ``kills``,
    by its
    base), then the mutants of the functions whose mutants it
    killed in the last complete report on any variant (``killers``, the hints' killers by function: a test
    that killed first then is often beaten to the kill now, and its search is cut short by its time). With
    ``discover`` (mutmut's work copy is there), a test mutmut's coverage does not name gets a ``discover`` step
    next: the plugin runs it once recording the mutated functions it calls, then tries their killed mutants
    before the rest (a test mutmut's selection leaves out, or one whose calls its stats run missed). ``killed``
    is ``killed_by_function(records)``, computed here unless given; ``unrun`` (``unrun_by_function``) adds, after
    the killed ones, the mutants of the covered functions that no run of this scope tried."""
    hints = hints or {}
    rows = {r.nodeid: r for r in baseline_of(records).tests}
    killed = killed_by_function(records) if killed is None else killed
    any_by_function: dict[str, int] = {}
    for key, rec in records.items():
        if isinstance(rec, MutmutRecord):
            fn = function_of(key)
            any_by_function[fn] = any_by_function.get(fn, 0) + 1
    functions_of: dict[str, list[str]] = {}
    for fn, tests in coverage.items():
        for t in tests:
            functions_of.setdefault(t, []).append(fn)
    killed_before: dict[str, set[str]] = {}  # by test base: a hint names the variant that killed, not ours
    for fn, tests in (killers or {}).items():
        for t in tests:
            killed_before.setdefault(rows[t].base if t in rows else t, set()).add(fn)
    named = [
        (key, rec.spec)
        for key, rec in sorted(records.items())
        if isinstance(rec, MutantRecord)
        and rec.kind in (Kind.DEFECT, Kind.REMOVAL)
        and rec.status == Status.KILLED
        and rec.spec
    ]
    held = _held_first(killed, records), _held_first(unrun or {}, records)
    todo: dict[str, list[Candidate]] = {}
    reasons: dict[str, str] = {}
    for base, nodeid in never_red(records).items():
        if bases is not None and base not in bases:
            continue
        fns = sorted(functions_of.get(nodeid, []))
        # a test that reads the defect table fails under any named mutant by construction: only mutmut's count
        used = [] if rows[nodeid].reads_table else (rows[nodeid].variants_used or ())
        theirs = [Candidate(CandidateKind.NAMED, spec, key) for key, spec in named if spec.split("+", 1)[0] in used]
        known = hints.get(nodeid) or (kills or {}).get(base)
        first = _known(known, theirs, fns, held, records)
        rest = _ordered(theirs, fns, killed_before.get(base, set()), held, records)
        cands = first + list(islice((c for c in rest if c.mutant != known), MAX_CANDIDATES - len(first)))
        if discover and not fns:  # before the named mutants, which a test mutmut leaves out often cannot see
            cands.insert(len(first), Candidate(CandidateKind.DISCOVER))
        if cands:
            todo[nodeid] = cands
        else:
            reasons[base] = ONLY_EQUIVALENT if any(any_by_function.get(fn) for fn in fns) else NO_CODE
    return todo, reasons


#: mutmut's mutants of each function, split into those the journal holds a record of and the others (each in order).
Held = dict[str, tuple[list[str], list[str]]]


def _held_first(by_function: dict[str, list[str]], records: Records) -> Held:
    """Each function's mutants, those ``records`` holds split from the others (their order kept)."""
    return {
        fn: ([n for n in names if mutmut_key(n) in records], [n for n in names if mutmut_key(n) not in records])
        for fn, names in by_function.items()
    }


def _known(
    known: str | None, theirs: list[Candidate], fns: list[str], held: tuple[Held, Held], records: Records
) -> list[Candidate]:
    """The witness a test's search tries first (``known``, from the last complete report), when it is one of its
    candidates or a mutant the journal holds killed; else nothing."""
    if not known:
        return []
    named = next((c for c in theirs if c.mutant == known), None)
    if named is not None:
        return [named]
    if not known.startswith("mutmut:"):
        return []
    name = known.removeprefix("mutmut:")
    fn = function_of(name)
    among = fn in fns and any(name in part for h in held for part in h.get(fn, ((), ())))
    found = records.get(known)
    if among or (isinstance(found, MutmutRecord) and found.status == Status.KILLED):
        return [Candidate(CandidateKind.MUTMUT, name, known)]
    return []


def _ordered(
    theirs: list[Candidate], fns: list[str], mine: set[str], held: tuple[Held, Held], records: Records
) -> Iterator[Candidate]:
    """A test's candidates in the order its search tries them (``known`` aside): first those the journal holds, and
    of them first the mutants of the functions whose mutants the test killed in the last complete report
    (``mine``), then the named mutants and the rest; then those the journal does not hold, in the same order. Each
    group keeps the killed mutants before the unrun ones, and the functions in ``fns``' order."""
    ours = [fn for fn in fns if fn in mine]
    others = [fn for fn in fns if fn not in mine]

    def mutmut(functions: list[str], journaled: bool) -> Iterator[Candidate]:
        for by_function in held:
            for fn in functions:
                for n in by_function.get(fn, ([], []))[0 if journaled else 1]:
                    yield Candidate(CandidateKind.MUTMUT, n, mutmut_key(n))

    for journaled in (True, False):
        yield from mutmut(ours, journaled)
        yield from (c for c in theirs if (c.mutant in records) == journaled)
        yield from mutmut(others, journaled)


# ----------------------------------------------------------------------------- running the search


@dataclass(frozen=True)
class Search:
    """The search over a journal's never-red tests: each test's candidates in the order they are tried (``todo``, by
    node id), the reason of each test that has none (by base), the mutants by function it may switch on, and each
    test's base by node id."""

    todo: dict[str, list[Candidate]]
    reasons: dict[str, str]
    by_function: dict[str, list[str]]
    bases: dict[str, str]

    def first_tried(self) -> dict[str, str]:
        """The journal key of the mutant each test's search tries first, by the test's base: its witness whenever
        that mutant turns it red (as an earlier search saw, its sources unchanged since)."""
        return {self.bases[n]: cands[0].mutant for n, cands in self.todo.items() if cands and cands[0].mutant}

    def only(self, bases: set[str]) -> Search:
        """This search over the tests of ``bases`` alone (the others found their witness or reason meanwhile)."""
        return replace(
            self,
            todo={n: c for n, c in self.todo.items() if self.bases[n] in bases},
            reasons={b: why for b, why in self.reasons.items() if b in bases},
        )


def planned(records: Records, work: Path | None, bases: set[str] | None = None) -> Search:
    """The search over ``records``' never-red tests (those of ``bases`` alone when given: the others hold a witness
    or a reason already), ordered by the committed hints (``hints.committed_hints``)."""
    killed = killed_by_function(records)
    unrun = unrun_by_function(work, records)
    hints = committed_hints()
    todo, reasons = plan(
        records,
        load_coverage(work),
        hints.witnesses,
        discover=work is not None,
        killed=killed,
        killers=hints.killers,
        kills=hints.kills,
        unrun=unrun,
        bases=bases,
    )
    by_function = {fn: killed.get(fn, []) + unrun.get(fn, []) for fn in killed.keys() | unrun.keys()}
    return Search(todo, reasons, by_function, {r.nodeid: r.base for r in baseline_of(records).tests})


def search(
    settings: Settings, records: Records, fp: str, work: Path | None, deadline: float, the_search: Search | None = None
) -> list[WitnessRecord]:
    """Journal records ``witness:<base>`` for the never-red tests: the witness found, or the reason there is none.
    ``the_search`` is ``planned(records, work)`` (perhaps ``only`` over some tests), computed here unless given."""
    chosen = the_search if the_search is not None else planned(records, work)
    todo, reasons = chosen.todo, chosen.reasons
    rows = {r.nodeid: r for r in baseline_of(records).tests}
    out = [
        WitnessRecord(key=witness_key(b), fingerprint=fp, base=b, test=None, witness=None, reason=why)
        for b, why in sorted(reasons.items())
    ]
    if not todo:
        return out
    ids = sorted(todo)
    workers = max(1, min(settings.workers, len(ids)))
    parts = [ids[k::workers] for k in range(workers)]
    cwd = (work / "mutants") if work and (work / "mutants").is_dir() else settings.root
    by_function = chosen.by_function
    plans = [
        WitnessPlan(
            tests={n: tuple(todo[n]) for n in part},
            durations={n: rows[n].duration for n in part},
            killed={fn: tuple(names) for fn, names in by_function.items()},
        )
        for part in parts
    ]
    with ThreadPoolExecutor(workers) as pool:
        runs = pool.map(lambda part: _run_part(settings, cwd, part, deadline), plans)
        found = [r for part in runs for r in part]
    by_node = {r.nodeid: r for r in found}
    for nodeid in ids:
        r = by_node.get(nodeid)
        base = rows[nodeid].base
        if r is None:  # not reached before the deadline: searched next time
            continue
        out.append(
            WitnessRecord(
                key=witness_key(base),
                fingerprint=fp,
                base=base,
                test=nodeid,
                witness=r.witness,
                failure=r.failure,
                tried=r.tried,
                reason="" if r.witness else _reason(r, len(todo[nodeid])),
            )
        )
    return out


def _reason(row: WitnessFound, planned: int) -> str:
    """Why a searched test has no witness: what its ``discover`` step found, a real gap, or a search cut short at
    the candidate budget (``planned`` counts the candidates when the row does not, as before a ``discover`` step
    adds some). No figure here depends on the machine's speed."""
    if not row.complete:
        candidates = planned if row.candidates is None else row.candidates
        return f"not searched to the end: {row.tried} of {candidates} candidates (at most {MAX_CANDIDATES} a test)"
    if row.tried == 0 and row.calls == 0:
        return NO_CODE
    if row.tried == 0:
        return ONLY_EQUIVALENT
    if row.timeouts:
        return f"{REAL_GAP} ({row.timeouts} of its {row.tried} runs cut as loops)"
    return REAL_GAP


def _run_part(settings: Settings, cwd: Path, part: WitnessPlan, deadline: float) -> list[WitnessFound]:
    """One worker's search: ``part`` is its plan (``reports.campaign.plugins.witness_plugin.WitnessSearch``)."""
    nodeids = list(part.tests)
    with tempfile.TemporaryDirectory(prefix="cm-witness-") as tmp:
        plan_path, results, log = Path(tmp) / "plan.json", Path(tmp) / "found.jsonl", Path(tmp) / "log"
        write_plan(plan_path, part)
        local = replace(settings, root=cwd)
        cmd = [
            settings.python,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-p",
            "reports.campaign.plugins.mutant_plugin",
            "--cm-no-shrink",
            "-p",
            "reports.campaign.plugins.witness_plugin",
            f"--cm-witness={plan_path}",
            f"--cm-witness-out={results}",
            "--rootdir=.",
            "--tb=native",
            *nodeids,
        ]
        run_process(cmd, local, log, timeout=max(1.0, deadline - time.time()))
        return read_lines(results, WitnessFound.from_json)[0]
