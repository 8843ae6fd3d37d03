"""The reviewer's loop: how long ``cmharness report`` takes after one small change, in a checkout whose last report was
complete (the state folder and the journal of that run in place).

For each kind of change (a docstring reworded, one line of ``strategies/`` rewritten in three functions called by many,
median and few tests, a change of behaviour only a defect's path reaches, one test's line changed) it
makes the change, times ``cmharness report``, shows what the run said it re-ran, and undoes the change (a run then
finds every result journaled: timed too). With ``--cold`` it also runs each changed tree cold in a copy of its own
and compares the outputs (``report.md``, ``matrix.csv``, ``mutation-report.json``), timings aside. Each line saying
what ran is shown with the second it came at and, where ``/proc/stat`` is readable, how many of the machine's cores
were busy since the line before: where the seconds went, and whether running phases at once could save any.

    PYTHONPATH=. python benchmarks/bench_incremental.py [--project DIR] [--kinds docstring,line,...] [--cold]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Change:
    """One edit of one file: ``old`` (found exactly once) becomes ``new``."""

    kind: str
    path: str
    old: str
    new: str


CHANGES = (
    Change(
        "docstring",
        "strategies/windows.py",
        '"""One past the first index, from the newest, where the running sum exceeds the recent window."""',
        '"""One past the first index, counted from the newest, where the running sum exceeds the recent window."""',
    ),
    # one line of a function nearly half the suite calls (``recent_start``: 1,253 tests), of one at the median of
    # strategies/ (``cleared_by``: 653) and of one in the lowest quarter (``cap.marker``: 135)
    Change("line", "strategies/windows.py", "        total += prices[i]\n", "        total = total + prices[i]\n"),
    Change(
        "line-median",
        "strategies/clearing.py",
        "    return COMPRESSION if compression_work_queued(store, within, defects) else NOTHING\n",
        "    return NOTHING if not compression_work_queued(store, within, defects) else COMPRESSION\n",
    ),
    Change(
        "line-leaf",
        "strategies/cap.py",
        '    return f"\\n\\n[truncated — original was {js_ceil(len16(original) / CHARS_PER_TOKEN)} tokens]"\n',
        '    return "\\n\\n" + f"[truncated — original was {js_ceil(len16(original) / CHARS_PER_TOKEN)} tokens]"\n',
    ),
    # a change of behaviour only a defect's path reaches (``RAW_CAP_PLUS_50``'s price, outside its switch site): the
    # baseline runs the tests that call it, the named mutants the tests that reach it only under the defect
    Change(
        "behaviour",
        "strategies/pricing.py",
        "        return js_min(original_price, cap + RAW_CAP_SLACK) if cap_on(cap) else original_price\n",
        "        return original_price\n",
    ),
    Change(
        "test",
        "tests/test_windows.py",
        "    assert head_end(prices, head_window) == expected\n",
        "    assert expected == head_end(prices, head_window)\n",
    ),
)
#: The lines of the report's progress that say what ran.
SAID = re.compile(r"^(baseline:|incremental:|mutmut:|witnesses:|resuming:|wrote )")
OUTPUTS = ("report.md", "matrix.csv", "mutation-report.json")


def cpu_times() -> tuple[int, int] | None:
    """The machine's busy and total CPU time so far (``/proc/stat``, in ticks), or None where it cannot be read."""
    try:
        ticks = [int(v) for v in Path("/proc/stat").read_text(encoding="ascii").split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)  # idle and iowait are not busy


class CoreSampler:
    """Samples ``cpu_times`` in a thread, so that the busy cores between two moments can be read afterwards."""

    def __init__(self, every: float = 0.2) -> None:
        self.samples: list[tuple[float, int, int]] = []
        self.every = every
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.done.is_set():
            now = cpu_times()
            if now is not None:
                self.samples.append((time.time(), *now))
            self.done.wait(self.every)

    def __enter__(self) -> CoreSampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()

    def busy(self, start: float, end: float) -> float | None:
        """The mean number of busy cores from ``start`` to ``end`` (None without two samples around them)."""
        inside = [s for s in self.samples if start - self.every <= s[0] <= end + self.every]
        if len(inside) < 2 or inside[-1][2] == inside[0][2]:
            return None
        (_, b0, t0), (_, b1, t1) = inside[0], inside[-1]
        return (os.cpu_count() or 1) * (b1 - b0) / (t1 - t0)


def report(project: Path, python: Path) -> tuple[float, int, list[str]]:
    """One ``cmharness report`` in ``project``: wall seconds, exit code, the lines saying what ran, each with the
    second it came at and the cores busy since the line before."""
    started = time.time()
    said: list[str] = []
    with CoreSampler() as cores:
        proc = subprocess.Popen(
            [str(python), "-m", "reports.cli", "report"],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert proc.stdout is not None
        last = started
        for line in proc.stdout:
            if SAID.match(line):
                now = time.time()
                busy = cores.busy(last, now)
                on = f", {busy:.1f} cores busy" if busy is not None else ""
                said.append(f"[{now - started:5.1f}s{on}] {line.rstrip()}")
                last = now
        code = proc.wait()
    return time.time() - started, code, said


def edit(project: Path, change: Change, forward: bool) -> None:
    path = project / change.path
    text = path.read_text(encoding="utf-8")
    old, new = (change.old, change.new) if forward else (change.new, change.old)
    if text.count(old) != 1:
        sys.exit(f"bench_incremental: {change.path}: the {change.kind} change's text is not there exactly once")
    path.write_text(text.replace(old, new), encoding="utf-8")


def outputs_differ(a: Path, b: Path) -> list[str]:
    """The outputs whose bytes differ between two report folders, with the report's timings blanked."""
    timing = re.compile(rb"\b\d+(\.\d+)?\s?(ms|s)\b|\d+m\d+s|\"duration\":\d+")
    return [n for n in OUTPUTS if timing.sub(b"T", (a / n).read_bytes()) != timing.sub(b"T", (b / n).read_bytes())]


def cold_copy(project: Path, python: Path) -> tuple[float, Path]:
    """The project copied without its state (journal, work copy), reported cold: seconds, its output folder."""
    target = Path(tempfile.mkdtemp(prefix="bench-incremental-")) / "project"
    ignore = shutil.ignore_patterns(".cmharness", "out", ".hypothesis", "__pycache__", ".git")
    shutil.copytree(project, target, ignore=ignore)
    seconds, _, _ = report(target, python)
    return seconds, target / "reports" / "out"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=ROOT, help="a checkout with a complete report (default: here)")
    parser.add_argument("--kinds", default=",".join(c.kind for c in CHANGES), help="which changes, comma-separated")
    parser.add_argument("--cold", action="store_true", help="also run each changed tree cold and compare outputs")
    args = parser.parse_args(argv)
    project = args.project.resolve()
    python = project / ".venv" / "bin" / "python"
    python = python if python.exists() else Path(sys.executable)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = sorted(set(kinds) - {c.kind for c in CHANGES})
    if unknown:
        sys.exit(f"bench_incremental: unknown kind {unknown[0]} (known: {', '.join(c.kind for c in CHANGES)})")
    if not (project / "reports" / "out" / "journal").is_dir():
        sys.exit(f"bench_incremental: {project} has no report journal: run `cmharness report` there first")
    seconds, code, _ = report(project, python)
    print(f"settle: {seconds:.1f}s, exit {code} (the checkout's own report, brought up to date)")
    for change in (c for c in CHANGES if c.kind in kinds):
        edit(project, change, True)
        try:
            seconds, code, said = report(project, python)
            print(f"\n{change.kind} ({change.path}): {seconds:.1f}s, exit {code}")
            for line in said:
                print(f"  {line[:200]}")
            if args.cold:
                cold, out = cold_copy(project, python)
                differ = outputs_differ(project / "reports" / "out", out)
                print(f"  cold in a copy: {cold:.1f}s; outputs {'differ: ' + ', '.join(differ) if differ else 'equal'}")
        finally:
            edit(project, change, False)
        seconds, code, _ = report(project, python)
        print(f"  undone: {seconds:.1f}s, exit {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
