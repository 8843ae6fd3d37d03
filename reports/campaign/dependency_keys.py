"""What each journaled result depends on, hashed part by part, so that a change re-runs only what it touches.

- A *test's key*: the source of its test function (or class) with its decorators, plus the rest of its
  module (imports, helpers, fixtures) and the suite's shared files (``tests/`` modules that are not
  test files, ``conftest.py``, ``invariants/``, ``pyproject.toml``, the recording plugin).
- A *function's key*: the source of one function or method of the code under test.
- A *named mutant's key*: its switches' sites (every function of ``strategies/`` that reads
  ``Defect.NAME``, and the lines of ``strategies/defects.py`` naming it), the keys of the tests it runs
  and the run's settings (``Settings.selection``, the profile).
- The *baseline's sources* (``baseline_sources``): every part a baseline test's outcome can depend on, by name;
  the next baseline re-runs only the tests a changed part reaches (``rerun``).

Python is hashed as the interpreter reads it (``semantic``): a change to a comment, a docstring or the layout
changes no key, so it re-runs nothing. Hashes are 16 hex digits of SHA-256 over the parts' text.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from reports.campaign.mutation_scope import is_code, mutmut_config
from reports.campaign.records import BaselineRecord

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


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """``tree`` with every module, class and function docstring dropped (a ``pass`` where a body would be empty)."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return tree


def semantic(text: str, *, positions: bool = False) -> str:
    """Python source as the interpreter reads it, without comments, docstrings or layout (with ``positions``, each
    node's line and column too: what a change that moves code changes); text that does not parse, as it is."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return text
    return ast.dump(_without_docstrings(tree), include_attributes=positions)


class KeyMemo:
    """Keys already worked out, by a hash of the text they came from and what was asked: parsing every module of the
    project again costs seconds a run, and a run changes few of them. ``load`` and ``save`` keep it in the state
    folder between runs; a missing or unreadable file is an empty memo."""

    def __init__(self) -> None:
        self.known: dict[str, Any] = {}
        self.path: Path | None = None
        self.added = False

    def get(self, kind: str, text: str, work: Callable[[str], Any]) -> Any:
        key = kind + ":" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        if key not in self.known:
            self.known[key] = work(text)
            self.added = True
        return self.known[key]

    def load(self, path: Path) -> None:
        self.path = path
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                self.known.update(data)

    def save(self) -> None:
        if self.path is not None and self.added:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(self.known), encoding="utf-8")
            self.added = False


#: The process's memo of keys (``KeyMemo``).
MEMO = KeyMemo()


def semantic_key(text: str, *, positions: bool = False) -> str:
    """The key of ``semantic(text)`` (memoized)."""
    return MEMO.get("p" if positions else "s", text, lambda t: digest(semantic(t, positions=positions)))


def file_key(path: Path) -> str:
    """A file's key: Python through ``semantic``, anything else as it is."""
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    return semantic_key(text) if path.suffix == ".py" else digest(text)


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
            defs[name] = semantic_key(textwrap.dedent("\n".join(lines[first - 1 : last])))
            taken.update(range(first, last + 1))
    rest = semantic_key("\n".join(line for n, line in enumerate(lines, 1) if n not in taken))
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
    return digest(*(f"{f.relative_to(root).as_posix()}\n{file_key(f)}" for f in files))


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


def function_keys(text: str) -> dict[str, str]:
    """Each function's and method's key (``function_sources``, read as the interpreter reads it)."""
    return dict(
        MEMO.get("f", text, lambda t: {n: semantic_key(textwrap.dedent(src)) for n, src in function_sources(t).items()})
    )


def _hollowed(tree: ast.Module) -> ast.Module:
    """``tree`` with every function's and method's body replaced by ``pass``."""

    def hollow(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                node.body = [ast.Pass()]
            elif isinstance(node, ast.ClassDef):
                hollow(node.body)

    hollow(tree.body)
    return tree


def module_rest(text: str) -> str:
    """A module less its functions' and methods' bodies, read as the interpreter reads it: what a change outside
    every function changes (a constant, an import, a class attribute, a decorator)."""
    try:
        tree = _without_docstrings(ast.parse(text))
    except (SyntaxError, ValueError):
        return text
    return ast.dump(_hollowed(tree))


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
            parts += [line.split("#", 1)[0].strip() for line in text.splitlines() if defect in line]
            continue
        parts += [
            f"{path.name}:{name}\n{semantic_key(textwrap.dedent(src))}"
            for name, src in sorted(function_sources(text).items())
            if token in src
        ]
    return digest(*parts)


def named_key(root: Path, spec: str, nodeids: Iterable[str], settings_part: str) -> str:
    """A named mutant's key: its switches' sites, the tests it runs, the run's settings."""
    defects = spec.split("+")[1:]
    return digest(spec, settings_part, *(switch_sites(root, d) for d in defects), tests_key(root, nodeids))


def settings_part(selection: Iterable[str], profile: str, all_variants: bool) -> str:
    return json.dumps([list(selection), profile, all_variants])


# ----------------------------------------------------------------------------- the baseline, part by part

#: What no baseline test reads (only the harness's own tests read the documents): a change there re-runs none.
UNREAD = ("docs", "README.md")


def baseline_sources(root: Path, files: Iterable[Path], settings: str) -> dict[str, str]:
    """Every part a baseline test's outcome can depend on, by name: ``settings``; ``code:FILE`` (a module of the
    code under test, ``mutation_scope.is_code``, outside its functions) and ``code:FILE::NAME`` (one function or
    method); ``test:FILE`` (a test module outside its tests) and ``test:FILE::NAME`` (one test function or class);
    ``file:FILE`` (anything else: helpers, fixtures, data, the plugin). ``files`` are the fingerprint's files."""
    parts = {"settings": digest(settings)}
    config = mutmut_config(root)
    for path in files:
        rel = path.relative_to(root).as_posix()
        top = rel.split("/", 1)[0]
        if top in UNREAD:
            continue
        if is_code(rel, config):
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            parts[f"code:{rel}"] = MEMO.get("r", text, lambda t: digest(module_rest(t)))
            parts.update({f"code:{rel}::{name}": key for name, key in function_keys(text).items()})
        elif path.parent == root / "tests" and path.name.startswith("test_") and path.suffix == ".py":
            defs, rest = _module_parts(path, path.stat().st_mtime)  # already keys
            parts[f"test:{rel}"] = rest
            parts.update({f"test:{rel}::{name}": key for name, key in defs.items()})
        else:
            parts[f"file:{rel}"] = file_key(path)
    return parts


@dataclass(frozen=True)
class Coverage:
    """Which tests call each function of the code under test (``module.name`` or ``module.Class.name``), as the last
    baseline recorded them; ``modules`` are those whose calls it could see, ``shared`` the functions whose calls
    outlive a test (a change to one reaches every test)."""

    tests_of: Mapping[str, frozenset[str]]
    modules: frozenset[str]
    shared: frozenset[str] = frozenset()


def coverage_of(baseline: BaselineRecord) -> Coverage | None:
    """The coverage ``baseline`` recorded (None where it recorded none)."""
    if baseline.calls is None:
        return None
    nodeids = [r.nodeid for r in baseline.tests]
    return Coverage(
        {f: frozenset(nodeids[i] for i in ix) for f, ix in baseline.calls.functions.items()},
        frozenset(baseline.calls.modules),
        frozenset(baseline.calls.shared),
    )


@dataclass(frozen=True)
class Rerun:
    """What a baseline re-runs after a change: every test (``everything``, with the reason) or those ``affected``
    says; ``changed`` names the changed parts."""

    changed: tuple[str, ...]
    everything: str = ""
    functions: tuple[str, ...] = ()
    tests: frozenset[str] = frozenset()  # the traced tests of the changed functions
    modules: frozenset[str] = frozenset()  # test modules changed outside their tests: all their tests
    defs: frozenset[str] = frozenset()  # ``FILE::NAME`` test definitions changed or new
    untracked: bool = False  # a function changed: the tests no coverage traces re-run too

    def affected(self, nodeid: str, traced: Callable[[str], bool]) -> bool:
        """Whether test ``nodeid`` runs again (``traced`` tells whether the coverage traces it)."""
        if self.everything:
            return True
        file, _, rest = nodeid.partition("::")
        name = rest.split("::", 1)[0].split("[", 1)[0]
        return (
            nodeid in self.tests
            or file in self.modules
            or f"{file}::{name}" in self.defs
            or (self.untracked and not traced(nodeid))
        )


def keys_by_function(sources: Mapping[str, str]) -> dict[str, str]:
    """Each function's key among a baseline's sources (``baseline_sources``), by the dotted name the call recorder
    gives it (``strategies.cap.marker``)."""
    out = {}
    for part, key in sources.items():
        kind, _, where = part.partition(":")
        file, _, name = where.partition("::")
        if kind == "code" and name:
            out[dotted(file, name)] = key
    return out


def module_of(rel: str) -> str:
    """``strategies/cap.py`` -> ``strategies.cap`` (a package's ``__init__`` as the package)."""
    return rel[: -len(".py")].replace("/", ".").removesuffix(".__init__")


def dotted(rel: str, name: str) -> str:
    """``strategies/cap.py`` and ``Cap.units`` -> ``strategies.cap.Cap.units``."""
    return module_of(rel) + "." + name


def named_at_import(text: str) -> list[str]:
    """The functions a module may run when it is imported, before any test (where no test's coverage sees them), by
    name: those called, used as decorators, or passed to a call outside every function's body (module code, class
    bodies, decorators, default values)."""
    try:
        tree = _hollowed(ast.parse(text))
    except (SyntaxError, ValueError):
        return []

    def name_of(node: ast.AST) -> str | None:
        node = node.func if isinstance(node, ast.Call) else node
        return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None

    names: set[str | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            names.add(name_of(node))
            names.update(
                name_of(a) for a in [*node.args, *(k.value for k in node.keywords)] if not isinstance(a, ast.Call)
            )
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.update(name_of(d) for d in node.decorator_list)
    return sorted(n for n in names if n)


def at_import(files: Iterable[Path]) -> frozenset[str]:
    """The functions the code under test's modules (``files``) may run at import (``named_at_import``), by name."""
    out: set[str] = set()
    for path in files:
        if path.suffix == ".py":
            out.update(MEMO.get("n", path.read_text(encoding="utf-8", errors="surrogateescape"), named_at_import))
    return frozenset(out)


def rerun(
    before: Mapping[str, str],
    now: Mapping[str, str],
    coverage: Coverage | None,
    imported: frozenset[str] = frozenset(),
) -> Rerun:
    """What changed between two baselines' sources, and so which tests run again. A changed function the modules may
    run at import (``imported``, by name: before any test, where no coverage sees it) re-runs everything."""
    changed = tuple(sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k)))
    everything = ""
    functions: list[str] = []
    existed: list[tuple[str, str]] = []  # (module, function)
    modules: set[str] = set()
    defs: set[str] = set()
    for part in changed:
        kind, _, where = part.partition(":")
        file, _, name = where.partition("::")
        if kind == "settings":
            everything = everything or "the run's settings changed"
        elif kind == "file":
            everything = everything or f"{file} changed"
        elif kind == "code" and not name:
            everything = everything or f"{file} changed outside its functions"
        elif kind == "code" and name.rsplit(".", 1)[-1] in imported:
            everything = everything or f"{dotted(file, name)} may run at import (called outside any function)"
        elif kind == "code":
            functions.append(dotted(file, name))
            if part in before:  # a function added since calls nothing yet that a changed caller would not show
                existed.append((module_of(file), dotted(file, name)))
        elif kind == "test" and not name:
            modules.add(file)
        elif kind == "test":
            defs.add(where)
    if functions and not everything:
        if coverage is None:
            everything = "no per-function coverage of the last baseline's code"
        elif unseen := [f for m, f in existed if m not in coverage.modules]:
            everything = f"the last baseline did not see {unseen[0]}'s calls (its module was not instrumented)"
        elif shared := [f for _, f in existed if f in coverage.shared]:
            everything = f"{shared[0]}'s result outlives a test (cached, or called outside every test)"
    tests = frozenset(t for f in functions for t in (coverage.tests_of.get(f, ()) if coverage else ()))
    return Rerun(
        changed,
        everything,
        tuple(functions),
        tests,
        frozenset(modules),
        frozenset(defs),
        untracked=bool(functions),
    )
