"""Argument types every command shares, so that a bad value reads the same wherever it is given: one line naming the
option (argparse prefixes ``argument --OPTION:``) and the value."""

from __future__ import annotations

import argparse
import os

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
