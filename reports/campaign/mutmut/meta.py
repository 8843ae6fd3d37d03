"""mutmut's data files in its work copy (``mutants/**/*.py.meta``), read: each mutated file's mutants and
their exit codes."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from reports.campaign.hints import function_of
from reports.campaign.mutation_scope import MUTMUT_PATHS


def module_of(source: str) -> str:
    """``strategies/cap.py`` -> ``strategies.cap``."""
    return source[: -len(".py")].replace("/", ".")


def name_prefix(source: str) -> str:
    """``strategies/cap.py`` -> ``strategies.cap``, ``invariants/__init__.py`` -> ``invariants``: the module as a
    mutant's name spells it (a package's own module by the package's name)."""
    return module_of(source).removesuffix(".__init__")


def mutant_name(key: str) -> str:
    """A mutant's name (as ``MUTANT_UNDER_TEST`` and the journal spell it) from its key in a ``.meta`` file."""
    return key.replace("__init__.", "")


def unmangled(function: str) -> str:
    """mutmut's name of a function, ``strategies.cap.x_units`` or ``strategies.cap.xǁCapǁunits``, as
    ``strategies.cap.units`` or ``strategies.cap.Cap.units``."""
    module, _, name = mutant_name(function).rpartition(".")
    name = ".".join(name[2:].split("ǁ")) if name.startswith("xǁ") else name.removeprefix("x_")
    return f"{module}.{name}"


def mutated_functions(work: Path) -> set[str]:
    """Every function mutmut made a mutant of, by its mangled name (``strategies.cap.x_units``)."""
    return {function_of(k) for _, (_, data) in load_meta(work).items() for k in data.get("exit_code_by_key", {})}


def meta_files(work: Path) -> list[Path]:
    root = work / "mutants"
    return sorted(p for top in MUTMUT_PATHS for p in (root / top).rglob("*.py.meta")) if root.is_dir() else []


def load_meta(work: Path, repair: bool = False) -> dict[str, tuple[Path, dict[str, Any]]]:
    """Each mutated file's mutmut data by its source path.

    A file that does not parse is skipped; with ``repair`` (only while mutmut is not running: it
    writes these files in place) one that mutmut left half-written when it was killed is removed
    with its mutated module, so that mutmut makes both anew.
    """
    out = {}
    for meta in meta_files(work):
        source = meta.relative_to(work / "mutants").as_posix()[: -len(".meta")]
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            if repair:
                meta.unlink()
                with contextlib.suppress(FileNotFoundError):
                    (work / "mutants" / source).unlink()
            continue
        out[source] = (meta, data)
    return out


def tests_by_function(work: Path) -> dict[str, list[str]] | None:
    """mutmut's per-function coverage (``mutants/mutmut-stats.json``): the tests that call each mutated function, by
    its mangled name (``reference.ops.x_f``); None when mutmut has not measured it (or the file does not parse)."""
    with contextlib.suppress(OSError, ValueError):
        stats = json.loads((work / "mutants" / "mutmut-stats.json").read_text(encoding="utf-8"))
        return {str(f): list(tests) for f, tests in stats.get("tests_by_mangled_function_name", {}).items()}
    return None
