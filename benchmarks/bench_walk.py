"""Follow the campaign's settings through ``cmharness report``: every call of a ``reports`` function that takes the
``Settings`` object, in order, by module; how many modules it visits, how often it comes back to a module it left,
and each phase module's entries. The issue that asked for the phases as modules counted 400 steps, 74 returns and
``journal.py`` entered 11 times.

    python benchmarks/bench_walk.py [--mutmut]

It runs the report on the campaign tests' fake project (``tests/campaign_helpers.py``) in a temporary folder: the
baseline and the named mutants, and with ``--mutmut`` mutmut's mutants over a fake ``reference/`` too.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from campaign_helpers import MUTANTS, make_project, settings_for  # noqa: E402

from reports.campaign import pipeline  # noqa: E402
from reports.campaign.settings import Settings  # noqa: E402
from reports.cli import main  # noqa: E402
from reports.cli import report as report_cmd  # noqa: E402

SETTINGS_MODULE = Settings.__module__
MUTMUT_CONFIG = '[tool.mutmut]\nsource_paths = ["reference/"]\nonly_mutate = ["reference/*"]\n'


def walk(argv: list[str], root: Path) -> list[str]:
    """The modules of the calls that received the settings, in the order they were made."""
    hashed = ("pyproject.toml", "strategies", "reference", "calc.py", "tests")
    settings = settings_for(root, hashed=hashed, state_dir=root / ".state", progress=io.StringIO())
    steps: list[str] = []
    lock = threading.Lock()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("reports.") or module == SETTINGS_MODULE:  # the object's own methods: reading it
            return
        code = frame.f_code
        args = [frame.f_locals.get(n) for n in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]]
        if any(a is settings or isinstance(a, Settings) for a in args):
            with lock:
                steps.append(module)

    report_cmd.Settings = lambda: settings  # type: ignore[assignment]
    pipeline.named_mutants = lambda: [m for m in MUTANTS if m.id != "defect:HANGS"]  # type: ignore[assignment]
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(["report", *argv, "--out", str(root / "out")])
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return steps


def summary(steps: list[str]) -> list[str]:
    runs = [m for i, m in enumerate(steps) if i == 0 or steps[i - 1] != m]
    seen: set[str] = set()
    returns = 0
    for m in runs:
        returns += m in seen
        seen.add(m)
    entries = Counter(runs)
    lines = [
        f"{len(steps)} steps, {len(runs)} module visits, {len(seen)} modules, {returns} returns to a module left",
        "entries by module (most first):",
    ]
    lines += [f"  {n:4d}  {m}" for m, n in entries.most_common()]
    lines += ["the walk:", "  " + " > ".join(m.removeprefix("reports.campaign.") for m in runs)]
    return lines


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutmut", action="store_true", help="run mutmut's mutants too (a fake reference/)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cm-walk-") as tmp:
        root = make_project(Path(tmp) / "project")
        argv = ["--no-mutmut"]
        if args.mutmut:
            (root / "reference").mkdir()
            (root / "reference" / "__init__.py").write_text("")
            (root / "reference" / "ops.py").write_text("def double(x):\n    return x * 2\n")
            (root / "tests" / "test_ops.py").write_text(
                "from reference.ops import double\n\n\ndef test_double():\n    assert double(3) == 6\n"
            )
            shutil.copytree(ROOT / "reports", root / "reports", ignore=shutil.ignore_patterns("__pycache__"))
            (root / "pyproject.toml").write_text(MUTMUT_CONFIG)
            argv = ["--mutmut-paths", "reference"]
        print("\n".join(summary(walk(argv, root))))


if __name__ == "__main__":
    run()
