"""What mutmut mutates: the model and its judges by default, fewer folders when asked (``--mutmut-paths``); which
files of a folder it mutates is ``[tool.mutmut] only_mutate``, read by the campaign as mutmut reads it."""

from __future__ import annotations

import json
import tomllib

import pytest

from reports.campaign.mutmut.describe import describe
from reports.campaign.mutmut.work_copy import modules
from reports.campaign.options import DEFAULT_MUTMUT_PATHS, MUTMUT_PATHS, covers_default
from reports.campaign.settings import ROOT
from reports.cli import build_parser, main

pytestmark = pytest.mark.harness

#: The judges the issue names: the invariants (properties), the generators' shapers and polish, the reproduce and
#: expectation checks.
JUDGES = (
    "invariants.__init__",  # polish, find, describe_case
    "invariants.generators.shapers",
    "invariants.properties.prices",
    "invariants.properties.refusals",
    "invariants.properties.what_is_sent",
    "invariants.reproduce",
)


def _work(tmp_path, only_mutate):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mutmut]\n" + (f"only_mutate = {only_mutate!r}\n".replace("'", '"') if only_mutate is not None else "")
    )
    for rel, text in {
        "strategies/a.py": "def f():\n    return 1\n",
        "strategies/deep/b.py": "def g():\n    return 2\n",
        "strategies/consts.py": "X = 1\n",
        "invariants/judge.py": "def j():\n    return 3\n",
        "invariants/edges/search.py": "def s():\n    return 4\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_the_mutated_modules_are_the_only_mutate_files_with_a_function(tmp_path):
    work = _work(tmp_path, ["strategies/*", "invariants/judge.py"])
    assert modules(work) == ["strategies.a", "strategies.deep.b", "invariants.judge"]


def test_without_only_mutate_every_folder_is_mutated_whole(tmp_path):
    work = _work(tmp_path, None)
    assert modules(work) == [
        "strategies.a",
        "strategies.deep.b",
        "invariants.edges.search",
        "invariants.judge",
    ]


def test_the_projects_judges_are_mutated_and_the_searches_are_not():
    mutated = modules(ROOT)
    for judge in JUDGES:
        assert judge in mutated, judge
    assert not [m for m in mutated if m.startswith(("invariants.edges", "invariants.generators.content"))]
    assert "strategies.defects" in mutated and "reference.model" in mutated
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    assert "invariants/" in config["source_paths"]


def test_the_default_scope_is_the_model_and_its_judges():
    parser = build_parser()
    default = ("strategies", "reference", "invariants")
    assert tuple(parser.parse_args(["report"]).mutmut_paths) == DEFAULT_MUTMUT_PATHS == default == MUTMUT_PATHS
    assert parser.parse_args(["report", "--mutmut-paths", "invariants"]).mutmut_paths == ["invariants"]


def test_an_unknown_folder_is_one_line_and_exit_2(capsys):
    assert main(["report", "--mutmut-paths", "invariant"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "invariant" in err[-1] and "invariants" in err[-1]


@pytest.mark.parametrize(
    ("paths", "main_pass"),
    [
        (("strategies", "reference"), False),
        (("strategies", "reference", "invariants"), True),
        (("invariants", "reference", "strategies"), True),
        (("invariants",), False),
        (("strategies",), False),
        ((), False),
    ],
)
def test_a_main_pass_covers_every_default_folder(paths, main_pass):
    assert covers_default(paths) is main_pass


@pytest.mark.parametrize("source", ["pkg/__init__.py", "pkg/mod.py"])
def test_a_mutant_of_a_packages_own_module_is_described_like_any_other(tmp_path, source):
    """A mutant's name spells ``pkg/__init__.py`` as ``pkg`` (``pkg.x_f__mutmut_1``); its change is read off the
    mutated module all the same, so a reviewed equivalent there is recognised and not taken for a stale one."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / source).write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
    mutated = tmp_path / "mutants" / source
    mutated.parent.mkdir(parents=True)
    mutated.write_text(
        "def x_f__mutmut_orig(x):\n    return x + 1\ndef x_f__mutmut_1(x):\n    return x - 1\n", encoding="utf-8"
    )
    spans = {"version": 1, "spans": {"x_f__mutmut_orig": [1, 2], "x_f__mutmut_1": [3, 4]}}
    mutated.with_name(mutated.name + ".spans").write_text(json.dumps(spans), encoding="utf-8")
    name = f"{source.removesuffix('.py').removesuffix('/__init__').replace('/', '.')}.x_f__mutmut_1"
    change = describe(tmp_path, source, [name])[name]
    assert (change.line, change.original, change.replacement) == (2, "return x + 1", "return x - 1")
