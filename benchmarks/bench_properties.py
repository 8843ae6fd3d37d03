"""Examples per second of the invariants: generation alone, each property alone, and both as a test runs them.

    PYTHONPATH=. python benchmarks/bench_properties.py [--examples N] [--variant NAME] [--generation-only]

Cases are drawn once (derandomized, so every run measures the same cases) after a timed warm-up of
``WARM_UP`` cases (what a test session pays once); each property is then timed over the same list, so
the figures separate the generators' cost from the compile's. Generation is
also given per CPU second (the figure to compare on a loaded machine) with the load average.
"""

from __future__ import annotations

import argparse
import os
import time

from hypothesis import HealthCheck, given, seed, settings

from invariants.generators import cases
from invariants.properties import INVARIANTS, check

#: Cases drawn before the timed ones: what a session pays once (imports, the generators' pools), reported apart.
WARM_UP = 50
WARM_UP_SEED = 20261201


def draw_cases(n: int) -> tuple[list, float]:
    """``n`` derandomized cases, and the wall seconds drawing them took."""
    drawn, seconds, _ = draw_cases_timed(n)
    return drawn, seconds


def draw_cases_timed(n: int, warm_up: bool = False) -> tuple[list, float, float]:
    """``n`` derandomized cases (or, to warm up, ``n`` others from a fixed seed), and the wall and CPU seconds
    drawing them took (this process's pools included)."""
    drawn: list = []

    @settings(max_examples=n, derandomize=not warm_up, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(cases())
    def collect(case):
        drawn.append(case)

    if warm_up:
        collect = seed(WARM_UP_SEED)(collect)

    start, cpu = time.perf_counter(), time.process_time()
    collect()
    return drawn, time.perf_counter() - start, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--variant", action="append",
                        help="variant name (repeatable; default: the three variants)")
    parser.add_argument("--generation-only", action="store_true", help="time the generators alone")
    args = parser.parse_args(argv)
    variants = args.variant or ["main-48bb87a1", "pr-8bb01ab8", "sound"]

    _, warm_seconds, _ = draw_cases_timed(WARM_UP, warm_up=True)
    print(f"warm-up: {WARM_UP} other cases in {warm_seconds:.2f} s (imports and pools, paid once per session)")
    drawn, gen_seconds, gen_cpu = draw_cases_timed(args.examples)
    n = len(drawn)
    print(f"generation: {n} cases in {gen_seconds:.2f} s = {n / gen_seconds:.0f} cases/s "
          f"({gen_cpu:.2f} s CPU = {n / gen_cpu:.0f} cases per CPU second; load average {os.getloadavg()[0]:.2f})")
    if args.generation_only:
        return 0
    print()
    header = f"{'invariant':<14}" + "".join(f"{v:>30}" for v in variants)
    print("property alone, examples/s (and with generation, as a @given test runs)")
    print(header)
    for name, prop in [*INVARIANTS.items(), (f"all {len(INVARIANTS)}", check)]:
        cells = []
        for variant in variants:
            start = time.perf_counter()
            for case in drawn:
                prop(case.store, case.config, case.budget, variant)
            seconds = time.perf_counter() - start
            alone = n / seconds
            combined = n / (seconds + gen_seconds)
            cells.append(f"{alone:>10.0f} ({combined:>5.0f} with gen)")
        print(f"{name:<14}" + "".join(f"{c:>30}" for c in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
