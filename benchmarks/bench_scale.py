"""What scale costs: fuzz cases per second against workers, mutants per minute against workers and shards, the
serial part that bounds the speed-up, and the wall time that projects to 16 and 64 machines.

    PYTHONPATH=. python benchmarks/bench_scale.py [--fuzz-seconds 60] [--fuzz-workers 1 2]
        [--workers 1 2] [--shards 1 2 3] [--mutmut-paths reference | (default) --no-mutmut]

- Fuzz: ``cmharness fuzz --workers W --time S`` on the default targets and variants, into a fresh database;
  cases per second over the time the workers fuzzed (their collection left out).
- Mutants: ``cmharness report --out TMP`` cold (a fresh journal) with ``--workers W``, then each shard of N
  (``--shard I/N``, one after the other, each with its own baseline, as on N machines) and ``--merge``. By
  default the named mutants only (``--no-mutmut``); ``--mutmut-paths reference`` adds mutmut's operator mutants
  over that folder (minutes per run). Mutants per minute count the mutants a run journaled over its wall time.
- Serial part: the baseline (every shard runs it), mutmut's preparation when mutmut runs, the merge.
- Projection for M machines: serial + (one run's wall - its serial part) / M, with the 2-worker run's figures.
Prints the load average beside each run: on a shared machine the wall times follow it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "reports.cli"]
BASELINE_LINE = re.compile(r"baseline: \d+ tests in ([\d.]+)s")
PREPARED_LINE = re.compile(r"mutmut: prepared in ([\d.]+)\s?s")
FUZZ_LINE = re.compile(r"(\d+) cases \(([\d.]+)/s over (\d+) s of fuzzing\), (\d+) distinct behaviours")


@dataclass(frozen=True)
class Run:
    """One command: its wall seconds, the mutants it journaled, its baseline and mutmut preparation seconds."""

    label: str
    seconds: float
    mutants: int
    baseline: float
    prepared: float
    load: float

    @property
    def per_minute(self) -> float:
        return self.mutants / self.seconds * 60 if self.seconds else 0.0


def timed(command: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, done.stdout + done.stderr


def journaled(journal: Path, shard: str) -> int:
    """Mutants (named and mutmut's) a run wrote to its journal file."""
    path = journal / f"{shard}.jsonl"
    if not path.exists():
        return 0
    count = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("mutant") != "baseline" and rec.get("kind") not in ("inventory", "witness") and "status" in rec:
            count += 1
    return count


def report(out: Path, scope: list[str], *extra: str, label: str, shard: str = "all") -> Run:
    load = os.getloadavg()[0]
    seconds, said = timed([*CLI, "report", "--out", str(out), *scope, *extra])
    baseline = float(m.group(1)) if (m := BASELINE_LINE.search(said)) else 0.0
    prepared = float(m.group(1)) if (m := PREPARED_LINE.search(said)) else 0.0
    return Run(label, seconds, journaled(out / "journal", shard), baseline, prepared, load)


def fuzz(workers: int, seconds: float) -> str:
    with tempfile.TemporaryDirectory() as folder:
        load = os.getloadavg()[0]
        wall, said = timed([*CLI, "fuzz", "--workers", str(workers), "--time", str(seconds), "--database", folder])
    m = FUZZ_LINE.search(said)
    if m is None:
        return f"{workers:>7} {'?':>8}  (no summary line: {said.strip().splitlines()[-1:]})"
    cases, rate, fuzzing, behaviours = m.groups()
    return f"{workers:>7} {float(rate):>8.1f} {cases:>7} {fuzzing:>6} {behaviours:>10} {wall:>6.0f} {load:>5.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fuzz-seconds", type=float, default=60)
    parser.add_argument("--fuzz-workers", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--shards", type=int, nargs="*", default=[1, 2, 3])
    parser.add_argument("--mutmut-paths", nargs="+", default=None, help="mutmut over these folders (default: none)")
    args = parser.parse_args(argv)
    scope = ["--mutmut-paths", *args.mutmut_paths] if args.mutmut_paths else ["--no-mutmut"]
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}; mutants: {' '.join(scope)}")

    if args.fuzz_workers:
        print(f"\nfuzz ({args.fuzz_seconds:.0f} s each)")
        print(f"{'workers':>7} {'cases/s':>8} {'cases':>7} {'fuzz s':>6} {'behaviours':>10} {'wall':>6} {'load':>5}")
        for w in args.fuzz_workers:
            print(fuzz(w, args.fuzz_seconds), flush=True)

    runs: list[Run] = []
    print(f"\n{'run':<22} {'wall s':>7} {'mutants':>7} {'per min':>8} {'baseline s':>10} {'prep s':>7} {'load':>5}")

    def show(r: Run) -> None:
        print(
            f"{r.label:<22} {r.seconds:>7.1f} {r.mutants:>7} {r.per_minute:>8.1f} {r.baseline:>10.1f} "
            f"{r.prepared:>7.1f} {r.load:>5.1f}",
            flush=True,
        )

    with tempfile.TemporaryDirectory() as folder:
        for w in args.workers:
            r = report(Path(folder) / f"w{w}", scope, "--workers", str(w), label=f"one run, {w} worker(s)")
            runs.append(r)
            show(r)
        sharded: dict[int, tuple[float, float]] = {}
        for n in (n for n in args.shards if n > 1):
            shard_runs = []
            merged = Path(folder) / f"merged-{n}" / "journal"
            merged.mkdir(parents=True)
            for i in range(1, n + 1):
                out = Path(folder) / f"s{i}of{n}"
                r = report(out, scope, "--shard", f"{i}/{n}", label=f"shard {i}/{n}", shard=f"shard-{i}-of-{n}")
                shard_runs.append(r)
                show(r)
                for j in (out / "journal").glob("*.jsonl"):
                    (merged / j.name).write_bytes(j.read_bytes())
            m = report(merged.parent, scope, "--merge", label=f"merge of {n}")
            show(m)
            sharded[n] = (max(r.seconds for r in shard_runs) + m.seconds, m.seconds)
        for n, (wall, _) in sharded.items():
            print(f"{n} shards on {n} machines: slowest shard + merge = {wall:.1f} s")
    if runs:
        best = runs[-1]
        serial = best.baseline + best.prepared + (min(m for _, m in sharded.values()) if sharded else 0.0)
        work = max(best.seconds - best.baseline - best.prepared, 0.0)
        print(
            f"\nserial part ({best.label}): baseline {best.baseline:.1f} s + mutmut preparation {best.prepared:.1f} s"
            + (f" + merge {min(m for _, m in sharded.values()):.1f} s" if sharded else "")
            + f" = {serial:.1f} s; the rest {work:.1f} s"
        )
        for machines in (16, 64):
            print(f"projected on {machines} machines: {serial + work / machines:.1f} s (serial + rest / {machines})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
