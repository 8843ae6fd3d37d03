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
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from invariants.reproduce import expect_from, expectation_of, observe
from reference.scenario import Scenario, ScenarioError, dumps_scenario, load_scenario
from reports.cli.scenario_files import InputError

EXIT_OK, EXIT_UNREADABLE = 0, 2


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


def find_scenario_json(text: str) -> Any:
    """The scenario object in ``text``: the whole text, else the first JSON object holding a "store"."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            obj = None
        if isinstance(obj, dict) and "store" in obj:
            return obj
        start = text.find("{", start + 1)
    raise InputError("no scenario JSON found (expected a scenario file or a failing test's output)")


def _read(name: str) -> Scenario:
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise InputError(f"{name}: cannot read: {reason}") from err
    try:
        return load_scenario(find_scenario_json(text))
    except InputError as err:
        raise InputError(f"{name}: {err}") from err
    except ScenarioError as err:
        raise InputError(f"{name}: {err}") from err


def exported(scenario: Scenario, as_sound: bool = False) -> Scenario:
    """The scenario with an ``expect`` pinning each variant's behaviour (or sound's, for every variant)."""
    expect = {"all": expectation_of(observe(scenario, "sound"))} if as_sound else expect_from(scenario)
    return replace(scenario, expect=expect)


def with_schema_key(text: str, out: Path) -> str:
    """The file names the shipped schema (relative to where it is written) when a parent folder has it."""
    for folder in out.resolve().parents:
        schema = folder / "docs" / "scenario.schema.json"
        if schema.is_file():
            rel = os.path.relpath(schema, out.resolve().parent).replace(os.sep, "/")
            return "{\n  " + json.dumps("$schema") + ": " + json.dumps(rel) + "," + text[1:]
    return text


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    try:
        scenario = _read(args.file)
    except InputError as err:
        print(f"cmharness: error: {err}", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.description is not None:
        scenario = replace(scenario, description=args.description)
    if args.source is not None:
        scenario = replace(scenario, source=int(args.source) if args.source.isdigit() else args.source)
    text = dumps_scenario(exported(scenario, args.as_sound))
    if args.out:
        text = with_schema_key(text, Path(args.out))
        try:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as err:
            print(f"cmharness: error: {args.out}: cannot write: {err.strerror or err}", file=sys.stderr)
            return EXIT_UNREADABLE
        stdout.write(f"wrote {args.out}; check it with: cmharness reproduce {args.out}\n")
    else:
        stdout.write(text)
    return EXIT_OK
