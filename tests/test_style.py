"""The tree is `ruff check` clean and `ruff format` clean: style is enforced by the suite CI runs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.harness  # reads the source as text: no mutant of the model can make it red

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' brings it)")
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_the_tree_passes_ruff_check():
    run = _ruff("check", "--no-cache", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_tree_is_ruff_formatted():
    run = _ruff("format", "--check", "--no-cache", ".")
    assert run.returncode == 0, run.stdout + run.stderr
