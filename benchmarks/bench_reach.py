"""The generators' reach: how often ``ci`` and ``deep`` cases hit each shape that matters (invariants/reach.py).

    PYTHONPATH=. python benchmarks/bench_reach.py [--ci N] [--deep N] [--json]

The ``ci`` column is the share of the first ``--ci`` cases the ``ci`` profile draws (derandomized, as a property
test draws them, so every run gives the same figure); the ``deep`` column, of ``--deep`` cases drawn as the
``deep`` profile draws them (not derandomized), from a fixed seed so that the figure repeats. Each shape is read from
the case and from what the reference sends, never from the code under test; a shape under 1% of ``ci`` cases is
flagged (tests/test_reach.py fails on it).
"""

from __future__ import annotations

import argparse
import json
import time

from hypothesis import HealthCheck, given, seed, settings

from invariants.generators import Case, cases
from invariants.reach import SHAPE_GROUPS, shares

#: The least share of ``ci`` cases every shape must reach (tests/test_reach.py).
LEAST_SHARE = 0.01
DEEP_SEED = 20261202


def drawn(n: int, derandomize: bool) -> list[Case]:
    """``n`` cases drawn by a ``@given`` test, derandomized (``ci``) or from ``DEEP_SEED`` (``deep``)."""
    got: list[Case] = []

    @settings(
        max_examples=n, derandomize=derandomize, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(cases())
    def collect(case):
        got.append(case)

    (collect if derandomize else seed(DEEP_SEED)(collect))()
    return got


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ci", type=int, default=1000, help="ci cases measured (default 1000)")
    parser.add_argument("--deep", type=int, default=2000, help="deep cases measured (default 2000, one deep test)")
    parser.add_argument("--json", action="store_true", help="print the shares as one JSON object")
    args = parser.parse_args(argv)
    if args.ci < 1 or args.deep < 1:
        parser.error("--ci and --deep must be at least 1")
    start = time.perf_counter()
    ci, deep = shares(drawn(args.ci, True)), shares(drawn(args.deep, False))
    seconds = time.perf_counter() - start
    short = [shape for shape, share in ci.items() if share < LEAST_SHARE]
    if args.json:
        print(json.dumps({"ci_cases": args.ci, "deep_cases": args.deep, "ci": ci, "deep": deep, "under_1%": short}))
        return 0
    width = max(len(s) for s in ci)
    print(f"{'shape':<{width}}  {'ci %':>7}  {'deep %':>7}    ({args.ci} ci cases, {args.deep} deep cases)")
    for group, names in SHAPE_GROUPS.items():
        print(f"-- {group}")
        for shape in names:
            flag = "  < 1%" if shape in short else ""
            print(f"{shape:<{width}}  {100 * ci[shape]:>7.1f}  {100 * deep[shape]:>7.1f}{flag}")
    print(f"{len(short)} shape(s) under {LEAST_SHARE:.0%} of ci cases; drawn and measured in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
