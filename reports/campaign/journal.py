"""The journal: JSON lines of finished runs, keyed by mutant id and a fingerprint of the code under test, so a
campaign run again skips what is done."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from fnmatch import fnmatchcase
from pathlib import Path

from reports.campaign.dependency_keys import semantic_key
from reports.campaign.named_mutants import Mutant
from reports.campaign.records import MutantRecord, Record, Records, dumps, loads
from reports.campaign.settings import HASHED, Settings

#: The campaign's own modules (paths from the root, or glob patterns of them): changing how results are run or
#: shown never invalidates them.
HARNESS_ONLY = frozenset(
    {
        "reports/campaign/__init__.py",
        "reports/campaign/mutmut/__init__.py",
        "reports/render/__init__.py",
        "reports/campaign/settings.py",
        "reports/campaign/journal.py",
        "reports/campaign/processes.py",
        "reports/campaign/runs.py",
        "reports/campaign/progress.py",
        "reports/campaign/phases/*",
        "reports/campaign/pipeline.py",
        "reports/campaign/run_context.py",
        "reports/campaign/records.py",
        "reports/campaign/named_warm.py",
        "reports/campaign/options.py",
        "reports/render/outputs.py",
        "reports/campaign/mutmut/run.py",
        "reports/campaign/named_mutants.py",
        "mutation/*",
        "tests/campaign_helpers.py",
        "tests/test_campaign_*.py",
        "tests/test_records.py",
        "tests/test_hints.py",
        "tests/test_suite_order.py",
        "tests/test_report_shards.py",
        "tests/test_report_viewer.py",
        "tests/test_report_headline.py",
        "tests/test_mutation_report_spans.py",
        "tests/test_frames.py",
        "tests/viewer/*",
        "reports/frames.py",
        "tests/data/report/*",
        "reports/campaign/hints.py",
        "reports/campaign/mutmut/test_order.py",
        "reports/campaign/witness_search.py",
        "reports/campaign/dependency_keys.py",
        "reports/campaign/extra_mutants.py",
        "reports/cli/report.py",
        "reports/render/mutation_testing_elements.py",
        "reports/render/markdown.py",
        "reports/render/html.py",
        "reports/render/report_model.py",
        "reports/render/summary.py",
        "reports/campaign/mutmut/results.py",
        "reports/campaign/mutmut/meta.py",
        "reports/campaign/equivalents.py",
        "reports/campaign/mutmut/work_copy.py",
    }
)
SKIP_DIRS = frozenset({"__pycache__", ".hypothesis", ".pytest_cache", "out", "mutants"})


def hashed_files(root: Path, hashed: Iterable[str] = HASHED) -> list[Path]:
    files: list[Path] = []
    for name in hashed:
        path = root / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
                files += [Path(dirpath) / f for f in filenames if not f.endswith((".pyc", ".log"))]
    return sorted(f for f in files if not _harness_only(f.relative_to(root).as_posix()))


def _harness_only(path: str) -> bool:
    """Whether ``path`` (from the root) is one of the campaign's own files (``HARNESS_ONLY``)."""
    return any(fnmatchcase(path, pattern) for pattern in HARNESS_ONLY)


def fingerprint(settings: Settings) -> str:
    """A hash of the code under test, the tests, the selection and the profile (16 hex digits). Python is hashed as
    the interpreter reads it, with each node's position: a comment or docstring that moves no code changes nothing."""
    h = hashlib.sha256()
    h.update(json.dumps([list(settings.selection), settings.profile, settings.all_variants]).encode())
    for f in hashed_files(settings.root, settings.hashed):
        h.update(f.relative_to(settings.root).as_posix().encode() + b"\0")
        if f.suffix == ".py":
            h.update(semantic_key(f.read_text(encoding="utf-8", errors="surrogateescape"), positions=True).encode())
        else:
            h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


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


def reuse_unchanged(directory: Path, pending: Sequence[Mutant], keys: dict[str, str], fp: str) -> list[MutantRecord]:
    """Records of earlier runs (any fingerprint) of the pending named mutants whose dependency key is unchanged,
    carried over to fingerprint ``fp``."""
    wanted = {(m.id, keys[m.id]) for m in pending}
    found = {r.key: r for r in read_records(directory) if isinstance(r, MutantRecord) and (r.key, r.deps) in wanted}
    return [replace(found[m.id], fingerprint=fp) for m in pending if m.id in found]


def journal_name(shard: tuple[int, int] | None) -> str:
    return "all" if shard is None else f"shard-{shard[0]}-of-{shard[1]}"
