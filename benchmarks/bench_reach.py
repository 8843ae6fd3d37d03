"""The generators' reach: how often ``ci`` and ``deep`` cases hit each shape that matters (invariants/reach.py).

    PYTHONPATH=. python benchmarks/bench_reach.py [--ci N] [--deep N] [--tool N] [--json]

The ``ci`` column is the share of the first ``--ci`` cases the ``ci`` profile draws (derandomized, as a property
test draws them, so every run gives the same figure); the ``deep`` column, of ``--deep`` cases drawn as the
``deep`` profile draws them (not derandomized), from a fixed seed so that the figure repeats; the ``tool`` and
``parallel`` columns, of the first ``--tool`` cases of ``tool_cases()`` and ``tool_cases(parallel=True)``. Each shape
is read from the case and from what the reference sends, never from the code under test; a shape under 1% where the
generator must reach it is flagged (tests/test_reach.py fails on it).
"""

from __future__ import annotations

import argparse
import json
import time

from invariants.generators import cases
from invariants.generators.tool_cycles import tool_cases
from invariants.reach import (
    PARALLEL_CASE_SHAPES,
    SHAPE_GROUPS,
    SHAPES,
    STUB_BESIDE_A_RESULT,
    TOOL_CASE_SHAPES,
    first_draws,
    shares,
)

#: The least share of ``ci`` cases every shape must reach (tests/test_reach.py).
LEAST_SHARE = 0.01
DEEP_SEED = 20261202


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ci", type=int, default=1000, help="ci cases measured (default 1000)")
    parser.add_argument("--deep", type=int, default=2000, help="deep cases measured (default 2000, one deep test)")
    parser.add_argument("--tool", type=int, default=1000, help="cases of each tool generator measured (default 1000)")
    parser.add_argument("--json", action="store_true", help="print the shares as one JSON object")
    args = parser.parse_args(argv)
    if min(args.ci, args.deep, args.tool) < 1:
        parser.error("--ci, --deep and --tool must be at least 1")
    names = (*SHAPES, STUB_BESIDE_A_RESULT)
    start = time.perf_counter()
    columns = {
        "ci": shares(first_draws(cases(), args.ci), names),
        "deep": shares(first_draws(cases(), args.deep, DEEP_SEED), names),
        "tool": shares(first_draws(tool_cases(), args.tool), names),
        "parallel": shares(first_draws(tool_cases(parallel=True), args.tool), names),
    }
    seconds = time.perf_counter() - start
    promised = {"ci": SHAPES, "tool": TOOL_CASE_SHAPES, "parallel": PARALLEL_CASE_SHAPES}
    short = {
        column: [shape for shape in shapes if columns[column][shape] < LEAST_SHARE]
        for column, shapes in promised.items()
    }
    if args.json:
        print(
            json.dumps(
                {
                    "cases": {"ci": args.ci, "deep": args.deep, "tool": args.tool, "parallel": args.tool},
                    **columns,
                    "under_1%": short,
                }
            )
        )
        return 0
    width = max(len(s) for s in names)
    header = "".join(f"  {c + ' %':>10}" for c in columns)
    print(f"{'shape':<{width}}{header}    ({args.ci} ci, {args.deep} deep, {args.tool} of each tool generator)")
    for group, shapes in (*SHAPE_GROUPS.items(), ("tool cases only", (STUB_BESIDE_A_RESULT,))):
        print(f"-- {group}")
        for shape in shapes:
            cells = "".join(
                f"  {100 * columns[c][shape]:>9.1f}{'*' if shape in short.get(c, ()) else ' '}" for c in columns
            )
            print(f"{shape:<{width}}{cells}")
    print(
        "* under 1% where the generator must reach it (ci: every shape; tool and parallel: what they exist for)\n"
        f"{sum(map(len, short.values()))} shortfall(s); drawn and measured in {seconds:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
