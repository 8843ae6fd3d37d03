"""``cmharness variants [--json]``: every variant, the TypeScript line and commits it models, the upstream tests it
reproduces (test file, commit, the scenario files that transcribe it), the defects it carries and where each
behaviour was read (``strategies.provenance``)."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from reports.cli.terminal import format_table
from reports.exit_codes import Exit
from strategies.defects import Defect
from strategies.provenance import MODELS, VERSIONS, UpstreamTest, VariantModel


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the variants as JSON")


def _defects(m: VariantModel) -> list[str]:
    return [d.name for d in Defect if d in m.defects]


def _test_json(t: UpstreamTest) -> dict[str, Any]:
    return {"commit": t.commit, "test_file": t.test_file, "scenarios": list(t.paths)}


def _tests_text(tests: tuple[UpstreamTest, ...]) -> str:
    return "; ".join(f"{t.commit} {t.test_file} ({scenario_count(t)})" for t in tests) or "none"


def scenario_count(t: UpstreamTest) -> str:
    n = len(t.scenarios)
    return f"{n} scenario file" if n == 1 else f"{n} scenario files"


def as_json(m: VariantModel) -> dict[str, Any]:
    return {
        "name": m.name,
        "line": m.line or None,
        "commits": list(m.commits),
        "models": m.summary,
        "reproduces": [_test_json(t) for t in m.reproduces],
        "contrasts": [_test_json(t) for t in m.contrasts],
        "defects": _defects(m),
        "readings": [
            {
                "behaviour": r.behaviour,
                "functions": list(r.functions),
                "version": r.version,
                "file": VERSIONS[r.version].file,
                "commit": VERSIONS[r.version].commit,
                "stored_id": VERSIONS[r.version].stored_id,
                "line": VERSIONS[r.version].line,
            }
            for r in m.readings
        ],
    }


def text_lines(models: list[VariantModel]) -> list[str]:
    rows = [
        [m.name, m.line or "(none)", ", ".join(m.commits) or "(none)", str(len(m.defects)), m.summary] for m in models
    ]
    out = format_table(
        ["variant", "TypeScript line", "commits", "defects", "models"], rows, [False] * 3 + [True, False]
    )
    for m in models:
        out += ["", f"{m.name}:", f"  defects ({len(m.defects)}): {', '.join(_defects(m)) or 'none'}"]
        out.append(f"  reproduces the tests of: {_tests_text(m.reproduces)}")
        if m.contrasts:
            out.append(f"  pinned apart from (lacks what they test): {_tests_text(m.contrasts)}")
        if not m.readings:
            out.append("  behaviour read at: no TypeScript (it models no commit)")
            continue
        out.append("  behaviour read at:")
        for r in m.readings:
            v = VERSIONS[r.version]
            out.append(f"    {r.behaviour}: {', '.join(r.functions)} ({v.file}, {v.where})")
    return out


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    models = list(MODELS.values())
    if args.json:
        stdout.write(json.dumps({"variants": [as_json(m) for m in models]}, indent=2) + "\n")
    else:
        stdout.write("\n".join(text_lines(models)) + "\n")
    return Exit.OK
