"""Compile time of ``sound`` against ``reference_price`` alone, at 1,000 / 10,000 / 100,000 messages; and cold.

Run: ``PYTHONPATH=. python benchmarks/bench_compile.py [--sizes 1000 10000 100000] [--repeat 3] [--cold]``.
Each store has a three-level summary tree (L1 over 10 messages, L2 over 5 L1s, L3 over 4 L2s).
Prints the best-of-``repeat`` seconds, microseconds per message, and the growth against the smallest
size: linear growth keeps microseconds per message flat. These warm runs reuse the store's message prices.

``--cold`` times the first compile of a fresh store with the text estimator's memo cleared (nothing priced
yet), against one estimator pass (``content_tokens`` over every message, memo cleared too): the floor is each
message priced once, so the ratio's goal is at most 1.1.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable

from reference.estimator import content_tokens, text_tokens
from reference.model import Budget, Config, Message, Store, Summary, Text, Thinking, ToolResult, ToolUse
from reference.price import reference_price
from strategies import HierarchicalStrategy

WORDS = ("context", "budget", "summary", "recall", "token", "window", "agent", "tool", "result", "price")


def _message(rng: random.Random, i: int) -> Message:
    text = " ".join(rng.choices(WORDS, k=rng.randint(5, 60)))
    roll = rng.random()
    if roll < 0.1:
        content = (Thinking(text, "s" * 90), ToolUse(f"t{i}", "read", {"path": f"/f/{i}"}))
    elif roll < 0.2:
        content = (ToolResult(f"t{i - 1}", text),)
    else:
        content = (Text(text),)
    return Message(f"m{i}", "user" if i % 2 else "assistant", content)


def summary_tree(messages: tuple[Message, ...], rng: random.Random) -> tuple[Summary, ...]:
    """L1 over each 10 messages, L2 over each 5 L1s, L3 over each 4 L2s; the newest 30 messages unsummarized."""
    ids = [m.id for m in messages[: max(0, len(messages) - 30)]]
    levels: list[list[tuple[str, tuple[str, str], tuple[str, ...]]]] = []
    below = [(i, (i, i), (i,)) for i in ids]
    for level, fan in ((1, 10), (2, 5), (3, 4)):
        groups = [below[k : k + fan] for k in range(0, len(below) - fan + 1, fan)]
        made = [(f"L{level}-{n}", (g[0][1][0], g[-1][1][1]), tuple(x[0] for x in g)) for n, g in enumerate(groups)]
        levels.append(made)
        below = made
    parents: dict[str, str] = {}
    for upper in levels[1:]:
        for sid, _, sources in upper:
            parents.update({c: sid for c in sources})
    out = []
    for level, made in enumerate(levels, start=1):
        for sid, (first, last), sources in made:
            tokens = rng.randint(50, 400) * level
            out.append(
                Summary(
                    id=sid,
                    level=level,
                    content=" ".join(rng.choices(WORDS, k=40)),
                    tokens=tokens,
                    source_level=level - 1,
                    source_ids=sources,
                    source_range=(first, last),
                    parent_id=parents.get(sid),
                )
            )
    return tuple(out)


def build(n: int, seed: int = 7) -> Store:
    rng = random.Random(seed)
    messages = tuple(_message(rng, i) for i in range(n))
    return Store(messages=messages, summaries=summary_tree(messages, rng))


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


CONFIG = Config(
    head_window_tokens=500,
    recent_window_tokens=2000,
    l1_budget_tokens=math.inf,
    l2_budget_tokens=math.inf,
    l3_budget_tokens=math.inf,
)


def cold(sizes: list[int], repeat: int) -> None:
    """Each run on a store built anew (its message prices not kept yet) with the text memo cleared. CPU seconds
    (``time.process_time``) beside wall seconds: on a shared machine the CPU figure moves much less."""
    print(f"{'messages':>9} {'cold compile s':>14} {'cpu s':>7} {'estimator pass s':>16} {'cpu s':>7} {'ratio cpu':>9}")
    for n in sizes:
        compiles, passes = [], []
        for _ in range(repeat):
            store = build(n)
            text_tokens.cache_clear()
            t0, c0 = time.perf_counter(), time.process_time()
            strategy = HierarchicalStrategy(CONFIG, "sound")
            strategy.initialize(store)
            strategy.compile(Budget(max_tokens=math.inf))
            compiles.append((time.perf_counter() - t0, time.process_time() - c0))
            store = build(n)
            text_tokens.cache_clear()
            t0, c0 = time.perf_counter(), time.process_time()
            for m in store.messages:
                content_tokens(m.content, store)
            passes.append((time.perf_counter() - t0, time.process_time() - c0))
            del strategy, store  # freed here, not inside the next run's clock
        (cw, cc), (ew, ec) = min(compiles, key=lambda t: t[1]), min(passes, key=lambda t: t[1])
        print(f"{n:>9} {cw:>14.3f} {cc:>7.3f} {ew:>16.3f} {ec:>7.3f} {cc / ec:>8.2f}x")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="cold compiles against one estimator pass")
    args = parser.parse_args(argv)
    if args.cold:
        cold(args.sizes, args.repeat)
        return
    config = CONFIG
    print(
        f"{'messages':>9} {'summaries':>9} {'compile s':>10} {'us/msg':>7} {'reference s':>11} {'us/msg':>7} "
        f"{'growth':>7}"
    )
    base = None
    for n in args.sizes:
        store = build(n)
        strategy = HierarchicalStrategy(config, "sound")

        def compile_once(store: Store = store, strategy: HierarchicalStrategy = strategy) -> object:
            strategy.initialize(store)
            return strategy.compile(Budget(max_tokens=math.inf))

        result = compile_once()
        t_compile = best(compile_once, args.repeat)
        t_ref = best(lambda store=store, result=result: reference_price(result.entries, store, config), args.repeat)
        per = t_compile / n * 1e6
        base = base or per
        print(
            f"{n:>9} {len(store.summaries):>9} {t_compile:>10.3f} {per:>7.1f} {t_ref:>11.3f} "
            f"{t_ref / n * 1e6:>7.1f} {per / base:>6.2f}x"
        )


if __name__ == "__main__":
    main()
