"""``cmharness edges``: the Z3 rounding-edge searches (``invariants.edges``), run from the command line."""

from __future__ import annotations

import argparse
from typing import TextIO

from invariants.edges import add_edges_arguments, edges_command


def configure(parser: argparse.ArgumentParser) -> None:
    add_edges_arguments(parser)


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    return edges_command(args, stdout)
