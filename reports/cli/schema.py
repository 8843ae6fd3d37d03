"""``cmharness schema``: the JSON Schema of scenario files (pydantic's), for editors and validators.

The repository ships it as ``docs/scenario.schema.json``; a test keeps that copy up to date.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from reference.scenario_format import json_schema
from reports.cli.scenario_files import write_text
from reports.exit_codes import Exit


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", metavar="PATH", help="write it here (default: standard output)")


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2) + "\n"


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    text = schema_text()
    if not args.out:
        stdout.write(text)
        return Exit.OK
    write_text(args.out, text)
    stdout.write(f"wrote {args.out}\n")
    return Exit.OK
