"""The ``cmharness`` command line: the registry of subcommands and the one error boundary.

Each subcommand is a module of this package with ``configure(parser)`` and ``run(args, stdout) -> exit code``;
``SUBCOMMANDS`` lists them, one line each, and imports a module only when its subcommand is used or its parser
built (a lazy import for the command's start-up time, never to dodge a cycle: docs/architecture.md).
Shared by the subcommands: ``scenario_files`` (the one scenario reader) and ``terminal`` (the printer).

``main`` is the error boundary: a ``reports.errors.HarnessError`` raised anywhere below is printed as one line
on stderr, with its class's exit code (``UsageError`` 2, ``CampaignError`` 3: ``reports.exit_codes``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import NoReturn, TextIO

from reports.cli.terminal import Terminal, printable
from reports.errors import HarnessError
from reports.exit_codes import Exit

PROG = "cmharness"


def version() -> str:
    """The installed distribution's version, else the version in the source tree's pyproject.toml."""
    try:
        return metadata.version(PROG)
    except metadata.PackageNotFoundError:
        pass
    try:
        with open(Path(__file__).resolve().parents[2] / "pyproject.toml", "rb") as fh:
            return str(tomllib.load(fh)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


@dataclass(frozen=True)
class Subcommand:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO], int]


def _lazy(module: str, name: str) -> Callable:
    """A subcommand's function, imported when called (the CLI starts without importing every command)."""

    def call(*args: object) -> object:
        return getattr(importlib.import_module(module), name)(*args)

    return call


def _command(name: str, help: str, module: str) -> Subcommand:
    """The subcommand ``name`` implemented by ``module``'s ``configure`` and ``run``."""
    return Subcommand(name, help, _lazy(module, "configure"), _lazy(module, "run"))


SUBCOMMANDS: dict[str, Subcommand] = {
    cmd.name: cmd
    for cmd in (
        _command("price", "price each message and summary answer of a scenario file", "reports.cli.price"),
        _command(
            "check", "compile a scenario file on each variant and list the invariants it breaks", "reports.cli.check"
        ),
        _command(
            "defects",
            "list every known defect, the variants that carry it and the tests that cover it",
            "reports.cli.defects",
        ),
        _command(
            "variants",
            "list every variant: the TypeScript line and commits it models, its defects, where each part was read",
            "reports.cli.variants",
        ),
        _command(
            "compare",
            "compile a corpus on two variants and classify every cell as the seed does",
            "reports.cli.compare",
        ),
        _command(
            "report", "run the mutation campaign and write the red-first report (reports/out/)", "reports.cli.report"
        ),
        _command(
            "edges",
            "run the Z3 rounding-edge searches (--write rewrites invariants/witnesses.json)",
            "reports.cli.edges",
        ),
        _command(
            "reproduce",
            "run scenario files' expectations on each variant: expected against actual",
            "reports.cli.reproduce",
        ),
        _command(
            "export", "turn a counterexample into a scenario file with its expect filled in", "reports.cli.export"
        ),
        _command(
            "fuzz",
            "search the property tests with HypoFuzz on N processes, findings in an example database",
            "reports.cli.fuzz",
        ),
        _command("schema", "write the JSON Schema of scenario files (docs/scenario.schema.json)", "reports.cli.schema"),
        _command(
            "prove",
            "check every invariant on every store and setting of a scope, exhaustively (the smallest break of each)",
            "reports.cli.prove",
        ),
    )
}


# ----------------------------------------------------------------------------- entry point


class Parser(argparse.ArgumentParser):
    """argparse, its usage errors in one line (the usage itself is one ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(Exit.USAGE, f"{self.prog}: error: {printable(message)} (see {self.prog} --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; with ``command``, only that one's options are configured (the others are
    listed, not imported: ``cmharness price`` loads no campaign module)."""
    parser = Parser(prog=PROG, description="Verification harness for the hierarchical compile.")
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for cmd in SUBCOMMANDS.values():
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.help)
        if command is None or cmd.name == command:
            cmd.configure(p)
        p.set_defaults(_run=cmd.run)
    return parser


#: What the top level takes besides a command.
TOP_LEVEL_OPTIONS = ("-h", "--help", "--version")


def command_named(argv: Sequence[str]) -> str:
    """The subcommand ``argv`` names (its first word that is not an option: the top level takes no values), or
    "" when it names none."""
    return next((a for a in argv if not a.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``cmharness`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(command_named(argv))
    try:
        if not command_named(argv) and (unknown := [a for a in argv if a not in TOP_LEVEL_OPTIONS]):
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")  # not "COMMAND required": name the culprit
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else Exit.USAGE
    for stream in (sys.stdout, sys.stderr):  # a lone surrogate in an id is printed escaped, not a traceback
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        return args._run(args, Terminal(sys.stdout))
    except HarnessError as err:
        print(f"{PROG}: error: {printable(str(err))}", file=sys.stderr)
        return err.exit
