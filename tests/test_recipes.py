"""``docs/recipes.md`` stays true: every path it names exists, and the files it lists for a new invariant are the
files that name an invariant today (a recipe that forgot one would send a newcomer to a red test they cannot read)."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from invariants.properties import INVARIANTS
from invariants.properties.running import DECLARED

pytestmark = pytest.mark.harness  # the docs: no mutant of the model can make it red

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "docs" / "recipes.md"
PATH = re.compile(r"`((?:docs|strategies|reference|invariants|reports|tests)/[\w./-]+|README\.md)`")


def recipe(title: str) -> str:
    """The text of one recipe (its ``## title`` section)."""
    text = RECIPES.read_text(encoding="utf-8")
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_every_path_a_recipe_names_exists():
    named = set(PATH.findall(RECIPES.read_text(encoding="utf-8")))
    assert named and sorted(p for p in named if not (ROOT / p).exists()) == []


def code_strings(text: str) -> set[str]:
    """The string constants of a module's code: not its docstrings, not ``__all__`` (whose entries name functions)."""
    tree = ast.parse(text)
    skipped = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skipped.add(id(body[0].value))
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            skipped.update(id(n) for n in ast.walk(node.value))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)} - {
        n.value for n in ast.walk(tree) if id(n) in skipped and isinstance(n, ast.Constant)
    }


def files_naming(name: str) -> set[str]:
    """The files outside ``tests/`` that name invariant ``name``: as a string in Python code, in backticks in markdown,
    as a JSON string."""
    found = set()
    for top in ("reference", "strategies", "invariants", "reports", "docs"):
        for path in (ROOT / top).rglob("*"):
            if path.suffix not in (".py", ".md", ".json") or "__pycache__" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            if path.suffix == ".py":
                named = name in code_strings(text)
            else:
                named = (f"`{name}`" if path.suffix == ".md" else f'"{name}"') in text
            if named:
                found.add(path.relative_to(ROOT).as_posix())
    return found


@pytest.mark.parametrize("name", sorted(INVARIANTS))
def test_the_new_invariant_recipe_names_every_file_an_invariant_is_named_in(name):
    listed = set(PATH.findall(recipe("A new invariant")))
    group = DECLARED[name].judge.__module__.replace(".", "/") + ".py"
    named = files_naming(name) - {group, "docs/recipes.md"}
    assert named <= listed, sorted(named - listed)
    assert group.rsplit("/", 1)[0] + "/" in " ".join(listed)  # its group module's folder is the first step's


def test_the_recipe_check_sees_a_file_it_does_not_list(tmp_path, monkeypatch):
    monkeypatch.setattr("test_recipes.ROOT", tmp_path)
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "extra.py").write_text('NAMES = ("never-over",)\n')
    assert files_naming("never-over") == {"reports/extra.py"}


#: A new invariant as the recipe's first step writes it, at the end of its group's module.
NEW_INVARIANT = """

@judges_what_is_sent("brand-new", cost=99)
def brand_new(name, out, store, config, budget, variant):
    return [Violation(name, "always")]
"""

#: What a user would see change, run in a copy of the project with only that module changed.
SEEN = """
import json
from invariants.properties import CHEAP_FIRST, check
from invariants.reproduce import judge
from reference.model import Budget, Config
from reference.scenario import load_scenario
from reference.scenario_format import json_schema
from tests.builders import store

scenario = load_scenario({
    "store": {"messages": [{"id": "m1", "participant": "User", "content": [{"type": "text", "text": "hi"}]}]},
    "expect": {"sound": {"breaks": ["brand-new"]}},
})
print(json.dumps({
    "last": CHEAP_FIRST[-1],
    "checked": sorted({v.invariant for v in check(store(2), Config(), Budget(max_tokens=100), "sound")}),
    "judged": [v.ok for v in judge(scenario)],
    "schema": json_schema(),
}))
"""


def test_a_new_invariant_needs_its_function_its_judge_test_and_its_row_in_the_contract(tmp_path):
    """The recipe's three files are all there is: an invariant added to its group's module, and nothing else changed,
    is run by ``check`` (last, by its cost), may be named in a scenario's ``breaks``, and leaves the shipped schema as
    it is."""
    steps = re.findall(r"^\d+\. `([^`]+)`", recipe("A new invariant"), re.M)
    assert [s.rsplit("/", 1)[0] for s in steps] == ["invariants/properties", "tests", "docs"]
    for folder in ("reference", "strategies", "invariants"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "tests").mkdir()
    shutil.copy(ROOT / "tests" / "builders.py", tmp_path / "tests" / "builders.py")
    group = tmp_path / steps[0]
    group.write_text(group.read_text(encoding="utf-8") + NEW_INVARIANT, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-c", SEEN],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout)
    assert seen["last"] == "brand-new" and "brand-new" in seen["checked"] and seen["judged"] == [True]
    assert seen["schema"] == json.loads((ROOT / "docs" / "scenario.schema.json").read_text(encoding="utf-8"))
