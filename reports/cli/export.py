"""``cmharness export FILE|-``: a counterexample as a scenario file, its ``expect`` filled in from each variant.

The input is a scenario file (any ``expect`` in it is replaced), or the text a failing property test
prints (the scenario JSON inside it is found and read). By default each variant's expectation is
what it does now (grouped as ``all`` / ``faithful`` where variants agree), so the file pins today's
behaviour; ``--as-sound`` expects ``sound``'s behaviour of every variant, so the file stays red on
the variants that carry the defect until it is fixed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from invariants.reproduce import expect_from, expectation_of, observe
from reference.scenario import Scenario, dumps_scenario
from reference.variant_names import SOUND
from reports.cli.scenario_files import read_counterexample, write_text
from reports.exit_codes import Exit


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE|-", help="a scenario file, or a failing test's output (- reads stdin)")
    parser.add_argument("--out", metavar="PATH", help="write the scenario file here (default: standard output)")
    parser.add_argument(
        "--as-sound",
        action="store_true",
        help="expect sound's behaviour of every variant (red where a defect changes it)",
    )
    parser.add_argument("--description", help="the scenario's description (default: the input's)")
    parser.add_argument("--source", help="a link or an issue number for the scenario")


def exported(scenario: Scenario, as_sound: bool = False) -> Scenario:
    """The scenario with an ``expect`` pinning each variant's behaviour (or sound's, for every variant)."""
    expect = {"all": expectation_of(observe(scenario, SOUND))} if as_sound else expect_from(scenario)
    return replace(scenario, expect=expect)


def with_schema_key(text: str, out: Path) -> str:
    """The file names the shipped schema (relative to where it is written) when a parent folder has it."""
    for folder in out.resolve().parents:
        schema = folder / "docs" / "scenario.schema.json"
        if schema.is_file():
            rel = os.path.relpath(schema, out.resolve().parent).replace(os.sep, "/")
            return "{\n  " + json.dumps("$schema") + ": " + json.dumps(rel) + "," + text[1:]
    return text


def source_value(text: str) -> str | int:
    """``--source``: an issue number (ASCII digits, as JSON can hold exactly) or a link."""
    return int(text) if re.fullmatch(r"[0-9]{1,15}", text) else text


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    scenario = read_counterexample(args.file)
    if args.description is not None:
        scenario = replace(scenario, description=args.description)
    if args.source is not None:
        scenario = replace(scenario, source=source_value(args.source))
    text = dumps_scenario(exported(scenario, args.as_sound))
    if args.out:
        text = with_schema_key(text, Path(args.out))
        write_text(args.out, text)
        stdout.write(f"wrote {args.out}; check it with: cmharness reproduce {args.out}\n")
    else:
        stdout.write(text)
    return Exit.OK
