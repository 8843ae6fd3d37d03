"""How long each ``cmharness`` command takes to start: the wall time of ``--help`` for every subcommand (its parser
configured, its module imported, nothing run), and of ``price`` on the example store, each the best of ``--repeat``
fresh processes, with the number of ``reports`` modules the command loaded.

    python benchmarks/bench_startup.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "small-store.json"
PROBE = (
    "import contextlib, io, sys\n"
    "from reports.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    try:\n"
    "        main(sys.argv[1:])\n"
    "    except SystemExit:\n"
    "        pass\n"
    "print(sum(1 for m in sys.modules if m == 'reports' or m.startswith('reports.')), file=sys.stderr)\n"
)


def timed(argv: list[str], repeat: int) -> tuple[float, int]:
    """The best wall time of ``cmharness argv`` in a fresh process, and how many ``reports`` modules it loaded."""
    best, loaded = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        run = subprocess.run(
            [sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True, check=False
        )
        best = min(best, time.perf_counter() - started)
        loaded = int(run.stderr.strip().splitlines()[-1])
    return best, loaded


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per command (the best is shown)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: give at least 1")
    sys.path.insert(0, str(ROOT))
    from reports.cli import SUBCOMMANDS

    rows = [("price examples/small-store.json", ["price", str(EXAMPLE)])]
    rows += [(f"{name} --help", [name, "--help"]) for name in SUBCOMMANDS]
    print(f"| command | start (best of {args.repeat}) | `reports` modules loaded |")
    print("|---|---|---|")
    for label, argv in rows:
        seconds, loaded = timed(argv, args.repeat)
        print(f"| `cmharness {label}` | {seconds * 1000:.0f} ms | {loaded} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
