"""The unnamed bugs of ``tests/mutants/`` (docs/model.md, The red-first report) still apply to the tree: a patch
the code has moved away from would count as a survivor in ``benchmarks/bench_unnamed_mutants.py`` and in
``cmharness report --extra-mutants tests/mutants``, for the wrong reason."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATCHES = sorted((ROOT / "tests" / "mutants").glob("*.patch"))

pytestmark = pytest.mark.harness


def test_there_are_at_least_twenty_unnamed_bugs_each_described():
    assert len(PATCHES) >= 20
    for patch in PATCHES:
        first = patch.read_text(encoding="utf-8").splitlines()[0]
        assert first.strip() and not first.startswith(("diff ", "--- ")), f"{patch.name}: no description line"


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs git and a checkout")
@pytest.mark.parametrize("patch", PATCHES, ids=lambda p: p.stem)
def test_each_unnamed_bug_applies_to_the_tree(patch: Path):
    done = subprocess.run(["git", "apply", "--check", str(patch)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, f"{patch.name} no longer applies: {done.stderr.strip()}"
