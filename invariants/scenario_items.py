"""Scenario files as pytest items: every ``*.scenario.json`` under a ``scenarios`` folder of the tests.

One item per scenario and variant named in its ``expect`` (``tests/scenarios/x.scenario.json::sound``);
the item passes when the variant does what the file expects, and a failure shows expected against
actual field by field. A file that cannot be read is a collection error with the loader's one-line
message. Loaded by the ``cmharness`` plugin (``invariants.plugin``); items carry the ``scenario`` marker.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from invariants.reproduce import Verdict, judge_variant
from reference.expect import variants_named
from reference.scenario import Scenario, ScenarioError, load_scenario

SUFFIX = ".scenario.json"


class ScenarioMismatch(AssertionError):
    """A variant did not do what the scenario file expects; carries the verdict."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.explain())
        self.verdict = verdict


def is_scenario_file(path: Path) -> bool:
    return path.name.endswith(SUFFIX) and "scenarios" in path.parts


class ScenarioFile(pytest.File):
    """A scenario file: an item for each variant its ``expect`` names."""

    def collect(self):
        try:
            scenario = load_scenario(self.path)
        except (ScenarioError, OSError, UnicodeDecodeError) as err:
            raise self.CollectError(f"{self.path.name}: {err}") from None
        named = variants_named(scenario.expect)
        if not named:
            raise self.CollectError(f"{self.path.name}: no expect section (cmharness export writes one)")
        for variant in named:
            item = ScenarioItem.from_parent(self, name=variant, scenario=scenario, variant=variant)
            item.add_marker(pytest.mark.scenario)
            yield item


class ScenarioItem(pytest.Item):
    """One variant of one scenario file."""

    def __init__(self, *, scenario: Scenario, variant: str, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.scenario = scenario
        self.variant = variant

    def runtest(self) -> None:
        verdict = judge_variant(self.scenario, self.variant)
        if not verdict.ok:
            raise ScenarioMismatch(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: object = None) -> str:
        """A mismatch as expected against actual; a crash in the ``--tb`` style asked for (a plain item's
        default ignores it and formats every frame in full, which a mutmut work copy's large files make slow)."""
        if isinstance(excinfo.value, ScenarioMismatch):
            return f"{self.path.name}: not as expected on {excinfo.value}"
        return self._repr_failure_py(excinfo, style or self.config.getoption("tbstyle", "auto"))  # type: ignore[arg-type,return-value]

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}::{self.variant}"
