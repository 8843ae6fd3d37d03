"""The ``cmharness`` command line.

Subcommands live in a small registry (``SUBCOMMANDS``): each is a ``Subcommand`` with a name, a
one-line help, a function that adds its arguments to its parser, and a function that runs it and
returns an exit code. A new subcommand is one more entry.

Exit codes: 0 success; 2 a usage error or an input that cannot be read (a one-line message on stderr, no
traceback); each subcommand's module documents the others (``reports.check``: 1 breaks reproduced on defective
variants, 3 ``sound`` broke; ``report``: 1 survivors or red-first gaps, 3 incomplete, mutants pending).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TextIO

from invariants.edges import add_edges_arguments, edges_command
from reference.estimator import content_tokens
from reference.model import MAX_NESTING
from reference.numerics import Number, js_number_string
from reference.price import live_prose
from reference.scenario import Scenario, ScenarioError, load_scenario
from reports.terminal import Terminal, printable

PROG = "cmharness"
EXIT_OK = 0
EXIT_USAGE = 2


class CliError(Exception):
    """An error reported as one line on stderr with exit code 2."""


def version() -> str:
    """The installed distribution's version, else the version in the source tree's pyproject.toml."""
    try:
        return metadata.version(PROG)
    except metadata.PackageNotFoundError:
        pass
    import tomllib

    try:
        with open(Path(__file__).resolve().parents[1] / "pyproject.toml", "rb") as fh:
            return str(tomllib.load(fh)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


# ----------------------------------------------------------------------------- helpers


def read_scenario(path: str) -> Scenario:
    """Load a scenario file, turning any problem with it into a ``CliError``."""
    try:
        return load_scenario(path)
    except ScenarioError as err:
        raise CliError(f"{path}: {err}") from err
    except (OSError, UnicodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise CliError(f"{path}: cannot read: {reason}") from err
    except RecursionError as err:  # the JSON parser's own limit, past the model's MAX_NESTING
        raise CliError(f"{path}: nested too deep to read (content nests at most {MAX_NESTING} levels)") from err
    except ValueError as err:  # the JSON parser's own limits (an integer of more than 4,300 digits)
        raise CliError(f"{path}: cannot read: {err}") from err


def fmt(x: Number | None) -> str:
    """A number as JavaScript's ``String`` writes it (``NaN``, ``Infinity``); ``-`` for None."""
    return "-" if x is None else js_number_string(x)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    """Plain aligned columns; ``right[i]`` right-aligns column i (numbers)."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)]
        return "  ".join(parts).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]


# ----------------------------------------------------------------------------- subcommands


@dataclass(frozen=True)
class Subcommand:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO], int]


def _price_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a scenario JSON file (see reference/scenario.py)")


def price_lines(scenario: Scenario) -> list[str]:
    """The ``price`` report: each message's ``E``, each summary's answer price, the messages' total."""
    store, config = scenario.store, scenario.config
    out = [
        f"calibration {fmt(store.calibration)}, pricing epoch {store.pricing_epoch}, "
        f"carrier policy {config.carrier_policy}",
        "",
        f"messages ({len(store.messages)})",
    ]
    total: Number = 0
    rows = []
    for m in store.messages:
        e = content_tokens(m.content, store)
        total += e
        rows.append([m.id, m.participant, fmt(e)])
    rows.append(["total", "", fmt(total)])
    out += format_table(["id", "participant", "E"], rows, [False, False, True])
    out += ["", f"summaries ({len(store.summaries)})"]
    srows = [
        [s.id, str(s.level), fmt(content_tokens(live_prose(s, config), store)), fmt(s.tokens)] for s in store.summaries
    ]
    out += format_table(["id", "level", "E(live prose)", "measured"], srows, [False, True, True, True])
    return out


def run_price(args: argparse.Namespace, stdout: TextIO) -> int:
    scenario = read_scenario(args.file)
    stdout.write("\n".join(price_lines(scenario)) + "\n")
    return EXIT_OK


def _report_args(parser: argparse.ArgumentParser) -> None:
    from reports.campaign import add_report_arguments  # imported on use: the report needs pandas

    add_report_arguments(parser)


def run_report(args: argparse.Namespace, stdout: TextIO) -> int:
    from reports.report import run

    return run(args, stdout)


def _check_args(parser: argparse.ArgumentParser) -> None:
    from reports.check import configure

    configure(parser)


def run_check(args: argparse.Namespace, stdout: TextIO) -> int:
    from reports.check import run

    return run(args, stdout)


def _defects_args(parser: argparse.ArgumentParser) -> None:
    from reports.defects import configure

    configure(parser)


def run_defects(args: argparse.Namespace, stdout: TextIO) -> int:
    from reports.defects import run

    return run(args, stdout)


def _compare_args(parser: argparse.ArgumentParser) -> None:
    from reports.compare import configure

    configure(parser)


def run_compare(args: argparse.Namespace, stdout: TextIO) -> int:
    from reports.compare import run

    return run(args, stdout)


def _lazy(module: str, name: str) -> Callable:
    """A subcommand's function, imported when called (the CLI starts without importing every command)."""

    def call(*args: object) -> object:
        import importlib

        return getattr(importlib.import_module(module), name)(*args)

    return call


SUBCOMMANDS: dict[str, Subcommand] = {
    cmd.name: cmd
    for cmd in (
        Subcommand("price", "price each message and summary answer of a scenario file", _price_args, run_price),
        Subcommand(
            "check", "compile a scenario file on each variant and list the invariants it breaks", _check_args, run_check
        ),
        Subcommand(
            "defects",
            "list every known defect, the variants that carry it and the tests that cover it",
            _defects_args,
            run_defects,
        ),
        Subcommand(
            "compare",
            "compile a corpus on two variants and classify every cell as the seed does",
            _compare_args,
            run_compare,
        ),
        Subcommand(
            "report",
            "run the mutation campaign and write the red-first report (reports/out/)",
            _report_args,
            run_report,
        ),
        Subcommand(
            "edges",
            "run the Z3 rounding-edge searches (--write rewrites invariants/witnesses.json)",
            add_edges_arguments,
            edges_command,
        ),
        Subcommand(
            "reproduce",
            "run scenario files' expectations on each variant: expected against actual",
            _lazy("reports.reproduce", "add_arguments"),
            _lazy("reports.reproduce", "run"),
        ),
        Subcommand(
            "export",
            "turn a counterexample into a scenario file with its expect filled in",
            _lazy("reports.export", "add_arguments"),
            _lazy("reports.export", "run"),
        ),
        Subcommand(
            "fuzz",
            "search the property tests with HypoFuzz on N processes, findings in an example database",
            _lazy("reports.fuzz.command", "add_arguments"),
            _lazy("reports.fuzz.command", "run_command"),
        ),
        Subcommand(
            "schema",
            "write the JSON Schema of scenario files (docs/scenario.schema.json)",
            _lazy("reports.schema", "add_arguments"),
            _lazy("reports.schema", "run"),
        ),
    )
}


# ----------------------------------------------------------------------------- entry point


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Verification harness for the hierarchical compile.")
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for cmd in SUBCOMMANDS.values():
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.help)
        cmd.configure(p)
        p.set_defaults(_run=cmd.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``cmharness`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    for stream in (sys.stdout, sys.stderr):  # a lone surrogate in an id is printed escaped, not a traceback
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        return args._run(args, Terminal(sys.stdout))
    except CliError as err:
        print(f"{PROG}: error: {printable(str(err))}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    # Run as ``python -m reports.cli``: use the module the subcommands import, so its CliError is caught.
    from reports import cli

    sys.exit(cli.main())
