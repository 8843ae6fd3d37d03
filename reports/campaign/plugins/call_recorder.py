"""Which functions of the code under test each test calls: the baseline's per-test coverage, cheap enough for every run.

An import hook compiles the modules of the code under test (``reports.campaign.mutation_scope.is_code``: the model's
packages, and the tools' verdict rules mutmut mutates) with one statement added at the top of every function's body:
a C-level ``set.add`` of the function's index. A function nested in another counts as its outermost function or
method, the granularity of ``reports.campaign.dependency_keys.function_keys``. The recording plugin empties that set
at each test's start and takes it at the test's end.

A cached function (``functools.cache`` and ``lru_cache``, replaced for every module imported after ``install``, the
tests' included) credits every caller with the calls its value took, the test that filled the cache and each that
got the value from it alike: which test fills a cache depends on the order the tests run in, and what each test
reads does not; so does a fixture wider than one test, whose set-up's calls count for every test that uses it. Calls
whose result can outlive the test that made them are also *shared*: those made outside any test (imports,
collection), while a wide fixture is set up, or in a ``cached_property``'s first computation (later reads do not call
it). A change to a shared function re-runs every test. A test that starts a Python process (``spawned``, seen by an
audit hook) may run any function there, unseen: a change to any function re-runs it. A module imported before the
hook was installed is not instrumented; ``modules`` lists those that were, so that a change elsewhere is known to be
unseen.
"""

from __future__ import annotations

import ast
import functools
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import CodeType
from typing import Any

from reports.campaign.mutation_scope import MODEL_PATHS, is_mutated, mutmut_config

HIT = "__cm_hit__"
_REAL_LRU_CACHE = functools.lru_cache
_REAL_CACHED_PROPERTY = functools.cached_property

_HITS: set[int] = set()
_SHARED: set[int] = set()
_NAMES: list[str] = []
_INDEX: dict[str, int] = {}
_MODULES: set[str] = set()
_SPAWNED: list[bool] = [False]
_WIDE: dict[object, frozenset[int]] = {}  # each wide fixture's calls at its last set-up


def _index(name: str) -> int:
    if name not in _INDEX:
        _INDEX[name] = len(_NAMES)
        _NAMES.append(name)
    return _INDEX[name]


@contextmanager
def shared() -> Iterator[set[int]]:
    """The calls made inside count as shared (a wide fixture's set-up, a ``cached_property``'s computation), not as
    the running test's: which test sets them up depends on the order the tests ran in, so a test's own calls leave
    them out and read the same in any order. Yields the set that holds them once the block ends."""
    took: set[int] = set()
    saved = set(_HITS)
    _HITS.clear()
    try:
        yield took
    finally:
        took.update(_HITS)
        _SHARED.update(_HITS)
        _HITS.clear()
        _HITS.update(saved)


@contextmanager
def wide_fixture(fixture: object) -> Iterator[None]:
    """A fixture wider than one test is set up: its calls are shared, and each test that uses it (``uses``) is
    credited with them, the test it was set up for and every later one alike."""
    with shared() as took:
        yield
    _WIDE[fixture] = frozenset(took)


def uses(fixture: object) -> None:
    """The test running uses ``fixture`` (a wide one): the calls of its last set-up are the test's too."""
    _HITS.update(_WIDE.get(fixture, ()))


def _sharing(function: Any) -> Any:
    """``function``, its calls shared (what a ``cached_property`` runs the first time)."""

    @functools.wraps(function)
    def shared_call(*args: Any, **kwargs: Any) -> Any:
        with shared():
            return function(*args, **kwargs)

    return shared_call


def _crediting(function: Any, cache: Any, typed: bool) -> Any:
    """``cache(function)`` that credits each caller with the calls the value it gets took (kept by the key the cache
    itself uses, ``functools._make_key``)."""
    took: dict[Any, frozenset[int]] = {}

    def miss(*args: Any, **kwargs: Any) -> Any:
        outer = set(_HITS)
        _HITS.clear()
        try:
            return function(*args, **kwargs)
        finally:
            took[functools._make_key(args, kwargs, typed)] = frozenset(_HITS)
            _HITS.update(outer)

    cached = cache(miss)

    @functools.wraps(function)
    def credited(*args: Any, **kwargs: Any) -> Any:
        value = cached(*args, **kwargs)
        _HITS.update(took.get(functools._make_key(args, kwargs, typed), ()))
        return value

    def cache_clear() -> None:
        cached.cache_clear()
        took.clear()

    credited.cache_clear = cache_clear  # type: ignore[attr-defined]
    credited.cache_info = cached.cache_info  # type: ignore[attr-defined]
    credited.cache_parameters = cached.cache_parameters  # type: ignore[attr-defined]
    return credited


def lru_cache(maxsize: Any = 128, typed: bool = False) -> Any:
    """``functools.lru_cache`` (and so ``functools.cache``) that credits each caller with the calls its value took."""
    if callable(maxsize) and not isinstance(maxsize, bool):  # used bare: @lru_cache
        return _crediting(maxsize, _REAL_LRU_CACHE, False)
    decorate = _REAL_LRU_CACHE(maxsize, typed)
    return lambda function: _crediting(function, decorate, typed)


class cached_property(_REAL_CACHED_PROPERTY):  # functools' name
    """``functools.cached_property`` whose first computation is shared."""

    def __init__(self, func: Any) -> None:
        super().__init__(_sharing(func))


def start_test() -> None:
    """A test starts: what was called since the last test's end (imports, collection) is shared."""
    _SHARED.update(_HITS)
    _HITS.clear()
    _SPAWNED[0] = False


def spawned() -> bool:
    """Whether the test running (or the last one) started a Python process."""
    return _SPAWNED[0]


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """``subprocess.Popen``'s audit event: a Python child marks the test (its calls there are not seen)."""
    if event == "subprocess.Popen" and not _SPAWNED[0]:
        executable, argv = args[0], args[1]
        words = [str(executable or "")] + ([str(a) for a in argv] if isinstance(argv, list | tuple) else [str(argv)])
        _SPAWNED[0] = any(w == sys.executable or Path(w).name.startswith("python") for w in words[:2])


def end_test() -> list[str]:
    """A test ends: the functions it called, by dotted name, sorted."""
    names = sorted(_NAMES[i] for i in _HITS)
    _HITS.clear()
    return names


def shared_names() -> list[str]:
    return sorted({_NAMES[i] for i in _SHARED | _HITS})


def instrumented_modules() -> list[str]:
    return sorted(_MODULES)


class _Instrument(ast.NodeTransformer):
    """Adds the hit to every function of one module."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.owner: int | None = None
        self.prefix = ""

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        if self.owner is not None:
            return self.generic_visit(node)
        outer, self.prefix = self.prefix, f"{self.prefix}{node.name}."
        try:
            return self.generic_visit(node)
        finally:
            self.prefix = outer

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        top = self.owner is None
        if top:
            self.owner = _index(f"{self.module}.{self.prefix}{node.name}")
        try:
            self.generic_visit(node)
        finally:
            owner = self.owner
            if top:
                self.owner = None
        assert owner is not None
        _prepend(node, owner)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


def _prepend(node: ast.FunctionDef | ast.AsyncFunctionDef, owner: int) -> None:
    """``__cm_hit__(owner)`` first in the body (after its docstring), where its first statement is."""
    body = node.body
    first = body[0]
    doc = body[:1] if isinstance(first, ast.Expr) and isinstance(getattr(first.value, "value", None), str) else []
    rest = body[len(doc) :] or [ast.copy_location(ast.Pass(), first)]
    hit = ast.Expr(ast.Call(ast.Name(HIT, ast.Load()), [ast.Constant(owner)], []))
    node.body = [*doc, ast.copy_location(hit, rest[0]), *rest]


def recording_globals() -> dict[str, Any]:
    """What an instrumented module's code calls, by the names the instrumentation gave it."""
    return {HIT: _HITS.add}


def instrumented(source: str | bytes, path: str, module: str) -> CodeType:
    """``source`` compiled with the hits added (positions kept: tracebacks and line numbers read as the file)."""
    tree = _Instrument(module).visit(ast.parse(source, path))
    ast.fix_missing_locations(tree)
    return compile(tree, path, "exec", dont_inherit=True)


class _Loader(importlib.machinery.SourceFileLoader):
    """Loads a module of the code under test instrumented, never through (or into) the bytecode cache."""

    def get_code(self, fullname: str) -> CodeType:
        path = self.get_filename(fullname)
        code = instrumented(self.get_data(path), path, fullname)
        _MODULES.add(fullname)
        return code

    def exec_module(self, module: Any) -> None:
        module.__dict__.update(recording_globals())
        super().exec_module(module)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the modules of the code under test of the project at ``root`` (``mutation_scope.is_code``: the model's
    folders, and what mutmut mutates elsewhere, the tools' verdict rules) and has them loaded instrumented."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = mutmut_config(root)

    def _is_code(self, fullname: str) -> bool:
        if fullname.partition(".")[0] in MODEL_PATHS:
            return True
        base = fullname.replace(".", "/")
        rels = (f"{base}.py", f"{base}/__init__.py")
        return any(is_mutated(rel, self.config) and (self.root / rel).is_file() for rel in rels)

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if not self._is_code(fullname):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        spec.loader = _Loader(fullname, spec.origin)
        return spec


def recording() -> bool:
    """Whether ``install`` ran in this process (the code under test imported since is instrumented)."""
    return any(isinstance(f, _Finder) for f in sys.meta_path)


def install(root: Path) -> None:
    """From now on the modules of the code under test of the project at ``root`` are imported instrumented (those
    already imported stay as they are, and are not listed by ``instrumented_modules``), and functools' caches credit
    each caller with what their values took (``cached_property`` shares its first computation)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder(root))
        sys.addaudithook(_audit)
    functools.lru_cache = lru_cache  # type: ignore[assignment]  # this process only
    functools.cached_property = cached_property  # type: ignore[misc]
