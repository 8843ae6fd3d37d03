"""``benchmarks/bench_reach.py`` prints every shape's share of ``ci``, ``deep`` and tool cases (a few cases: the shares
themselves are judged by tests/test_reach.py)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from invariants.reach import PARALLEL_CASE_SHAPES, SHAPES, STUB_BESIDE_A_RESULT, TOOL_CASE_SHAPES

pytestmark = pytest.mark.harness

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_reach.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_reach", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


COLUMNS = ("ci", "deep", "tool", "parallel")
FEW = ["--ci", "5", "--deep", "5", "--tool", "5"]


def test_the_json_holds_a_share_of_each_column_for_every_shape(capsys):
    assert _bench().main([*FEW, "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    names = [*SHAPES, STUB_BESIDE_A_RESULT]
    assert all(list(figures[c]) == names for c in COLUMNS)
    assert all(0 <= share <= 1 for c in COLUMNS for share in figures[c].values())
    promised = {"ci": SHAPES, "tool": TOOL_CASE_SHAPES, "parallel": PARALLEL_CASE_SHAPES}
    assert figures["under_1%"] == {c: [s for s in shapes if figures[c][s] < 0.01] for c, shapes in promised.items()}


def test_the_table_flags_the_shapes_under_one_percent(capsys):
    assert _bench().main(FEW) == 0
    out = capsys.readouterr().out
    assert all(shape in out for shape in (*SHAPES, STUB_BESIDE_A_RESULT))
    shortfalls = re.search(r"^(\d+) shortfall\(s\)", out, re.MULTILINE)
    assert "*" in out and shortfalls and int(shortfalls[1]) > 0  # five cases cannot reach every shape


@pytest.mark.parametrize("option", ["--ci", "--deep", "--tool"])
def test_cases_below_one_is_a_usage_error(capsys, option):
    with pytest.raises(SystemExit) as stop:
        _bench().main([option, "0"])
    assert stop.value.code == 2 and "--ci, --deep and --tool must be at least 1" in capsys.readouterr().err
