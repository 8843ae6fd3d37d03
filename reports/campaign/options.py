"""The ``cmharness report`` options and their parsers: one-line errors for a bad shard, budget, worker count or
folder (the types other commands share are ``reports.arguments``); kept apart so that building the parser imports
none of the campaign's runners."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reference.names import one_of
from reports.arguments import folder_argument, seconds_argument, shard_argument, workers_argument
from reports.campaign.mutation_scope import MUTMUT_PATHS
from reports.campaign.settings import MutmutEngine, NamedEngine

DEFAULT_BUDGET = 1800.0
#: A run's folders unless told: all of them, the model, its judges and the tools' verdicts. A run over fewer is never
#: a main pass.
DEFAULT_MUTMUT_PATHS = MUTMUT_PATHS


def covers_default(paths: Iterable[str]) -> bool:
    """Whether a run over ``paths`` is a main pass: it covers every default folder."""
    return set(DEFAULT_MUTMUT_PATHS) <= set(paths)


def add_report_arguments(parser: Any) -> None:
    """The ``cmharness report`` options (here, so that building the parser imports none of the campaign's runners)."""
    parser.add_argument(
        "--shard", metavar="I/N", type=shard_argument, help="run only the mutants of shard I of N (a stable slice)"
    )
    parser.add_argument(
        "--merge", action="store_true", help="run nothing: build the report from every journal in the journal folder"
    )
    parser.add_argument("--no-mutmut", action="store_true", help="leave mutmut's operator mutants out of this run")
    parser.add_argument(
        "--mutmut-paths",
        nargs="+",
        type=one_of("folder", MUTMUT_PATHS),
        default=list(DEFAULT_MUTMUT_PATHS),
        metavar="FOLDER",
        help=f"the folders mutmut mutates in this run, of {', '.join(MUTMUT_PATHS)} "
        f"(default: {' '.join(DEFAULT_MUTMUT_PATHS)}); results of earlier "
        "runs over other folders stay in the report",
    )
    parser.add_argument(
        "--budget",
        type=seconds_argument,
        default=DEFAULT_BUDGET,
        metavar="SECONDS",
        help=f"wall-clock budget of the run; mutmut gets what the rest leaves (default "
        f"{DEFAULT_BUDGET:.0f}); mutants it does not reach run next time",
    )
    parser.add_argument(
        "--workers", type=workers_argument, default=None, help="parallel runs, 1 to 4 a core (default: the CPU count)"
    )
    parser.add_argument(
        "--all-variants", action="store_true", help="run a mutant against the tests of every variant, not only its own"
    )
    parser.add_argument(
        "--out", type=folder_argument, default=None, help="output folder, made when missing (default reports/out)"
    )
    parser.add_argument(
        "--named-engine",
        type=one_of("named engine", list(NamedEngine)),
        metavar="{" + ",".join(NamedEngine) + "}",
        default=None,
        help="named mutants from one warm session forking a child each (default), or a process each "
        "(default from CMHARNESS_NAMED_ENGINE)",
    )
    parser.add_argument(
        "--mutmut-engine",
        type=one_of("mutmut engine", list(MutmutEngine)),
        metavar="{" + ",".join(MutmutEngine) + "}",
        default=None,
        help="mutmut's mutants from one warm session (default), or mutmut run's own loop "
        "(default from CMHARNESS_MUTMUT_ENGINE)",
    )
    parser.add_argument(
        "--state-dir",
        type=folder_argument,
        default=None,
        metavar="DIR",
        help="where the run-time state goes: mutmut's work copy, the learnt order and hints (default .cmharness)",
    )
    parser.add_argument(
        "--extra-mutants",
        metavar="DIR",
        default=None,
        help="also run each DIR/*.patch (a unified diff of the tree) as a mutant, with the named ones",
    )
    parser.add_argument(
        "--full", action="store_true", help="a cold run: forget every journaled result and run everything again"
    )
