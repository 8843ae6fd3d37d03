"""Kill rate of the unnamed bug patches (``tests/mutants/*.patch``) and the time to the first failure.

    PYTHONPATH=. python benchmarks/bench_unnamed_mutants.py [--rev REV] [--patches DIR] [--jobs N] [--json]
        [--generated-only] [--warm] [TESTS...]

Each patch is applied with ``git apply`` to a fresh copy of the tree (the working tree, or commit
``REV`` through ``git archive``), and ``python -m pytest -q -x -p no:cacheprovider`` runs there
under the ``ci`` profile. A run that fails is a kill; its wall time is the time to the first failure
(``-x`` stops there), and its CPU time (user and system, from ``wait4``), which a shared machine's load moves
less. Prints one line per patch, then the kill rate and the median time to a kill.
``--generated-only`` runs only the ``@given`` tests with Hypothesis's explicit phase off
(``benchmarks/generated_only.py``): the kill rate of generation alone, no ``@example`` helping.
``--warm`` measures a reviewer's checkout instead of a fresh one: each job keeps one copy, where a first
collection has cached the bytecode, and applies and reverts each patch in it.
"""

from __future__ import annotations

import argparse
import contextlib
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
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IGNORED = shutil.ignore_patterns(
    ".git", ".cmharness", "__pycache__", ".pytest_cache", ".hypothesis", "out", "*.egg-info", ".venv"
)
PYTEST = ("-m", "pytest", "-q", "-x", "-p", "no:cacheprovider")
#: Tests of the harness's own tooling: a kill there says little about the model's tests.
HARNESS_TESTS = ("tests/test_campaign_", "tests/test_plugin.py")  # prefixes of node ids


@dataclass(frozen=True)
class Outcome:
    patch: str
    killed: bool
    seconds: float
    first_failure: str
    cpu_seconds: float


def copy_tree(rev: str | None, into: Path) -> None:
    """The working tree, or commit ``rev``, copied to ``into``."""
    if rev is None:
        shutil.copytree(ROOT, into, ignore=IGNORED)
        return
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def first_failure(output: str) -> str:
    found = re.search(r"^(?:FAILED|ERROR) (\S+)", output, re.MULTILINE)
    return found.group(1) if found else ""


#: The plugin module (in this folder) that ``--generated-only`` loads into each run.
GENERATED_ONLY = ("-p", "generated_only")


class Trees:
    """Where each patch runs: a fresh copy per patch, or (``warm``) one copy per job, its bytecode cached by a
    first collection, each patch applied there and reverted after."""

    def __init__(self, rev: str | None, warm: bool) -> None:
        self.rev, self.warm = rev, warm
        self.root = Path(tempfile.mkdtemp(prefix="cm-unnamed-"))
        self.local = threading.local()

    @contextlib.contextmanager
    def patched(self, patch: Path) -> Iterator[tuple[Path, str]]:
        """A tree with ``patch`` applied, and ``git apply``'s complaint if it does not apply."""
        tree = self._job_tree() if self.warm else self._copy()
        applied = subprocess.run(["git", "apply", str(patch)], cwd=tree, capture_output=True, text=True)
        try:
            yield tree, "" if applied.returncode == 0 else applied.stderr.strip()
        finally:
            if not self.warm:
                shutil.rmtree(tree)
            elif applied.returncode == 0:
                subprocess.run(["git", "apply", "-R", str(patch)], cwd=tree, capture_output=True, check=True)

    def _copy(self) -> Path:
        tree = Path(tempfile.mkdtemp(dir=self.root)) / "tree"
        copy_tree(self.rev, tree)
        return tree

    def _job_tree(self) -> Path:
        tree = getattr(self.local, "tree", None)
        if tree is None:
            tree = self.local.tree = self._copy()
            subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider"],
                cwd=tree,
                env={**os.environ, "PYTHONPATH": str(tree)},
                capture_output=True,
            )
        return tree

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def run_one(
    patch: Path, trees: Trees, timeout: float, tests: tuple[str, ...] = (), generated_only: bool = False
) -> Outcome:
    with trees.patched(patch) as (tree, refused):
        if refused:
            return Outcome(patch.name, False, 0.0, f"does not apply: {refused}", 0.0)
        path = os.pathsep.join([str(tree), str(ROOT / "benchmarks")] if generated_only else [str(tree)])
        env = {**os.environ, "PYTHONPATH": path, "CMHARNESS_PROFILE": "ci", "PYTHONHASHSEED": "0"}
        extra = GENERATED_ONLY if generated_only else ()
        with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
            start = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, *PYTEST, *extra, *tests], cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT
            )
            timer = threading.Timer(timeout, proc.kill)
            timer.start()
            _, status, usage = os.wait4(proc.pid, 0)  # the CPU time too: on a shared machine it moves less
            seconds = time.perf_counter() - start
            timed_out = not timer.is_alive()
            timer.cancel()
            proc.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            stdout = out.read()
        cpu = usage.ru_utime + usage.ru_stime
        if timed_out:
            return Outcome(patch.name, False, seconds, "timed out", cpu)
        return Outcome(patch.name, proc.returncode != 0, seconds, first_failure(stdout), cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="measure on this commit (git archive) instead of the working tree")
    parser.add_argument("--patches", type=Path, default=ROOT / "tests" / "mutants")
    parser.add_argument("--only", action="append", default=[], help="patch name prefix (repeatable)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    parser.add_argument(
        "--generated-only",
        action="store_true",
        help="run only the @given tests, with Hypothesis's explicit phase off (no @example runs)",
    )
    parser.add_argument(
        "--warm", action="store_true", help="one checkout per job, bytecode cached, each patch applied and reverted"
    )
    parser.add_argument("tests", nargs="*", help="test paths to run (default: the whole suite)")
    args = parser.parse_args(argv)
    patches = sorted(
        p for p in args.patches.glob("*.patch") if not args.only or any(p.name.startswith(o) for o in args.only)
    )
    if not patches:
        print(f"bench_unnamed_mutants: no *.patch in {args.patches}", file=sys.stderr)
        return 2
    outcomes: list[Outcome] = []
    trees = Trees(args.rev, args.warm)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool, contextlib.closing(trees):
        for out in pool.map(lambda p: run_one(p, trees, args.timeout, tuple(args.tests), args.generated_only), patches):
            outcomes.append(out)
            if not args.json:
                verdict = "killed  " if out.killed else "SURVIVED"
                print(
                    f"{verdict} {out.seconds:7.1f} s {out.cpu_seconds:6.1f} CPU s  {out.patch:<45} {out.first_failure}",
                    flush=True,
                )
    killed = [o for o in outcomes if o.killed]
    median = statistics.median(o.seconds for o in killed) if killed else float("nan")
    median_cpu = statistics.median(o.cpu_seconds for o in killed) if killed else float("nan")
    by_harness = [o for o in killed if o.first_failure.startswith(HARNESS_TESTS)]
    if args.json:
        print(
            json.dumps(
                {
                    "rev": args.rev or "working tree",
                    "generated_only": args.generated_only,
                    "warm": args.warm,
                    "killed": len(killed),
                    "total": len(outcomes),
                    "killed_first_by_harness": len(by_harness),
                    "median_seconds_to_first_failure": median,
                    "median_cpu_seconds_to_first_failure": median_cpu,
                    "outcomes": [asdict(o) for o in outcomes],
                },
                indent=2,
            )
        )
    else:
        print(
            f"\n{args.rev or 'working tree'}{' (@given tests, generated cases only)' if args.generated_only else ''}"
            f"{' (warm checkouts)' if args.warm else ''}: "
            f"{len(killed)}/{len(outcomes)} killed "
            f"({len(by_harness)} first by the harness's own tests); "
            f"median time to the first failure {median:.1f} s ({median_cpu:.1f} CPU s); load average "
            f"{os.getloadavg()[0]:.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
