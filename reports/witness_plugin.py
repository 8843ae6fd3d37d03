"""The red-first witness search's pytest plugin (``-p reports.witness_plugin``; see ``reports.witness``).

Each planned test is collected once and run again under each of its candidate mutants in turn until
one fails: a mutmut mutant through ``MUTANT_UNDER_TEST`` (its trampolines read it at call time), a
named mutant through its switches in ``strategies.defects.VARIANTS``. Nothing else of the harness is
imported here, so the plugin loads in any project the campaign runs in.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

#: Seconds one test may spend over its candidates (a property test under a mutant can be slow).
PER_TEST = 10.0


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cm-witness", default=None, help="JSON: each node id's candidate mutants, tried in order")
    parser.addoption("--cm-witness-out", default=None, help="where each test's witness is written (JSON lines)")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--cm-witness")
    if path:
        config.pluginmanager.register(WitnessSearch(json.loads(Path(path).read_text(encoding="utf-8")),
                                                    config.getoption("--cm-witness-out")), "cmharness-witness")


class WitnessSearch:
    """Runs each planned test under its candidates in turn until one fails; writes what it found."""

    def __init__(self, todo: dict[str, list[list[str]]], out: str) -> None:
        self.todo, self.out = todo, out

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        from _pytest.runner import runtestprotocol

        cands = self.todo.get(item.nodeid)
        if cands is None:
            return None
        started, tried, row = time.time(), 0, {"nodeid": item.nodeid, "witness": None, "complete": False}
        for kind, name, mutant_id in cands:
            if time.time() - started > PER_TEST:
                break
            with switched(kind, name):
                reports = runtestprotocol(item, nextitem=None, log=False)
            tried += 1
            failed = [r for r in reports if r.failed]
            if failed:
                row.update(witness=mutant_id, failure=failure_line(failed[0]))
                break
        else:
            row["complete"] = True
        row.update(tried=tried, seconds=round(time.time() - started, 3))
        with open(self.out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        return True


class switched:  # a context manager read as a phrase: ``with switched(kind, name):``
    """One candidate mutant switched on in this process, and off again after."""

    def __init__(self, kind: str, name: str) -> None:
        self.kind, self.name = kind, name
        self.saved: Any = None

    def __enter__(self) -> None:
        if self.kind == "mutmut":
            os.environ["MUTANT_UNDER_TEST"] = self.name
        else:
            from reports.mutant_plugin import apply_mutant
            from strategies import defects

            variant = self.name.split("+", 1)[0]
            self.saved = (variant, defects.VARIANTS[variant])
            apply_mutant(self.name)

    def __exit__(self, *exc: object) -> None:
        if self.kind == "mutmut":
            os.environ.pop("MUTANT_UNDER_TEST", None)
        else:
            from strategies import defects

            variant, before = self.saved
            defects.VARIANTS[variant] = before


def failure_line(report: pytest.TestReport) -> str:
    """The first line of what the failure raised (``AssertionError: assert 31 == 30``), whatever ``--tb`` said."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else report.longreprtext
    for line in text.splitlines():
        if line.startswith("E "):
            return line[1:].strip()[:300]
    return (text.strip().splitlines() or [""])[0][:300]
