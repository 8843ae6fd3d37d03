"""``benchmarks/bench_reach.py`` prints every shape's share of ``ci`` and ``deep`` cases (a few cases: the shares
themselves are judged by tests/test_reach.py)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from invariants.reach import SHAPES

pytestmark = pytest.mark.harness

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_reach.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_reach", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_json_holds_a_share_of_each_profile_for_every_shape(capsys):
    assert _bench().main(["--ci", "5", "--deep", "5", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert list(figures["ci"]) == list(SHAPES) and list(figures["deep"]) == list(SHAPES)
    assert all(0 <= share <= 1 for share in (*figures["ci"].values(), *figures["deep"].values()))
    assert set(figures["under_1%"]) == {shape for shape, share in figures["ci"].items() if share < 0.01}


def test_the_table_flags_the_shapes_under_one_percent(capsys):
    assert _bench().main(["--ci", "5", "--deep", "5"]) == 0
    out = capsys.readouterr().out
    assert all(shape in out for shape in SHAPES)
    assert "< 1%" in out  # five cases cannot reach every shape


def test_cases_below_one_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        _bench().main(["--ci", "0"])
    assert stop.value.code == 2 and "--ci and --deep must be at least 1" in capsys.readouterr().err
