"""Hypothesis's pool of the project's own constants, filled from every module up front: a derandomized test then draws
the same examples whatever else its session collected or ran first.

Hypothesis draws some values from the literals of the project's modules (not its tests) that are imported when a
test generates. Which those are depends on the session: a run of one test file imports fewer modules than the whole
suite, and a test imported lazily by an earlier test adds its literals for the tests after it. The same test on the
same code could then find another counterexample, or none, from one run to the next (a witness search over a few
tests, a named mutant run on the tests whose code changed). Filling the pool from every module of the project's
packages before any test runs makes it the same in every session of one tree.
"""

from __future__ import annotations

import types
from pathlib import Path

try:  # the pool is Hypothesis's own (6.131 on); without it there is nothing to pin
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.constants_ast import constants_from_module, is_local_module_file
except ImportError:  # pragma: no cover - an older Hypothesis draws no local constants
    providers = None


def package_files(root: Path) -> list[Path]:
    """The Python files of the packages at ``root`` (folders with an ``__init__.py``, hidden ones and the tests
    aside), sorted."""
    packages = [
        d
        for d in sorted(root.iterdir())
        if d.is_dir() and (d / "__init__.py").is_file() and not d.name.startswith(".") and d.name != "tests"
    ]
    files = (p for d in packages for p in d.rglob("*.py"))
    return sorted(p for p in files if not any(s.startswith(".") for s in p.relative_to(root).parts))


_PINNED: list[Path] = []


def pin(root: Path) -> int:
    """Add the constants of every module of ``root``'s packages that Hypothesis counts as local to its pool, once a
    process (a session run inside another adds nothing to its pool); how many modules were read (0 where this
    Hypothesis keeps no such pool)."""
    if _PINNED or providers is None or not hasattr(providers, "_local_constants"):
        return 0
    _PINNED.append(root)
    read = 0
    for path in package_files(root):
        if not is_local_module_file(str(path)):
            continue
        module = types.ModuleType(f"cmharness_constants_of_{read}")
        module.__file__ = str(path)
        providers._local_constants |= constants_from_module(module)
        read += 1
    providers.CONSTANTS_CACHE.cache.clear()
    return read
