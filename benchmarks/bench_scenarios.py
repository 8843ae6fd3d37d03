"""Scenario files: how long the seed's scenarios take to collect and run, and the loader on a large file.

    PYTHONPATH=. python benchmarks/bench_scenarios.py [--messages 19000]

Prints the pytest session time of ``tests/scenarios/seed`` (collection alone, then collection and
run), and the best of three loads of a generated store of ``--messages`` messages (about 1 KB each).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reference.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]


def pytest_seconds(*args: str) -> tuple[float, str]:
    start = time.perf_counter()
    out = (
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        .stdout.strip()
        .splitlines()
    )
    return time.perf_counter() - start, out[-1] if out else ""


def big_scenario(n: int, seed: int = 1) -> dict:
    rnd = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "build", "cache", "error"]
    messages = []
    for i in range(n):
        content: list[dict] = [{"type": "text", "text": " ".join(rnd.choice(words) for _ in range(150))}]
        if i % 5 == 0:
            content.append({"type": "tool_use", "id": f"t{i}", "name": "read", "input": {"path": f"/f/{i}"}})
        messages.append({"id": f"m{i}", "participant": "user" if i % 2 else "assistant", "content": content})
    return {"store": {"messages": messages}, "budget": {"max_tokens": 100000}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=19000)
    args = parser.parse_args()
    wall, line = pytest_seconds("--collect-only", "tests/scenarios/seed")
    print(f"collect tests/scenarios/seed: {line} (wall {wall:.2f} s with interpreter start)")
    wall, line = pytest_seconds("tests/scenarios/seed")
    print(f"collect and run tests/scenarios/seed: {line} (wall {wall:.2f} s)")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.scenario.json"
        path.write_text(json.dumps(big_scenario(args.messages)), encoding="utf-8")
        size = path.stat().st_size / 1e6
        best = min(_timed(path) for _ in range(3))
    print(f"load_scenario, {args.messages} messages ({size:.1f} MB): best of 3 {best:.2f} s")


def _timed(path: Path) -> float:
    start = time.perf_counter()
    load_scenario(path)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
