"""``mutation-report.json``: the report in the mutation-testing-elements schema (version 1), every mutant of every
kind, for the standard viewers; validated against the published schema (``reports/render/schema/``) by the tests."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from reports.campaign.records import Kind, Status
from reports.render.report_model import Report
from reports.render.summary import _module_file

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


def _num(x: Any, default: int) -> int:
    import pandas as pd

    return default if x is None or (isinstance(x, float) and pd.isna(x)) else int(x)


def mte_json(report: Report, root: Path) -> dict[str, Any]:
    """The report in the mutation-testing-elements schema (version 1)."""
    import pandas as pd

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
    for row in report.named.itertuples():
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
        if row.duration is not None and not pd.isna(row.duration):
            entry["duration"] = round(float(row.duration) * 1000)
        if row.status == Status.TIMEOUT:
            entry["statusReason"] = "no test failed before the timeout"
        file_entry(path)["mutants"].append(entry)
    for row in report.mutmut.itertuples():
        path = row.file if isinstance(row.file, str) and row.file else _module_file(row.id)
        if not (root / path).exists():
            continue
        line, col = _num(row.line, 1), _num(row.column, 1)
        entry = {
            "id": row.id,
            "mutatorName": row.mutator if isinstance(row.mutator, str) else "Mutation",
            "replacement": row.replacement if isinstance(row.replacement, str) else "",
            "location": {
                "start": {"line": line, "column": col},
                "end": {"line": _num(row.end_line, line), "column": _num(row.end_column, col)},
            },
            "status": MTE_STATUS.get(row.status, "RuntimeError"),
            "killedBy": list(row.killed_by or []),
        }
        if row.status == Status.EQUIVALENT:
            entry["statusReason"] = f"equivalent: {row.reason}"
        if _num(row.duration, -1) >= 0:
            entry["duration"] = round(float(row.duration) * 1000)
        file_entry(path)["mutants"].append(entry)
    test_files: dict[str, dict[str, Any]] = {}
    for nodeid, row in report.tests.iterrows():
        test_files.setdefault(row["file"], {"tests": []})["tests"].append(
            {"id": nodeid, "name": nodeid.split("::", 1)[-1]}
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
