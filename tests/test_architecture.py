"""The tooling's dependency rule (docs/architecture.md), checked over the import graph of ``reports/``.

Every ``import`` and ``from ... import`` of every module is read with ``ast``, function-level ones included, so
an import moved into a function to dodge a cycle is still an edge of the graph.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.harness  # the tooling's layout: no mutant of the model can make it red

ROOT = Path(__file__).resolve().parents[1]
#: Modules of ``reports`` that rendering may read: the records and the definitions they name.
RENDER_READS = ("reports.campaign.records", "reports.campaign.equivalents", "reports.campaign.named_mutants")
#: Where a function-level import of a ``reports`` module is allowed: the plugins load in the child sessions of
#: any project the campaign runs in, and import the harness only when asked to act.
LAZY_ALLOWED = ("reports.campaign.plugins.",)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(top: str) -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / top).rglob("*.py")) if "__pycache__" not in p.parts}


REPORTS = modules("reports")


def resolve(name: str, known: dict[str, Path]) -> str:
    """The module of ``known`` that ``name`` (a module, or a name inside one) refers to."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name


def imports(path: Path, known: dict[str, Path]) -> list[tuple[str, bool]]:
    """(imported module of ``known``, whether the import is inside a function or class) for every import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nested = {id(n) for f in ast.walk(tree) if not isinstance(f, ast.Module) for n in ast.walk(f) if f is not n}
    nested = {id(n) for n in ast.walk(tree) if id(n) in nested and isinstance(n, ast.Import | ast.ImportFrom)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            targets = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        for t in targets:
            found = resolve(t, known)
            if found:
                out.append((found, id(node) in nested))
    return out


def graph(known: dict[str, Path]) -> dict[str, set[str]]:
    return {m: {t for t, _ in imports(p, known) if t != m} for m, p in known.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_reports_has_no_import_cycle():
    assert cycles(graph(REPORTS)) == []


def test_the_cycle_check_sees_a_cycle_hidden_in_a_function(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("import b\n")
    b.write_text("def f():\n    import a\n")
    known = {"a": a, "b": b}
    assert cycles({m: {t for t, _ in imports(p, known)} for m, p in known.items()}) == [["a", "b"]]
    assert imports(b, known) == [("a", True)]


@pytest.mark.parametrize("engine", ["reports.campaign", "reports.fuzz"])
def test_the_engines_never_import_the_command_line_nor_rendering(engine):
    bad = [
        (m, t)
        for m, ts in graph(REPORTS).items()
        if under(m, engine)
        for t in ts
        if under(t, "reports.cli") or under(t, "reports.render")
    ]
    assert bad == []


def test_rendering_reads_only_the_records():
    allowed = ("reports.render", "reports.compare", "reports.errors", "reports.exit_codes", *RENDER_READS)
    bad = [
        (m, t)
        for m, ts in graph(REPORTS).items()
        if under(m, "reports.render")
        for t in ts
        if not any(under(t, a) for a in allowed)
    ]
    assert bad == []


def test_only_the_command_line_imports_the_command_line():
    bad = [
        (m, t) for m, ts in graph(REPORTS).items() if not under(m, "reports.cli") for t in ts if under(t, "reports.cli")
    ]
    assert bad == []


def test_errors_and_exit_codes_import_nothing_of_the_tool():
    """The exit codes import nothing; the error root only them (each error class carries its code)."""
    assert graph(REPORTS)["reports.exit_codes"] == set()
    assert graph(REPORTS)["reports.errors"] <= {"reports.exit_codes"}


def private_imports(path: Path) -> list[str]:
    """The private names (``_x``, not dunders) ``path`` imports from a module of its own project."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PROJECT:
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_") and a.name[1:2] != "_"]
    return found


#: The project's own top-level packages (a private name of a third-party package is its business).
PROJECT = ("reports", "strategies", "reference", "invariants", "benchmarks")


@pytest.mark.parametrize("top", PROJECT)
def test_no_private_name_is_imported_across_modules(top):
    """A name with a leading underscore is its module's own: another module that needs it needs a public one."""
    bad = {
        str(p.relative_to(ROOT)): private_imports(p) for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts
    }
    assert {p: names for p, names in bad.items() if names} == {}


def test_the_private_import_check_sees_one(tmp_path):
    (tmp_path / "m.py").write_text("from reports.campaign.runs import _hidden, visible\nfrom os import _exit\n")
    assert private_imports(tmp_path / "m.py") == ["reports.campaign.runs._hidden"]


def test_function_level_imports_of_the_tool_only_in_the_plugins():
    bad = [
        (m, t)
        for m, p in REPORTS.items()
        if not m.startswith(LAZY_ALLOWED)
        for t, lazy in imports(p, REPORTS)
        if lazy and t != m
    ]
    assert bad == []


@pytest.mark.parametrize("top", ["reference", "strategies", "invariants"])
def test_the_model_never_imports_the_tool(top):
    known = {**modules(top), **REPORTS}
    bad = [(m, t) for m, p in modules(top).items() for t, _ in imports(p, known) if under(t, "reports")]
    assert bad == []


def test_every_subcommand_is_a_module_with_configure_and_run():
    import importlib

    from reports.cli import SUBCOMMANDS

    for name in SUBCOMMANDS:
        module = importlib.import_module(f"reports.cli.{name}")
        assert callable(module.configure) and callable(module.run), name


def test_each_variant_name_is_spelt_once_and_names_the_variant_table():
    """The variants' names live in ``reference/variant_names.py``; the code names them through it (a docstring's
    example aside), and ``strategies.defects.VARIANTS`` holds exactly those."""
    from reference.variant_names import VARIANT_NAMES
    from strategies.defects import VARIANTS

    assert set(VARIANTS) == set(VARIANT_NAMES)
    spelt = []
    for top in ("reference", "strategies", "invariants", "reports"):
        for path in (ROOT / top).rglob("*.py"):
            if "__pycache__" in path.parts or path.name == "variant_names.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and node.value in VARIANT_NAMES and node.value != "sound":
                    spelt.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert spelt == []
