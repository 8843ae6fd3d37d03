"""The whole suite serially and on pytest-xdist workers: wall time of each, and whether the verdicts agree.

    PYTHONPATH=. python benchmarks/bench_xdist.py [--workers 2 ...] [-- PYTEST_ARGS]

Runs ``python -m pytest -p no:cacheprovider -q`` once serially and once per ``--workers N`` (``-n N``), each
writing a JUnit XML file, and compares the outcome of every test by node id (passed, failed, error, skipped,
xfailed). Prints the wall time, the speed-up over the serial run and the tests whose outcome differs; exit 1
when any differs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Run:
    """One pytest run: its label, wall seconds, exit code, and each test's outcome by node id."""

    label: str
    seconds: float
    exit_code: int
    outcomes: dict[str, str]


def outcome(case: ET.Element) -> str:
    """A JUnit test case's outcome; pytest writes an xfail as a skip whose type is ``pytest.xfail``."""
    for child in case:
        if child.tag == "skipped":
            return "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
        if child.tag in ("failure", "error"):
            return child.tag
    return "passed"


def node_id(case: ET.Element) -> str:
    """The node id a JUnit test case stands for (pytest writes the module as dotted ``classname``)."""
    classname, name = case.get("classname", ""), case.get("name", "")
    return f"{classname}::{name}"


def run(label: str, extra: list[str], pytest_args: list[str]) -> Run:
    with tempfile.TemporaryDirectory() as folder:
        xml = Path(folder) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--junitxml={xml}", *extra]
        start = time.perf_counter()
        done = subprocess.run([*cmd, *pytest_args], cwd=ROOT, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        cases: dict[str, str] = {}
        for case in ET.parse(xml).getroot().iter("testcase"):
            key = node_id(case)
            # A test case can appear twice (a failure in the call and an error in teardown): the worse one stays.
            if cases.get(key) not in ("failure", "error"):
                cases[key] = outcome(case)
    return Run(label, seconds, done.returncode, cases)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[2], help="xdist worker counts (default 2)")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f}, cores: {os.cpu_count()}")
    serial = run("serial", [], args.pytest_args)
    runs = [serial] + [run(f"-n {n}", ["-n", str(n)], args.pytest_args) for n in args.workers]
    differs = False
    print(f"{'run':<10} {'wall s':>8} {'speed-up':>9} {'exit':>5} {'tests':>6}  differs from serial")
    for r in runs:
        diff = sorted(
            k for k in serial.outcomes.keys() | r.outcomes.keys() if serial.outcomes.get(k) != r.outcomes.get(k)
        )
        differs |= bool(diff)
        print(
            f"{r.label:<10} {r.seconds:8.1f} {serial.seconds / r.seconds:8.2f}x {r.exit_code:5d} "
            f"{len(r.outcomes):6d}  {len(diff)}"
        )
        for key in diff[:20]:
            print(f"    {key}: serial {serial.outcomes.get(key)}, {r.label} {r.outcomes.get(key)}")
    counts = {o: sum(1 for v in serial.outcomes.values() if v == o) for o in sorted(set(serial.outcomes.values()))}
    print("serial outcomes: " + ", ".join(f"{n} {o}" for o, n in counts.items()))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
