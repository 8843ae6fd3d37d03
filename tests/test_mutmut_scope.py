"""What mutmut mutates: the model, its judges and the tools' verdict rules by default, fewer folders when asked
(``--mutmut-paths``); which files of a folder it mutates is ``[tool.mutmut] only_mutate``, read by the campaign as
mutmut reads it; a change to the harness's own files is no change of the mutated code."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from reports.campaign.mutmut.describe import describe
from reports.campaign.mutmut.work_copy import changed_functions, modules, mutated_sources
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


#: The tools' verdict rules (issue 46): ``check``'s exit code and breaks, ``fuzz``'s expected reds and exit code,
#: ``compare``'s classes.
VERDICTS = ("reports.cli.check_verdict", "reports.fuzz.verdict", "reports.compare.classify")


def test_of_reports_only_the_verdict_rules_are_mutated():
    """Not the campaign (a mutant there would change how every other mutant runs), nor the commands around the rules."""
    mutated = modules(ROOT)
    assert [m for m in mutated if m.startswith("reports.")] == sorted(VERDICTS)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    assert "reports/" in config["source_paths"]


def test_the_default_scope_is_the_model_its_judges_and_the_verdicts():
    parser = build_parser()
    default = ("strategies", "reference", "invariants", "reports")
    assert tuple(parser.parse_args(["report"]).mutmut_paths) == DEFAULT_MUTMUT_PATHS == default == MUTMUT_PATHS
    assert parser.parse_args(["report", "--mutmut-paths", "invariants"]).mutmut_paths == ["invariants"]
    assert parser.parse_args(["report", "--mutmut-paths", "reports"]).mutmut_paths == ["reports"]


def test_an_unknown_folder_is_one_line_and_exit_2(capsys):
    assert main(["report", "--mutmut-paths", "invariant"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "invariant" in err[-1] and "invariants" in err[-1]


@pytest.mark.parametrize(
    ("paths", "main_pass"),
    [
        (("strategies", "reference"), False),
        (("strategies", "reference", "invariants"), False),
        (("strategies", "reference", "invariants", "reports"), True),
        (("reports", "invariants", "reference", "strategies"), True),
        (("invariants",), False),
        (("reports",), False),
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


def _project(tmp_path):
    """A work copy whose mutmut mutates the model's folders and one verdict module of ``reports/``."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mutmut]\nsource_paths = ["strategies/", "reports/"]\n'
        'only_mutate = ["strategies/*", "reports/fuzz/verdict.py"]\n'
    )
    for rel in ("strategies/a.py", "reports/fuzz/verdict.py", "reports/fuzz/engine.py", "reports/campaign/journal.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("def f():\n    return 2\n")
    return tmp_path


def test_a_change_to_the_harness_is_no_change_of_the_mutated_code(tmp_path):
    """What ``run_mutmut`` counts as a source change (it prepares mutmut again for one) and whose functions' mutants
    re-run: a model file and a verdict module, never the campaign's own files nor the command around a verdict."""
    work = _project(tmp_path)
    previous = {
        rel: "def f():\n    return 1\n"
        for rel in (
            "strategies/a.py",
            "reports/fuzz/verdict.py",
            "reports/fuzz/engine.py",
            "reports/campaign/journal.py",
            "reports/campaign/new.py",
            "invariants/edges/search.py",
            "docs/model.md",
        )
    }
    assert mutated_sources(work, previous) == [
        "strategies/a.py",
        "reports/fuzz/verdict.py",
        "invariants/edges/search.py",
    ]
    assert changed_functions(work, previous) == [
        "invariants.edges.search.f",
        "reports.fuzz.verdict.f",
        "strategies.a.f",
    ]


def test_a_folder_outside_mutmuts_source_paths_is_not_mutated(tmp_path):
    """With no ``only_mutate``, mutmut mutates its ``source_paths`` whole, and only them: a ``reports/`` it is not
    given (the harness's plugins copied into a project) holds no mutated module."""
    work = _project(tmp_path)
    (work / "pyproject.toml").write_text('[tool.mutmut]\nsource_paths = ["strategies/"]\n')
    assert modules(work) == ["strategies.a"]
    assert mutated_sources(work, ["strategies/a.py", "reports/fuzz/verdict.py"]) == ["strategies/a.py"]


def test_mutmuts_stats_run_imports_the_tool_from_its_mutants(tmp_path):
    """``prepare`` starts as ``python -m reports...`` in the work copy, so ``reports`` is imported from there before
    mutmut puts ``mutants/`` first on the path; it must be imported again from ``mutants/``, where the mutated verdict
    rules are, or the stats run records no test calling them (every one of their mutants "not covered")."""
    mutants = tmp_path / "mutants"
    shutil.copytree(ROOT / "reports", mutants / "reports", ignore=shutil.ignore_patterns("__pycache__"))
    script = (
        "import sys\n"
        "from reports.campaign.mutmut import prepare\n"
        f"sys.path.insert(0, {str(mutants)!r})\n"
        "prepare.forget_the_tool()\n"
        "import reports.fuzz.verdict\n"
        "print(reports.fuzz.verdict.__file__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert Path(done.stdout.strip()) == mutants / "reports" / "fuzz" / "verdict.py"
