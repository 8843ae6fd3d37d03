"""``cmharness edges``: the Z3 rounding-edge searches (``invariants.edges``), run from the command line."""

from __future__ import annotations

import argparse
from typing import TextIO

from invariants.edges import CorpusError, add_edges_arguments, edges_command
from reports.errors import UsageError


def configure(parser: argparse.ArgumentParser) -> None:
    add_edges_arguments(parser)


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    try:
        return edges_command(args, stdout)
    except CorpusError as err:
        raise UsageError(str(err)) from None
