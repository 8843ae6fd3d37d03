"""Throughput of ``content_tokens`` over a generated 100,000-message store (not a test).

Run: ``PYTHONPATH=. python benchmarks/bench_estimator.py [--messages N] [--seed S] [--repeat R]``.
Prints the best of ``R`` timings (``time.perf_counter``) as blocks priced per second, counting
top-level blocks (nested tool-result blocks are priced but not counted).
"""

from __future__ import annotations

import argparse
import random
import string
import time

from reference.estimator import content_tokens
from reference.model import (
    Block,
    Document,
    Image,
    Message,
    RedactedThinking,
    Store,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
)

PROSE = string.ascii_letters + "     .,'"
DENSE = '{}[]":_/=`'
UNICODE = "éüßπ€中文😀🙏"


def _text(rng: random.Random, lo: int = 20, hi: int = 600) -> str:
    n = rng.randint(lo, hi)
    pool = rng.choice((PROSE, PROSE + DENSE, PROSE + UNICODE))
    return "".join(rng.choices(pool, k=n))


def _block(rng: random.Random, depth: int = 0) -> Block:
    kind = rng.choices(
        ("text", "thinking", "redacted", "tool_use", "tool_result", "image", "document"),
        weights=(50, 12, 3, 12, 15, 5, 3),
    )[0]
    if kind == "text":
        return Text(_text(rng))
    if kind == "thinking":
        sig = "".join(rng.choices(string.ascii_letters, k=rng.randint(0, 400))) or None
        stamp = rng.choice((None, None, None, rng.randint(0, 500)))
        return Thinking(_text(rng), signature=sig, token_estimate=stamp)
    if kind == "redacted":
        return RedactedThinking("".join(rng.choices(string.ascii_letters, k=rng.randint(0, 300))))
    if kind == "tool_use":
        payload = {"path": _text(rng, 5, 40), "n": rng.randint(0, 10**6), "flags": [True, None, "x"]}
        return ToolUse(f"toolu_{rng.randrange(10**9)}", "read_file", payload)
    if kind == "tool_result":
        if depth == 0 and rng.random() < 0.4:
            return ToolResult("toolu_x", tuple(_block(rng, 1) for _ in range(rng.randint(1, 3))))
        return ToolResult("toolu_x", _text(rng, 0, 800))
    if kind == "image":
        return Image(rng.choice((None, rng.randint(100, 2000))))
    return Document()


def build_store(n: int, seed: int) -> Store:
    rng = random.Random(seed)
    messages = tuple(
        Message(
            id=f"m{i}",
            participant="User" if i % 2 == 0 else "Claude",
            content=tuple(_block(rng) for _ in range(rng.randint(1, 4))),
        )
        for i in range(n)
    )
    return Store(messages=messages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    t0 = time.perf_counter()
    store = build_store(args.messages, args.seed)
    built = time.perf_counter() - t0
    blocks = sum(len(m.content) for m in store.messages)

    best = float("inf")
    total = 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        total = sum(content_tokens(m.content, store) for m in store.messages)
        best = min(best, time.perf_counter() - start)

    print(f"store: {args.messages} messages, {blocks} top-level blocks (built in {built:.1f}s, seed {args.seed})")
    print(f"total E: {total} tokens")
    print(f"content_tokens: best of {args.repeat}: {best:.3f}s, {blocks / best:,.0f} blocks/s")


if __name__ == "__main__":
    main()
