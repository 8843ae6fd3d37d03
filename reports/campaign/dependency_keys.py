"""What each journaled result depends on, hashed part by part, so that a change re-runs only what it touches.

- A *test's key*: the source of its test function (or class) with its decorators, plus the rest of its
  module (imports, helpers, fixtures) and the suite's shared files (``tests/`` modules that are not
  test files, ``conftest.py``, ``invariants/``, ``pyproject.toml``, the recording plugin).
- A *function's key*: the source of one function or method of the code under test.
- A *named mutant's key*: its switches' sites (every function of ``strategies/`` that reads
  ``Defect.NAME``, and the lines of ``strategies/defects.py`` naming it), the keys of the tests it runs
  and the run's settings (``Settings.selection``, the profile).

Hashes are 16 hex digits of SHA-256 over the parts' text.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path

#: Files every test depends on besides its own module (relative to the project root; folders walked).
SHARED = (
    "pyproject.toml",
    "conftest.py",
    "tests/conftest.py",
    "invariants",
    "reports/campaign/plugins/mutant_plugin.py",
)


def digest(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()[:16]


def _segments(
    text: str, wanted: Iterable[type[ast.AST]] = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
) -> list[tuple[str, int, int]]:
    """Top-level definitions as (name, first line with decorators, last line), 1-based."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out = []
    for node in tree.body:
        if isinstance(node, tuple(wanted)):
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            out.append((node.name, first, node.end_lineno or node.lineno))  # type: ignore[attr-defined]
    return out


@cache
def _module_parts(path: Path, mtime: float) -> tuple[dict[str, str], str]:
    """A test module's test definitions' sources by name, and the rest of the module."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    defs: dict[str, str] = {}
    taken: set[int] = set()
    for name, first, last in _segments(text):
        if name.startswith(("test", "Test")):
            defs[name] = "\n".join(lines[first - 1 : last])
            taken.update(range(first, last + 1))
    rest = "\n".join(line for n, line in enumerate(lines, 1) if n not in taken)
    return defs, rest


def _files(root: Path, names: Iterable[str]) -> list[Path]:
    out: list[Path] = []
    for name in names:
        p = root / name
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            out += sorted(
                q for q in p.rglob("*") if q.is_file() and q.suffix in (".py", ".json") and "__pycache__" not in q.parts
            )
    return out


def shared_key(root: Path) -> str:
    """The files every test depends on: the shared list and the ``tests/`` modules that hold no tests."""
    helpers = (
        [p for p in sorted((root / "tests").glob("*.py")) if not p.name.startswith("test_")]
        if (root / "tests").is_dir()
        else []
    )
    files = sorted(set(_files(root, SHARED)) | set(helpers))
    return digest(*(f"{f.relative_to(root).as_posix()}\n{f.read_text(encoding='utf-8')}" for f in files))


def test_key(root: Path, nodeid: str, shared: str) -> str:
    """The key of one test: its definition, the rest of its module, the shared files."""
    file, _, rest = nodeid.partition("::")
    name = rest.split("::", 1)[0].split("[", 1)[0]
    path = root / file
    if not path.is_file():
        return digest(nodeid, "missing", shared)
    defs, module_rest = _module_parts(path, path.stat().st_mtime)
    return digest(file, defs.get(name, "?" + name), module_rest, shared)


def tests_key(root: Path, nodeids: Iterable[str]) -> str:
    shared = shared_key(root)
    return digest(*sorted(f"{n}={test_key(root, n, shared)}" for n in nodeids))


def function_sources(text: str) -> dict[str, str]:
    """Each top-level function's and each method's source, by ``name`` or ``Class.name``."""
    lines = text.splitlines()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    out: dict[str, str] = {}

    def take(node: ast.AST, prefix: str) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out[prefix + node.name] = "\n".join(lines[first - 1 : node.end_lineno])
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                take(sub, f"{prefix}{node.name}.")

    for node in tree.body:
        take(node, "")
    return out


def switch_sites(root: Path, defect: str) -> str:
    """The sources that read ``Defect.<defect>``: each such function of ``strategies/``, and ``defects.py``'s lines."""
    token = f"Defect.{defect}"
    parts: list[str] = []
    folder = root / "strategies"
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        text = path.read_text(encoding="utf-8")
        if token not in text and defect not in text:
            continue
        if path.name == "defects.py":
            parts += [line for line in text.splitlines() if defect in line]
            continue
        parts += [f"{path.name}:{name}\n{src}" for name, src in sorted(function_sources(text).items()) if token in src]
    return digest(*parts)


def named_key(root: Path, spec: str, nodeids: Iterable[str], settings_part: str) -> str:
    """A named mutant's key: its switches' sites, the tests it runs, the run's settings."""
    defects = spec.split("+")[1:]
    return digest(spec, settings_part, *(switch_sites(root, d) for d in defects), tests_key(root, nodeids))


def settings_part(selection: Iterable[str], profile: str, all_variants: bool) -> str:
    return json.dumps([list(selection), profile, all_variants])
