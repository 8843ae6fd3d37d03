"""Time and memory of ``cmharness check`` and ``price`` on a large scenario file (about 20 MB).

Run: ``PYTHONPATH=. python benchmarks/bench_check.py [--messages 19000] [--file PATH] [--keep]``.
Writes a scenario of ``--messages`` messages of about 1 KB each (text, reasoning, tool use and
results) under a three-level summary tree, then runs ``price`` and ``check`` on it, each in its
own process, and prints the file's size, each command's wall time and peak memory (max RSS).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_compile import WORDS, summary_tree
from reference.model import Budget, Config, Message, Store, Text, Thinking, ToolResult, ToolUse
from reference.scenario import Scenario, save_scenario

ROOT = Path(__file__).resolve().parents[1]


def _message(rng: random.Random, i: int) -> Message:
    """A message of about 1 KB of JSON."""
    text = " ".join(rng.choices(WORDS, k=rng.randint(90, 140)))
    roll = rng.random()
    if roll < 0.1:
        content = (Thinking(text, "s" * 90), ToolUse(f"t{i}", "read", {"path": f"/f/{i}"}))
    elif roll < 0.2:
        content = (ToolResult(f"t{i - 1}", (Text(text),)),)
    else:
        content = (Text(text),)
    return Message(f"m{i}", "user" if i % 2 else "assistant", content)


def build(n: int, seed: int = 7) -> Scenario:
    rng = random.Random(seed)
    messages = tuple(_message(rng, i) for i in range(n))
    store = Store(messages=messages, summaries=summary_tree(messages, rng))
    config = Config(
        head_window_tokens=2000,
        recent_window_tokens=20000,
        l1_budget_tokens=math.inf,
        l2_budget_tokens=math.inf,
        l3_budget_tokens=math.inf,
        max_message_tokens=4000,
    )
    return Scenario(store=store, config=config, budget=Budget(max_tokens=200000, reserve_for_response=4000))


def run(command: str, path: Path) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MB and exit code of ``cmharness COMMAND FILE`` in a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "reports.cli", command, str(path)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t0, usage.ru_maxrss / 1024, proc.returncode


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=19000)
    parser.add_argument("--file", type=Path, default=None, help="where to write the scenario (default: a temp file)")
    parser.add_argument("--keep", action="store_true", help="keep the scenario file")
    args = parser.parse_args(argv)
    path = args.file or Path(tempfile.mkstemp(prefix="cm-bench-", suffix=".json")[1])
    try:
        t0 = time.perf_counter()
        save_scenario(build(args.messages), path)
        print(
            f"scenario: {args.messages} messages, {path.stat().st_size / 1e6:.1f} MB, "
            f"written in {time.perf_counter() - t0:.1f} s ({path})"
        )
        for command in ("price", "check"):
            wall, peak, code = run(command, path)
            print(f"{command:>6}: {wall:6.2f} s, peak RSS {peak:6.0f} MB, exit {code}")
    finally:
        if not args.keep and args.file is None:
            path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
