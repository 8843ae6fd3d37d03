"""The code under test: the files a campaign's results depend on, walked from the hashed folders, and their
fingerprint.

The harness's own files are left out, so that changing how results are run or shown never invalidates them. They are
found from the import graph, not listed: a Python file of the tool or the tests (``HARNESS_FOLDERS``) that no test of
the campaign's selection can import is the harness's. The roots are the test modules not marked ``harness`` and every
``conftest.py`` with such a test in its folder; an edge is an import, at any depth (a function's lazy import too), less
those of tests marked ``harness`` and of fixtures no test of the selection asks for. A test module or a
``conftest.py`` also reaches what it names as a string: a dotted module name (``pytest_plugins``, ``python -m``, a
``monkeypatch`` target) or a subcommand of ``cmharness`` (``reports/cli/<name>.py``), which the command line loads by
name. Files that are not Python are the code's unless they are the harness's data (``HARNESS_DATA``), which only
harness tests read.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from reports.campaign.dependency_keys import MEMO, semantic_key
from reports.campaign.hints import committed_digest
from reports.campaign.settings import HASHED, Settings

#: Where the harness can be: the tool and the tests (the model's folders are always the code under test).
HARNESS_FOLDERS = ("reports/", "tests/")
#: What only the harness's tests read: the reviewed mutation data, the golden report, the viewer's page.
HARNESS_DATA = ("mutation/*", "tests/data/report/*", "tests/viewer/*")
SKIP_DIRS = frozenset({"__pycache__", ".hypothesis", ".pytest_cache", "out", "mutants"})
#: The folder whose modules pytest imports by their bare names (``rootdir/tests`` is put on ``sys.path``).
TESTS = "tests"
#: The package of ``cmharness``'s subcommands, each a module loaded by its name.
SUBCOMMANDS = "reports.cli"
#: A string that may name a module or a subcommand.
DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def walk(root: Path, names: Iterable[str] = HASHED) -> list[Path]:
    """Every file under ``names`` (files or folders, relative to ``root``), caches and run outputs aside, sorted."""
    files: list[Path] = []
    for name in names:
        path = root / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
                files += [Path(dirpath) / f for f in filenames if not f.endswith((".pyc", ".log"))]
    return sorted(files)


def hashed_files(root: Path, hashed: Iterable[str] = HASHED) -> list[Path]:
    """The files of the code under test: the walk of ``hashed`` less the harness's own files."""
    files = walk(root, hashed)
    harness = harness_only(root, files)
    return [f for f in files if f.relative_to(root).as_posix() not in harness]


def harness_only(root: Path, files: Iterable[Path]) -> frozenset[str]:
    """The paths (from ``root``) among ``files`` that no test of the campaign's selection can import, and the
    harness's data."""
    rel = {f.relative_to(root).as_posix(): f for f in files}
    python = {path: f for path, f in rel.items() if path.endswith(".py")}
    names = _module_names(python)
    facts = {path: _facts_of(path, f) for path, f in python.items()}
    tests = {p for p, fact in facts.items() if _is_test_module(p) and not fact["harness"]}
    roots = tests | {p for p in facts if p.endswith("conftest.py") and any(t.startswith(_folder(p)) for t in tests)}
    requested = {arg for p in tests for arg in facts[p]["args"]}
    reached: set[str] = set()
    todo = sorted(roots)
    while todo:
        path = todo.pop()
        if path in reached:
            continue
        reached.add(path)
        fact = facts[path]
        parts = [fact, *(used for name, used in fact["fixtures"].items() if name in requested)]
        for part in parts:
            dotted = [*part["imports"], *(_named(part["strings"], names) if path in roots else ())]
            todo += [t for d in dotted for t in _with_packages(d, names) if t not in reached]
    unreached = {p for p in python if p not in reached and p.startswith(HARNESS_FOLDERS)}
    data = {p for p in rel if not p.endswith(".py") and any(fnmatchcase(p, pattern) for pattern in HARNESS_DATA)}
    return frozenset(unreached | data)


def fingerprint(settings: Settings, code: Sequence[Path] | None = None) -> str:
    """A hash of the code under test (``code``, else walked), the tests, the selection, the profile and the committed
    hints, which order each mutant's tests and so name its first killer (16 hex digits). Python is hashed as the
    interpreter reads it, with each node's position: a comment or docstring that moves no code changes nothing."""
    h = hashlib.sha256()
    h.update(json.dumps([list(settings.selection), settings.profile, settings.all_variants]).encode())
    h.update(committed_digest().encode())
    for f in hashed_files(settings.root, settings.hashed) if code is None else code:
        h.update(f.relative_to(settings.root).as_posix().encode() + b"\0")
        if f.suffix == ".py":
            h.update(semantic_key(f.read_text(encoding="utf-8", errors="surrogateescape"), positions=True).encode())
        else:
            h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _facts_of(path: str, file: Path) -> dict[str, Any]:
    """What the import graph needs of one module (memoized by its text, see ``dependency_keys.MEMO``)."""
    text = file.read_text(encoding="utf-8", errors="surrogateescape")
    conftest = path.endswith("conftest.py")
    return MEMO.get("gc" if conftest else "g", text, lambda t: _facts(t, conftest))


def _facts(text: str, conftest: bool) -> dict[str, Any]:
    """A module's imports and the names its strings may give, less those of tests marked ``harness`` and of ``if
    TYPE_CHECKING:``; whether it is marked ``harness`` whole; its functions' parameters (the fixtures they ask for);
    and, in a ``conftest.py``, each fixture's own imports and strings apart (they count only when a test asks)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):  # a file that does not parse imports nothing; collecting it fails
        return {"harness": False, "imports": [], "strings": [], "args": [], "fixtures": {}}
    fixtures = {
        node.name: node
        for node in tree.body
        if conftest
        and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any("fixture" in ast.unparse(d) and "autouse" not in ast.unparse(d) for d in node.decorator_list)
    }
    nodes = list(_nodes(tree, set(fixtures)))
    return {
        "harness": _marked_harness(tree),
        **_imports_and_strings(nodes),
        "args": sorted(
            {
                a.arg
                for node in nodes
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
            }
        ),
        "fixtures": {name: _imports_and_strings(list(_nodes(node, set()))) for name, node in fixtures.items()},
    }


def _imports_and_strings(nodes: list[ast.AST]) -> dict[str, list[str]]:
    imports: list[str] = []
    strings: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            imports += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imports += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and DOTTED.fullmatch(node.value):
            strings.add(node.value)
    return {"imports": imports, "strings": sorted(strings)}


def _named(strings: Iterable[str], names: dict[str, str]) -> Iterator[str]:
    """The modules a driver's strings name: a dotted module (and its ``__main__``), or a subcommand's module."""
    for value in strings:
        for dotted in (value, f"{SUBCOMMANDS}.{value}"):
            if dotted in names:
                yield dotted
                yield f"{dotted}.__main__"


def _module_names(python: dict[str, Path]) -> dict[str, str]:
    """Dotted module name -> path: ``a/b.py`` is ``a.b``, ``a/__init__.py`` is ``a``; a module of ``tests/`` is also
    its bare name, as pytest imports it."""
    names: dict[str, str] = {}
    for path in python:
        parts = path[: -len(".py")].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            names[".".join(parts)] = path
        if parts[:1] == [TESTS] and len(parts) == 2:
            names.setdefault(parts[1], path)
    return names


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] + "/" if "/" in path else ""


def _is_test_module(path: str) -> bool:
    return path.startswith(TESTS + "/") and path.rsplit("/", 1)[-1].startswith("test_")


def _marked_harness(node: ast.AST | None) -> bool:
    """A module whose ``pytestmark`` holds ``harness``, or a function decorated with it."""
    if isinstance(node, ast.Module):
        return any(
            isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in n.targets)
            and "mark.harness" in ast.unparse(n.value)
            for n in node.body
        )
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return any("mark.harness" in ast.unparse(d) for d in node.decorator_list)
    return False


def _nodes(node: ast.AST, skip: set[str]) -> Iterator[ast.AST]:
    """Every node under ``node``, less the bodies of tests marked ``harness``, of the functions named in ``skip`` and of
    ``if TYPE_CHECKING:`` (never run)."""
    for child in ast.iter_child_nodes(node):
        if _marked_harness(child) or (isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and child.name in skip):
            continue
        if isinstance(child, ast.If) and ast.unparse(child.test).endswith("TYPE_CHECKING"):
            continue
        yield child
        yield from _nodes(child, skip)


def _with_packages(dotted: str, names: dict[str, str]) -> Iterator[str]:
    """The files importing ``dotted`` runs: each package on its path, then the module (those of the project)."""
    parts = dotted.split(".")
    for i in range(1, len(parts) + 1):
        if (path := names.get(".".join(parts[:i]))) is not None:
            yield path
