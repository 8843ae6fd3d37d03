"""``benchmarks/generated_only.py``, the plugin behind ``bench_unnamed_mutants.py --generated-only``: only the
``@given`` tests run, and an ``@example`` never does, even with the cmharness plugin loading its profile after it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.harness

ROOT = Path(__file__).resolve().parents[1]

PROJECT = {
    "conftest.py": 'pytest_plugins = ["invariants.plugin"]\n',
    "test_probe.py": (
        "from hypothesis import example, given, strategies as st\n\n\n"
        "@given(st.integers(0, 10))\n@example(-1)\ndef test_generated(x):\n    assert x >= 0\n\n\n"
        "def test_plain():\n    assert False\n"
    ),
}


def run(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    for name, text in PROJECT.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'benchmarks'}", "PATH": "/usr/bin:/bin", "CMHARNESS_PROFILE": "ci"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, "test_probe.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )


def test_without_the_plugin_the_example_and_the_plain_test_fail(tmp_path):
    done = run(tmp_path)
    assert "2 failed" in done.stdout, done.stdout


def test_with_the_plugin_only_the_given_test_runs_on_generated_cases(tmp_path):
    done = run(tmp_path, "-p", "generated_only")
    assert done.returncode == 0 and "1 passed, 1 deselected" in done.stdout, done.stdout
