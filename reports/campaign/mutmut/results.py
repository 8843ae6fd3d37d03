"""mutmut's results read back from the work copy: each mutant's exit code (``mutants/**/*.meta``) as a status, the
killing tests, and the journal records of the finished mutants."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from pathlib import Path

from reports.campaign.journal import Journal
from reports.campaign.mutmut.describe import describe
from reports.campaign.mutmut.meta import load_meta, module_of
from reports.campaign.records import MutmutRecord, Records, Status, mutmut_key

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


def _pending_names(work: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
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
        info = describe(work, source, finished)
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


def journal_records(journal: Journal, records: list[MutmutRecord], done: Records) -> int:
    """Write the records the journal does not hold yet (the same id and verdict); how many were new."""
    new = 0
    for rec in records:
        old = done.get(rec.key)
        if isinstance(old, MutmutRecord) and old.status == rec.status and old.killed_by == rec.killed_by:
            continue
        journal.write(rec)
        done[rec.key] = rec
        new += 1
    return new
