"""Argument types the commands share, so that a bad value reads the same wherever it is given: one line naming the
option (argparse prefixes ``argument --OPTION:``), what it takes and the value given."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path

from reports.campaign.named_mutants import parse_shard

#: The most worker processes a command starts for each core: every worker is CPU-bound, so more only thrash (and a
#: mistyped ``--workers 10000`` would start ten thousand processes).
MOST_PER_CORE = 4


def most_workers() -> int:
    """The largest ``--workers`` this machine takes."""
    return MOST_PER_CORE * (os.cpu_count() or 1)


def workers_argument(text: str) -> int:
    """``--workers``: an integer from 1 to ``most_workers()``."""
    most = most_workers()
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= most:
        raise argparse.ArgumentTypeError(
            f"workers is an integer from 1 to {most} ({MOST_PER_CORE} a core on this machine), got {text!r}"
        )
    return value


def add_workers_option(parser: argparse.ArgumentParser) -> None:
    """``--workers N``: the worker processes a command starts, one a core unless told."""
    parser.add_argument(
        "--workers",
        type=workers_argument,
        default=os.cpu_count() or 1,
        metavar="N",
        help=f"worker processes, 1 to {MOST_PER_CORE} a core (default: one a core)",
    )


def shard_argument(text: str) -> tuple[int, int]:
    """``--shard``: ``I/N`` with 1 <= I <= N."""
    try:
        return parse_shard(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def seconds_argument(text: str) -> float:
    """``--budget``, ``--time``: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"seconds are a finite number > 0, got {text!r}")
    return value


def count_argument(least: int) -> Callable[[str], int]:
    """A count option's type: an integer ``least`` or more."""

    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"a count is an integer >= {least}, got {text!r}")
        return value

    return count


def folder_argument(text: str) -> str:
    """``--out`` and the like: a folder, or a path where one can be made (not a regular file)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} exists and is not a folder")
    return text
