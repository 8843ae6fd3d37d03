"""``cmharness schema``: the JSON Schema of scenario files (pydantic's), for editors and validators.

The repository ships it as ``docs/scenario.schema.json``; a test keeps that copy up to date.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from reference.scenario_format import json_schema


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", metavar="PATH", help="write it here (default: standard output)")


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2) + "\n"


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    text = schema_text()
    if not args.out:
        stdout.write(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as err:
        print(f"cmharness: error: {args.out}: cannot write: {err.strerror or err}", file=sys.stderr)
        return 2
    stdout.write(f"wrote {args.out}\n")
    return 0
