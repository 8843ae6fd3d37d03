"""The campaign's progress on stderr: a line per finished mutant, and the times it shows."""

from __future__ import annotations

import time
from typing import TextIO

from reports.campaign.records import MutantRecord, Status


class Progress:
    """A line per finished mutant on stderr: counts by status, elapsed time and an ETA."""

    def __init__(self, total: int, workers: int, stream: TextIO | None, label: str = "mutants") -> None:
        self.total, self.workers, self.stream, self.label = total, max(1, workers), stream, label
        self.done = 0
        self.counts: dict[str, int] = {}
        self.start = time.time()
        self.busy = 0.0

    def finished(self, mutant_id: str, record: MutantRecord) -> None:
        self.done += 1
        status = record.status
        self.counts[status] = self.counts.get(status, 0) + 1
        self.busy += record.duration
        if self.stream is None:
            return
        elapsed = time.time() - self.start
        left = self.total - self.done
        eta = (self.busy / self.done) * left / self.workers if self.done else 0.0
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        extra = f" by {len(record.killed_by)} test(s)" if status == Status.KILLED else ""
        self.stream.write(
            f"[{self.done}/{self.total} {self.label}] {mutant_id}: {status}{extra} "
            f"({record.duration:.1f}s) | {counts} | elapsed {fmt_time(elapsed)}, "
            f"ETA {fmt_time(eta)}\n"
        )
        self.stream.flush()


def fmt_time(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
