"""How much of an incremental report's mutmut re-runs recording calls under each mutant could save.

After a change to one function, ``cmharness report`` runs again every mutmut mutant one of whose tests (those its
verdict ran, up to its killer) calls the function on the baseline: the change may alter what that test does under the
mutant. A test that fails under the mutant before it reaches the function does the same after the change, so a
verdict whose tests never called the function *under the mutant* need not run again; the campaign does not record
those calls. This measures what it would save: it samples the mutants such a change re-runs (the function's own
left out: they always run), runs each on its tests with the call recorder (``--cm-calls``), and counts those whose
run never reached the function, with the core-seconds the verdicts took when they were given.

    PYTHONPATH=. python benchmarks/bench_rerun_calls.py --project CLONE --function strategies.cap.marker [--sample 40]

``CLONE`` holds a complete report (``reports/out/journal``) and its state (``.cmharness/mutmut``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reports.campaign.journal import read_records
from reports.campaign.mutmut.meta import load_meta, unmangled
from reports.campaign.mutmut.work_copy import RAN
from reports.campaign.protocol import TestFinished, decode_result, read_lines
from reports.campaign.records import BaselineRecord

ROOT = Path(__file__).resolve().parents[1]


def callers(project: Path, function: str) -> set[str]:
    """The tests the last baseline saw call ``function`` (dotted, ``strategies.cap.marker``)."""
    baselines = [r for r in read_records(project / "reports" / "out" / "journal") if isinstance(r, BaselineRecord)]
    if not baselines or baselines[-1].calls is None:
        sys.exit(f"bench_rerun_calls: {project} has no baseline with recorded calls: run `cmharness report` there")
    base = baselines[-1]
    if function not in base.calls.functions:
        sys.exit(f"bench_rerun_calls: the baseline saw no test call {function}")
    return {base.tests[i].nodeid for i in base.calls.functions[function]}


def rerun_by_change(work: Path, called_by: set[str], function: str) -> dict[str, list[str]]:
    """The verdicts a change to ``function`` runs again, other than its own mutants: each mutant's key and the tests
    its verdict ran."""
    saved = json.loads((work.parent / RAN).read_text(encoding="utf-8"))
    table = saved["tests"]
    out = {}
    for key, (_, ran) in saved["mutants"].items():
        tests = [table[i] for i in ran]
        if called_by.intersection(tests) and unmangled(key.rsplit("__mutmut_", 1)[0]) != function:
            out[key] = tests
    return out


def reaches(work: Path, key: str, tests: list[str], function: str, limit: float) -> tuple[bool, str]:
    """Whether any of ``tests`` run under mutant ``key`` calls ``function`` (a copy of it, or its trampoline), and how
    pytest ended. A run past ``limit`` seconds (a mutant that loops) is stopped and counted as calling it: unknown."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.jsonl"
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly"]
        cmd += ["-p", "reports.campaign.plugins.mutant_plugin", "--cm-calls", f"--cm-results={out}", "--cm-no-shrink"]
        env = {**os.environ, "MUTANT_UNDER_TEST": key, "PYTHONPATH": "."}
        try:
            run = subprocess.run([*cmd, *tests], cwd=work / "mutants", env=env, capture_output=True, timeout=limit)
        except subprocess.TimeoutExpired:
            return True, f"stopped after {limit:.0f} s"
        rows = [m for m in read_lines(out, decode_result)[0] if isinstance(m, TestFinished)]
    called = {unmangled(name.rsplit("__mutmut_", 1)[0]) for row in rows for name in row.calls or ()}
    return function in called, f"exit {run.returncode}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=ROOT, help="a checkout with a complete report (default: here)")
    parser.add_argument("--function", required=True, help="the changed function, dotted (strategies.cap.marker)")
    parser.add_argument("--sample", type=int, default=40, help="how many of the re-run mutants to run (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="the sample's seed (default 1)")
    args = parser.parse_args(argv)
    if args.sample < 1:
        sys.exit(f"bench_rerun_calls: --sample {args.sample}: give at least 1")
    work = args.project.resolve() / ".cmharness" / "mutmut" / "project"
    if not (work.parent / RAN).is_file():
        sys.exit(f"bench_rerun_calls: {work.parent} holds no verdicts: run `cmharness report` in the project first")
    rerun = rerun_by_change(work, callers(args.project.resolve(), args.function), args.function)
    seconds = {k: s for _, (_, data) in load_meta(work).items() for k, s in data.get("durations_by_key", {}).items()}
    total = sum(seconds.get(k, 0.0) for k in rerun)
    print(f"a change to {args.function} re-runs {len(rerun)} other mutant(s): {total:.1f} core-seconds when given")
    sample = random.Random(args.seed).sample(sorted(rerun), min(args.sample, len(rerun)))
    started, missed, missed_seconds = time.time(), 0, 0.0
    for key in sample:
        called, ended = reaches(work, key, rerun[key], args.function, 30 + 10 * seconds.get(key, 1.0))
        missed += not called
        missed_seconds += 0.0 if called else seconds.get(key, 0.0)
        print(f"  {key}: {len(rerun[key])} test(s), {ended}, {'calls it' if called else 'never calls it'}")
    sampled = sum(seconds.get(k, 0.0) for k in sample)
    spared = missed_seconds / sampled * total if sampled else 0.0
    print(
        f"{missed} of {len(sample)} sampled never call {args.function} under their mutant "
        f"({missed_seconds:.1f} of the sample's {sampled:.1f} core-seconds); recording calls under mutants would "
        f"spare about {spared:.1f} of {total:.1f} core-seconds ({time.time() - started:.0f} s to measure)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
