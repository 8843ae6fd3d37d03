"""The fake project the campaign tests run on (issue 6): a tiny ``strategies.defects`` with four switches, its
tests and named mutants, and the settings to run them; ``conftest.py``'s ``campaign`` fixture runs it once."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from reports.campaign.journal import load_journals
from reports.campaign.named_mutants import Mutant
from reports.campaign.phases import baseline, named
from reports.campaign.records import BASELINE, MutantChange, MutantRecord, MutmutRecord, Records, Status, decode
from reports.campaign.run_context import RunContext
from reports.campaign.settings import Settings

FAKE_DEFECTS = """
from enum import Enum


class Defect(Enum):
    OFF_BY_ONE = ("test", "adds one")
    HANGS = ("test", "never returns")
    HARMLESS = ("test", "changes nothing a test sees")
    OFF_FOR_LARGE = ("test", "adds one to a first operand of 5 or more")


VARIANTS = {"sound": frozenset(), "pr-8bb01ab8": frozenset()}
"""

FAKE_CALC = """
import time

from strategies.defects import VARIANTS, Defect


def add(a, b, variant="sound"):
    active = VARIANTS[variant]
    if Defect.HANGS in active:
        time.sleep(120)
    off = Defect.OFF_BY_ONE in active or (Defect.OFF_FOR_LARGE in active and a >= 5)
    return a + b + (1 if off else 0)
"""

FAKE_TESTS = """
import pytest
from hypothesis import given, settings, strategies as st

from calc import add


@pytest.mark.parametrize("variant", ["pr-8bb01ab8", "sound"])
def test_add(variant):
    assert add(1, 2, variant) == 3


@pytest.mark.red_on("pr-8bb01ab8")
@pytest.mark.parametrize("variant", ["pr-8bb01ab8", "sound"])
def test_marked_but_never_red(variant):
    assert add(0, 0, variant) == 0


@settings(database=None, derandomize=True, max_examples=20)
@given(st.integers(min_value=0, max_value=10))
def test_add_zero(x):
    assert add(x, 0) == x


def test_plain():
    assert 1 + 1 == 2


@pytest.mark.defect_table
def test_table():
    from strategies.defects import VARIANTS

    assert VARIANTS["sound"] == frozenset()


def test_red_on_baseline():
    assert False, "red on the unmutated code"
"""

MUTANTS = [
    Mutant("defect:OFF_BY_ONE", "defect", "sound", ("OFF_BY_ONE",), "adds one"),
    Mutant("defect:HANGS", "defect", "sound", ("HANGS",), "never returns"),
    Mutant("defect:HARMLESS", "defect", "sound", ("HARMLESS",), "changes nothing a test sees"),
    Mutant("defect:OFF_FOR_LARGE", "defect", "sound", ("OFF_FOR_LARGE",), "adds one to a first operand of 5 or more"),
]
FAKE_HASHED = ("strategies", "calc.py", "tests")


def make_project(root: Path) -> Path:
    """The fake project written under ``root``."""
    (root / "strategies").mkdir(parents=True)
    (root / "strategies" / "__init__.py").write_text("")
    (root / "strategies" / "defects.py").write_text(FAKE_DEFECTS)
    (root / "calc.py").write_text(FAKE_CALC)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(FAKE_TESTS)
    return root


def run_named_mutants(
    settings: Settings,
    mutants: list[Mutant],
    *,
    shard: tuple[int, int] | None = None,
    fp: str | None = None,
    deadline: float | None = None,
    on_record: Callable[[MutantRecord], None] | None = None,
    patches: dict[str, Path] | None = None,
) -> Records:
    """The campaign's first two phases, as the pipeline runs them: the baseline (unless journaled), then the named
    mutants of the shard; every journaled record of the fingerprint."""
    ctx = RunContext.start(settings, shard, deadline)
    ctx = replace(ctx, fp=fp) if fp else ctx
    done = load_journals(settings.journal_dir, ctx.fp)
    base = baseline.run(settings, ctx, done)
    return named.run(settings, ctx, mutants, base, done, on_record=on_record, patches=patches)


def settings_for(root: Path, **kw: Any) -> Settings:
    """Settings running the fake project at ``root`` quickly (two workers, short timeouts); ``kw`` overrides."""
    kw.setdefault("progress", io.StringIO())
    kw.setdefault("hashed", FAKE_HASHED)
    kw.setdefault("state_dir", root / ".state")  # the fake project's own (mutmut's work copy in it)
    kw.setdefault("out", root / "out")
    return Settings(
        root=root,
        selection=("tests",),
        workers=2,
        timeout_factor=1.0,
        timeout_const=4.0,
        **kw,
    )


def mutmut_result(key: str, status: str, killed_by: tuple[str, ...] = ()) -> MutmutRecord:
    """A mutmut mutant's journal record with no location (what the witness plan reads of one)."""
    return MutmutRecord(key, "", Status(status), 0, 0.0, MutantChange("calc.py", key), killed_by)


def as_records(raw: dict[str, dict[str, Any]]) -> Records:
    """Records from the fields a test names, by key: the key and an empty fingerprint filled in, the baseline's
    kind and its rows' outcome (passed), a witness's base from its key."""
    out: Records = {}
    for key, fields in raw.items():
        obj = {"mutant": key, "fingerprint": "", **fields}
        if key == BASELINE:
            obj = {"kind": "baseline", **obj, "tests": [{"outcome": "passed", **r} for r in fields.get("tests", [])]}
        if obj.get("kind") == "witness":
            obj = {"base": key.removeprefix("witness:"), **obj}
        out[key] = decode(obj)
    return out


# ----------------------------------------------------------------------------- a headless browser

#: Chromium, where the distribution's package is installed (the report's browser tests skip without it).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: The flags every headless run of it takes: no sandbox (root in CI), no GPU, nothing fetched, nothing remembered.
HEADLESS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
