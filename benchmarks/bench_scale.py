"""What scale costs: fuzz cases per second against workers, mutants per minute against workers and shards, the
serial part that bounds the speed-up, and the wall time that projects to 16 and 64 machines.

    PYTHONPATH=. python benchmarks/bench_scale.py [--fuzz-seconds 60] [--fuzz-workers 1 2]
        [--workers 1 2] [--shards 1 2 3] [--slice fixture | --slice real [--mutmut-paths strategies | --no-mutmut]]
        [--budget SECONDS]

- Fuzz: ``cmharness fuzz --workers W --time S`` on the default targets and variants, into a fresh database;
  cases per second over the time the workers fuzzed (their collection left out).
- Mutants, on a small fixed slice: ``--slice fixture`` (default) is the fake project of
  ``tests/test_report_shards.py``'s mutmut test (its named mutants, mutmut over its ``reference/`` and
  ``strategies/``), ``--slice real`` this project (``--mutmut-paths`` narrows mutmut, ``--no-mutmut`` leaves it
  out). Each run is ``cmharness report`` cold (a fresh journal and mutmut work copy): with ``--workers W``, then
  the N shards ``--shard I/N`` run at the same time (each in its own copy, as on N machines) and ``--merge``.
  Mutants per minute count the mutants a run journaled over its wall time.
- Serial part, read from each run: the time before its first mutant can start (``start s``: the baseline, with
  mutmut's preparation beside it, ``prep s``), the time mutmut then still waits for that preparation (``wait s``),
  and the merge.
- Projection for M machines of 2 cores (Amdahl): serial + parallel / M + merge, from the last workers run: serial is
  the longer of its baseline and mutmut's preparation, parallel its named mutants' time and mutmut's time per
  mutant times every mutmut mutant in scope (pending ones too: a slice projects the whole report).
Prints the 1-minute load average (``os.getloadavg``, as ``uptime``) at the start and end of each run: on a shared
machine the wall times follow it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "reports.cli"]
BASELINE_LINE = re.compile(r"baseline: \d+ tests in ([\d.]+)s")
FIRST_MUTANT_LINE = re.compile(r"bench: mutants start at ([\d.]+) s")
PREPARED_LINE = re.compile(r"bench: mutmut prepared in ([\d.]+) s")
WAITED_LINE = re.compile(r"bench: mutmut waited ([\d.]+) s for its preparation")
MUTMUT_LINE = re.compile(r"bench: mutmut ran ([\d.]+) s")
FUZZ_LINE = re.compile(r"(\d+) cases \(([\d.]+)/s over (\d+) s of fuzzing\), (\d+) distinct behaviours")
#: The fake project's extra modules and tests (as ``tests/test_report_shards.py`` writes them).
FIXTURE_FILES = {
    "reference/__init__.py": "",
    "reference/ops.py": "def double(x):\n    return x * 2\n\n\ndef half(x):\n    return x // 2\n",
    "strategies/step.py": "def inc(x):\n    return x + 1\n",
    "tests/test_ops.py": "from reference.ops import double, half\nfrom strategies.step import inc\n\n\n"
    "def test_double():\n    assert double(3) == 6\n\n\ndef test_half():\n    assert half(4) == 2\n\n\n"
    "def test_inc():\n    assert inc(3) == 4\n",
}
FIXTURE_HASHED = ("pyproject.toml", "strategies", "reference", "calc.py", "tests")


@dataclass(frozen=True)
class Run:
    """One ``cmharness report``: its wall seconds, the mutants it journaled, the serial part it read, the load."""

    label: str
    seconds: float
    mutants: int
    mutmut: int
    mutmut_seconds: float
    in_scope: int
    baseline: float
    before_mutants: float
    prepared: float
    waited: float
    load: tuple[float, float]

    @property
    def per_minute(self) -> float:
        return self.mutants / self.seconds * 60 if self.seconds else 0.0

    @property
    def serial(self) -> float:
        """What a machine does before any mutant runs, and what mutmut still waits for its preparation."""
        return self.before_mutants + self.waited


def journaled(journal: Path) -> tuple[int, int]:
    """Mutants the run wrote to its journal files: all (named and mutmut's), and mutmut's."""
    count, mutmut = 0, 0
    for path in journal.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if rec.get("mutant") != "baseline" and rec.get("kind") not in ("inventory", "witness") and "status" in rec:
                count += 1
                mutmut += rec.get("kind") == "mutmut"
    return count, mutmut


def in_scope(out: Path) -> int:
    """Every mutant the report counts (finished or pending): what one complete run of this scope runs."""
    path = out / "mutation-report.json"
    if not path.exists():
        return 0
    files = json.loads(path.read_text(encoding="utf-8"))["files"].values()
    return sum(len(f["mutants"]) for f in files)


def make_fixture(root: Path) -> Path:
    """The fake project with mutmut's configuration and the harness's ``reports/`` (``test_report_shards``)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from campaign_helpers import make_project
    from test_campaign_mutmut import MUTMUT_CONFIG

    make_project(root)
    for name, text in FIXTURE_FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    shutil.copytree(ROOT / "reports", root / "reports", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml").write_text(MUTMUT_CONFIG)
    return root


def one_run(project: str, argv: list[str]) -> int:
    """``cmharness report ARGV`` in this process, in ``project`` (``real``: this one), saying when its first mutant
    can start (the baseline done) and how long mutmut's preparation took and was waited for (read by ``Run``)."""
    t0 = time.perf_counter()
    sys.path.insert(0, str(ROOT / "tests"))
    from reports.campaign import pipeline
    from reports.campaign.mutmut import execute
    from reports.campaign.phases import baseline as baseline_phase
    from reports.campaign.phases import mutmut as mutmut_phase
    from reports.cli import main
    from reports.cli import report as report_cmd

    def say(text: str) -> None:
        print(f"bench: {text}", file=sys.stderr, flush=True)

    prepare, ok, baseline = execute._prepare, execute.PreparedAhead.ok, baseline_phase.run
    run_mutmut = mutmut_phase.run_mutmut

    def timed_mutmut(*args, **kw):
        start = time.perf_counter()
        try:
            return run_mutmut(*args, **kw)
        finally:
            say(f"mutmut ran {time.perf_counter() - start:.1f} s")

    def timed_prepare(*args, **kw):
        start = time.perf_counter()
        try:
            return prepare(*args, **kw)
        finally:
            say(f"mutmut prepared in {time.perf_counter() - start:.1f} s")

    def timed_ok(self):
        start = time.perf_counter()
        try:
            return ok(self)
        finally:
            say(f"mutmut waited {time.perf_counter() - start:.1f} s for its preparation")

    def timed_baseline(*args, **kw):
        try:
            return baseline(*args, **kw)
        finally:
            say(f"mutants start at {time.perf_counter() - t0:.1f} s")

    execute._prepare, execute.PreparedAhead.ok = timed_prepare, timed_ok
    baseline_phase.run, mutmut_phase.run_mutmut = timed_baseline, timed_mutmut
    if project != "real":
        from campaign_helpers import MUTANTS, settings_for

        root = Path(project)
        quick = [m for m in MUTANTS if m.id != "defect:HANGS"]
        report_cmd.Settings = lambda: settings_for(
            root, hashed=FIXTURE_HASHED, state_dir=root / ".state", progress=sys.stderr
        )
        pipeline.named_mutants = lambda: list(quick)
    return main(["report", *argv])


def start_report(project: str, out: Path, args: list[str]) -> tuple[subprocess.Popen[str], float, float]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one-run", project, "--", "--out", str(out), *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc, time.perf_counter(), os.getloadavg()[0]


def finish_report(started: tuple[subprocess.Popen[str], float, float], out: Path, label: str) -> Run:
    proc, t0, load = started
    said, _ = proc.communicate()
    seconds = time.perf_counter() - t0

    def read(pattern: re.Pattern[str]) -> float:
        return sum(float(m) for m in pattern.findall(said))

    if proc.returncode not in (0, 1, 3):
        print(f"{label}: exit {proc.returncode}\n{said[-2000:]}", file=sys.stderr)
    return Run(
        label,
        seconds,
        *journaled(out / "journal"),
        read(MUTMUT_LINE) - read(WAITED_LINE),
        in_scope(out),
        read(BASELINE_LINE),
        read(FIRST_MUTANT_LINE),
        read(PREPARED_LINE),
        read(WAITED_LINE),
        (load, os.getloadavg()[0]),
    )


def fuzz(workers: int, seconds: float) -> str:
    with tempfile.TemporaryDirectory() as folder:
        load = os.getloadavg()[0]
        wall, said = timed([*CLI, "fuzz", "--workers", str(workers), "--time", str(seconds), "--database", folder])
    m = FUZZ_LINE.search(said)
    if m is None:
        return f"{workers:>7} {'?':>8}  (no summary line: {said.strip().splitlines()[-1:]})"
    cases, rate, fuzzing, behaviours = m.groups()
    return f"{workers:>7} {float(rate):>8.1f} {cases:>7} {fuzzing:>6} {behaviours:>10} {wall:>6.0f} {load:>5.1f}"


def timed(command: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, done.stdout + done.stderr


def show(r: Run, merge: bool = False) -> None:
    """One run's line (a merge runs no mutant: it reads the shards' journals)."""
    rate = "-" if merge else f"{r.per_minute:.1f}"
    print(
        f"{r.label:<22} {r.seconds:>7.1f} {r.mutants:>7} {rate:>8} {r.baseline:>10.1f} "
        f"{r.before_mutants:>8.1f} {r.prepared:>7.1f} {r.waited:>7.1f} {r.load[0]:>5.1f}-{r.load[1]:<5.1f}",
        flush=True,
    )


def mutants(args: argparse.Namespace, folder: Path) -> None:
    """The report runs: workers, then each shard count at once and its merge; then the serial part and projection."""
    scope = [] if args.slice == "fixture" else (["--no-mutmut"] if args.no_mutmut else ["--mutmut-paths", *args.paths])
    scope += ["--budget", str(args.budget)]
    fixture = make_fixture(folder / "fixture") if args.slice == "fixture" else None

    def place(name: str) -> tuple[str, Path, list[str]]:
        """Where one run works: its own copy of the fake project, or here with its own state folder."""
        if fixture is None:
            return "real", folder / name, ["--state-dir", str(folder / name / "state")]
        copy = folder / name / "project"
        shutil.copytree(fixture, copy)
        return str(copy), copy / "out", []

    print(f"\nslice: {args.slice} {' '.join(scope)}")
    print(
        f"{'run':<22} {'wall s':>7} {'mutants':>7} {'per min':>8} {'baseline s':>10} {'start s':>8} "
        f"{'prep s':>7} {'wait s':>7} {'load':>11}"
    )
    runs: list[Run] = []
    for w in args.workers:
        project, out, extra = place(f"w{w}")
        runs.append(
            finish_report(
                start_report(project, out, [*scope, *extra, "--workers", str(w)]), out, f"one run, {w} worker(s)"
            )
        )
        show(runs[-1])
    merges: dict[int, Run] = {}
    for n in args.shards:
        placed = [place(f"s{i}of{n}") for i in range(1, n + 1)]
        started = [
            start_report(p, out, [*scope, *extra, "--shard", f"{i}/{n}"]) for i, (p, out, extra) in enumerate(placed, 1)
        ]
        shard_runs = [
            finish_report(s, out, f"shard {i}/{n}")
            for i, (s, (_, out, _)) in enumerate(zip(started, placed, strict=True), 1)
        ]
        for r in shard_runs:
            show(r)
        project, out, extra = place(f"merged-{n}")
        (out / "journal").mkdir(parents=True)
        for _, shard_out, _ in placed:
            for j in (shard_out / "journal").glob("*.jsonl"):
                shutil.copy(j, out / "journal" / j.name)
        merges[n] = finish_report(start_report(project, out, [*scope, *extra, "--merge"]), out, f"merge of {n}")
        show(merges[n], merge=True)
        wall = max(r.seconds for r in shard_runs)
        total = sum(r.mutants for r in shard_runs)
        print(
            f"  {n} shard(s) at once on this machine: {total} mutants, slowest shard {wall:.1f} s "
            f"({total / wall * 60:.1f} per minute), + merge {merges[n].seconds:.1f} s",
            flush=True,
        )
    if not runs:
        return
    best = runs[-1]
    merge = min((m.seconds for m in merges.values()), default=0.0)
    serial = max(best.before_mutants, best.prepared)  # each machine's baseline, mutmut's preparation beside it
    named = best.mutants - best.mutmut
    named_seconds = max(best.seconds - best.before_mutants - best.waited - best.mutmut_seconds, 0.0)
    full = max(best.in_scope, best.mutants)
    per_mutmut = best.mutmut_seconds / best.mutmut if best.mutmut else 0.0
    rest = named_seconds + per_mutmut * (full - named)
    print(
        f"\nserial part ({best.label}): the baseline {best.baseline:.1f} s (its first mutant at "
        f"{best.before_mutants:.1f} s) with mutmut's preparation beside it {best.prepared:.1f} s: "
        f"{serial:.1f} s on every machine; merge {merge:.1f} s"
        + ("" if merges else " (not run: a merge of a complete pass prepares mutmut again and searches witnesses)")
    )
    print(
        f"parallel part: {named} named mutants in {named_seconds:.1f} s, {best.mutmut} of mutmut's in "
        f"{best.mutmut_seconds:.1f} s ({per_mutmut:.3f} s each); all {full} mutants in scope: {rest:.0f} s on one "
        "machine of 2 cores"
    )
    for machines in (1, 16, 64):
        print(
            f"projected on {machines} machine(s): {serial + rest / machines + merge:.0f} s "
            f"(serial {serial:.0f} + {rest:.0f} / {machines} + merge {merge:.0f})"
        )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--one-run"]:  # one report run (the benchmark's own subprocess)
        return one_run(argv[1], argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fuzz-seconds", type=float, default=60)
    parser.add_argument("--fuzz-workers", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--shards", type=int, nargs="*", default=[1, 2, 3])
    parser.add_argument("--slice", choices=("fixture", "real"), default="fixture")
    parser.add_argument("--mutmut-paths", dest="paths", nargs="+", default=["strategies", "reference"])
    parser.add_argument("--no-mutmut", action="store_true", help="with --slice real: the named mutants only")
    parser.add_argument("--budget", type=float, default=3600, help="each run's --budget (default 3600)")
    args = parser.parse_args(argv)
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    if args.fuzz_workers:
        print(f"\nfuzz ({args.fuzz_seconds:.0f} s each)")
        print(f"{'workers':>7} {'cases/s':>8} {'cases':>7} {'fuzz s':>6} {'behaviours':>10} {'wall':>6} {'load':>5}")
        for w in args.fuzz_workers:
            print(fuzz(w, args.fuzz_seconds), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        mutants(args, Path(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
