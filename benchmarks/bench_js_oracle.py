"""What the Node oracle's tests send and how long they take: requests, round trips and seconds per test.

    PYTHONPATH=. python benchmarks/bench_js_oracle.py [--profile ci|dev|deep]

Runs ``tests/test_js_oracle.py``, ``tests/test_js_estimator.py`` and ``tests/test_js_store.py`` in this
process under the given Hypothesis profile (default ``ci``), counting each test's calls to the oracle
(one round trip each, one line per batch) and the requests they carry (one generated input each), and
timing each test's call. Prints one row per test and the totals, with the load average (the machine is
shared: the CPU time printed moves less than the wall time).
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import sys
import time
from collections.abc import Generator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = ("tests/test_js_oracle.py", "tests/test_js_estimator.py", "tests/test_js_store.py")


class Count:
    """A pytest plugin: requests, round trips and seconds per test."""

    def __init__(self) -> None:
        self.requests: collections.Counter[str] = collections.Counter()
        self.trips: collections.Counter[str] = collections.Counter()
        self.seconds: dict[str, float] = {}
        self.current = ""

    def pytest_configure(self, config: pytest.Config) -> None:
        import js_oracle_client

        ask = js_oracle_client.Oracle.ask

        def counted(oracle: js_oracle_client.Oracle, requests: list) -> list:
            self.requests[self.current] += len(requests)
            self.trips[self.current] += 1
            return ask(oracle, requests)

        js_oracle_client.Oracle.ask = counted  # type: ignore[method-assign]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        self.current = item.nodeid
        start = time.perf_counter()
        yield
        self.seconds[item.nodeid] = time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=("ci", "dev", "deep"), default="ci")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    os.chdir(ROOT)
    count = Count()
    start, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    code = pytest.main(["-q", "-p", "no:cacheprovider", f"--cm-profile={args.profile}", *FILES], plugins=[count])
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF)
    print(f"\n{'requests':>9} {'trips':>6} {'seconds':>8}  test")
    for nodeid in sorted(count.seconds):
        print(f"{count.requests[nodeid]:9d} {count.trips[nodeid]:6d} {count.seconds[nodeid]:8.2f}  {nodeid}")
    total = sum(count.seconds.values())
    print(f"{sum(count.requests.values()):9d} {sum(count.trips.values()):6d} {total:8.2f}  all tests' calls")
    used = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    print(f"session {wall:.1f} s wall, {used:.1f} s CPU (this process); load average {os.getloadavg()[0]:.1f}")
    return int(code)


if __name__ == "__main__":
    raise SystemExit(main())
