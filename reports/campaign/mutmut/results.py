"""mutmut's results read back from the work copy: each mutant's exit code (``mutants/**/*.meta``) as a status, the
killing tests, and the journal records of the finished mutants."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from pathlib import Path

from reports.campaign.dependency_keys import coverage_of, digest
from reports.campaign.journal import Journal
from reports.campaign.mutmut.describe import describe
from reports.campaign.mutmut.meta import load_meta, module_of, mutated_functions, tests_by_function, unmangled
from reports.campaign.records import (
    GREEN,
    BaselineRecord,
    CoverageRecord,
    MutantChange,
    MutmutRecord,
    Records,
    Status,
    decode_change,
    mutmut_key,
)

#: The code that describes a mutant: part of the key of what it described.
DESCRIBER = Path(__file__).with_name("describe.py")

INTERRUPTED = 2
STATUS_BY_EXIT: dict[int | None, str] = {
    1: Status.KILLED,
    3: Status.KILLED,
    0: Status.SURVIVED,
    5: Status.NO_COVERAGE,
    33: Status.NO_COVERAGE,
    34: Status.SKIPPED,
    36: Status.TIMEOUT,
    24: Status.TIMEOUT,
    -24: Status.TIMEOUT,
    152: Status.TIMEOUT,
    255: Status.TIMEOUT,
    37: Status.TYPE_CHECK,
}


def mutmut_status(code: int | None) -> str:
    if code is None or code == INTERRUPTED:
        return Status.PENDING
    return STATUS_BY_EXIT.get(code, Status.ERROR)


# ----------------------------------------------------------------------------- mutmut's results


def reset_interrupted(work: Path) -> None:
    """Run while mutmut is not: mutmut records a mutant it was stopped in as 'interrupted by user'; make it
    pending again (and drop the files a kill left half-written)."""
    for source, (meta, data) in load_meta(work, repair=True).items():
        if not (work / "mutants" / source).exists():  # mutmut makes both anew
            meta.unlink()
            continue
        codes = data.get("exit_code_by_key", {})
        stale = [k for k, v in codes.items() if v == INTERRUPTED]
        if stale:
            for k in stale:
                codes[k] = None
            meta.write_text(json.dumps(data, indent=4), encoding="utf-8")


#: The killers file ``seed_from_journal`` writes (read with the executor's own, which name the same mutants never).
JOURNALED_KILLERS = "journaled.jsonl"


def seed_from_journal(work: Path, journaled: Iterable[MutmutRecord]) -> int:
    """Each pending mutant whose verdict the journal holds for this code (the shards' journals gathered for a merge,
    a report resumed on a fresh work copy) takes it, with its duration and killer: what another machine ran is not
    run again. How many."""
    known = {r.key: r for r in journaled if mutmut_status(r.exit) != Status.PENDING}
    seeded: list[tuple[str, MutmutRecord]] = []
    for _source, (meta, data) in load_meta(work).items():
        codes = data.get("exit_code_by_key", {})
        found = [(k, known[mutmut_key(k)]) for k, c in codes.items() if c is None and mutmut_key(k) in known]
        for name, rec in found:
            codes[name] = rec.exit
            data.setdefault("durations_by_key", {})[name] = rec.duration
        if found:
            meta.write_text(json.dumps(data, indent=4), encoding="utf-8")
            seeded += found
    killed = [(name, rec.killed_by[0]) for name, rec in seeded if rec.killed_by]
    if killed:
        (work / "killers").mkdir(parents=True, exist_ok=True)
        with open(work / "killers" / JOURNALED_KILLERS, "a", encoding="utf-8") as fh:
            fh.writelines(json.dumps({"mutant": name, "test": test}) + "\n" for name, test in killed)
    return len(seeded)


def killers(work: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    folder = work / "killers"
    if folder.is_dir():
        for path in sorted(folder.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(json.JSONDecodeError, KeyError):
                    rec = json.loads(line)
                    out[rec["mutant"]] = rec["test"]
    return out


def pending_names(work: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(all mutant names, names without a result) by module."""
    every: dict[str, list[str]] = {}
    pending: dict[str, list[str]] = {}
    for source, (_, data) in load_meta(work).items():
        module = module_of(source)
        codes = data.get("exit_code_by_key", {})
        every[module] = list(codes)
        pending[module] = [k for k, v in codes.items() if mutmut_status(v) == Status.PENDING]
    return every, pending


def progress_counts(work: Path, owned: Iterable[str]) -> dict[str, int]:
    """Mutants by status over the owned modules (those this run mutates)."""
    mine = set(owned)
    counts: dict[str, int] = {}
    for source, (_, data) in load_meta(work).items():
        if module_of(source) not in mine:
            continue
        for v in data.get("exit_code_by_key", {}).values():
            s = mutmut_status(v)
            counts[s] = counts.get(s, 0) + 1
    return counts


def collect(work: Path, fp: str, owned: set[str], every: dict[str, list[str]]) -> list[MutmutRecord]:
    """Journal records for the finished mutants of the owned modules."""

    killed_by = killers(work)
    records = []
    for source, (_, data) in sorted(load_meta(work).items()):
        module = module_of(source)
        if module not in owned:
            continue
        codes = data.get("exit_code_by_key", {})
        finished = [k for k, v in codes.items() if mutmut_status(v) != Status.PENDING]
        if not finished:
            continue
        info = described(work, source, list(codes))
        for name in finished:
            status = mutmut_status(codes[name])
            killer = killed_by.get(name)
            records.append(
                MutmutRecord(
                    key=mutmut_key(name),
                    fingerprint=fp,
                    status=status,
                    exit=codes[name],
                    duration=round(data.get("durations_by_key", {}).get(name, 0.0), 3),
                    killed_by=(killer,) if killer and status == Status.KILLED else (),
                    change=info[name],
                )
            )
    return records


def described(work: Path, source: str, names: Sequence[str]) -> dict[str, MutantChange]:
    """``describe``'s answer for one mutated file, kept beside the work copy under a key of what it reads (the
    source, mutmut's mutated module, the describing code): describing ten thousand mutants anew costs seconds
    that a run which changed one file should not pay."""
    mutated = work / "mutants" / source
    key = digest(
        (work / source).read_text(encoding="utf-8", errors="replace"),
        mutated.read_text(encoding="utf-8", errors="replace") if mutated.exists() else "",
        DESCRIBER.read_text(encoding="utf-8"),
    )
    cache = work.parent / "described" / (source + ".json")
    with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data["key"] == key and set(names) <= set(data["changes"]):
            return {n: decode_change(data["changes"][n]) for n in names}
    info = describe(work, source, names)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"key": key, "changes": {n: asdict(c) for n, c in info.items()}}), encoding="utf-8")
    return info


def coverage_record(work: Path, fp: str, key: str, baseline: BaselineRecord) -> CoverageRecord | None:
    """The tests that run each mutated function, as a journal record, so that the report, built from the journal
    alone, lists what covers each mutant (None: no stats yet): mutmut's measure (``mutants/mutmut-stats.json``) and
    every test green on the unmutated code that ``baseline`` saw call it, those mutmut's selection leaves out too
    (the property searches over every variant run the mutant's code, though only the named mutants run them)."""
    covered = tests_by_function(work)
    if covered is None:
        return None
    sets = {f: set(t) for f, t in covered.items()}
    calls = coverage_of(baseline)
    if calls is not None:
        green = {r.nodeid for r in baseline.tests if r.outcome in GREEN}
        for function in sorted(set(sets) | mutated_functions(work)):
            if seen := calls.tests_of.get(unmangled(function), frozenset()) & green:
                sets.setdefault(function, set()).update(seen)
    by_function = {f: sorted(t) for f, t in sets.items() if t}
    tests = sorted({t for ts in by_function.values() for t in ts})
    index = {t: k for k, t in enumerate(tests)}
    functions = {f: tuple(index[t] for t in ts) for f, ts in sorted(by_function.items())}
    return CoverageRecord(key, fp, tuple(tests), functions)


def journal_records(journal: Journal, records: list[MutmutRecord], done: Records) -> int:
    """Write the records the journal does not hold yet (the same id, verdict and place in the source: code that
    moved is described again); how many were new."""
    new = [
        rec
        for rec in records
        if not isinstance(old := done.get(rec.key), MutmutRecord)
        or (old.status, old.killed_by, old.change) != (rec.status, rec.killed_by, rec.change)
    ]
    journal.write_all(new)
    done.update((rec.key, rec) for rec in new)
    return len(new)
