"""Seconds from a cold start to the first failure of ``pytest -x`` for every named mutant, as a reviewer runs it.

    PYTHONPATH=. python benchmarks/bench_first_failure.py [--rev REV] [--jobs N] [--only ID ...] [--json]

Each named mutant (``reports.campaign.named_mutants.named_mutants``: each known defect alone in ``sound``, and the
seed's
fourteen removals) runs in a fresh process, ``python -m pytest -x -q -p no:cacheprovider -p
reports.campaign.plugins.mutant_plugin --cm-mutant SPEC``, from the tree's root; the figure is the wall clock from the
process's start to its exit (under ``-x``, the first failure). ``--rev`` measures another commit instead,
from a ``git archive`` of it in a temporary folder. Prints a table, the median, min and max, and
how many never failed. On a shared machine the wall times follow the load (the load average is printed); each
run's CPU time (user + system, from ``wait4``) is printed too, and moves much less.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from tabulate import tabulate

from reports.campaign.named_mutants import Mutant, named_mutants

ROOT = Path(__file__).resolve().parents[1]
FAILED_LINE = re.compile(r"^FAILED (\S+)", re.MULTILINE)
SUMMARY_LINE = re.compile(r"(\d+) passed")


@dataclass(frozen=True)
class Timing:
    """One mutant's cold run: seconds to the process's exit, whether a test failed, and which one first."""

    mutant: str
    spec: str
    seconds: float
    cpu_seconds: float
    failed: bool
    first_failure: str
    passed_before: int
    exit_code: int


def command(mutant: Mutant) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "reports.campaign.plugins.mutant_plugin",
        "--cm-mutant",
        mutant.spec,
    ]


def environment(root: Path, bytecode_cache: bool) -> dict[str, str]:
    """This process's environment for a run in ``root``; with ``bytecode_cache``, Python and pytest's
    assertion rewriting may write (and so reuse) their compiled modules, as in an ordinary checkout."""
    dropped = {"PYTEST_ADDOPTS", "MUTANT_UNDER_TEST", "CMHARNESS_PROFILE"}
    if bytecode_cache:
        dropped.add("PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["PYTHONPATH"] = str(root)
    return env


def warm(root: Path, env: dict[str, str]) -> None:
    """One collection, so that the compiled modules (and rewritten test modules) are on disk before timing."""
    subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=root,
        env=env,
        capture_output=True,
        check=False,
    )


def time_one(mutant: Mutant, root: Path, env: dict[str, str], timeout: float) -> Timing:
    """Run the mutant's ``pytest -x`` in a fresh process; its wall time from start to exit and its CPU time."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out_file:
        started = time.perf_counter()
        proc = subprocess.Popen(command(mutant), cwd=root, env=env, stdout=out_file, stderr=subprocess.STDOUT)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out_file.seek(0)
        out = out_file.read()
    code = proc.returncode
    first = FAILED_LINE.search(out)
    lines = out.strip().splitlines()
    passed = SUMMARY_LINE.search(lines[-1]) if lines else None
    return Timing(
        mutant.id,
        mutant.spec,
        round(seconds, 2),
        round(usage.ru_utime + usage.ru_stime, 2),
        code == 1,
        first.group(1) if first else "",
        int(passed.group(1)) if passed else 0,
        code,
    )


def checkout(rev: str) -> Path:
    """A temporary copy of the tree at ``rev`` (``git archive``): nothing in this worktree changes."""
    folder = Path(tempfile.mkdtemp(prefix="bench-first-failure-"))
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def measure(mutants: Sequence[Mutant], root: Path, env: dict[str, str], jobs: int, timeout: float) -> list[Timing]:
    """Every mutant's cold run, ``jobs`` at a time; progress on stderr."""
    done: list[Timing] = []

    def one(mutant: Mutant) -> Timing:
        timing = time_one(mutant, root, env, timeout)
        done.append(timing)
        print(
            f"[{len(done)}/{len(mutants)}] {timing.mutant}: {timing.seconds:.1f} s"
            f"{'' if timing.failed else ' (never failed)'}",
            file=sys.stderr,
            flush=True,
        )
        return timing

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, mutants))


def summary(timings: Sequence[Timing]) -> dict[str, float | int | bool]:
    seconds = [t.seconds for t in timings]
    return {
        "mutants": len(timings),
        "median": round(statistics.median(seconds), 2),
        "min": min(seconds),
        "max": max(seconds),
        "median_cpu": round(statistics.median(t.cpu_seconds for t in timings), 2),
        "never_failed": sum(not t.failed for t in timings),
        "load_average": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="measure this commit (a git archive of it) instead of the working tree")
    parser.add_argument("--jobs", type=int, default=1, help="mutants timed at once (default 1: no contention)")
    parser.add_argument("--only", nargs="+", metavar="ID", help="only these mutants (e.g. defect:RAW_CAP_PLUS_50)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a run counts as never failed")
    parser.add_argument(
        "--bytecode-cache",
        action="store_true",
        help="let Python write compiled modules (unset PYTHONDONTWRITEBYTECODE) and warm them with one "
        "collection first, as in an ordinary checkout that has run the tests before",
    )
    parser.add_argument("--json", action="store_true", help="print the timings and the summary as JSON")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    mutants = named_mutants()
    if args.only:
        known = {m.id for m in mutants}
        unknown = sorted(set(args.only) - known)
        if unknown:
            parser.error(f"unknown mutant(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        mutants = [m for m in mutants if m.id in set(args.only)]
    root = checkout(args.rev) if args.rev else ROOT
    env = environment(root, args.bytecode_cache)
    try:
        if args.bytecode_cache:
            warm(root, env)
        timings = measure(mutants, root, env, args.jobs, args.timeout)
    finally:
        if args.rev:
            shutil.rmtree(root, ignore_errors=True)
    stats = {**summary(timings), "bytecode_cache": args.bytecode_cache}
    if args.json:
        print(
            json.dumps(
                {
                    "rev": args.rev or "working tree",
                    "jobs": args.jobs,
                    "summary": stats,
                    "timings": [asdict(t) for t in timings],
                },
                indent=1,
            )
        )
        return 0
    print(tabulate([{k: v for k, v in asdict(t).items() if k != "spec"} for t in timings], headers="keys"))
    flag = env.get("PYTHONDONTWRITEBYTECODE", "")
    cache = "bytecode cached" if args.bytecode_cache else f"PYTHONDONTWRITEBYTECODE={flag!r}"
    print(
        f"\n{args.rev or 'working tree'}, --jobs {args.jobs}, {cache}: median {stats['median']:.1f} s, "
        f"min {stats['min']:.1f} s, max {stats['max']:.1f} s, "
        f"median CPU {stats['median_cpu']:.1f} s, never failed {stats['never_failed']} of {stats['mutants']} "
        f"(load average {stats['load_average']})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
