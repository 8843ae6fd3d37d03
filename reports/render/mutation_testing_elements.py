"""``mutation-report.json``: the report in the mutation-testing-elements schema (version 1), every mutant of every
kind, for the standard viewers; validated against the published schema (``reports/render/schema/``) by the tests."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from reports.campaign.records import Kind, Status
from reports.render.report_model import Report, module_file

MTE_STATUS = {
    Status.KILLED: "Killed",
    Status.SURVIVED: "Survived",
    Status.TIMEOUT: "Timeout",
    Status.NO_COVERAGE: "NoCoverage",
    Status.ERROR: "RuntimeError",
    Status.TYPE_CHECK: "CompileError",
    Status.SKIPPED: "Ignored",
    Status.EQUIVALENT: "Ignored",
    Status.PENDING: "Pending",
}


def switch_locations(root: Path) -> dict[str, tuple[str, int, int]]:
    """Where each defect switch is tested: the first ``Defect.NAME`` outside ``defects.py`` (file, line, column)."""
    out: dict[str, tuple[str, int, int]] = {}
    folder = root / "strategies"
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        if path.name == "defects.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in re.finditer(r"Defect\.([A-Z0-9_]+)", line):
                out.setdefault(m.group(1), (path.relative_to(root).as_posix(), n, m.start() + 1))
    return out


def mte_json(report: Report, root: Path) -> dict[str, Any]:
    """The report in the mutation-testing-elements schema (version 1)."""
    files: dict[str, dict[str, Any]] = {}

    def file_entry(path: str) -> dict[str, Any]:
        if path not in files:
            src = root / path
            files[path] = {
                "language": "python",
                "source": src.read_text(encoding="utf-8") if src.exists() else "",
                "mutants": [],
            }
        return files[path]

    locations = switch_locations(root)
    for row in report.named:
        defect = row.spec.split("+")[-1]
        path, line, col = locations.get(defect, ("strategies/defects.py", 1, 1))
        if row.kind == Kind.EXTRA:
            rec = report.extra_locations.get(row.id)
            if rec is not None:
                path, line = rec.file or path, int(rec.line or 1)
            else:
                line = 1
            col = 1
        entry = {
            "id": row.id,
            "mutatorName": {"defect": "DefectSwitch", "extra": "Patch"}.get(row.kind, "SeedRemoval"),
            "replacement": f"{row.spec}",
            "description": row.wording,
            "location": {
                "start": {"line": line, "column": col},
                "end": {"line": line, "column": col + len("Defect.") + len(defect)},
            },
            "status": MTE_STATUS.get(row.status, "RuntimeError"),
            "killedBy": list(row.killed_by),
        }
        if row.duration is not None:
            entry["duration"] = round(float(row.duration) * 1000)
        if row.status == Status.TIMEOUT:
            entry["statusReason"] = "no test failed before the timeout"
        file_entry(path)["mutants"].append(entry)
    for row in report.mutmut:
        change = row.change
        path = change.file if change is not None and change.file else module_file(row.id)
        if not (root / path).exists():
            continue
        line, col = row.line, change.column if change is not None else 1
        end_line, end_col = (change.end_line, change.end_column) if change is not None else (line, col)
        entry = {
            "id": row.id,
            "mutatorName": change.mutator if change is not None else "Mutation",
            "replacement": change.replacement if change is not None else "",
            "location": {
                "start": {"line": line, "column": col},
                "end": {"line": end_line, "column": end_col},
            },
            "status": MTE_STATUS.get(row.status, "RuntimeError"),
            "killedBy": list(row.killed_by),
        }
        if row.status == Status.EQUIVALENT:
            entry["statusReason"] = f"equivalent: {row.reason}"
        if row.duration is not None:
            entry["duration"] = round(float(row.duration) * 1000)
        file_entry(path)["mutants"].append(entry)
    test_files: dict[str, dict[str, Any]] = {}
    for t in report.tests:
        test_files.setdefault(t.file, {"tests": []})["tests"].append(
            {"id": t.nodeid, "name": t.nodeid.split("::", 1)[-1]}
        )
    return {
        "$schema": "https://git.io/mutation-testing-schema",
        "schemaVersion": "1",
        "thresholds": {"high": 80, "low": 60},
        "projectRoot": str(root),
        "files": dict(sorted(files.items())),
        "testFiles": dict(sorted(test_files.items())),
        "framework": {"name": "cmharness", "branding": {"homepageUrl": "https://example.invalid/cmharness"}},
    }
