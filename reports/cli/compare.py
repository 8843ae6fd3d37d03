"""``cmharness compare``: what a change does to real traffic, as the seed's 144-store run, automated.

Every cell of a corpus (``reports.compare.corpus`` by default, or scenario files with ``--corpus DIR``) is
compiled as a dry run on both sides and classified as the seed does (``reports.compare.classify``). For
each differing cell, the defects that differ between the sides are switched one at a time (off or
on, on either side): a defect explains the cell when that switch alone makes the two sides agree.
Each differing cell gets a one-line command that reproduces it (``--save-cells DIR`` writes it as a
scenario file that ``check`` and ``reproduce`` read).

Exit codes: 0 no cell sends different bytes on the two sides; 1 some cell does (a prompt-cache miss
for every resident agent at upgrade); 2 a usage error or an unreadable scenario file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from reference.scenario import ScenarioError
from reports.arguments import add_workers_option, count_argument, folder_argument
from reports.compare import corpus
from reports.compare.cells import DEFAULT_BASE, DEFAULT_HEAD, Job, load_corpus_file, run_all
from reports.compare.classify import CellClass
from reports.errors import UsageError
from reports.exit_codes import Exit
from reports.frames import cell_frame, class_counts
from reports.render import compare as out
from strategies.defects import parse_variant


def scenario_files(directory: str) -> list[str]:
    root = Path(directory)
    if not root.is_dir():
        raise UsageError(f"{directory}: not a folder of scenario files")
    files = sorted(str(p) for p in root.rglob("*.json"))
    if not files:
        raise UsageError(f"{directory}: no scenario files (*.json) in it")
    for f in files:
        try:
            load_corpus_file(f)
        except ScenarioError as err:
            raise UsageError(f"{f}: {err}") from err
        except (OSError, UnicodeError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise UsageError(f"{f}: cannot read: {reason}") from err
    return files


def _make_folder(option: str, folder: Path) -> None:
    """``folder`` made (with its parents) where it is missing; a ``UsageError`` naming ``option`` where it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"{option} {folder}: {err.strerror or err}") from None


def jobs(args: argparse.Namespace) -> list[Job]:
    common = dict(
        base=args.base,
        head=args.head,
        seed=args.seed,
        size=args.size,
        templates=args.templates,
        only=args.cell,
        save_dir=args.save_cells,
    )
    out: list[Job] = []
    if not args.corpus or args.with_default:
        out += [Job(**common, axes=ax) for ax in corpus.grid(args.templates)]
    for directory in args.corpus or ():
        out += [Job(**common, path=f) for f in scenario_files(directory)]
    return out


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base",
        default=DEFAULT_BASE,
        metavar="VARIANT",
        help=f"the side before the change (default {DEFAULT_BASE}; a spec like sound+DEFECT works)",
    )
    parser.add_argument(
        "--head", default=DEFAULT_HEAD, metavar="VARIANT", help=f"the side after the change (default {DEFAULT_HEAD})"
    )
    parser.add_argument(
        "--templates",
        type=count_argument(0),
        default=8,
        metavar="N",
        help="store templates in the default corpus (each is 144 cells; default 8)",
    )
    parser.add_argument(
        "--size", type=count_argument(1), default=40, metavar="N", help="messages per template (default 40)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the corpus seed (default 0)")
    parser.add_argument(
        "--corpus",
        action="append",
        metavar="DIR",
        help="compare on the scenario files in DIR instead of the default corpus (repeatable)",
    )
    parser.add_argument("--with-default", action="store_true", help="with --corpus: the default corpus as well")
    parser.add_argument("--cell", metavar="ID", help="only the cells whose id starts with ID")
    add_workers_option(parser)
    parser.add_argument(
        "--save-cells", type=folder_argument, metavar="DIR", help="write each differing cell as a scenario file in DIR"
    )
    parser.add_argument(
        "--out",
        type=folder_argument,
        metavar="DIR",
        help="write cells.csv, cells.md and summary.md (every differing cell)",
    )
    parser.add_argument("--plot", metavar="FILE.png", help="plot the outcomes by budget on both sides")
    parser.add_argument(
        "--show",
        type=count_argument(0),
        default=15,
        metavar="N",
        help="differing cells listed on the terminal (default 15)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    for spec in (args.base, args.head):
        try:
            parse_variant(spec)
        except ValueError as err:
            raise UsageError(str(err)) from err
    if args.plot and not args.plot.lower().endswith(".png"):
        raise UsageError(f"--plot {args.plot}: the plot is a PNG file (FILE.png)")
    for option, folder in (("--out", args.out), ("--save-cells", args.save_cells)):
        if folder:
            _make_folder(option, Path(folder))  # before the run: a bad folder costs no compile
    todo = jobs(args)
    records, seconds = run_all(todo, args.workers, None if args.quiet else sys.stderr)
    records.sort(key=lambda r: r.id)
    summary = class_counts(cell_frame(records))
    if args.out:
        out.write_tables(records, summary, Path(args.out), args)
    if args.plot:
        out.plot(records, Path(args.plot), args.base, args.head)
    render = out.render_json if args.json else out.render_text
    stdout.write(render(records, summary, args, seconds))
    return Exit.NEW_BYTES if any(r.cls is CellClass.DIFFERENT_BYTES for r in records) else Exit.OK
