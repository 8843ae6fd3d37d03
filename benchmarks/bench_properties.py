"""Examples per second of the invariants: generation alone, each property alone, and both as a test runs them.

    PYTHONPATH=. python benchmarks/bench_properties.py [--examples N] [--variant NAME] [--generation-only]

Cases are drawn once (derandomized, so every run measures the same cases); each property is then
timed over the same list, so the figures separate the generators' cost from the compile's.
"""

from __future__ import annotations

import argparse
import time

from hypothesis import HealthCheck, given, settings

from invariants.generators import cases
from invariants.properties import INVARIANTS, check


def draw_cases(n: int) -> tuple[list, float]:
    drawn: list = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(cases())
    def collect(case):
        drawn.append(case)

    start = time.perf_counter()
    collect()
    return drawn, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--variant", action="append",
                        help="variant name (repeatable; default: the three variants)")
    parser.add_argument("--generation-only", action="store_true", help="time the generators alone")
    args = parser.parse_args(argv)
    variants = args.variant or ["main-48bb87a1", "pr-8bb01ab8", "sound"]

    drawn, gen_seconds = draw_cases(args.examples)
    n = len(drawn)
    gen_rate = n / gen_seconds
    print(f"generation: {n} cases in {gen_seconds:.2f} s = {gen_rate:.0f} cases/s")
    if args.generation_only:
        return 0
    print()
    header = f"{'invariant':<14}" + "".join(f"{v:>30}" for v in variants)
    print("property alone, examples/s (and with generation, as a @given test runs)")
    print(header)
    for name, prop in [*INVARIANTS.items(), ("all seven", check)]:
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
