"""A failing property test's case as a ready-to-save scenario file, and the command that keeps it.

The scenario is written under ``.cmharness/counterexamples/`` (beside the other scratch files) and
printed in the failure report; ``cmharness export FILE --out tests/scenarios/found/NAME.scenario.json``
fills in its ``expect`` from what each variant does, so the pytest plugin collects it from then on.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from invariants import scenario_json
from invariants.properties import InvariantViolation

SCRATCH = Path(".cmharness") / "counterexamples"


def _violation(err: BaseException) -> InvariantViolation | None:
    if isinstance(err, InvariantViolation) and err.case is not None:
        return err
    if isinstance(err, BaseExceptionGroup):
        for sub in err.exceptions:
            found = _violation(sub)
            if found is not None:
                return found
    return None


def safe_name(nodeid: str) -> str:
    """A node id as a file name: ``test_x.py::test_y[sound]`` -> ``test_x-test_y-sound``."""
    stem = re.sub(r"\.py(?=::)", "", nodeid.split("/")[-1])
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-")[:120]


def counterexample_section(item: pytest.Item, err: BaseException) -> str | None:
    """The report section for a test that failed on an invariant with a known case, else None."""
    violation = _violation(err)
    if violation is None:
        return None
    store, config, budget = violation.case  # type: ignore[misc]
    obj = scenario_json(store, config, budget)
    if "unavailable" in obj:
        return f"(not writable as a scenario file: {obj['unavailable']})"
    names = ", ".join(dict.fromkeys(v.invariant for v in violation.violations))
    obj = {"description": f"{names} broken; found by {item.nodeid}", **obj}
    text = json.dumps(obj, indent=2, ensure_ascii=True)
    name = safe_name(item.nodeid)
    path = Path(str(item.config.rootpath)) / SCRATCH / f"{name}.scenario.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
        where = str(path.relative_to(item.config.rootpath))
    except OSError:
        where = "-  (paste the JSON above on standard input)"
    return (
        f"{text}\n\nKeep it as a regression (expect filled in from what each variant does):\n"
        f"  cmharness export {where} --out tests/scenarios/found/{name}.scenario.json\n"
    )
