"""Where and how a campaign runs: the project root, the test selection, the profile, workers, timeouts and
the subprocesses' environment."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TextIO

from reference.names import unknown
from reports.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
#: Reviewed data committed with the project: the equivalent mutants, and the suite's order and the hints a
#: complete report learnt, as last adopted (docs/architecture.md, "State").
COMMITTED = ROOT / "mutation"
#: What the tool writes at run time (``--state-dir``): mutmut's work copy, and what the last complete report
#: learnt (its suite order, read before the committed copy, and its hints, waiting to be adopted).
STATE = ROOT / ".cmharness"
#: The environment variable naming the state folder to the campaign's pytest sessions (``invariants.plugin`` reads
#: the learnt test order there).
STATE_ENV = "CMHARNESS_STATE"


class NamedEngine(StrEnum):
    """How the named mutants run."""

    WARM = "warm"  # one warm pytest session forks a child per mutant (reports.campaign.named_warm)
    PROCESS = "process"  # a pytest process of its own per mutant (reports.campaign.runs)


class MutmutEngine(StrEnum):
    """How mutmut's mutants run."""

    WARM = "warm"  # one warm pytest session forks a child per mutant (reports.campaign.plugins.warm_session)
    MUTMUT = "mutmut"  # ``mutmut run``'s own loop, a fresh pytest session per mutant (a check, and to measure)


#: The environment variables that choose the engines when no command-line flag does (read here only).
ENGINE_VARIABLES = {"CMHARNESS_NAMED_ENGINE": NamedEngine, "CMHARNESS_MUTMUT_ENGINE": MutmutEngine}


def engine_from_environment(variable: str) -> StrEnum:
    """The engine an environment variable names, else the default (warm); a bad value is a ``UsageError``."""
    kind = ENGINE_VARIABLES[variable]
    value = os.environ.get(variable, "").strip() or kind("warm")
    try:
        return kind(value)
    except ValueError:
        raise UsageError(unknown(f"value of {variable}", value, [e.value for e in kind])) from None


#: What the fingerprint covers (files and folders, relative to the project root).
HASHED = (
    "pyproject.toml",
    "conftest.py",
    "strategies",
    "reference",
    "invariants",
    "tests",
    "reports",
    "examples",
    "docs",
    "README.md",
)
#: The suite less the harness's own tests (marked ``harness``): they test the tooling, not the compile, and
#: would only slow every mutant down.
DEFAULT_SELECTION = ("tests", "-m", "not harness")


@dataclass(frozen=True)
class Settings:
    """Where and how a campaign runs, the same for every phase (what one run shares is ``run_context.RunContext``);
    a variation is a new value (``dataclasses.replace``), never a change in place."""

    root: Path = ROOT
    out: Path = ROOT / "reports" / "out"
    #: How the named mutants and mutmut's mutants run (``--named-engine``, ``--mutmut-engine``).
    named_engine: NamedEngine = field(
        default_factory=lambda: NamedEngine(engine_from_environment("CMHARNESS_NAMED_ENGINE"))
    )
    mutmut_engine: MutmutEngine = field(
        default_factory=lambda: MutmutEngine(engine_from_environment("CMHARNESS_MUTMUT_ENGINE"))
    )
    #: The state folder: what the tool writes at run time (gitignored); every run-time folder is derived from it.
    state_dir: Path = STATE
    selection: Sequence[str] = DEFAULT_SELECTION
    profile: str = "ci"
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    timeout_factor: float = 3.0
    timeout_const: float = 10.0
    #: Seconds a named mutant's Hypothesis killer may spend shrinking its counterexample.
    shrink_timeout: float = 30.0
    all_variants: bool = False
    python: str = sys.executable
    #: Folders put first on the subprocesses' PYTHONPATH (the project root, then the harness's own).
    pythonpath: Sequence[Path] = ()
    hashed: Sequence[str] = HASHED
    progress: TextIO | None = field(default_factory=lambda: sys.stderr)

    @property
    def mutmut_dir(self) -> Path:
        """mutmut's work folder (a copy of the project, and mutmut's mutants/ inside it), in the state folder."""
        return self.state_dir / "mutmut"

    @property
    def journal_dir(self) -> Path:
        return self.out / "journal"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "MUTANT_UNDER_TEST")}
        paths = [str(p) for p in (self.root, *self.pythonpath, ROOT)]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        env["CMHARNESS_PROFILE"] = self.profile
        env["PYTHONHASHSEED"] = "0"  # set orders (a failure's repr of a frozenset) the same in every run
        env[STATE_ENV] = str(self.state_dir)  # where the suite's plugin finds the learnt test order
        # the runs write nothing into the project: bytecode and Hypothesis's own files go to the state folder
        env["PYTHONPYCACHEPREFIX"] = str(self.state_dir / "pycache")
        env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(self.state_dir / "hypothesis")
        return env
