"""The journal: JSON lines of finished runs, keyed by mutant id and a fingerprint of the code under test
(``reports.campaign.fingerprint``), so a campaign run again skips what is done. This module only reads and writes it."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from reports.campaign.records import Record, Records, dumps, loads


class Journal:
    """JSON lines, one record per finished run; the last record for a key wins."""

    def __init__(self, directory: Path, name: str = "all") -> None:
        self.directory = directory
        self.path = directory / f"{name}.jsonl"
        self.lock = threading.Lock()

    def write(self, record: Record) -> None:
        self.write_all([record])

    def write_all(self, records: Iterable[Record]) -> None:
        """Append ``records`` and sync once (a run that carries ten thousand records over pays one sync)."""
        with self.lock:
            self.directory.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.writelines(dumps(record) + "\n" for record in records)
                fh.flush()
                os.fsync(fh.fileno())


#: What this process has read of each journal file: (its inode, the bytes read, their records). A journal only
#: grows (``compact`` replaces the file, a new inode), so a second read parses only what was added since.
_READ: dict[Path, tuple[int, int, list[Record]]] = {}


def read_records(directory: Path) -> Iterator[Record]:
    """Every record of every journal of ``directory``, in order; a line cut short by a kill is skipped."""
    for path in sorted(directory.glob("*.jsonl")) if directory.is_dir() else []:
        yield from _records_of(path)


def _records_of(path: Path) -> list[Record]:
    stat = path.stat()
    inode, offset, records = _READ.get(path, (stat.st_ino, 0, []))
    if inode != stat.st_ino or stat.st_size < offset:
        offset, records = 0, []
    if stat.st_size > offset:
        with open(path, "rb") as fh:
            fh.seek(offset)
            chunk = fh.read()
        whole = chunk[: chunk.rfind(b"\n") + 1]  # a line still being written (or cut short) is read next time
        records = [*records, *(r for line in whole.decode("utf-8").splitlines() if (r := loads(line)) is not None)]
        offset += len(whole)
    _READ[path] = (stat.st_ino, offset, records)
    return records


def forget_journals(directory: Path) -> None:
    """Drop every journal of ``directory`` (``--full``), and what this process read of them."""
    for path in directory.glob("*.jsonl") if directory.is_dir() else []:
        _READ.pop(path, None)
        path.unlink()


def compact(directory: Path, name: str, fp: str) -> None:
    """Rewrite journal ``name`` with only the last record of each key for fingerprint ``fp`` (after a complete run:
    the journal of many runs would otherwise be read again, line by line, at every start)."""
    path = directory / f"{name}.jsonl"
    if not path.is_file():
        return
    kept = {r.key: r for r in _records_of(path) if r.fingerprint == fp}
    spare = path.with_suffix(".jsonl.new")
    with open(spare, "w", encoding="utf-8") as fh:
        fh.writelines(dumps(record) + "\n" for record in kept.values())
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(spare, path)


def load_journals(directory: Path, fp: str) -> Records:
    """Every record for fingerprint ``fp`` in every journal of ``directory``, by key (the last one wins)."""
    return {r.key: r for r in read_records(directory) if r.fingerprint == fp}


def journal_name(shard: tuple[int, int] | None) -> str:
    return "all" if shard is None else f"shard-{shard[0]}-of-{shard[1]}"
