"""Wall and CPU time of ``cmharness compare`` on the default corpus, with 1 and with 2 worker processes.

Run: ``PYTHONPATH=. python benchmarks/bench_compare.py [--base V] [--head V] [--templates 8] [--workers 1 2]``.
Prints, per worker count, the cells compared, the wall seconds, the CPU seconds of this process and its
workers, and the cells per wall second. On a shared machine the wall time follows the load; the CPU
time is the figure to compare between runs.
"""

from __future__ import annotations

import argparse
import os
import time

from reports.cli.compare import jobs
from reports.compare import cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=cells.DEFAULT_BASE)
    parser.add_argument("--head", default=cells.DEFAULT_HEAD)
    parser.add_argument("--templates", type=int, default=8)
    parser.add_argument("--size", type=int, default=40)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    compare_args = argparse.Namespace(
        base=args.base,
        head=args.head,
        seed=0,
        size=args.size,
        templates=args.templates,
        cell=None,
        save_cells=None,
        corpus=None,
        with_default=False,
    )
    todo = jobs(compare_args)
    print(f"{args.base} -> {args.head}, {args.templates} templates of {args.size} messages")
    for workers in args.workers:
        before = os.times()
        started = time.perf_counter()
        records, _ = cells.run_all(todo, workers, None)
        wall = time.perf_counter() - started
        after = os.times()
        cpu = sum(
            getattr(after, f) - getattr(before, f) for f in ("user", "system", "children_user", "children_system")
        )
        print(
            f"workers {workers}: {len(records)} cells in {wall:.1f}s wall, {cpu:.1f}s CPU, "
            f"{len(records) / wall:.0f} cells/s"
        )


if __name__ == "__main__":
    main()
