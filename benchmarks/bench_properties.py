"""Examples per second of the invariants: generation alone, each property alone, and both as a test runs them.

    PYTHONPATH=. python benchmarks/bench_properties.py [--examples N] [--repeat R] [--variant NAME]
                                                      [--generation-only] [--json]

Cases are drawn (derandomized, so every run measures the same cases) after a timed warm-up of
``WARM_UP`` cases (what a test session pays once); each property is then timed over the same list, so
the figures separate the generators' cost from the compile's. Each figure is the best of ``--repeat``
timings, as ``timeit`` reports (a shared machine only ever adds time); the generation line gives the
slowest too, the CPU seconds and the load average. The floor line is Hypothesis's own cost: a bare ``@given``
whose composite makes as many choices a case as the generators do (``sampled_from`` draws) and nothing else.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from hypothesis.control import current_build_context

from invariants.generators import cases
from invariants.properties import INVARIANTS, check

#: Cases drawn before the timed ones: what a session pays once (imports, the generators' pools), reported apart.
WARM_UP = 50
WARM_UP_SEED = 20261201


def quiet(n: int, derandomize: bool = True) -> settings:
    """Settings for ``n`` timed examples: no database, no deadline, no health check."""
    return settings(
        max_examples=n, derandomize=derandomize, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )


@dataclass(frozen=True)
class Draw:
    """Cases drawn, the wall and CPU seconds drawing them took (this process's pools included), and the
    Hypothesis choices a case cost on average."""

    cases: list
    seconds: float
    cpu: float
    choices: float


def draw_cases_timed(n: int, warm_up: bool = False) -> Draw:
    """``n`` derandomized cases (or, to warm up, ``n`` others from a fixed seed), timed. The choices are read
    from the engine's data (``current_build_context`` is Hypothesis's, not part of its documented API)."""
    drawn: list = []
    choices: list[int] = []

    @quiet(n, derandomize=not warm_up)
    @given(cases())
    def collect(case):
        drawn.append(case)
        choices.append(len(current_build_context().data.choices))

    if warm_up:
        collect = seed(WARM_UP_SEED)(collect)

    start, cpu = time.perf_counter(), time.process_time()
    collect()
    return Draw(drawn, time.perf_counter() - start, time.process_time() - cpu, sum(choices) / len(choices))


def floor_seconds(choices: int, n: int, repeat: int) -> float:
    """The least wall seconds of a bare ``@given`` drawing ``n`` cases of ``choices`` ``sampled_from`` values."""
    pools = [st.sampled_from(range(1000 + k)) for k in range(choices)]

    @st.composite
    def bare(draw: st.DrawFn) -> list[int]:
        return [draw(pool) for pool in pools]

    @quiet(n)
    @given(bare())
    def run(values):
        pass

    return best_seconds(run, repeat)


def best_seconds(run, repeat: int) -> float:
    """The least wall seconds of ``repeat`` calls of ``run``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3, help="timings per figure, the best reported (default 3)")
    parser.add_argument("--variant", action="append", help="variant name (repeatable; default: the three variants)")
    parser.add_argument("--generation-only", action="store_true", help="time the generators alone")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    if args.examples < 1 or args.repeat < 1:
        parser.error("--examples and --repeat must be at least 1")
    variants = args.variant or ["main-48bb87a1", "pr-8bb01ab8", "sound"]
    say = (lambda *_: None) if args.json else print

    warm_seconds = draw_cases_timed(WARM_UP, warm_up=True).seconds
    say(f"warm-up: {WARM_UP} other cases in {warm_seconds:.2f} s (imports and pools, paid once per session)")
    runs = [draw_cases_timed(args.examples) for _ in range(args.repeat)]
    drawn = runs[0].cases
    n = len(drawn)
    gen_seconds = min(run.seconds for run in runs)
    gen_cpu = min(run.cpu for run in runs)
    slowest = max(run.seconds for run in runs)
    figures: dict = {
        "examples": n,
        "repeat": args.repeat,
        "warm_up_seconds": warm_seconds,
        "generation_cases_per_second": n / gen_seconds,
        "generation_slowest": n / slowest,
        "generation_cases_per_cpu_second": n / gen_cpu,
        "load_average": os.getloadavg()[0],
        "properties": {},
    }
    say(
        f"generation: {n} cases, best of {args.repeat}: {gen_seconds:.2f} s = {n / gen_seconds:.0f} cases/s "
        f"(slowest {n / slowest:.0f}; {n / gen_cpu:.0f} cases per CPU second; "
        f"load average {figures['load_average']:.2f})"
    )
    choices = runs[0].choices
    floor = n / floor_seconds(round(choices), n, args.repeat)
    figures.update(choices_per_case=choices, hypothesis_floor_cases_per_second=floor)
    say(
        f"floor: Hypothesis alone, a bare @given making {round(choices)} choices a case (the generators make "
        f"{choices:.1f}): {floor:.0f} cases/s; the generators run at {n / gen_seconds / floor:.0%} of it"
    )
    if not args.generation_only:
        say()
        say("property alone, examples/s (and with generation, as a @given test runs)")
        say(f"{'invariant':<16}" + "".join(f"{v:>30}" for v in variants))
        for name, prop in [*INVARIANTS.items(), (f"all {len(INVARIANTS)}", check)]:
            row = figures["properties"][name] = {}
            for variant in variants:
                seconds = best_seconds(lambda p=prop, v=variant: [p(*c, v) for c in drawn], args.repeat)
                row[variant] = {"alone": n / seconds, "with_generation": n / (seconds + gen_seconds)}
            say(
                f"{name:<16}"
                + "".join(f"{row[v]['alone']:>10.0f} ({row[v]['with_generation']:>5.0f} with gen)" for v in variants)
            )
    if args.json:
        print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
