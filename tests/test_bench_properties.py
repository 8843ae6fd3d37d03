"""``benchmarks/bench_properties.py`` runs and prints its figures (a few cases: its figures are not judged here)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.harness

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_properties.py"


def _bench():
    """The script as a module (registered in ``sys.modules`` before it runs, as its dataclass needs)."""
    spec = importlib.util.spec_from_file_location("bench_properties", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_json_figures_hold_generation_the_floor_and_each_property(capsys):
    assert _bench().main(["--examples", "4", "--repeat", "1", "--variant", "sound", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["examples"] == 4 and figures["generation_cases_per_second"] > 0
    assert figures["choices_per_case"] >= 1 and figures["hypothesis_floor_cases_per_second"] > 0
    assert set(figures["properties"]["never-over"]["sound"]) == {"alone", "with_generation"}


def test_examples_below_one_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        _bench().main(["--examples", "0"])
    assert stop.value.code == 2 and "--examples and --repeat must be at least 1" in capsys.readouterr().err
