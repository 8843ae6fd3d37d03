"""``cmharness reproduce FILE|DIR... [-]``: each scenario's expectations against what each variant does.

Per scenario and per variant named in its ``expect``: the fields expected and what happened, side
by side, green where they agree and red where not (colour only on a terminal, and never with
``NO_COLOR``). Exit 0 when every expectation holds, 1 when one does not, 2 for input that cannot be
read (the others are still run and reported). ``--json`` writes the same as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from invariants.reproduce import Verdict, judge
from reference.errors import UnknownNameError
from reference.expect import VARIANT_NAMES
from reference.names import unknown
from reference.scenario import Scenario
from reports.cli.scenario_files import InputError, expand, read_scenario
from reports.errors import UsageError
from reports.exit_codes import Exit

GREEN, RED, RESET = "\x1b[32m", "\x1b[31m", "\x1b[0m"

#: The most characters of a description shown in a scenario's header line.
TITLE_WIDTH = 100


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE|DIR",
        help="scenario files, directories of *.scenario.json, or - for standard input",
    )
    parser.add_argument(
        "--variant",
        action="append",
        dest="variants",
        metavar="NAME",
        help="only this variant (repeatable; default: every variant the file's expect names)",
    )
    parser.add_argument("--json", action="store_true", help="write the result as JSON")


def _paint(text: str, ok: bool, colour: bool) -> str:
    return f"{GREEN if ok else RED}{text}{RESET}" if colour else text


def verdict_lines(v: Verdict, colour: bool) -> list[str]:
    """One variant's table: field, expected, actual, and a mark."""
    head = _paint(f"  {v.variant}: {'as expected' if v.ok else 'NOT as expected'}", v.ok, colour)
    rows = [(ln.field, ln.expected, ln.actual, ln.ok) for ln in v.lines]
    w1 = max(len("field"), *(len(r[0]) for r in rows))
    w2 = min(48, max(len("expected"), *(len(r[1]) for r in rows)))
    out = [head, f"    {v.observed.outcome}", f"    {'field'.ljust(w1)}  {'expected'.ljust(w2)}  actual"]
    for field, expected, actual, ok in rows:
        mark = "ok" if ok else "MISMATCH"
        out.append(_paint(f"    {field.ljust(w1)}  {expected.ljust(w2)}  {actual}  [{mark}]", ok, colour))
    if not v.ok and v.observed.violations:
        out += [f"      {x}" for x in v.observed.violations]
    return out


def _title(name: str, sc: Scenario) -> str:
    parts = [name]
    if sc.source is not None:
        parts.append(f"source {sc.source}")
    if sc.description:
        parts.append(headline(sc.description))
    return " - ".join(parts)


def headline(text: str, width: int = TITLE_WIDTH) -> str:
    """The first line of ``text``, cut at a word boundary to at most ``width`` characters ("..." marks a cut)."""
    line = text.splitlines()[0] if text.strip() else ""
    if len(line) <= width:
        return line
    cut = line[: width - 3]
    space = cut.rfind(" ")
    if space > 0 and line[width - 3] != " ":  # the cut falls inside a word: end at the space before it
        cut = cut[:space]
    return cut.rstrip() + "..."


def _as_json(name: str, sc: Scenario, verdicts: Sequence[Verdict]) -> dict[str, Any]:
    return {
        "file": name,
        "description": sc.description,
        "source": sc.source,
        "ok": all(v.ok for v in verdicts),
        "variants": [
            {
                "variant": v.variant,
                "ok": v.ok,
                "outcome": v.observed.outcome,
                "breaks": list(v.observed.breaks),
                "fields": [
                    {"field": ln.field, "expected": ln.expected, "actual": ln.actual, "ok": ln.ok} for ln in v.lines
                ],
            }
            for v in verdicts
        ],
    }


def judged(name: str, sc: Scenario, variants: Sequence[str] | None) -> list[Verdict]:
    """The scenario's verdicts; an invariant its ``breaks`` names that no judge declares is the file's error."""
    try:
        return judge(sc, variants)
    except UnknownNameError as err:
        raise InputError(f"{name}: {err}") from err


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    for v in args.variants or ():
        if v not in VARIANT_NAMES:
            raise UsageError(unknown("variant", v, VARIANT_NAMES))
    colour = not args.json and stdout.isatty() and not os.environ.get("NO_COLOR")
    results: list[dict[str, Any]] = []
    errors: list[str] = []
    red = ran = 0
    names: list[str] = []
    for given in args.files:
        try:
            names += expand([given])
        except InputError as err:
            errors.append(str(err))
            if not args.json:
                print(f"cmharness: error: {err}", file=sys.stderr)
    for name in names:
        try:
            sc = read_scenario(name)
            if not sc.expect:
                raise InputError(f"{name}: the scenario has no expect section (cmharness export writes one)")
            verdicts = judged(name, sc, args.variants)
        except InputError as err:
            errors.append(str(err))
            if not args.json:
                print(f"cmharness: error: {err}", file=sys.stderr)
            continue
        ran += 1
        red += sum(not v.ok for v in verdicts)
        if args.json:
            results.append(_as_json(name, sc, verdicts))
        else:
            stdout.write("\n".join([_title(name, sc), *(x for v in verdicts for x in verdict_lines(v, colour))]) + "\n")
    total = sum(len(r["variants"]) for r in results) if args.json else None
    if args.json:
        json.dump(
            {
                "ok": not red and not errors,
                "scenarios": results,
                "errors": errors,
                "expectations": total,
                "not_as_expected": red,
            },
            stdout,
            indent=2,
            ensure_ascii=True,
        )
        stdout.write("\n")
    else:
        stdout.write(
            f"{ran} scenario(s): {red} expectation(s) not as expected"
            + (f", {len(errors)} unreadable" if errors else "")
            + "\n"
        )
    if errors:
        return Exit.USAGE
    return Exit.NOT_AS_EXPECTED if red else Exit.OK
